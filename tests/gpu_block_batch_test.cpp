// SPDX-License-Identifier: BSD-2-Clause
// Every GPU Tier-1 batch (codec/tier1/gpu: CUDA, OpenCL) against the CPU's decode_block() and
// dequantisation, bit for bit, through the one interface the decoder uses (GpuBlockBatch):
// - blocks of every mode-switch combination, band and shape, cut at random truncation points,
//   with ROI shifts, 5/3 and 9/7 steps, and corrupt bytes (which must decode to the CPU's
//   coefficients too, SEGMARK failures counted alike), in two batches as the decoder reuses
//   them, the second gathering two tiles into one launch through the batch's own planes;
// - every pass pinned: each block delivered up to each of its passes in turn, so that the
//   GPU's passes (the CUDA build of the CPU's passes, and the OpenCL C ones of
//   gpu/opencl/block_decoder.cl, a second source) agree after each one;
// - HT code-blocks (Part 15) on the batches that decode them (CUDA's and OpenCL's, the
//   second an OpenCL C source of the same steps): every size, lossless
//   and lossy with SigProp and MagRef, cut and corrupted (tests/support/ht_decoder_cases.hpp,
//   whose cases ht_device_decoder_test runs through the same decoder on the host), mixed with
//   Part 1 blocks in one launch as an HTMIXED tile's are, the corrupt ones counted per tile
//   as the CPU counts them.
// A backend without a device here skips, naming why (PoCL runs OpenCL on the CPU in CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "codec/tier1/gpu/gpu_block_batch.hpp"
#include "tests/support/decoder_cases.hpp"
#include "tests/support/ht_decoder_cases.hpp"
#include "tests/support/gpu_memory.hpp"

namespace {

using namespace j2k::codec;
using j2k::Backend;
using j2k::Plane;
using test_support::Case;
using test_support::decode_on_cpu;

std::string describe(const Case& c) {
  return std::to_string(c.code.width) + "x" + std::to_string(c.code.height) + " block, modes " +
         std::to_string(int{c.code.modes}) + ", band " + std::to_string(c.code.band) + ", " +
         std::to_string(c.code.bitplanes) + " planes, " + std::to_string(c.code.segments) + " segments, roi " +
         std::to_string(c.roi) + ", step " + std::to_string(c.step);
}

class GpuBlockBatchTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    std::string why;
    memory_ = test_support::make_gpu_memory(GetParam(), why);
    if (!memory_) GTEST_SKIP() << j2k::backend_name(GetParam()) << " unavailable: " << why;
    batch_ = make_gpu_block_batch(j2k::BackendOptions(GetParam()));
  }

  // Whether the plane holds, at each case from `first` on, the CPU's coefficients.
  void expect_cpu_values(const Plane& plane, const std::vector<Case>& cases, const std::vector<int32_t>& want,
                         size_t first, const char* which) {
    std::vector<int32_t> got(want.size());
    memory_->read(plane, got.data(), got.size() * 4);
    for (size_t i = first; i < cases.size(); ++i) {
      const Case& c = cases[i];
      const size_t n = static_cast<size_t>(c.code.width * c.code.height);
      ASSERT_EQ(std::memcmp(got.data() + c.at, want.data() + c.at, n * 4), 0) << describe(c) << " (" << which << ")";
    }
  }

  // Every case in one batch, into `plane` (tile 0) at its place.
  void decode_into(const Plane& plane, size_t bytes, const std::vector<Case>& cases) {
    batch_->clear();
    for (const Case& c : cases) {
      check_block(c.code);
      batch_->add(c.code, c.roi, 0, c.at, c.code.width, c.step);
    }
    batch_->decode({plane}, {bytes}, memory_->stream(), {0});
  }

  std::unique_ptr<test_support::GpuMemory> memory_;
  std::unique_ptr<GpuBlockBatch> batch_;
};

TEST_P(GpuBlockBatchTest, EqualsTheCpuBitForBit) {
  int64_t total = 0;
  const std::vector<Case> cases = test_support::all_cases(total);
  const size_t bytes = static_cast<size_t>(total) * 4;
  std::vector<int32_t> want(static_cast<size_t>(total));
  int want_segmark = 0;
  for (const Case& c : cases) decode_on_cpu(c, want.data() + c.at, want_segmark);

  const Plane plane = memory_->filled(bytes, 0x5A);  // every value must be written
  // The first batch decodes every block into one plane (tile 0), in place.
  decode_into(plane, bytes, cases);
  expect_cpu_values(plane, cases, want, 0, "first batch");

  // The second decodes the second half again, as blocks of two tiles gathered into one
  // launch: the even ones into the same plane (tile 1), the odd ones into a plane of the
  // batch's own (tile 2), copied out afterwards.
  const size_t half = cases.size() / 2;
  batch_->clear();
  for (size_t i = half; i < cases.size(); ++i)
    batch_->add(cases[i].code, cases[i].roi, i % 2, cases[i].at, cases[i].code.width, cases[i].step);
  const std::vector<Plane> own = batch_->own_planes({bytes}, memory_->stream());
  memory_->fill(own[0], bytes, 0x5A);
  memory_->fill(plane, bytes, 0x5A);
  batch_->decode({plane, own[0]}, {bytes, bytes}, memory_->stream(), {1, 2});
  for (size_t i = half; i < cases.size(); ++i) {
    if (i % 2 == 0) continue;
    const size_t at = static_cast<size_t>(cases[i].at) * 4;
    Plane from = own[0], to = plane;
    from.offset += at;
    to.offset += at;
    batch_->copy(from, to, static_cast<size_t>(cases[i].code.width * cases[i].code.height) * 4, memory_->stream());
  }
  expect_cpu_values(plane, cases, want, half, "second batch");

  const auto errors = batch_->segmark_errors();
  int second[2] = {0, 0};
  for (size_t i = half; i < cases.size(); ++i) {
    std::vector<int32_t> scratch(static_cast<size_t>(cases[i].code.width * cases[i].code.height));
    decode_on_cpu(cases[i], scratch.data(), second[i % 2]);
  }
  EXPECT_EQ(errors.count(0) ? errors.at(0) : 0, want_segmark) << "SEGMARK failures of the first batch";
  EXPECT_EQ(errors.count(1) ? errors.at(1) : 0, second[0]) << "SEGMARK failures of the second batch's tile 1";
  EXPECT_EQ(errors.count(2) ? errors.at(2) : 0, second[1]) << "SEGMARK failures of the second batch's tile 2";
  EXPECT_GT(want_segmark, 0) << "the flipped bytes should have broken some SEGMARK blocks";
  EXPECT_GT(second[0] * second[1], 0) << "both tiles of the second batch should hold broken SEGMARK blocks";
}

