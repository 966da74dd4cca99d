// SPDX-License-Identifier: BSD-2-Clause
// HT cleanup passes of code-blocks on a CUDA GPU, one code-block a warp (warp_cleanup.cuh),
// reading each block's coefficients in place; for rate control (add_set), whole HT sets with
// their distortion figures. The GpuHtEncodeBatch of the CUDA backend (gpu_ht_encode_batch.hpp says how an
// encoder uses it): coefficients are device pointers of the current device, the stream a
// cudaStream_t.
#pragma once
#include <memory>

#include "codec/tier1/gpu/gpu_ht_encode_batch.hpp"

namespace j2k::codec::cuda {

class HtEncodeBatch final : public GpuHtEncodeBatch {
 public:
  HtEncodeBatch();
  ~HtEncodeBatch() override;

  void clear() override;
  size_t add(const int32_t* d_data, ptrdiff_t stride, int width, int height, j2k_band_type band, int fraction_bits,
             int cleanup_plane) override;
  // A block coded as HT rate control codes it (ht::encode_block with estimate_distortion on):
  // the cleanup pass at `cleanup_plane`, then, above plane 0, SigProp and MagRef, with each
  // pass's distortion and the block's energy; `reversible` (the 5/3: the decoder's
  // reconstruction at plane 0) and `causal` (the stripe-causal mode) as BlockView has them.
  // coded() then gives every pass, bit for bit the CPU's (refinement_encoder.hpp, one thread
  // of the block's warp).
  size_t add_set(const int32_t* d_data, ptrdiff_t stride, int width, int height, j2k_band_type band, int fraction_bits,
                 int cleanup_plane, bool reversible, bool causal);
  size_t size() const override;
  void encode(void* stream) override;
  void wait() override;
  CodedBlock coded(size_t i) const override;
  CodedBlock coded_in_place(size_t i) const override;
  const uint8_t* bytes(size_t i, size_t& size) const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k::codec::cuda
