// SPDX-License-Identifier: BSD-2-Clause
// row_interleave.hpp's sweep: a portable build (a value at a time) and an AVX2 one (8 pairs a
// run, then the portable code for the pairs at the ends, where the mirroring is).
#include "transform/cpu/row_interleave.hpp"

#include <algorithm>

#include "transform/cpu/lifting.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define J2K_ROW_INTERLEAVE_AVX2 1
#include <immintrin.h>
#else
#define J2K_ROW_INTERLEAVE_AVX2 0
#endif

namespace j2k::cpu {
namespace {

// The last step's operation on one value, as lifting.hpp's inverse53 and inverse97_lifts end.
constexpr UnPredict53 kLast53{};
constexpr Lift97 kLast97{-kAlpha};

// The pairs outside [begin, end) (the low and the high sample of index k, for k in neither
// half's part of the range), a value at a time; the whole row where begin == end.
template <class T, class Op>
void pairs_outside(const T* L, ptrdiff_t sn, const T* H, ptrdiff_t dn, int cas, T* out, Op op, ptrdiff_t begin,
                   ptrdiff_t end) {
  const ptrdiff_t last = sn - 1;
  auto at = [last](ptrdiff_t k) { return std::min(std::max(k, ptrdiff_t{0}), last); };
  auto high = [&](ptrdiff_t i) { out[2 * i + 1 - cas] = op(H[i], L[at(i - cas)], L[at(i + 1 - cas)]); };
  for (ptrdiff_t i = 0; i < std::min(begin, dn); ++i) high(i);
  for (ptrdiff_t i = std::max(end, ptrdiff_t{0}); i < dn; ++i) high(i);
  for (ptrdiff_t j = 0; j < std::min(begin, sn); ++j) out[2 * j + cas] = L[j];
  for (ptrdiff_t j = std::max(end, ptrdiff_t{0}); j < sn; ++j) out[2 * j + cas] = L[j];
}

#if J2K_ROW_INTERLEAVE_AVX2
// The pairs k in [kCas, end) whose high sample's neighbours L[k - kCas], L[k + 1 - kCas] are
// both inside L, 8 at a time: `lift` gives the 8 high values from H and those two runs of L.
// Low k sits at 2k + kCas and high k at 2k + 1 - kCas: the pair starts at out + 2k in either
// order (low first where kCas is 0). Returns the end of the pairs done.
template <int kCas, class T, class Lift>
__attribute__((target("avx2"))) ptrdiff_t pairs_by_8(const T* L, ptrdiff_t sn, const T* H, ptrdiff_t dn, T* out, Lift lift) {
  const ptrdiff_t limit = std::min(dn, sn - 1 + kCas);  // k + 1 - kCas <= sn - 1, and k < sn
  ptrdiff_t k = kCas;
  for (; k + 8 <= limit; k += 8) {
    const __m256i left = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(L + k - kCas));
    const __m256i right = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(L + k + 1 - kCas));
    const __m256i high = lift(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(H + k)), left, right);
    const __m256i first = kCas == 0 ? left : high, second = kCas == 0 ? high : right;  // L[k] is left or right
    // Per 128-bit half: pairs 0, 1 (unpacklo) and 2, 3 (unpackhi) of that half's 4 values.
    const __m256i lo = _mm256_unpacklo_epi32(first, second), hi = _mm256_unpackhi_epi32(first, second);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * k), _mm256_permute2x128_si256(lo, hi, 0x20));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * k + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
  }
  return k;
}
template <class T, class Lift>
__attribute__((target("avx2"))) ptrdiff_t pairs_by_8(const T* L, ptrdiff_t sn, const T* H, ptrdiff_t dn, int cas, T* out,
                                                     Lift lift) {
  return cas == 0 ? pairs_by_8<0>(L, sn, H, dn, out, lift) : pairs_by_8<1>(L, sn, H, dn, out, lift);
}

// The steps on 8 lanes, each as the scalar operation does it.
struct UnPredict53x8 {
  __attribute__((target("avx2"))) __m256i operator()(__m256i d, __m256i a, __m256i b) const {
    return _mm256_add_epi32(d, _mm256_srai_epi32(_mm256_add_epi32(a, b), 1));  // wrapping, as wrap_add
  }
};
struct Lift97x8 {
  float c;
  __attribute__((target("avx2"))) __m256i operator()(__m256i x, __m256i a, __m256i b) const {
    __m256 t = _mm256_add_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b));
    t = _mm256_mul_ps(t, _mm256_set1_ps(c));
    return _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(x), t));
  }
};
#endif

}  // namespace

namespace portable {
void lift_last_interleaved(const int32_t* L, ptrdiff_t sn, const int32_t* H, ptrdiff_t dn, int cas, int32_t* out) {
  pairs_outside(L, sn, H, dn, cas, out, kLast53, 0, 0);
}
void lift_last_interleaved(const float* L, ptrdiff_t sn, const float* H, ptrdiff_t dn, int cas, float* out) {
  pairs_outside(L, sn, H, dn, cas, out, kLast97, 0, 0);
}
}  // namespace portable

#if J2K_ROW_INTERLEAVE_AVX2
bool row_interleave_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
namespace avx2 {
__attribute__((target("avx2"))) void lift_last_interleaved(const int32_t* L, ptrdiff_t sn, const int32_t* H, ptrdiff_t dn,
                                                           int cas, int32_t* out) {
  const ptrdiff_t end = pairs_by_8(L, sn, H, dn, cas, out, UnPredict53x8{});
  pairs_outside(L, sn, H, dn, cas, out, kLast53, cas, end);
}
__attribute__((target("avx2"))) void lift_last_interleaved(const float* L, ptrdiff_t sn, const float* H, ptrdiff_t dn,
                                                           int cas, float* out) {
  // The floats' bits through the integer lanes: loads, unpacks and stores move them unchanged.
  const auto* l = reinterpret_cast<const int32_t*>(L);
  const auto* h = reinterpret_cast<const int32_t*>(H);
  auto* o = reinterpret_cast<int32_t*>(out);
  const ptrdiff_t end = pairs_by_8(l, sn, h, dn, cas, o, Lift97x8{kLast97.c});
  pairs_outside(L, sn, H, dn, cas, out, kLast97, cas, end);
}
}  // namespace avx2
#else
bool row_interleave_avx2() { return false; }
namespace avx2 {
void lift_last_interleaved(const int32_t* L, ptrdiff_t sn, const int32_t* H, ptrdiff_t dn, int cas, int32_t* out) {
  portable::lift_last_interleaved(L, sn, H, dn, cas, out);
}
void lift_last_interleaved(const float* L, ptrdiff_t sn, const float* H, ptrdiff_t dn, int cas, float* out) {
  portable::lift_last_interleaved(L, sn, H, dn, cas, out);
}
}  // namespace avx2
#endif

void lift_last_interleaved(const int32_t* L, ptrdiff_t sn, const int32_t* H, ptrdiff_t dn, int cas, int32_t* out) {
  if (row_interleave_avx2()) avx2::lift_last_interleaved(L, sn, H, dn, cas, out);
  else portable::lift_last_interleaved(L, sn, H, dn, cas, out);
}
void lift_last_interleaved(const float* L, ptrdiff_t sn, const float* H, ptrdiff_t dn, int cas, float* out) {
  if (row_interleave_avx2()) avx2::lift_last_interleaved(L, sn, H, dn, cas, out);
  else portable::lift_last_interleaved(L, sn, H, dn, cas, out);
}

}  // namespace j2k::cpu
