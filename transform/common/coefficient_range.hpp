// SPDX-License-Identifier: BSD-2-Clause
// How large the reversible 5/3 coefficients can get: the bound behind int16 output.
//
// OpenJPEG's integer lifting is the linear 5/3 analysis (low-pass (-1 2 6 2 -1)/8, high-pass
// (-1 2 -1)/2) plus rounding. A band of a J-level decomposition is a separable cascade of these
// filters, so |coefficient| <= (L1 norm of its 1-D cascade, horizontally) x (vertically) x
// max |input|. The 1-D norms grow with the level and converge (computed exactly up to 14
// levels, checked in tests/coefficient_range_test.cpp): low-pass 1.5, 1.625, ... -> 1.7156,
// high-pass 2, 2.5, ... -> 2.8670, so every band of any depth has a gain below
// kGain53 = 1.72 * 2.87 ~ 4.94 (LH, HL) or 2.87^2 ~ 8.24 (HH). Symmetric extension folds
// taps, which can only lower the norm, and the doubled single sample of a 1-wide odd signal
// has gain 2.
// Rounding: one lifting step moves a high-pass output by at most 1/2 and a low-pass output
// by at most 3/4 from the linear value; that error then passes through the rest of the
// cascade (gain below kGain53). Over 2 passes a level: at most 2 * levels * 0.75 * kGain53.
#pragma once
#include <cstdint>

namespace j2k {

constexpr double kGain53 = 8.25;

// The largest |coefficient| of the 5/3 forward transform of samples with |x| <= max_input.
constexpr double max_53_coefficient(int64_t max_input, int levels) {
  return kGain53 * static_cast<double>(max_input) + 2.0 * levels * 0.75 * kGain53;
}

// |x| bound after the DC shift of a `precision`-bit component (signed or not): 2^(p-1); after
// the RCT, the chrominance differences reach 2^p - 1.
constexpr int64_t max_shifted_sample(int precision, bool rct_chroma) {
  return rct_chroma ? (int64_t{1} << precision) - 1 : int64_t{1} << (precision - 1);
}

}  // namespace j2k
