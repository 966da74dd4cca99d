// SPDX-License-Identifier: BSD-2-Clause
// Tier-1 of a whole image on a CUDA GPU (block_encode_batch.hpp): every code-block's HT cleanup
// pass coded by the batch of ht_block_encoder.hpp, reading the plan's device planes in place
// (the 5/3), or a device scratch of int32 that a small kernel quantises the 9/7's floats into
// first, as quantise_block does on the host (quant/quantiser.cpp), bit for bit. Everything runs
// on a stream of the batch's own on `device`, after the plan's frame has been waited for.
//
// With a rate or PSNR target (`targets`), encode() codes every block as a set at plane 0
// (each pass's distortion, for the layers' rate control on the host), and HT rate control's
// steps run here too: model_ht_planes (one warp a block, a lane a plane: ht::estimate_plane and
// ht::block_energy) and encode_ht_sets (the batch's add_set, a warp a job); only their
// figures and the sets' bytes come back.
//
// Memory, per image for now (issue 46's first step): the HT batch's arenas and the 9/7's
// scratch (4 bytes a coefficient) grow to the largest image seen and are kept.
#pragma once
#include <memory>
#include <vector>

#include "codec/tier1/block_encode_batch.hpp"

namespace j2k::codec::cuda {

class HtImageEncoder final : public BlockEncodeBatch {
 public:
  // Touches no device until encode(); `threads` (0: one per core) copy the coded blocks out.
  HtImageEncoder(int device, int threads, bool targets);
  ~HtImageEncoder() override;

  bool reads(j2k_memory memory) const override { return memory == J2K_MEMORY_DEVICE; }
  const char* where() const override { return "cuda"; }
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

}  // namespace j2k::codec::cuda
