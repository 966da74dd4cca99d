// SPDX-License-Identifier: BSD-2-Clause
// One CUDA block (kQuantiseThreads threads) quantises one code-block of the 9/7 into the
// scratch, packed (rows `width` apart); then the HT batch codes every block on the same stream.
#include "codec/tier1/gpu/cuda/ht_image_encoder.hpp"

#include <cuda_runtime_api.h>

#include <cmath>
#include <string>

#include "codec/tier1/gpu/cuda/ht_block_encoder.hpp"
#include "codec/tier1/gpu/cuda/own_stream.hpp"
#include "codec/tier1/gpu/cuda/quantise_blocks.cuh"
#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "common/error.hpp"
#include "common/parallel/parallel_for.hpp"
#include "device/cuda/buffers.hpp"
#include "device/cuda/cuda_check.hpp"

namespace j2k::codec::cuda {

struct HtImageEncoder::Impl {
  int device = 0, threads = 0;
  OwnStream own;        // declared first: it goes after the buffers and the batch
  BlockQuantiser quantiser;  // the 9/7's blocks into int32 first
  HtEncodeBatch batch;  // goes first (it waits for its own copies)
};

HtImageEncoder::HtImageEncoder(int device, int threads) : impl_(std::make_unique<Impl>()) {
  impl_->device = device < 0 ? 0 : device;
  impl_->threads = threads;
}
HtImageEncoder::~HtImageEncoder() = default;

uint64_t HtImageEncoder::host_bytes(const std::vector<BatchBlock>& blocks) const {
  uint64_t bytes = 0;
  for (const BatchBlock& b : blocks)
    bytes += ht::align16(ht::cleanup_output_capacity(b.width, b.height)) + sizeof(ht::CleanupResult);
  return bytes;
}

std::vector<CodedBlock> HtImageEncoder::encode(const std::vector<BatchBlock>& blocks, bool reversible) {
  Impl& m = *impl_;
  cuda_check(cudaSetDevice(m.device), "cudaSetDevice");
  if (!m.own.stream) cuda_check(cudaStreamCreateWithFlags(&m.own.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const cudaStream_t stream = m.own.stream;
  m.batch.clear();
  std::vector<CodedBlock> coded(blocks.size());
  if (blocks.empty()) return coded;
  if (reversible) {
    for (const BatchBlock& b : blocks)
      m.batch.add(static_cast<const int32_t*>(b.coefficients), b.stride, b.width, b.height, b.band, 0, 0);
  } else {
    m.quantiser.enqueue(blocks, stream, [&](const BatchBlock& b, const int32_t* data, ptrdiff_t stride) {
      m.batch.add(data, stride, b.width, b.height, b.band, b.fraction_bits, 0);
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
