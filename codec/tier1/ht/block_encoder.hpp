// SPDX-License-Identifier: BSD-2-Clause
// The HT block encoder (ISO/IEC 15444-15): one code-block as one HT set. The cleanup pass at
// BlockView::cleanup_plane p codes every magnitude bit of the block's quantised coefficients
// from plane p up, in quads of 2x2 samples: their significance and exponent bounds through
// MEL and the CxtVLC and U-VLC codes, their magnitude and sign bits raw in MagSgn. Above plane
// 0 the SigProp and MagRef passes at p - 1 follow (one segment: SigProp forward, MagRef
// backward from its end), the decoder's rules mirrored.
//
// What the CodedBlock means for HT (block_coder.hpp): `bitplanes` is p + 1 for a block with
// a coefficient significant at p (0 otherwise: no pass), so that Tier-2 signals Mb - p - 1
// missing MSBs and the cleanup pass, the first, falls on plane p with no placeholder pass
// before it while its magnitudes reach as high as they need (Part 15 lets a cleanup pass's
// magnitudes exceed its plane); `magnitude_bitplanes` is what Mb must hold. `passes` holds
// the cleanup pass (terminated: its own segment), then, above plane 0, SigProp (its bytes
// are the same whether MagRef follows or not, so a stop after it is exact) and MagRef
// (terminated). Each pass's distortion is the squared error it removes, the decoder's
// reconstruction (the interval's middle; the index itself for the 5/3 at plane 0) against
// the coefficient with its fraction bits. Of BlockView's mode bits (EBCOT's) only the
// stripe-causal one (kModeCausal) counts, in SigProp's neighbourhoods, as in the decoder.
#pragma once
#include "codec/tier1/block_coder.hpp"

namespace j2k::codec::ht {

// Codes the block's HT set at block.cleanup_plane. Throws Error(Internal) where MEL and VLC
// outgrow the 4079 bytes the segment's length field can say (no block of 4096 samples comes
// near), Error(InvalidArgument) for a plane outside 0..30.
CodedBlock encode_block(const BlockView& block);

// The builds of the cleanup coder, each giving the same bytes: the portable one
// (cleanup_encoder.hpp), and one for AVX2 and BMI2 (x86-64, cleanup_encoder_avx2.hpp).
// encode_block above takes the fastest one the CPU runs; tests and benchmarks name one.
// available(): whether this build and CPU have it; a path that is not available codes with
// the portable one.
enum class HtEncoderPath { Portable, Avx2 };
bool available(HtEncoderPath path);
CodedBlock encode_block(const BlockView& block, HtEncoderPath path);

// The bit planes of the block's largest quantisation index (0: every index is 0): the
// cleanup planes worth coding are 0 to this less 1.
int magnitude_bitplanes(const BlockView& block);

}  // namespace j2k::codec::ht
