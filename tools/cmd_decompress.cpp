// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront decompress -i IN.j2k|.j2c|.jp2 -o OUT.pgm|.ppm|.pnm|.pgx|.tif|.png`: a JPEG 2000
// file back to an image (or every JPEG 2000 file of a directory into another), through the
// library's decoder, with opj_decompress's flags: -r (reduce), -l (layers), -d (region), -t
// (tile), -c (components), -threads, -OutFor. Every flag and every output name is checked
// before any work; each file is written under a temporary name and renamed.
#include <algorithm>
#include <cstring>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "codec/codestream/jp2_boxes.hpp"
#include "common/error.hpp"
#include "common/parallel/parallel_for.hpp"
#include "common/sample_bytes.hpp"
#include "common/sample_type.hpp"
#include "io/image_io.hpp"
#include "io/image_writers.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tools/commands.hpp"
#include "tools/env_options.hpp"
#include "tools/image_files.hpp"
#include "tools/input_file.hpp"
#include "tools/memory_size.hpp"
#include "tools/output_dir.hpp"
#include "tools/progress.hpp"
#include "tools/rows_in_background.hpp"

namespace j2k::tools {

namespace {

namespace fs = std::filesystem;

struct DecompressArgs {
  std::string input, output, out_format, region, components, max_memory, backend = "auto";
  int reduce = 0, layers = 0, tile = -1, threads = 0, device = -1;
  bool allow_partial = false, force = false, quiet = false, keep_icc = false;
};

bool is_jpeg2000_name(const std::string& path) { return j2k_file_format_from_name(path.c_str(), nullptr) != 0; }

// "a,b,..." -> integers within [min, max].
std::vector<int64_t> parse_integers(const std::string& option, const std::string& text, int64_t min, int64_t max) {
  std::vector<int64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    long long v = 0;
    try {
      if (!item.empty() && (std::isdigit(static_cast<unsigned char>(item[0])) || item[0] == '-')) v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || v < min || v > max)
      throw CLI::ValidationError(option, "expected integers " + std::to_string(min) + " to " + std::to_string(max) +
                                             " separated by commas, got '" + text + "'");
    out.push_back(v);
  }
  if (out.empty()) throw CLI::ValidationError(option, "expected at least one number");
  return out;
}

struct DecompressJob {
  std::string input, output;
  std::string format_name;  // a name whose extension says the format (for "-", standard output)
};

// One file to the image -o names, or (batch: -i is a directory) every JPEG 2000 file in it to
// the directory -o names, each as <its name without extension>.<--OutFor>.
std::vector<DecompressJob> decompress_jobs(const DecompressArgs& a, bool batch, size_t* skipped) {
  std::error_code ec;
  if (!batch && a.output == "-") {
    // Standard output: --OutFor says the format (PNM by default: PGM for one component, else PPM).
    std::string format = a.out_format.empty() ? "pnm" : a.out_format;
    std::transform(format.begin(), format.end(), format.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    io::ImageFormat f{};
    try {
      f = io::image_format_for("x." + format);
    } catch (const Error&) {
      throw CLI::ValidationError("--OutFor", "the format of -o - is pnm, pgm, ppm, tif, tiff or png, not '" + a.out_format + "'");
    }
    if (f == io::ImageFormat::Pgx) throw CLI::ValidationError("--OutFor", "PGX is a file per component: give -o OUT.pgx, not -o -");
    return {{a.input, "-", "x." + format}};
  }
  if (!batch) {
    if (!a.out_format.empty())
      throw CLI::ValidationError("--OutFor", "names the format of -o - or of a directory's outputs; for one file, -o's extension does");
    try {
      io::image_format_for(a.output);
    } catch (const Error& e) {
      throw CLI::ValidationError("-o", e.what());
    }
    return {{a.input, a.output, a.output}};
  }
  if (a.output == "-" || (fs::exists(a.output, ec) && !fs::is_directory(a.output, ec)))
    throw CLI::ValidationError("-o", a.output + ": -i is a directory, so -o must be one too (it is created if missing)");
  std::string format = a.out_format.empty() ? "png" : a.out_format;
  std::transform(format.begin(), format.end(), format.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  try {
    io::image_format_for("x." + format);
  } catch (const Error&) {
    throw CLI::ValidationError("--OutFor", "the outputs' format is pgm, ppm, pnm, pgx, tif, tiff or png, not '" + a.out_format + "'");
  }
  std::vector<std::string> inputs;
  for (const auto& entry : fs::directory_iterator(a.input, ec)) {
    if (entry.is_regular_file(ec) && is_jpeg2000_name(entry.path().string())) inputs.push_back(entry.path().string());
    else ++*skipped;
  }
  if (ec) throw CLI::ValidationError("-i", a.input + ": cannot list the directory: " + ec.message());
  if (inputs.empty()) throw CLI::ValidationError("-i", a.input + " holds no .j2k, .j2c, .jpc, .jp2, .jph or .jhc file");
  std::sort(inputs.begin(), inputs.end());
  std::vector<DecompressJob> jobs;
  std::map<std::string, std::string> seen;
  for (const std::string& in : inputs) {
    const std::string out = (fs::path(a.output) / fs::path(in).stem()).string() + "." + format;
    const auto [it, fresh] = seen.emplace(out, in);
    if (!fresh) throw CLI::ValidationError("-i", in + " and " + it->second + " would both write " + out);
    jobs.push_back({in, out, out});
  }
  return jobs;
}

// The outputs one image makes: one file, or (PGX) one per component.
std::vector<std::string> output_names(const std::string& output, size_t components) {
  if (output == "-" || io::image_format_for(output) != io::ImageFormat::Pgx) return {output};
  std::vector<std::string> names;
  for (size_t c = 0; c < components; ++c) names.push_back(io::pgx_component_path(output, c));
  return names;
}

// What a JP2 file held beside the image (the decoder's report) that an image file can hold: its
// ICC profile where the samples are still in its space (not applied), its resolution, its XMP
// packet and Exif (their UUID boxes; Exif after the "Exif\0\0" some writers put first) and its
// GeoJP2 box's GeoTIFF (the first, for a TIFF's GeoTIFF tags). The other boxes (XML, other
// UUIDs) are named in `left` for a warning.
io::ImageMetadata metadata_of(const j2k_decode_report& r, std::vector<std::string>& left) {
  io::ImageMetadata m;
  if (r.icc_profile && !r.icc_applied) m.icc.assign(r.icc_profile, r.icc_profile + r.icc_profile_size);
  if (r.resolution_x > 0 && r.resolution_y > 0) m.x_per_metre = r.resolution_x, m.y_per_metre = r.resolution_y;
  for (int k = 0; k < r.num_boxes; ++k) {
    const j2k_box& b = r.boxes[k];
    const std::string uuid = codec::jp2_uuid_name(b.data, b.type == J2K_BOX_UUID ? b.size : 0);
    if (uuid == "XMP") {
      m.xmp.assign(b.data + 16, b.data + b.size);
    } else if (uuid == "EXIF") {
      static const uint8_t kExifHeader[6] = {'E', 'x', 'i', 'f', 0, 0};
      const size_t skip = b.size >= 22 && std::memcmp(b.data + 16, kExifHeader, 6) == 0 ? 22 : 16;
      m.exif.assign(b.data + skip, b.data + b.size);
    } else if (uuid == "GeoJP2" && m.geotiff.empty()) {
      m.geotiff.assign(b.data + 16, b.data + b.size);
    } else {
      left.push_back(uuid.empty() ? "'" + codec::jp2_box_name(b.type) + "' box" : uuid + " box");
    }
  }
  return m;
}

// "a, b and c"
std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (size_t k = 0; k < items.size(); ++k) out += (k == 0 ? "" : k + 1 == items.size() ? " and " : ", ") + items[k];
  return out;
}

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

void warn_unwritten(io::ImageFormat format, const std::string& output, const std::string& input, const io::ImageMetadata& metadata,
                    std::vector<std::string> left, const std::vector<std::string>& unwritten);

// `format_name`: a name whose extension says the format (for "-", standard output, --OutFor's).
// `metadata`: what the JP2 file held beside the image; a TIFF or PNG takes what it has a place
// for, and warnings name what no output keeps.
void write_image(const io::ImageSamples& whole, const std::string& output, const std::string& format_name, const std::string& input,
                 bool force, const io::ImageMetadata& metadata, std::vector<std::string> left) {
  const io::ImageFormat format = io::image_format_for(format_name);
  const std::string why = io::cannot_write(whole, format);
  if (!why.empty()) throw Error(ErrorCode::InvalidArgument, output + ": " + why);
  const io::ImageSamples image = io::written_components(whole, format);
  if (image.components.size() < whole.components.size())
    std::fprintf(stderr, "j2kfront: warning: %s holds %zu of the image's %zu components, as opj_decompress writes it; "
                 "a .pgx output holds them all\n", output.c_str(), image.components.size(), whole.components.size());
  const std::vector<std::string> names = output_names(output, image.components.size());
  std::vector<OutputFile> files;
  for (const std::string& n : names)
    files.emplace_back(n, input, force, format == io::ImageFormat::Png ? std::function<bool(const std::string&)>(io::written_by_j2kfront) : nullptr);
  for (const OutputFile& f : files) f.check();
  std::vector<std::string> unwritten;  // what the TIFF or PNG writer could not take, and why
  for (size_t k = 0; k < files.size(); ++k)
    files[k].write([&](std::FILE* f, const std::string& name) {
      switch (format) {
        case io::ImageFormat::Pgm:
        case io::ImageFormat::Pnm: io::write_pnm(f, name, image); break;
        case io::ImageFormat::Tiff: unwritten = io::write_tiff(f, name, image, &metadata); break;
        case io::ImageFormat::Png: unwritten = io::write_png_image(f, name, image, &metadata); break;
        case io::ImageFormat::Pgx: {
          const auto& c = image.components[k];
          io::write_pgx(f, name, c, sample_is_signed(c.type));
          break;
        }
      }
    });
  warn_unwritten(format, output, input, metadata, std::move(left), unwritten);
}

// A PGM/PPM/PAM output written a band of rows at a time as the decoder hands them out
// (Decoder::decode_rows: where the decode goes by rows, the image is never whole in memory),
// into the temporary file OutputFile renames once every row is there: a decode that fails
// half-way leaves no file. The same bytes and messages as write_image's. Returns the image's
// shape (its components' data not valid); `write_ms`: the time the rows took to write, within
// the decoder's report's.
j2k_image_view decode_to_pnm(j2kfront::Decoder& decoder, const InputBytes& bytes, const DecompressJob& job, const std::string& input,
                             bool force, int threads, std::vector<j2k_component_view>& shape, double* write_ms) {
  const io::ImageFormat format = io::image_format_for(job.format_name);
  j2k_image_view whole{};
  *write_ms = 0;
  OutputFile(job.output, job.input, force).write([&](std::FILE* f, const std::string& name) {
    std::optional<io::PnmWriter> out;
    std::optional<RowsInBackground> background;  // the bands after the first, on several threads
    auto take = [&](const j2k_image_view& view, uint32_t first_row, uint32_t rows) {
      const auto t0 = Clock::now();
      const io::ImageSamples all = io::samples_of(view);
      const io::ImageSamples written = io::written_components(all, format);
      if (!out) {
        const std::string why = io::cannot_write(all, format);
        if (!why.empty()) throw Error(ErrorCode::InvalidArgument, job.output + ": " + why);
        if (written.components.size() < all.components.size())
          std::fprintf(stderr, "j2kfront: warning: %s holds %zu of the image's %zu components, as opj_decompress writes it; "
                       "a .pgx output holds them all\n", job.output.c_str(), written.components.size(), all.components.size());
        whole = view;
        shape.assign(view.components, view.components + view.num_components);
        whole.components = shape.data();
        // One call with every row: the whole image, whose components hold their own rows.
        const bool one_call = first_row == 0 && rows == view.height;
        out.emplace(f, name, written, one_call ? all.components[0].height : int64_t{view.height});
        if (!one_call && worker_count(threads) > 1) background.emplace(f, name, out->wide(), threads);
      }
      if (background) background->put(written);
      else out->rows(written);
      *write_ms += ms_since(t0);
    };
    try {
      decoder.decode_rows(bytes.data(), bytes.size(), take);
    } catch (const j2kfront::Error& e) {
      throw j2kfront::Error(e.status(), input + ": " + e.what());
    }
    if (!out) throw Error(ErrorCode::Internal, job.output + ": the decoder handed out no rows");
    if (background) {
      const auto t0 = Clock::now();
      background->finish();
      *write_ms += ms_since(t0);
    }
    out->finish();
  });
  return whole;
}

// The warnings for what the image file has no place for: `left` (what the JP2 file held beside
// the image that no image file keeps), the metadata a PGM/PPM or PGX cannot hold, and what the
// TIFF or PNG writer could not take (`unwritten`).
void warn_unwritten(io::ImageFormat format, const std::string& output, const std::string& input, const io::ImageMetadata& metadata,
                    std::vector<std::string> left, const std::vector<std::string>& unwritten) {
  const char* out = output == "-" ? "standard output" : output.c_str();
  if (format != io::ImageFormat::Tiff && format != io::ImageFormat::Png) {
    if (!metadata.icc.empty()) left.push_back("ICC profile (the samples are in its colour space, not sRGB)");
    if (metadata.has_resolution()) left.push_back("resolution");
    if (!metadata.xmp.empty()) left.push_back("XMP packet");
    if (!metadata.exif.empty()) left.push_back("Exif");
  }
  // Only a TIFF has GeoTIFF's tags.
  if (format != io::ImageFormat::Tiff && !metadata.geotiff.empty()) left.push_back("georeferencing (GeoJP2)");
  if (!left.empty())
    std::fprintf(stderr, "j2kfront: warning: %s: its %s %s not written: %s has no place for %s%s\n", input.c_str(), listed(left).c_str(),
                 left.size() == 1 ? "is" : "are", out, left.size() == 1 ? "it" : "them",
                 format != io::ImageFormat::Tiff && format != io::ImageFormat::Png
                     ? " (a .tif keeps the profile, resolution, XMP, Exif and georeferencing; a .png all but the last)"
                     : "");
  for (const std::string& w : unwritten) std::fprintf(stderr, "j2kfront: warning: %s: %s: %s\n", input.c_str(), out, w.c_str());
}

int run_decompress(const DecompressArgs& a) {
  const auto t_start = Clock::now();
  std::error_code ec;
  const bool batch = fs::is_directory(a.input, ec);
  size_t skipped = 0;
  const std::vector<DecompressJob> jobs = decompress_jobs(a, batch, &skipped);

  j2kfront::DecodeSettings s;
  s.backend = backend_from_name(a.backend);
  s.device = a.device >= 0 ? a.device
                           : device_from_env(s.backend == J2K_BACKEND_CUDA     ? Backend::Cuda
                                             : s.backend == J2K_BACKEND_OPENCL ? Backend::OpenCL
                                                                               : Backend::Cpu,
                                             -1);
  s.reduce = a.reduce;
  s.layers = a.layers;
  s.tile = a.tile;
  s.threads = a.threads;
  s.allow_partial = a.allow_partial ? 1 : 0;
  s.convert_colour = 1;  // as opj_decompress: sYCC, e-sYCC, CMYK, ICC and CIELab come out as RGB
  // ... but CMYK stays CMYK in a TIFF (all outputs share the format of the first).
  const bool tiff_out = !jobs.empty() && io::image_format_for(jobs[0].format_name) == io::ImageFormat::Tiff;
  s.keep_cmyk = tiff_out ? 1 : 0;
  s.keep_icc = a.keep_icc ? 1 : 0;  // the ICC profile goes into the TIFF or PNG, the samples as coded
  s.max_bytes = a.max_memory.empty() ? default_memory_budget() : parse_memory_size(a.max_memory);
  if (!a.region.empty()) {
    const std::vector<int64_t> r = parse_integers("-d", a.region, 0, (int64_t{1} << 32) - 1);
    if (r.size() != 4 || r[2] <= r[0] || r[3] <= r[1])
      throw CLI::ValidationError("-d", "expected x0,y0,x1,y1 with x0 < x1 and y0 < y1, got '" + a.region + "'");
    s.region = j2k_rect{r[0], r[1], r[2], r[3]};
  }
  std::vector<int> components;
  if (!a.components.empty())
    for (int64_t c : parse_integers("-c", a.components, 0, 16383)) components.push_back(static_cast<int>(c));
  s.num_components = static_cast<int>(components.size());
  s.components = components.data();
  j2kfront::Decoder decoder(s);
  if (batch) {
    fs::create_directories(a.output, ec);
    if (ec) throw Error(ErrorCode::Io, a.output + ": cannot create the directory: " + ec.message());
  } else {
    // The output name is refused (an existing file without --force, the input) before any work.
    for (const std::string& n : output_names(a.output, 1)) OutputFile(n, a.input, a.force).check();
  }

  Progress progress(a.quiet ? 0 : jobs.size());
  size_t failed = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    const DecompressJob& job = jobs[k];
    try {
      const auto t0 = Clock::now();
      const InputBytes bytes = read_input_file(job.input, s.max_bytes, s.threads);
      const std::string input = job.input == "-" ? "standard input" : job.input;
      const io::ImageFormat format = io::image_format_for(job.format_name);
      j2k_image_view view{};
      std::vector<j2k_component_view> shape;
      j2k_decode_report report{};
      size_t component_count = 0;  // the image's, as the message below counts them
      if (format == io::ImageFormat::Pgm || format == io::ImageFormat::Pnm) {
        double write_ms = 0;
        view = decode_to_pnm(decoder, bytes, job, input, a.force, a.threads, shape, &write_ms);
        report = decoder.report();
        report.ms -= write_ms;  // the decode's own time, as the message below gives it
        std::vector<std::string> left;
        const io::ImageMetadata metadata = metadata_of(report, left);
        warn_unwritten(format, job.output, input, metadata, left, {});
        component_count = static_cast<size_t>(view.num_components);
      } else {
        try {
          view = decoder.decode(bytes.data(), bytes.size());  // the decoder's buffers, written from where they are
        } catch (const j2kfront::Error& e) {
          throw j2kfront::Error(e.status(), input + ": " + e.what());
        }
        report = decoder.report();
        io::ImageSamples image = io::samples_of(view);
        image.cmyk = tiff_out && report.enum_cs == 12 && image.components.size() >= 4;
        if (image.cmyk) image.components.resize(4);  // the inks; a channel after K is left out, as opj_decompress does
        std::vector<std::string> left;
        const io::ImageMetadata metadata = metadata_of(report, left);
        write_image(image, job.output, job.format_name, input, a.force, metadata, left);
        component_count = image.components.size();
      }
      progress.clear();
      if (report.warnings && *report.warnings) std::fprintf(stderr, "j2kfront: warning: %s: %s", job.input.c_str(), report.warnings);
      if (report.truncated) std::fprintf(stderr, "j2kfront: warning: %s is cut short: the image holds what it had\n", job.input.c_str());
      if (!a.quiet) {
        int precision = 0;
        for (size_t c = 0; c < component_count; ++c) precision = std::max(precision, view.components[c].precision);
        // What is said of the run goes to standard error when the image goes to standard output.
        std::fprintf(a.output == "-" ? stderr : stdout, "j2kfront: %s -> %s: %ux%u x%zu, %d-bit, decoded in %.1f ms, %.1f ms in all\n",
                    job.input == "-" ? "standard input" : job.input.c_str(), job.output == "-" ? "standard output" : job.output.c_str(), view.width, view.height, component_count, precision, report.ms, ms_since(t0));
        std::fflush(a.output == "-" ? stderr : stdout);
      }
    } catch (const std::exception& e) {
      if (!batch) throw;  // main() reports it
      progress.clear();
      std::fprintf(stderr, "j2kfront: error: %s\n", e.what());
      ++failed;
    }
    progress.show(k + 1, job.input);
  }
  progress.clear();
  if (batch && !a.quiet)
    std::printf("j2kfront: %zu of %zu files decompressed in %.1f ms%s\n", jobs.size() - failed, jobs.size(), ms_since(t_start),
                skipped ? (", " + std::to_string(skipped) + " other entries skipped").c_str() : "");
  if (failed) std::fprintf(stderr, "j2kfront: %zu of %zu files failed\n", failed, jobs.size());
  return failed ? 1 : 0;
}

}  // namespace

