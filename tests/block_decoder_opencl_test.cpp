// SPDX-License-Identifier: BSD-2-Clause
// Tier-1 on an OpenCL device (codec/tier1/gpu/opencl/block_decoder) against the CPU's
// decode_block() and dequantisation, bit for bit, on the cases of the CUDA test
// (tests/support/decoder_cases.hpp), SEGMARK failures counted alike. Skips where no OpenCL
// device is there (PoCL runs it on the CPU).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "codec/tier1/gpu/opencl/block_decoder.hpp"
#include "tests/support/decoder_cases.hpp"
#include "transform/backend.hpp"
#include "transform/opencl/opencl_dwt.hpp"

namespace {

using namespace j2k::codec;
using j2k::Plane;
using test_support::Case;
using test_support::all_cases;
using test_support::decode_on_cpu;

// A device buffer of `bytes`, every byte `fill`.
cl_mem filled_buffer(const j2k::ocl::Runner& runner, size_t bytes, unsigned char fill) {
  cl_int err = CL_SUCCESS;
  cl_mem m = j2k::ocl::cl().clCreateBuffer(runner.context(), CL_MEM_READ_WRITE, bytes, nullptr, &err);
  j2k::ocl::check(err, "clCreateBuffer");
  const std::vector<unsigned char> pattern(bytes, fill);
  j2k::ocl::check(j2k::ocl::cl().clEnqueueWriteBuffer(runner.queue(), m, CL_TRUE, 0, bytes, pattern.data(), 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer");
  return m;
}

Plane plane_of(cl_mem m, size_t offset = 0) {
  Plane p;
  p.base = m;
  p.offset = offset;
  p.memory = J2K_MEMORY_DEVICE;
  return p;
}

TEST(BlockDecoderOpenCL, EqualsTheCpuBitForBit) {
  std::string why;
  if (!j2k::backend_available(j2k::Backend::OpenCL, &why)) GTEST_SKIP() << "OpenCL unavailable: " << why;
  int64_t total = 0;
  std::vector<Case> cases = all_cases(total);
  const size_t bytes = static_cast<size_t>(total) * 4;

  std::vector<int32_t> want(static_cast<size_t>(total));
  int want_segmark = 0;
  for (const Case& c : cases) decode_on_cpu(c, want.data() + c.at, want_segmark);

  j2k::ocl::Runner runner(j2k::ocl::select_device(-1));
  cl_command_queue queue = runner.queue();
  cl_mem plane = filled_buffer(runner, bytes, 0x5A);  // every value must be written
  std::vector<int32_t> got(static_cast<size_t>(total));
  auto compare = [&](size_t first) {
    ASSERT_EQ(j2k::ocl::cl().clEnqueueReadBuffer(queue, plane, CL_TRUE, 0, bytes, got.data(), 0, nullptr, nullptr), CL_SUCCESS);
    for (size_t i = first; i < cases.size(); ++i) {
      const Case& c = cases[i];
      const size_t n = static_cast<size_t>(c.code.width * c.code.height);
      ASSERT_EQ(std::memcmp(got.data() + c.at, want.data() + c.at, n * 4), 0)
          << c.code.width << "x" << c.code.height << " block, modes " << int{c.code.modes} << ", band " << c.code.band
          << ", " << c.code.bitplanes << " planes, " << c.code.segments << " segments, roi " << c.roi << ", step " << c.step
          << (first == 0 ? " (first batch)" : " (second batch)");
    }
  };
  opencl::BlockBatch batch;
  // Two batches, as the decoder reuses one batch after the other. The first decodes every
  // block into one plane (tile 0), in place.
  batch.clear();
  for (const Case& c : cases) {
    check_block(c.code);
    batch.add(c.code, c.roi, 0, c.at, c.code.width, c.step);
  }
  batch.decode({plane_of(plane)}, {bytes}, queue, {0});
  compare(0);
  // The second decodes the second half again, as blocks of two tiles gathered into one
  // launch: the even ones into the same plane (tile 1), the odd ones into a plane of the
  // batch's own (tile 2). Two buffers: decoded through the batch's and copied out, each plane
  // whole (the first half of `plane` then undefined); the odd ones then copied into `plane`.
  const size_t half = cases.size() / 2;
  batch.clear();
  for (size_t i = half; i < cases.size(); ++i)
    batch.add(cases[i].code, cases[i].roi, i % 2, cases[i].at, cases[i].code.width, cases[i].step);
  const std::vector<Plane> own = batch.own_planes({bytes}, queue);
  batch.decode({plane_of(plane), own[0]}, {bytes, bytes}, queue, {1, 2});
  for (size_t i = half; i < cases.size(); ++i) {
    if (i % 2 == 0) continue;
    const size_t at = static_cast<size_t>(cases[i].at) * 4;
    Plane from = own[0];
    from.offset += at;
    batch.copy(from, plane_of(plane, at), static_cast<size_t>(cases[i].code.width * cases[i].code.height) * 4, queue);
  }
  compare(half);
  const auto errors = batch.segmark_errors();
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
  j2k::ocl::cl().clReleaseMemObject(plane);
}

}  // namespace
