// SPDX-License-Identifier: BSD-2-Clause
// The bound behind int16 output (transform/common/coefficient_range.hpp): the 1-D cascade norms
// it rests on, recomputed here from the filters, and worst-case images that must stay within
// it while coming close to it (so that it is a bound, and not a loose one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "tiling/canvas.hpp"
#include "transform/common/coefficient_range.hpp"
#include "transform/cpu/dwt_cpu.hpp"

namespace {

// conv(a, b upsampled by k).
std::vector<double> cascade(const std::vector<double>& a, const std::vector<double>& b, size_t k) {
  std::vector<double> r(a.size() + (b.size() - 1) * k, 0.0);
  for (size_t t = 0; t < b.size(); ++t)
    for (size_t i = 0; i < a.size(); ++i) r[i + t * k] += b[t] * a[i];
  return r;
}

double l1(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::abs(x);
  return s;
}

// The equivalent filters of level j: low-pass and high-pass cascades (OpenJPEG's lifting,
// without rounding).
struct Cascades {
  std::vector<std::vector<double>> low, high;  // [j - 1]
};
Cascades cascades(int levels) {
  const std::vector<double> h0{-1 / 8.0, 2 / 8.0, 6 / 8.0, 2 / 8.0, -1 / 8.0}, h1{-0.5, 1.0, -0.5};
  Cascades c;
  std::vector<double> low{1.0};
  for (int j = 1; j <= levels; ++j) {
    const size_t k = size_t{1} << (j - 1);
    c.high.push_back(cascade(low, h1, k));
    low = cascade(low, h0, k);
    c.low.push_back(low);
  }
  return c;
}

TEST(CoefficientRange, CascadeNormsStayUnderTheGain) {
  const Cascades c = cascades(13);
  double previous = 0;
  for (size_t j = 0; j < c.low.size(); ++j) {
    const double nl = l1(c.low[j]), nh = l1(c.high[j]);
    EXPECT_LT(nl, 1.72) << "level " << j + 1;
    EXPECT_LT(nh, 2.87) << "level " << j + 1;
    EXPECT_LE(nh * nh, j2k::kGain53) << "level " << j + 1;
    EXPECT_GE(nh, previous) << "the norms grow with the level";
    previous = nh;
  }
  // They converge: the last level adds less than 5e-4, against a margin of 3e-3 under 2.87.
  EXPECT_LT(l1(c.high.back()) - l1(c.high[c.high.size() - 2]), 5e-4);
}

// A 2-D image of +-m that follows the signs of the HH cascade of `level` around one of its
// coefficients: the worst case of that band, up to rounding. Every shift of the pattern is
// tried, since only one lines up with the decimation.
TEST(CoefficientRange, WorstCaseImagesStayWithinTheBound) {
  const Cascades c = cascades(4);
  for (int level = 1; level <= 4; ++level) {
    const std::vector<double>& f = c.high[static_cast<size_t>(level - 1)];
    const auto n = static_cast<int64_t>(f.size()) + (int64_t{4} << level);
    for (int precision : {8, 12}) {
      const int32_t m = int32_t{1} << (precision - 1);
      double worst = 0;
      for (int64_t shift = 0; shift < (int64_t{1} << level); ++shift) {
        std::vector<int32_t> img(static_cast<size_t>(n * n), 0);
        for (size_t y = 0; y < f.size(); ++y)
          for (size_t x = 0; x < f.size(); ++x) {
            const double sign = (f[x] >= 0) == (f[y] >= 0) ? 1 : -1;
            img[static_cast<size_t>((static_cast<int64_t>(y) + shift) * n + static_cast<int64_t>(x) + shift)] =
                sign > 0 ? m - 1 : -m;
          }
        const j2k::Rect r{0, 0, n, n};
        j2k::cpu::forward53(img.data(), static_cast<size_t>(n), r, level, 1);
        for (int32_t v : img) worst = std::max(worst, std::abs(static_cast<double>(v)));
      }
      const double bound = j2k::max_53_coefficient(m, level);
      const double linear = l1(f) * l1(f) * m;
      EXPECT_LE(worst, bound) << "level " << level << ", " << precision << "-bit";
      EXPECT_GE(worst, 0.9 * linear) << "level " << level << ", " << precision << "-bit: the pattern missed the worst case";
    }
  }
}

// Random extremes, every level count up to 12, against the bound.
TEST(CoefficientRange, RandomExtremesStayWithinTheBound) {
  std::mt19937 rng(3);
  for (int levels = 1; levels <= 12; ++levels) {
    const int64_t w = 67, h = 45;
    std::vector<int32_t> img(static_cast<size_t>(w * h));
    for (int32_t& v : img) v = (rng() & 1) ? 2047 : -2048;
    const j2k::Rect r{3, 1, 3 + w, 1 + h};
    j2k::cpu::forward53(img.data(), static_cast<size_t>(w), r, levels, 1);
    int32_t worst = 0;
    for (int32_t v : img) worst = std::max(worst, std::abs(v));
    EXPECT_LE(worst, j2k::max_53_coefficient(2048, levels)) << levels << " levels";
  }
}

}  // namespace
