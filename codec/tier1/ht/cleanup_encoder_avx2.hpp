// SPDX-License-Identifier: BSD-2-Clause
// The cleanup pass of cleanup_encoder.hpp for AVX2 and BMI2 (block_encoder_avx2.cpp), CPU
// only: the same bits into the same writers as CleanupEncoder<PaddedQuads>, its work split in
// two stages per line-pair. A vector stage does 8 quads at once: the four samples'
// exponents and significance, rho, the context, kappa, the exponent bound U and u, the
// CxtVLC codeword (a gather from the same table) and each quad's MagSgn bits packed in one or
// two words; a scalar stage then only feeds the writers, quad by quad, in the coder's order:
// the MEL event, the codeword, the MagSgn words, each pair's U-VLC codes (outside the initial
// line-pair a line-pair's MEL events first, from a bit mask, each run of 0s in one put: MEL's
// bits do not depend on the other streams').
// block_encoder.cpp calls it only on a CPU with AVX2 and BMI2 (available(HtEncoderPath::Avx2)).
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/ht/avx2_build.hpp"
#include "codec/tier1/ht/bit_writers.hpp"

namespace j2k::codec::ht {

// The AVX2 coder reads 16 columns of a line-pair at once: its PaddedQuads rows are a multiple
// of this apart (the padding 0s), which covers the last group of 8 quads.
constexpr size_t kAvx2QuadColumns = 16;

#if J2K_HT_HAVE_AVX2
// The scratch the coder works in (its line-pairs' contexts and codes, about 23 KB), the
// caller's, from a 32-byte boundary: heap memory, not the stack of a thread some embedder's
// pool may have made small.
size_t avx2_cleanup_scratch_bytes();

// The cleanup pass of the width x height block data[y * stride + x] (each sample 2 * mu +
// sign as PaddedQuads holds them; stride a multiple of kAvx2QuadColumns, rows and height
// padded with 0s) into the three writers; finish_cleanup() and write_cleanup() then make the
// segment, as CleanupEncoder::run() and write() do.
void encode_cleanup_avx2(const uint32_t* data, size_t stride, int width, int height, void* scratch, ForwardWriter& magsgn,
                         MelEncoder& mel, BackwardWriter& vlc);
#endif

}  // namespace j2k::codec::ht
