// SPDX-License-Identifier: BSD-2-Clause
// What the encoder's block coder reads: each tile-component's coefficients where the front
// stage's plan left them, and where each band lies in them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "j2kfront/j2kfront.h"

namespace j2k::codec {

// One tile-component's coefficients as the front stage left them (OpenJPEG's layout): int32
// (5/3) or float (9/7), `stride` elements apart, each band where j2k_plan_get_band says.
struct TileComponentInput {
  j2k_rect rect{};  // on the component's grid
  int levels = 0;
  const void* data = nullptr;
  ptrdiff_t stride = 0;
  struct Band {
    j2k_band_type type;
    j2k_rect rect;        // on the band's grid
    int64_t col, row;     // its top-left in the array
  };
  std::vector<Band> bands;  // LL, then HL, LH, HH from the coarsest level
};

}  // namespace j2k::codec
