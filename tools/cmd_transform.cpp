// `j2kfront transform INPUT OUTDIR`: the front stage on one image file; writes layout.json and
// one NPY array of coefficients per tile-component.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <sstream>

#include "io/image_io.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tools/commands.hpp"
#include "tools/env_options.hpp"
#include "tools/layout_json.hpp"
#include "tools/output_dir.hpp"

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
  std::string input, outdir, wavelet = "5/3", mct = "auto", backend = "auto";
  std::string tile_size, tile_origin = "0,0", image_origin = "0,0";
  int levels = 5, threads = 0, device = -1;
  bool force = false;
};

j2k_backend backend_from_name(const std::string& name) {
  if (name == "cpu") return J2K_BACKEND_CPU;
  if (name == "cuda") return J2K_BACKEND_CUDA;
  if (name == "opencl") return J2K_BACKEND_OPENCL;
  return J2K_BACKEND_AUTO;
}

int run_transform(const TransformArgs& a) {
  j2kfront::Settings s;
  s.wavelet = a.wavelet == "9/7" ? J2K_WAVELET_97 : J2K_WAVELET_53;
  s.levels = a.levels;
  s.mct = a.mct == "on" ? J2K_MCT_ON : a.mct == "off" ? J2K_MCT_OFF : J2K_MCT_AUTO;
  s.backend = backend_from_name(a.backend);
  s.threads = a.threads;
  s.device = a.device;
  std::string tuning;
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

  auto t0 = Clock::now();
  j2kfront::Image image = io::read_image(a.input);
  const double read_ms = ms_since(t0);
  if (ix + image.width > kMaxTile || iy + image.height > kMaxTile)
    throw j2kfront::Error(J2K_INVALID_ARGUMENT, "the image does not fit on the canvas at that origin");
  image.x0 = static_cast<uint32_t>(ix);
  image.y0 = static_cast<uint32_t>(iy);
  const j2kfront::ImageView view = image.view();

  j2kfront::Plan plan(s, view);  // builds the backend: a missing device is reported before any output
  OutputDir out(a.outdir, a.input, a.force);
  plan.run(view);
  const j2k_plan_info info = plan.info();
  const j2k_stage_times times = plan.times();

  // Check every name before writing any, so a refused run leaves the directory as it was.
  std::set<std::string> names{"layout.json"};
  for (size_t i = 0; i < info.tile_components; ++i) names.insert(tile_component_file(plan.tile_component(i)));
  for (const std::string& n : names) out.check_writable(n);

  t0 = Clock::now();
  for (size_t i = 0; i < info.tile_components; ++i) {
    const j2k_tile_component tc = plan.tile_component(i);
    const j2k_coefficients& c = tc.coefficients;  // the plan's own: packed rows in host memory
    out.write(tile_component_file(tc), [&](const std::string& path) {
      if (c.type == J2K_SAMPLE_I32) io::write_npy(path, static_cast<const int32_t*>(c.data), c.height, c.width);
      else io::write_npy(path, static_cast<const float*>(c.data), c.height, c.width);
    });
  }
  out.write("layout.json", [&](const std::string& path) {
    std::ofstream f(path);
    f << layout_json(plan, s, image, a.input).dump(1) << "\n";
    if (!f.flush()) throw j2kfront::Error(J2K_IO_ERROR, path + ": write failed");
  });
  out.remove_stale(names);
  const double write_ms = ms_since(t0);

  const j2kfront::Image::Component& c0 = image.components[0];
  const bool is_signed = c0.type == J2K_SAMPLE_I8 || c0.type == J2K_SAMPLE_I16 || c0.type == J2K_SAMPLE_I32;
  const int64_t tiles = info.tiles_x * info.tiles_y;
  std::printf(
      "j2kfront: %s %ux%u x%zu %d-bit%s, %s, %d levels, %lld tile%s, MCT %s, %s: "
      "read %.1f ms, tiling %.1f ms, shift+MCT %.1f ms, DWT %.1f ms, write %.1f ms -> %s\n",
      a.input.c_str(), image.width, image.height, image.components.size(), c0.precision,
      is_signed ? " signed" : "", a.wavelet.c_str(), s.levels, static_cast<long long>(tiles),
      tiles == 1 ? "" : "s", info.mct ? "on" : "off", info.description, read_ms, times.split_ms,
      times.shift_mct_ms, times.dwt_ms, write_ms, a.outdir.c_str());
  return 0;
}

}  // namespace

std::function<int()> add_transform_command(CLI::App& app) {
  auto args = std::make_shared<TransformArgs>();
  CLI::App* cmd = app.add_subcommand("transform", "Run the front stage on an image file; write "
                                                  "OUTDIR/layout.json and tile<T>_comp<C>.npy");
  cmd->add_option("INPUT", args->input, "TIFF, PGM/PPM or PGX image")->required()->check(CLI::ExistingFile);
  cmd->add_option("OUTDIR", args->outdir, "output directory (created if missing)")->required();
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
  cmd->add_option("--threads", args->threads, "CPU threads (default: all cores)")->check(CLI::Range(1, 4096));
  cmd->add_option("--device", args->device, "GPU/OpenCL device index (default: J2KFRONT_DEVICE or the first)")
      ->check(CLI::Range(0, 4096));
  cmd->add_flag("--force", args->force, "replace existing files that j2kfront did not write");
  return [args] { return run_transform(*args); };
}

}  // namespace j2k::tools
