// The MQ arithmetic decoder of ISO/IEC 15444-1 Annex C (C.3): the decisions an MQ encoder
// (mq_encoder.hpp) coded, read back in the same adaptive contexts. A code-block's decoding
// passes drive it; the tests also use it to read what the encoder wrote. Bytes past the end of
// the codeword read as 0xFF (C.3.4): a terminated codeword may leave its last bytes out.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/mq_encoder.hpp"

namespace j2k::codec {

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
  int decode(MqContext& cx) {
    const mq_detail::QeState& s = mq_detail::kStates[cx.index];
    const uint32_t qe = s.qe;
    a_ -= qe;
    int d;
    if ((c_ >> 16) < qe) {  // the lower sub-interval: LPS_EXCHANGE (C.3.2, Figure C.17)
      if (a_ < qe) {
        d = cx.mps;
        cx.index = s.nmps;
      } else {
        d = 1 - cx.mps;
        if (s.swap) cx.mps = static_cast<uint8_t>(1 - cx.mps);
        cx.index = s.nlps;
      }
      a_ = qe;
    } else {
      c_ -= qe << 16;
      if (a_ & 0x8000) return cx.mps;  // no renormalisation
      // MPS_EXCHANGE (Figure C.16)
      if (a_ < qe) {
        d = 1 - cx.mps;
        if (s.swap) cx.mps = static_cast<uint8_t>(1 - cx.mps);
        cx.index = s.nlps;
      } else {
        d = cx.mps;
        cx.index = s.nmps;
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
