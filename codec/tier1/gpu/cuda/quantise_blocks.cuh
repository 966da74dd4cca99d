// SPDX-License-Identifier: BSD-2-Clause
// The 9/7's code-blocks quantised on the device before a Tier-1 batch codes them (the HT and
// EBCOT image encoders: ht_image_encoder.cu, ebcot_image_encoder.cu): one CUDA block of
// kQuantiseThreads threads a code-block, its floats where the plan left them into int32 in a
// scratch, packed (rows `width` apart), as quantise_block does on the host
// (quant/quantiser.cpp), bit for bit (batch_quantise.hpp).
#pragma once
#include <cstdint>

#include "codec/tier1/gpu/batch_quantise.hpp"

namespace j2k::codec::cuda {

// A 9/7 block to quantise: its floats where the plan left them, its int32 in the scratch.
struct QuantiseJob {
  const float* src;
  int64_t stride;
  int32_t* dst;
  double scale;  // 2^fraction_bits / delta, computed on the host as quantise_block computes it
  int32_t width, height;
};

inline constexpr int kQuantiseThreads = 128;

// quantise_block's arithmetic (batch_quantise.hpp), so the same int32 for every float;
// `too_large` set where a magnitude reaches 2^31 steps (or is not a number), as
// quantise_block refuses it. Static: a copy in each file that launches it.
static __global__ void __launch_bounds__(kQuantiseThreads) quantise_kernel(const QuantiseJob* jobs, unsigned* too_large) {
  const QuantiseJob j = jobs[blockIdx.x];
  const int n = j.width * j.height;
  for (int k = static_cast<int>(threadIdx.x); k < n; k += kQuantiseThreads) {
    const int y = k / j.width, x = k - y * j.width;
    int32_t q = 0;
    if (!quantise_value(j.src[y * j.stride + x], j.scale, q)) atomicOr(too_large, 1u);
    j.dst[k] = q;
  }
}

}  // namespace j2k::codec::cuda
