// SPDX-License-Identifier: BSD-2-Clause
// HT rate control's choice of sets (codec/rate/ht_planes.hpp) on synthetic blocks whose every
// plane's cost and gain are known: the byte budget is met and nearly spent, whatever the model
// says (a model that is far off costs coding rounds, not the result), a PSNR target is
// reached, and a target beyond every plane takes plane 0 everywhere; no
// plane of a block is coded twice.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "codec/rate/ht_planes.hpp"

namespace {

using namespace j2k::codec;

// A block's truth: cleanup at plane p costs bytes[p] and removes removed[p]; its SigProp and
// MagRef passes each cost a share of the step to plane p - 1 and remove a share of its gain.
struct Truth {
  std::vector<double> bytes, removed;
};

Truth make_truth(std::mt19937& rng, int planes) {
  std::uniform_real_distribution<double> u(0.5, 2.0);
  Truth t;
  const double scale = u(rng), energy = 1e6 * u(rng);
  for (int p = 0; p < planes; ++p) {
    t.bytes.push_back(std::round(scale * 4000 / std::pow(1.9, p)) + 3);
    t.removed.push_back(energy * (1 - std::pow(0.25, planes - p)));
  }
  return t;
}

CodedBlock code(const Truth& t, int p) {
  CodedBlock c;
  c.bitplanes = p + 1;
  CodedPass cleanup;
  cleanup.end = static_cast<uint32_t>(t.bytes[static_cast<size_t>(p)]);
  cleanup.distortion = t.removed[static_cast<size_t>(p)];
  cleanup.terminated = true;
  c.passes.push_back(cleanup);
  if (p > 0) {
    const double step_bytes = t.bytes[static_cast<size_t>(p - 1)] - t.bytes[static_cast<size_t>(p)];
    const double step_gain = t.removed[static_cast<size_t>(p - 1)] - t.removed[static_cast<size_t>(p)];
    CodedPass sigprop, magref;
    sigprop.end = cleanup.end + static_cast<uint32_t>(0.45 * step_bytes) + 1;
    sigprop.distortion = 0.4 * step_gain;
    magref.end = sigprop.end + static_cast<uint32_t>(0.6 * step_bytes) + 1;
    magref.distortion = 0.45 * step_gain;
    magref.terminated = true;
    c.passes.push_back(sigprop);
    c.passes.push_back(magref);
  }
  c.bytes.resize(c.passes.back().end);
  return c;
}

struct Blocks {
  std::vector<Truth> truth;
  std::vector<HtBlock> blocks;
  ImageEnergy energy;
  std::set<std::pair<size_t, int>> coded;  // every (block, plane) asked for
};

// `model_bias`: the model's bytes are the truth's times this (1: exact).
Blocks make_setup(uint32_t seed, size_t n, double model_bias) {
  std::mt19937 rng(seed);
  Blocks s;
  s.energy.peak = 1e12;
  for (size_t i = 0; i < n; ++i) {
    const int planes = 3 + static_cast<int>(rng() % 8);
    s.truth.push_back(make_truth(rng, planes));
    HtBlock b;
    b.weight = 1;
    b.energy = s.truth.back().removed[0] * 1.01;
    for (int p = 0; p < planes; ++p)
      b.estimates.push_back({s.truth.back().bytes[static_cast<size_t>(p)] * model_bias, s.truth.back().removed[static_cast<size_t>(p)]});
    s.energy.total += b.energy;
    s.blocks.push_back(std::move(b));
  }
  return s;
}

constexpr double kHeaderBytes = 100;

double stream_bytes(const std::vector<HtBlock>& blocks) {
  double bytes = kHeaderBytes;
  for (const HtBlock& b : blocks)
    if (b.chosen >= 0) bytes += b.sets[static_cast<size_t>(b.chosen)].passes[static_cast<size_t>(b.passes - 1)].end + 2;
  return bytes;
}

double removed_of(const std::vector<HtBlock>& blocks) {
  double removed = 0;
  for (const HtBlock& b : blocks)
    if (b.chosen >= 0)
      for (int k = 0; k < b.passes; ++k) removed += b.sets[static_cast<size_t>(b.chosen)].passes[static_cast<size_t>(k)].distortion;
  return removed;
}

void run(Blocks& s, double target, bool by_bytes) {
  auto coder = [&](const std::vector<std::pair<size_t, int>>& jobs) {
    std::vector<CodedBlock> out;
    for (const auto& [i, p] : jobs) {
      EXPECT_TRUE(s.coded.insert({i, p}).second) << "block " << i << " plane " << p << " coded twice";
      out.push_back(code(s.truth[i], p));
    }
    return out;
  };
  choose_ht_sets(s.blocks, target, by_bytes, s.energy, coder, [&] { return static_cast<uint64_t>(stream_bytes(s.blocks)); });
}

TEST(HtPlanes, BudgetMetAndSpentWhateverTheModel) {
  for (const double bias : {1.0, 0.1, 10.0}) {
    for (const double share : {0.05, 0.2, 0.6}) {
      Blocks s = make_setup(7, 60, bias);
      double all = kHeaderBytes;
      for (const Truth& t : s.truth) all += t.bytes[0] + 2;
      const double target = share * all;
      run(s, target, true);
      const double bytes = stream_bytes(s.blocks);
      EXPECT_LE(bytes, target) << "model bias " << bias << ", share " << share;
      EXPECT_GE(bytes, 0.97 * target) << "model bias " << bias << ", share " << share;
    }
  }
}

// A model that is far off still ends where an exact one does, within a few tenths of a
// percent of the distortion: the rounds code the planes it missed.
TEST(HtPlanes, WrongModelsCostRoundsNotQuality) {
  Blocks exact = make_setup(9, 80, 1.0);
  double all = kHeaderBytes;
  for (const Truth& t : exact.truth) all += t.bytes[0] + 2;
  run(exact, 0.25 * all, true);
  for (const double bias : {0.05, 20.0}) {
    Blocks wrong = make_setup(9, 80, bias);
    run(wrong, 0.25 * all, true);
    EXPECT_GT(wrong.coded.size(), 0u);
    EXPECT_NEAR(removed_of(wrong.blocks), removed_of(exact.blocks), 0.003 * removed_of(exact.blocks)) << "bias " << bias;
  }
}

TEST(HtPlanes, PsnrTargetReachedAndUnreachableOnes) {
  Blocks s = make_setup(11, 50, 1.0);
  const double psnr = 10 * std::log10(s.energy.peak / (0.02 * s.energy.total));
  run(s, psnr, false);
  EXPECT_LE(s.energy.total - removed_of(s.blocks), 0.02 * s.energy.total);
  // Beyond every plane: every block at plane 0 (the most there is).
  Blocks t = make_setup(11, 50, 1.0);
  run(t, 200, false);
  for (const HtBlock& b : t.blocks) {
    ASSERT_GE(b.chosen, 0);
    EXPECT_EQ(b.sets[static_cast<size_t>(b.chosen)].bitplanes, 1);
  }
}

}  // namespace
