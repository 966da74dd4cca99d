// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/ht/refinement_rows.hpp"

#include <algorithm>
#include <cmath>

#include "codec/tier1/ht/avx2_build.hpp"

#if J2K_HT_HAVE_AVX2
#include <immintrin.h>
#endif

namespace j2k::codec::ht {
namespace {

// The bits of v at the set bits of `mask`, packed from bit 0 in their order (BMI2's pext).
inline uint64_t pick_bits(uint64_t v, uint64_t mask) {
  uint64_t out = 0;
  for (uint64_t to = 1; mask != 0; mask &= mask - 1, to <<= 1)
    if ((v & mask & (0 - mask)) != 0) out |= to;
  return out;
}

// A row's masks (RowMasks) from its w samples: significant from `shift` up, bit `bit_shift`,
// the sign.
inline void row_masks(const int32_t* row, int w, int shift, int bit_shift, uint64_t& s, uint64_t& n, uint64_t& g) {
  s = n = g = 0;
  for (int x = 0; x < w; ++x) {
    const uint32_t m = magnitude_of(row[x]);
    s |= static_cast<uint64_t>((m >> shift) != 0) << x;
    n |= static_cast<uint64_t>((m >> bit_shift) & 1) << x;
    g |= static_cast<uint64_t>(sign_of(row[x])) << x;
  }
}

#if J2K_HT_HAVE_AVX2
J2K_HT_AVX2 inline uint64_t pick_bmi2(uint64_t v, uint64_t mask) { return _pext_u64(v, mask); }

// row_masks, 8 samples a vector: each mask's 8 bits from the lanes' sign bits.
J2K_HT_AVX2 inline void row_masks_avx2(const int32_t* row, int w, int shift, int bit_shift, uint64_t& s, uint64_t& n, uint64_t& g) {
  s = n = g = 0;
  const __m128i by = _mm_cvtsi32_si128(shift), to_bit = _mm_cvtsi32_si128(31 - bit_shift);
  const __m256i zero = _mm256_setzero_si256();
  int x = 0;
  for (; x + 8 <= w; x += 8) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + x));
    const __m256i m = _mm256_abs_epi32(v);  // 2^31 stays 0x80000000, as magnitude_of has it
    const __m256i insignificant = _mm256_cmpeq_epi32(_mm256_srl_epi32(m, by), zero);
    s |= static_cast<uint64_t>(~_mm256_movemask_ps(_mm256_castsi256_ps(insignificant)) & 0xFF) << x;
    n |= static_cast<uint64_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_sll_epi32(m, to_bit)))) << x;
    g |= static_cast<uint64_t>(_mm256_movemask_ps(_mm256_castsi256_ps(v))) << x;
  }
  if (x < w) {
    uint64_t ts, tn, tg;
    row_masks(row + x, w - x, shift, bit_shift, ts, tn, tg);
    s |= ts << x, n |= tn << x, g |= tg << x;
  }
}
#endif

// Bit i of the low 16 bits of v to bit 4 i.
inline uint64_t spread(uint64_t v) {
  v &= 0xFFFF;
  v = (v | (v << 24)) & 0x000000FF000000FFull;
  v = (v | (v << 12)) & 0x000F000F000F000Full;
  v = (v | (v << 6)) & 0x0303030303030303ull;
  v = (v | (v << 3)) & 0x1111111111111111ull;
  return v;
}

// Sixteen columns from x0 of a stripe's rows, in the passes' order: bit 4 (x - x0) + j is
// row j's column x.
inline uint64_t columns(const uint64_t (&rows)[4], int x0) {
  return spread(rows[0] >> x0) | spread(rows[1] >> x0) << 1 | spread(rows[2] >> x0) << 2 | spread(rows[3] >> x0) << 3;
}

#if J2K_HT_HAVE_AVX2
// columns by BMI2's pdep: the low 16 bits of each row to every 4th bit from bit j.
J2K_HT_AVX2 inline uint64_t columns_bmi2(const uint64_t (&rows)[4], int x0) {
  constexpr uint64_t kEvery4th = 0x1111111111111111ull;
  return _pdep_u64(rows[0] >> x0, kEvery4th) | _pdep_u64(rows[1] >> x0, kEvery4th << 1) | _pdep_u64(rows[2] >> x0, kEvery4th << 2) |
         _pdep_u64(rows[3] >> x0, kEvery4th << 3);
}
#endif

