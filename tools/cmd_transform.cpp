// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront transform INPUT... OUTDIR`: the front stage on image files; writes layout.json and
// one NPY array of coefficients per tile-component for each.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <new>
#include <exception>
#include <filesystem>
#include <set>
#include <sstream>
#include <vector>

#include "common/parallel/thread_limit.hpp"
#include "io/image_io.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tools/commands.hpp"
#include "tools/memory_size.hpp"
#include "tools/env_options.hpp"
#include "tools/frame_output.hpp"
#include "tools/layout_json.hpp"
#include "tools/mosaic.hpp"
#include "tools/output_dir.hpp"
#include "tools/progress.hpp"
#include "tools/stdin_file.hpp"
#include "tools/transform_jobs.hpp"
#include "tools/transform_rows.hpp"

namespace j2k::tools {

std::pair<int64_t, int64_t> parse_pair(const std::string& option, const std::string& text,
                                       int64_t min, int64_t max) {
  std::istringstream in(text);
  long long a = 0, b = 0;
  char comma = 0;
  if (!(in >> a >> comma >> b) || comma != ',' || !(in >> std::ws).eof())
    throw CLI::ValidationError(option, "expected two numbers as X,Y, got '" + text + "'");
  if (a < min || b < min || a > max || b > max)
    throw CLI::ValidationError(option, "values must be in " + std::to_string(min) + ".." +
                                           std::to_string(max) + ", got '" + text + "'");
  return {a, b};
}

j2k_backend backend_from_name(const std::string& name) {
  if (name == "cpu") return J2K_BACKEND_CPU;
  if (name == "cuda") return J2K_BACKEND_CUDA;
  if (name == "opencl") return J2K_BACKEND_OPENCL;
  return J2K_BACKEND_AUTO;
}

CLI::Validator thread_count_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        int threads = 0;
        if (!CLI::detail::lexical_cast(text, threads)) return "expected a whole number, got '" + text + "'";
        return thread_count_problem(threads);
      },
      "0.." + std::to_string(max_threads()));
}

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Canvas coordinates are 32-bit in a codestream (SIZ); origins up to 2^31-1 leave room for
// the image itself.
constexpr int64_t kMaxOrigin = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxTile = (int64_t{1} << 32) - 1;

struct TransformArgs {
  std::vector<std::string> inputs;         // positional: INPUT... OUTDIR, or INPUT... with -o
  std::vector<std::string> more_inputs;    // -i
  std::string output;                      // -o
  std::string outdir, wavelet = "5/3", mct = "auto", backend = "auto";
  std::string tile_size, tile_origin = "0,0", image_origin = "0,0";
  std::string max_memory;
  std::string mosaic;                      // --mosaic FILE.png
  int levels = 5, threads = 0, device = -1;
  bool force = false, quiet = false, verbose = false;
};

// The output directory and the inputs: -o, or else the last positional argument; the inputs
// are the other positional ones and every -i. With --mosaic, a single positional argument is
// the input, and no coefficient files are written.
void split_inputs(TransformArgs& a) {
  if (!a.output.empty()) {
    a.outdir = a.output;
  } else if (!a.mosaic.empty() && a.inputs.size() + a.more_inputs.size() == 1) {
    // only the mosaic
  } else if (!a.inputs.empty()) {
    a.outdir = a.inputs.back();
    a.inputs.pop_back();
  }
  a.inputs.insert(a.inputs.end(), a.more_inputs.begin(), a.more_inputs.end());
  if (a.outdir.empty() && a.mosaic.empty())
    throw CLI::ValidationError("OUTDIR", "no output directory: give INPUT... OUTDIR, or -o OUTDIR");
  if (a.inputs.empty())
    throw CLI::ValidationError("INPUT", a.output.empty() ? "no input: '" + a.outdir +
                                                               "' is the output directory; give INPUT... OUTDIR, or -i INPUT"
                                                         : "no input: give INPUT... with -o, or -i INPUT");
}

// The settings and the canvas origin the flags ask for, checked before any file is read.
struct Request {
  j2kfront::Settings settings;
  int64_t x0 = 0, y0 = 0;
  uint64_t budget = 0;  // bytes of host memory for one image in flight (0: no limit)
};

