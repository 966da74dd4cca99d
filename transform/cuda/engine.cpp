// Whether CUDA has a device here. (The DWT on host buffers is the CUDA queue's upload, DWT and
// download: transform/queue_engine.hpp.)
#include <cuda_runtime_api.h>

#include <string>

#include "transform/dwt_engine.hpp"

namespace j2k {

bool cuda_available(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    if (why) *why = std::string("no CUDA device: ") + cudaGetErrorString(err);
    cudaGetLastError();  // clear the sticky-free error state
    return false;
  }
  if (count == 0) {
    if (why) *why = "no CUDA device: none found";
    return false;
  }
  return true;
}

}  // namespace j2k
