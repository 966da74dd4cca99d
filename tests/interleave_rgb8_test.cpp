// SPDX-License-Identifier: BSD-2-Clause
// io/interleave_rgb8 (the PPM writer's 8-bit RGB rows): the portable and the SSSE3 build
// against a plain byte loop, on random samples of every length from 0 to 100 and some longer
// ones, at unaligned starts, and with the bytes around the output left as they were.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "io/interleave_rgb8.hpp"

namespace {

using Build = void (*)(const uint8_t*, const uint8_t*, const uint8_t*, size_t, unsigned char*);

void check(Build build, const char* name) {
  std::mt19937 rng(3);
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 100; ++n) lengths.push_back(n);
  for (size_t n : {255, 256, 257, 4095, 4096}) lengths.push_back(n);
  for (size_t n : lengths) {
    for (size_t shift : {0, 1, 7}) {
      std::vector<uint8_t> planes(3 * (n + 8));
      for (uint8_t& v : planes) v = static_cast<uint8_t>(rng());
      const uint8_t* r = planes.data() + shift;
      const uint8_t* g = r + n + 8;
      const uint8_t* b = g + n + 8;
      std::vector<unsigned char> out(3 * n + 32, 0xA5);
      build(r, g, b, n, out.data() + 16);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[16 + 3 * i], r[i]) << name << " n " << n << " pixel " << i;
        ASSERT_EQ(out[16 + 3 * i + 1], g[i]) << name << " n " << n << " pixel " << i;
        ASSERT_EQ(out[16 + 3 * i + 2], b[i]) << name << " n " << n << " pixel " << i;
      }
      for (size_t k = 0; k < 16; ++k) {
        ASSERT_EQ(out[k], 0xA5) << name << " n " << n << " wrote before the row";
        ASSERT_EQ(out[16 + 3 * n + k], 0xA5) << name << " n " << n << " wrote past the row";
      }
    }
  }
}

TEST(InterleaveRgb8, Portable) { check(j2k::io::portable::interleave_rgb8, "portable"); }
TEST(InterleaveRgb8, Ssse3) {
  if (!j2k::io::interleave_rgb8_ssse3()) GTEST_SKIP() << "no SSSE3 build or CPU";
  check(j2k::io::ssse3::interleave_rgb8, "ssse3");
}
TEST(InterleaveRgb8, Chosen) { check(j2k::io::interleave_rgb8, "chosen"); }

}  // namespace
