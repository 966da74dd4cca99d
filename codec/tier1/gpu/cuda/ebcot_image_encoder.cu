// SPDX-License-Identifier: BSD-2-Clause
// The 9/7's blocks quantised first (quantise_blocks.cuh, one CUDA block a code-block, into a
// packed scratch); then the EBCOT batch codes every block on the same stream.
#include "codec/tier1/gpu/cuda/ebcot_image_encoder.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <string>

#include "codec/tier1/ebcot/encode_passes.hpp"
#include "codec/tier1/gpu/cuda/ebcot_block_encoder.hpp"
#include "codec/tier1/gpu/cuda/own_stream.hpp"
#include "codec/tier1/gpu/cuda/quantise_blocks.cuh"
#include "common/error.hpp"
#include "common/parallel/parallel_for.hpp"
#include "device/cuda/buffers.hpp"
#include "device/cuda/cuda_check.hpp"

namespace j2k::codec::cuda {

struct EbcotImageEncoder::Impl {
  int device = 0, threads = 0;
  OwnStream own;           // declared first: it goes after the buffers and the batch
  DeviceBuffer jobs_d, scratch_d, flag_d;
  PinnedBuffer flag_h;
  EbcotEncodeBatch batch;  // goes first (it waits for its own copies)
  std::vector<QuantiseJob> jobs;
};

EbcotImageEncoder::EbcotImageEncoder(int device, int threads) : impl_(std::make_unique<Impl>()) {
  impl_->device = device < 0 ? 0 : device;
  impl_->threads = threads;
}
EbcotImageEncoder::~EbcotImageEncoder() = default;

uint64_t EbcotImageEncoder::host_bytes(const std::vector<BatchBlock>& blocks) const {
  // The page-locked copies at worst: every slot's bytes, every pass, the results.
  uint64_t bytes = 0;
  for (const BatchBlock& b : blocks)
    bytes += t1::encode_slot_bytes(b.width, b.height) + t1::kMaxEncodedPasses * sizeof(t1::EncodedPass) + sizeof(t1::EncodeResult);
  return bytes;
}

std::vector<CodedBlock> EbcotImageEncoder::encode(const std::vector<BatchBlock>& blocks, bool reversible) {
  Impl& m = *impl_;
  cuda_check(cudaSetDevice(m.device), "cudaSetDevice");
  if (!m.own.stream) cuda_check(cudaStreamCreateWithFlags(&m.own.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const cudaStream_t stream = m.own.stream;
  m.batch.clear();
  std::vector<CodedBlock> coded(blocks.size());
  if (blocks.empty()) return coded;
  auto view = [&](const BatchBlock& b, const int32_t* data, ptrdiff_t stride, int fraction_bits) {
    BlockView v;
    v.data = data;
    v.stride = stride;
    v.width = b.width;
    v.height = b.height;
    v.band = b.band;
    v.fraction_bits = fraction_bits;
    v.modes = b.modes;
    v.reversible = reversible;
    v.estimate_distortion = b.estimate_distortion;
    return v;
  };
  unsigned* flag_h = nullptr;
  if (reversible) {
    for (const BatchBlock& b : blocks) m.batch.add(view(b, static_cast<const int32_t*>(b.coefficients), b.stride, 0));
  } else {
    uint64_t total = 0;
    for (const BatchBlock& b : blocks) total += static_cast<uint64_t>(b.width) * static_cast<uint64_t>(b.height);
    auto* scratch = static_cast<int32_t*>(m.scratch_d.get(total * sizeof(int32_t)));
    m.jobs.clear();
    uint64_t at = 0;
    for (const BatchBlock& b : blocks) {
      QuantiseJob j{};
      j.src = static_cast<const float*>(b.coefficients);
      j.stride = b.stride;
      j.dst = scratch + at;
      j.scale = std::ldexp(1.0, b.fraction_bits) / b.delta;
      j.width = b.width;
      j.height = b.height;
      m.jobs.push_back(j);
      m.batch.add(view(b, j.dst, b.width, b.fraction_bits));
      at += static_cast<uint64_t>(b.width) * static_cast<uint64_t>(b.height);
    }
    auto* jobs = static_cast<QuantiseJob*>(m.jobs_d.get(m.jobs.size() * sizeof(QuantiseJob)));
    auto* flag = static_cast<unsigned*>(m.flag_d.get(sizeof(unsigned)));
    flag_h = static_cast<unsigned*>(m.flag_h.get(sizeof(unsigned)));
    // From pageable memory: staged before the call returns.
    cuda_check(cudaMemcpyAsync(jobs, m.jobs.data(), m.jobs.size() * sizeof(QuantiseJob), cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync");
    cuda_check(cudaMemsetAsync(flag, 0, sizeof(unsigned), stream), "cudaMemsetAsync");
    quantise_kernel<<<static_cast<unsigned>(m.jobs.size()), kQuantiseThreads, 0, stream>>>(jobs, flag);
    cuda_check(cudaGetLastError(), "quantise_kernel");
    cuda_check(cudaMemcpyAsync(flag_h, flag, sizeof(unsigned), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  }
  m.batch.encode(stream);
  cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (flag_h && *flag_h != 0)  // the CPU path's message (encoder.cpp), before the coder's own
    throw Error(ErrorCode::InvalidArgument, "a 9/7 coefficient is too large for its quantisation step; use a larger step");
  m.batch.wait();
  // Each block's record, its bytes left in the batch's page-locked copy (valid until the next
  // encode: the encoder's Tier-2 reads them before), on the CPU's threads.
  parallel_for(static_cast<ptrdiff_t>(blocks.size()), m.threads,
               [&](ptrdiff_t i) { coded[static_cast<size_t>(i)] = m.batch.coded_in_place(static_cast<size_t>(i)); });
  return coded;
}

}  // namespace j2k::codec::cuda
