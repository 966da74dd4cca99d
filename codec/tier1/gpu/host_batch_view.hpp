// SPDX-License-Identifier: BSD-2-Clause
// A BatchBlock in host memory as the CPU's coders read it, for the host emulations of the GPU
// batches (host_ht_image_encoder.cpp, host_ebcot_image_encoder.cpp): the 5/3's int32 in place,
// the 9/7's floats quantised as the device batches quantise them (batch_quantise.hpp).
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "codec/tier1/block_encode_batch.hpp"
#include "codec/tier1/gpu/batch_quantise.hpp"
#include "common/error.hpp"

namespace j2k::codec {

// The block's view, its 9/7 indices in `quantised` (valid until its next use). Throws the CPU
// path's Error(InvalidArgument) for a coefficient too large for its step.
inline BlockView host_batch_view(const BatchBlock& b, bool reversible, std::vector<int32_t>& quantised) {
  BlockView v;
  v.data = static_cast<const int32_t*>(b.coefficients);
  v.stride = b.stride;
  v.width = b.width;
  v.height = b.height;
  v.band = b.band;
  v.modes = b.modes;
  v.reversible = reversible;
  v.estimate_distortion = b.estimate_distortion;
  if (reversible) return v;
  const double scale = std::ldexp(1.0, b.fraction_bits) / b.delta;  // as the CUDA batch's host code
  quantised.assign(static_cast<size_t>(b.width) * static_cast<size_t>(b.height), 0);
  const auto* src = static_cast<const float*>(b.coefficients);
  for (int y = 0; y < b.height; ++y)
    for (int x = 0; x < b.width; ++x)
      if (!quantise_value(src[y * b.stride + x], scale, quantised[static_cast<size_t>(y) * static_cast<size_t>(b.width) + static_cast<size_t>(x)]))
        throw Error(ErrorCode::InvalidArgument, "a 9/7 coefficient is too large for its quantisation step; use a larger step");
  v.data = quantised.data();
  v.stride = b.width;
  v.fraction_bits = b.fraction_bits;
  return v;
}

}  // namespace j2k::codec
