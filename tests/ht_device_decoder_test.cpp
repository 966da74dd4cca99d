// SPDX-License-Identifier: BSD-2-Clause
// The HT block decoder that the CUDA batch runs (codec/tier1/ht/device_block_decoder.hpp), run
// here on the host, against the CPU's ht::decode_block() (itself tested against the reference
// decoder, ht_block_decoder_test), bit for bit: the coefficients, the passes reported and the
// corrupt verdict, nothing written outside the block nor past its scratch, whatever the
// scratch held before. Blocks of every size 1x1..64x64 and the long shapes of A.6.1, every
// depth, the cleanup at plane 0 (lossless) and above (with SigProp and MagRef), placeholder
// passes, the stripe-causal mode; intact, cut, flipped, noisy, with their bit planes off. No
// GPU needed: this is the proof the GPU's run (gpu_block_batch_test's HT cases) builds on.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "codec/tier1/ht/block_decoder.hpp"
#include "codec/tier1/ht/cleanup_pass.hpp"
#include "codec/tier1/ht/device_block_decoder.hpp"
#include "tests/support/ht_decoder_cases.hpp"

namespace {

using namespace j2k::codec;
using test_support::Case;
using test_support::HtDamage;

std::string describe(const Case& c) {
  std::string s = std::to_string(c.code.width) + "x" + std::to_string(c.code.height) + " block, " +
                  std::to_string(c.code.bitplanes) + " planes, modes " + std::to_string(int{c.code.modes}) + ", segments";
  for (size_t i = 0; i < c.segment_bytes.size(); ++i)
    s += " " + std::to_string(c.segment_bytes[i]) + "B/" + std::to_string(c.segment_passes[i]) + "p";
  return s;
}

constexpr int32_t kCanary = 0x5A5A5A5A;
constexpr uint8_t kScratchJunk = 0xA5;

struct Verdicts {
  int corrupt = 0, decoded = 0, refined = 0;
};

// Both decoders on the case, each into a buffer wider and taller than the block filled with a
// canary; the device decoder's scratch full of junk with a canary past its end. Adds the CPU's
// verdict to `v`.
void expect_same(const Case& c, Verdicts& v) {
  const ptrdiff_t stride = c.code.width + 3;
  const size_t n = static_cast<size_t>(stride) * static_cast<size_t>(c.code.height + 2);
  std::vector<int32_t> want(n, kCanary), got(n, kCanary);
  const BlockDecodeReport r = ht::decode_block(c.code, want.data() + stride + 1, stride);
  const size_t scratch = ht::device::scratch_bytes(c.code.width, c.code.height);
  ASSERT_EQ(scratch % 4, 0u) << describe(c);
  std::vector<uint8_t> scratch_bytes(scratch + 64, kScratchJunk);
  const BlockDecodeReport g =
      ht::device::decode_block(c.code, ht::cleanup::tables(), scratch_bytes.data(), got.data() + stride + 1, stride);
  EXPECT_EQ(g.passes, r.passes) << describe(c);
  EXPECT_EQ(g.corrupt, r.corrupt) << describe(c);
  EXPECT_EQ(g.segmark_error, r.segmark_error) << describe(c);
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      ADD_FAILURE() << describe(c) << ": value (" << static_cast<ptrdiff_t>(i) % stride - 1 << ", "
                    << static_cast<ptrdiff_t>(i) / stride - 1 << ") is " << got[i] << ", not " << want[i];
      break;
    }
  for (size_t i = scratch; i < scratch_bytes.size(); ++i)
    if (scratch_bytes[i] != kScratchJunk) {
      ADD_FAILURE() << describe(c) << ": scratch byte " << i << " written, past the " << scratch << " of scratch_bytes()";
      break;
    }
  (r.corrupt ? v.corrupt : v.decoded) += 1;
  if (!r.corrupt && c.code.segments > 1) ++v.refined;
}

// The cases gpu_block_batch_test runs on the GPU.
TEST(HtDeviceDecoder, TheGpuTestsCasesAsTheCpu) {
  int64_t total = 0;
  const std::vector<Case> cases = test_support::ht_cases(total);
  Verdicts v;
  for (const Case& c : cases) {
    expect_same(c, v);
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(v.corrupt, 20) << "spoilt segments should make some blocks inconsistent";
  EXPECT_GT(v.refined, 20) << "some blocks should decode with SigProp or MagRef";
}

TEST(HtDeviceDecoder, EverySizeAsTheCpu) {
  std::mt19937 rng(7);
  Verdicts v;
  for (int w = 1; w <= 64; ++w)
    for (int h = 1; h <= 64; ++h) {
      // Half of them intact, the rest spoilt each way in turn.
      const int d = (w * 64 + h) % 10;
      const HtDamage damage = d < 5 ? HtDamage::None : static_cast<HtDamage>(d - 4);
      Case c = test_support::random_ht_case(rng, w, h, damage);
      test_support::point(c);
      expect_same(c, v);
      if (::testing::Test::HasFailure()) return;
    }
  EXPECT_GT(v.corrupt, 300);
  EXPECT_GT(v.decoded, 2000);
  EXPECT_GT(v.refined, 1000);
}

// The long shapes (a quad row of 512 quads; 1024 rows of one quad), every depth, the cleanup
// at planes across it, each pass delivered.
TEST(HtDeviceDecoder, LongShapesEveryDepthAndPlane) {
  std::mt19937 rng(8);
  static const int kShapes[][2] = {{1024, 4}, {4, 1024}, {1024, 1}, {1, 1024}, {2, 1024}, {1024, 3}, {3, 1024}, {64, 64}};
  Verdicts v;
  for (const auto& shape : kShapes)
    for (int depth = 1; depth <= 30; ++depth) {
      const int w = shape[0], h = shape[1];
      const std::vector<int32_t> block = test_support::random_block(rng, static_cast<size_t>(w * h), depth, 0.4);
      for (int plane = 0; plane < depth; plane += 1 + depth / 5)
        for (size_t stop = 1; stop <= 3; ++stop) {
          Case c = test_support::ht_case(block, w, h, plane, stop, static_cast<int>(rng() % 2), (rng() & 1) ? kModeCausal : 0, 0);
          test_support::point(c);
          expect_same(c, v);
          if (::testing::Test::HasFailure()) return;
        }
    }
  EXPECT_EQ(v.corrupt, 0) << "intact blocks decode";
}

// A block with no data, and one whose set is all placeholders, as the CPU: zeros, no verdict.
TEST(HtDeviceDecoder, EmptyBlocksAsTheCpu) {
  Case none;
  none.code.width = 13;
  none.code.height = 7;
  none.code.modes = kModeHt;
  test_support::point(none);
  Verdicts v;
  expect_same(none, v);
  Case placeholders = none;
  placeholders.bytes = {1, 2, 3};
  placeholders.segment_bytes = {3};
  placeholders.segment_passes = {3};  // SigProp and MagRef with no cleanup before them
  placeholders.code.segments = 1;
  placeholders.code.size = 3;
  placeholders.code.bitplanes = 5;
  test_support::point(placeholders);
  expect_same(placeholders, v);
  EXPECT_EQ(v.decoded, 2);
}

}  // namespace
