// SPDX-License-Identifier: BSD-2-Clause
// Dequantisation (ISO/IEC 15444-1 E.1), the decoder's side of quantiser.hpp: each band's step
// and bit-plane count from QCD/QCC, the ROI shift undone (Annex H, max-shift), and a decoded
// code-block's values (block_decoder's: twice the magnitude, plus half the open interval)
// turned into the coefficients the inverse DWT takes, with OpenJPEG's arithmetic so that the
// output compares bit for bit: the 5/3's halved with C's truncating division, the 9/7's
// multiplied in float by half the step.
#pragma once
#include <cstddef>
#include <cstdint>

#include <cstddef>
#include <cstdint>

#include "codec/params/tile_coding.hpp"
#include "j2kfront/j2kfront.h"

namespace j2k::codec {

struct BandQuant {
  int exponent = 0;  // epsilon_b
  int mantissa = 0;  // mu_b
};

// Band `band` of a tile-component (LL, then HL, LH, HH from the coarsest level), as QCD/QCC
// signal it or, scalar derived, from LL's by E-5 (the exponent never below 0, as OpenJPEG
// reads it). Throws j2k::Error (CorruptInput) when the segment has no step for the band.
BandQuant band_quant(const ComponentQuant& q, size_t band);

// M_b (E-2): the band's magnitude bit planes, guard bits + exponent - 1.
inline int band_bitplanes(const ComponentQuant& q, const BandQuant& b) { return q.guard_bits + b.exponent - 1; }

// The 9/7 step (E-3), float as OpenJPEG computes it: (1 + mu/2^11) * 2^(R_b - epsilon) with
// R_b = precision + gain_log2.
float band_step(int precision, int gain_log2, const BandQuant& b);

// Annex H's max-shift undone, as OpenJPEG does it on the decoded values (twice the scale):
// a magnitude of at least 2^shift is shifted down by `shift`, a smaller one (the background)
// kept; a shift of 31 or more clears the block.
void undo_roi_shift(int32_t* values, size_t count, int shift);

// A block's decoded values into the tile-component's coefficients, `width` x `height`, rows
// `in_stride` and `out_stride` elements apart.
void dequantise_reversible(const int32_t* in, ptrdiff_t in_stride, int width, int height, int32_t* out, ptrdiff_t out_stride);
void dequantise_irreversible(const int32_t* in, ptrdiff_t in_stride, int width, int height, float step, float* out,
                             ptrdiff_t out_stride);

}  // namespace j2k::codec