// `tuning` holds the OpenCL tuning text the settings point into; it must outlive them.
Request request_from(const TransformArgs& a, std::string& tuning) {
  Request r;
  j2kfront::Settings& s = r.settings;
  s.wavelet = a.wavelet == "9/7" ? J2K_WAVELET_97 : J2K_WAVELET_53;
  s.levels = a.levels;
  s.mct = a.mct == "on" ? J2K_MCT_ON : a.mct == "off" ? J2K_MCT_OFF : J2K_MCT_AUTO;
  s.backend = backend_from_name(a.backend);
  s.threads = a.threads;
  s.device = a.device;
  apply_env_options(s, tuning);
  const auto [ix, iy] = parse_pair("--image-origin", a.image_origin, 0, kMaxOrigin);
  const auto [tx, ty] = parse_pair("--tile-origin", a.tile_origin, 0, kMaxOrigin);
  if (tx > ix || ty > iy)
    throw CLI::ValidationError("--tile-origin", "the tile origin (" + a.tile_origin +
                                                    ") must not exceed the image origin (" +
                                                    a.image_origin + ")");
  s.tile_x0 = static_cast<uint32_t>(tx);
  s.tile_y0 = static_cast<uint32_t>(ty);
  if (!a.tile_size.empty()) {
    const auto [tw, th] = parse_pair("--tile-size", a.tile_size, 1, kMaxTile);
    if (tx + tw <= ix || ty + th <= iy)
      throw CLI::ValidationError("--tile-size", "the first tile must overlap the image: tile origin + "
                                                "tile size must exceed the image origin");
    s.tile_w = static_cast<uint32_t>(tw);
    s.tile_h = static_cast<uint32_t>(th);
  }
  r.x0 = ix;
  r.y0 = iy;
  r.budget = a.max_memory.empty() ? default_memory_budget() : parse_memory_size(a.max_memory);
  return r;
}

// What a plan is made for: the canvas area and the components' formats (not the samples).
struct Shape {
  uint32_t x0 = 0, y0 = 0, width = 0, height = 0;
  std::vector<std::array<int, 4>> components;  // type, precision, dx, dy

  explicit Shape(const j2kfront::Image& im) : x0(im.x0), y0(im.y0), width(im.width), height(im.height) {
    for (const auto& c : im.components) components.push_back({static_cast<int>(c.type), c.precision, c.dx, c.dy});
  }
  bool operator==(const Shape& o) const {
    return x0 == o.x0 && y0 == o.y0 && width == o.width && height == o.height && components == o.components;
  }
};

// One image in flight: read, submitted, its coefficients written once it is done.
struct Frame {
  TransformJob job;
  j2kfront::Image image;
  std::shared_ptr<j2kfront::Plan> plan;
  std::vector<j2k_coefficients> coefficients;  // where this frame's plan writes them
  j2k_ticket ticket = 0;
  double read_ms = 0;
  bool on_spare = false;  // its coefficients go to the SpareOutputs, not the plan's own buffer
  uint64_t memory = 0;  // host memory this frame holds: its samples, its plan's, its coefficients
  std::chrono::steady_clock::time_point submitted;
};

uint64_t sample_bytes(const j2kfront::Image& im) {
  uint64_t n = 0;
  for (const j2kfront::Image::Component& c : im.components) n += c.bytes.size();
  return n;
}

// Output buffers for every other frame of a plan (the others use the plan's own), so that one
// frame's files are written while the next one is transformed.
struct SpareOutputs {
  std::vector<std::vector<unsigned char>> planes;
  void point(j2kfront::Plan& plan) {
    const size_t n = plan.tile_components();
    if (planes.size() != n) planes.assign(n, {});
    for (size_t i = 0; i < n; ++i) {
      const j2k_coefficients c = plan.tile_component(i).coefficients;
      const auto row = c.width * static_cast<int64_t>(j2k_sample_size(c.type));
      planes[i].resize(static_cast<size_t>(row * c.height));
      plan.set_output(i, planes[i].data(), planes[i].size(), row);
    }
  }
};

// -v: what the plan holds, and what was written.
std::string plan_line(const j2kfront::Plan& plan, const j2k_plan_info& info) {
  const j2k_memory_report m = plan.memory();
  auto mib = [](size_t b) { return std::to_string((b + (1u << 19)) >> 20) + " MiB"; };
  return "  plan: " + std::to_string(info.tiles_x) + " x " + std::to_string(info.tiles_y) + " tiles, " +
         std::to_string(info.tile_components) + " tile-components, " + std::to_string(info.streams) +
         (info.streams == 1 ? " queue" : " queues") + "; holds " + mib(m.host) + " host, " + mib(m.pinned) +
         " pinned, " + mib(m.device) + " device memory";
}
std::string written_line(const std::string& dir, const std::set<std::string>& names) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (const std::string& n : names) bytes += std::filesystem::file_size(std::filesystem::path(dir) / n, ec);
  return "  wrote " + std::to_string(names.size()) + " files, " + std::to_string(bytes) + " bytes, in " + dir;
}

