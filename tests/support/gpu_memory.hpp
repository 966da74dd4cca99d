// SPDX-License-Identifier: BSD-2-Clause
// A GPU backend's memory and stream, as the Tier-1 batch tests need them: what the CUDA
// runtime and OpenCL do differently (allocate, fill, read back, the stream a batch runs on),
// so that one test drives every GpuBlockBatch (tests/gpu_block_batch_test.cpp).
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "transform/backend.hpp"
#include "transform/queue.hpp"

namespace test_support {

class GpuMemory {
 public:
  virtual ~GpuMemory() = default;
  // A device buffer of `bytes` (kept until this is destroyed), every byte `fill`.
  virtual j2k::Plane filled(size_t bytes, unsigned char fill) = 0;
  // Sets `bytes` of the plane to `fill`, on the stream.
  virtual void fill(const j2k::Plane& plane, size_t bytes, unsigned char fill) = 0;
  // Waits for the stream's work, then copies `bytes` of the plane to `host`.
  virtual void read(const j2k::Plane& plane, void* host, size_t bytes) = 0;
  // Copies `bytes` from `host` into the plane, and waits for the copy.
  virtual void write(const j2k::Plane& plane, const void* host, size_t bytes) = 0;
  // The stream a batch decodes on: a cudaStream_t or a cl_command_queue.
  virtual void* stream() = 0;
};

// The memory of `backend` (Cuda or OpenCL) on its first device; nullptr, with the reason in
// `why`, where this build or machine has none.
std::unique_ptr<GpuMemory> make_gpu_memory(j2k::Backend backend, std::string& why);

// Each backend's own (gpu_memory_cuda.cpp, gpu_memory_opencl.cpp; built with it only).
std::unique_ptr<GpuMemory> make_cuda_memory();
std::unique_ptr<GpuMemory> make_opencl_memory();

}  // namespace test_support
