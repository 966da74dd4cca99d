// SPDX-License-Identifier: BSD-2-Clause
// The CPU's HT sets against the reference's figures and bytes (codec/tier1/ht/
// refinement_rows, and the set's sums gathered with its samples in block_encoder.cpp): on
// random blocks of every shape, depth, plane and mode, encode_block's SigProp and MagRef bytes
// must be encode_refinement's (refinement_encoder.hpp, which the GPU runs) and every figure,
// the energy and each pass's distortion, the reference's double to the bit, since the GPU's
// sets must be the CPU's; in the portable build and, where the CPU runs it, the AVX2 one.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ht/block_encoder.hpp"
#include "codec/tier1/ht/refinement_encoder.hpp"
#include "tests/support/random_block.hpp"

namespace {

using namespace j2k::codec;

// encode_block's set at `plane` against the reference's figures and refinement bytes.
void check_set(const std::vector<int32_t>& block, BlockView v, int plane, ht::HtEncoderPath path, const std::string& what) {
  v.cleanup_plane = plane;
  const CodedBlock c = ht::encode_block(v, path);
  const ht::IndexBlock b = ht::index_block(v.data, v.stride, v.width, v.height, v.fraction_bits);
  const std::string at = what + ", plane " + std::to_string(plane);
  if (c.passes.empty()) return;  // nothing significant at that plane
  ASSERT_EQ(c.passes.size(), 3u) << at;
  if (v.estimate_distortion) {
    EXPECT_EQ(c.energy, ht::index_energy(b)) << at;
    EXPECT_EQ(c.passes[0].distortion, ht::cleanup_removed(b, plane, v.reversible)) << at;
  }
  const size_t n = block.size();
  std::vector<uint8_t> sig(ht::significance_bytes(v.width, v.height)), sigprop(ht::sigprop_capacity(n)), magref(ht::magref_capacity(n));
  const ht::Refinement r = ht::encode_refinement(b, plane, v.reversible, (v.modes & kModeCausal) != 0, v.estimate_distortion,
                                                 sig.data(), sigprop.data(), magref.data());
  const uint32_t cleanup = c.passes[0].end;
  ASSERT_EQ(c.passes[1].end, cleanup + r.sigprop_bytes) << at;
  ASSERT_EQ(c.passes[2].end, cleanup + r.sigprop_bytes + r.magref_bytes) << at;
  for (size_t i = 0; i < r.sigprop_bytes; ++i) ASSERT_EQ(c.bytes[cleanup + i], sigprop[i]) << at << ", SigProp byte " << i;
  for (size_t i = 0; i < r.magref_bytes; ++i)
    ASSERT_EQ(c.bytes[c.bytes.size() - 1 - i], magref[i]) << at << ", MagRef byte " << i << " from the end";
  EXPECT_EQ(c.passes[1].distortion, r.sigprop_removed) << at;
  EXPECT_EQ(c.passes[2].distortion, r.magref_removed) << at;
}

void check_every_plane(const std::vector<int32_t>& block, int w, int h, int fraction_bits, bool reversible, uint8_t modes,
                       const std::string& what) {
  BlockView v;
  v.data = block.data();
  v.stride = w;
  v.width = w;
  v.height = h;
  v.fraction_bits = fraction_bits;
  v.reversible = reversible;
  v.modes = modes;
  const int planes = ht::magnitude_bitplanes(v);
  for (bool estimate : {true, false}) {
    v.estimate_distortion = estimate;
    for (int p = 1; p < planes; ++p) {
      check_set(block, v, p, ht::HtEncoderPath::Portable, what + (estimate ? "" : ", no figures") + ", portable");
      if (ht::available(ht::HtEncoderPath::Avx2)) check_set(block, v, p, ht::HtEncoderPath::Avx2, what + (estimate ? "" : ", no figures") + ", AVX2");
    }
  }
}

TEST(HtRefinementRows, EveryShapeDepthAndMode) {
  std::mt19937 rng(21);
  const int sizes[][2] = {{4, 4},  {8, 8},   {16, 16}, {32, 32}, {64, 64}, {64, 1},  {1, 64},  {63, 65}, {65, 63},
                          {32, 128}, {128, 32}, {1, 1}, {1, 7},  {7, 1},   {3, 5},   {33, 17}, {13, 64}, {64, 13}, {17, 6}};
  for (const auto& wh : sizes)
    for (int depth : {2, 3, 5, 9, 14, 24})
      for (double zeros : {0.0, 0.5, 0.9})
        for (uint8_t modes : {uint8_t{0}, uint8_t{kModeCausal}})
          for (int fraction_bits : {0, 6}) {
            const auto block = test_support::random_block(rng, static_cast<size_t>(wh[0]) * static_cast<size_t>(wh[1]), depth, zeros);
            const std::string what = std::to_string(wh[0]) + "x" + std::to_string(wh[1]) + ", " + std::to_string(depth) + " bits, " +
                                     std::to_string(zeros) + " zeros" + (modes ? ", causal" : "") + ", " +
                                     std::to_string(fraction_bits) + " fraction bits";
            check_every_plane(block, wh[0], wh[1], fraction_bits, fraction_bits == 0, modes, what);
            check_every_plane(block, wh[0], wh[1], fraction_bits, false, modes, what + ", 9/7's midpoints");
          }
}

// Magnitudes too large for the integer sums (2^25 and up, with the fraction bits), and blocks
// whose energy passes 2^53 units: the figures then come from the reference's doubles.
TEST(HtRefinementRows, LargeMagnitudes) {
  std::mt19937 rng(22);
  for (int depth : {19, 20, 25, 30})
    for (int side : {8, 64}) {
      const auto block = test_support::random_block(rng, static_cast<size_t>(side * side), depth, 0.1);
      check_every_plane(block, side, side, depth <= 24 ? 6 : 0, false, 0, std::to_string(side) + " a side, " + std::to_string(depth) + " bits");
    }
}

// Chains that SigProp grows sample by sample: long runs of samples insignificant after the
// cleanup with their bit 1, beside one significant sample, in every direction.
TEST(HtRefinementRows, LongChains) {
  for (int side : {16, 64}) {
    for (int seed = 0; seed < 8; ++seed) {
      std::mt19937 rng(static_cast<unsigned>(100 + seed));
      std::vector<int32_t> block(static_cast<size_t>(side * side));
      for (auto& x : block) x = (rng() % 8 == 0 ? 0 : 2) * ((rng() & 1) ? -1 : 1);  // bit 1 set: SigProp's at plane 2
      block[rng() % block.size()] = 9;
      check_every_plane(block, side, side, 0, true, 0, std::to_string(side) + " a side, chains " + std::to_string(seed));
      check_every_plane(block, side, side, 0, false, kModeCausal, std::to_string(side) + " a side, chains, causal " + std::to_string(seed));
    }
  }
}

}  // namespace
