// SPDX-License-Identifier: BSD-2-Clause
// The MagSgn stream of a cleanup segment, unstuffed once into a buffer (CPU only), so that the
// AVX2 cleanup pass reads any bit position with one load and one shift: its only state is the
// position, one add a quad, with no branch on how many bits are in hand (a count that changes
// with the data at every quad, which a branch predictor cannot learn).
//
// The same bits as ForwardWordReader(data, size, true) (tests/ht_block_decoder_test.cpp
// checks): the stream's, each byte after a 0xFF giving 7, then 1s. A block never reads more
// than `limit_bits` (4 bits a sample at most 31: U <= 31 - plane, cleanup_pass.hpp's
// exponent_bound), so only that much of a longer stream is unstuffed; a position past the
// buffer reads the 1s of its last 8 bytes.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "codec/tier1/ht/word_readers.hpp"

namespace j2k::codec::ht {

class UnstuffedBits {
 public:
  // The most stream bytes a block reads: 4096 samples of 31 bits, 7 of them a byte at worst.
  static constexpr size_t kMaxBytes = 4096 * 31 / 7 + 1;

  UnstuffedBits(const uint8_t* data, size_t size, size_t limit_bits) {
    // The stream's bytes (at most what a block reads), then at least 8 of 1s.
    const size_t stream_bytes = std::min({size, limit_bits / 7 + 1, kMaxBytes});
    // 8 bytes at a time while none is 0xFF (each then gives all 8 bits): ORed in above the
    // bits that earlier stuffed bytes left over, if any; the other bytes one at a time.
    size_t in = 0;
    uint8_t* out = bytes_;
    uint64_t pending = 0;  // bits not yet stored, below `pending_bits` (< 8 after a store)
    int pending_bits = 0;
    bool last_ff = false;
    while (in < stream_bytes) {
      if (!last_ff && in + 8 <= stream_bytes) {
        const uint64_t word = load_le64(data + in);
        const uint64_t inverse = ~word;
        if (((inverse - kLowBits) & word & kHighBits) == 0) {  // no 0xFF byte (word_readers.hpp)
          store_le64(out, pending | word << pending_bits);
          out += 8;
          pending = pending_bits ? word >> (64 - pending_bits) : 0;
          in += 8;
          continue;
        }
      }
      const unsigned byte = data[in++];
      const int width = last_ff ? 7 : 8;
      pending |= static_cast<uint64_t>(byte & (0xFFu >> (8 - width))) << pending_bits;
      pending_bits += width;
      last_ff = byte == 0xFF;
      if (pending_bits >= 8) {  // a whole byte
        *out++ = static_cast<uint8_t>(pending);
        pending >>= 8;
        pending_bits -= 8;
      }
    }
    // Past the stream, 1s (and where it stopped short of its end, the limit is never read).
    pending |= ~uint64_t{0} << pending_bits;
    store_le64(out, pending);
    store_le64(out + 8, ~uint64_t{0});
    last_ = static_cast<size_t>(out - bytes_) + 8;
  }
  UnstuffedBits(const UnstuffedBits&) = delete;
  UnstuffedBits& operator=(const UnstuffedBits&) = delete;

  // At least 57 bits from bit `position`, the first in bit 0.
  uint64_t at(size_t position) const {
    const size_t byte = std::min(position >> 3, last_);
    return load_le64(bytes_ + byte) >> (position & 7);
  }

 private:
  static void store_le64(uint8_t* p, uint64_t w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    std::memcpy(p, &w, sizeof w);
  }

  uint8_t bytes_[kMaxBytes + 24];
  size_t last_;  // the last byte a load starts at; it and the 7 after it are all 1s
};

}  // namespace j2k::codec::ht
