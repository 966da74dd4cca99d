// The MQ arithmetic encoder of ISO/IEC 15444-1 Annex C (C.2): binary decisions coded in
// adaptive contexts, into a byte buffer with the standard's bit stuffing after 0xFF. What a
// code-block's coding passes drive (Annex D); the same coder as JBIG2's (ITU-T T.88 Annex E),
// whose test sequence (H.2) checks it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace j2k::codec {

// One adaptive context: its probability state (an index into Table C.2) and its more
// probable symbol.
struct MqContext {
  uint8_t index = 0;
  uint8_t mps = 0;
};

namespace mq_detail {
// Table C.2: Qe, the next index after an MPS and after an LPS, and whether an LPS switches
// the MPS sense.
struct QeState {
  uint16_t qe;
  uint8_t nmps, nlps, swap;
};
inline constexpr QeState kStates[47] = {
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

}  // namespace mq_detail

class MqEncoder {
 public:
  // An encoder at the start of an empty buffer (INITENC).
  MqEncoder();

  // Codes decision `d` (0 or 1) in context `cx` (ENCODE: CODEMPS or CODELPS). Inline: it
  // runs for every decision of Tier-1.
  void encode(MqContext& cx, int d) {
    const mq_detail::QeState& s = mq_detail::kStates[cx.index];
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
    // RENORME (C.2.7)
    do {
      a_ <<= 1;
      c_ <<= 1;
      if (--ct_ == 0) byte_out();
    } while ((a_ & 0x8000) == 0);
  }

  // Terminates the codeword (FLUSH, C.2.9): afterwards data() holds every byte a decoder
  // needs; a final 0xFF is left out, as the standard allows.
  void flush();

  // Terminates the codeword predictably (the ERTERM mode switch, D.4.2): the C register's
  // pending bits are pushed out with zeros below them, so that a decoder can check that it
  // consumed exactly the codeword (error resilience) at the cost of up to a byte.
  void flush_predictable();

  // Starts a new codeword in an empty buffer (INITENC), as after a terminated pass; the
  // contexts are the caller's and keep their states.
  void restart();

  // The coder's position in the codeword, for the truncation points of Tier-1: bytes output
  // so far (the last, B, may still take a carry), B's value, and the registers. The interval
  // the decisions so far leave is [C, C + A) below B, C's bit 27 - CT adding to B.
  struct State {
    size_t bytes;
    uint8_t b;
    int ct;
    uint32_t c, a;
  };
  State state() const { return {pos_, buf_[pos_], ct_, c_, a_}; }

  // The codeword: complete after flush().
  const uint8_t* data() const { return buf_.data() + 1; }
  size_t size() const { return end_ - 1; }

 private:
  void byte_out();

  uint32_t a_ = 0x8000, c_ = 0;
  int ct_ = 12;
  // buf_[pos_] is the standard's byte B. buf_[0] is the byte before the codeword (C.2.8:
  // BP = BPST - 1), a zero that is not output.
  std::vector<uint8_t> buf_;
  size_t pos_ = 0, end_ = 1;
};

}  // namespace j2k::codec
