// SPDX-License-Identifier: BSD-2-Clause
// The CPU's build of encode_refinement (refinement_encoder.hpp): the same SigProp and MagRef
// bytes and the same distortion figures, from masks of a row's samples (a bit a column) rather
// than a sample at a time. HT rate control codes every block's SigProp and MagRef at two
// planes; sample by sample, that was a third of an `-r` run's time. SigProp's order (stripe
// by stripe, groups of 4 columns, each column top down, a sample counting the neighbours made
// significant before it) is kept by finding the stripe's new significant samples first, as
// the least solution of "insignificant, its bit 1 and a neighbour significant, of those
// before it in that order" over its 4 row masks; then each group's bits go out in order,
// picked from the masks. The GPU keeps the reference (one thread of a warp per block); the
// tests compare the two on random blocks of every shape.
#pragma once
#include <cstdint>
#include <vector>

#include "codec/tier1/ht/refinement_encoder.hpp"

namespace j2k::codec::ht {

// The widest block the masks take: a row in one 64-bit word.
inline constexpr int kMaxRowMaskWidth = 64;

// The masks' scratch, reused from block to block.
struct RowMasks {
  std::vector<uint64_t> significant, bit, negative;  // a row each: after the cleanup, bit p - 1, sign
};

// encode_refinement of a block at most kMaxRowMaskWidth wide, but for MagRef's distortion
// (which the caller sums with the cleanup pass's figures, block_encoder.cpp's gather): the
// bytes, and SigProp's distortion where `estimate`, summed in integers, which are the
// reference's doubles only where every partial sum of those is exact (the caller checks it:
// every magnitude, fraction bits included, below 2^25 and the block's sum of 4 m^2 below
// 2^53; each of SigProp's terms is at most its sample's m^2); magref_removed is left 0.
// `sigprop_out`, `magref_out`: sigprop_capacity and magref_capacity bytes. `avx2`: its AVX2
// and BMI2 build (the same bytes), only on a CPU that runs it (avx2_runs()).
Refinement encode_refinement_rows(const IndexBlock& b, int plane, bool reversible, bool causal, bool estimate, RowMasks& masks,
                                  uint8_t* sigprop_out, uint8_t* magref_out, bool avx2);

}  // namespace j2k::codec::ht
