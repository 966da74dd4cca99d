// SPDX-License-Identifier: BSD-2-Clause
#include "io/interleave_rgb8.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define J2K_INTERLEAVE_SSSE3 1
#include <immintrin.h>
#else
#define J2K_INTERLEAVE_SSSE3 0
#endif

namespace j2k::io {
namespace {

// Pixels [from, n) a byte at a time.
void interleave_from(const uint8_t* r, const uint8_t* g, const uint8_t* b, size_t from, size_t n, unsigned char* out) {
  for (size_t i = from; i < n; ++i) {
    out[3 * i] = r[i];
    out[3 * i + 1] = g[i];
    out[3 * i + 2] = b[i];
  }
}

#if J2K_INTERLEAVE_SSSE3
// For output block t (bytes 16t .. 16t + 15 of a 16-pixel run) and channel c: where each
// byte comes from in that channel's 16 samples, or 0x80 (pshufb's zero) where it is another
// channel's.
struct ShuffleMasks {
  alignas(16) uint8_t m[3][3][16];  // [block][channel][byte]
};
constexpr ShuffleMasks shuffle_masks() {
  ShuffleMasks s{};
  for (int t = 0; t < 3; ++t)
    for (int c = 0; c < 3; ++c)
      for (int k = 0; k < 16; ++k) {
        const int p = 16 * t + k;
        s.m[t][c][k] = static_cast<uint8_t>(p % 3 == c ? p / 3 : 0x80);
      }
  return s;
}
constexpr ShuffleMasks kMasks = shuffle_masks();
#endif

}  // namespace

namespace portable {
void interleave_rgb8(const uint8_t* r, const uint8_t* g, const uint8_t* b, size_t n, unsigned char* out) {
  interleave_from(r, g, b, 0, n, out);
}
}  // namespace portable

#if J2K_INTERLEAVE_SSSE3
bool interleave_rgb8_ssse3() {
  static const bool yes = __builtin_cpu_supports("ssse3");
  return yes;
}
namespace ssse3 {
__attribute__((target("ssse3"))) void interleave_rgb8(const uint8_t* r, const uint8_t* g, const uint8_t* b, size_t n,
                                                      unsigned char* out) {
  auto mask = [](int t, int c) { return _mm_load_si128(reinterpret_cast<const __m128i*>(kMasks.m[t][c])); };
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i R = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + i));
    const __m128i G = _mm_loadu_si128(reinterpret_cast<const __m128i*>(g + i));
    const __m128i B = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
    for (int t = 0; t < 3; ++t) {
      const __m128i block = _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(R, mask(t, 0)), _mm_shuffle_epi8(G, mask(t, 1))),
                                         _mm_shuffle_epi8(B, mask(t, 2)));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * i + 16 * static_cast<size_t>(t)), block);
    }
  }
  interleave_from(r, g, b, i, n, out);
}
}  // namespace ssse3
#else
bool interleave_rgb8_ssse3() { return false; }
namespace ssse3 {
void interleave_rgb8(const uint8_t* r, const uint8_t* g, const uint8_t* b, size_t n, unsigned char* out) {
  interleave_from(r, g, b, 0, n, out);
}
}  // namespace ssse3
#endif

void interleave_rgb8(const uint8_t* r, const uint8_t* g, const uint8_t* b, size_t n, unsigned char* out) {
  if (interleave_rgb8_ssse3()) ssse3::interleave_rgb8(r, g, b, n, out);
  else portable::interleave_rgb8(r, g, b, n, out);
}

}  // namespace j2k::io
