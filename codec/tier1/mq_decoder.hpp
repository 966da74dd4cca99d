// The MQ arithmetic decoder of ISO/IEC 15444-1 Annex C (C.3): the decisions an MQ encoder
// (mq_encoder.hpp) coded, read back in the same adaptive contexts. A code-block's decoding
// passes drive it; the tests also use it to read what the encoder wrote. Bytes past the end of
// the codeword read as 0xFF (C.3.4): a terminated codeword may leave its last bytes out.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/mq_encoder.hpp"

namespace j2k::codec {

// A decoding context: one of the 94 states that Table C.2's 47 make with the MPS of each, so
// that a decision reads and writes one byte and no "switch the MPS" step remains.
struct MqDecoderContext {
  uint8_t state = 0;  // 2 * index + mps
  MqDecoderContext() = default;
  explicit MqDecoderContext(const MqContext& cx) : state(static_cast<uint8_t>(2 * cx.index + cx.mps)) {}
};

namespace mq_detail {
struct DecoderState {
  uint16_t qe;
  uint8_t mps;
  uint8_t nmps, nlps;  // the next states after an MPS, after an LPS (with their MPS)
};
struct DecoderStates {
  DecoderState s[94];
  constexpr DecoderStates() : s() {
    for (int i = 0; i < 47; ++i)
      for (int m = 0; m < 2; ++m) {
        const QeState& q = kStates[i];
        s[2 * i + m] = DecoderState{q.qe, static_cast<uint8_t>(m), static_cast<uint8_t>(2 * q.nmps + m),
                                    static_cast<uint8_t>(2 * q.nlps + (q.swap ? 1 - m : m))};
      }
  }
};
inline constexpr DecoderStates kDecoderStates;
}  // namespace mq_detail

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
    const mq_detail::DecoderState& s = mq_detail::kDecoderStates.s[cx.state];
    const uint32_t qe = s.qe;
    a_ -= qe;
    int d;
    if ((c_ >> 16) < qe) {  // the lower sub-interval: LPS_EXCHANGE (C.3.2, Figure C.17)
      if (a_ < qe) {
        d = s.mps;
        cx.state = s.nmps;
      } else {
        d = 1 - s.mps;
        cx.state = s.nlps;
      }
      a_ = qe;
    } else {
      c_ -= qe << 16;
      if (a_ & 0x8000) return s.mps;  // no renormalisation
      // MPS_EXCHANGE (Figure C.16)
      if (a_ < qe) {
        d = 1 - s.mps;
        cx.state = s.nlps;
      } else {
        d = s.mps;
        cx.state = s.nmps;
      }
    }
    // RENORMD (C.3.3)
    do {
      if (ct_ == 0) byte_in();
      a_ <<= 1;
      c_ <<= 1;
      --ct_;
    } while ((a_ & 0x8000) == 0);
    return d;
  }

 private:
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
