// SPDX-License-Identifier: BSD-2-Clause
// Test images of any sample type and precision at any origin, from a seed.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>

#include "j2kfront/j2kfront.hpp"

namespace test_support {

// A w x h image at (x0, y0) of `ncomp` components of `type` at `precision`, signed ones
// centred on 0, whose samples follow `pattern`: 0 random over the precision, 1 a smooth ramp
// with a little noise, 2 one constant (every block all zeros after the DC shift, or nearly).
inline j2kfront::Image pattern_image(uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, int ncomp, j2k_sample_type type,
                                     int precision, int pattern, unsigned seed) {
  j2kfront::Image im;
  im.x0 = x0, im.y0 = y0, im.width = w, im.height = h;
  std::mt19937 rng(seed);
  const bool is_signed = type == J2K_SAMPLE_I8 || type == J2K_SAMPLE_I16;
  const int64_t lo = is_signed ? -(int64_t{1} << (precision - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (precision - 1)) - 1 : (int64_t{1} << precision) - 1;
  std::uniform_int_distribution<int64_t> sample(lo, hi);
  std::uniform_int_distribution<int64_t> noise(-3, 3);
  for (int c = 0; c < ncomp; ++c) {
    auto& k = im.add_component(type, precision);
    for (int64_t i = 0; i < k.width * k.height; ++i) {
      int64_t v = 0;
      if (pattern == 0) {
        v = sample(rng);
      } else if (pattern == 1) {
        const int64_t x = i % k.width, y = i / k.width;
        v = lo + (hi - lo) * (x + 2 * y + 17 * c) / (k.width + 2 * k.height + 17 * ncomp) + noise(rng);
      } else {
        v = lo + (hi - lo) / 3;
      }
      v = std::min(hi, std::max(lo, v));
      if (k.sample_size() == 1) {
        k.bytes[static_cast<size_t>(i)] = static_cast<uint8_t>(v);
      } else {
        const auto u = static_cast<uint16_t>(v);
        std::memcpy(k.bytes.data() + 2 * i, &u, 2);
      }
    }
  }
  return im;
}

}  // namespace test_support