TEST_P(GpuBlockBatchTest, EveryPassAsTheCpu) {
  int64_t total = 0;
  const std::vector<Case> cases = test_support::every_pass_cases(total);
  const size_t bytes = static_cast<size_t>(total) * 4;
  std::vector<int32_t> want(static_cast<size_t>(total));
  int segmark = 0;
  for (const Case& c : cases) decode_on_cpu(c, want.data() + c.at, segmark);
  EXPECT_EQ(segmark, 0) << "intact blocks cut at a pass boundary end their cleanup passes well";

  const Plane plane = memory_->filled(bytes, 0x5A);
  decode_into(plane, bytes, cases);
  expect_cpu_values(plane, cases, want, 0, "cut after its last delivered pass");
  EXPECT_TRUE(batch_->segmark_errors().empty());
}

TEST_P(GpuBlockBatchTest, HtAndPart1BlocksInOneLaunchAsTheCpu) {
  if (!batch_->decodes_ht()) {
    int64_t values = 0;
    const std::vector<Case> one = test_support::ht_cases(values);
    EXPECT_THROW(batch_->add(one.front().code, 0, 0, 0, 1, 0.0f), j2k::Error) << "an HT block for a batch that decodes Part 1's only";
    GTEST_SKIP() << j2k::backend_name(GetParam()) << "'s batch decodes Part 1 blocks only (HT ones on the CPU: decoder.cpp)";
  }
  // The HT cases, then as many Part 1 ones, interleaved in one plane.
  int64_t total = 0;
  std::vector<Case> cases = test_support::ht_cases(total);
  const size_t ht = cases.size();
  {
    int64_t part1_total = 0;
    std::vector<Case> part1 = test_support::all_cases(part1_total);
    part1.resize(std::min(part1.size(), ht));
    for (Case& c : part1) {
      c.at += total;
      cases.push_back(std::move(c));
    }
    total += part1_total;
    for (Case& c : cases) test_support::point(c);
  }
  const size_t bytes = static_cast<size_t>(total) * 4;
  std::vector<int32_t> want(static_cast<size_t>(total));
  int want_segmark[2] = {0, 0}, want_corrupt[2] = {0, 0};  // by tile: even cases, odd cases
  for (size_t i = 0; i < cases.size(); ++i) decode_on_cpu(cases[i], want.data() + cases[i].at, want_segmark[i % 2], &want_corrupt[i % 2]);

  // Two tiles' planes: the even cases into `plane` (tile 3), the odd ones into a second plane
  // (tile 4), alternately HT and Part 1 blocks in the order added.
  const Plane plane = memory_->filled(bytes, 0x5A), other = memory_->filled(bytes, 0x5A);
  batch_->clear();
  for (size_t k = 0; k < ht; ++k)
    for (size_t i : {k, ht + k})
      if (i < cases.size()) {
        check_block(cases[i].code);
        batch_->add(cases[i].code, cases[i].roi, i % 2, cases[i].at, cases[i].code.width, cases[i].step);
      }
  batch_->decode({plane, other}, {bytes, bytes}, memory_->stream(), {3, 4});
  std::vector<int32_t> got[2] = {std::vector<int32_t>(want.size()), std::vector<int32_t>(want.size())};
  memory_->read(plane, got[0].data(), bytes);
  memory_->read(other, got[1].data(), bytes);
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const size_t n = static_cast<size_t>(c.code.width * c.code.height);
    ASSERT_EQ(std::memcmp(got[i % 2].data() + c.at, want.data() + c.at, n * 4), 0)
        << (i < ht ? "HT " : "Part 1 ") << describe(c);
  }
  const auto corrupt = batch_->corrupt_blocks();
  const auto segmark = batch_->segmark_errors();
  EXPECT_EQ(corrupt.count(3) ? corrupt.at(3) : 0, want_corrupt[0]) << "corrupt HT blocks of tile 3";
  EXPECT_EQ(corrupt.count(4) ? corrupt.at(4) : 0, want_corrupt[1]) << "corrupt HT blocks of tile 4";
  EXPECT_EQ(segmark.count(3) ? segmark.at(3) : 0, want_segmark[0]) << "SEGMARK failures of tile 3";
  EXPECT_EQ(segmark.count(4) ? segmark.at(4) : 0, want_segmark[1]) << "SEGMARK failures of tile 4";
  EXPECT_GT(want_corrupt[0] * want_corrupt[1], 0) << "both tiles should hold corrupt HT blocks";
  EXPECT_TRUE(batch_->corrupt_blocks().empty()) << "counted once";
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuBlockBatchTest, ::testing::Values(Backend::Cuda, Backend::OpenCL),
                         [](const ::testing::TestParamInfo<Backend>& p) {
                           return std::string(j2k::backend_name(p.param));
                         });

}  // namespace
