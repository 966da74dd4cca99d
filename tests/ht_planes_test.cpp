// SPDX-License-Identifier: BSD-2-Clause
// HT rate control's choice of sets (codec/rate/ht_planes.hpp) on synthetic blocks whose every
// plane's cost and gain are known: the byte budget is met and nearly spent, whatever the model
// says (a model that is far off costs coding rounds, not the result), a PSNR target is
// reached, and a target beyond every plane takes plane 0 everywhere; no
// plane of a block is coded twice. With a uniform plane, the choice is at least as good as
// that plane for every block. The step scale's search (uniform_scale) lands within its window
// of a target in a few codings of a sample (biased) and one of the whole image, from a guess
// far off, and at a bound where none is reachable.
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

// Blocks whose model and truth have the same planes (the uniform mode reads no model).
TEST(HtPlanes, UniformChoiceAtLeastAsGoodAsItsPlane) {
  for (const uint32_t seed : {3u, 5u, 8u}) {
    Blocks s = make_setup(seed, 70, 1.0);
    const int uniform = 1;
    double bytes = kHeaderBytes, removed = 0;
    for (const Truth& t : s.truth) bytes += t.bytes[uniform] + 2, removed += t.removed[uniform];
    int calls = 0;
    choose_ht_sets(s.blocks, bytes, true, s.energy,
                   [&](const std::vector<std::pair<size_t, int>>& jobs) {
                     std::vector<CodedBlock> out;
                     ++calls;
                     for (const auto& [i, p] : jobs) {
                       if (calls == 1) {
                         EXPECT_GE(p, uniform) << "the uniform plane or coarser first";
                       }
                       EXPECT_TRUE(s.coded.insert({i, p}).second) << "block " << i << " plane " << p << " coded twice";
                       out.push_back(code(s.truth[i], p));
                     }
                     return out;
                   },
                   [&] { return static_cast<uint64_t>(stream_bytes(s.blocks)); }, uniform);
    EXPECT_LE(stream_bytes(s.blocks), bytes) << "seed " << seed;
    EXPECT_GE(removed_of(s.blocks), removed) << "seed " << seed;
  }
}

// A measure like an image's over scales -1 to 12: bytes falling ever more slowly as the step
// grows, PSNR about 6 dB an octave.
UniformResult image_like(double x) {
  return {1e6 * std::exp(-1.5 * x + 0.06 * x * x) + 300, 60 - 6 * x + 0.2 * x * x};
}

// A sample of the blocks off the image by a bias that moves with the scale, a fifth of itself
// an octave from `at` (about what the benchmark's images showed: 0.024 moving 0.005 an octave).
UniformResult sample_like(double x, double bias, double at) {
  const UniformResult r = image_like(x);
  const double off = bias * (1 + 0.2 * (x - at));
  return {r.bytes * std::exp(off), r.psnr + 10 * off};
}

TEST(HtPlanes, UniformScaleFoundInAFewCodings) {
  for (const bool by_bytes : {true, false}) {
    for (const double want : {1.0, 3.7, 6.2}) {
      const UniformResult at = image_like(want);
      for (const double off : {-2.0, 0.3, 2.5}) {
        for (const double bias : {0.0, 0.005, -0.03}) {
          int sampled = 0, whole = 0;
          const double x = uniform_scale(
              {want + off, by_bytes ? 0.7 : 6.0}, by_bytes ? at.bytes : at.psnr, by_bytes, -1, 12,
              [&](double s) { return ++sampled, sample_like(s, bias, want); }, [&](double s) { return ++whole, image_like(s); });
          const UniformResult got = image_like(x);
          const std::string what = std::to_string(want) + " from " + std::to_string(off) + ", bias " + std::to_string(bias) +
                                   (by_bytes ? ", bytes" : ", PSNR");
          if (by_bytes) EXPECT_NEAR(std::log(got.bytes / at.bytes), 0, 0.003) << what;
          else EXPECT_NEAR(got.psnr, at.psnr, 0.01) << what;
          EXPECT_EQ(whole, 1) << what;
          EXPECT_LE(sampled, (std::abs(off) < 1 ? 5 : 7) + (bias != 0 ? 2 : 0)) << what;
        }
      }
    }
  }
}

// Without a whole measure, the sample is the image: no coding more.
TEST(HtPlanes, UniformScaleOnTheWholeImageAlone) {
  int codings = 0;
  const UniformResult at = image_like(3.7);
  const double x = uniform_scale({4.0, 0.7}, at.bytes, true, -1, 12, [&](double s) { return ++codings, image_like(s); }, {});
  EXPECT_NEAR(std::log(image_like(x).bytes / at.bytes), 0, 0.003);
  EXPECT_LE(codings, 5);
}

TEST(HtPlanes, UniformScaleAtABoundWhereNoneMeets) {
  // Fewer bytes than the floor: the coarsest scale; a PSNR beyond the finest: the finest.
  int codings = 0;
  auto measure = [&](double s) { return ++codings, image_like(s); };
  EXPECT_DOUBLE_EQ(uniform_scale({3, 0.7}, 100, true, -1, 12, measure, measure), 12);
  EXPECT_DOUBLE_EQ(uniform_scale({3, 6}, 200, false, -1, 12, measure, measure), -1);
  EXPECT_LE(codings, 32);
}

}  // namespace
