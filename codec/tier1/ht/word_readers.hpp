// SPDX-License-Identifier: BSD-2-Clause
// The bit readers of block_decoder.cpp: the same streams, bits and fills as bit_readers.hpp's
// byte readers (which stay as the reference, see reference_block_decoder.hpp), read 8 bytes at
// a time where the stuffing rule leaves them whole. Each keeps up to 64 bits in hand, the next
// one in bit 0, and refills to at least 56 (kRefilled) when asked for more than it holds, so a
// caller that wants a few fields in a row asks once for their sum.
//
// The word refill: load the 8 bytes ahead; if none of them is stuffed (nor the first, by the
// byte before it), OR them all in above the bits in hand and count only the whole bytes that
// fit. The byte that fits in part leaves its low bits in place; the next refill starts with that
// same byte, unstuffed, at that same place, so ORing it again changes nothing. Elsewhere (a
// stuffed byte in sight, fewer than 8 bytes left) a byte at a time, as the reference reads.
// Every load stays inside [data, data + size). Host and device code (host_device.hpp): the
// CUDA batch's HT decoder (device_block_decoder.hpp) reads with them too.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "codec/tier1/ht/host_device.hpp"

namespace j2k::codec::ht {

// At least this many bits are in hand after a refill.
constexpr int kRefilled = 56;

// 8 bytes from p, p[0] in the low byte: one unaligned load on the CPU, byte loads on the GPU
// (whose 64-bit loads must be aligned).
J2K_HD inline uint64_t load_le64(const uint8_t* p) {
#if defined(__CUDA_ARCH__)
  uint64_t w = 0;
  for (int i = 7; i >= 0; --i) w = w << 8 | p[i];
  return w;
#else
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
#endif
}

// 8 bytes from p, p[7] in the low byte.
J2K_HD inline uint64_t load_be64(const uint8_t* p) {
#if defined(__CUDA_ARCH__)
  uint64_t w = 0;
  for (int i = 0; i < 8; ++i) w = w << 8 | p[i];
  return w;
#else
  return __builtin_bswap64(load_le64(p));
#endif
}

constexpr uint64_t kLowBits = 0x0101010101010101ull;
constexpr uint64_t kHighBits = 0x8080808080808080ull;

// What both word readers hand out: up to 64 bits in hand, the next in bit 0; Reader::refill()
// (called through the reader, no virtual call) brings at least kRefilled.
template <class Reader>
class WordBits {
 public:
  // Makes at least n <= kRefilled bits available to bits() and take().
  J2K_HD void need(int n) {
    if (count_ < n) static_cast<Reader*>(this)->refill();
  }
  // The bits in hand (need() says how many are valid), the next in bit 0.
  J2K_HD uint64_t bits() const { return bits_; }
  J2K_HD void skip(int n) {
    bits_ >>= n;
    count_ -= n;
  }
  // skip(e & mask) for an e whose bits from mask's up to bit 5 are 0: the shift takes e as
  // it is (a 64-bit shift's count is its low 6 bits), without the AND before it.
  J2K_HD void skip_by_low_bits(uint32_t e, uint32_t mask) {
    bits_ >>= (e & 63);
    count_ -= static_cast<int>(e & mask);
  }
  // The next n <= 32 bits (none for 0), refilling first where fewer are in hand.
  J2K_HD uint32_t take(int n) {
    need(n);
    const uint32_t v = static_cast<uint32_t>(bits_ & ((uint64_t{1} << n) - 1));
    skip(n);
    return v;
  }

 protected:
  uint64_t bits_ = 0;
  int count_ = 0;
};

// MagSgn and SigProp (bit_readers.hpp's ForwardBits): forward, each byte from its LSB, 7 bits
// after a 0xFF; past the end 1s (`fill_ones`, MagSgn) or 0s (SigProp).
class ForwardWordReader : public WordBits<ForwardWordReader> {
 public:
  J2K_HD ForwardWordReader(const uint8_t* data, size_t size, bool fill_ones) : next_(data), left_(size), fill_ones_(fill_ones) {}

