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

class MqEncoder {
 public:
  // An encoder at the start of an empty buffer (INITENC).
  MqEncoder();

  // Codes decision `d` (0 or 1) in context `cx` (ENCODE: CODEMPS or CODELPS).
  void encode(MqContext& cx, int d);

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
  void renormalise();
  void byte_out();

  uint32_t a_ = 0x8000, c_ = 0;
  int ct_ = 12;
  // buf_[pos_] is the standard's byte B. buf_[0] is the byte before the codeword (C.2.8:
  // BP = BPST - 1), a zero that is not output.
  std::vector<uint8_t> buf_;
  size_t pos_ = 0, end_ = 1;
};

}  // namespace j2k::codec
