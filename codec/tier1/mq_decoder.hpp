// The MQ arithmetic decoder of ISO/IEC 15444-1 Annex C (C.3): the decisions an MQ encoder
// (mq_encoder.hpp) coded, read back in the same adaptive contexts. A code-block's decoding
// passes drive it; the tests also use it to read what the encoder wrote. Bytes past the end of
// the codeword read as 0xFF (C.3.4): a terminated codeword may leave its last bytes out.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/mq_encoder.hpp"

namespace j2k::codec {

// A context as the decoder holds it: its state (an index into Table C.2) and more probable
// symbol, with the state's Qe beside them, so that a decision starts from one load rather than
// the context's and then the table's.
struct MqDecoderContext {
  uint16_t qe = mq_detail::kStates[0].qe;
  uint8_t index = 0;
  uint8_t mps = 0;

  MqDecoderContext() = default;
  explicit MqDecoderContext(int state) { to(state); }
  void to(int state) {
    index = static_cast<uint8_t>(state);
    qe = mq_detail::kStates[state].qe;
  }
};

class MqDecoder {
 public:
  // INITDEC (C.3.5) over the codeword data[0..size).
  MqDecoder(const uint8_t* data, size_t size) : data_(data), size_(data ? size : 0) {
    c_ = static_cast<uint32_t>(byte(0)) << 16;
    byte_in();
    c_ <<= 7;
    ct_ -= 7;
    a_ = 0x8000;
  }

  // DECODE (C.3.2): the next decision in context `cx`, which adapts as the encoder's did.
  int decode(MqDecoderContext& cx) {
    const uint32_t qe = cx.qe;
    a_ -= qe;
    const mq_detail::QeState* s;
    uint32_t lps;
    if ((c_ >> 16) < qe) {  // the lower sub-interval: LPS_EXCHANGE (C.3.2, Figure C.17)
      s = &mq_detail::kStates[cx.index];
      lps = a_ >= qe;
      a_ = qe;
    } else {
      c_ -= qe << 16;
      if (a_ & 0x8000) return cx.mps;  // no renormalisation
      // MPS_EXCHANGE (Figure C.16)
      s = &mq_detail::kStates[cx.index];
      lps = a_ < qe;
    }
    // Whether the decision is the LPS (the sub-intervals exchanged or not) and the next state
    // by selects, not branches: where Qe is near half, the exchange is a coin toss.
    const int d = cx.mps ^ static_cast<int>(lps);
    cx.mps = static_cast<uint8_t>(cx.mps ^ (lps & s->swap));
    cx.to(lps ? s->nlps : s->nmps);
    renormalise();
    return d;
  }

  // The same decision as decode(), reached without a branch on where C falls: the sub-interval
  // (lower), whether the intervals exchange, the decision and the next state are computed with
  // selects. Faster where the outcome is a coin toss (refinement bits of the lower planes,
  // whose branches mispredict half the time), slower where it is predictable.
  int decode_even(MqDecoderContext& cx) {
    const mq_detail::QeState& s = mq_detail::kStates[cx.index];
    const uint32_t qe = cx.qe;
    const uint32_t a = a_ - qe;
    const uint32_t lower = (c_ >> 16) < qe;   // LPS_EXCHANGE's sub-interval (Figure C.17)
    const uint32_t exchange = a < qe;         // the sub-intervals exchange
    const uint32_t lps = lower ^ exchange;    // the decision is the LPS
    const uint32_t keep = lower - 1;          // all ones in the upper sub-interval
    const uint32_t a2 = (qe & ~keep) | (a & keep);
    c_ -= (qe << 16) & keep;
    const int shift = __builtin_clz(a2) - 16;  // 0: no renormalisation, the state stays
    const int d = cx.mps ^ static_cast<int>(lps);
    const int state = shift == 0 ? cx.index : lps ? s.nlps : s.nmps;
    cx.mps = static_cast<uint8_t>(cx.mps ^ (lps & s.swap));  // an LPS always renormalises
    cx.to(state);
    a_ = a2;
    if (shift > ct_) {
      renormalise();
    } else {
      a_ <<= shift;
      c_ <<= shift;
      ct_ -= shift;
    }
    return d;
  }

 private:
  // RENORMD (C.3.3): A and C shift left until A is 0x8000 or more, a byte in whenever CT runs
  // out; the shifts counted at once rather than one at a time (A is above 0).
  void renormalise() {
    int shift = __builtin_clz(a_) - 16;
    while (shift > ct_) {
      a_ <<= ct_;
      c_ <<= ct_;
      shift -= ct_;
      byte_in();
    }
    a_ <<= shift;
    c_ <<= shift;
    ct_ -= shift;
  }

  // Byte k after B; positions are indices, so that reading past the end (or an empty
  // codeword with no buffer) forms no pointer outside the data.
  uint8_t byte(size_t k) const { return pos_ + k < size_ ? data_[pos_ + k] : 0xFF; }

  // BYTEIN (C.3.4): after 0xFF a byte carries 7 bits; 0xFF followed by more than 0x8F is a
  // marker (or the end), where the decoder feeds itself 1 bits and stays.
  void byte_in() {
    if (byte(0) == 0xFF) {
      if (byte(1) > 0x8F) {
        c_ += 0xFF00;
        ct_ = 8;
      } else {
        ++pos_;
        c_ += static_cast<uint32_t>(byte(0)) << 9;
        ct_ = 7;
      }
    } else {
      ++pos_;
      c_ += static_cast<uint32_t>(byte(0)) << 8;
      ct_ = 8;
    }
  }

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;  // B: the byte last read in
  uint32_t a_ = 0, c_ = 0;
  int ct_ = 0;
};

}  // namespace j2k::codec
