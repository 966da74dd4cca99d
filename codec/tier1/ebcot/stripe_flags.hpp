// SPDX-License-Identifier: BSD-2-Clause
// The Tier-1 coders' flags: one 32-bit word per column of a stripe (D.3: four rows), which
// holds everything a coding pass asks about that column and its neighbours. A pass reads one
// word per column and skips most columns on one test, where flags per sample cost four reads
// and eight writes per new significant sample (the layout of Taubman and Marcellin's book,
// 17.1.2, and of OpenJPEG's decoder).
//
//   bits  0..17  significance of the 6 x 3 samples around the column: row r (0 the row above
//                the stripe, 1..4 the stripe's own, 5 the row below) and column j (0 west, 1
//                the column, 2 east) at bit 3r + j, so that row i of the stripe finds its 3 x 3
//                neighbourhood at bits 3i .. 3i + 8, itself at 3i + 4;
//   bits 18..23  the sign (1: negative) of the column's own samples in rows r = 0..5;
//   bits 24..27  row i was visited by this bit plane's significance pass;
//   bits 28..31  row i has been refined before.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

// The CPU's refinement masks in SSE2 on x86-64 (every x86-64 CPU has it), plain C++ elsewhere.
#if defined(__SSE2__) && defined(__x86_64__) && !defined(__CUDA_ARCH__)
#define J2K_T1_SSE2 1
#include <emmintrin.h>
#endif

#include "codec/tier1/ebcot/contexts.hpp"
#include "codec/tier1/ebcot/host_device.hpp"
#include "j2kfront/j2kfront.h"

