// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/gpu/host_ht_image_encoder.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/tier1/gpu/batch_quantise.hpp"
#include "codec/tier1/gpu/gpu_ht_encode_batch.hpp"
#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "common/error.hpp"

namespace j2k::codec {
namespace {

class HostHtImageEncoder final : public BlockEncodeBatch {
 public:
  bool reads(j2k_memory memory) const override { return memory == J2K_MEMORY_HOST; }
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
      const int32_t* data = static_cast<const int32_t*>(b.coefficients);
      ptrdiff_t stride = b.stride;
      int fraction_bits = 0;
      if (!reversible) {
        const double scale = std::ldexp(1.0, b.fraction_bits) / b.delta;  // as the CUDA batch's host code
        quantised.assign(static_cast<size_t>(b.width) * static_cast<size_t>(b.height), 0);
        const auto* src = static_cast<const float*>(b.coefficients);
        for (int y = 0; y < b.height; ++y)
          for (int x = 0; x < b.width; ++x)
            if (!quantise_value(src[y * b.stride + x], scale, quantised[static_cast<size_t>(y) * static_cast<size_t>(b.width) + static_cast<size_t>(x)]))
              throw Error(ErrorCode::InvalidArgument, "a 9/7 coefficient is too large for its quantisation step; use a larger step");
        data = quantised.data();
        stride = b.width;
        fraction_bits = b.fraction_bits;
      }
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
};

}  // namespace

std::unique_ptr<BlockEncodeBatch> make_host_ht_image_encoder() { return std::make_unique<HostHtImageEncoder>(); }

}  // namespace j2k::codec
