// The CUDA backend as a DwtEngine (host buffers): the CUDA queue's upload, DWT and download
// (transform/queue_engine.hpp); and whether CUDA has a device here.
#include <cuda_runtime_api.h>

#include <string>

#include "transform/dwt_engine.hpp"
#include "transform/queue_engine.hpp"

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

std::unique_ptr<DwtEngine> make_cuda_engine(const BackendOptions& options) {
  return make_queue_engine(make_cuda_queue(options));
}

}  // namespace j2k
