// SPDX-License-Identifier: BSD-2-Clause
// quantise_block's arithmetic (quant/quantiser.cpp) for one coefficient, host and device from
// one source: what the GPU Tier-1 batch quantises the 9/7's floats with (cuda/ht_image_encoder.cu)
// and its host emulation (host_ht_image_encoder.cpp) too. IEEE double, round-to-nearest
// multiplication (no contraction on the device: __dmul_rn), so the same int32 everywhere.
#pragma once
#include <cmath>
#include <cstdint>

#include "codec/tier1/ht/host_device.hpp"

namespace j2k::codec {

// `scale`: 2^fraction_bits / delta, as quantise_block computes it. False where the magnitude
// reaches 2^31 steps or is not a number (quantise_block refuses the block then).
J2K_HD inline bool quantise_value(float in, double scale, int32_t& out) {
  const double v = static_cast<double>(in);
#ifdef __CUDA_ARCH__
  const double m = floor(__dmul_rn(fabs(v), scale));
#else
  const double m = std::floor(std::fabs(v) * scale);
#endif
  if (!(m < 2147483648.0)) return false;
  const int32_t q = static_cast<int32_t>(m);
  out = v < 0 ? -q : q;
  return true;
}

}  // namespace j2k::codec