 private:
  friend class WordBits<ForwardWordReader>;
  J2K_HD void refill() {
    if (left_ >= 8 && !last_ff_) {
      const uint64_t word = load_le64(next_);
      // A 0xFF byte is a zero byte of the complement (the classic has-zero-byte test).
      const uint64_t inverse = ~word;
      if (((inverse - kLowBits) & word & kHighBits) == 0) {
        bits_ |= word << count_;
        const int whole = (63 - count_) >> 3;
        next_ += whole;
        left_ -= static_cast<size_t>(whole);
        count_ += 8 * whole;
        return;
      }
    }
    refill_bytes();
  }
  J2K_HD void refill_bytes() {
    while (count_ <= kRefilled) {
      if (left_ == 0) {
        // Past the end: the fill forever (a fill byte after 0xFF gives 7 of its bits, all alike).
        if (fill_ones_) bits_ |= ~uint64_t{0} << count_;
        count_ = 64;
        return;
      }
      const unsigned byte = *next_++;
      --left_;
      const int width = last_ff_ ? 7 : 8;
      bits_ |= static_cast<uint64_t>(byte & (0xFFu >> (8 - width))) << count_;
      count_ += width;
      last_ff_ = byte == 0xFF;
    }
  }

  const uint8_t* next_;
  size_t left_;
  bool fill_ones_;
  bool last_ff_ = false;
};

// VLC and MagRef (bit_readers.hpp's BackwardBits): backward from data[size - 1], each byte from
// its LSB, 7 bits from a byte whose low 7 bits are all 1 after (in reading order) a byte above
// 0x8F; past data[0] 0s. `first_nibble`: the VLC stream, whose first byte gives its upper 4 bits
// (3 when their low 3 are all 1); otherwise (MagRef) the first byte reads as after one above 0x8F.
class BackwardWordReader : public WordBits<BackwardWordReader> {
 public:
  J2K_HD BackwardWordReader(const uint8_t* data, size_t size, bool first_nibble) : data_(data), left_(size) {
    if (first_nibble && left_ > 0) {
      const unsigned byte = data_[--left_];
      const unsigned nibble = byte >> 4;
      count_ = (nibble & 7) == 7 ? 3 : 4;
      bits_ = nibble & ((1u << count_) - 1);
      last_above_8f_ = (byte | 0x0F) > 0x8F;
    }
  }


 private:
  friend class WordBits<BackwardWordReader>;
  J2K_HD void refill() {
    if (left_ >= 8) {
      // The 8 bytes before the next, the next (first read) in the low byte.
      const uint64_t word = load_be64(data_ + left_ - 8);
      // Per byte (no carry crosses a byte): bit 7 set where the byte is above 0x8F (its MSB
      // set and its low 7 bits at least 0x10), and where its low 7 bits are all 1.
      const uint64_t low7 = word & ~kHighBits;
      const uint64_t above_8f = word & (low7 + 0x70 * kLowBits) & kHighBits;
      const uint64_t low7_ones = (low7 + kLowBits) & kHighBits;
      const uint64_t after_above_8f = (above_8f << 8) | (last_above_8f_ ? 0x80u : 0u);
      if ((after_above_8f & low7_ones) == 0) {
        bits_ |= word << count_;
        const int whole = (63 - count_) >> 3;
        left_ -= static_cast<size_t>(whole);
        count_ += 8 * whole;
        last_above_8f_ = ((above_8f >> (8 * whole - 1)) & 1) != 0;
        return;
      }
    }
    refill_bytes();
  }
  J2K_HD void refill_bytes() {
    while (count_ <= kRefilled) {
      if (left_ == 0) {  // past the start: 0s forever, none of them stuffed
        count_ = 64;
        return;
      }
      const unsigned byte = data_[--left_];
      const bool stuffed = last_above_8f_ && (byte & 0x7F) == 0x7F;
      bits_ |= static_cast<uint64_t>(byte & (stuffed ? 0x7Fu : 0xFFu)) << count_;
      count_ += stuffed ? 7 : 8;
      last_above_8f_ = byte > 0x8F;
    }
  }

