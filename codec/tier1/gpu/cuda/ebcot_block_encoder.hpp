// SPDX-License-Identifier: BSD-2-Clause
// EBCOT coding passes of code-blocks on a CUDA GPU, one code-block a thread
// (ebcot/encode_passes.hpp), reading each block's coefficients in place. The
// GpuEbcotEncodeBatch of the CUDA backend (gpu_ebcot_encode_batch.hpp says how an encoder uses
// it): coefficients are device pointers of the current device, the stream a cudaStream_t.
#pragma once
#include <memory>

#include "codec/tier1/gpu/gpu_ebcot_encode_batch.hpp"

namespace j2k::codec::cuda {

class EbcotEncodeBatch final : public GpuEbcotEncodeBatch {
 public:
  EbcotEncodeBatch();
  ~EbcotEncodeBatch() override;

  void clear() override;
  size_t add(const BlockView& block) override;
  size_t size() const override;
  void encode(void* stream) override;
  void wait() override;
  CodedBlock coded(size_t i) const override;
  CodedBlock coded_in_place(size_t i) const override;
  size_t coded_on_host() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k::codec::cuda
