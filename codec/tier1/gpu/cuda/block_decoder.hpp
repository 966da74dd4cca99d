// SPDX-License-Identifier: BSD-2-Clause
// Tier-1 decoding and dequantisation of code-blocks on a CUDA GPU, one code-block a thread:
// the CPU's passes (block_passes.hpp) compiled for the device, and for HT blocks the HT
// decoder of ht/device_block_decoder.hpp, so that the coefficients are decode_block()'s (or
// ht::decode_block()'s) and dequantiser.cpp's bit for bit. The GpuBlockBatch of the CUDA backend
// (gpu_block_batch.hpp says how the decoder uses it): planes are device pointers (Plane::base
// plus the offset), the stream a cudaStream_t of the current device.
#pragma once
#include <memory>

#include "codec/tier1/gpu/gpu_block_batch.hpp"

namespace j2k::codec::cuda {

class BlockBatch final : public GpuBlockBatch {
 public:
  BlockBatch();
  ~BlockBatch() override;

  void decode(const std::vector<Plane>& planes, const std::vector<size_t>& bytes, void* stream,
              const std::vector<int64_t>& tiles) override;
  bool decodes_ht() const override { return true; }
  std::map<int64_t, int> segmark_errors() override;
  std::map<int64_t, int> corrupt_blocks() override;
  void copy(const Plane& from, const Plane& to, size_t bytes, void* stream) override;

 private:
  void* own_buffer(size_t bytes, void* stream) override;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k::codec::cuda
