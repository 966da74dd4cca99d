// SPDX-License-Identifier: BSD-2-Clause
// DC level shift and RCT/ICT on the CPU, straight from the caller's samples (any sample type,
// any strides) into int32 (5/3) or float32 (9/7) planes: tiling, shift and colour transform
// in one pass over each row, with the reference RCT/ICT of component_transform.hpp.
#pragma once
#include <vector>

#include "transform/queue.hpp"

namespace j2k::cpu {

// `out`: one host plane per component, I32 for the 5/3, F32 for the 9/7, the size of the
// input planes. Returns false when a sample lies outside its declared precision (the output
// is written all the same).
bool shift_mct(const TileSamples& tile, Wavelet wavelet, const std::vector<Plane>& out, int threads);

}  // namespace j2k::cpu
