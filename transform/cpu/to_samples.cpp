// SPDX-License-Identifier: BSD-2-Clause
#include "transform/cpu/to_samples.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define J2K_TO_SAMPLES_AVX2 1  // an AVX2 build of the rows, chosen at run time (job_rows_fastest)
#include <immintrin.h>
#else
#define J2K_TO_SAMPLES_AVX2 0
#endif

#include "common/error.hpp"
#include "transform/common/constants.hpp"
#include "transform/common/int_wrap.hpp"
#include "common/parallel/parallel_for.hpp"

namespace j2k::cpu {
namespace {

template <class T>
T* row_of(const Plane& p, int64_t y) {
  return reinterpret_cast<T*>(static_cast<char*>(p.base) + p.offset + y * p.row_stride);
}

// A coefficient plus the DC offset, clamped to [lo, hi]. A float is rounded first; one
// beyond int32 (or NaN) clamps to the end it lies towards, as OpenJPEG's decoder does.
inline int32_t sample(int32_t v, int32_t offset, int32_t lo, int32_t hi) {
  return static_cast<int32_t>(std::clamp<int64_t>(int64_t{v} + offset, lo, hi));
}
// The same for an int32 coefficient, in int32 so that a row's loop vectorises: the coefficient
// clamped to [lo, hi] less the offset (both within int32: an unsigned component's lo is 0 and
// its offset at most 2^30, a signed one's offset 0), then offset.
struct IntRange {
  int32_t lo, hi, offset;
  IntRange(int32_t offset_, int32_t lo_, int32_t hi_)
      : lo(static_cast<int32_t>(std::max<int64_t>(int64_t{lo_} - offset_, INT32_MIN))),
        hi(static_cast<int32_t>(std::min<int64_t>(int64_t{hi_} - offset_, INT32_MAX))),
        offset(offset_) {}
  int32_t operator()(int32_t v) const { return std::clamp(v, lo, hi) + offset; }
};
inline int32_t sample(float f, int32_t offset, int32_t lo, int32_t hi) {
  if (!(f <= static_cast<float>(INT_MAX))) return hi;
  if (f < static_cast<float>(INT_MIN)) return lo;
  return static_cast<int32_t>(std::clamp<int64_t>(static_cast<int64_t>(std::lrintf(f)) + offset, lo, hi));
}
// sample(float), in a few instructions where the range's ends less the offset are floats
// exactly (`exact`: within 2^24), else through sample(): the float clamped to them first (NaN
// to the top end, as there), then rounded by the CPU's conversion, which rounds as lrintf does (both by the
// current rounding mode, to nearest with ties to even unless changed). Rounding first and
// clamping after, as sample() does, gives the same, the ends being whole numbers. lrintf is a
// call into libm for every sample (19% of a 2048^2 RGB `-r 20` decode on one thread).
struct FloatRange {
  float lo = 0, hi = 0;
  int32_t offset = 0, lo_int = 0, hi_int = 0;
  bool exact = false;
  FloatRange(int32_t offset_, int32_t lo_, int32_t hi_) : offset(offset_), lo_int(lo_), hi_int(hi_) {
    const int64_t l = int64_t{lo_} - offset_, h = int64_t{hi_} - offset_;
    constexpr int64_t kExact = int64_t{1} << 24;
    exact = l >= -kExact && h <= kExact;
    lo = static_cast<float>(l), hi = static_cast<float>(h);
  }
  int32_t operator()(float f) const {
#if defined(__SSE2__)
    if (exact) {
      __m128 v = _mm_min_ss(_mm_set_ss(f), _mm_set_ss(hi));  // the second operand where f is NaN
      v = _mm_max_ss(v, _mm_set_ss(lo));
      return _mm_cvtss_si32(v) + offset;
    }
#endif
    return sample(f, offset, lo_int, hi_int);
  }
#if defined(__SSE2__)
  // The same on four floats, into d[0..3], where `exact`.
  template <class S>
  void store4(__m128 f, S* d) const {
    f = _mm_max_ps(_mm_min_ps(f, _mm_set1_ps(hi)), _mm_set1_ps(lo));
    const __m128i s = _mm_add_epi32(_mm_cvtps_epi32(f), _mm_set1_epi32(offset));
    if constexpr (std::is_same_v<S, uint8_t>) {
      if (lo_int >= 0 && hi_int <= 255) {  // the packs then saturate nothing
        const int32_t four = _mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(s, s), _mm_setzero_si128()));
        std::memcpy(d, &four, 4);
        return;
      }
    }
    alignas(16) int32_t v[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(v), s);
    for (int k = 0; k < 4; ++k) d[k] = static_cast<S>(v[k]);
  }
#endif
};

