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
// With a rate or PSNR target (`targets`), as cuda::HtImageEncoder: every block a set at plane 0
// in encode(), and HT rate control's model and sets here (one work-item a block; doubles
// needed, cl_khr_fp64).
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
  // `targets`: a rate or PSNR target, as cuda::HtImageEncoder's.
  HtImageEncoder(int device, int threads, bool targets);
  ~HtImageEncoder() override;

  bool reads(j2k_memory memory) const override { return memory == J2K_MEMORY_DEVICE; }
  const char* where() const override { return "opencl"; }
  uint64_t host_bytes(const std::vector<BatchBlock>& blocks) const override;
  bool estimates_distortion() const override;
  std::vector<CodedBlock> encode(const std::vector<BatchBlock>& blocks, bool reversible) override;
  bool codes_ht_sets() const override { return true; }
  std::vector<HtModel> model_ht_planes(const std::vector<BatchBlock>& blocks, bool reversible) override;
  std::vector<CodedBlock> encode_ht_sets(const std::vector<BatchBlock>& blocks, const std::vector<std::pair<size_t, int>>& jobs,
                                         bool reversible) override;


 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k::codec::opencl