// Writes a frame's files (and its mosaic) once it is done, and prints its summary.
void write_frame(const Frame& f, const TransformArgs& a, const Request& req) {
  const j2k_settings& s = req.settings;
  j2kfront::Plan& plan = *f.plan;
  const auto t0 = Clock::now();
  plan.wait(f.ticket);
  const double wait_ms = ms_since(t0);
  const j2k_plan_info info = plan.info();
  std::vector<std::string> details;  // -v
  const auto t1 = Clock::now();
  if (!f.job.outdir.empty()) {
    OutputDir out(f.job.outdir, f.job.input, a.force, is_generated_name);
    // Check every name before writing any, so a refused run leaves the directory as it was.
    const std::set<std::string> names = output_names(info.tiles_x * info.tiles_y, f.image.components.size());
    for (const std::string& n : names) out.check_writable(n);
    out.begin(names);
    write_tile_components(out, plan, f.coefficients, 0);
    // The manifest last: while it is absent, the marker says the set is incomplete.
    out.write_text(OutputDir::kManifest, layout_json(plan, s, f.image, f.job.input).dump(1) + "\n");
    out.finish(names);
    if (a.verbose) details.push_back(written_line(f.job.outdir, names));
  }
  if (!a.mosaic.empty()) {
    const uint64_t bytes = mosaic_bytes(plan);
    if (req.budget && f.memory + bytes > req.budget)
      throw j2kfront::Error(J2K_OUT_OF_MEMORY, "the mosaic takes " + std::to_string(bytes) + " bytes beside the " +
                                                   std::to_string(f.memory) + " this image holds, more than the " +
                                                   std::to_string(req.budget) + " that --max-memory allows");
    const Mosaic m = draw_mosaic(plan, f.coefficients);
    write_mosaic(a.mosaic, f.job.input, a.force, m);
    if (a.verbose)
      details.push_back("  mosaic: " + a.mosaic + ", " + std::to_string(m.width) + " x " + std::to_string(m.height) +
                        " pixels");
  }
  if (a.verbose) details.insert(details.begin(), plan_line(plan, info));

  Summary summary;
  summary.input = f.job.input;
  summary.outdir = f.job.outdir.empty() ? a.mosaic : f.job.outdir;
  summary.image = &f.image;
  summary.settings = &s;
  summary.info = info;
  summary.description = info.description;
  summary.times = plan.times();
  summary.read_ms = f.read_ms;
  summary.wait_ms = wait_ms;
  summary.write_ms = ms_since(t1);
  if (!a.quiet) print_summary(summary);
  for (const std::string& line : details) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// The images one after another through one plan per shape, two in flight: image k+1 is read
// and transformed while the files of image k are written. A failing image is reported and the
// others go on; the exit status says whether all succeeded.
int run_transform(TransformArgs a) {
  split_inputs(a);
  std::string tuning;
  const Request req = request_from(a, tuning);
  const j2k_settings& s = req.settings;
  std::vector<std::string> skipped;  // files of input directories that are not images
  const std::vector<TransformJob> jobs = transform_jobs(a.inputs, a.outdir, &skipped);
  const bool batch = jobs.size() > 1 || jobs[0].outdir != a.outdir;
  if (!a.mosaic.empty() && batch)
    throw CLI::ValidationError("--mosaic", "draws one image; it got " + std::to_string(jobs.size()) +
                                               (jobs.size() == 1 ? " from a directory" : " images"));
  std::sort(skipped.begin(), skipped.end());
  if (a.verbose)
    for (const std::string& name : skipped) std::printf("j2kfront: skipping %s: not an image file\n", name.c_str());
  Progress progress(a.quiet ? 0 : jobs.size());
  size_t failed = 0, done = 0;
  std::unique_ptr<Frame> pending;
  SpareOutputs spare;
  std::shared_ptr<j2kfront::Plan> plan;
  std::unique_ptr<Shape> plan_shape;

  auto report = [&](const std::string& input, const std::exception& e) {
    progress.clear();
    // Memory that ran out where no budget check foresaw it: said in words, with the remedy.
    const bool no_memory = dynamic_cast<const std::bad_alloc*>(&e) != nullptr;
    const std::string what = no_memory ? "out of memory; a smaller --max-memory (or smaller tiles) bounds what an "
                                         "image takes"
                                       : e.what();  // readers' messages start with the file already
    if (!batch) {  // one image: main() reports it
      if (no_memory) throw j2kfront::Error(J2K_OUT_OF_MEMORY, input + ": " + what);
      throw;
    }
    if (what.rfind(input, 0) == 0) std::fprintf(stderr, "j2kfront: error: %s\n", what.c_str());
    else std::fprintf(stderr, "j2kfront: error: %s: %s\n", input.c_str(), what.c_str());
    ++failed;
  };
  auto finish_pending = [&] {
    if (!pending) return;
    std::unique_ptr<Frame> f = std::move(pending);
    try {
      write_frame(*f, a, req);
    } catch (const std::exception& e) {
      report(f->job.input, e);
    }
    progress.show(++done, f->job.input);
  };

  for (const TransformJob& job : jobs) {
    // Two images in flight (this one read and transformed while the last one is written) only
    // where two of the last one's size fit the budget; otherwise one after the other.
    if (pending && req.budget && pending->memory > req.budget / 2) finish_pending();
    auto f = std::make_unique<Frame>();
    f->job = job;
    std::unique_ptr<StdinFile> from_stdin;  // "-": standard input, copied to a file the readers open
    try {
      const auto t0 = Clock::now();
      if (job.input == "-") from_stdin = std::make_unique<StdinFile>(req.budget);
      const std::string path = from_stdin ? from_stdin->path() : job.input;
      io::ImageReader reader(path);
      const j2kfront::Image& header = reader.shape();
      if (req.x0 + header.width > kMaxTile || req.y0 + header.height > kMaxTile)
        throw j2kfront::Error(J2K_INVALID_ARGUMENT, "the image does not fit on the canvas at that origin");
      // An image whose samples and coefficients are over the budget goes a row of tiles at a
      // time, where it has several; so does one whose plan the budget then turns out not to
      // hold. Either way the files are those of a whole-image run.
      RowsJob rows_job;
      rows_job.input = job.input;
      rows_job.outdir = job.outdir;
      rows_job.force = a.force;
      rows_job.settings = s;
      rows_job.x0 = req.x0;
      rows_job.y0 = req.y0;
      rows_job.budget = req.budget;
      rows_job.quiet = a.quiet;
      const bool has_rows = tile_rows(s, req.x0, req.y0, header.width, header.height).size() > 1;
      auto by_rows = [&](io::ImageReader& fresh) {
        if (!a.mosaic.empty())
          throw j2kfront::Error(J2K_OUT_OF_MEMORY, job.input + ": --mosaic needs the whole image in memory, which takes "
                                                  "more than the " + std::to_string(req.budget) +
                                                  " bytes --max-memory allows; give it more");
        finish_pending();
        plan.reset();  // one plan's memory at a time
        plan_shape.reset();
        transform_by_tile_rows(fresh, rows_job);
        progress.show(++done, job.input);
      };
      const uint64_t whole_bytes = whole_image_bytes(reader);
      if (req.budget && whole_bytes > req.budget) {
        if (!has_rows)
          throw j2kfront::Error(J2K_OUT_OF_MEMORY,
                                job.input + ": its samples and coefficients need at least " +
                                    std::to_string(whole_bytes) + " bytes, more than the " + std::to_string(req.budget) +
                                    " that --max-memory allows; " +
                                    (s.tile_h ? "use tiles fewer rows high (this is one row of tiles)"
                                              : "give a --tile-size to transform it a row of tiles at a time"));
        by_rows(reader);
        continue;
      }
      f->image = reader.read_rows(header.height, req.budget);
      const uint64_t image_bytes = sample_bytes(f->image);
      f->read_ms = ms_since(t0);
      f->image.x0 = static_cast<uint32_t>(req.x0);
      f->image.y0 = static_cast<uint32_t>(req.y0);
      const j2kfront::ImageView view = f->image.view();
      const Shape shape(f->image);
      if (!plan || !(*plan_shape == shape)) {
        finish_pending();  // it still runs on the old plan
        plan.reset();      // one plan's memory at a time
        plan_shape.reset();
        // The plan may use what the samples leave of the budget.
        j2kfront::Settings with_budget = req.settings;
        with_budget.max_host_memory = req.budget ? std::max<uint64_t>(1, req.budget - image_bytes) : 0;
        try {
          plan = std::make_shared<j2kfront::Plan>(with_budget, view);  // a missing device is reported before any output
        } catch (const j2kfront::Error& e) {
          if (e.status() != J2K_OUT_OF_MEMORY) throw;
          if (has_rows) {
            f->image = j2kfront::Image();  // its memory back before the rows are read
            io::ImageReader again(path);
            by_rows(again);
            continue;
          }
          throw j2kfront::Error(J2K_OUT_OF_MEMORY, job.input + ": " + e.what() + "; its samples take " +
                                                       std::to_string(image_bytes) + " bytes of the " +
                                                       std::to_string(req.budget) + " that --max-memory allows");
        }
        plan_shape = std::make_unique<Shape>(shape);
      }
      // While the last frame of this plan waits to be written in the plan's own buffer, this
      // one goes to the spare buffer, and the other way round.
      f->on_spare = pending && pending->plan == plan && !pending->on_spare;
      if (f->on_spare) {
        spare.point(*plan);
      } else {
        for (size_t i = 0; i < plan->tile_components(); ++i) plan->set_output(i, nullptr, 0, 0);
      }
      for (size_t i = 0; i < plan->tile_components(); ++i) f->coefficients.push_back(plan->tile_component(i).coefficients);
      f->plan = plan;
      f->ticket = plan->submit(view);
      const j2k_memory_report held = plan->memory();
      f->memory = image_bytes + held.host + held.pinned;
    } catch (const std::exception& e) {
      if (from_stdin) from_stdin->rethrow_named(e);  // the only input: main() reports it
      report(job.input, e);
      progress.show(++done, job.input);
      continue;
    }
    finish_pending();
    pending = std::move(f);
  }
  finish_pending();
  progress.clear();
  if (failed) {
    std::fprintf(stderr, "j2kfront: %zu of %zu images failed\n", failed, jobs.size());
    return 1;
  }
  return 0;
}

}  // namespace

