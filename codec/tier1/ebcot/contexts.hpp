// SPDX-License-Identifier: BSD-2-Clause
// What the Tier-1 encoder and decoder share (ISO/IEC 15444-1 D.3): the 19 contexts and their
// initial states and Table D.1 of zero coding; their flags and the tables read through them
// (Table D.1 by window, Tables D.2 and D.3) are in stripe_flags.hpp.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/ebcot/mq_decoder.hpp"
#include "codec/tier1/ebcot/mq_encoder.hpp"
#include "j2kfront/j2kfront.h"

namespace j2k::codec::t1 {

// The 19 contexts: 0..8 significance (zero coding), 9..13 sign, 14..16 refinement, 17 the
// run-length context, 18 the uniform one.
constexpr int kSignBase = 9, kRefineBase = 14, kRunLength = 17, kUniform = 18, kContexts = 19;

// The three coding passes of a bit plane (D.3), in their order.
enum class PassKind { Significance, Refinement, Cleanup };

// Table D.7: the state each context starts from (and returns to under RESET): index 0, MPS
// 0, except zero-coding context 0 (index 4), run-length (3) and uniform (46).
J2K_T1_HD constexpr int initial_state(int k) { return k == 0 ? 4 : k == kRunLength ? 3 : k == kUniform ? 46 : 0; }
inline void reset_contexts(MqContext* cx) {
  for (int k = 0; k < kContexts; ++k) cx[k] = MqContext{static_cast<uint8_t>(initial_state(k)), 0};
}
// The decoder's words of those states, as scalar constants (which CUDA device code may read).
inline constexpr uint32_t kFirstWord = MqDecoderContext::pack(0, 0), kZeroWord = MqDecoderContext::pack(initial_state(0), 0),
                          kRunWord = MqDecoderContext::pack(initial_state(kRunLength), 0),
                          kUniformWord = MqDecoderContext::pack(initial_state(kUniform), 0);
J2K_T1_HD inline void reset_contexts(MqDecoderContext* cx) {
  for (int k = 0; k < kContexts; ++k)
    cx[k].word = k == 0 ? kZeroWord : k == kRunLength ? kRunWord : k == kUniform ? kUniformWord : kFirstWord;
}

// The 8 neighbours of a sample, as bits of a mask of those that are significant.
enum : uint16_t { kNw = 1, kN = 2, kNe = 4, kW = 8, kE = 16, kSw = 32, kS = 64, kSe = 128 };

// Table D.1 for each band kind and each set of significant neighbours (the mask above).
struct ZeroContexts {
  uint8_t ll_lh[256], hl[256], hh[256];
  constexpr ZeroContexts() : ll_lh(), hl(), hh() {
    for (int m = 0; m < 256; ++m) {
      const int h = !!(m & kW) + !!(m & kE), v = !!(m & kN) + !!(m & kS);
      const int d = !!(m & kNw) + !!(m & kNe) + !!(m & kSw) + !!(m & kSe);
      ll_lh[m] = context(h, v, d);
      hl[m] = context(v, h, d);  // HL: the vertical neighbours lead
      const int hv = h + v;
      hh[m] = static_cast<uint8_t>(d >= 3   ? 8
                                   : d == 2 ? (hv >= 1 ? 7 : 6)
                                   : d == 1 ? (hv >= 2 ? 5 : hv == 1 ? 4 : 3)
                                            : (hv >= 2 ? 2 : hv == 1 ? 1 : 0));
    }
  }
  static constexpr uint8_t context(int h, int v, int d) {
    return static_cast<uint8_t>(h == 2   ? 8
                                : h == 1 ? (v >= 1 ? 7 : d >= 1 ? 6 : 5)
                                : v == 2 ? 4
                                : v == 1 ? 3
                                         : (d >= 2 ? 2 : d == 1 ? 1 : 0));
  }
  const uint8_t* of(j2k_band_type band) const { return band == J2K_BAND_HH ? hh : band == J2K_BAND_HL ? hl : ll_lh; }
};
inline constexpr ZeroContexts kZeroContexts;

}  // namespace j2k::codec::t1