// The inverse RCT (G.2) and ICT (G.3) of one pixel, written out here rather than shared with
// component_transform's plane-wide rct_inverse / ict_inverse: those stay an independent oracle
// for every backend's to_samples (tests/back_stage_test.cpp).
inline void inverse_mct(int32_t y, int32_t u, int32_t v, int32_t& r, int32_t& g, int32_t& b) {
  g = wrap_sub(y, wrap_add(u, v) >> 2);  // sums wrap (int_wrap.hpp)
  r = wrap_add(v, g);
  b = wrap_add(u, g);
}
inline void inverse_mct(float y, float u, float v, float& r, float& g, float& b) {
  using namespace constants;
  r = y + kIctRV * v;
  g = y - kIctGU * u - kIctGV * v;
  b = y + kIctBU * u;
}

// Sample x of row y of p, at p's type (components 0..2 of an MCT tile of differing precision).
void store(const Plane& p, int64_t y, int64_t x, int32_t v) {
  switch (p.type) {
    case J2K_SAMPLE_U8: row_of<uint8_t>(p, y)[x] = static_cast<uint8_t>(v); break;
    case J2K_SAMPLE_I8: row_of<int8_t>(p, y)[x] = static_cast<int8_t>(v); break;
    case J2K_SAMPLE_U16: row_of<uint16_t>(p, y)[x] = static_cast<uint16_t>(v); break;
    case J2K_SAMPLE_I16: row_of<int16_t>(p, y)[x] = static_cast<int16_t>(v); break;
    case J2K_SAMPLE_U32: row_of<uint32_t>(p, y)[x] = static_cast<uint32_t>(v); break;
    default: row_of<int32_t>(p, y)[x] = v; break;
  }
}

template <class T>
void row_mct_mixed(const std::vector<Plane>& in, const TileOutput& out, int64_t y) {
  const T *c0 = row_of<const T>(in[0], y), *c1 = row_of<const T>(in[1], y), *c2 = row_of<const T>(in[2], y);
  for (int64_t x = 0; x < out.out[0].width; ++x) {
    T r, g, b;
    inverse_mct(c0[x], c1[x], c2[x], r, g, b);
    store(out.out[0], y, x, sample(r, out.offset[0], out.lo[0], out.hi[0]));
    store(out.out[1], y, x, sample(g, out.offset[1], out.lo[1], out.hi[1]));
    store(out.out[2], y, x, sample(b, out.offset[2], out.lo[2], out.hi[2]));
  }
}

// One row of the inverse RCT into samples. The coefficients and the samples never share
// memory (the back stage's buffers and the caller's), as __restrict says: without it GCC needs
// more run-time alias checks than it makes (12 for 8-bit samples) and leaves the loop scalar.
template <class S>
void rct_row(const int32_t* __restrict c0, const int32_t* __restrict c1, const int32_t* __restrict c2, S* __restrict d0,
             S* __restrict d1, S* __restrict d2, int64_t w, const IntRange& r0, const IntRange& r1, const IntRange& r2) {
  for (int64_t x = 0; x < w; ++x) {
    int32_t r, g, b;
    inverse_mct(c0[x], c1[x], c2[x], r, g, b);
    d0[x] = static_cast<S>(r0(r));
    d1[x] = static_cast<S>(r1(g));
    d2[x] = static_cast<S>(r2(b));
  }
}

#if J2K_TO_SAMPLES_AVX2
// ict_row's four-pixel loop on eight pixels (AVX2): inverse_mct(float)'s operations in its
// order, then FloatRange::store4's clamp (NaN to the top end), the CPU's rounding conversion and
// the offset (8- and 16-bit unsigned samples narrowed by a pack, which saturates nothing
// within their range). Returns the pixels done, a multiple of 8. For AVX2 builds only
// (job_rows_avx2).
template <class S>
__attribute__((target("avx2"))) inline void store8(const FloatRange& r, __m256 f, S* d) {
  f = _mm256_max_ps(_mm256_min_ps(f, _mm256_set1_ps(r.hi)), _mm256_set1_ps(r.lo));
  const __m256i s = _mm256_add_epi32(_mm256_cvtps_epi32(f), _mm256_set1_epi32(r.offset));
  if constexpr (std::is_same_v<S, uint8_t>) {
    if (r.lo_int >= 0 && r.hi_int <= 255) {  // the packs then saturate nothing
      const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(d), _mm_packus_epi16(words, words));
      return;
    }
  }
  if constexpr (std::is_same_v<S, uint16_t>) {
    if (r.lo_int >= 0 && r.hi_int <= 65535) {  // the pack then saturates nothing
      const __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d), words);
      return;
    }
  }
  alignas(32) int32_t v[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(v), s);
  for (int k = 0; k < 8; ++k) d[k] = static_cast<S>(v[k]);
}
template <class S>
__attribute__((target("avx2"))) int64_t ict_pixels_avx2(const float* c0, const float* c1, const float* c2, S* d0, S* d1,
                                                        S* d2, int64_t w, const FloatRange& f0, const FloatRange& f1,
                                                        const FloatRange& f2) {
  using namespace constants;
  int64_t x = 0;
  for (; x + 8 <= w; x += 8) {
    const __m256 y = _mm256_loadu_ps(c0 + x), u = _mm256_loadu_ps(c1 + x), v = _mm256_loadu_ps(c2 + x);
    store8(f0, _mm256_add_ps(y, _mm256_mul_ps(_mm256_set1_ps(kIctRV), v)), d0 + x);
    store8(f1, _mm256_sub_ps(_mm256_sub_ps(y, _mm256_mul_ps(_mm256_set1_ps(kIctGU), u)), _mm256_mul_ps(_mm256_set1_ps(kIctGV), v)),
           d1 + x);
    store8(f2, _mm256_add_ps(y, _mm256_mul_ps(_mm256_set1_ps(kIctBU), u)), d2 + x);
  }
  return x;
}
// A row without the ICT, eight samples at a time (where `r` is exact). Returns the samples
// done, a multiple of 8.
template <class S>
__attribute__((target("avx2"))) int64_t float_samples_avx2(const float* src, S* dst, int64_t w, const FloatRange& r) {
  int64_t x = 0;
  for (; x + 8 <= w; x += 8) store8(r, _mm256_loadu_ps(src + x), dst + x);
  return x;
}
#endif

