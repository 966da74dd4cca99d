// SPDX-License-Identifier: BSD-2-Clause
// The HT block decoder as the standard's text reads (ISO/IEC 15444-15 Annex C and D): one
// quad, one codeword, one bit at a time through the byte readers of bit_readers.hpp. It is
// the readable reference that block_decoder.cpp, which decodes a quad row's VLC and MagSgn
// bits a word at a time, is tested against bit for bit (tests/ht_block_decoder_test.cpp and
// the ht_block fuzzer), hostile input included: the same coefficients, the same passes and
// the same corrupt verdict.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/block_coder.hpp"

namespace j2k::codec::ht {

// What decode_block (block_decoder.hpp) does, and its contract.
BlockDecodeReport decode_block_reference(const BlockCode& code, int32_t* out, ptrdiff_t stride);

}  // namespace j2k::codec::ht
