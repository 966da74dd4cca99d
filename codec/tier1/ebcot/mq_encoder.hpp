// SPDX-License-Identifier: BSD-2-Clause
// The MQ arithmetic encoder of ISO/IEC 15444-1 Annex C (C.2): binary decisions coded in
// adaptive contexts, into a byte buffer with the standard's bit stuffing after 0xFF. What a
// code-block's coding passes drive (Annex D); the same coder as JBIG2's (ITU-T T.88 Annex E),
// whose test sequence (H.2) checks it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "codec/tier1/ebcot/host_device.hpp"

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

// Table C.2 on the CPU: the constants themselves. The GPU's coder (encode_passes.hpp) reads a
// device-memory copy through a struct of its own with the same qe_state().
struct HostQeStates {
  static const QeState& qe_state(int index) { return kStates[index]; }
};

}  // namespace mq_detail

// The coder's registers (C.2): the interval A, the code register C, the count CT of shifts
// before the next byte-out, and B, the last byte put (or the one before the codeword). A
// coding pass copies them into a local and back, so that they stay in CPU registers while it
// codes: as members they would be reloaded after every byte stored anywhere.
struct MqRegisters {
  uint32_t a = 0x8000, c = 0;
  int ct = 12;
  uint8_t* bp = nullptr;
};

// BYTEOUT (C.2.8): a byte after 0xFF carries 7 bits (bit stuffing), so that no two bytes of
// the codeword read as a marker (0xFF90 and above). The buffer after B must have room.
J2K_T1_HD inline void mq_byte_out(MqRegisters& r) {
  if (*r.bp != 0xFF && (r.c & 0x8000000) != 0) {  // the carry
    ++*r.bp;
    if (*r.bp == 0xFF) r.c &= 0x7FFFFFF;
  }
  if (*r.bp == 0xFF) {
    *++r.bp = static_cast<uint8_t>(r.c >> 20);
    r.c &= 0xFFFFF;
    r.ct = 7;
  } else {
    *++r.bp = static_cast<uint8_t>(r.c >> 19);
    r.c &= 0x7FFFF;
    r.ct = 8;
  }
}

// Codes decision `d` (0 or 1) in context `cx` (ENCODE: CODEMPS or CODELPS), Table C.2 read
// through `States` (mq_detail::HostQeStates on the CPU). At most 3 bytes are put (15 shifts, a
// byte-out at most every 7).
// (nvcc: the CPU's instantiation, on HostQeStates, is a host function's; its device side is
// never called, so no check that it calls host code.)
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class States>
J2K_T1_HD J2K_T1_INLINE void mq_encode_in(MqRegisters& r, MqContext& cx, int d) {
  const mq_detail::QeState& s = States::qe_state(cx.index);
  const uint32_t qe = s.qe;
  r.a -= qe;
  if (d == cx.mps) {  // CODEMPS (C.2.6)
    if ((r.a & 0x8000) != 0) {
      r.c += qe;
      return;
    }
    if (r.a < qe) r.a = qe;
    else r.c += qe;
    cx.index = s.nmps;
  } else {  // CODELPS (C.2.5)
    if (r.a < qe) r.c += qe;
    else r.a = qe;
    if (s.swap) cx.mps = static_cast<uint8_t>(1 - cx.mps);
    cx.index = s.nlps;
  }
  // RENORME (C.2.7): the shifts that bring A to 0x8000 or above, all at once where no
  // byte-out falls among them.
#if defined(__CUDA_ARCH__)
  int shifts = __clz(static_cast<int>(r.a)) - 16;
#else
  int shifts = __builtin_clz(r.a) - 16;
#endif
  while (shifts >= r.ct) {
    r.a <<= r.ct;
    r.c <<= r.ct;
    shifts -= r.ct;
    mq_byte_out(r);
  }
  r.a <<= shifts;
  r.c <<= shifts;
  r.ct -= shifts;
}

// The CPU's: mq_encode_in on the constants of Table C.2.
inline void mq_encode(MqRegisters& r, MqContext& cx, int d) { mq_encode_in<mq_detail::HostQeStates>(r, cx, d); }

class MqEncoder {
 public:
  // An encoder at the start of an empty buffer (INITENC).
  MqEncoder();

  // Codes decision `d` (0 or 1) in context `cx`.
  void encode(MqContext& cx, int d) {
    reserve(1);
    mq_encode(r_, cx, d);
  }

  // Makes room for `decisions` more decisions (and a termination) after B; a pass that
  // codes through registers() reserves first.
  void reserve(size_t decisions) {
    const size_t pos = static_cast<size_t>(r_.bp - buf_.data());
    if (buf_.size() - pos < 3 * decisions + 8) {
      buf_.resize(pos + 3 * decisions + 8 + buf_.size());
      r_.bp = buf_.data() + pos;
    }
  }
  // The registers, for a pass to code with mq_encode in a local copy and hand back.
  const MqRegisters& registers() const { return r_; }
  void set_registers(const MqRegisters& r) { r_ = r; }

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
  State state() const { return {static_cast<size_t>(r_.bp - buf_.data()), *r_.bp, r_.ct, r_.c, r_.a}; }

  // The codeword: complete after flush().
  const uint8_t* data() const { return buf_.data() + 1; }
  size_t size() const { return end_ - 1; }

 private:
  // buf_[0] is the byte before the codeword (C.2.8: BP = BPST - 1), a zero that is not
  // output; B is at r_.bp; the bytes after it are room.
  std::vector<uint8_t> buf_;
  MqRegisters r_;
  size_t end_ = 1;
};

}  // namespace j2k::codec
