// SPDX-License-Identifier: BSD-2-Clause
// The RCT (5/3) and ICT (9/7) of one pixel, in device code: the one definition of the forward
// that the shift + MCT pass (shift_mct.cu) and the DWT's fused first read (sample_source.cuh)
// use, and of the inverse for the decoder's to_samples.cu.
// Same arithmetic as the CPU reference (transform/cpu/component_transform.cpp), bit for bit:
// the ICT rounds every product and sums left to right (no contraction into an FMA).
#pragma once
#include <cstdint>

#include "transform/common/constants.hpp"
#include "transform/common/int_wrap.hpp"

namespace j2k::cudamct {

__device__ __forceinline__ void forward(int32_t r, int32_t g, int32_t b, int32_t& y, int32_t& u, int32_t& v) {
  y = wrap_add(wrap_add(r, wrap_add(g, g)), b) >> 2;  // sums wrap (int_wrap.hpp)
  u = wrap_sub(b, g);
  v = wrap_sub(r, g);
}

__device__ __forceinline__ void forward(float r, float g, float b, float& y, float& u, float& v) {
  using namespace constants;
  y = __fadd_rn(__fadd_rn(__fmul_rn(kIctYR, r), __fmul_rn(kIctYG, g)), __fmul_rn(kIctYB, b));
  u = __fadd_rn(__fsub_rn(__fmul_rn(kIctUR, r), __fmul_rn(kIctUG, g)), __fmul_rn(kIctUB, b));
  v = __fsub_rn(__fsub_rn(__fmul_rn(kIctVR, r), __fmul_rn(kIctVG, g)), __fmul_rn(kIctVB, b));
}

// The inverse RCT and ICT (the decoder's to_samples.cu), as transform/cpu/to_samples.cpp.
__device__ __forceinline__ void inverse(int32_t y, int32_t u, int32_t v, int32_t& r, int32_t& g, int32_t& b) {
  g = wrap_sub(y, wrap_add(u, v) >> 2);  // sums wrap (int_wrap.hpp)
  r = wrap_add(v, g);
  b = wrap_add(u, g);
}

__device__ __forceinline__ void inverse(float y, float u, float v, float& r, float& g, float& b) {
  using namespace constants;
  r = __fadd_rn(y, __fmul_rn(kIctRV, v));
  g = __fsub_rn(__fsub_rn(y, __fmul_rn(kIctGU, u)), __fmul_rn(kIctGV, v));
  b = __fadd_rn(y, __fmul_rn(kIctBU, u));
}

}  // namespace j2k::cudamct
