// SPDX-License-Identifier: BSD-2-Clause
// Tier-1 of a whole image on an OpenCL device (block_encode_batch.hpp), the OpenCL counterpart
// of cuda/ht_image_encoder: every code-block's HT cleanup pass coded by the batch of
// ht_block_encoder.hpp, reading the plan's device planes in place (the 5/3: the OpenCL queue
// keeps them in one cl_mem of the device's context where the plan's output memory is DEVICE),
// or a device scratch of int32 that a small kernel quantises the 9/7's floats into first, as
// quantise_block does on the host, bit for bit. Everything runs on a command queue of the
// encoder's own in the device's context (ocl::context_for), after the plan's frame has been
// waited for.
//
// Memory, per image for now: the batch's buffers and the 9/7's scratch (4 bytes a coefficient)
// grow to the largest image seen and are kept.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "codec/tier1/block_encode_batch.hpp"

namespace j2k::codec::opencl {

class HtImageEncoder final : public BlockEncodeBatch {
 public:
  // Touches no device until encode(): `device` as BackendOptions::device (-1: the first GPU,
  // ocl::select_device), `threads` (0: one per core) copy the coded blocks out.
  HtImageEncoder(int device, int threads);
  ~HtImageEncoder() override;

  bool reads(j2k_memory memory) const override { return memory == J2K_MEMORY_DEVICE; }
  const char* where() const override { return "opencl"; }
  uint64_t host_bytes(const std::vector<BatchBlock>& blocks) const override;
  std::vector<CodedBlock> encode(const std::vector<BatchBlock>& blocks, bool reversible) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k::codec::opencl
