// SPDX-License-Identifier: BSD-2-Clause
// The MQ arithmetic decoder of ISO/IEC 15444-1 Annex C (C.3): the decisions an MQ encoder
// (mq_encoder.hpp) coded, read back in the same adaptive contexts. A code-block's decoding
// passes drive it; the tests also use it to read what the encoder wrote. Bytes past the end of
// the codeword read as 0xFF (C.3.4): a terminated codeword may leave its last bytes out.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/ebcot/host_device.hpp"
#include "codec/tier1/ebcot/mq_encoder.hpp"

namespace j2k::codec {

// A context as the decoder holds it, in one word: its state's Qe in bits 0..15 and, in bits
// 16..23, its key: the state (an index into Table C.2) times two plus its more probable
// symbol. A decision starts from this one load, and the word that follows a renormalising
// decision comes from one more (kNextWords by key and by whether the decision was the LPS).
struct MqDecoderContext {
  uint32_t word = kStateZero;  // state 0, MPS 0

  MqDecoderContext() = default;
  explicit MqDecoderContext(int state, int mps = 0) : word(pack(state, mps)) {}
  J2K_T1_HD int mps() const { return static_cast<int>(word >> 16 & 1); }

  static constexpr uint32_t pack(int state, int mps) {
    return mq_detail::kStates[state].qe | static_cast<uint32_t>(2 * state + mps) << 16;
  }
  // pack(0, 0) as a literal, which CUDA device code may use where kStates is not there.
  static constexpr uint32_t kStateZero = 0x5601;
};

static_assert(MqDecoderContext::pack(0, 0) == MqDecoderContext::kStateZero);

namespace mq_detail {
// For each key: the context's word after an MPS that renormalises (the state's NMPS, the
// same MPS) in the low half, after an LPS (NLPS, the MPS switched where SWITCH says) in the
// high half.
struct NextWords {
  uint64_t after[2 * 47] = {};
  constexpr NextWords() {
    for (int state = 0; state < 47; ++state)
      for (int mps = 0; mps < 2; ++mps) {
        const QeState& s = kStates[state];
        after[2 * state + mps] = MqDecoderContext::pack(s.nmps, mps) |
                                 uint64_t{MqDecoderContext::pack(s.nlps, mps ^ s.swap)} << 32;
      }
  }
};
inline constexpr NextWords kNextWords;

// The same words one by one, word[2 * key + lps], for the CPU: one load indexed by the
// decision, where the pair's 64-bit load is shifted by it (x86 shifts by CL only, so that
// took three moves more).
struct NextWordPairs {
  uint32_t word[2 * 2 * 47] = {};
  constexpr NextWordPairs() {
    for (int key = 0; key < 2 * 47; ++key) {
      word[2 * key] = static_cast<uint32_t>(kNextWords.after[key]);
      word[2 * key + 1] = static_cast<uint32_t>(kNextWords.after[key] >> 32);
    }
  }
};
inline constexpr NextWordPairs kNextWordPairs;

// Where the decoder finds the next words: on the CPU the constant itself; the CUDA kernel
// passes a copy of kNextWords in device memory (cuda/block_decoder.cu).
struct HostNextWords {
  static uint32_t next_word(unsigned key, uint32_t lps) { return kNextWordPairs.word[2 * key + lps]; }
};
}  // namespace mq_detail

template <class Tables>
class MqDecoderOf {
 public:
  // INITDEC (C.3.5) over the codeword data[0..size).
  J2K_T1_HD MqDecoderOf(const uint8_t* data, size_t size) : data_(data), size_(data ? size : 0) {
    c_ = static_cast<Code>(byte(0)) << kLow;
    fill();
    c_ <<= 7;
    ct_ -= 7;
    a_ = 0x8000;
  }

  // DECODE (C.3.2): the next decision in context `cx`, which adapts as the encoder's did.
  J2K_T1_HD J2K_T1_INLINE int decode(MqDecoderContext& cx) {
    const uint32_t word = cx.word, qe = word & 0xFFFF;
    a_ -= qe;
    uint32_t lps;
    if ((c_ >> kLow) < qe) {  // the lower sub-interval: LPS_EXCHANGE (C.3.2, Figure C.17)
      lps = a_ >= qe;
      a_ = qe;
    } else {
      c_ -= static_cast<Code>(qe) << kLow;
      if (a_ & 0x8000) return cx.mps();  // no renormalisation
      lps = a_ < qe;                     // MPS_EXCHANGE (Figure C.16)
    }
    // Whether the decision is the LPS (the sub-intervals exchanged or not) and the next state
    // by selects, not branches: where Qe is near half, the exchange is a coin toss.
    cx.word = Tables::next_word(word >> 16, lps);
    renormalise();
    return static_cast<int>((word >> 16 & 1) ^ lps);
  }

