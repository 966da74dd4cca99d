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
#include "common/error.hpp"
#include "pipeline/front_stage.hpp"
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

int run_transform(const TransformArgs& a) {
  Settings s;
  s.wavelet = a.wavelet == "9/7" ? Wavelet::Irreversible97 : Wavelet::Reversible53;
  s.levels = a.levels;
  s.mct = a.mct == "on" ? Mct::On : a.mct == "off" ? Mct::Off : Mct::Auto;
  s.backend = BackendOptions{parse_backend(a.backend), a.threads, a.device};
  apply_env_options(s.backend);
  const auto [ix, iy] = parse_pair("--image-origin", a.image_origin, 0, kMaxOrigin);
  const auto [tx, ty] = parse_pair("--tile-origin", a.tile_origin, 0, kMaxOrigin);
  if (tx > ix || ty > iy)
    throw CLI::ValidationError("--tile-origin", "the tile origin (" + a.tile_origin +
                                                    ") must not exceed the image origin (" +
                                                    a.image_origin + ")");
  s.tile_x0 = tx;
  s.tile_y0 = ty;
  if (!a.tile_size.empty()) {
    const auto [tw, th] = parse_pair("--tile-size", a.tile_size, 1, kMaxTile);
    if (tx + tw <= ix || ty + th <= iy)
      throw CLI::ValidationError("--tile-size", "the first tile must overlap the image: tile origin + "
                                                "tile size must exceed the image origin");
    s.tile_w = tw;
    s.tile_h = th;
  }

  auto t0 = Clock::now();
  Image image = io::read_image(a.input);
  const double read_ms = ms_since(t0);
  image.x0 = ix;
  image.y0 = iy;
  if (ix + image.width > kMaxTile || iy + image.height > kMaxTile)
    throw Error(ErrorCode::InvalidArgument, "the image does not fit on the canvas at that origin");

  FrontStage stage(s);  // builds the backend: a missing device is reported before any output
  OutputDir out(a.outdir, a.input, a.force);
  Result res = stage.run(image);

  // Check every name before writing any, so a refused run leaves the directory as it was.
  std::set<std::string> names{"layout.json"};
  for (const TileComponent& tc : res.tile_components) names.insert(tile_component_file(tc));
  for (const std::string& n : names) out.check_writable(n);

  t0 = Clock::now();
  for (const TileComponent& tc : res.tile_components) {
    const int64_t rows = tc.rect.height(), cols = tc.rect.width();
    out.write(tile_component_file(tc), [&](const std::string& path) {
      if (s.wavelet == Wavelet::Reversible53) io::write_npy(path, tc.coeffs_i32.data(), rows, cols);
      else io::write_npy(path, tc.coeffs_f32.data(), rows, cols);
    });
  }
  out.write("layout.json", [&](const std::string& path) {
    std::ofstream f(path);
    f << layout_json(res, s, image, a.input).dump(1) << "\n";
    if (!f.flush()) throw Error(ErrorCode::Io, path + ": write failed");
  });
  out.remove_stale(names);
  const double write_ms = ms_since(t0);

  const Component& c0 = image.components[0];
  std::printf(
      "j2kfront: %s %lldx%lld x%zu %d-bit%s, %s, %d levels, %lld tile%s, MCT %s, %s: "
      "read %.1f ms, tiling %.1f ms, shift+MCT %.1f ms, DWT %.1f ms, write %.1f ms -> %s\n",
      a.input.c_str(), static_cast<long long>(image.width), static_cast<long long>(image.height),
      image.components.size(), c0.precision, c0.is_signed ? " signed" : "", a.wavelet.c_str(),
      s.levels, static_cast<long long>(res.tiles_x * res.tiles_y),
      res.tiles_x * res.tiles_y == 1 ? "" : "s", res.mct ? "on" : "off",
      res.backend_description.c_str(), read_ms, res.times.split_ms, res.times.shift_mct_ms,
      res.times.dwt_ms, write_ms, a.outdir.c_str());
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