  const uint8_t* data_;
  size_t left_;
  bool last_above_8f_ = true;
};

// The MEL decoder (bit_readers.hpp's MelDecoder): the same states and runs, in two parts. The
// stream (MelStream) decodes runs from a 64-bit buffer (MSB first, as the MEL stream is) filled
// a byte at a time: the MEL stream is a small part of a segment. MelRunDecoder hands out a
// run's events and holds only the run and a pointer to its stream, so that a loop's copy of
// it stays in registers (the stream's address is what the rare call takes). The GPU's decoder
// reads with these, the CPU's with mel_runs.hpp's queue of runs.
struct MelRun {
  int zeros = 0;     // zero events
  bool one = false;  // then a one event
};

// The MEL exponent E of state k (0..12): a "1" is 2^E zero events, a "0" and E bits that many
// and a one event (MelEncoder::exponent's table).
J2K_HD constexpr int mel_exponent(int k) { return static_cast<int>((uint64_t{0x5433222111000} >> (4 * k)) & 0xF); }

// The MEL stream's bits, the next in bit 63, refilled a byte at a time (7 bits after 0xFF):
// what MelStream and mel_runs.hpp's MelRunQueue decode runs from.
struct MelBits {
  // The MEL stream: `size` bytes at `data`, the last one shared with the VLC stream.
  J2K_HD MelBits(const uint8_t* data, size_t size) : next(data), left(size) {}
  // Refills to more than kRefilled bits in hand.
  J2K_HD void refill() {
    while (count <= kRefilled) {
      // Past the end 0xFF; the last byte is shared with the VLC stream: its low nibble reads 1s.
      unsigned byte = 0xFF;
      if (left > 0) {
        byte = *next++ | (left == 1 ? 0x0Fu : 0u);
        --left;
      }
      const int width = last_ff ? 7 : 8;
      bits |= static_cast<uint64_t>(byte & (0xFFu >> (8 - width))) << (64 - width - count);
      count += width;
      last_ff = byte == 0xFF;
    }
  }

  const uint8_t* next;
  size_t left;
  bool last_ff = false;
  uint64_t bits = 0;  // the next bit in bit 63
  int count = 0;
};

class MelStream {
 public:
  // The MEL stream: `size` bytes at `data`, the last one shared with the VLC stream.
  J2K_HD MelStream(const uint8_t* data, size_t size) : in_(data, size) {}

  // The next run: "1", 2^E zero events; "0" and E bits, that many zero events and a one event.
  [[gnu::noinline]] J2K_HD MelRun next_run() {
    const int e = mel_exponent(k_);
    if (in_.count < 1 + e) in_.refill();
    MelRun run;
    if ((in_.bits >> 63) != 0) {
      run.zeros = 1 << e;
      in_.bits <<= 1;
      in_.count -= 1;
      if (k_ < 12) ++k_;
      return run;
    }
    run.zeros = e == 0 ? 0 : static_cast<int>((in_.bits << 1) >> (64 - e));
    run.one = true;
    in_.bits <<= 1 + e;
    in_.count -= 1 + e;
    if (k_ > 0) --k_;
    return run;
  }

 private:
  MelBits in_;
  int k_ = 0;  // the state, 0..12
};

class MelRunDecoder {
 public:
  J2K_HD explicit MelRunDecoder(MelStream& stream) : stream_(&stream) {}

  // The next event: 0 (a quad of the zero context that stays insignificant) or 1.
  J2K_HD int event() {
    if (run_.zeros > 0) {
      --run_.zeros;
      return 0;
    }
    if (run_.one) {
      run_.one = false;
      return 1;
    }
    run_ = stream_->next_run();
    return event();
  }

 private:
  MelStream* stream_;
  MelRun run_;
};

}  // namespace j2k::codec::ht
