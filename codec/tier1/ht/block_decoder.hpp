// SPDX-License-Identifier: BSD-2-Clause
// The HT block decoder (ISO/IEC 15444-15): one code-block's HT cleanup pass, and the SigProp
// and MagRef passes after it, read back into the coefficient form of the EBCOT decoder
// (ebcot/block_decoder.hpp), so that dequantisation downstream is the same for both coders.
//
// What Tier-2 hands over for an HT block (BlockCode): the passes counted as Part 15 counts
// them, a cleanup pass first and then SigProp, MagRef, cleanup, ... one bit plane lower each
// three; a segment that ends with a cleanup pass holds that cleanup pass (and the empty
// placeholder passes before it, 3 per plane skipped), and the segment after it the SigProp
// and MagRef passes of the same HT set. `bitplanes` is the band's Mb less the block's missing
// MSBs (plus an ROI shift) as for EBCOT: the cleanup pass at pass 3z codes the magnitudes from
// plane bitplanes - 1 - z down; unlike EBCOT's, its magnitudes may reach above that plane.
// The decoder decodes the last HT set whose cleanup segment holds bytes.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/block_coder.hpp"

namespace j2k::codec::ht {

// Decodes the block into out[y * stride + x], each coefficient as the EBCOT decoder holds it:
// sign and twice the magnitude known down to plane p, plus 2^p (the middle of the interval
// left open); 0 while insignificant. The cleanup pass leaves its plane p; SigProp makes new
// coefficients significant at p - 1 (3 * 2^(p-1)); MagRef refines the cleanup's to p - 1.
// Inconsistent data (a cleanup segment shorter than 2 bytes or with a MEL and VLC length
// beyond it, an unknown codeword, an exponent past kMaxDecodedBitplanes) decodes to zeros with
// BlockDecodeReport::corrupt set. Throws j2k::Error as the EBCOT decoder does for sizes,
// planes and segment lengths.
BlockDecodeReport decode_block(const BlockCode& code, int32_t* out, ptrdiff_t stride);

// The builds of the cleanup pass (cleanup_pass.hpp), each giving the same results: the
// portable one, one for AVX2 and BMI2 (x86-64), and that one with its MagSgn sub-pass in
// AVX-512. decode_block above takes the fastest one the CPU runs; tests and benchmarks name
// one. available(): whether this build and CPU have it; a path that is not available decodes
// with the portable one.
enum class HtDecoderPath { Portable, Avx2, Avx512 };
bool available(HtDecoderPath path);
BlockDecodeReport decode_block(const BlockCode& code, int32_t* out, ptrdiff_t stride, HtDecoderPath path);

// decode_block() then `q` (block_coder.hpp's Dequantisation), into out[y * stride + x]: int32
// for the 5/3, float for the 9/7. A set of a cleanup pass alone (every set OpenJPH writes) is
// written in that form as the cleanup pass decodes it, without a copy of the block; one with
// SigProp or MagRef, which refine the coefficient form, goes through a copy. A corrupt block
// is zeros, as there.
BlockDecodeReport decode_block_dequantised(const BlockCode& code, const Dequantisation& q, void* out, ptrdiff_t stride);
BlockDecodeReport decode_block_dequantised(const BlockCode& code, const Dequantisation& q, void* out, ptrdiff_t stride,
                                           HtDecoderPath path);

// decode_block_dequantised() of each of `count` blocks, with the same results. On a CPU with
// AVX-512 (HtDecoderPath::Avx512) the cleanup passes' VLC sub-passes of blocks of one size
// whose set is a cleanup pass alone go sixteen at a time (vlc_lanes.hpp); the rest one by one.
void decode_blocks_dequantised(DequantisedBlock* blocks, size_t count);
// How many blocks decode_blocks_dequantised() takes together here: 16 with AVX-512, else 1.
int blocks_decoded_together();

}  // namespace j2k::codec::ht
