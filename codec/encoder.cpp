// SPDX-License-Identifier: BSD-2-Clause
#include "codec/encoder.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "codec/codestream/jp2_writer.hpp"
#include "common/error.hpp"
#include "tiling/canvas.hpp"
#include "common/parallel/worker_pool.hpp"

namespace j2k::codec {
namespace {

[[noreturn]] void bad(const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); }

bool is_signed(j2k_sample_type t) { return t == J2K_SAMPLE_I8 || t == J2K_SAMPLE_I16 || t == J2K_SAMPLE_I32; }

}  // namespace

void set_layer_bytes(CodingParams& params, const std::vector<double>& rates, double raw_bytes) {
  if (rates.empty()) return;
  params.layer_bytes.clear();
  for (double r : rates) params.layer_bytes.push_back(r <= 1 ? 0 : raw_bytes / r);
}

Encoder::Encoder(const EncoderSettings& settings, const j2k_image_view& shape) : settings_(settings) {
  check_view(shape, false);  // the plan's checks of the view, before the codec's
  const size_t ncomp = static_cast<size_t>(shape.num_components);
  const PlanSettings& ps = settings_.plan;
  if (ps.output_memory == J2K_MEMORY_DEVICE) bad("the encoder's Tier-1 reads coefficients on the host: output_memory must be HOST");
  if (ps.narrow_output) bad("the encoder's Tier-1 reads int32 coefficients: narrow_output must be 0");

  CodingParams& p = settings_.coding;
  p.reversible = ps.wavelet == Wavelet::Reversible53;
  p.mct = ps.mct == Mct::On || (ps.mct == Mct::Auto && ncomp >= 3);
  p.threads = ps.backend.threads;
  // The samples at their precision; a subsampled component has ceil(x1 / dx) - ceil(x0 / dx)
  // columns (B-12), and as many rows likewise.
  auto samples = [](int64_t x0, int64_t x1, int64_t d) { return (x1 + d - 1) / d - (x0 + d - 1) / d; };
  double raw_bytes = 0;
  for (size_t c = 0; c < ncomp; ++c) {
    const j2k_component_view& v = shape.components[c];
    raw_bytes += static_cast<double>(samples(shape.x0, int64_t{shape.x0} + shape.width, v.dx)) *
                 static_cast<double>(samples(shape.y0, int64_t{shape.y0} + shape.height, v.dy)) * v.precision / 8.0;
  }
  set_layer_bytes(p, settings_.layer_rates, raw_bytes);
  check_params(p, ncomp);

  // The canvas (it refuses more than 65535 tiles), and, as opj_compress, no more levels than
  // a nominal tile's sides allow in each component (a subsampled one has 1/dx of the
  // columns), so that the coarsest resolution of a whole tile is not empty (decoders differ
  // on such streams).
  const Canvas canvas(canvas_spec(ps, shape));
  for (size_t c = 0; c < ncomp; ++c) {
    const int levels = component_style(p, c).levels;
    const int64_t side = std::min(canvas.spec().tile_w / shape.components[c].dx, canvas.spec().tile_h / shape.components[c].dy);
    if ((int64_t{1} << levels) <= side) continue;
    int most = 0;
    while ((int64_t{2} << most) <= side) ++most;
    bad(std::to_string(levels) + " decomposition levels (" + std::to_string(levels + 1) + " resolutions) need tiles of at least " + std::to_string(int64_t{1} << levels) +
        " samples a side" + (ncomp > 1 ? " in component " + std::to_string(c) : std::string()) + "; " +
        (ps.tile_w > 0 ? "these tiles allow " : "this image allows ") + std::to_string(most) + " levels (" +
        std::to_string(most + 1) + " resolutions)");
  }

  plan_ = std::make_unique<Plan>(ps, shape);
  p.mct = plan_->mct();  // auto: off where components 0..2 differ in subsampling

  info_.x0 = shape.x0;
  info_.y0 = shape.y0;
  info_.x1 = static_cast<uint32_t>(canvas.spec().image_x1);
  info_.y1 = static_cast<uint32_t>(canvas.spec().image_y1);
  info_.tile_x0 = static_cast<uint32_t>(canvas.spec().tile_x0);
  info_.tile_y0 = static_cast<uint32_t>(canvas.spec().tile_y0);
  info_.tile_w = static_cast<uint32_t>(canvas.spec().tile_w);
  info_.tile_h = static_cast<uint32_t>(canvas.spec().tile_h);
  for (size_t c = 0; c < ncomp; ++c)
    info_.components.push_back({shape.components[c].precision, is_signed(shape.components[c].type),
                                shape.components[c].dx, shape.components[c].dy});
  // Tier-1 reads each tile-component where the plan keeps it.
  tiles_.resize(static_cast<size_t>(canvas.tile_count()));
  for (const PlanTileComponent& tc : plan_->tile_components()) {
    TileComponentInput in;
    in.rect = j2k_rect{tc.rect.x0, tc.rect.y0, tc.rect.x1, tc.rect.y1};
    in.levels = tc.levels;
    in.data = static_cast<const char*>(tc.home.base) + tc.home.offset;
    in.stride = tc.home.row_stride / 4;
    for (const BandInfo& b : tc.bands)
      in.bands.push_back({static_cast<j2k_band_type>(b.type), j2k_rect{b.rect.x0, b.rect.y0, b.rect.x1, b.rect.y1}, b.col, b.row});
    tiles_[static_cast<size_t>(tc.tile)].push_back(std::move(in));
  }
}

const std::vector<uint8_t>& Encoder::encode(const j2k_image_view& image) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  plan_->run(image);
  report_ = EncodeReport{};
  report_.front_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  // Tier-1 on the embedder's pool where the settings name one (as the plan's CPU work).
  const ScopedThreadPool pool(settings_.plan.backend.thread_pool);
  CodestreamStats stats;
  bytes_ = write_codestream(info_, settings_.coding, tiles_, &stats);
  if (settings_.jp2) {
    const auto t1 = Clock::now();
    Jp2Info j;
    j.width = info_.x1 - info_.x0;
    j.height = info_.y1 - info_.y0;
    for (const ComponentInfo& c : info_.components) j.components.push_back({c.precision, c.is_signed});
    j.colour = default_colour(info_.components.size());
    bytes_ = write_jp2(j, bytes_);
    stats.tier2_ms += std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
  }
  report_.tier1_ms = stats.tier1_ms;
  report_.rate_ms = stats.rate_ms;
  report_.tier2_ms = stats.tier2_ms;
  report_.layer_psnr = stats.layer_psnr;
  return bytes_;
}

}  // namespace j2k::codec
