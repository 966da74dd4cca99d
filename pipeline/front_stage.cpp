// The front stage: split the image into tile-components, shift, decorrelate, transform.
#include "pipeline/front_stage.hpp"

#include <chrono>
#include <string>

#include "transform/cpu/component_transform.hpp"
#include "transform/dwt.hpp"
#include "common/error.hpp"
#include "transform/cpu/threading.hpp"

namespace j2k {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

CanvasSpec canvas_for(const Image& im, const Settings& s) {
  CanvasSpec c;
  c.image_x0 = im.x0;
  c.image_y0 = im.y0;
  c.image_x1 = im.x0 + im.width;
  c.image_y1 = im.y0 + im.height;
  c.tile_x0 = s.tile_x0;
  c.tile_y0 = s.tile_y0;
  // No tile size: one tile from the tile origin to the end of the image.
  c.tile_w = s.tile_w > 0 ? s.tile_w : c.image_x1 - s.tile_x0;
  c.tile_h = s.tile_h > 0 ? s.tile_h : c.image_y1 - s.tile_y0;
  for (const Component& k : im.components) c.components.push_back({k.dx, k.dy});
  return c;
}

// Copies the samples of tile-component `rect` out of component k.
void split(const Image& im, const Component& k, const Rect& rect, std::vector<int32_t>& out) {
  const int64_t cx0 = ceil_div(im.x0, k.dx), cy0 = ceil_div(im.y0, k.dy);
  const int64_t w = rect.width(), h = rect.height();
  out.resize(static_cast<size_t>(w * h));
  for (int64_t y = 0; y < h; ++y) {
    const int32_t* src = k.samples.data() + (rect.y0 + y - cy0) * k.width + (rect.x0 - cx0);
    std::copy(src, src + w, out.begin() + y * w);
  }
}

}  // namespace

class FrontStage::Impl {
 public:
  explicit Impl(const Settings& s) : settings(s), dwt(s.backend) {}
  Settings settings;
  Dwt dwt;
};

FrontStage::FrontStage(const Settings& s) {
  if (s.levels < 0 || s.levels > kMaxLevels)
    throw Error(ErrorCode::InvalidArgument, "levels must be 0.." + std::to_string(kMaxLevels) +
                                                ", got " + std::to_string(s.levels));
  if (s.tile_w < 0 || s.tile_h < 0 || (s.tile_w == 0) != (s.tile_h == 0))
    throw Error(ErrorCode::InvalidArgument, "tile size must be two positive numbers, or none");
  if (s.tile_x0 < 0 || s.tile_y0 < 0)
    throw Error(ErrorCode::InvalidArgument, "tile origin must be non-negative");
  impl_ = std::make_unique<Impl>(s);
}
FrontStage::~FrontStage() = default;
FrontStage::FrontStage(FrontStage&&) noexcept = default;
FrontStage& FrontStage::operator=(FrontStage&&) noexcept = default;

Result FrontStage::run(const Image& im) {
  validate(im);
  const Settings& s = impl_->settings;
  const Canvas canvas(canvas_for(im, s));
  const int nc = canvas.component_count();
  const bool reversible = s.wavelet == Wavelet::Reversible53;

  bool mct = s.mct == Mct::On || (s.mct == Mct::Auto && nc >= 3);
  if (mct) {
    if (nc < 3)
      throw Error(ErrorCode::InvalidArgument, "MCT needs at least 3 components, the image has " +
                                                  std::to_string(nc));
    for (int c = 1; c < 3; ++c)
      if (im.components[c].dx != im.components[0].dx || im.components[c].dy != im.components[0].dy) {
        if (s.mct == Mct::On)
          throw Error(ErrorCode::InvalidArgument,
                      "MCT needs components 0..2 with the same subsampling");
        mct = false;
      }
  }

  Result res;
  res.canvas = canvas.spec();
  res.tiles_x = canvas.tiles_x();
  res.tiles_y = canvas.tiles_y();
  res.mct = mct;
  res.backend = impl_->dwt.backend();
  res.backend_description = impl_->dwt.description();

  // Every tile-component's record first, so that the stages below can fill them in parallel.
  for (int64_t t = 0; t < canvas.tile_count(); ++t)
    for (int c = 0; c < nc; ++c) {
      TileComponent tc;
      tc.tile = t;
      tc.component = c;
      tc.rect = canvas.tile_component(t, c);
      tc.levels = s.levels;
      tc.bands = band_layout(tc.rect, s.levels);
      res.tile_components.push_back(std::move(tc));
    }
  auto& tcs = res.tile_components;
  const auto count = static_cast<ptrdiff_t>(tcs.size());
  const int threads = s.backend.threads;

  // Tiling: each tile-component's samples out of its component.
  auto t0 = Clock::now();
  parallel_for(count, threads, [&](ptrdiff_t i) {
    TileComponent& tc = tcs[static_cast<size_t>(i)];
    split(im, im.components[static_cast<size_t>(tc.component)], tc.rect, tc.coeffs_i32);
  });
  res.times.split_ms = ms_since(t0);

  // DC level shift (to float32 for the 9/7), then the MCT on components 0..2 of each tile.
  t0 = Clock::now();
  parallel_for(canvas.tile_count(), threads, [&](ptrdiff_t t) {
    TileComponent* k = &tcs[static_cast<size_t>(t * nc)];
    for (int c = 0; c < nc; ++c) {
      const Component& comp = im.components[static_cast<size_t>(c)];
      const int32_t offset = dc_offset(comp.precision, comp.is_signed);
      std::vector<int32_t>& v = k[c].coeffs_i32;
      if (reversible) {
        dc_shift_forward(v.data(), v.size(), offset);
      } else {
        k[c].coeffs_f32.resize(v.size());
        dc_shift_forward(v.data(), k[c].coeffs_f32.data(), v.size(), offset);
        v = {};
      }
    }
    if (!mct) return;
    if (reversible)
      rct_forward(k[0].coeffs_i32.data(), k[1].coeffs_i32.data(), k[2].coeffs_i32.data(),
                  k[0].coeffs_i32.size());
    else
      ict_forward(k[0].coeffs_f32.data(), k[1].coeffs_f32.data(), k[2].coeffs_f32.data(),
                  k[0].coeffs_f32.size());
  });
  res.times.shift_mct_ms = ms_since(t0);

  // DWT. On the CPU, many tile-components run side by side (each on one thread, as OpenMP
  // does not nest); a few large ones run one after another, each using every thread. GPU
  // backends take them one at a time.
  t0 = Clock::now();
  auto transform = [&](ptrdiff_t i) {
    TileComponent& tc = tcs[static_cast<size_t>(i)];
    const auto stride = static_cast<size_t>(tc.rect.width());
    if (reversible)
      impl_->dwt.forward53(tc.coeffs_i32.data(), stride, tc.rect, tc.levels);
    else
      impl_->dwt.forward97(tc.coeffs_f32.data(), stride, tc.rect, tc.levels);
  };
  if (res.backend == Backend::Cpu && count >= 4 * worker_count(threads))
    parallel_for(count, threads, transform);
  else
    for (ptrdiff_t i = 0; i < count; ++i) transform(i);
  res.times.dwt_ms = ms_since(t0);
  return res;
}

}  // namespace j2k
