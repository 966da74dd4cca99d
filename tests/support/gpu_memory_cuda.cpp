// SPDX-License-Identifier: BSD-2-Clause
// GpuMemory on the CUDA runtime: cudaMalloc'ed planes, one stream of its own.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/gpu_memory.hpp"

namespace test_support {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

class CudaMemory final : public GpuMemory {
 public:
  CudaMemory() {
    check(cudaSetDevice(0), "cudaSetDevice");
    check(cudaStreamCreate(&stream_), "cudaStreamCreate");
  }
  ~CudaMemory() override {
    cudaStreamSynchronize(stream_);
    for (void* p : buffers_) cudaFree(p);
    cudaStreamDestroy(stream_);
  }
  j2k::Plane filled(size_t bytes, unsigned char value) override {
    void* p = nullptr;
    check(cudaMalloc(&p, bytes), "cudaMalloc");
    buffers_.push_back(p);
    j2k::Plane plane;
    plane.base = p;
    plane.memory = J2K_MEMORY_DEVICE;
    fill(plane, bytes, value);
    return plane;
  }
  void fill(const j2k::Plane& plane, size_t bytes, unsigned char value) override {
    check(cudaMemsetAsync(static_cast<char*>(plane.base) + plane.offset, value, bytes, stream_), "cudaMemsetAsync");
  }
  void read(const j2k::Plane& plane, void* host, size_t bytes) override {
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    check(cudaMemcpy(host, static_cast<const char*>(plane.base) + plane.offset, bytes, cudaMemcpyDeviceToHost),
          "cudaMemcpy");
  }
  void write(const j2k::Plane& plane, const void* host, size_t bytes) override {
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    check(cudaMemcpy(static_cast<char*>(plane.base) + plane.offset, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  void* stream() override { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
  std::vector<void*> buffers_;
};

}  // namespace

std::unique_ptr<GpuMemory> make_cuda_memory() { return std::make_unique<CudaMemory>(); }

}  // namespace test_support
