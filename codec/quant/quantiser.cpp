// SPDX-License-Identifier: BSD-2-Clause
#include "codec/quant/quantiser.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "common/error.hpp"
#include "transform/common/constants.hpp"

namespace j2k::codec {
namespace {

// One level of 1-D synthesis in double precision on low (even) and high (odd) samples far
// from any signal end: the inverse of the forward lifting (OPENJPEG.md, Annex F) without its
// rounding.
std::vector<double> synthesise(bool reversible, const std::vector<double>& low, const std::vector<double>& high) {
  std::vector<double> x(low.size() + high.size(), 0.0);
  for (size_t i = 0; i < low.size(); ++i) x[2 * i] = low[i];
  for (size_t i = 0; i < high.size(); ++i) x[2 * i + 1] = high[i];
  const long n = static_cast<long>(x.size());
  auto at = [&](long i) { return i < 0 || i >= n ? 0.0 : x[static_cast<size_t>(i)]; };
  auto lift = [&](int parity, double c) {
    for (long i = parity; i < n; i += 2) x[static_cast<size_t>(i)] += c * (at(i - 1) + at(i + 1));
  };
  if (reversible) {
    lift(0, -0.25);  // x_even = s - (d_left + d_right) / 4
    lift(1, 0.5);    // x_odd = d + (x_left + x_right) / 2
    return x;
  }
  using namespace constants;
  for (long i = 0; i < n; ++i) x[static_cast<size_t>(i)] *= (i % 2 == 0) ? static_cast<double>(kK) : 1.0 / static_cast<double>(kK);
  lift(0, -static_cast<double>(kDelta));
  lift(1, -static_cast<double>(kGamma));
  lift(0, -static_cast<double>(kBeta));
  lift(1, -static_cast<double>(kAlpha));
  return x;
}

// The 1-D norm of a low (or high) basis function `level` levels deep (level >= 1), computed
// on a signal long enough that no end is reached; past kMeasured levels each level multiplies
// the norm by the low norm's limit ratio (the functions only dilate).
constexpr int kMeasured = 12;

// The norm at `level` (1..kMeasured), measured as far as asked and kept for the process: each
// level doubles the signal, so 5 levels take microseconds where 12 take tens of milliseconds.
double measured_norm(bool reversible, bool high, int level) {
  static std::mutex mutex;
  static std::vector<double> table[2][2];  // [reversible][high][level - 1]
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<double>& t = table[reversible ? 1 : 0][high ? 1 : 0];
  if (static_cast<int>(t.size()) < level) {
    t.clear();
    const size_t coarse = 64;  // samples at the impulse's level
    std::vector<double> low(coarse, 0.0), hi(coarse, 0.0);
    (high ? hi : low)[coarse / 2] = 1.0;
    std::vector<double> x = synthesise(reversible, low, hi);  // one level up
    for (int l = 1; l <= level; ++l) {
      if (l > 1) x = synthesise(reversible, x, std::vector<double>(x.size(), 0.0));
      double e = 0;
      for (double v : x) e += v * v;
      t.push_back(std::sqrt(e));
    }
  }
  return t[static_cast<size_t>(level - 1)];
}

double norm_1d(bool reversible, int level, bool high) {
  if (level <= kMeasured) return measured_norm(reversible, high, level);
  const double ratio = measured_norm(reversible, false, kMeasured) / measured_norm(reversible, false, kMeasured - 1);
  return measured_norm(reversible, high, kMeasured) * std::pow(ratio, level - kMeasured);
}

}  // namespace

double synthesis_norm(bool reversible, int level, j2k_band_type band) {
  if (level <= 0) return 1.0;  // no decomposition: the samples themselves
  const bool hx = band == J2K_BAND_HL || band == J2K_BAND_HH;
  const bool hy = band == J2K_BAND_LH || band == J2K_BAND_HH;
  return norm_1d(reversible, level, hx) * norm_1d(reversible, level, hy);
}

double mct_norm(bool reversible, int component) {
  using namespace constants;
  // Columns of the inverse transforms (G.2, G.3): R, G, B from Y, Cb (U), Cr (V).
  const double rct[3][3] = {{1, 1, 1}, {-0.25, -0.25, 0.75}, {0.75, -0.25, -0.25}};
  const double ict[3][3] = {{1, 1, 1}, {0, -static_cast<double>(kIctGU), static_cast<double>(kIctBU)},
                            {static_cast<double>(kIctRV), -static_cast<double>(kIctGV), 0}};
  const double(*m)[3] = reversible ? rct : ict;
  const double* c = m[component];
  return std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

int band_gain_log2(j2k_band_type band) { return band == J2K_BAND_LL ? 0 : band == J2K_BAND_HH ? 2 : 1; }

BandStep expounded_step(double wanted, int range_bits) {
  // delta = 2^e * (1 + mu / 2^11) with 2^e <= wanted < 2^(e+1); mu rounded down.
  const int e = static_cast<int>(std::floor(std::log2(wanted)));
  BandStep s;
  s.exponent = range_bits - e;
  s.mantissa = static_cast<int>(std::floor((wanted / std::ldexp(1.0, e) - 1.0) * 2048.0));
  if (s.mantissa > 2047) s.mantissa = 2047;
  if (s.mantissa < 0) s.mantissa = 0;
  if (s.exponent < 0 || s.exponent > 31)
    throw Error(ErrorCode::InvalidArgument, "a quantisation step of " + std::to_string(wanted) +
                                                " is outside what a codestream can carry for " +
                                                std::to_string(range_bits) + "-bit bands");
  s.delta = std::ldexp(1.0 + s.mantissa / 2048.0, range_bits - s.exponent);
  return s;
}

BandStep reversible_step(int range_bits) {
  BandStep s;
  s.exponent = range_bits;
  if (s.exponent > 31) throw Error(ErrorCode::InvalidArgument, "a band of more than 31 bits cannot be coded");
  return s;
}

namespace {

// quantise_block's arithmetic for one coefficient, the same IEEE operations in each build (one
// rounded multiplication, no contraction), so the same int32s. The conversion truncates, which
// for a magnitude is floor(); one of 2^31 steps or more, or not a number, is counted.
inline int32_t quantise_one(float in, double scale, int& outside) {
  const double v = static_cast<double>(in);
  const double m = std::fabs(v) * scale;
  const bool fits = m < 2147483648.0;
  outside += fits ? 0 : 1;
  const auto magnitude = static_cast<int32_t>(fits ? m : 0.0);
  return v < 0 ? -magnitude : magnitude;
}

// A block's rows lie a plane row apart, each on a page of its own, where the hardware
// prefetcher stops: each row loop asks for the row kRowsAhead below its own (without, the
// AVX2 loop waited on its loads most of its time). for_each_view (encoder.cpp) asks for a
// block's first rows while the block before it is coded.
constexpr int kRowsAhead = 8;
inline void prefetch_row(const float* row, int width) {
  for (int x = 0; x < width; x += 16) __builtin_prefetch(row + x);  // 16 floats a cache line
}

// Branch-free rows, the block refused after a row with a coefficient outside. The compiler
// does not vectorise the conversions for SSE2.
bool quantise_rows(const float* in, ptrdiff_t stride, int width, int height, double scale, int32_t* out) {
  for (int y = 0; y < height; ++y) {
    const float* __restrict row = in + y * stride;
    if (y + kRowsAhead < height) prefetch_row(row + kRowsAhead * stride, width);
    int32_t* __restrict q = out + static_cast<ptrdiff_t>(y) * width;
    int outside = 0;
    for (int x = 0; x < width; ++x) q[x] = quantise_one(row[x], scale, outside);
    if (outside != 0) return false;
  }
  return true;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// AVX2, 8 coefficients at a time: each widened to double, its magnitude multiplied and
// truncated (_mm256_cvttpd_epi32 gives INT32_MIN for 2^31 or more and for NaN, which no
// magnitude in range is: that counts it outside), then given the float's sign
// (_mm256_sign_epi32 by the float's bits: -0.0 and +0.0 give 0, as above). The compiler's
// vectorisation of quantise_one spent most of its instructions narrowing the comparison's
// masks. The last width % 8 as quantise_one.
__attribute__((target("avx2"))) bool quantise_rows_avx2(const float* in, ptrdiff_t stride, int width, int height,
                                                        double scale, int32_t* out) {
  const __m256d factor = _mm256_set1_pd(scale);
  const __m256d no_sign = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
  const __m256i invalid = _mm256_set1_epi32(INT32_MIN);
  const int whole = width & ~7;
  for (int y = 0; y < height; ++y) {
    const float* row = in + y * stride;
    if (y + kRowsAhead < height) prefetch_row(row + kRowsAhead * stride, width);
    int32_t* q = out + static_cast<ptrdiff_t>(y) * width;
    __m256i outside = _mm256_setzero_si256();
    for (int x = 0; x < whole; x += 8) {
      const __m256 v = _mm256_loadu_ps(row + x);
      const __m256d low = _mm256_and_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), no_sign);
      const __m256d high = _mm256_and_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), no_sign);
      const __m128i low_q = _mm256_cvttpd_epi32(_mm256_mul_pd(low, factor));
      const __m128i high_q = _mm256_cvttpd_epi32(_mm256_mul_pd(high, factor));
      const __m256i magnitude = _mm256_inserti128_si256(_mm256_castsi128_si256(low_q), high_q, 1);
      outside = _mm256_or_si256(outside, _mm256_cmpeq_epi32(magnitude, invalid));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + x), _mm256_sign_epi32(magnitude, _mm256_castps_si256(v)));
    }
    int tail_outside = 0;
    for (int x = whole; x < width; ++x) q[x] = quantise_one(row[x], scale, tail_outside);
    if (tail_outside != 0 || !_mm256_testz_si256(outside, outside)) return false;
  }
  return true;
}
bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

}  // namespace

bool quantise_block(const float* in, ptrdiff_t stride, int width, int height, double delta, int32_t* out) {
  const double scale = std::ldexp(1.0, kFractionBits) / delta;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (has_avx2()) return quantise_rows_avx2(in, stride, width, height, scale, out);
#endif
  return quantise_rows(in, stride, width, height, scale, out);
}

}  // namespace j2k::codec
