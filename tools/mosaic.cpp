// SPDX-License-Identifier: BSD-2-Clause
#include "tools/mosaic.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/error.hpp"
#include "io/image_io.hpp"
#include "tools/output_dir.hpp"

namespace j2k::tools {
namespace {

constexpr int kTileGap = 2;        // background between tiles
constexpr int kComponentGap = 8;   // background between components
constexpr unsigned char kBackground[3] = {40, 40, 40};
constexpr unsigned char kFrame[3] = {255, 170, 0};  // the lines between bands

// How a tile-component is drawn: the pyramid built level by level from the LL out, each
// level's high bands right of, below and diagonal to what the coarser levels drew, with a
// one-pixel line between them. Drawn this way (not as lines through the whole array) no line
// crosses a finer level's band.
struct Layout {
  int64_t width = 0, height = 0;        // drawn size, lines included
  std::vector<int64_t> x, y;            // per band: where its top-left sample is drawn
  struct Line { int64_t x, y, w, h; };  // the frames
  std::vector<Line> lines;
};
Layout layout_of(const j2kfront::Plan& plan, size_t index) {
  const j2k_tile_component tc = plan.tile_component(index);
  std::vector<j2k_band> bands;
  for (int b = 0; b < tc.bands; ++b) bands.push_back(plan.band(index, b));
  Layout l;
  l.x.assign(bands.size(), 0);
  l.y.assign(bands.size(), 0);
  l.width = bands[0].coefficients.width;
  l.height = bands[0].coefficients.height;
  for (size_t b = 1; b + 2 < bands.size(); b += 3) {  // HL, LH, HH of one level, coarsest first
    const j2k_coefficients& hl = bands[b].coefficients;
    const j2k_coefficients& lh = bands[b + 1].coefficients;
    const j2k_coefficients& hh = bands[b + 2].coefficients;
    const int64_t gx = l.width > 0 && hl.width > 0 ? 1 : 0, gy = l.height > 0 && lh.height > 0 ? 1 : 0;
    const int64_t right = std::max(l.width, lh.width) + gx, below = std::max(l.height, hl.height) + gy;
    l.x[b] = right;
    l.y[b + 1] = below;
    l.x[b + 2] = right;
    l.y[b + 2] = below;
    const int64_t width = right + std::max(hl.width, hh.width), height = below + std::max(lh.height, hh.height);
    if (gx) l.lines.push_back({right - 1, 0, 1, height});
    if (gy) l.lines.push_back({0, below - 1, width, 1});
    l.width = width;
    l.height = height;
  }
  return l;
}

// Where each tile-component goes: components side by side, each one's tiles in their grid
// (column widths and row heights from the widest and highest tile-component in them).
struct Placement {
  std::vector<int64_t> left, top;  // per tile-component
  int64_t width = 0, height = 0;
};
Placement place(const j2kfront::Plan& plan, const std::vector<Layout>& layouts) {
  const j2k_plan_info info = plan.info();
  const size_t tiles = static_cast<size_t>(info.tiles_x * info.tiles_y);
  const size_t components = tiles ? info.tile_components / tiles : 0;
  Placement p;
  p.left.resize(layouts.size());
  p.top.resize(layouts.size());
  int64_t x = 0;
  for (size_t c = 0; c < components; ++c) {
    std::vector<int64_t> col_w(static_cast<size_t>(info.tiles_x)), row_h(static_cast<size_t>(info.tiles_y));
    for (size_t t = 0; t < tiles; ++t) {
      const Layout& l = layouts[t * components + c];
      auto& cw = col_w[t % col_w.size()];
      auto& rh = row_h[t / col_w.size()];
      cw = std::max(cw, l.width);
      rh = std::max(rh, l.height);
    }
    int64_t panel_h = 0;
    for (size_t t = 0; t < tiles; ++t) {
      const size_t tx = t % col_w.size(), ty = t / col_w.size();
      int64_t left = x, top = 0;
      for (size_t k = 0; k < tx; ++k) left += col_w[k] + kTileGap;
      for (size_t k = 0; k < ty; ++k) top += row_h[k] + kTileGap;
      p.left[t * components + c] = left;
      p.top[t * components + c] = top;
      panel_h = std::max(panel_h, top + row_h[ty]);
    }
    int64_t panel_w = 0;
    for (int64_t w : col_w) panel_w += w + kTileGap;
    panel_w -= kTileGap;
    x += panel_w + kComponentGap;
    p.height = std::max(p.height, panel_h);
  }
  p.width = std::max<int64_t>(0, x - kComponentGap);
  return p;
}

double value_at(const j2k_coefficients& c, int64_t x, int64_t y) {
  const char* row = static_cast<const char*>(c.data) + y * c.row_stride;
  switch (c.type) {
    case J2K_SAMPLE_I16: { int16_t v; std::memcpy(&v, row + 2 * x, 2); return v; }
    case J2K_SAMPLE_I32: { int32_t v; std::memcpy(&v, row + 4 * x, 4); return v; }
    case J2K_SAMPLE_F32: { float v; std::memcpy(&v, row + 4 * x, 4); return v; }
    default: throw Error(ErrorCode::Internal, "mosaic: unexpected coefficient type");
  }
}

// A band's grey levels: LL from its minimum to its maximum; a detail band's magnitudes up to
// its 99th percentile (a few strong edges would otherwise leave the rest black).
struct Scale {
  double offset = 0, factor = 0;  // grey = clamp((value or |value| - offset) * factor)
  bool magnitude = false;
};
Scale scale_of(const j2k_band& band, const j2k_coefficients& tc) {
  Scale s;
  s.magnitude = band.type != J2K_BAND_LL;
  const int64_t w = band.coefficients.width, h = band.coefficients.height;
  if (w == 0 || h == 0) return s;
  if (!s.magnitude) {
    double lo = value_at(tc, band.col, band.row), hi = lo;
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const double v = value_at(tc, band.col + x, band.row + y);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    s.offset = hi > lo ? lo : lo - 128;  // a flat LL: mid-grey
    s.factor = hi > lo ? 255.0 / (hi - lo) : 1;
    return s;
  }
  // The percentile of at most about 2^20 magnitudes, evenly picked: enough for a picture, and
  // bounded memory for a large band.
  const int64_t count = w * h, step = std::max<int64_t>(1, count >> 20);
  std::vector<float> v;
  v.reserve(static_cast<size_t>(count / step + 1));
  for (int64_t k = 0; k < count; k += step)
    v.push_back(static_cast<float>(std::fabs(value_at(tc, band.col + k % w, band.row + k / w))));
  auto at = v.begin() + static_cast<ptrdiff_t>((v.size() - 1) * 99 / 100);
  std::nth_element(v.begin(), at, v.end());
  s.factor = *at > 0 ? 255.0 / *at : 0;
  return s;
}

}  // namespace

uint64_t mosaic_bytes(const j2kfront::Plan& plan) {
  std::vector<Layout> layouts;
  for (size_t i = 0; i < plan.tile_components(); ++i) layouts.push_back(layout_of(plan, i));
  const Placement p = place(plan, layouts);
  return static_cast<uint64_t>(p.width) * static_cast<uint64_t>(p.height) * 3;
}

Mosaic draw_mosaic(const j2kfront::Plan& plan, const std::vector<j2k_coefficients>& coefficients) {
  std::vector<Layout> layouts;
  for (size_t i = 0; i < plan.tile_components(); ++i) layouts.push_back(layout_of(plan, i));
  const Placement p = place(plan, layouts);
  if (p.width <= 0 || p.height <= 0 || p.width > 0x7fffffff || p.height > 0x7fffffff)
    throw Error(ErrorCode::InvalidArgument, "the mosaic would be " + std::to_string(p.width) + " x " +
                                                std::to_string(p.height) + " pixels; a PNG holds 1 to 2^31-1 each way");
  Mosaic m;
  m.width = static_cast<uint32_t>(p.width);
  m.height = static_cast<uint32_t>(p.height);
  m.rgb.resize(static_cast<size_t>(p.width) * static_cast<size_t>(p.height) * 3);
  for (size_t k = 0; k < m.rgb.size(); k += 3) std::memcpy(&m.rgb[k], kBackground, 3);
  auto pixel = [&](int64_t x, int64_t y) { return &m.rgb[(static_cast<size_t>(y) * m.width + static_cast<size_t>(x)) * 3]; };

  for (size_t i = 0; i < layouts.size(); ++i) {
    const Layout& l = layouts[i];
    const j2k_tile_component tc = plan.tile_component(i);
    for (const Layout::Line& line : l.lines)
      for (int64_t y = 0; y < line.h; ++y)
        for (int64_t x = 0; x < line.w; ++x)
          std::memcpy(pixel(p.left[i] + line.x + x, p.top[i] + line.y + y), kFrame, 3);
    for (int b = 0; b < tc.bands; ++b) {
      const j2k_band band = plan.band(i, b);
      const Scale s = scale_of(band, coefficients[i]);
      for (int64_t y = 0; y < band.coefficients.height; ++y) {
        unsigned char* d = pixel(p.left[i] + l.x[static_cast<size_t>(b)], p.top[i] + l.y[static_cast<size_t>(b)] + y);
        for (int64_t x = 0; x < band.coefficients.width; ++x, d += 3) {
          double v = value_at(coefficients[i], band.col + x, band.row + y);
          if (s.magnitude) v = std::fabs(v);
          d[0] = d[1] = d[2] = static_cast<unsigned char>(std::lround(std::clamp((v - s.offset) * s.factor, 0.0, 255.0)));
        }
      }
    }
  }
  return m;
}

void write_mosaic(const std::string& path, const std::string& input, bool force, const Mosaic& mosaic) {
  io::PngPixels pixels;
  pixels.pixels = mosaic.rgb.data();
  pixels.width = mosaic.width;
  pixels.height = mosaic.height;
  pixels.channels = 3;
  pixels.bit_depth = 8;
  pixels.row_stride = static_cast<ptrdiff_t>(mosaic.width) * 3;
  OutputFile(path, input, force, io::written_by_j2kfront).write([&](std::FILE* f, const std::string& name) {
    io::write_png(f, name, pixels);
  });
}

}  // namespace j2k::tools
