// SPDX-License-Identifier: BSD-2-Clause
// The end of a Tier-1 encode batch's work on its stream (ht_block_encoder.cu,
// ebcot_block_encoder.cu): encode() records it after the copies into the batch's page-locked
// buffers; wait(), the next encode() (which reuses those buffers), clear() (the records name
// the blocks in flight) and the batch's end wait for it.
#pragma once
#include <cuda_runtime_api.h>

#include "device/cuda/cuda_check.hpp"

namespace j2k::codec::cuda {

class BatchFence {
 public:
  BatchFence() = default;
  BatchFence(const BatchFence&) = delete;
  BatchFence& operator=(const BatchFence&) = delete;
  ~BatchFence() {
    if (pending_) cudaEventSynchronize(done_);
    if (done_) cudaEventDestroy(done_);
  }
  // After the work enqueued on `stream` so far.
  void record(cudaStream_t stream) {
    if (!done_) cuda_check(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "cudaEventCreate");
    cuda_check(cudaEventRecord(done_, stream), "cudaEventRecord");
    pending_ = true;
  }
  // Waits for the recorded work, where it was not waited for yet; false when there was none.
  bool wait() {
    if (!pending_) return false;
    pending_ = false;
    cuda_check(cudaEventSynchronize(done_), "cudaEventSynchronize");
    return true;
  }

 private:
  cudaEvent_t done_ = nullptr;
  bool pending_ = false;
};

}  // namespace j2k::codec::cuda
