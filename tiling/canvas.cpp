// SPDX-License-Identifier: BSD-2-Clause
// Annex B geometry. Each function names the equation it implements.
#include "tiling/canvas.hpp"

#include <algorithm>
#include <string>

#include "common/error.hpp"

namespace j2k {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

void require(bool ok, const std::string& what) {
  if (!ok) throw Error(ErrorCode::InvalidArgument, "invalid canvas: " + what);
}

}  // namespace

Canvas::Canvas(const CanvasSpec& spec) : spec_(spec) {
  const CanvasSpec& s = spec_;
  require(s.image_x0 >= 0 && s.image_y0 >= 0, "image origin must be non-negative");
  require(s.image_x1 > s.image_x0 && s.image_y1 > s.image_y0, "image area is empty");
  require(s.image_x1 <= kMaxCoordinate && s.image_y1 <= kMaxCoordinate,
          "image extends past 2^32-1 on the canvas");
  require(s.tile_w > 0 && s.tile_h > 0 && s.tile_w <= kMaxCoordinate && s.tile_h <= kMaxCoordinate,
          "tile size must be 1..2^32-1");
  require(s.tile_x0 >= 0 && s.tile_y0 >= 0, "tile origin must be non-negative");
  // (A.5.1 / B-3): the tile origin may not exceed the image origin, and the first tile
  // must overlap the image.
  require(s.tile_x0 <= s.image_x0 && s.tile_y0 <= s.image_y0,
          "tile origin (" + std::to_string(s.tile_x0) + "," + std::to_string(s.tile_y0) +
              ") exceeds image origin (" + std::to_string(s.image_x0) + "," +
              std::to_string(s.image_y0) + ")");
  require(s.tile_x0 + s.tile_w > s.image_x0 && s.tile_y0 + s.tile_h > s.image_y0,
          "first tile does not overlap the image");
  require(!s.components.empty() && s.components.size() <= static_cast<size_t>(kMaxComponents),
          "component count must be 1..16384, got " + std::to_string(s.components.size()));
  for (const auto& c : s.components)
    require(c.dx >= 1 && c.dx <= kMaxSubsampling && c.dy >= 1 && c.dy <= kMaxSubsampling,
            "component subsampling must be 1..255");
  // (B-5), (B-6)
  tiles_x_ = ceil_div(s.image_x1 - s.tile_x0, s.tile_w);
  tiles_y_ = ceil_div(s.image_y1 - s.tile_y0, s.tile_h);
  // (A.4.2): Isot is 0..65534, so a codestream holds at most 65,535 tiles.
  require(tiles_x_ <= kMaxTiles && tiles_y_ <= kMaxTiles && tiles_x_ * tiles_y_ <= kMaxTiles,
          std::to_string(tiles_x_) + " x " + std::to_string(tiles_y_) +
              " tiles; JPEG 2000 allows at most 65535 (choose a larger tile size)");
}

TileRow Canvas::tile_row(int64_t q) const {
  if (q < 0 || q >= tiles_y_)
    throw Error(ErrorCode::InvalidArgument, "tile row " + std::to_string(q) + " out of range");
  const Rect first = tile(q * tiles_x_);
  return TileRow{first.y0, first.y1, spec_.tile_y0 + q * spec_.tile_h, q * tiles_x_};
}

Rect Canvas::tile(int64_t t) const {
  if (t < 0 || t >= tile_count())
    throw Error(ErrorCode::InvalidArgument, "tile index " + std::to_string(t) + " out of range");
  const CanvasSpec& s = spec_;
  const int64_t p = t % tiles_x_, q = t / tiles_x_;
  // (B-7)
  Rect r;
  r.x0 = std::max(s.tile_x0 + p * s.tile_w, s.image_x0);
  r.y0 = std::max(s.tile_y0 + q * s.tile_h, s.image_y0);
  r.x1 = std::min(s.tile_x0 + (p + 1) * s.tile_w, s.image_x1);
  r.y1 = std::min(s.tile_y0 + (q + 1) * s.tile_h, s.image_y1);
  return r;
}

Rect Canvas::tile_component(int64_t t, int c) const {
  if (c < 0 || c >= component_count())
    throw Error(ErrorCode::InvalidArgument, "component index " + std::to_string(c) + " out of range");
  const Rect tr = tile(t);
  const auto& sub = spec_.components[static_cast<size_t>(c)];
  // (B-12)
  return Rect{ceil_div(tr.x0, sub.dx), ceil_div(tr.y0, sub.dy), ceil_div(tr.x1, sub.dx),
              ceil_div(tr.y1, sub.dy)};
}

Rect resolution_rect(const Rect& tc, int levels, int r) {
  if (levels < 0 || levels > kMaxLevels || r < 0 || r > levels)
    throw Error(ErrorCode::InvalidArgument, "resolution " + std::to_string(r) +
                                                " out of range for " + std::to_string(levels) +
                                                " levels");
  const int k = levels - r;  // (B-14)
  return Rect{ceil_div_pow2(tc.x0, k), ceil_div_pow2(tc.y0, k), ceil_div_pow2(tc.x1, k),
              ceil_div_pow2(tc.y1, k)};
}

Rect band_rect(const Rect& tc, int nb, BandType type) {
  if (nb < 0 || nb > kMaxLevels || (nb == 0 && type != BandType::LL))
    throw Error(ErrorCode::InvalidArgument, "band level " + std::to_string(nb) + " out of range");
  const int64_t xo = (type == BandType::HL || type == BandType::HH) ? 1 : 0;
  const int64_t yo = (type == BandType::LH || type == BandType::HH) ? 1 : 0;
  const int64_t half = nb > 0 ? int64_t{1} << (nb - 1) : 0;
  // (B-15)
  return Rect{ceil_div_pow2(tc.x0 - half * xo, nb), ceil_div_pow2(tc.y0 - half * yo, nb),
              ceil_div_pow2(tc.x1 - half * xo, nb), ceil_div_pow2(tc.y1 - half * yo, nb)};
}

}  // namespace j2k
