// SPDX-License-Identifier: BSD-2-Clause
// For the GPU block coders' tests (ebcot_gpu_encoder_test, ht_gpu_encoder_test): whether this
// build and machine run the CUDA batches, and, in a CUDA build, a device copy of a test
// plane's int32 values with a stream of its own.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "transform/backend.hpp"
#if J2KFRONT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace test_support {

// Whether this build and machine can run the CUDA batches; else why not.
inline bool cuda_batches_usable(std::string& why) {
#if J2KFRONT_HAVE_CUDA
  return j2k::backend_available(j2k::Backend::Cuda, &why);
#else
  why = "this build has no CUDA backend";
  return false;
#endif
}

#if J2KFRONT_HAVE_CUDA
inline void cuda(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(e));
}

// A device copy of a plane's values and a stream, freed at the end.
class DevicePlane {
 public:
  explicit DevicePlane(const std::vector<int32_t>& values) {
    cuda(cudaStreamCreate(&stream_), "cudaStreamCreate");
    void* p = nullptr;
    cuda(cudaMalloc(&p, values.size() * sizeof(int32_t)), "cudaMalloc");
    data_ = static_cast<int32_t*>(p);
    cuda(cudaMemcpy(data_, values.data(), values.size() * sizeof(int32_t), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DevicePlane() {
    cudaStreamSynchronize(stream_);
    cudaFree(data_);
    cudaStreamDestroy(stream_);
  }
  DevicePlane(const DevicePlane&) = delete;
  DevicePlane& operator=(const DevicePlane&) = delete;
  const int32_t* data() const { return data_; }
  cudaStream_t stream() const { return stream_; }

 private:
  int32_t* data_ = nullptr;
  cudaStream_t stream_ = nullptr;
};
#endif

}  // namespace test_support
