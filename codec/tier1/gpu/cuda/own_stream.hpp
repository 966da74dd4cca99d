// SPDX-License-Identifier: BSD-2-Clause
// A stream of a Tier-1 image encoder's own (ht_image_encoder.cu, ebcot_image_encoder.cu).
#pragma once
#include <cuda_runtime_api.h>

namespace j2k::codec::cuda {

// The batch's stream, made on first use; its work waited for before it goes.
struct OwnStream {
  cudaStream_t stream = nullptr;
  OwnStream() = default;
  OwnStream(const OwnStream&) = delete;
  OwnStream& operator=(const OwnStream&) = delete;
  ~OwnStream() {
    if (stream) {
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
    }
  }
};

}  // namespace j2k::codec::cuda