namespace j2k::codec::t1 {

J2K_T1_HD constexpr uint32_t sig_bit(int r, int j) { return 1u << (3 * r + j); }
J2K_T1_HD constexpr uint32_t own_sig(int i) { return sig_bit(i + 1, 1); }
J2K_T1_HD constexpr uint32_t own_sign(int r) { return 1u << (18 + r); }
J2K_T1_HD constexpr uint32_t visited(int i) { return 1u << (24 + i); }
J2K_T1_HD constexpr uint32_t refined(int i) { return 1u << (28 + i); }

constexpr uint32_t kSigAround = 0x3FFFF;                        // bits 0..17
constexpr uint32_t kOwnSig = own_sig(0) | own_sig(1) | own_sig(2) | own_sig(3);
constexpr uint32_t kVisitedAll = 0xFu << 24;
constexpr uint32_t kWindow = 0x1FF;                             // a row's 3 x 3 neighbourhood
constexpr uint32_t kCentre = 0x10;                              // the row's own sample in it
constexpr uint32_t kWindowAbove = 0x3F;                         // less the row below (VSC)
constexpr uint32_t kRowBelow = sig_bit(5, 0) | sig_bit(5, 1) | sig_bit(5, 2);

// Table D.1 indexed by a row's 9-bit window (the centre bit ignored), for each band kind.
struct WindowZeroContexts {
  uint8_t ll_lh[512], hl[512], hh[512];
  constexpr WindowZeroContexts() : ll_lh(), hl(), hh() {
    for (int b = 0; b < 512; ++b) {
      const int m = ((b & 1) ? kNw : 0) | ((b & 2) ? kN : 0) | ((b & 4) ? kNe : 0) | ((b & 8) ? kW : 0) |
                    ((b & 32) ? kE : 0) | ((b & 64) ? kSw : 0) | ((b & 128) ? kS : 0) | ((b & 256) ? kSe : 0);
      ll_lh[b] = kZeroContexts.ll_lh[m];
      hl[b] = kZeroContexts.hl[m];
      hh[b] = kZeroContexts.hh[m];
    }
  }
  const uint8_t* of(j2k_band_type band) const { return band == J2K_BAND_HH ? hh : band == J2K_BAND_HL ? hl : ll_lh; }
};
inline constexpr WindowZeroContexts kWindowZeroContexts;

// Table D.3 indexed by the four neighbours' significance and signs, laid out so that
// sign_index() gathers them in a few operations: the significance bits where a row's window
// has them (bit 1 north, 3 west, 5 east, 7 south), the signs (1: negative) in the even bits
// between (0 west, 2 north, 4 south, 6 east). A sign counts only where its neighbour is
// significant (with VSC the window leaves the south out). Each entry: the context in bits
// 0..4, the bit XORed with the decision in bit 7.
struct SignTable {
  uint8_t entry[256];
  constexpr SignTable() : entry() {
    for (int b = 0; b < 256; ++b) {
      const auto c = [b](int sig, int sign) { return (b >> sig & 1) == 0 ? 0 : (b >> sign & 1) ? -1 : 1; };
      const int h = clamp1(c(3, 0) + c(5, 6)), v = clamp1(c(1, 2) + c(7, 4));
      int context = 0, flip = 0;
      if (h == 0) {
        context = kSignBase + (v == 0 ? 0 : 1);
        flip = v < 0 ? 1 : 0;
      } else {
        context = kSignBase + (v == 0 ? 3 : v == h ? 4 : 2);
        flip = h < 0 ? 1 : 0;
      }
      entry[b] = static_cast<uint8_t>(context | flip << 7);
    }
  }
  static constexpr int clamp1(int v) { return v < -1 ? -1 : v > 1 ? 1 : v; }
};
inline constexpr SignTable kSignTable;

// fn(row) for the rows of a stripe column, each row a compile-time constant
// (std::integral_constant) so that its shifts and its edge cases fold away (a stripe has four
// rows but at the block's foot).
template <class Fn>
J2K_T1_HD inline void each_row(int rows, Fn&& fn) {
  fn(std::integral_constant<int, 0>{});
  if (rows > 1) fn(std::integral_constant<int, 1>{});
  if (rows > 2) fn(std::integral_constant<int, 2>{});
  if (rows > 3) fn(std::integral_constant<int, 3>{});
}

// Row I's index into kSignTable: from its window n in its column's word f (VSC applied) and
// the words of the columns west and east of it.
// The north and south signs are the column's own rows I and I + 2 (bits 18 + I, 20 + I of f),
// one shift apart from bits 2 and 4; the west and east ones row I + 1 of their words.
template <int I>
J2K_T1_HD inline unsigned sign_index(uint32_t n, uint32_t f, uint32_t west, uint32_t east) {
  return (n & 0xAA) | ((f >> (16 + I)) & 0x14) | ((west >> (19 + I)) & 1) | ((east >> (13 + I)) & 0x40);
}
// Its kSignTable entry.
template <int I>
inline unsigned sign_entry(uint32_t n, uint32_t f, uint32_t west, uint32_t east) {
  return kSignTable.entry[sign_index<I>(n, f, west, east)];
}

// Row I of the stripe column col[x] becomes significant, `negative` (0 or 1) its sign: its own
// bits in f (the caller's copy of col[x], which it stores back), and its significance in the
// words that see it: the two beside, and for the first or last row those of the stripe above
// or below, `pitch` words away.
template <int I>
J2K_T1_HD inline void mark_significant(uint32_t* col, int x, ptrdiff_t pitch, uint32_t& f, uint32_t negative) {
  f |= own_sig(I) | negative << (19 + I);
  col[x - 1] |= sig_bit(I + 1, 2);
  col[x + 1] |= sig_bit(I + 1, 0);
  if constexpr (I == 0) {
    uint32_t* up = col - pitch;
    up[x - 1] |= sig_bit(5, 2);
    up[x] |= sig_bit(5, 1) | negative << 23;
    up[x + 1] |= sig_bit(5, 0);
  } else if constexpr (I == 3) {
    uint32_t* down = col + pitch;
    down[x - 1] |= sig_bit(0, 2);
    down[x] |= sig_bit(0, 1) | negative << 18;
    down[x + 1] |= sig_bit(0, 0);
  }
}

#if !defined(__CUDA_ARCH__)
// The CPU's refinement pass (block_passes.hpp) finds its rows from these masks, sixteen
// columns at a time, rather than testing each row of each column as it goes: the tests of
// rows that do not refine were branches on data, mispredicted wherever significant and
// insignificant samples mix. (The significance and cleanup passes gained nothing from masks:
// their rows change as samples become significant; docs/maintainers/experiments.md, Tier-1 decoder.)

// The rows of the column word f that the refinement pass decides (D.3.3: significant, and
// not made so by this plane's significance pass), at bits 28 + row, where refined(row) is.
inline uint32_t refine_rows(uint32_t f) {
  const uint32_t own = ((f << 24) & refined(0)) | ((f << 22) & refined(1)) | ((f << 20) & refined(2)) | ((f << 18) & refined(3));
  return own & ~(f << 4);  // visited(i) << 4 is refined(i)
}

#if defined(J2K_T1_SSE2)
// refine_rows() of four words at once.
inline __m128i refine_rows(__m128i f) {
  const __m128i own = _mm_or_si128(
      _mm_or_si128(_mm_and_si128(_mm_slli_epi32(f, 24), _mm_set1_epi32(static_cast<int>(refined(0)))),
                   _mm_and_si128(_mm_slli_epi32(f, 22), _mm_set1_epi32(static_cast<int>(refined(1))))),
      _mm_or_si128(_mm_and_si128(_mm_slli_epi32(f, 20), _mm_set1_epi32(static_cast<int>(refined(2)))),
                   _mm_and_si128(_mm_slli_epi32(f, 18), _mm_set1_epi32(static_cast<int>(refined(3))))));
  return _mm_andnot_si128(_mm_slli_epi32(f, 4), own);
}

// Bits 28..31 of the sixteen 32-bit lanes of q0..q3 (sixteen columns, in order) as one mask,
// column k's at bits 4k .. 4k + 3.
inline uint64_t nibbles(__m128i q0, __m128i q1, __m128i q2, __m128i q3) {
  const __m128i lo = _mm_packs_epi32(_mm_srli_epi32(q0, 28), _mm_srli_epi32(q1, 28));
  const __m128i hi = _mm_packs_epi32(_mm_srli_epi32(q2, 28), _mm_srli_epi32(q3, 28));
  const __m128i bytes = _mm_packus_epi16(lo, hi);  // byte k: column k's nibble
  // Two columns a byte: byte 2j | byte 2j + 1 << 4, in the low byte of each 16-bit lane.
  const __m128i pairs = _mm_and_si128(_mm_or_si128(bytes, _mm_srli_epi16(bytes, 4)), _mm_set1_epi16(0xFF));
  return static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)));
}
#endif

