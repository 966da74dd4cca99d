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

#include "codec/tier1/block_coder.hpp"

namespace j2k::codec {

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
