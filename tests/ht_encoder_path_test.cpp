// SPDX-License-Identifier: BSD-2-Clause
// The HT block encoder's builds (codec/tier1/ht/block_encoder.hpp: the portable cleanup coder
// and, where the CPU has AVX2 and BMI2, cleanup_encoder_avx2.hpp's) give the same block, byte
// for byte: every size 1x1..64x64 and the long shapes, every depth 1..31, the cleanup at
// random planes with SigProp and MagRef, coefficients with fraction bits as the 9/7's are
// (lossy, distortion estimated) and without (lossless), strided views, and the extremes (every
// magnitude at 2^31 - 1, -2^31 above plane 0, lone coefficients, all zero). On a CPU without
// AVX2 the tests say so and skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ht/block_encoder.hpp"
#include "tests/support/random_block.hpp"

namespace {

using namespace j2k::codec;

bool skip_without_avx2() { return !ht::available(ht::HtEncoderPath::Avx2); }

// `block` (w x h, rows `stride` apart) coded by both builds: every field of the CodedBlock
// must agree.
void expect_same(const std::vector<int32_t>& block, int w, int h, ptrdiff_t stride, int plane, int fraction_bits,
                 const std::string& what) {
  BlockView v;
  v.data = block.data();
  v.stride = stride;
  v.width = w;
  v.height = h;
  v.cleanup_plane = plane;
  v.fraction_bits = fraction_bits;
  v.reversible = fraction_bits == 0;
  v.estimate_distortion = fraction_bits != 0;
  const CodedBlock a = ht::encode_block(v, ht::HtEncoderPath::Portable);
  const CodedBlock b = ht::encode_block(v, ht::HtEncoderPath::Avx2);
  ASSERT_EQ(a.bitplanes, b.bitplanes) << what;
  ASSERT_EQ(a.magnitude_bitplanes, b.magnitude_bitplanes) << what;
  ASSERT_EQ(a.energy, b.energy) << what;
  ASSERT_EQ(a.passes.size(), b.passes.size()) << what;
  for (size_t i = 0; i < a.passes.size(); ++i) {
    ASSERT_EQ(a.passes[i].end, b.passes[i].end) << what << ", pass " << i;
    ASSERT_EQ(a.passes[i].distortion, b.passes[i].distortion) << what << ", pass " << i;
    ASSERT_EQ(a.passes[i].terminated, b.passes[i].terminated) << what << ", pass " << i;
  }
  ASSERT_EQ(a.bytes.size(), b.bytes.size()) << what;
  for (size_t i = 0; i < a.bytes.size(); ++i)
    ASSERT_EQ(a.bytes[i], b.bytes[i]) << what << ": byte " << i << " of " << a.bytes.size();
}

std::string describe(int w, int h, int depth, int plane, int fraction_bits) {
  return std::to_string(w) + "x" + std::to_string(h) + ", depth " + std::to_string(depth) + ", cleanup at plane " +
         std::to_string(plane) + (fraction_bits ? ", lossy" : ", lossless");
}

TEST(HtEncoderPath, EverySizeAsThePortableBuild) {
  if (skip_without_avx2()) GTEST_SKIP() << "no AVX2 and BMI2 here: only the portable build runs";
  std::mt19937 rng(11);
  for (int w = 1; w <= 64; ++w)
    for (int h = 1; h <= 64; ++h) {
      const int depth = 1 + static_cast<int>(rng() % 31);
      const double zeros = (rng() % 4) * 0.3;
      const int fraction_bits = (rng() % 2) ? 6 : 0;
      const int plane = (rng() % 2) ? 0 : static_cast<int>(rng() % static_cast<unsigned>(depth));
      // Views into wider rows half the time (a code-block of a band).
      const ptrdiff_t stride = w + static_cast<ptrdiff_t>((rng() % 2) * (rng() % 9));
      const std::vector<int32_t> block =
          test_support::random_block(rng, static_cast<size_t>(stride) * static_cast<size_t>(h), depth, zeros);
      // The coefficients with their fraction bits: the depth counts above them.
      std::vector<int32_t> scaled = block;
      if (fraction_bits && depth + fraction_bits <= 31)
        for (int32_t& c : scaled) c = static_cast<int32_t>(static_cast<uint32_t>(c) << fraction_bits);
      const int used = depth + fraction_bits <= 31 ? fraction_bits : 0;
      expect_same(scaled, w, h, stride, plane, used, describe(w, h, depth, plane, used));
      if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(HtEncoderPath, EveryDepthAndPlaneOfTheLongShapes) {
  if (skip_without_avx2()) GTEST_SKIP() << "no AVX2 and BMI2 here: only the portable build runs";
  std::mt19937 rng(12);
  static const int kShapes[][2] = {{64, 64}, {33, 17}, {4, 1024}, {1024, 4}, {1, 1024}, {2, 1024},
                                   {1024, 1}, {3, 5},  {17, 64},  {1023, 3}, {128, 32}, {256, 16}};
  for (const auto& shape : kShapes)
    for (int depth = 1; depth <= 31; ++depth) {
      const int w = shape[0], h = shape[1];
      for (double zeros : {0.0, 0.5, 0.95}) {
        const std::vector<int32_t> block = test_support::random_block(rng, static_cast<size_t>(w * h), depth, zeros);
        for (int plane = 0; plane < depth; plane += 1 + depth / 5) {
          expect_same(block, w, h, w, plane, 0, describe(w, h, depth, plane, 0));
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
}

TEST(HtEncoderPath, Extremes) {
  if (skip_without_avx2()) GTEST_SKIP() << "no AVX2 and BMI2 here: only the portable build runs";
  // Every magnitude 2^31 - 1 at plane 0 (exponent bounds of 31 and 32: each sample's bits on
  // their own), and -2^31 above it.
  std::vector<int32_t> full(64 * 64, INT32_MAX);
  for (size_t i = 0; i < full.size(); i += 3) full[i] = -full[i];
  for (int plane : {0, 1, 7, 30}) expect_same(full, 64, 64, 64, plane, 0, "all 2^31 - 1 at plane " + std::to_string(plane));
  std::vector<int32_t> lowest(16 * 16, INT32_MIN);
  for (int plane : {1, 15, 30}) expect_same(lowest, 16, 16, 16, plane, 0, "all -2^31 at plane " + std::to_string(plane));
  // Lone coefficients anywhere (the MEL's long runs ended mid-way), and nothing at all.
  for (size_t at : {size_t{0}, size_t{15}, size_t{16}, size_t{63}, size_t{2048}, size_t{4095}})
    for (int32_t value : {1, -2, 3, 1 << 20}) {
      std::vector<int32_t> one(64 * 64, 0);
      one[at] = value;
      expect_same(one, 64, 64, 64, 0, 0, "one coefficient " + std::to_string(value) + " at " + std::to_string(at));
    }
  expect_same(std::vector<int32_t>(64 * 64, 0), 64, 64, 64, 0, 0, "all 0");
  // Exponent bounds around 8 and 16, where the AVX2 coder packs a quad's bits differently.
  std::mt19937 rng(13);
  for (int bits : {7, 8, 9, 15, 16, 17}) {
    std::vector<int32_t> block(64 * 64);
    for (int32_t& c : block) c = static_cast<int32_t>((rng() & ((1u << bits) - 1)) | (1u << (bits - 1))) * ((rng() & 1) ? -1 : 1);
    expect_same(block, 64, 64, 64, 0, 0, "every magnitude of " + std::to_string(bits) + " bits");
  }
}

// Blocks as a lossy band's are: mostly 0, the nonzero coefficients small and in clusters,
// so that runs of MEL events of every length end at any quad of a line-pair (the AVX2 coder
// codes a line-pair's events from bit masks of 64 quads). Every width 1..130 of the long
// shapes, and 64x64 at many densities.
TEST(HtEncoderPath, SparseClusteredBlocks) {
  if (skip_without_avx2()) GTEST_SKIP() << "no AVX2 and BMI2 here: only the portable build runs";
  std::mt19937 rng(15);
  auto sparse = [&](int w, int h, double density) {
    std::vector<int32_t> block(static_cast<size_t>(w) * static_cast<size_t>(h), 0);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        // Denser in a few bands of columns: clusters with long empty stretches between.
        const double here = ((x / 9) % 5 == 0) ? std::min(1.0, density * 8) : density;
        if (u(rng) < here) {
          const int32_t m = 1 + static_cast<int32_t>(rng() % ((rng() % 8) ? 3u : 200u));
          block[static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)] = (rng() & 1) ? -m : m;
        }
      }
    return block;
  };
  for (int w = 1; w <= 130; ++w) {
    const int h = 4096 / std::max(w, 4) < 64 ? 4096 / std::max(w, 4) : 64;
    for (double density : {0.002, 0.03, 0.2}) {
      const std::vector<int32_t> block = sparse(w, h, density);
      expect_same(block, w, h, w, 0, 0, describe(w, h, 0, 0, 0) + ", density " + std::to_string(density));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  for (int trial = 0; trial < 200; ++trial) {
    const double density = std::ldexp(1.0, -static_cast<int>(trial % 12));
    std::vector<int32_t> block = sparse(64, 64, density);
    // Lossy (6 fraction bits) half the time, coded at plane 0 or above it.
    const int fraction_bits = trial % 2 ? 6 : 0;
    for (int32_t& c : block) c = static_cast<int32_t>(static_cast<uint32_t>(c) << fraction_bits);
    const int plane = trial % 3 == 0 ? 1 : 0;
    expect_same(block, 64, 64, 64, plane, fraction_bits, describe(64, 64, 0, plane, fraction_bits) + ", density " + std::to_string(density));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The 9/7's blocks (fraction bits, distortion estimated) at plane 0, where the AVX2 build
// gathers 8 samples at a time with its sums: magnitudes either side of 2^25 (where the sums
// stop being used) and up to 2^31 - 1 and -2^31, every width 1..40 (the rows' last width % 8
// on their own), planes 0 to 3.
TEST(HtEncoderPath, LossyGatherAtEveryWidth) {
  if (skip_without_avx2()) GTEST_SKIP() << "no AVX2 and BMI2 here: only the portable build runs";
  std::mt19937 rng(16);
  for (int w = 1; w <= 40; ++w)
    for (int bits : {3, 12, 24, 25, 26, 31, 32}) {
      const int h = 1 + static_cast<int>(rng() % 64);
      std::vector<int32_t> block(static_cast<size_t>(w * h));
      for (int32_t& c : block) {
        const uint32_t m = bits == 32 ? rng() : rng() & ((1u << bits) - 1);
        c = (rng() % 3 == 0) ? 0 : (rng() & 1) ? static_cast<int32_t>(0u - m) : static_cast<int32_t>(m & 0x7FFFFFFFu);
      }
      if (bits == 32) block[0] = INT32_MIN;
      for (int plane = 0; plane < 4; ++plane) {
        expect_same(block, w, h, w, plane, 6, describe(w, h, bits, plane, 6));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}

// A cleanup pass at plane 0: the block's energy and the distortion the pass removes, each
// builds' (integer sums gathered with the samples, or a pass in double for large magnitudes)
// against the sums worked out here in double, term by term in the block's order: the
// coefficient a = m / 2^f, the decoder's reconstruction mu + 1/2 (mu for the 5/3), the pass
// removing a^2 - (a - reconstruction)^2 from each significant coefficient. Equal to the bit.
TEST(HtEncoderPath, Plane0EstimateAsTheDoubleSums) {
  std::mt19937 rng(14);
  for (int trial = 0; trial < 400; ++trial) {
    const int w = 1 + static_cast<int>(rng() % 64), h = 1 + static_cast<int>(rng() % 64);
    const bool lossy = trial % 2 == 0;
    const int fraction_bits = lossy ? 6 : 0;
    const int depth = 1 + static_cast<int>(rng() % (31 - fraction_bits));  // with its fraction bits, up to 31
    std::vector<int32_t> block = test_support::random_block(rng, static_cast<size_t>(w * h), depth + fraction_bits, 0.3);
    BlockView v;
    v.data = block.data();
    v.stride = w;
    v.width = w;
    v.height = h;
    v.fraction_bits = fraction_bits;
    v.reversible = !lossy;
    v.estimate_distortion = true;
    double energy = 0, removed = 0;
    const double step = std::ldexp(1.0, -fraction_bits), half = lossy ? 0.5 : 0.0;
    for (int32_t c : block) {
      const uint32_t m = c < 0 ? 0u - static_cast<uint32_t>(c) : static_cast<uint32_t>(c);
      const double a = static_cast<double>(m) * step;
      const uint32_t mu = m >> fraction_bits;
      const double error = a - (static_cast<double>(mu) + half);
      energy += a * a;
      if (mu != 0) removed += a * a - error * error;
    }
    const std::string what = std::to_string(w) + "x" + std::to_string(h) + ", " + std::to_string(depth + fraction_bits) +
                             " bits" + (lossy ? ", lossy" : ", lossless");
    for (ht::HtEncoderPath path : {ht::HtEncoderPath::Portable, ht::HtEncoderPath::Avx2}) {
      if (!ht::available(path)) continue;
      const CodedBlock c = ht::encode_block(v, path);
      ASSERT_EQ(c.energy, energy) << what;
      if (c.passes.empty()) {
        ASSERT_EQ(removed, 0.0) << what;
        continue;
      }
      ASSERT_EQ(c.passes.size(), 1u) << what;
      ASSERT_EQ(c.passes[0].distortion, removed) << what;
    }
  }
}

TEST(HtEncoderPath, NamesItsBuilds) {
  EXPECT_TRUE(ht::available(ht::HtEncoderPath::Portable));
#if !defined(__x86_64__)
  EXPECT_FALSE(ht::available(ht::HtEncoderPath::Avx2));
#endif
  if (skip_without_avx2()) GTEST_SKIP() << "no AVX2 and BMI2 here: only the portable build ran";
}

}  // namespace
