// SPDX-License-Identifier: BSD-2-Clause
// Code-block cases for the GPU Tier-1 batches' test (gpu_block_batch_test), which compares a
// GPU's coefficients with the CPU's bit for bit: blocks of every mode-switch combination, band
// and shape, cut at random truncation points or at every pass, with ROI shifts, 5/3 and 9/7
// steps, and corrupt bytes; and the CPU's coefficients for them.
#pragma once
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "codec/quant/dequantiser.hpp"
#include "codec/tier1/ebcot/block_decoder.hpp"
#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier1/ht/block_decoder.hpp"
#include "tests/support/coded_blocks.hpp"

namespace test_support {

using namespace j2k::codec;

// One block as a test case: its code (bytes and segments of its own), where it goes.
struct Case {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> segment_bytes;
  std::vector<int> segment_passes;
  BlockCode code;
  int roi = 0;
  float step = 0.0f;
  int64_t at = 0;
};

// A random block of `w` x `h` coefficients of up to 20 bits, encoded with `modes`.
inline CodedBlock random_coded_block(std::mt19937& rng, int w, int h, int modes, int band) {
  const int bits = std::uniform_int_distribution<int>(1, 20)(rng);
  const std::vector<int32_t> data =
      random_coefficients(rng, w * h, bits, std::uniform_real_distribution<double>(0, 0.95)(rng));
  BlockView view;
  view.data = data.data();
  view.stride = w;
  view.width = w;
  view.height = h;
  view.band = static_cast<j2k_band_type>(band);
  view.modes = static_cast<uint8_t>(modes);
  view.estimate_distortion = false;
  return encode_block(view);
}

// The block `cb` delivered up to its first `passes` passes (its segments as Tier-2 would hand
// them over), intact, 5/3 (step 0) or 9/7; its pointers still to set (point()).
inline Case case_at_pass(const CodedBlock& cb, int passes, int w, int h, int modes, int band, float step) {
  Case c;
  c.bytes = cb.bytes;
  Delivered d = deliver(cb, passes);
  c.segment_bytes = std::move(d.bytes);
  c.segment_passes = std::move(d.passes);
  c.code.size = c.bytes.size();
  c.code.segments = c.segment_bytes.size();
  c.code.width = w;
  c.code.height = h;
  c.code.band = static_cast<j2k_band_type>(band);
  c.code.modes = static_cast<uint8_t>(modes);
  c.code.bitplanes = cb.bitplanes;
  c.step = step;
  return c;
}

// A random block, encoded, then delivered up to a random pass, its bytes flipped now and then.
inline Case make_case(std::mt19937& rng, int w, int h, int modes, int band) {
  const CodedBlock cb = random_coded_block(rng, w, h, modes, band);
  const int total = static_cast<int>(cb.passes.size());
  const int passes = total == 0 ? 0 : std::uniform_int_distribution<int>(total / 2, total)(rng);
  Case c = case_at_pass(cb, passes, w, h, modes, band, 0.0f);
  if (!c.bytes.empty() && rng() % 4 == 0) c.bytes[rng() % c.bytes.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
  c.code.size = c.bytes.size();
  c.code.bitplanes = cb.bitplanes + (rng() % 3 == 0 ? 2 : 0);  // planes the block skips at the top, now and then
  c.roi = rng() % 5 == 0 ? std::uniform_int_distribution<int>(1, 12)(rng) : 0;
  c.code.bitplanes += c.roi;
  if (c.code.bitplanes > kMaxDecodedBitplanes) c.code.bitplanes = kMaxDecodedBitplanes;
  c.step = rng() % 2 ? 0.0f : std::uniform_real_distribution<float>(0.01f, 8.0f)(rng);
  return c;
}

inline void point(Case& c) {  // the code's pointers into the case's own vectors (after copies)
  c.code.bytes = c.bytes.data();
  c.code.segment_bytes = c.segment_bytes.data();
  c.code.segment_passes = c.segment_passes.data();
}

// What the decoder's CPU path writes for the block (codec/decoder.cpp): EBCOT's decoder or,
// for a block with kModeHt, HT's. `corrupt`: HT blocks decoded as zeros, where asked.
inline void decode_on_cpu(const Case& c, int32_t* out, int& segmark_errors, int* corrupt = nullptr) {
  std::vector<int32_t> values(static_cast<size_t>(c.code.width * c.code.height));
  const BlockDecodeReport r = (c.code.modes & kModeHt) ? ht::decode_block(c.code, values.data(), c.code.width)
                                                        : decode_block(c.code, values.data(), c.code.width);
  if (r.segmark_error) ++segmark_errors;
  if (r.corrupt && corrupt) ++*corrupt;
  undo_roi_shift(values.data(), values.size(), c.roi);
  if (c.step == 0.0f)
    dequantise_reversible(values.data(), c.code.width, c.code.width, c.code.height, out, c.code.width);
  else
    dequantise_irreversible(values.data(), c.code.width, c.code.width, c.code.height, c.step, reinterpret_cast<float*>(out),
                            c.code.width);
}

// The cases of a test: every mode-switch combination, band and shape (the larger shapes for a
// quarter of the combinations), each at its own place `at` in one plane of `total` values,
// their pointers set.
inline std::vector<Case> all_cases(int64_t& total) {
  const std::pair<int, int> shapes[] = {{1, 1}, {1, 7}, {7, 1}, {3, 5}, {5, 9}, {17, 13}, {32, 32},
                                        {64, 64}, {64, 64}, {1024, 4}, {4, 1024}, {2, 1024}, {64, 63}};
  std::mt19937 rng(17);
  std::vector<Case> cases;
  total = 0;
  for (int modes = 0; modes < 64; ++modes)
    for (int band = 0; band < 4; ++band)
      for (const auto& [w, h] : shapes) {
        if (w * h > 1100 && (modes + band) % 4 != 0) continue;
        cases.push_back(make_case(rng, w, h, modes, band));
        cases.back().at = total;
        total += w * h;
      }
  for (Case& c : cases) point(c);
  return cases;
}

// Every pass pinned: for every mode-switch combination, a block of each band and of three
// shapes, delivered up to each of its passes in turn (0 to all), 5/3 and 9/7 alternately, so
// that a GPU's passes must agree with the CPU's after each one, not only at the end.
inline std::vector<Case> every_pass_cases(int64_t& total) {
  const std::pair<int, int> shapes[] = {{5, 9}, {32, 32}, {64, 64}};
  std::mt19937 rng(29);
  std::vector<Case> cases;
  total = 0;
  for (int modes = 0; modes < 64; ++modes)
    for (const auto& [w, h] : shapes) {
      const int band = (modes + w) % 4;
      const CodedBlock cb = random_coded_block(rng, w, h, modes, band);
      for (int passes = 0; passes <= static_cast<int>(cb.passes.size()); ++passes) {
        cases.push_back(case_at_pass(cb, passes, w, h, modes, band, passes % 2 ? 0.5f : 0.0f));
        cases.back().at = total;
        total += w * h;
      }
    }
  for (Case& c : cases) point(c);
  return cases;
}

}  // namespace test_support
