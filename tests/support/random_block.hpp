// SPDX-License-Identifier: BSD-2-Clause
// Test helper: code-block coefficients to code and decode, as wavelet bands have them.
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace test_support {

// `n` signed coefficients of at most `depth` bits of magnitude, a share `zeros` of them 0,
// magnitudes of every size up to `depth` bits, small ones most often.
inline std::vector<int32_t> random_block(std::mt19937& rng, size_t n, int depth, double zeros) {
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> bits(0, depth);
  std::vector<int32_t> v(n);
  for (auto& x : v) {
    if (u(rng) < zeros) continue;
    const int b = bits(rng);
    const uint32_t m = b == 0 ? 1u : static_cast<uint32_t>(rng() & ((uint64_t{1} << b) - 1)) | (1u << (b - 1));
    const uint32_t capped = depth >= 31 ? m : std::min<uint32_t>(m, static_cast<uint32_t>((uint64_t{1} << depth) - 1));
    x = static_cast<int32_t>(capped) * ((rng() & 1) ? -1 : 1);
  }
  return v;
}

}  // namespace test_support
