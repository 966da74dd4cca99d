// SPDX-License-Identifier: BSD-2-Clause
// The JPEG 2000 canvas of ISO/IEC 15444-1 Annex B: image area, tile grid, component
// subsampling, tile-components, resolutions and subbands.
#pragma once
#include <cstdint>
#include <vector>

#include "tiling/geometry.hpp"
#include "tiling/limits.hpp"

namespace j2k {

struct CanvasSpec {
  // Image area [image_x0, image_x1) x [image_y0, image_y1) on the reference grid
  // (XOsiz, YOsiz, Xsiz, Ysiz).
  int64_t image_x0 = 0, image_y0 = 0, image_x1 = 0, image_y1 = 0;
  // Tile grid origin (XTOsiz, YTOsiz) and nominal tile size (XTsiz, YTsiz).
  int64_t tile_x0 = 0, tile_y0 = 0, tile_w = 0, tile_h = 0;
  // Per-component subsampling (XRsiz, YRsiz), each 1..255.
  struct Subsampling { int dx = 1, dy = 1; };
  std::vector<Subsampling> components;
};

// A row of the tile grid, q from the top (B-7 with q fixed): the image rows [y0, y1) its
// tiles cover, the grid line above it (`top`, tile_y0 + q * tile_h: at most y0), and the
// raster index of its first tile. What an image streamed a row of tiles at a time reads.
struct TileRow {
  int64_t y0 = 0, y1 = 0;
  int64_t top = 0;
  int64_t first_tile = 0;
};

// Validated canvas. Every accessor is a pure function of the spec (Annex B equations).
class Canvas {
 public:
  explicit Canvas(const CanvasSpec& spec);  // throws Error(InvalidArgument) naming the rule broken

  const CanvasSpec& spec() const { return spec_; }
  int64_t tiles_x() const { return tiles_x_; }
  int64_t tiles_y() const { return tiles_y_; }
  int64_t tile_count() const { return tiles_x_ * tiles_y_; }
  int component_count() const { return static_cast<int>(spec_.components.size()); }

  Rect tile(int64_t t) const;                         // (B-7), t in raster order
  TileRow tile_row(int64_t q) const;                  // q in 0..tiles_y()-1
  Rect tile_component(int64_t t, int c) const;        // (B-12)

 private:
  CanvasSpec spec_;
  int64_t tiles_x_ = 0, tiles_y_ = 0;
};

// Rectangle of resolution r (0 = lowest, levels = full) of a tile-component (B-14).
Rect resolution_rect(const Rect& tile_component, int levels, int r);

// Rectangle of the subband of orientation `type` at decomposition level nb (1..levels) (B-15).
// For LL, nb is the number of levels and the result equals resolution_rect(tc, nb, 0).
Rect band_rect(const Rect& tile_component, int nb, BandType type);

// The resolution a decomposition level is applied to: its size and the parity of its
// canvas origin (cas = 1 means the first sample sits at an odd coordinate, a high-pass one).
struct DwtLevel {
  int64_t width = 0, height = 0;
  int cas_x = 0, cas_y = 0;
};

// Levels nb = 1..levels of a tile-component, largest first. Resolutions that are empty or
// one sample wide are kept: they occur in real codestreams (clipped tiles, offset images).
std::vector<DwtLevel> dwt_levels(const Rect& tile_component, int levels);
// The same into out[0..levels), allocating nothing; returns `levels`.
int dwt_levels(const Rect& tile_component, int levels, DwtLevel* out);

// One subband's place: its rectangle on the band's own grid (B-15) and where it sits in the
// tile-component's coefficient array (column, row of its top-left sample).
struct BandInfo {
  BandType type = BandType::LL;
  int level = 0;  // decomposition level nb (1 = finest); for LL, the number of levels
  Rect rect;
  int64_t col = 0, row = 0;
};

// The bands of a tile-component with `levels` levels in OpenJPEG's pyramid layout: LL first,
// then HL, LH, HH from the coarsest level down.
std::vector<BandInfo> band_layout(const Rect& tile_component, int levels);

// ceil(a / 2^k) for any sign of a, k in 0..62 (arithmetic shift is floor division).
inline int64_t ceil_div_pow2(int64_t a, int k) {
  return -((-a) >> k);
}

}  // namespace j2k
