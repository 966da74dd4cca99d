// SPDX-License-Identifier: BSD-2-Clause
// Tier-1 decoding and dequantisation of code-blocks on an OpenCL device, one code-block a
// work-item (block_decoder.cl): the CPU's passes (block_passes.hpp), and for HT blocks
// ht/device_block_decoder.hpp's, written again in OpenCL C, so that the coefficients are
// decode_block()'s (ht::decode_block()'s) and dequantiser.cpp's bit for bit (the tests
// compare them). The GpuBlockBatch of the OpenCL backend (gpu_block_batch.hpp says how the
// decoder uses it): planes are cl_mem buffers with offsets in bytes, the stream a
// cl_command_queue (in order).
//
// The kernel writes one buffer: planes that share one (own_planes()'s) are decoded into in
// place, each block its rectangle; planes in several buffers (the back stage's, a buffer a
// component) through a buffer of the batch's, then copied out whole: what no block writes
// of such a plane is undefined (the decoder's blocks cover their planes). Where those planes
// together pass the device's largest buffer, they go through it in runs, a launch a run.
#pragma once
#include <memory>
#include <string>

#include "codec/tier1/gpu/gpu_block_batch.hpp"

namespace j2k::codec::opencl {

class BlockBatch final : public GpuBlockBatch {
 public:
  // On OpenCL device `device` (ocl::select_device()'s choice for -1); `tuning`:
  // BackendOptions::opencl_tuning, of which the batch heeds max_alloc.
  explicit BlockBatch(int device = -1, const std::string& tuning = {});
  ~BlockBatch() override;

  void decode(const std::vector<Plane>& planes, const std::vector<size_t>& bytes, void* stream,
              const std::vector<int64_t>& tiles) override;
  bool decodes_ht() const override { return true; }
  std::map<int64_t, int> segmark_errors() override;
  std::map<int64_t, int> corrupt_blocks() override;
  void copy(const Plane& from, const Plane& to, size_t bytes, void* stream) override;
  uint64_t max_buffer_bytes() const override { return max_alloc_; }

 private:
  void* own_buffer(size_t bytes, void* stream) override;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint64_t max_alloc_ = 0;  // the device's largest buffer (ocl::largest_buffer())
};

}  // namespace j2k::codec::opencl
