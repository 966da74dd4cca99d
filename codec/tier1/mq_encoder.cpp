#include "codec/tier1/mq_encoder.hpp"

namespace j2k::codec {
namespace {

// Table C.2: Qe, the next index after an MPS and after an LPS, and whether an LPS switches
// the MPS sense.
struct QeState {
  uint16_t qe;
  uint8_t nmps, nlps, swap;
};
constexpr QeState kStates[47] = {
    {0x5601, 1, 1, 1},   {0x3401, 2, 6, 0},   {0x1801, 3, 9, 0},   {0x0AC1, 4, 12, 0},  {0x0521, 5, 29, 0},
    {0x0221, 38, 33, 0}, {0x5601, 7, 6, 1},   {0x5401, 8, 14, 0},  {0x4801, 9, 14, 0},  {0x3801, 10, 14, 0},
    {0x3001, 11, 17, 0}, {0x2401, 12, 18, 0}, {0x1C01, 13, 20, 0}, {0x1601, 29, 21, 0}, {0x5601, 15, 14, 1},
    {0x5401, 16, 14, 0}, {0x5101, 17, 15, 0}, {0x4801, 18, 16, 0}, {0x3801, 19, 17, 0}, {0x3401, 20, 18, 0},
    {0x3001, 21, 19, 0}, {0x2801, 22, 19, 0}, {0x2401, 23, 20, 0}, {0x2201, 24, 21, 0}, {0x1C01, 25, 22, 0},
    {0x1801, 26, 23, 0}, {0x1601, 27, 24, 0}, {0x1401, 28, 25, 0}, {0x1201, 29, 26, 0}, {0x1101, 30, 27, 0},
    {0x0AC1, 31, 28, 0}, {0x09C1, 32, 29, 0}, {0x08A1, 33, 30, 0}, {0x0521, 34, 31, 0}, {0x0441, 35, 32, 0},
    {0x02A1, 36, 33, 0}, {0x0221, 37, 34, 0}, {0x0141, 38, 35, 0}, {0x0111, 39, 36, 0}, {0x0085, 40, 37, 0},
    {0x0049, 41, 38, 0}, {0x0025, 42, 39, 0}, {0x0015, 43, 40, 0}, {0x0009, 44, 41, 0}, {0x0005, 45, 42, 0},
    {0x0001, 45, 43, 0}, {0x5601, 46, 46, 0},
};

}  // namespace

MqEncoder::MqEncoder() : buf_(1, 0) {}

void MqEncoder::restart() {
  a_ = 0x8000;
  c_ = 0;
  ct_ = 12;
  buf_.assign(1, 0);
  pos_ = 0;
  end_ = 1;
}

void MqEncoder::encode(MqContext& cx, int d) {
  const QeState& s = kStates[cx.index];
  a_ -= s.qe;
  if (d == cx.mps) {  // CODEMPS (C.2.6)
    if ((a_ & 0x8000) != 0) {
      c_ += s.qe;
      return;
    }
    if (a_ < s.qe) a_ = s.qe;
    else c_ += s.qe;
    cx.index = s.nmps;
  } else {  // CODELPS (C.2.5)
    if (a_ < s.qe) c_ += s.qe;
    else a_ = s.qe;
    if (s.swap) cx.mps = static_cast<uint8_t>(1 - cx.mps);
    cx.index = s.nlps;
  }
  renormalise();
}

// RENORME (C.2.7).
void MqEncoder::renormalise() {
  do {
    a_ <<= 1;
    c_ <<= 1;
    if (--ct_ == 0) byte_out();
  } while ((a_ & 0x8000) == 0);
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
