// SPDX-License-Identifier: BSD-2-Clause
// The 9/7's code-blocks quantised on the device before a Tier-1 batch codes them (the HT and
// EBCOT image encoders: ht_image_encoder.cu, ebcot_image_encoder.cu): one CUDA block of
// kQuantiseThreads threads a code-block, its floats where the plan left them into int32 in a
// scratch, packed (rows `width` apart), as quantise_block does on the host
// (quant/quantiser.cpp), bit for bit (batch_quantise.hpp).
#pragma once
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "codec/tier1/block_encode_batch.hpp"
#include "codec/tier1/gpu/batch_quantise.hpp"
#include "common/error.hpp"
#include "device/cuda/buffers.hpp"
#include "device/cuda/cuda_check.hpp"

namespace j2k::codec::cuda {

// A 9/7 block to quantise: its floats where the plan left them, its int32 in the scratch.
struct QuantiseJob {
  const float* src;
  int64_t stride;
  int32_t* dst;
  double scale;  // 2^fraction_bits / delta, computed on the host as quantise_block computes it
  int32_t width, height;
};

inline constexpr int kQuantiseThreads = 128;

// quantise_block's arithmetic (batch_quantise.hpp), so the same int32 for every float;
// `too_large` set where a magnitude reaches 2^31 steps (or is not a number), as
// quantise_block refuses it. Static: a copy in each file that launches it.
static __global__ void __launch_bounds__(kQuantiseThreads) quantise_kernel(const QuantiseJob* jobs, unsigned* too_large) {
  const QuantiseJob j = jobs[blockIdx.x];
  const int n = j.width * j.height;
  for (int k = static_cast<int>(threadIdx.x); k < n; k += kQuantiseThreads) {
    const int y = k / j.width, x = k - y * j.width;
    int32_t q = 0;
    if (!quantise_value(j.src[y * j.stride + x], j.scale, q)) atomicOr(too_large, 1u);
    j.dst[k] = q;
  }
}

// An image encoder's quantisation stage: its buffers, grown to the largest batch and kept.
class BlockQuantiser {
 public:
  // Enqueues the quantisation of every block on `stream`, each into its own packed part of
  // the scratch, and calls add(block, its int32, their row stride) in the blocks' order for
  // the coder's batch. The jobs go up from pageable memory, staged before the call returns.
  template <class Add>
  void enqueue(const std::vector<BatchBlock>& blocks, cudaStream_t stream, Add add) {
    uint64_t total = 0;
    for (const BatchBlock& b : blocks) total += static_cast<uint64_t>(b.width) * static_cast<uint64_t>(b.height);
    auto* scratch = static_cast<int32_t*>(scratch_d_.get(total * sizeof(int32_t)));
    jobs_.clear();
    uint64_t at = 0;
    for (const BatchBlock& b : blocks) {
      QuantiseJob j{};
      j.src = static_cast<const float*>(b.coefficients);
      j.stride = b.stride;
      j.dst = scratch + at;
      j.scale = std::ldexp(1.0, b.fraction_bits) / b.delta;
      j.width = b.width;
      j.height = b.height;
      jobs_.push_back(j);
      add(b, j.dst, static_cast<ptrdiff_t>(b.width));
      at += static_cast<uint64_t>(b.width) * static_cast<uint64_t>(b.height);
    }
    auto* jobs = static_cast<QuantiseJob*>(jobs_d_.get(jobs_.size() * sizeof(QuantiseJob)));
    auto* flag = static_cast<unsigned*>(flag_d_.get(sizeof(unsigned)));
    flag_h_ptr_ = static_cast<unsigned*>(flag_h_.get(sizeof(unsigned)));
    cuda_check(cudaMemcpyAsync(jobs, jobs_.data(), jobs_.size() * sizeof(QuantiseJob), cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync");
    cuda_check(cudaMemsetAsync(flag, 0, sizeof(unsigned), stream), "cudaMemsetAsync");
    quantise_kernel<<<static_cast<unsigned>(jobs_.size()), kQuantiseThreads, 0, stream>>>(jobs, flag);
    cuda_check(cudaGetLastError(), "quantise_kernel");
    cuda_check(cudaMemcpyAsync(flag_h_ptr_, flag, sizeof(unsigned), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  }
  // Once the stream has done the enqueued work: throws the CPU path's error (encoder.cpp)
  // where a coefficient was too large for its step; forgets the flag.
  void check() {
    const bool too_large = flag_h_ptr_ && *flag_h_ptr_ != 0;
    flag_h_ptr_ = nullptr;
    if (too_large) throw Error(ErrorCode::InvalidArgument, "a 9/7 coefficient is too large for its quantisation step; use a larger step");
  }

 private:
  DeviceBuffer jobs_d_, scratch_d_, flag_d_;
  PinnedBuffer flag_h_;
  unsigned* flag_h_ptr_ = nullptr;  // set by enqueue() until check()
  std::vector<QuantiseJob> jobs_;
};

}  // namespace j2k::codec::cuda
