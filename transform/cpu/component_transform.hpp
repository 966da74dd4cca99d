// SPDX-License-Identifier: BSD-2-Clause
// DC level shift and the multiple-component transforms (ISO/IEC 15444-1 Annex G), with
// OpenJPEG's types: the 5/3 path stays int32, the 9/7 path converts to float32 at the shift.
#pragma once
#include <cstddef>
#include <cstdint>

#include "transform/common/constants.hpp"

namespace j2k {

// Subtracted from unsigned samples of `precision` bits (1 << (precision-1)); 0 when signed.
inline int32_t dc_offset(int precision, bool is_signed) {
  return is_signed ? 0 : int32_t{1} << (precision - 1);
}

void dc_shift_forward(int32_t* samples, size_t n, int32_t offset);             // v - offset
void dc_shift_forward(const int32_t* samples, float* out, size_t n, int32_t offset);  // (float)(v - offset)

// Reversible component transform (G.2) on three planes in place: Y = (R+2G+B)>>2, U = B-G, V = R-G.
void rct_forward(int32_t* c0, int32_t* c1, int32_t* c2, size_t n);
void rct_inverse(int32_t* c0, int32_t* c1, int32_t* c2, size_t n);

// Irreversible component transform (G.3), float32 with each product rounded, sums left to right.
void ict_forward(float* c0, float* c1, float* c2, size_t n);
// One sample of it: what ict_forward and shift_mct's pass that converts and decorrelates at
// once both compute (built with -ffp-contract=off, so no product is fused into a sum).
struct Ict {
  float y, u, v;
};
inline Ict ict_forward_sample(float r, float g, float b) {
  using namespace constants;
  return {(kIctYR * r + kIctYG * g) + kIctYB * b, (kIctUR * r - kIctUG * g) + kIctUB * b, (kIctVR * r - kIctVG * g) - kIctVB * b};
}
void ict_inverse(float* c0, float* c1, float* c2, size_t n);

}  // namespace j2k
