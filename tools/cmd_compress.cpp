// `j2kfront compress -i IN -o OUT.j2k`: a JPEG 2000 codestream from an image file, through
// the front stage (any backend) and the codec (codec/). This first version writes lossless
// codestreams of the reversible 5/3 with the defaults opj_compress uses (one layer, LRCP,
// 64 x 64 code-blocks, the largest precincts).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "codec/codestream/codestream_writer.hpp"
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
  int resolutions = 6, device = -1, threads = 0;
  bool force = false, quiet = false;
};

std::string lower_extension(const std::string& path) {
  std::string e = fs::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

int run_compress(const CompressArgs& a) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const std::string ext = lower_extension(a.output);
  if (ext == ".jp2")
    throw CLI::ValidationError("-o", "JP2 files are not written yet; name the output .j2k or .j2c for a codestream");
  if (ext != ".j2k" && ext != ".j2c")
    throw CLI::ValidationError("-o", "the output must end in .j2k or .j2c (a codestream), not '" + ext + "'");
  j2kfront::Settings s;
  s.wavelet = J2K_WAVELET_53;
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
  // The output is checked before any work: never the input, an existing file only with --force.
  const OutputFile output(a.output, a.input, a.force);
  output.check();

  j2kfront::Image image = io::read_image(a.input);
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
  si.levels = s.levels;
  si.mct = info.mct != 0;
  si.threads = a.threads;
  for (const auto& c : image.components)
    si.components.push_back({c.precision, c.type == J2K_SAMPLE_I8 || c.type == J2K_SAMPLE_I16, c.dx, c.dy});
  const size_t ncomp = image.components.size();
  std::vector<std::vector<codec::TileComponentInput>> tiles(static_cast<size_t>(info.tiles_x * info.tiles_y));
  for (size_t i = 0; i < info.tile_components; ++i) {
    const j2k_tile_component tc = plan.tile_component(i);
    codec::TileComponentInput in;
    in.rect = tc.rect;
    in.levels = tc.levels;
    in.data = static_cast<const int32_t*>(tc.coefficients.data);
    in.stride = tc.coefficients.row_stride / 4;
    for (int b = 0; b < tc.bands; ++b) {
      const j2k_band band = plan.band(i, b);
      in.bands.push_back({band.type, band.rect, band.col, band.row});
    }
    tiles[i / ncomp].push_back(std::move(in));
  }
  const std::vector<uint8_t> stream = codec::write_codestream(si, tiles);

  output.write([&](std::FILE* f, const std::string& name) {
    if (std::fwrite(stream.data(), 1, stream.size(), f) != stream.size() || std::fflush(f) != 0)
      throw Error(ErrorCode::Io, name + ": cannot write the codestream");
  });
  if (!a.quiet) {
    uint64_t raw = 0;
    for (const auto& c : image.components) raw += static_cast<uint64_t>(c.width * c.height) * static_cast<uint64_t>((c.precision + 7) / 8);
    std::printf("j2kfront: %s %ux%u x%zu -> %s: %zu bytes (%.2f:1, lossless 5/3, %d resolutions, %s) in %.1f ms\n",
                a.input.c_str(), image.width, image.height, ncomp, a.output.c_str(), stream.size(),
                static_cast<double>(raw) / static_cast<double>(stream.size()), a.resolutions, info.description,
                std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return 0;
}

}  // namespace

std::function<int()> add_compress_command(CLI::App& app) {
  auto args = std::make_shared<CompressArgs>();
  CLI::App* cmd = app.add_subcommand("compress", "Write a JPEG 2000 codestream (.j2k): lossless, reversible 5/3, the opj_compress defaults");
  cmd->add_option("-i,--input", args->input, "the image: TIFF, PNG, PGM/PPM or PGX")->required();
  cmd->add_option("-o,--output", args->output, "the codestream, OUT.j2k or OUT.j2c")->required();
  cmd->add_option("-n", args->resolutions, "resolutions: decomposition levels + 1")
      ->check(CLI::Range(1, 33))->capture_default_str();
  cmd->add_option("-t", args->tile_size, "tile size W,H (default: one tile)");
  cmd->add_option("-T", args->tile_origin, "tile grid origin X,Y on the canvas")->capture_default_str();
  cmd->add_option("-d", args->image_origin, "image origin X,Y on the canvas")->capture_default_str();
  cmd->add_option("--backend", args->backend, "the front stage's backend: auto, cpu, cuda or opencl")
      ->check(CLI::IsMember({"auto", "cpu", "cuda", "opencl"}))->capture_default_str();
  cmd->add_option("--threads", args->threads, "CPU threads (default: all cores)")->check(CLI::Range(1, 4096));
  cmd->add_option("--device", args->device, "GPU/OpenCL device index (default: J2KFRONT_DEVICE or the first)")->check(CLI::Range(0, 4096));
  cmd->add_flag("--force", args->force, "replace an existing output file");
  cmd->add_flag("-q,--quiet", args->quiet, "print nothing but errors");
  return [args] { return run_compress(*args); };
}

}  // namespace j2k::tools
