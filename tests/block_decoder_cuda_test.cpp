// SPDX-License-Identifier: BSD-2-Clause
// Tier-1 on the GPU (codec/tier1/gpu/cuda/block_decoder) against the CPU's decode_block() and
// dequantisation, bit for bit: blocks of every mode-switch combination, band and shape, cut
// at random truncation points, with ROI shifts, 5/3 and 9/7 steps, and corrupt bytes (which
// must decode to the CPU's coefficients too, SEGMARK failures counted alike). Skips where no
// CUDA device is there.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "codec/tier1/gpu/cuda/block_decoder.hpp"
#include "tests/support/decoder_cases.hpp"
#include "transform/backend.hpp"

namespace {

using namespace j2k::codec;
using test_support::Case;
using test_support::all_cases;
using test_support::decode_on_cpu;

j2k::Plane device_plane(void* base, size_t offset = 0) {
  j2k::Plane p;
  p.base = base;
  p.offset = offset;
  p.memory = J2K_MEMORY_DEVICE;
  return p;
}

TEST(BlockDecoderCuda, EqualsTheCpuBitForBit) {
  std::string why;
  if (!j2k::backend_available(j2k::Backend::Cuda, &why)) GTEST_SKIP() << "CUDA unavailable: " << why;
  int64_t total = 0;
  std::vector<Case> cases = all_cases(total);

  std::vector<int32_t> want(static_cast<size_t>(total));
  int want_segmark = 0;
  for (const Case& c : cases) decode_on_cpu(c, want.data() + c.at, want_segmark);

  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  void* plane = nullptr;
  ASSERT_EQ(cudaMalloc(&plane, static_cast<size_t>(total) * 4), cudaSuccess);
  ASSERT_EQ(cudaMemset(plane, 0x5A, static_cast<size_t>(total) * 4), cudaSuccess);  // every value must be written
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  std::vector<int32_t> got(static_cast<size_t>(total));
  {
    cuda::BlockBatch batch;
    // Two batches, as the decoder reuses one batch after the other. The first decodes every
    // block into one plane (tile 0). The second decodes the second half again, as blocks of
    // two tiles gathered into one launch: the even ones into the same plane (tile 1), the odd
    // ones into a plane of the batch's own (tile 2), copied out afterwards.
    batch.clear();
    for (const Case& c : cases) {
      check_block(c.code);
      batch.add(c.code, c.roi, 0, c.at, c.code.width, c.step);
    }
    const size_t bytes = static_cast<size_t>(total) * 4;
    batch.decode({device_plane(plane)}, {bytes}, stream, {0});
    batch.clear();
    for (size_t i = cases.size() / 2; i < cases.size(); ++i)
      batch.add(cases[i].code, cases[i].roi, i % 2, cases[i].at, cases[i].code.width, cases[i].step);
    const std::vector<j2k::Plane> own = batch.own_planes({bytes}, stream);
    ASSERT_EQ(cudaMemset(static_cast<char*>(own[0].base) + own[0].offset, 0x5A, bytes), cudaSuccess);
    batch.decode({device_plane(plane), own[0]}, {bytes, bytes}, stream, {1, 2});
    for (size_t i = cases.size() / 2; i < cases.size(); ++i) {
      if (i % 2 == 0) continue;
      const size_t at = static_cast<size_t>(cases[i].at) * 4;
      j2k::Plane from = own[0];
      from.offset += at;
      batch.copy(from, device_plane(plane, at), static_cast<size_t>(cases[i].code.width * cases[i].code.height) * 4, stream);
    }
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    const auto errors = batch.segmark_errors();
    int second[2] = {0, 0};
    for (size_t i = cases.size() / 2; i < cases.size(); ++i) {
      std::vector<int32_t> scratch(static_cast<size_t>(cases[i].code.width * cases[i].code.height));
      decode_on_cpu(cases[i], scratch.data(), second[i % 2]);
    }
    EXPECT_EQ(errors.count(0) ? errors.at(0) : 0, want_segmark) << "SEGMARK failures of the first batch";
    EXPECT_EQ(errors.count(1) ? errors.at(1) : 0, second[0]) << "SEGMARK failures of the second batch's tile 1";
    EXPECT_EQ(errors.count(2) ? errors.at(2) : 0, second[1]) << "SEGMARK failures of the second batch's tile 2";
    EXPECT_GT(want_segmark, 0) << "the flipped bytes should have broken some SEGMARK blocks";
    EXPECT_GT(second[0] * second[1], 0) << "both tiles of the second batch should hold broken SEGMARK blocks";
  }
  ASSERT_EQ(cudaMemcpy(got.data(), plane, static_cast<size_t>(total) * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaStreamDestroy(stream);
  cudaFree(plane);
  for (const Case& c : cases) {
    const size_t n = static_cast<size_t>(c.code.width * c.code.height);
    ASSERT_EQ(std::memcmp(got.data() + c.at, want.data() + c.at, n * 4), 0)
        << c.code.width << "x" << c.code.height << " block, modes " << int{c.code.modes} << ", band " << c.code.band
        << ", " << c.code.bitplanes << " planes, " << c.code.segments << " segments, roi " << c.roi << ", step " << c.step;
  }
}

}  // namespace
