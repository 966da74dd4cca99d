// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/ebcot/mq_encoder.hpp"

namespace j2k::codec {

MqEncoder::MqEncoder() : buf_(256, 0) { r_.bp = buf_.data(); }

void MqEncoder::restart() {
  r_ = MqRegisters{};
  buf_[0] = 0;
  r_.bp = buf_.data();
  end_ = 1;
}

void MqEncoder::flush() {
  reserve(1);
  // SETBITS: as many 1 bits as the interval allows, so that the decoder's reads past the end
  // (it reads 0xFF) stay inside it.
  const uint32_t top = r_.c + r_.a;
  r_.c |= 0xFFFF;
  if (r_.c >= top) r_.c -= 0x8000;
  r_.c <<= r_.ct;
  mq_byte_out(r_);
  r_.c <<= r_.ct;
  mq_byte_out(r_);
  const size_t pos = static_cast<size_t>(r_.bp - buf_.data());
  end_ = *r_.bp == 0xFF ? pos : pos + 1;
}

void MqEncoder::flush_predictable() {
  reserve(2);
  // Byte-outs until the 12 bits above bit 15 of C have left it, with zeros below them: any
  // continuation a decoder reads (1s) stays inside the interval, whose width A is at least
  // 0x8000, and the decoder can predict what it reads past the last symbol. A final 0xFF is
  // dropped, as a decoder reads 1s past the end anyway.
  int k = 11 - r_.ct + 1;
  while (k > 0) {
    r_.c <<= r_.ct;
    r_.ct = 0;
    mq_byte_out(r_);
    k -= r_.ct;
  }
  const size_t pos = static_cast<size_t>(r_.bp - buf_.data());
  end_ = *r_.bp == 0xFF ? pos : pos + 1;
}

}  // namespace j2k::codec
