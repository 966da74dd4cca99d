// SPDX-License-Identifier: BSD-2-Clause
// The codec's models of the transform and of rate: the band synthesis norms that weigh each
// band's error (against OpenJPEG's published tables: opj_dwt_norms for the 5/3, and
// opj_dwt_norms_real for the 9/7, whose detail bands OpenJPEG counts with its highpass gain of 2
// per direction, so they are divided by 2^gain here), the inverse component transforms' column
// norms, QCD's step encoding, quantisation, and the convex hull of PCRD-opt.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "codec/quant/quantiser.hpp"
#include "codec/rate/pcrd.hpp"
#include "common/error.hpp"

namespace {

using namespace j2k::codec;

TEST(SynthesisNorm, ReversibleMatchesOpenJpegsTable) {
  const double ll[] = {1.000, 1.500, 2.750, 5.375, 10.68, 21.34, 42.67};
  const double hl[] = {1.038, 1.592, 2.919, 5.703, 11.33, 22.64, 45.25};
  const double hh[] = {.7186, .9218, 1.586, 3.043, 6.019, 12.01, 24.00};
  for (int level = 1; level <= 6; ++level) {
    EXPECT_NEAR(synthesis_norm(true, level, J2K_BAND_LL), ll[level], 0.01 * ll[level]) << level;
    EXPECT_NEAR(synthesis_norm(true, level, J2K_BAND_HL), hl[level - 1], 0.01 * hl[level - 1]) << level;
    EXPECT_NEAR(synthesis_norm(true, level, J2K_BAND_LH), hl[level - 1], 0.01 * hl[level - 1]) << level;
    EXPECT_NEAR(synthesis_norm(true, level, J2K_BAND_HH), hh[level - 1], 0.01 * hh[level - 1]) << level;
  }
}

// Within 2%: OpenJPEG's LL entry for level 2 (4.177) is 1.3% above the norm measured here, its
// others within 1%.
TEST(SynthesisNorm, IrreversibleMatchesOpenJpegsTable) {
  const double ll[] = {1.000, 1.965, 4.177, 8.403, 16.90, 33.84, 67.69, 135.3, 270.6, 540.9};
  const double hl[] = {2.022, 3.989, 8.355, 17.04, 34.27, 68.63, 137.3, 274.6, 549.0};
  const double hh[] = {2.080, 3.865, 8.307, 17.18, 34.71, 69.59, 139.3, 278.6, 557.2};
  for (int level = 1; level <= 9; ++level) {
    EXPECT_NEAR(synthesis_norm(false, level, J2K_BAND_LL), ll[level], 0.02 * ll[level]) << level;
    EXPECT_NEAR(synthesis_norm(false, level, J2K_BAND_HL), hl[level - 1] / 2, 0.01 * hl[level - 1] / 2) << level;
    EXPECT_NEAR(synthesis_norm(false, level, J2K_BAND_HH), hh[level - 1] / 4, 0.01 * hh[level - 1] / 4) << level;
  }
  // Past the measured levels the norms keep doubling (LL) as the basis functions dilate.
  EXPECT_NEAR(synthesis_norm(false, 20, J2K_BAND_LL) / synthesis_norm(false, 19, J2K_BAND_LL), 2.0, 0.01);
}

TEST(MctNorm, ColumnsOfTheInverseTransforms) {
  EXPECT_NEAR(mct_norm(true, 0), std::sqrt(3.0), 1e-9);
  EXPECT_NEAR(mct_norm(true, 1), 0.8292, 1e-4);  // OpenJPEG's opj_mct_norms
  EXPECT_NEAR(mct_norm(true, 2), 0.8292, 1e-4);
  EXPECT_NEAR(mct_norm(false, 0), 1.732, 1e-3);   // opj_mct_norms_real
  EXPECT_NEAR(mct_norm(false, 1), 1.805, 1e-3);
  EXPECT_NEAR(mct_norm(false, 2), 1.573, 1e-3);
}

TEST(ExpoundedStep, EncodesTheLargestStepNotAboveTheWantedOne) {
  // E-3: delta = 2^(R - e) (1 + mu / 2^11).
  const BandStep s = expounded_step(0.3, 8);  // 0.3 = 2^-2 * 1.2
  EXPECT_EQ(s.exponent, 10);
  EXPECT_EQ(s.mantissa, 409);  // floor(0.2 * 2048)
  EXPECT_NEAR(s.delta, 0.25 * (1 + 409 / 2048.0), 1e-12);
  EXPECT_LE(s.delta, 0.3);
  EXPECT_EQ(expounded_step(1.0, 8).mantissa, 0);
  EXPECT_EQ(expounded_step(1.0, 8).exponent, 8);
  EXPECT_THROW(expounded_step(1e-12, 8), j2k::Error);  // the exponent would pass 31
  EXPECT_EQ(reversible_step(10).exponent, 10);
}

TEST(Quantise, DeadZoneWithFractionBits) {
  const float in[] = {0.0f, 0.99f, 1.0f, -1.5f, 2.75f, -0.25f};
  int32_t out[6];
  ASSERT_TRUE(quantise_block(in, 3, 3, 2, 0.5, out));
  const int scale = 1 << kFractionBits;  // magnitudes / 0.5, fraction bits kept, rounded down
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], static_cast<int32_t>(std::floor(0.99 / 0.5 * scale)));
  EXPECT_EQ(out[2], 2 * scale);
  EXPECT_EQ(out[3], -3 * scale);
  EXPECT_EQ(out[4], static_cast<int32_t>(5.5 * scale));
  EXPECT_EQ(out[5], -scale / 2);
  const float huge[] = {1e30f};
  EXPECT_FALSE(quantise_block(huge, 1, 1, 1, 1.0, out));
}

