// SPDX-License-Identifier: BSD-2-Clause
// The bit readers of the HT block decoder (ISO/IEC 15444-15 Annex C and D): the cleanup
// segment holds three streams and the refinement segment two, each with its own direction,
// bit order, bit-unstuffing rule and fill past its end:
//   MagSgn, SigProp   forward, each byte from its LSB; after a 0xFF byte the next gives 7 bits
//                     (its MSB is a stuffed 0); past the end MagSgn reads 1s, SigProp 0s.
//   MEL               forward, each byte from its MSB; after 0xFF the next gives 7 bits; past
//                     the end 1s; its last byte, shared with the VLC stream, reads with its low
//                     nibble set.
//   VLC, MagRef       backward from the segment's end, each byte from its LSB; a byte whose low
//                     7 bits are all 1 after (in reading order) a byte above 0x8F gives 7
//                     bits; past the end 0s.
// Every read is bounded by the segment: corrupt bytes decode to some bits, never past it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace j2k::codec::ht {

// MagSgn and SigProp: bytes [data, data + size), then `fill` bytes.
class ForwardBits {
 public:
  ForwardBits(const uint8_t* data, size_t size, uint8_t fill) : data_(data), size_(size), fill_(fill) {}

  // The next n bits (n <= 32), the first in bit 0.
  uint32_t take(int n) {
    if (n == 0) return 0;
    if (count_ < n) refill();
    const uint32_t v = static_cast<uint32_t>(bits_ & ((uint64_t{1} << n) - 1));
    bits_ >>= n;
    count_ -= n;
    return v;
  }

 private:
  // At least 32 bits in hand: 4 bytes at once where they are there and none is 0xFF (nor the
  // byte before them), else byte by byte.
  [[gnu::noinline]] void refill() {
    while (count_ <= 32) {
      if (!last_ff_ && pos_ + 4 <= size_) {
        uint32_t word = 0;
        for (int i = 0; i < 4; ++i) word |= static_cast<uint32_t>(data_[pos_ + static_cast<size_t>(i)]) << (8 * i);
        // Whether any byte is 0xFF: the classic has-zero-byte test on the complement.
        const uint32_t inv = ~word;
        if (((inv - 0x01010101u) & ~inv & 0x80808080u) == 0) {
          bits_ |= static_cast<uint64_t>(word) << count_;
          count_ += 32;
          pos_ += 4;
          continue;
        }
      }
      load();
    }
  }
  void load() {
    const uint8_t byte = pos_ < size_ ? data_[pos_] : fill_;
    ++pos_;
    const int width = last_ff_ ? 7 : 8;
    bits_ |= static_cast<uint64_t>(byte & ((1u << width) - 1)) << count_;
    count_ += width;
    last_ff_ = byte == 0xFF;
  }

  const uint8_t* data_;
  size_t size_, pos_ = 0;
  uint8_t fill_;
  bool last_ff_ = false;
  uint64_t bits_ = 0;
  int count_ = 0;
};

// VLC and MagRef: bytes read from data[size - 1] down to data[0], then 0s. `first_nibble`:
// the VLC stream, whose first byte gives only its upper 4 bits (the lower hold the length of
// MEL and VLC), and a stuffed bit when their low 3 are all 1 (as if after a byte above 0x8F).
// Otherwise (MagRef) the stream starts as if after a byte above 0x8F.
class BackwardBits {
 public:
  BackwardBits(const uint8_t* data, size_t size, bool first_nibble) : data_(data), left_(size) {
    if (first_nibble && left_ > 0) {
      const uint8_t byte = data_[--left_];
      const unsigned nibble = byte >> 4;
      const int width = (nibble & 7) == 7 ? 3 : 4;
      bits_ = nibble & ((1u << width) - 1);
      count_ = width;
      last_above_8f_ = (byte | 0x0F) > 0x8F;
    }
  }

  // The next n bits (n <= 32) without taking them, the first in bit 0.
  uint32_t peek(int n) {
    if (count_ < n) refill();
    return static_cast<uint32_t>(bits_ & ((uint64_t{1} << n) - 1));
  }
  void skip(int n) {
    if (count_ < n) refill();
    bits_ >>= n;
    count_ -= n;
  }
  uint32_t take(int n) {
    if (n == 0) return 0;
    const uint32_t v = peek(n);
    skip(n);
    return v;
  }

 private:
  // At least 32 bits in hand: 4 bytes at once where they are there and none needs a look at
  // the stuffing rule (a byte above 0x8F before it, in reading order), else byte by byte.
  [[gnu::noinline]] void refill() {
    while (count_ <= 32) {
      if (!last_above_8f_ && left_ >= 4) {
        const uint8_t* p = data_ + left_ - 4;  // read p[3], p[2], p[1], p[0]
        if (p[3] <= 0x8F && p[2] <= 0x8F && p[1] <= 0x8F) {
          const uint32_t word = static_cast<uint32_t>(p[3]) | static_cast<uint32_t>(p[2]) << 8 |
                                static_cast<uint32_t>(p[1]) << 16 | static_cast<uint32_t>(p[0]) << 24;
          bits_ |= static_cast<uint64_t>(word) << count_;
          count_ += 32;
          left_ -= 4;
          last_above_8f_ = p[0] > 0x8F;
          continue;
        }
      }
      load();
    }
  }
  void load() {
    uint8_t byte = 0;
    if (left_ > 0) byte = data_[--left_];
    const int width = (last_above_8f_ && (byte & 0x7F) == 0x7F) ? 7 : 8;
    bits_ |= static_cast<uint64_t>(byte & ((1u << width) - 1)) << count_;
    count_ += width;
    last_above_8f_ = byte > 0x8F;
  }

  const uint8_t* data_;
  size_t left_;
  bool last_above_8f_ = true;
  uint64_t bits_ = 0;
  int count_ = 0;
};

// The MEL decoder (Annex C's adaptive run-length code of the significance of quads in the
// zero context): states k = 0..12, each with a run exponent; a 1 is a run of 2^E zero events,
// a 0 followed by E bits is that many zero events and then a one event.
class MelDecoder {
 public:
  // The MEL stream: `size` bytes at `data`, the last one shared with the VLC stream.
  MelDecoder(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  int event() {
    if (zeros_ == 0 && !one_) {
      static constexpr int kExponent[13] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5};
      const int e = kExponent[k_];
      if (bit()) {
        zeros_ = 1 << e;
        if (k_ < 12) ++k_;
      } else {
        int run = 0;
        for (int i = 0; i < e; ++i) run = (run << 1) | bit();
        zeros_ = run;
        one_ = true;
        if (k_ > 0) --k_;
      }
    }
    if (zeros_ > 0) {
      --zeros_;
      return 0;
    }
    one_ = false;
    return 1;
  }

 private:
  int bit() {
    if (count_ == 0) {
      uint8_t byte = 0xFF;
      if (pos_ < size_) byte = data_[pos_] | (pos_ + 1 == size_ ? 0x0F : 0x00);
      ++pos_;
      count_ = last_ff_ ? 7 : 8;
      byte_ = byte;
      last_ff_ = byte == 0xFF;
    }
    --count_;
    return (byte_ >> count_) & 1;
  }

  const uint8_t* data_;
  size_t size_, pos_ = 0;
  uint8_t byte_ = 0;
  int count_ = 0;
  bool last_ff_ = false;
  int k_ = 0, zeros_ = 0;
  bool one_ = false;
};

}  // namespace j2k::codec::ht
