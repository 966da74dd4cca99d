// SPDX-License-Identifier: BSD-2-Clause
// What the encoder's block coder reads: each tile-component's coefficients where the front
// stage's plan left them (host or device memory, a Plane of the plan's backend, not copied),
// and where each band lies in them. The decoder uses the same geometry, without coefficients.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "j2kfront/j2kfront.h"
#include "transform/queue.hpp"  // Plane

namespace j2k::codec {

// One tile-component's coefficients as the front stage left them (OpenJPEG's layout): int32
// (5/3) or float (9/7), each band where j2k_plan_get_band says.
struct TileComponentInput {
  j2k_rect rect{};  // on the component's grid
  int levels = 0;
  // Where they are: base + offset, rows row_stride bytes apart, in `memory` (host memory, or
  // the device memory of the plan's GPU backend: a CUDA pointer or an OpenCL cl_mem).
  // BlockCoder::reads() says which memory a coder takes.
  Plane coefficients;
  struct Band {
    j2k_band_type type;
    j2k_rect rect;        // on the band's grid
    int64_t col, row;     // its top-left in the array
  };
  std::vector<Band> bands;  // LL, then HL, LH, HH from the coarsest level
};

}  // namespace j2k::codec
