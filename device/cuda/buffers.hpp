// SPDX-License-Identifier: BSD-2-Clause
// Device and pinned host buffers for CUDA code of any stage (the transforms, Tier-1 on the
// GPU), released with the right call.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "device/cuda/cuda_check.hpp"

namespace j2k {

// What a Buffer holds: device memory, or pinned host memory for the staging copies.
struct DeviceMemory {
  static constexpr const char* kWhat = "device";
  static cudaError_t alloc(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
  static void release(void* p) { cudaFree(p); }
};
struct PinnedMemory {
  static constexpr const char* kWhat = "pinned host";
  static cudaError_t alloc(void** p, size_t bytes) { return cudaMallocHost(p, bytes); }
  static void release(void* p) { cudaFreeHost(p); }
};

// An allocation that fails says how much of which memory it wanted: OutOfMemory.
template <class Memory>
void* cuda_allocate(size_t bytes) {
  void* p = nullptr;
  if (bytes == 0) return nullptr;
  const cudaError_t err = Memory::alloc(&p, bytes);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it
    throw Error(ErrorCode::OutOfMemory, std::string("cannot allocate ") + std::to_string(bytes) +
                                            " bytes of CUDA " + Memory::kWhat + " memory");
  }
  cuda_check(err, Memory::kWhat[0] == 'd' ? "cudaMalloc" : "cudaMallocHost");
  return p;
}

// A buffer that grows to the largest size asked for and is kept: nothing is allocated per
// call once the largest geometry has been seen.
template <class Memory>
class GrowingBuffer {
 public:
  GrowingBuffer() = default;
  GrowingBuffer(const GrowingBuffer&) = delete;
  GrowingBuffer& operator=(const GrowingBuffer&) = delete;
  ~GrowingBuffer() { if (p_) Memory::release(p_); }
  void* get(size_t bytes) {
    if (bytes > size_) {
      if (p_) Memory::release(p_);
      p_ = nullptr;
      size_ = 0;
      p_ = cuda_allocate<Memory>(bytes);
      size_ = bytes;
    }
    return p_;
  }
  void* data() const { return p_; }
  size_t size() const { return size_; }

 private:
  void* p_ = nullptr;
  size_t size_ = 0;
};

using DeviceBuffer = GrowingBuffer<DeviceMemory>;
using PinnedBuffer = GrowingBuffer<PinnedMemory>;

}  // namespace j2k
