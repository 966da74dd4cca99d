// SPDX-License-Identifier: BSD-2-Clause
// Whether CUDA has a device here (device/available.hpp).
#include <cuda_runtime_api.h>

#include <string>

#include "device/available.hpp"

namespace j2k {

namespace {
std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }
}  // namespace

// The reason names the case: no driver at all (no GPU), a driver too old for this build, or a
// driver that finds no GPU.
bool cuda_available(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaSuccess && count > 0) return true;
  cudaGetLastError();  // clear the sticky-free error state
  if (why) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    if (driver == 0)
      *why = "no GPU: this machine has no NVIDIA driver (libcuda.so.1 not found)";
    else if (err == cudaErrorInsufficientDriver)
      *why = "the NVIDIA driver supports CUDA " + version_text(driver) + ", this build needs " +
             version_text(runtime) + ": update the driver";
    else if (err == cudaSuccess || err == cudaErrorNoDevice)
      *why = "no GPU: the NVIDIA driver finds no CUDA device";
    else
      *why = std::string("no usable CUDA device: ") + cudaGetErrorString(err);
  }
  return false;
}

std::future<void> start_cuda(int device) {
  return std::async(std::launch::async, [device] {
    if (cudaSetDevice(device) == cudaSuccess) cudaFree(nullptr);  // makes the primary context
    cudaGetLastError();
  });
}

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

}  // namespace j2k
