#include "codec/tier1/mq_encoder.hpp"

namespace j2k::codec {

MqEncoder::MqEncoder() : buf_(1, 0) {}

void MqEncoder::restart() {
  a_ = 0x8000;
  c_ = 0;
  ct_ = 12;
  buf_.assign(1, 0);
  pos_ = 0;
  end_ = 1;
}

// BYTEOUT (C.2.8): a byte after 0xFF carries 7 bits (bit stuffing), so that no two bytes of
// the codeword read as a marker (0xFF90 and above).
void MqEncoder::byte_out() {
  auto put = [&](int shift) {
    buf_.push_back(static_cast<uint8_t>(c_ >> shift));
    ++pos_;
    c_ &= (1u << shift) - 1;
    ct_ = shift == 20 ? 7 : 8;
  };
  if (buf_[pos_] == 0xFF) {
    put(20);
  } else if ((c_ & 0x8000000) == 0) {
    put(19);
  } else {
    ++buf_[pos_];  // the carry
    if (buf_[pos_] == 0xFF) {
      c_ &= 0x7FFFFFF;
      put(20);
    } else {
      put(19);
    }
  }
  end_ = pos_ + 1;
}

void MqEncoder::flush() {
  // SETBITS: as many 1 bits as the interval allows, so that the decoder's reads past the end
  // (it reads 0xFF) stay inside it.
  const uint32_t top = c_ + a_;
  c_ |= 0xFFFF;
  if (c_ >= top) c_ -= 0x8000;
  c_ <<= ct_;
  byte_out();
  c_ <<= ct_;
  byte_out();
  end_ = buf_[pos_] == 0xFF ? pos_ : pos_ + 1;
}

void MqEncoder::flush_predictable() {
  // Byte-outs until the 12 bits above bit 15 of C have left it, with zeros below them: any
  // continuation a decoder reads (1s) stays inside the interval, whose width A is at least
  // 0x8000, and the decoder can predict what it reads past the last symbol. A final 0xFF is
  // dropped, as a decoder reads 1s past the end anyway.
  int k = 11 - ct_ + 1;
  while (k > 0) {
    c_ <<= ct_;
    ct_ = 0;
    byte_out();
    k -= ct_;
  }
  end_ = buf_[pos_] == 0xFF ? pos_ : pos_ + 1;
}

}  // namespace j2k::codec
