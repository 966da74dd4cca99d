// SPDX-License-Identifier: BSD-2-Clause
// The Tier-1 decoder of one code-block (ISO/IEC 15444-1 Annex D), the inverse of
// block_encoder: the coding passes read back from the block's codeword segments, in the same
// contexts, under the same six mode switches, as far as the passes Tier-2 delivered go. A
// segment may be cut short (a layer that ends inside it): the decoders read 1s past its end,
// which is what the encoder's truncation points assume. Corrupt bytes decode to some
// coefficients, never to a crash: every read is bounded by the sizes given.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/block_encoder.hpp"
#include "j2kfront/j2kfront.h"

namespace j2k::codec {

// What Tier-2 gathered for a block (BlockData), with the block's geometry and coding style.
struct BlockCode {
  const uint8_t* bytes = nullptr;         // the codeword segments back to back
  size_t size = 0;                        // bytes there
  const uint32_t* segment_bytes = nullptr;  // each segment's bytes
  const int* segment_passes = nullptr;    // each segment's coding passes
  size_t segments = 0;
  int width = 0, height = 0;              // 1..1024 each, width * height <= 4096
  j2k_band_type band = J2K_BAND_LL;
  uint8_t modes = 0;                      // BlockMode bits
  // The bit planes the passes start from: the band's Mb less the block's missing planes
  // (B.10.5), plus the ROI shift. At most kMaxDecodedBitplanes.
  int bitplanes = 0;
};

// The most bit planes a block may have: its coefficients are held in int32 at twice their
// scale (see decode_block).
constexpr int kMaxDecodedBitplanes = 30;

struct BlockDecodeReport {
  int passes = 0;               // coding passes decoded
  bool segmark_error = false;   // a cleanup pass did not end in SEGMARK's 1010 (D.5)
};

// Throws as decode_block() does for a block it cannot decode (the checks the GPU's decoder,
// cuda/block_decoder.hpp, has its caller make on the host).
void check_block(const BlockCode& code);

// Decodes the block into out[y * stride + x]. Each coefficient is held as OpenJPEG holds it,
// so that the dequantisation after it matches OpenJPEG bit for bit: sign and twice the
// magnitude, with the planes decoded so far and half the width of the interval they leave
// open (a coefficient known down to plane p holds 2 * (its bits >= p) + 2^p; 0 if it is
// still insignificant). Passes past the block's 3 * bitplanes - 2 are ignored. With BYPASS
// a segment is read raw or through the MQ decoder as its first pass asks, as OpenJPEG does.
// Throws j2k::Error: InvalidArgument for a size outside A.6.1's, UnsupportedInput for more
// than kMaxDecodedBitplanes bit planes, CorruptInput for segments longer than `size`.
BlockDecodeReport decode_block(const BlockCode& code, int32_t* out, ptrdiff_t stride);

}  // namespace j2k::codec
