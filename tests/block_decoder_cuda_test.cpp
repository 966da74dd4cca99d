// Tier-1 on the GPU (codec/tier1/cuda/block_decoder) against the CPU's decode_block() and
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

#include "codec/quant/dequantiser.hpp"
#include "codec/tier1/block_decoder.hpp"
#include "codec/tier1/block_encoder.hpp"
#include "codec/tier1/cuda/block_decoder.hpp"
#include "tests/support/coded_blocks.hpp"
#include "transform/backend.hpp"

namespace {

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

// A random block, encoded, then delivered up to a random pass (its segments as Tier-2 would
// hand them over), its bytes flipped now and then.
Case make_case(std::mt19937& rng, int w, int h, int modes, int band) {
  const int bits = std::uniform_int_distribution<int>(1, 20)(rng);
  const std::vector<int32_t> data =
      test_support::random_coefficients(rng, w * h, bits, std::uniform_real_distribution<double>(0, 0.95)(rng));
  BlockView view;
  view.data = data.data();
  view.stride = w;
  view.width = w;
  view.height = h;
  view.band = static_cast<j2k_band_type>(band);
  view.modes = static_cast<uint8_t>(modes);
  view.estimate_distortion = false;
  const CodedBlock cb = encode_block(view);
  Case c;
  c.bytes = cb.bytes;
  const int total = static_cast<int>(cb.passes.size());
  const int passes = total == 0 ? 0 : std::uniform_int_distribution<int>(total / 2, total)(rng);
  test_support::Delivered d = test_support::deliver(cb, passes);
  c.segment_bytes = std::move(d.bytes);
  c.segment_passes = std::move(d.passes);
  if (!c.bytes.empty() && rng() % 4 == 0) c.bytes[rng() % c.bytes.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
  c.code.size = c.bytes.size();
  c.code.segments = c.segment_bytes.size();
  c.code.width = w;
  c.code.height = h;
  c.code.band = static_cast<j2k_band_type>(band);
  c.code.modes = static_cast<uint8_t>(modes);
  c.code.bitplanes = cb.bitplanes + (rng() % 3 == 0 ? 2 : 0);  // planes the block skips at the top, now and then
  c.roi = rng() % 5 == 0 ? std::uniform_int_distribution<int>(1, 12)(rng) : 0;
  c.code.bitplanes += c.roi;
  if (c.code.bitplanes > kMaxDecodedBitplanes) c.code.bitplanes = kMaxDecodedBitplanes;
  c.step = rng() % 2 ? 0.0f : std::uniform_real_distribution<float>(0.01f, 8.0f)(rng);
  return c;
}

void point(Case& c) {  // the code's pointers into the case's own vectors (after copies)
  c.code.bytes = c.bytes.data();
  c.code.segment_bytes = c.segment_bytes.data();
  c.code.segment_passes = c.segment_passes.data();
}

// What the decoder's CPU path writes for the block (codec/decoder.cpp).
void decode_on_cpu(const Case& c, int32_t* out, int& segmark_errors) {
  std::vector<int32_t> values(static_cast<size_t>(c.code.width * c.code.height));
  if (decode_block(c.code, values.data(), c.code.width).segmark_error) ++segmark_errors;
  undo_roi_shift(values.data(), values.size(), c.roi);
  if (c.step == 0.0f)
    dequantise_reversible(values.data(), c.code.width, c.code.width, c.code.height, out, c.code.width);
  else
    dequantise_irreversible(values.data(), c.code.width, c.code.width, c.code.height, c.step, reinterpret_cast<float*>(out),
                            c.code.width);
}

TEST(BlockDecoderCuda, EqualsTheCpuBitForBit) {
  std::string why;
  if (!j2k::backend_available(j2k::Backend::Cuda, &why)) GTEST_SKIP() << "CUDA unavailable: " << why;
  const std::pair<int, int> shapes[] = {{1, 1}, {1, 7}, {7, 1}, {3, 5}, {5, 9}, {17, 13}, {32, 32},
                                        {64, 64}, {64, 64}, {1024, 4}, {4, 1024}, {2, 1024}, {64, 63}};
  std::mt19937 rng(17);
  std::vector<Case> cases;
  int64_t total = 0;
  for (int modes = 0; modes < 64; ++modes)
    for (int band = 0; band < 4; ++band)
      for (const auto& [w, h] : shapes) {
        if (w * h > 1100 && (modes + band) % 4 != 0) continue;
        cases.push_back(make_case(rng, w, h, modes, band));
        cases.back().at = total;
        total += w * h;
      }
  for (Case& c : cases) point(c);

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
    batch.decode({plane}, stream, {0});
    batch.clear();
    for (size_t i = cases.size() / 2; i < cases.size(); ++i)
      batch.add(cases[i].code, cases[i].roi, i % 2, cases[i].at, cases[i].code.width, cases[i].step);
    const std::vector<void*> own = batch.own_planes({static_cast<size_t>(total) * 4});
    ASSERT_EQ(cudaMemset(own[0], 0x5A, static_cast<size_t>(total) * 4), cudaSuccess);
    batch.decode({plane, own[0]}, stream, {1, 2});
    for (size_t i = cases.size() / 2; i < cases.size(); ++i) {
      if (i % 2 == 0) continue;
      const size_t at = static_cast<size_t>(cases[i].at) * 4;
      cuda::BlockBatch::copy(static_cast<char*>(own[0]) + at, static_cast<char*>(plane) + at,
                             static_cast<size_t>(cases[i].code.width * cases[i].code.height) * 4, stream);
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