// One row of the inverse ICT into samples, four pixels at a time where FloatRange is exact for
// each component (eight in the AVX2 build, kAvx2).
template <class S, bool kAvx2>
void ict_row(const float* c0, const float* c1, const float* c2, S* d0, S* d1, S* d2, int64_t w, const FloatRange& f0,
             const FloatRange& f1, const FloatRange& f2) {
  int64_t x = 0;
#if J2K_TO_SAMPLES_AVX2
  if constexpr (kAvx2)
    if (f0.exact && f1.exact && f2.exact) x = ict_pixels_avx2(c0, c1, c2, d0, d1, d2, w, f0, f1, f2);
#endif
#if defined(__SSE2__)
  // inverse_mct(float)'s operations in its order, on four pixels.
  using namespace constants;
  for (; f0.exact && f1.exact && f2.exact && x + 4 <= w; x += 4) {
    const __m128 y = _mm_loadu_ps(c0 + x), u = _mm_loadu_ps(c1 + x), v = _mm_loadu_ps(c2 + x);
    f0.store4(_mm_add_ps(y, _mm_mul_ps(_mm_set1_ps(kIctRV), v)), d0 + x);
    f1.store4(_mm_sub_ps(_mm_sub_ps(y, _mm_mul_ps(_mm_set1_ps(kIctGU), u)), _mm_mul_ps(_mm_set1_ps(kIctGV), v)), d1 + x);
    f2.store4(_mm_add_ps(y, _mm_mul_ps(_mm_set1_ps(kIctBU), u)), d2 + x);
  }
#endif
  for (; x < w; ++x) {
    float r, g, b;
    inverse_mct(c0[x], c1[x], c2[x], r, g, b);
    d0[x] = static_cast<S>(f0(r));
    d1[x] = static_cast<S>(f1(g));
    d2[x] = static_cast<S>(f2(b));
  }
}

// Row y of component c (or, with mct, of components 0..2 together) into its samples.
template <class T, class S, bool kAvx2>
void row(const std::vector<Plane>& in, const TileOutput& out, size_t c, bool mct, int64_t y) {
  const int64_t w = out.out[c].width;
  if (!mct) {
    const T* src = row_of<const T>(in[c], y);
    S* dst = row_of<S>(out.out[c], y);
    if constexpr (std::is_same_v<T, int32_t>) {
      const IntRange range(out.offset[c], out.lo[c], out.hi[c]);
      for (int64_t x = 0; x < w; ++x) dst[x] = static_cast<S>(range(src[x]));
    } else {
      const FloatRange range(out.offset[c], out.lo[c], out.hi[c]);
      int64_t x = 0;
#if J2K_TO_SAMPLES_AVX2
      if constexpr (kAvx2)
        if (range.exact) x = float_samples_avx2(src, dst, w, range);
#endif
#if defined(__SSE2__)
      for (; range.exact && x + 4 <= w; x += 4) range.store4(_mm_loadu_ps(src + x), dst + x);
#endif
      for (; x < w; ++x) dst[x] = static_cast<S>(range(src[x]));
    }
    return;
  }
  const T *c0 = row_of<const T>(in[0], y), *c1 = row_of<const T>(in[1], y), *c2 = row_of<const T>(in[2], y);
  S *d0 = row_of<S>(out.out[0], y), *d1 = row_of<S>(out.out[1], y), *d2 = row_of<S>(out.out[2], y);
  if constexpr (std::is_same_v<T, int32_t>) {
    const IntRange r0(out.offset[0], out.lo[0], out.hi[0]), r1(out.offset[1], out.lo[1], out.hi[1]),
        r2(out.offset[2], out.lo[2], out.hi[2]);
    rct_row(c0, c1, c2, d0, d1, d2, w, r0, r1, r2);
  } else {
    const FloatRange f0(out.offset[0], out.lo[0], out.hi[0]), f1(out.offset[1], out.lo[1], out.hi[1]),
        f2(out.offset[2], out.lo[2], out.hi[2]);
    ict_row<S, kAvx2>(c0, c1, c2, d0, d1, d2, w, f0, f1, f2);
  }
}

