// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/gpu/host_ht_image_encoder.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/tier1/gpu/host_batch_view.hpp"
#include "codec/tier1/gpu/gpu_ht_encode_batch.hpp"
#include "codec/tier1/ht/block_encoder.hpp"
#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "codec/tier1/ht/plane_estimates.hpp"
#include "common/error.hpp"

namespace j2k::codec {
namespace {

class HostHtImageEncoder final : public BlockEncodeBatch {
 public:
  explicit HostHtImageEncoder(bool targets) : targets_(targets) {}
  bool reads(j2k_memory memory) const override { return memory == J2K_MEMORY_HOST; }
  bool estimates_distortion() const override { return targets_; }
  const char* where() const override { return "host emulation of the GPU batch"; }
  uint64_t host_bytes(const std::vector<BatchBlock>& blocks) const override {
    (void)blocks;
    return 0;
  }
  std::vector<CodedBlock> encode(const std::vector<BatchBlock>& blocks, bool reversible) override {
    const ht::CleanupTables tables = ht::host_cleanup_tables();
    std::vector<CodedBlock> coded(blocks.size());
    std::vector<int32_t> quantised;
    std::vector<uint8_t> out, scratch;
    for (size_t i = 0; i < blocks.size(); ++i) {
      const BatchBlock& b = blocks[i];
      BlockView v = host_batch_view(b, reversible, quantised);
      if (targets_) {  // as the CUDA batch's sets at plane 0
        v.estimate_distortion = true;
        coded[i] = ht::encode_block(v);
        continue;
      }
      const int32_t* data = v.data;
      const ptrdiff_t stride = v.stride;
      const int fraction_bits = v.fraction_bits;
      check_gpu_ht_block(data, stride, b.width, b.height, fraction_bits, 0);
      out.assign(ht::cleanup_output_capacity(b.width, b.height), 0);
      scratch.assign(ht::cleanup_scratch_bytes(b.width, b.height) + 16, 0);
      // The scratch from a 16-byte boundary, as the batch's arena gives it.
      uint8_t* aligned = scratch.data() + (16 - reinterpret_cast<uintptr_t>(scratch.data()) % 16) % 16;
      const ht::CleanupResult r =
          ht::encode_cleanup_in_place(data, stride, b.width, b.height, fraction_bits, 0, tables, out.data(), aligned);
      if (r.status != ht::kCleanupCoded)
        throw Error(ErrorCode::Internal, "host emulation of the GPU HT batch: block " + std::to_string(i) + ": status " +
                                             std::to_string(r.status));
      // As cuda::HtEncodeBatch::coded().
      CodedBlock& c = coded[i];
      c.bitplanes = r.bitplanes;
      c.magnitude_bitplanes = r.magnitude_bitplanes;
      if (r.bitplanes == 0) continue;
      c.bytes.assign(out.begin(), out.begin() + r.bytes);
      CodedPass cleanup;
      cleanup.end = r.bytes;
      cleanup.terminated = true;
      c.passes.push_back(cleanup);
    }
    return coded;
  }

  // HT rate control's steps, as the CUDA batch's (cuda/ht_image_encoder.hpp), from the CPU's
  // own functions.
  bool codes_ht_sets() const override { return true; }
  std::vector<HtModel> model_ht_planes(const std::vector<BatchBlock>& blocks, bool reversible) override {
    std::vector<HtModel> out(blocks.size());
    std::vector<int32_t> quantised;
    for (size_t i = 0; i < blocks.size(); ++i) {
      const BlockView v = host_batch_view(blocks[i], reversible, quantised);
      out[i].estimates = ht::plane_estimates(v);
      out[i].energy = ht::block_energy(v.data, v.stride, v.width, v.height, v.fraction_bits);
    }
    return out;
  }
  std::vector<CodedBlock> encode_ht_sets(const std::vector<BatchBlock>& blocks, const std::vector<std::pair<size_t, int>>& jobs,
                                         bool reversible) override {
    std::vector<CodedBlock> out(jobs.size());
    std::vector<int32_t> quantised;
    for (size_t k = 0; k < jobs.size(); ++k) {
      BlockView v = host_batch_view(blocks.at(jobs[k].first), reversible, quantised);
      v.cleanup_plane = jobs[k].second;
      v.estimate_distortion = true;
      out[k] = ht::encode_block(v);
    }
    return out;
  }

 private:
  bool targets_;
};

}  // namespace

std::unique_ptr<BlockEncodeBatch> make_host_ht_image_encoder(bool targets) { return std::make_unique<HostHtImageEncoder>(targets); }

}  // namespace j2k::codec