// The block quantiser (vectorised where the CPU has AVX2) against floor(|v| * 2^6 / delta)
// worked out here one coefficient at a time, on blocks of every width up to
// 70 (vector bodies and their tails), magnitudes across the range, both signs and -0.
TEST(Quantise, EveryCoefficientAsTheScalarFormulaSays) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> octave(-20, 20);
  for (int width = 1; width <= 70; ++width) {
    const int height = 3;
    const ptrdiff_t stride = width + 5;
    std::vector<float> in(static_cast<size_t>(stride) * height);
    for (float& v : in) v = std::ldexp(unit(rng), octave(rng));
    in[0] = -0.0f;
    const double delta = 0.0371;
    std::vector<int32_t> out(static_cast<size_t>(width) * height, -7);
    ASSERT_TRUE(quantise_block(in.data(), stride, width, height, delta, out.data()));
    const double scale = std::ldexp(1.0, kFractionBits) / delta;  // as the header says
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const float v = in[static_cast<size_t>(y * stride + x)];
        // The product in double as the quantiser rounds it, then floor.
        const double m = std::floor(std::fabs(static_cast<double>(v)) * scale);
        const auto q = static_cast<int32_t>(m);
        ASSERT_EQ(out[static_cast<size_t>(y * width + x)], v < 0 ? -q : q) << "width " << width << " at " << x << "," << y;
      }
    // One magnitude of 2^31 steps or more, or not a number, anywhere refuses the block (in a
    // vector or in the tail: every column of some width); just below 2^31 steps is kept.
    const float at_limit = static_cast<float>(2147483648.0 * delta / 64);  // rounded to a float: about 2^31 steps
    const bool limit_fits = std::fabs(static_cast<double>(at_limit)) * (64 / delta) < 2147483648.0;
    for (float outside : {1e30f, -1e30f, std::nanf(""), -std::nanf(""), at_limit, -at_limit}) {
      std::vector<float> bad = in;
      bad[static_cast<size_t>(static_cast<int>(rng() % static_cast<unsigned>(height)) * stride + rng() % static_cast<unsigned>(width))] =
          outside;
      const bool fits = std::fabs(outside) == at_limit && limit_fits;
      EXPECT_EQ(quantise_block(bad.data(), stride, width, height, delta, out.data()), fits) << "width " << width << ", " << outside;
    }
  }
}

CodedBlock block_with(std::initializer_list<std::pair<uint32_t, double>> passes) {
  CodedBlock b;
  for (auto [end, d] : passes) b.passes.push_back({end, d, false});
  return b;
}

TEST(ConvexHull, KeepsOnlyFallingSlopes) {
  // Passes at (bytes, distortion removed): (10, 100) (20, 110) (30, 200) (30, 210) (40, 210).
  // (20, 110) lies under the chord to (30, 200); (30, 200) and (30, 210) share a byte count;
  // (40, 210) removes nothing.
  const auto hull = convex_hull(block_with({{10, 100}, {20, 10}, {30, 90}, {30, 10}, {40, 0}}), 1.0);
  ASSERT_EQ(hull.size(), 2u);
  EXPECT_EQ(hull[0].passes, 1);
  EXPECT_DOUBLE_EQ(hull[0].slope, 10.0);
  EXPECT_EQ(hull[1].passes, 4);
  EXPECT_DOUBLE_EQ(hull[1].slope, 110.0 / 20.0);
  EXPECT_EQ(passes_at(hull, 20.0), 0);
  EXPECT_EQ(passes_at(hull, 9.0), 1);
  EXPECT_EQ(passes_at(hull, 5.0), 4);
  // The weight scales slopes, not the choice.
  EXPECT_DOUBLE_EQ(convex_hull(block_with({{10, 100}}), 3.0)[0].slope, 30.0);
}

TEST(ThresholdSearch, FindsTheBoundary) {
  // Every boundary position among 1..9 thresholds, and the ends: each test is asked no more
  // than a bisection needs.
  for (size_t n = 1; n <= 9; ++n) {
    std::vector<double> t;
    for (size_t i = 0; i < n; ++i) t.push_back(0.5 * static_cast<double>(i * i) + 1);
    for (size_t b = 0; b <= n; ++b) {
      const double bound = b < n ? t[b] : 1e9;  // b == n: no threshold passes
      int asked = 0;
      const double s = smallest_where(t, [&](double x) { return ++asked, x >= bound; });
      EXPECT_EQ(s, b < n ? t[b] : t.back()) << n << " thresholds, boundary " << b;
      EXPECT_LE(asked, 6);
      const double l = largest_where(t, [&](double x) { return x < bound || b == 0; });
      EXPECT_EQ(l, b == 0 ? t.back() : t[b - 1]) << n << " thresholds, boundary " << b;
    }
  }
  EXPECT_EQ(largest_where({1, 2, 3}, [](double) { return false; }), 1);
  EXPECT_EQ(smallest_where({1, 2, 3}, [](double) { return true; }), 1);
}

}  // namespace