template <class T, bool kAvx2>
void row_as(const std::vector<Plane>& in, const TileOutput& out, size_t c, bool mct, int64_t y) {
  if (mct && (out.out[1].type != out.out[0].type || out.out[2].type != out.out[0].type))
    return row_mct_mixed<T>(in, out, y);
  switch (out.out[c].type) {
    case J2K_SAMPLE_U8: return row<T, uint8_t, kAvx2>(in, out, c, mct, y);
    case J2K_SAMPLE_I8: return row<T, int8_t, kAvx2>(in, out, c, mct, y);
    case J2K_SAMPLE_U16: return row<T, uint16_t, kAvx2>(in, out, c, mct, y);
    case J2K_SAMPLE_I16: return row<T, int16_t, kAvx2>(in, out, c, mct, y);
    case J2K_SAMPLE_U32: return row<T, uint32_t, kAvx2>(in, out, c, mct, y);
    default: return row<T, int32_t, kAvx2>(in, out, c, mct, y);
  }
}

// Rows [y0, y1) of a job: component c (with `mct`, components 0..2).
template <bool kAvx2>
void job_rows(const std::vector<Plane>& in, const TileOutput& out, size_t c, bool mct, int64_t y0, int64_t y1) {
  for (int64_t y = y0; y < y1; ++y) {
    if (in[c].type == J2K_SAMPLE_F32) row_as<float, kAvx2>(in, out, c, mct, y);
    else row_as<int32_t, kAvx2>(in, out, c, mct, y);
  }
}

// The same compiled again for AVX2 (flatten: the row loops inlined into it), chosen at run
// time on a CPU that has it: twice the lanes of the SSE2 baseline for the RCT, the clamps and
// the narrowing stores. The same operations on each value (no FMA: -ffp-contract=off, and no
// "fma" target), so the same samples, bit for bit.
#if J2K_TO_SAMPLES_AVX2
__attribute__((target("avx2"), flatten)) void job_rows_avx2(const std::vector<Plane>& in, const TileOutput& out, size_t c,
                                                            bool mct, int64_t y0, int64_t y1) {
  job_rows<true>(in, out, c, mct, y0, y1);
}
void job_rows_fastest(const std::vector<Plane>& in, const TileOutput& out, size_t c, bool mct, int64_t y0, int64_t y1) {
  static const bool has_avx2 = __builtin_cpu_supports("avx2");
  if (has_avx2) job_rows_avx2(in, out, c, mct, y0, y1);
  else job_rows<false>(in, out, c, mct, y0, y1);
}
#else
void job_rows_fastest(const std::vector<Plane>& in, const TileOutput& out, size_t c, bool mct, int64_t y0, int64_t y1) {
  job_rows<false>(in, out, c, mct, y0, y1);
}
#endif

}  // namespace

void to_samples(const std::vector<Plane>& in, const TileOutput& out, int threads) {
  const size_t n = out.out.size();
  const bool mct = check_to_samples(in, out);
  // Jobs: (component, first row) in chunks of rows; components 0..2 as one with the MCT.
  constexpr int64_t kRows = 16;
  struct Job {
    size_t c;
    int64_t y0;
  };
  std::vector<Job> jobs;
  size_t bytes = 0;
  auto add = [&](size_t c, size_t planes) {
    for (int64_t y = 0; y < out.out[c].height; y += kRows) jobs.push_back({c, y});
    bytes += static_cast<size_t>(out.out[c].width * out.out[c].height) * 4 * planes;
  };
  if (mct) add(0, 3);
  for (size_t c = mct ? 3 : 0; c < n; ++c) add(c, 1);
  parallel_for(static_cast<ptrdiff_t>(jobs.size()), copy_threads(bytes, threads), [&](ptrdiff_t j) {
    const Job& job = jobs[static_cast<size_t>(j)];
    job_rows_fastest(in, out, job.c, mct && job.c == 0, job.y0, std::min(out.out[job.c].height, job.y0 + kRows));
  });
}

}  // namespace j2k::cpu
