// What the Tier-1 encoder and decoder share (ISO/IEC 15444-1 D.3): the 19 contexts and their
// initial states, the per-coefficient flags that their context choices read, and the tables
// of zero coding (Table D.1) and sign coding (Tables D.2, D.3).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "codec/tier1/mq_decoder.hpp"
#include "codec/tier1/mq_encoder.hpp"
#include "j2kfront/j2kfront.h"

namespace j2k::codec::t1 {

// The 19 contexts: 0..8 significance (zero coding), 9..13 sign, 14..16 refinement, 17 the
// run-length context, 18 the uniform one.
constexpr int kSignBase = 9, kRefineBase = 14, kRunLength = 17, kUniform = 18, kContexts = 19;

// The three coding passes of a bit plane (D.3), in their order.
enum class PassKind { Significance, Refinement, Cleanup };

// Table D.7: the state each context starts from (and returns to under RESET): index 0, MPS
// 0, except zero-coding context 0 (index 4), run-length (3) and uniform (46).
constexpr int initial_state(int k) { return k == 0 ? 4 : k == kRunLength ? 3 : k == kUniform ? 46 : 0; }
inline void reset_contexts(MqContext* cx) {
  for (int k = 0; k < kContexts; ++k) cx[k] = MqContext{static_cast<uint8_t>(initial_state(k)), 0};
}
inline void reset_contexts(MqDecoderContext* cx) {
  for (int k = 0; k < kContexts; ++k) cx[k] = MqDecoderContext(initial_state(k));
}

// Per coefficient flags, with a border of one all round so that neighbours need no checks.
// The low 8 bits say which of the 8 neighbours are significant, kept up to date as they
// become so, so that a context is a table lookup rather than 8 reads.
enum : uint16_t {
  kNw = 1, kN = 2, kNe = 4, kW = 8, kE = 16, kSw = 32, kS = 64, kSe = 128,
  kNeighbours = 0xFF, kBelow = kSw | kS | kSe,
  kSig = 256, kVisited = 512, kRefined = 1024, kNegative = 2048,
};

// Table D.1 for each band kind and each set of significant neighbours.
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

// A neighbour's sign contribution (Table D.2): 0 insignificant, 1 positive, -1 negative.
inline int contribution(uint16_t f) { return (f & kSig) == 0 ? 0 : (f & kNegative) ? -1 : 1; }

// Table D.3 from the contributions of the west and east (w, e) and north and south (n, s)
// neighbours: the context, and the bit XORed with the sign.
struct SignContext {
  int context, flip;
};
inline SignContext sign_context(int w, int e, int n, int s) {
  const int h = std::clamp(w + e, -1, 1), v = std::clamp(n + s, -1, 1);
  if (h == 0) return {kSignBase + (v == 0 ? 0 : 1), v < 0 ? 1 : 0};
  return {kSignBase + (v == 0 ? 3 : v == h ? 4 : 2), h < 0 ? 1 : 0};
}

// A block's flags, rows `pitch` apart with the border of one, and what the coding passes of
// both coders ask of them.
struct FlagGrid {
  uint16_t* f = nullptr;
  int w = 0, h = 0;
  size_t pitch = 0;
  bool causal = false;  // VSC (D.7)

  size_t at(int x, int y) const { return static_cast<size_t>(y + 1) * pitch + static_cast<size_t>(x) + 1; }

  // The significant neighbours of the coefficient at f[i], row y; VSC: the row below a
  // stripe counts as insignificant for its last row.
  int neighbours(size_t i, int y) const {
    int m = f[i] & kNeighbours;
    if (causal && (y & 3) == 3) m &= ~kBelow;
    return m;
  }

  // Table D.3's context and XOR bit for the sign of the coefficient at f[i], row y.
  SignContext sign(size_t i, int y) const {
    const bool below_hidden = causal && (y & 3) == 3;
    return sign_context(contribution(f[i - 1]), contribution(f[i + 1]), contribution(f[i - pitch]),
                        below_hidden ? 0 : contribution(f[i + pitch]));
  }

  // The coefficient at f[i] is significant: its flag, and the neighbour bits of the 8 around it.
  void mark_significant(size_t i, bool negative) {
    f[i] |= static_cast<uint16_t>(kSig | (negative ? kNegative : 0));
    f[i - pitch - 1] |= kSe;
    f[i - pitch] |= kS;
    f[i - pitch + 1] |= kSw;
    f[i - 1] |= kE;
    f[i + 1] |= kW;
    f[i + pitch - 1] |= kNe;
    f[i + pitch] |= kN;
    f[i + pitch + 1] |= kNw;
  }

  // visit(i, y) for every coefficient in the stripe order (D.3: stripes of four rows, column
  // by column), skipping the stripe columns where no flag has a bit of `wanted`.
  template <class Visit>
  void scan(uint16_t wanted, Visit&& visit) const {
    for (int y0 = 0; y0 < h; y0 += 4) {
      const int y1 = std::min(y0 + 4, h);
      for (int x = 0; x < w; ++x) {
        const size_t top = at(x, y0);
        uint16_t any = 0;
        for (int k = 0; k < y1 - y0; ++k) any |= f[top + static_cast<size_t>(k) * pitch];
        if ((any & wanted) == 0) continue;
        size_t i = top;
        for (int y = y0; y < y1; ++y, i += pitch) visit(i, y);
      }
    }
  }

  // Whether the full stripe column from f[top] (row y0) is run-length coded (D.3.4): none
  // significant or visited, none with a significant neighbour.
  bool run_length_column(size_t top, int y0) const {
    const uint16_t any = f[top] | f[top + pitch] | f[top + 2 * pitch];
    return ((any & (kSig | kVisited | kNeighbours)) | (f[top + 3 * pitch] & (kSig | kVisited)) |
            neighbours(top + 3 * pitch, y0 + 3)) == 0;
  }
};

}  // namespace j2k::codec::t1
