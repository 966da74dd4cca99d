// `j2kfront compress -i IN -o OUT.j2k|.j2c|.jp2`: a JPEG 2000 file from an image file,
// through the front stage (any backend) and the codec (codec/), with opj_compress's flags:
// -r / -q quality layers, -n, -b, -c, -t, -T, -d, -p, -I, -mct, -M, -SOP, -EPH, -PLT, -TLM,
// -TP. Every flag is checked before any work; the file is written under a temporary name and
// renamed.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>

#include "codec/codestream/codestream_writer.hpp"
#include "codec/codestream/jp2_writer.hpp"
#include "common/error.hpp"
#include "io/image_io.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tools/commands.hpp"
#include "tools/env_options.hpp"
#include "tools/output_dir.hpp"

namespace j2k::tools {
namespace {

namespace fs = std::filesystem;

struct CompressArgs {
  std::string input, output, tile_size, tile_origin = "0,0", image_origin = "0,0", backend = "auto";
  std::string rates, psnr, block = "64,64", precincts, order = "LRCP", tile_parts, comment = "Created by j2kfront";
  int resolutions = 6, device = -1, threads = 0, mct = -1, modes = 0, guard_bits = -1;
  bool irreversible = false, sop = false, eph = false, plt = false, tlm = false, force = false, quiet = false;
};

std::string lower_extension(const std::string& path) {
  std::string e = fs::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

// "a,b,c" -> numbers, each checked.
std::vector<double> parse_list(const std::string& option, const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || !std::isfinite(v) || v < 0)
      throw CLI::ValidationError(option, "expected numbers >= 0 separated by commas, got '" + text + "'");
    out.push_back(v);
  }
  if (out.empty()) throw CLI::ValidationError(option, "expected at least one number");
  return out;
}

int exact_log2(const std::string& option, int64_t v) {
  int k = 0;
  while ((int64_t{1} << k) < v) ++k;
  if ((int64_t{1} << k) != v) throw CLI::ValidationError(option, std::to_string(v) + " is not a power of two");
  return k;
}

// -c "[W,H],[W,H],...": the first for the highest resolution, each further one for the next
// lower; the last one halved for each resolution left (as opj_compress), never below 2 (1 at
// the lowest resolution).
std::vector<std::pair<int, int>> parse_precincts(const std::string& text, int resolutions) {
  std::vector<std::pair<int, int>> given;
  size_t i = 0;
  while (i < text.size()) {
    const size_t close = text.find(']', i);
    if (text[i] != '[' || close == std::string::npos)
      throw CLI::ValidationError("-c", "expected [W,H],[W,H],..., got '" + text + "'");
    const auto [w, h] = parse_pair("-c", text.substr(i + 1, close - i - 1), 1, 32768);
    given.push_back({exact_log2("-c", w), exact_log2("-c", h)});
    i = close + 1;
    if (i < text.size() && text[i] == ',') ++i;
  }
  if (given.empty()) throw CLI::ValidationError("-c", "expected at least one [W,H]");
  std::vector<std::pair<int, int>> out(static_cast<size_t>(resolutions));  // [0] the lowest
  for (int k = 0; k < resolutions; ++k) {
    const int r = resolutions - 1 - k;
    std::pair<int, int> s = k < static_cast<int>(given.size()) ? given[static_cast<size_t>(k)] : given.back();
    if (k >= static_cast<int>(given.size())) {
      const int halvings = k - static_cast<int>(given.size()) + 1;
      const int least = r == 0 ? 0 : 1;
      s = {std::max(least, s.first - halvings), std::max(least, s.second - halvings)};
    }
    if (r > 0 && (s.first < 1 || s.second < 1))
      throw CLI::ValidationError("-c", "precincts above the lowest resolution must be at least 2 x 2");
    out[static_cast<size_t>(r)] = s;
  }
  return out;
}

codec::CodingParams coding_params(const CompressArgs& a, size_t components) {
  codec::CodingParams p;
  p.reversible = !a.irreversible;
  p.levels = a.resolutions - 1;
  p.mct = a.mct < 0 ? components >= 3 : a.mct == 1;
  if (p.mct && components < 3) throw CLI::ValidationError("-mct", "the component transform needs 3 or more components");
  const auto [bw, bh] = parse_pair("-b", a.block, 4, 1024);
  p.block_w_log2 = exact_log2("-b", bw);
  p.block_h_log2 = exact_log2("-b", bh);
  if (bw * bh > 4096) throw CLI::ValidationError("-b", "a code-block has at most 4096 samples (W * H)");
  if (!a.precincts.empty()) p.precincts = parse_precincts(a.precincts, a.resolutions);
  if (!codec::parse_progression(a.order, p.order))
    throw CLI::ValidationError("-p", "the progression is LRCP, RLCP, RPCL, PCRL or CPRL, not '" + a.order + "'");
  p.modes = static_cast<uint8_t>(a.modes);
  p.sop = a.sop, p.eph = a.eph, p.plt = a.plt, p.tlm = a.tlm;
  if (!a.tile_parts.empty()) p.tile_parts = a.tile_parts[0];
  p.guard_bits = a.guard_bits;
  p.comment = a.comment;
  p.threads = a.threads;
  if (!a.rates.empty() && !a.psnr.empty()) throw CLI::ValidationError("-q", "give -r (rates) or -q (PSNR), not both");
  // -r: compression ratios per layer, the largest first; 0 or 1: lossless. Made into bytes
  // once the image is read.
  if (!a.rates.empty()) p.layer_bytes = parse_list("-r", a.rates);
  if (!a.psnr.empty()) p.layer_psnr = parse_list("-q", a.psnr);
  std::vector<double>& t = p.layer_bytes.empty() ? p.layer_psnr : p.layer_bytes;
  if (!t.empty()) p.layers = static_cast<int>(t.size());
  return p;
}

int run_compress(const CompressArgs& a) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const std::string ext = lower_extension(a.output);
  if (ext != ".j2k" && ext != ".j2c" && ext != ".jp2")
    throw CLI::ValidationError("-o", "the output must end in .j2k or .j2c (a codestream) or .jp2 (a JP2 file), not '" + ext + "'");
  j2kfront::Settings s;
  s.wavelet = a.irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
  s.levels = a.resolutions - 1;
  s.backend = backend_from_name(a.backend);
  s.threads = a.threads;
  s.device = a.device;
  std::string tuning;  // what s.opencl_tuning points to
  apply_env_options(s, tuning);
  const auto [ix, iy] = parse_pair("-d", a.image_origin, 0, (int64_t{1} << 31) - 1);
  const auto [tx, ty] = parse_pair("-T", a.tile_origin, 0, (int64_t{1} << 31) - 1);
  if (tx > ix || ty > iy) throw CLI::ValidationError("-T", "the tile origin must not exceed the image origin (-d)");
  s.tile_x0 = static_cast<uint32_t>(tx);
  s.tile_y0 = static_cast<uint32_t>(ty);
  if (!a.tile_size.empty()) {
    const auto [w, h] = parse_pair("-t", a.tile_size, 1, (int64_t{1} << 32) - 1);
    s.tile_w = static_cast<uint32_t>(w);
    s.tile_h = static_cast<uint32_t>(h);
  }
  // Flags first (the component count is checked once the image is read), then the output:
  // never the input, an existing file only with --force.
  codec::CodingParams params = coding_params(a, 3);
  const OutputFile output(a.output, a.input, a.force);
  output.check();