// The refinement pass over `count` (1..16) stripe columns col[0..count), before its
// decisions: `todo` gets bit 4x + i for each row i of column x that it decides, `again` those
// of them refined before (context 2, Table D.4); and each such row is marked refined in its
// word now, for the planes below (the pass's own decisions do not read the mark).
inline void refine_masks(uint32_t* col, int count, uint64_t& todo, uint64_t& again) {
#if defined(J2K_T1_SSE2)
  if (count == 16) {
    __m128i rows[4], twice[4];
    for (int k = 0; k < 4; ++k) {
      __m128i* at = reinterpret_cast<__m128i*>(col + 4 * k);
      const __m128i f = _mm_loadu_si128(at);
      rows[k] = refine_rows(f);
      twice[k] = _mm_and_si128(rows[k], f);
      _mm_storeu_si128(at, _mm_or_si128(f, rows[k]));
    }
    todo = nibbles(rows[0], rows[1], rows[2], rows[3]);
    again = nibbles(twice[0], twice[1], twice[2], twice[3]);
    return;
  }
#endif
  todo = 0;
  again = 0;
  for (int x = 0; x < count; ++x) {
    const uint32_t f = col[x], rows = refine_rows(f);
    todo |= static_cast<uint64_t>(rows >> 28) << (4 * x);
    again |= static_cast<uint64_t>((rows & f) >> 28) << (4 * x);
    col[x] = f | rows;
  }
}
#endif

}  // namespace j2k::codec::t1
