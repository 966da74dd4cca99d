// The OpenCL backend's queue. For now the host queue: shift and MCT on the host, straight from
// the caller's samples, and the OpenCL DWT engine, which copies each tile-component to the
// device and back. Device-resident stages (narrow uploads, a shift/MCT kernel, coefficients
// kept on the device) are the next step for this backend.
#include "transform/host_queue.hpp"

namespace j2k {

std::unique_ptr<Queue> make_opencl_queue(const BackendOptions& options) {
  return std::make_unique<HostQueue>(Backend::OpenCL, make_opencl_engine(options), options.threads);
}

}  // namespace j2k