  j2kfront::Image image = io::read_image(a.input);
  const size_t ncomp = image.components.size();
  params = coding_params(a, ncomp);
  if (ix + image.width > UINT32_MAX || iy + image.height > UINT32_MAX)
    throw CLI::ValidationError("-d", "the image does not fit on the canvas at that origin");
  if (!a.tile_size.empty() && (tx + s.tile_w <= ix || ty + s.tile_h <= iy))
    throw CLI::ValidationError("-t", "the first tile must overlap the image: tile origin + tile size must exceed the image origin");
  image.x0 = static_cast<uint32_t>(ix);
  image.y0 = static_cast<uint32_t>(iy);
  // As opj_compress: 2^(resolutions - 1) must not exceed a nominal tile's sides, so that the
  // coarsest resolution of a whole tile is not empty (decoders differ on such streams).
  const int64_t side = std::min<int64_t>(s.tile_w ? s.tile_w : image.width, s.tile_h ? s.tile_h : image.height);
  if ((int64_t{1} << (a.resolutions - 1)) > side) {
    int most = 1;
    while ((int64_t{1} << most) <= side) ++most;
    throw CLI::ValidationError("-n", std::to_string(a.resolutions) + " resolutions need tiles of at least " +
                                         std::to_string(int64_t{1} << (a.resolutions - 1)) + " samples a side; " +
                                         (s.tile_w ? "these tiles allow " : "this image allows ") + std::to_string(most));
  }
  for (const auto& c : image.components)
    if (c.dx != 1 || c.dy != 1) throw Error(ErrorCode::UnsupportedInput, a.input + ": subsampled components are not compressed yet");
  s.mct = params.mct ? J2K_MCT_ON : J2K_MCT_OFF;
  // -r: the ratio of the samples' bytes (at their precision) to the file's.
  double raw_bytes = 0;
  for (const auto& c : image.components) raw_bytes += static_cast<double>(c.width) * c.height * c.precision / 8.0;
  for (double& r : params.layer_bytes) r = r <= 1 ? 0 : raw_bytes / r;