  // The same decision as decode(), reached without a branch on where C falls: the sub-interval
  // (lower), whether the intervals exchange, the decision and the next state are computed with
  // selects. Faster where the outcome is a coin toss (refinement and significance bits of the
  // lower planes, whose branches mispredict half the time), slower where it is predictable.
  J2K_T1_HD J2K_T1_INLINE int decode_even(MqDecoderContext& cx) {
    const uint32_t word = cx.word, qe = word & 0xFFFF;
    const uint32_t a = a_ - qe;
    const uint32_t lower = (c_ >> kLow) < qe;  // LPS_EXCHANGE's sub-interval (Figure C.17)
    const uint32_t exchange = a < qe;         // the sub-intervals exchange
    const uint32_t lps = lower ^ exchange;    // the decision is the LPS
    const uint32_t keep = lower - 1;          // all ones in the upper sub-interval
    const uint32_t a2 = (qe & ~keep) | (a & keep);
    c_ -= static_cast<Code>(qe & keep) << kLow;
    const int shift = t1::clz16(a2);  // 0: no renormalisation, the state stays
    // The context's next word where A renormalises (an LPS always does), else the word it had,
    // through a mask: GCC made a branch of `shift == 0 ? word : next` (no store where the word
    // stays), a coin toss here too; the mask took 7% off 8-bit blocks' decoding, with the
    // significance decisions through here (bench/tier1_ab.sh).
    const uint32_t renormalised = static_cast<uint32_t>(shift == 0) - 1u;  // all ones where it did
    cx.word = word ^ ((word ^ Tables::next_word(word >> 16, lps)) & renormalised);
    a_ = a2;
    if (__builtin_expect(shift > ct_, 0)) {
      renormalise();
    } else {
      a_ <<= shift;
      c_ <<= shift;
      ct_ -= shift;
    }
    return static_cast<int>((word >> 16 & 1) ^ lps);
  }

 private:
  // C (Figure C.15's register) on the CPU in 64 bits: Chigh, the 16 bits compared with Qe, at
  // the top (kLow up), and below it up to 48 bits of the codeword read ahead, of which CT counts
  // those left. Annex C's 32-bit C holds at most 8 bits ahead and takes a byte in every 8
  // shifts; with 48, RENORMD leaves its straight line (shift > CT) once in about 40 shifts
  // rather than 8, and reads up to six bytes at once. The decisions are Annex C's bit for bit
  // whatever the bytes (fill() says why). The GPU keeps Annex C's 32 bits and byte at a time
  // (its 64-bit shifts take two instructions).
#if defined(__CUDA_ARCH__)
  using Code = uint32_t;
#else
  using Code = uint64_t;
#endif
  static constexpr int kLow = 8 * static_cast<int>(sizeof(Code)) - 16;  // Chigh's lowest bit

  // RENORMD (C.3.3): A and C shift left until A is 0x8000 or more, bytes in whenever CT runs
  // out; the shifts counted at once rather than one at a time (A is above 0). Bytes come in
  // once in several decisions, and 0xFF is rare: the compiler is told so (__builtin_expect),
  // which keeps those paths out of the decisions' straight line (bench/tier1_ab.sh: 1% to 3%).
  J2K_T1_HD J2K_T1_INLINE void renormalise() {
    int shift = t1::clz16(a_);
    while (__builtin_expect(shift > ct_, 0)) {
      a_ <<= ct_;
      c_ <<= ct_;
      shift -= ct_;
      fill();
    }
    a_ <<= shift;
    c_ <<= shift;
    ct_ -= shift;
  }

  // Byte k after B; positions are indices, so that reading past the end (or an empty
  // codeword with no buffer) forms no pointer outside the data.
  J2K_T1_HD uint8_t byte(size_t k) const { return pos_ + k < size_ ? data_[pos_ + k] : 0xFF; }

  // BYTEIN (C.3.4) where CT is 0: after 0xFF a byte carries 7 bits; 0xFF followed by more
  // than 0x8F is a marker (or the end), where the decoder feeds itself 1 bits and stays. On the
  // CPU, bytes come in again while C has room for one below the bits it holds. Such a byte goes
  // in below the bits already there, which are 0, so reading it early changes no decision; but
  // the first bit of a byte after 0xFF is a carry into the 0xFF's last bit, and that byte comes
  // in only where CT is 0, as in Annex C, so that the carry reaches Chigh when Annex C's does.
  J2K_T1_HD J2K_T1_INLINE void fill() {
#if defined(__CUDA_ARCH__)
    if (__builtin_expect(byte(0) == 0xFF, 0)) {
      if (byte(1) > 0x8F) {
        c_ += 0xFF00;
        ct_ = 8;
      } else {
        ++pos_;
        c_ += static_cast<Code>(byte(0)) << 9;
        ct_ = 7;
      }
    } else {
      ++pos_;
      c_ += static_cast<Code>(byte(0)) << 8;
      ct_ = 8;
    }
#else
    ct_ = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    // Six bytes from one load, where neither B nor one of the five after it is 0xFF.
    if (__builtin_expect(pos_ + 8 <= size_, 1)) {
      uint64_t x;
      __builtin_memcpy(&x, data_ + pos_, 8);  // B and the seven bytes after it
      const uint64_t ones = ~x;               // 0xFF bytes are 0 bytes here
      if (((ones - 0x0101010101010101u) & ~ones & 0x0000808080808080u) == 0) {
        c_ += (__builtin_bswap64(x) << 8) >> 16;
        pos_ += 6;
        ct_ = 48;
        return;
      }
    }
#endif
    do {
      if (__builtin_expect(byte(0) == 0xFF, 0)) {
        if (byte(1) > 0x8F) {
          c_ += static_cast<Code>(0xFF) << (kLow - 8 - ct_);
          ct_ += 8;
          continue;
        }
        if (ct_ > 0) return;  // the byte after 0xFF waits for CT 0
        ++pos_;
        c_ += static_cast<Code>(byte(0)) << (kLow - 7);
        ct_ = 7;
      } else {
        ++pos_;
        c_ += static_cast<Code>(byte(0)) << (kLow - 8 - ct_);
        ct_ += 8;
      }
    } while (ct_ <= kLow - 8);
#endif
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;  // B: the byte last read in
  uint32_t a_ = 0;
  Code c_ = 0;
  int ct_ = 0;
};

using MqDecoder = MqDecoderOf<mq_detail::HostNextWords>;

}  // namespace j2k::codec
