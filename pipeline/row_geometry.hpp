// SPDX-License-Identifier: BSD-2-Clause
// What the row stages (row_front_stage: the encoder's, row_back_stage: the decoder's) share:
// a tile-component's finest-level geometry and the margins of their windows.
#pragma once
#include <cstdint>

#include "tiling/canvas.hpp"

namespace j2k::row_geometry {

// Rows of a window's vertical lifting left out at an edge inside the tile-component: the
// symmetric extension there reaches one more row of each kind per lifting step, two steps for
// the 5/3 and four for the 9/7, so 2 and 4 rows (row_back_stage_test and row_front_stage_test
// fail with 1 and 3: an inner edge always falls between an H row and an L row, whatever the
// image, so a margin that passes there passes everywhere). Even, so that an inner window
// starts on an L row; at most 2 x 4, the smallest stripe's, so that a window reads stripes
// k - 1 .. k + 1 only.
constexpr int64_t kMargin53 = 2;
constexpr int64_t kMargin97 = 4;

inline int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
inline int64_t low_count(int64_t n, int cas) { return (n + (cas == 0 ? 1 : 0)) >> 1; }

// What one component's buffers hold, from its rect, levels and wavelet.
struct Geometry {
  int64_t w = 0, h = 0;
  int cas_x = 0, cas_y = 0;
  int64_t sn_x = 0, dn_x = 0;  // the finest level's low and high columns
  int64_t l_y0 = 0;            // the first L row on the band grid (the coarse plane's row 0)
  Rect coarse;                 // the next resolution's rect
  int64_t margin = 0;

  Geometry(const Rect& rect, int levels, bool reversible) {
    w = rect.width();
    h = rect.height();
    cas_x = static_cast<int>(rect.x0 & 1);
    cas_y = static_cast<int>(rect.y0 & 1);
    sn_x = low_count(w, cas_x);
    dn_x = w - sn_x;
    l_y0 = (rect.y0 + 1) >> 1;
    coarse = resolution_rect(rect, levels, levels - 1);
    margin = reversible ? kMargin53 : kMargin97;
  }
  int64_t band_width(int band) const { return band == 1 ? sn_x : dn_x; }  // HL, LH, HH
};

}  // namespace j2k::row_geometry
