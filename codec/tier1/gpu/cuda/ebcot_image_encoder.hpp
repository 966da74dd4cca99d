// SPDX-License-Identifier: BSD-2-Clause
// Tier-1 of a whole image on a CUDA GPU with EBCOT (Part 1) code-blocks (block_encode_batch.hpp):
// every code-block's passes coded by the batch of ebcot_block_encoder.hpp, reading the plan's
// device planes in place (the 5/3), or a device scratch of int32 that a small kernel quantises
// the 9/7's floats into first, as quantise_block does on the host, bit for bit
// (quantise_blocks.cuh). Everything runs on a stream of the batch's own on `device`, after the
// plan's frame has been waited for. The passes' distortions are encode_block()'s, so rate
// control (-r, -q) runs on the host as with the CPU's coder.
//
// Memory, per image: the batch's arenas and the 9/7's scratch (4 bytes a coefficient) grow to
// the largest image seen and are kept.
#pragma once
#include <memory>
#include <vector>

#include "codec/tier1/block_encode_batch.hpp"

namespace j2k::codec::cuda {

class EbcotImageEncoder final : public BlockEncodeBatch {
 public:
  // Touches no device until encode(); `threads` (0: one per core) copy the coded blocks out.
  EbcotImageEncoder(int device, int threads);
  ~EbcotImageEncoder() override;

  bool reads(j2k_memory memory) const override { return memory == J2K_MEMORY_DEVICE; }
  const char* where() const override { return "cuda"; }
  bool estimates_distortion() const override { return true; }
  uint64_t host_bytes(const std::vector<BatchBlock>& blocks) const override;
  std::vector<CodedBlock> encode(const std::vector<BatchBlock>& blocks, bool reversible) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k::codec::cuda
