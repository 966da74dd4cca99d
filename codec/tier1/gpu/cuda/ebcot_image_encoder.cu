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
  BlockQuantiser quantiser;  // the 9/7's blocks into int32 first
  EbcotEncodeBatch batch;  // goes first (it waits for its own copies)
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
  if (reversible) {
    for (const BatchBlock& b : blocks) m.batch.add(view(b, static_cast<const int32_t*>(b.coefficients), b.stride, 0));
  } else {
    m.quantiser.enqueue(blocks, stream, [&](const BatchBlock& b, const int32_t* data, ptrdiff_t stride) {
      m.batch.add(view(b, data, stride, b.fraction_bits));
    });
  }
  m.batch.encode(stream);
  cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (!reversible) m.quantiser.check();  // the CPU path's message, before the coder's own
  m.batch.wait();
  // Each block's record, its bytes left in the batch's page-locked copy (valid until the next
  // encode: the encoder's Tier-2 reads them before), on the CPU's threads.
  parallel_for(static_cast<ptrdiff_t>(blocks.size()), m.threads,
               [&](ptrdiff_t i) { coded[static_cast<size_t>(i)] = m.batch.coded_in_place(static_cast<size_t>(i)); });
  return coded;
}

}  // namespace j2k::codec::cuda
