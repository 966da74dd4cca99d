// SPDX-License-Identifier: BSD-2-Clause
// The HT encoder's SigProp and MagRef passes (codec/tier1/ht/block_encoder, Part 15 clause
// 7.4 and 7.5): random blocks of every size and depth coded with the cleanup pass at each
// plane, decoded by our decoder at each of the three stopping points (cleanup, +SigProp,
// +MagRef). What the decoder gives is checked against the originals alone: a coefficient
// significant after the cleanup is its index at the cleanup's plane, then (with MagRef) at the
// plane below; any other is 0 or, where SigProp made it significant, exactly 1 at the plane
// below with its sign; SigProp must make some significant. And each pass's distortion as the
// encoder reports it must equal the squared error the decoded coefficients really lose.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ht/block_decoder.hpp"
#include "codec/tier1/ht/block_encoder.hpp"
#include "tests/support/random_block.hpp"

namespace {

using namespace j2k::codec;

using test_support::random_block;

// The magnitude in steps a decoded coefficient (sign, twice the magnitude) stands for, as the
// dequantisers take it: the 5/3's halves towards 0, the 9/7's scales by 1/2.
double decoded_magnitude(int32_t v, bool reversible) {
  const int64_t m = std::llabs(static_cast<long long>(v));
  return reversible ? static_cast<double>(m / 2) : static_cast<double>(m) / 2;
}

struct Case {
  int w, h, depth, fraction_bits;
  bool reversible;
  double zeros;
  uint8_t modes;
};

// Codes `block` at every plane and checks the three stopping points.
void check_every_plane(const std::vector<int32_t>& block, const Case& k, const std::string& what) {
  BlockView v;
  v.data = block.data();
  v.stride = k.w;
  v.width = k.w;
  v.height = k.h;
  v.fraction_bits = k.fraction_bits;
  v.reversible = k.reversible;
  v.modes = k.modes;
  const int planes = ht::magnitude_bitplanes(v);
  const double unit = std::ldexp(1.0, k.fraction_bits);
  int made_in_all = 0;
  for (int p = 0; p < planes; ++p) {
    v.cleanup_plane = p;
    const CodedBlock c = ht::encode_block(v);
    const std::string at = what + ", cleanup at plane " + std::to_string(p);
    ASSERT_EQ(c.bitplanes, p + 1) << at;
    ASSERT_EQ(c.magnitude_bitplanes, planes) << at;
    ASSERT_EQ(c.passes.size(), p == 0 ? 1u : 3u) << at;
    ASSERT_TRUE(c.passes[0].terminated) << at;
    ASSERT_EQ(c.passes.back().end, c.bytes.size()) << at;
    double removed = 0;
    int sigprop_made = 0;
    for (size_t stop = 1; stop <= c.passes.size(); ++stop) {
      // Tier-2's segments: the cleanup, then SigProp (and MagRef) in one.
      std::vector<uint32_t> sizes{c.passes[0].end};
      std::vector<int> passes{1};
      if (stop > 1) {
        sizes.push_back(c.passes[stop - 1].end - c.passes[0].end);
        passes.push_back(static_cast<int>(stop) - 1);
      }
      BlockCode code;
      code.bytes = c.bytes.data();
      code.size = c.passes[stop - 1].end;
      code.segment_bytes = sizes.data();
      code.segment_passes = passes.data();
      code.segments = sizes.size();
      code.width = k.w;
      code.height = k.h;
      code.modes = k.modes;
      code.bitplanes = c.bitplanes;
      std::vector<int32_t> out(block.size(), 777);
      const BlockDecodeReport r = ht::decode_block(code, out.data(), k.w);
      ASSERT_FALSE(r.corrupt) << at << ", " << stop << " passes";
      ASSERT_EQ(r.passes, static_cast<int>(stop)) << at;
      removed += c.passes[stop - 1].distortion;
      double error = 0;
      int made = 0;
      for (size_t i = 0; i < block.size(); ++i) {
        const uint32_t q = static_cast<uint32_t>(std::llabs(static_cast<long long>(block[i]))) >> k.fraction_bits;
        const int32_t sign = block[i] < 0 ? -1 : 1;
        const std::string where = at + ", " + std::to_string(stop) + " passes, coefficient " + std::to_string(i);
        const int plane = stop == 3 ? p - 1 : p;
        if ((q >> p) != 0) {
          // Significant after the cleanup: its index at p, or at p - 1 after MagRef.
          ASSERT_EQ(out[i], sign * static_cast<int32_t>((2 * (q >> plane) + 1) << plane)) << where;
        } else if (out[i] != 0) {
          // SigProp made it significant: it is 1 at p - 1.
          ASSERT_GE(stop, 2u) << where;
          ASSERT_EQ(q >> (p - 1), 1u) << where;
          ASSERT_EQ(out[i], sign * (3 << (p - 1))) << where;
          ++made;
        }
        const double a = std::abs(static_cast<double>(block[i])) / unit;
        error += (a - decoded_magnitude(out[i], k.reversible)) * (a - decoded_magnitude(out[i], k.reversible));
      }
      if (stop == 2) sigprop_made = made;
      if (stop == 3) {
        ASSERT_EQ(made, sigprop_made) << at;  // MagRef makes none significant
      }
      // The encoder's bookkeeping against the decoded error (relative, for 30-bit blocks).
      ASSERT_NEAR(c.energy - removed, error, 1e-9 * std::max(1.0, c.energy)) << at << ", " << stop << " passes";
    }
    made_in_all += sigprop_made;
  }
  if (planes > 1 && k.w * k.h >= 64) {
    EXPECT_GT(made_in_all, 0) << what << ": SigProp made nothing significant at any plane";
  }
}

TEST(HtRefinementEncoder, EverySizeDepthAndPlane) {
  std::mt19937 rng(11);
  const int sizes[][2] = {{4, 4}, {8, 8}, {16, 16}, {32, 32}, {64, 64}, {32, 128}, {128, 32}, {4, 1024}, {1024, 4},
                          {1, 1}, {1, 7}, {7, 1}, {3, 5}, {33, 17}, {13, 64}};
  for (const auto& wh : sizes) {
    for (int depth : {1, 2, 3, 5, 8, 12, 16, 20, 25, 30}) {
      for (double zeros : {0.0, 0.6}) {
        const Case k{wh[0], wh[1], depth, 0, true, zeros, 0};
        const auto block = random_block(rng, static_cast<size_t>(k.w) * static_cast<size_t>(k.h), depth, zeros);
        check_every_plane(block, k, std::to_string(k.w) + "x" + std::to_string(k.h) + ", " + std::to_string(depth) + " bits");
      }
    }
  }
}

// The 9/7's form: fraction bits below the step, the reconstruction at the interval's middle.
TEST(HtRefinementEncoder, FractionBitsAndMidpoints) {
  std::mt19937 rng(12);
  for (int depth : {7, 10, 14, 24}) {
    for (int side : {8, 32, 64}) {
      const Case k{side, side, depth, 6, false, 0.3, 0};
      const auto block = random_block(rng, static_cast<size_t>(side * side), depth, k.zeros);
      check_every_plane(block, k, std::to_string(side) + "x" + std::to_string(side) + ", " + std::to_string(depth) + " bits, 9/7");
    }
  }
}

// The stripe-causal mode hides the stripe below from SigProp, in the encoder as in the decoder.
TEST(HtRefinementEncoder, StripeCausalMode) {
  std::mt19937 rng(13);
  for (int side : {4, 16, 64}) {
    const Case k{side, side, 9, 0, true, 0.5, kModeCausal};
    const auto block = random_block(rng, static_cast<size_t>(side * side), 9, k.zeros);
    check_every_plane(block, k, std::to_string(side) + " a side, causal");
  }
}

// Segments never end in 0xFF nor hold 0xFF followed by a byte above 0x8F (a marker code in a
// packet's body), at any stopping point: many blocks of all-ones bits.
TEST(HtRefinementEncoder, NoMarkerCodesInTheSegments) {
  std::mt19937 rng(14);
  for (int trial = 0; trial < 300; ++trial) {
    const int side = 4 << (trial % 4);
    std::vector<int32_t> block(static_cast<size_t>(side * side));
    for (auto& x : block) x = static_cast<int32_t>(rng() % 2 ? 0x7FFF : (rng() & 0x7FFF)) * ((rng() & 1) ? -1 : 1);
    BlockView v;
    v.data = block.data();
    v.stride = side;
    v.width = side;
    v.height = side;
    for (int p : {1, 3, 7, 12}) {
      v.cleanup_plane = p;
      const CodedBlock c = ht::encode_block(v);
      uint32_t from = 0;
      for (const CodedPass& pass : c.passes) {
        ASSERT_TRUE(pass.end == from || c.bytes[pass.end - 1] != 0xFF) << "a segment or stopping point ends in 0xFF";
        for (uint32_t i = from; i + 1 < pass.end; ++i)
          ASSERT_FALSE(c.bytes[i] == 0xFF && c.bytes[i + 1] > 0x8F) << "a marker code at byte " << i;
        if (pass.terminated) from = pass.end;
      }
    }
  }
}

}  // namespace
