// SPDX-License-Identifier: BSD-2-Clause
// EBCOT (Part 1) coding passes of many code-blocks on a GPU, their quantised coefficients
// read where the front stage left them in device memory, one code-block a thread (CUDA:
// gpu/cuda/ebcot_block_encoder.cu runs ebcot/encode_passes.hpp). Each block's bytes, passes
// (ends, terminations, distortions) and bit planes are encode_block()'s (CPU) bit for bit;
// tests/ebcot_gpu_encoder_test.cpp compares them.
//
//   std::unique_ptr<GpuEbcotEncodeBatch> batch = make_gpu_ebcot_encode_batch(options);  // one per encoder
//   batch->clear();
//   for each block: batch->add(view);   // view.data: device memory
//   batch->encode(stream);      // asynchronous on `stream`
//   batch->wait();
//   CodedBlock c = batch->coded(i);   // i: the order of add()
//
// Memory: the batch keeps device buffers (the blocks' records, a worst-case slot of output
// and the flag words of each block, their passes, results) and page-locked copies of what
// comes back, each grown to the largest batch seen and kept. The segments and the passes are
// packed end to end on the device, and only those come back. A block whose bytes outgrow its
// slot (encode_passes.hpp: more than 4 bytes a sample: noise of 31 bit planes) is coded
// again by encode_block() on the CPU from a copy of its coefficients, in wait().
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ebcot/encode_passes.hpp"
#include "j2kfront/j2kfront.h"
#include "transform/backend.hpp"

namespace j2k::codec {

class GpuEbcotEncodeBatch {
 public:
  virtual ~GpuEbcotEncodeBatch() = default;

  virtual void clear() = 0;
  // A block as encode_block() takes it, its coefficients block.data[y * stride + x] in the
  // backend's device memory (read in place while the batch's work runs). Throws
  // Error(InvalidArgument) for one check_gpu_ebcot_block() refuses. Returns its index.
  virtual size_t add(const BlockView& block) = 0;
  virtual size_t size() const = 0;

  // Codes every block added since clear() on `stream` (a cudaStream_t) and copies the results
  // back: asynchronous, so the coefficients must stay until wait() returns.
  virtual void encode(void* stream) = 0;
  // Waits for encode()'s work, and codes on the CPU any block that outgrew its slot.
  virtual void wait() = 0;

  // After wait(): block i as encode_block() codes it.
  virtual CodedBlock coded(size_t i) const = 0;
  // The same with its bytes left in the batch's page-locked memory (CodedBlock::external):
  // valid until the next encode() or clear().
  virtual CodedBlock coded_in_place(size_t i) const = 0;
  // How many blocks of the last encode() outgrew their slots and were coded on the CPU.
  virtual size_t coded_on_host() const = 0;
};

// The batch of options.backend (Cuda, where built) on the current device of the calling
// thread; throws Error(BackendUnavailable) for another backend or a build without CUDA.
std::unique_ptr<GpuEbcotEncodeBatch> make_gpu_ebcot_encode_batch(const BackendOptions& options);

// A block as every backend's batch hands it on: encode_passes.hpp's result and passes, its
// bytes left at `bytes` (CodedBlock::external; not read here).
CodedBlock coded_block_of(const t1::EncodeResult& result, const t1::EncodedPass* passes, const uint8_t* bytes);

// GpuEbcotEncodeBatch::add()'s checks, for every backend's batch: throws
// Error(InvalidArgument) naming the figure outside its limits (sizes of A.6.1, rows at least
// the width apart, fraction bits 0..30, no HT mode bit).
void check_gpu_ebcot_block(const BlockView& block);

}  // namespace j2k::codec