// A row's columns and their neighbours left and right.
inline uint64_t around(uint64_t v) { return v | v << 1 | v >> 1; }

inline int count(uint64_t v) { return __builtin_popcountll(v); }

// encode_refinement_rows, portable or with AVX2 and BMI2 (the masks 8 samples at a time, the
// bits picked by pext).
template <bool kAvx2>
Refinement refinement_rows(const IndexBlock& b, int plane, bool reversible, bool causal, bool estimate, RowMasks& masks,
                           uint8_t* sigprop_out, uint8_t* magref_out) {
  const int w = b.width, h = b.height, p = plane - 1;
  const uint64_t full = w >= 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
  // The masks: significant after the cleanup pass (an index of plane + 1 bits or more), the
  // index's bit p, the sign.
  masks.significant.resize(static_cast<size_t>(h));
  masks.bit.resize(static_cast<size_t>(h));
  masks.negative.resize(static_cast<size_t>(h));
  const int shift = b.fraction_bits + plane, bit_shift = shift - 1;  // at most 31: a sample is significant at plane
  for (int y = 0; y < h; ++y) {
    const int32_t* row = b.data + static_cast<ptrdiff_t>(y) * b.stride;
    const auto k = static_cast<size_t>(y);
#if J2K_HT_HAVE_AVX2
    if (kAvx2) {
      row_masks_avx2(row, w, shift, bit_shift, masks.significant[k], masks.bit[k], masks.negative[k]);
      continue;
    }
#endif
    row_masks(row, w, shift, bit_shift, masks.significant[k], masks.bit[k], masks.negative[k]);
  }
  auto columns_of = [](const uint64_t(&rows)[4], int x0) {
#if J2K_HT_HAVE_AVX2
    if (kAvx2) return columns_bmi2(rows, x0);
#endif
    return columns(rows, x0);
  };
  auto pick = [](uint64_t v, uint64_t mask) {
#if J2K_HT_HAVE_AVX2
    if (kAvx2) return pick_bmi2(v, mask);
#endif
    return pick_bits(v, mask);
  };

  Refinement r;
  ForwardWriter sigprop(sigprop_out);
  BackwardWriter magref(magref_out, BackwardWriter::kMagRef);
  // SigProp's distortion in units of 2^-(2 fraction bits + 2), where a magnitude a is 2 m and
  // the reconstruction `one` (reconstruction(1, p)) is 2 (the 5/3 at 0) or 3 times 2^(p + f):
  // a^2 - (a - one)^2 = one (2 a - one).
  const int64_t one = reversible && p == 0 ? int64_t{2} << b.fraction_bits : int64_t{3} << (b.fraction_bits + p);
  int64_t removed = 0;
  uint64_t above = 0;  // the row above the stripe as SigProp left it
  for (int y0 = 0; y0 < h; y0 += 4) {
    const int rows = std::min(4, h - y0);
    uint64_t sig[4] = {0, 0, 0, 0}, bit[4] = {0, 0, 0, 0}, neg[4] = {0, 0, 0, 0}, may[4] = {0, 0, 0, 0};
    for (int j = 0; j < rows; ++j) {
      const auto y = static_cast<size_t>(y0 + j);
      sig[j] = masks.significant[y], bit[j] = masks.bit[y], neg[j] = masks.negative[y];
      may[j] = ~sig[j] & bit[j];  // made significant if visited
    }
    // What makes a sample visited whatever SigProp does in this stripe: a neighbour
    // significant after the cleanup, or above the stripe as SigProp left it; the stripe below
    // not yet visited (unseen in the stripe-causal mode).
    const uint64_t below = !causal && y0 + 4 < h ? masks.significant[static_cast<size_t>(y0 + 4)] : 0;
    uint64_t fixed[4] = {0, 0, 0, 0};
    for (int j = 0; j < rows; ++j) {
      const uint64_t up = j == 0 ? above : sig[j - 1];
      const uint64_t down = j + 1 < rows ? sig[j + 1] : (j == 3 ? below : 0);
      fixed[j] = (around(up) | sig[j] << 1 | sig[j] >> 1 | around(down)) & full;
    }
    // The samples SigProp makes significant: those it may that have a significant neighbour
    // visited before them (above in the column, or in the column to the left), the least
    // such set, grown until it holds; along a row, each run of samples it may make
    // significant fills to the right from its first (a carry through the run).
    uint64_t made[4] = {0, 0, 0, 0};
    auto reached = [&](int j) {
      const uint64_t up = j > 0 ? made[j - 1] : 0;
      const uint64_t left = (up | made[j] | (j + 1 < rows ? made[j + 1] : 0)) << 1;
      return fixed[j] | up | left;
    };
    for (bool grew = true; grew;) {
      grew = false;
      for (int j = 0; j < rows; ++j) {
        uint64_t v = may[j] & reached(j);
        v |= may[j] & ((may[j] + v) ^ may[j]);
        if (v != made[j]) made[j] = v, grew = true;
      }
    }
    uint64_t visited[4] = {0, 0, 0, 0};
    for (int j = 0; j < rows; ++j) visited[j] = ~sig[j] & full & reached(j);
    // Each group of 4 columns: its visited samples' bits, then its new samples' signs.
    for (int x0 = 0; x0 < w; x0 += 16) {
      const uint64_t v = columns_of(visited, x0);
      if (v == 0) continue;
      const uint64_t bits = columns_of(bit, x0), signs = columns_of(neg, x0), fresh = columns_of(made, x0);
      for (int g = 0; g < 64; g += 16) {
        const uint64_t group = (v >> g) & 0xFFFF;
        if (group == 0) continue;
        sigprop.put(static_cast<uint32_t>(pick(bits >> g, group)), count(group));
        const uint64_t set = (fresh >> g) & 0xFFFF;
        if (set != 0) sigprop.put(static_cast<uint32_t>(pick(signs >> g, set)), count(set));
      }
    }
    if (estimate)
      for (int j = 0; j < rows; ++j)
        for (uint64_t left = made[j]; left != 0; left &= left - 1) {
          const int x = __builtin_ctzll(left);
          const auto a = static_cast<int64_t>(2 * static_cast<uint64_t>(magnitude_of(b.at(x, y0 + j))));
          removed += one * (2 * a - one);
        }
    above = sig[rows - 1] | made[rows - 1];
    // MagRef: every sample significant after the cleanup, its bit p, column by column.
    for (int x0 = 0; x0 < w; x0 += 16) {
      const uint64_t s = columns_of(sig, x0);
      if (s == 0) continue;
      const uint64_t v = pick(columns_of(bit, x0), s);
      const int n = count(s);
      if (n > 32) {
        magref.put(static_cast<uint32_t>(v), 32);
        magref.put(static_cast<uint32_t>(v >> 32), n - 32);
      } else {
        magref.put(static_cast<uint32_t>(v), n);
      }
    }
  }
  r.sigprop_bytes = sigprop.finish_sigprop();
  r.magref_bytes = magref.finish_magref();
  if (estimate) r.sigprop_removed = static_cast<double>(removed) / std::ldexp(1.0, 2 + 2 * b.fraction_bits);
  return r;
}

#if J2K_HT_HAVE_AVX2
J2K_HT_AVX2 __attribute__((flatten)) Refinement refinement_rows_avx2(const IndexBlock& b, int plane, bool reversible, bool causal,
                                                                     bool estimate, RowMasks& masks, uint8_t* sigprop_out,
                                                                     uint8_t* magref_out) {
  return refinement_rows<true>(b, plane, reversible, causal, estimate, masks, sigprop_out, magref_out);
}
#endif

}  // namespace

Refinement encode_refinement_rows(const IndexBlock& b, int plane, bool reversible, bool causal, bool estimate, RowMasks& masks,
                                  uint8_t* sigprop_out, uint8_t* magref_out, bool avx2) {
#if J2K_HT_HAVE_AVX2
  if (avx2) return refinement_rows_avx2(b, plane, reversible, causal, estimate, masks, sigprop_out, magref_out);
#endif
  (void)avx2;
  return refinement_rows<false>(b, plane, reversible, causal, estimate, masks, sigprop_out, magref_out);
}

}  // namespace j2k::codec::ht
