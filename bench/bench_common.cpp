// Shared pieces of the benchmarks: the input pattern and the statistics.
#include <algorithm>
#include <cmath>

#include "bench/bench.hpp"

namespace j2k::bench {

std::vector<int32_t> test_pattern(int64_t w, int64_t h, int bits, uint32_t seed) {
  std::vector<int32_t> v(static_cast<size_t>(w * h));
  const int32_t max = (int32_t{1} << bits) - 1;
  uint32_t state = seed * 2654435761u + 1;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      state = state * 1664525u + 1013904223u;  // LCG noise
      const double smooth = 0.5 + 0.25 * std::sin(x * 0.013) * std::cos(y * 0.021);
      const double texture = 0.15 * std::sin((x + 2 * y) * 0.4);
      const double noise = 0.05 * ((state >> 8) / 16777216.0 - 0.5);
      const double s = std::clamp(smooth + texture + noise, 0.0, 1.0);
      v[static_cast<size_t>(y * w + x)] = static_cast<int32_t>(s * max);
    }
  return v;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace j2k::bench
