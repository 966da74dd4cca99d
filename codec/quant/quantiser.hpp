// SPDX-License-Identifier: BSD-2-Clause
// Quantisation (ISO/IEC 15444-1 Annex E) and the weights rate control measures distortion
// with: the 5/3 is not quantised (its exponents only say how many bit planes a band has); the
// 9/7 is quantised with a step per band, "scalar expounded" (an exponent and an 11-bit
// mantissa per band in QCD), each step the base step divided by the band's synthesis norm, so
// that a step's worth of error costs every band the same in the image.
#pragma once
#include <cstdint>

#include "j2kfront/j2kfront.h"

namespace j2k::codec {

// The L2 norm of a band's synthesis basis function: what a coefficient error of 1 in that band
// (at decomposition level `level`, 1 = the finest; LL at the coarsest) becomes in the image,
// for the 5/3 (linearised) or the 9/7 as Annex F normalises them.
double synthesis_norm(bool reversible, int level, j2k_band_type band);

// The L2 norm of column `component` (0..2) of the inverse component transform (RCT for the
// 5/3, ICT for the 9/7, Annex G): how an error in Y, Cb or Cr spreads into R, G and B.
double mct_norm(bool reversible, int component);

// log2 of the band's nominal gain (Table E.1): 0 for LL, 1 for HL and LH, 2 for HH.
int band_gain_log2(j2k_band_type band);

// One band's step as QCD carries it (E.1.1.1): delta = 2^(R_b - exponent) * (1 + mantissa / 2^11),
// R_b = precision + gain.
struct BandStep {
  int exponent = 0;  // epsilon_b, 0..31
  int mantissa = 0;  // mu_b, 0..2047 (0 without quantisation)
  double delta = 1;  // the step the decoder computes from the two; what coefficients are divided by
};

// The largest step not above `wanted` that QCD can carry for a band of nominal range `range_bits`
// (R_b). Throws j2k::Error when the exponent would leave 0..31.
BandStep expounded_step(double wanted, int range_bits);

// The 5/3's "step": exponent R_b, no mantissa, delta 1.
BandStep reversible_step(int range_bits);

// Bits below the step that the 9/7's quantised coefficients keep for the distortion estimates.
constexpr int kFractionBits = 6;

// Quantises a `width` x `height` block of 9/7 coefficients (rows `stride` floats apart) with
// step `delta` into int32 sign-magnitude values with kFractionBits below the step, rounding
// magnitudes down (the dead-zone quantiser of E.1.1.2). Returns false if a magnitude does not
// fit in 31 bits.
bool quantise_block(const float* in, ptrdiff_t stride, int width, int height, double delta, int32_t* out);

}  // namespace j2k::codec
