// SPDX-License-Identifier: BSD-2-Clause
// HT code-block cases for the tests of the HT decoder that the GPU batch runs
// (codec/tier1/ht/device_block_decoder.hpp): ht_device_decoder_test runs it on the host,
// gpu_block_batch_test on the GPU, both against the CPU's ht::decode_block(). Random blocks
// coded by the CPU's HT encoder with the cleanup pass at a random plane (plane 0: lossless,
// cleanup only; above: lossy, with SigProp and MagRef), delivered up to 1, 2 or 3 passes, with
// placeholder passes before the cleanup now and then, the stripe-causal mode, and then
// spoilt: segments cut short, bits flipped, noise, the bit planes off.
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "codec/tier1/ht/block_encoder.hpp"
#include "tests/support/decoder_cases.hpp"
#include "tests/support/random_block.hpp"

namespace test_support {

enum class HtDamage { None, Cut, Flipped, Noise, Planes, Count };

// `block` (w x h) coded with its cleanup at `plane`, delivered up to `stop` passes (1: the
// cleanup; 2: SigProp; 3: MagRef), with `placeholders` groups of 3 empty passes before it.
// Its pointers still to set (point()).
inline Case ht_case(const std::vector<int32_t>& block, int w, int h, int plane, size_t stop, int placeholders, uint8_t modes,
                    int band) {
  BlockView v;
  v.data = block.data();
  v.stride = w;
  v.width = w;
  v.height = h;
  v.modes = modes;
  v.cleanup_plane = plane;
  v.estimate_distortion = false;
  const CodedBlock c = ht::encode_block(v);
  Case k;
  k.code.width = w;
  k.code.height = h;
  k.code.band = static_cast<j2k_band_type>(band);
  k.code.modes = static_cast<uint8_t>(modes | kModeHt);
  if (c.passes.empty()) return k;  // nothing significant at that plane: no pass
  placeholders = std::min(placeholders, kMaxDecodedBitplanes - c.bitplanes);
  k.code.bitplanes = c.bitplanes + placeholders;
  stop = std::min(stop, c.passes.size());
  k.bytes.assign(c.bytes.begin(), c.bytes.begin() + c.passes[stop - 1].end);
  k.segment_bytes = {c.passes[0].end};
  k.segment_passes = {1 + 3 * placeholders};
  if (stop > 1) {
    k.segment_bytes.push_back(c.passes[stop - 1].end - c.passes[0].end);
    k.segment_passes.push_back(static_cast<int>(stop) - 1);
  }
  k.code.segments = k.segment_bytes.size();
  k.code.size = k.bytes.size();
  return k;
}

// Spoils the case's segments as `damage` says.
inline void spoil(Case& k, std::mt19937& rng, HtDamage damage) {
  if (k.bytes.empty()) return;
  switch (damage) {
    case HtDamage::Cut:  // the last segment cut short, as a partial packet leaves it
      if (k.segment_bytes.back() > 0) {
        const uint32_t cut = 1 + static_cast<uint32_t>(rng() % k.segment_bytes.back());
        k.segment_bytes.back() -= cut;
        k.bytes.resize(k.bytes.size() - cut);
      }
      break;
    case HtDamage::Flipped:
      for (int i = 0, n = 1 + static_cast<int>(rng() % 4); i < n; ++i) k.bytes[rng() % k.bytes.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
      break;
    case HtDamage::Noise: {  // with the cleanup segment's length field kept plausible half the time
      static const uint8_t kSpecial[] = {0xFF, 0x7F, 0x8F, 0x90, 0x91, 0xFE};
      for (auto& b : k.bytes) b = (rng() % 3 == 0) ? kSpecial[rng() % 6] : static_cast<uint8_t>(rng());
      const size_t lcup = k.segment_bytes[0];
      if (lcup >= 2 && (rng() & 1)) {
        const size_t scup = 2 + rng() % (lcup - 1);
        k.bytes[lcup - 1] = static_cast<uint8_t>(scup >> 4);
        k.bytes[lcup - 2] = static_cast<uint8_t>((k.bytes[lcup - 2] & 0xF0) | (scup & 0x0F));
      }
      break;
    }
    case HtDamage::Planes:  // the block's bit planes off by a few (its missing MSBs misread)
      k.code.bitplanes = std::clamp(k.code.bitplanes + static_cast<int>(rng() % 7) - 3, 0, kMaxDecodedBitplanes);
      break;
    default: break;
  }
  k.code.size = k.bytes.size();
}

// A random w x h block of up to 30-bit magnitudes, coded at a random plane (plane 0 one time
// in three: lossless), delivered up to a random pass, spoilt as `damage` says.
inline Case random_ht_case(std::mt19937& rng, int w, int h, HtDamage damage) {
  const int depth = 1 + static_cast<int>(rng() % 30);
  const double zeros = (rng() % 4) * 0.3;
  const std::vector<int32_t> block = random_block(rng, static_cast<size_t>(w) * static_cast<size_t>(h), depth, zeros);
  const int plane = rng() % 3 == 0 ? 0 : static_cast<int>(rng() % static_cast<unsigned>(depth));
  const size_t stop = 1 + rng() % 3;
  const int placeholders = rng() % 4 == 0 ? 1 : 0;
  const uint8_t modes = rng() % 4 == 0 ? kModeCausal : 0;
  Case k = ht_case(block, w, h, plane, stop, placeholders, modes, static_cast<int>(rng() % 4));
  spoil(k, rng, damage);
  return k;
}

// The HT cases of a test: every shape of the list (square and odd sizes, 4x4 to 64x64, the
// long ones of A.6.1), each intact and with every damage, twice, with ROI shifts now and
// then and 5/3 and 9/7 steps alternately; each at its own place `at` in one plane of `total`
// values, counting on from `total`, their pointers set.
inline std::vector<Case> ht_cases(int64_t& total, uint32_t seed = 41) {
  const std::pair<int, int> shapes[] = {{1, 1},   {4, 4},   {1, 7},   {7, 1},    {3, 5},    {5, 9},     {8, 8},
                                        {17, 13}, {16, 16}, {32, 32}, {33, 31},  {64, 64},  {64, 63},   {63, 64},
                                        {1024, 4}, {4, 1024}, {1024, 1}, {1, 1024}, {2, 1024}, {1024, 3}, {128, 32}};
  std::mt19937 rng(seed);
  std::vector<Case> cases;
  for (int round = 0; round < 2; ++round)
    for (const auto& [w, h] : shapes)
      for (int d = 0; d < static_cast<int>(HtDamage::Count); ++d) {
        Case k = random_ht_case(rng, w, h, static_cast<HtDamage>(d));
        if (rng() % 5 == 0 && k.code.bitplanes > 0) {
          k.roi = std::uniform_int_distribution<int>(1, 12)(rng);
          k.code.bitplanes = std::min(k.code.bitplanes + k.roi, kMaxDecodedBitplanes);
        }
        k.step = rng() % 2 ? 0.0f : std::uniform_real_distribution<float>(0.01f, 8.0f)(rng);
        k.at = total;
        total += static_cast<int64_t>(w) * h;
        cases.push_back(std::move(k));
      }
  for (Case& c : cases) point(c);
  return cases;
}

}  // namespace test_support