  const j2kfront::ImageView view = image.view();
  j2kfront::Plan plan(s, view);
  plan.run(view);
  const j2k_plan_info info = plan.info();
  if (info.tiles_x * info.tiles_y > 65535)
    throw CLI::ValidationError("-t", "a codestream holds at most 65535 tiles; these tiles make " +
                                         std::to_string(info.tiles_x * info.tiles_y));

  codec::StreamInfo si;
  si.x0 = image.x0;
  si.y0 = image.y0;
  si.x1 = image.x0 + image.width;
  si.y1 = image.y0 + image.height;
  si.tile_x0 = s.tile_x0;
  si.tile_y0 = s.tile_y0;
  si.tile_w = s.tile_w ? s.tile_w : si.x1 - s.tile_x0;
  si.tile_h = s.tile_h ? s.tile_h : si.y1 - s.tile_y0;
  for (const auto& c : image.components)
    si.components.push_back({c.precision, c.type == J2K_SAMPLE_I8 || c.type == J2K_SAMPLE_I16, c.dx, c.dy});
  std::vector<std::vector<codec::TileComponentInput>> tiles(static_cast<size_t>(info.tiles_x * info.tiles_y));
  for (size_t i = 0; i < info.tile_components; ++i) {
    const j2k_tile_component tc = plan.tile_component(i);
    codec::TileComponentInput in;
    in.rect = tc.rect;
    in.levels = tc.levels;
    in.data = tc.coefficients.data;
    in.stride = tc.coefficients.row_stride / 4;
    for (int b = 0; b < tc.bands; ++b) {
      const j2k_band band = plan.band(i, b);
      in.bands.push_back({band.type, band.rect, band.col, band.row});
    }
    tiles[i / ncomp].push_back(std::move(in));
  }
  codec::CodestreamStats stats;
  std::vector<uint8_t> bytes = codec::write_codestream(si, params, tiles, &stats);
  if (ext == ".jp2") {
    codec::Jp2Info j;
    j.width = image.width;
    j.height = image.height;
    for (const auto& c : si.components) j.components.push_back({c.precision, c.is_signed});
    j.colour = codec::default_colour(ncomp);
    bytes = codec::write_jp2(j, bytes);
  }

  output.write([&](std::FILE* f, const std::string& name) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fflush(f) != 0)
      throw Error(ErrorCode::Io, name + ": cannot write the file");
  });
  if (!a.quiet) {
    std::printf("j2kfront: %s %ux%u x%zu -> %s: %zu bytes (%.2f:1, %s, %d resolutions, %d layer%s, %s) in %.1f ms\n",
                a.input.c_str(), image.width, image.height, ncomp, a.output.c_str(), bytes.size(),
                raw_bytes / static_cast<double>(bytes.size()), a.irreversible ? "9/7" : "5/3", a.resolutions,
                params.layers, params.layers == 1 ? "" : "s", info.description,
                std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (!params.layer_bytes.empty() || !params.layer_psnr.empty())
      for (size_t l = 0; l < stats.layer_psnr.size(); ++l)
        std::printf("  layer %zu: estimated PSNR %.2f dB\n", l, stats.layer_psnr[l]);
  }
  return 0;
}

}  // namespace