std::function<int()> add_transform_command(CLI::App& app) {
  auto args = std::make_shared<TransformArgs>();
  CLI::App* cmd = app.add_subcommand("transform", "Run the front stage on image files; write "
                                                  "OUTDIR/layout.json and tile<T>_comp<C>.npy for each");
  // One positional list: CLI11 would give a trailing OUTDIR to the inputs; the last is split off.
  cmd->add_option("INPUT...OUTDIR", args->inputs,
                  "TIFF, PNG, PGM/PPM or PGX images, or directories of them, then the output directory "
                  "(created if missing). Several images: OUTDIR/<image file name>/ each. - reads one "
                  "image from standard input (at most --max-memory bytes)")
      ->expected(0, -1);
  cmd->add_option("-i,--input", args->more_inputs, "an input, as the positional ones (repeatable: -i A -i B)")
      ->allow_extra_args(false);  // one value each time: `-i A OUTDIR` keeps OUTDIR positional
  cmd->add_option("-o,--output", args->output, "the output directory; every positional argument is then an input");
  cmd->add_option("--wavelet", args->wavelet, "5/3 (reversible, int32) or 9/7 (irreversible, float32)")
      ->check(CLI::IsMember({"5/3", "9/7"}))->capture_default_str();
  cmd->add_option("--levels", args->levels, "decomposition levels")->check(CLI::Range(0, 32))->capture_default_str();
  cmd->add_option("--tile-size", args->tile_size, "W,H (default: one tile covering the image)");
  cmd->add_option("--tile-origin", args->tile_origin, "X,Y of the tile grid")->capture_default_str();
  cmd->add_option("--image-origin", args->image_origin, "X,Y of the image on the canvas")->capture_default_str();
  cmd->add_option("--mct", args->mct, "component transform: on, off, or auto (on for >= 3 components)")
      ->check(CLI::IsMember({"on", "off", "auto"}))->capture_default_str();
  cmd->add_option("--backend", args->backend, "auto, cpu, cuda or opencl")
      ->check(CLI::IsMember({"auto", "cpu", "cuda", "opencl"}))->capture_default_str();
  cmd->add_option("--threads", args->threads, "CPU threads (default, 0: all cores)")->check(thread_count_check());
  cmd->add_option("--device", args->device, "GPU/OpenCL device index (default: J2KFRONT_DEVICE or the first)")
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--max-memory", args->max_memory,
                  "host memory for one image: its samples, coefficients and buffers, e.g. 800M or 4G "
                  "(default: half of the machine's memory); a larger tiled image goes a row of tiles at "
                  "a time, a larger untiled one is refused before any work");
  cmd->add_flag("--force", args->force, "replace existing files that j2kfront did not write");
  cmd->add_option("--mosaic", args->mosaic,
                  "also draw the subband mosaic of the one input image into this PNG file: each band scaled "
                  "for viewing, the levels framed, tiles in their grid, components side by side; with a single "
                  "positional argument, only the mosaic is written")
      ->type_name("FILE.png");
  auto* quiet = cmd->add_flag("-q,--quiet", args->quiet, "print nothing but errors (no summary line, no progress bar)");
  cmd->add_flag("-v,--verbose", args->verbose,
                "also print each image's tiles, queues and memory, the files written, and the files of input "
                "directories that are skipped")
      ->excludes(quiet);
  return [args] { return run_transform(*args); };
}

}  // namespace j2k::tools