std::function<int()> add_decompress_command(CLI::App& app) {
  auto args = std::make_shared<DecompressArgs>();
  CLI::App* cmd = app.add_subcommand("decompress", "Decode a JPEG 2000 file (.j2k/.j2c/.jpc codestream or .jp2; HTJ2K .jhc or .jph too) with opj_decompress's options");
  cmd->add_option("-i,--input", args->input, "the JPEG 2000 file (- reads standard input), or a directory of them")->required();
  cmd->add_option("-o,--output", args->output,
                  "OUT.pgm, .ppm, .pnm, .pgx (one file per component: OUT_0.pgx ...), .tif or .png; - for standard output "
                  "(the format from --OutFor, pnm by default); for a directory -i, a directory")
      ->required();
  cmd->add_option("--OutFor", args->out_format,
                  "with -o -: its format, pnm (default), pgm, ppm, tif or png; with a directory -i: the outputs' format, png "
                  "(default), pgm, ppm, pnm, pgx, tif");
  cmd->add_option("-r", args->reduce, "resolutions to leave out: the image at 1/2^r of its size")->check(CLI::Range(0, 32));
  cmd->add_option("-l", args->layers, "quality layers to decode (default: all)")->check(CLI::Range(1, 65535));
  cmd->add_option("-d", args->region, "decode only the area x0,y0,x1,y1 of the reference grid (full resolution)");
  cmd->add_option("-t", args->tile, "decode only this tile (raster index)")->check(CLI::Range(0, 65534));
  cmd->add_option("-c", args->components, "output only these components, e.g. 0,2");
  cmd->add_option("--threads", args->threads, "CPU threads (default, 0: all cores)")->check(thread_count_check());
  cmd->add_option("--backend", args->backend,
                  "where the back stage (inverse DWT, inverse RCT/ICT, DC shift) runs: cpu, cuda or opencl, the same "
                  "samples on each; Tier-1 runs on the CPU's threads, with cuda or opencl on the GPU. auto: cuda where a CUDA "
                  "GPU is there and the stream holds more than 2 MiB a thread (the first image of a directory "
                  "decides), else the CPU")
      ->check(CLI::IsMember({"auto", "cpu", "cuda", "opencl"}))->capture_default_str();
  cmd->add_option("--device", args->device, "GPU/OpenCL device index (default: J2KFRONT_DEVICE or the first)")->check(CLI::Range(0, 4096));
  cmd->add_flag("--keep-icc", args->keep_icc,
                "a JP2 file's ICC profile is not applied (the samples stay in its colour space) but written into the "
                "TIFF or PNG (without it, it becomes sRGB as opj_decompress converts it, and only a profile that "
                "cannot be applied is written)");
  cmd->add_flag("--allow-partial", args->allow_partial, "decode a cut stream to what it holds (a warning says so) instead of failing");
  cmd->add_option("--max-memory", args->max_memory, "host memory one image may take, e.g. 800M, 4G (default: half the RAM)");
  cmd->add_flag("--force", args->force, "replace an existing output file");
  cmd->add_flag("--quiet", args->quiet, "print nothing but errors and warnings");
  cmd->footer("opj_decompress's spellings -threads, -OutFor, -ImgDir, -allow-partial, -quiet and -force are accepted too.");
  return [args] { return run_decompress(*args); };
}

}  // namespace j2k::tools