std::function<int()> add_compress_command(CLI::App& app) {
  auto args = std::make_shared<CompressArgs>();
  CLI::App* cmd = app.add_subcommand("compress", "Write a JPEG 2000 file (.j2k/.j2c codestream or .jp2) with opj_compress's options");
  cmd->add_option("-i,--input", args->input, "the image: TIFF, PNG, PGM/PPM or PGX")->required();
  cmd->add_option("-o,--output", args->output, "OUT.j2k or OUT.j2c (a codestream), OUT.jp2 (a JP2 file)")->required();
  cmd->add_option("-r", args->rates, "compression ratio per quality layer, e.g. 40,20,10 (1 or 0: lossless); default lossless");
  cmd->add_option("-q", args->psnr, "PSNR in dB per quality layer, e.g. 30,40 (0: lossless)");
  cmd->add_option("-n", args->resolutions, "resolutions: decomposition levels + 1")
      ->check(CLI::Range(1, 33))->capture_default_str();
  cmd->add_option("-b", args->block, "code-block size W,H: powers of two, 4..1024, W*H <= 4096")->capture_default_str();
  cmd->add_option("-c", args->precincts, "precinct sizes [W,H],[W,H],... from the highest resolution (default: 2^15)");
  cmd->add_option("-t", args->tile_size, "tile size W,H (default: one tile)");
  cmd->add_option("-T", args->tile_origin, "tile grid origin X,Y on the canvas")->capture_default_str();
  cmd->add_option("-d", args->image_origin, "image origin X,Y on the canvas")->capture_default_str();
  cmd->add_option("-p", args->order, "progression order: LRCP, RLCP, RPCL, PCRL or CPRL")->capture_default_str();
  cmd->add_flag("-I", args->irreversible, "the irreversible 9/7 wavelet (lossy), with the ICT");
  cmd->add_option("--mct", args->mct, "1: the component transform on components 0..2 (default with 3 or more), 0: none")
      ->check(CLI::Range(0, 1));
  cmd->add_option("-M", args->modes, "mode switches, the sum of: 1 BYPASS, 2 RESET, 4 RESTART, 8 VSC, 16 ERTERM, 32 SEGMARK")
      ->check(CLI::Range(0, 63));
  cmd->add_flag("--SOP", args->sop, "a start-of-packet marker before each packet");
  cmd->add_flag("--EPH", args->eph, "an end-of-packet-header marker after each packet header");
  cmd->add_flag("--PLT", args->plt, "packet lengths in each tile-part header");
  cmd->add_flag("--TLM", args->tlm, "tile-part lengths in the main header");
  cmd->add_option("--TP", args->tile_parts, "tile-parts: a new one at each resolution (R), layer (L) or component (C)")
      ->check(CLI::IsMember({"R", "L", "C"}));
  cmd->add_option("--guard-bits", args->guard_bits, "guard bits 0..7 (default 2, more where the 5/3 needs them)")
      ->check(CLI::Range(0, 7));
  cmd->add_option("-C,--comment", args->comment, "the COM marker's text (empty: none)")->capture_default_str();
  cmd->add_option("--backend", args->backend, "the front stage's backend: auto, cpu, cuda or opencl")
      ->check(CLI::IsMember({"auto", "cpu", "cuda", "opencl"}))->capture_default_str();
  cmd->add_option("--threads", args->threads, "CPU threads (default: all cores)")->check(CLI::Range(1, 4096));
  cmd->add_option("--device", args->device, "GPU/OpenCL device index (default: J2KFRONT_DEVICE or the first)")->check(CLI::Range(0, 4096));
  cmd->add_flag("--force", args->force, "replace an existing output file");
  cmd->add_flag("--quiet", args->quiet, "print nothing but errors");
  cmd->footer("opj_compress's spellings -mct, -SOP, -EPH, -PLT, -TLM, -TP and -threads are accepted too.");
  return [args] { return run_compress(*args); };
}

std::vector<std::string> opj_style_arguments(int argc, char** argv) {
  std::vector<std::string> out(argv, argv + argc);
  if (argc < 2 || out[1] != "compress") return out;
  for (std::string& a : out)
    for (const char* name : {"-mct", "-SOP", "-EPH", "-PLT", "-TLM", "-TP", "-threads"})
      if (a == name) a = std::string("-") + name;
  return out;
}

}  // namespace j2k::tools
