// SPDX-License-Identifier: BSD-2-Clause
// HT cleanup passes of code-blocks on a CUDA GPU, one code-block a warp (warp_cleanup.cuh),
// reading each block's coefficients in place. The GpuHtEncodeBatch of the CUDA backend (gpu_ht_encode_batch.hpp says how an
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
