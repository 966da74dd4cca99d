// The queue of the backend that the options name (Auto resolved here, once).
#include "transform/queue.hpp"

#include <cstdlib>
#include <string>

#include "common/error.hpp"
#include "j2kfront/config.h"

namespace j2k {

void* allocate_host_coefficients(size_t bytes, j2k_memory& where, const char* backend) {
  if (where == J2K_MEMORY_DEVICE)
    throw Error(ErrorCode::InvalidArgument, std::string("the ") + backend +
                                                " backend keeps coefficients in host memory; device memory needs the cuda backend");
  where = J2K_MEMORY_HOST;
  // Rows of 64-byte aligned buffers start on a cache line (the plan aligns each plane).
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p && bytes)
    throw Error(ErrorCode::OutOfMemory,
                "cannot allocate " + std::to_string(bytes) + " bytes of host memory for the coefficients");
  return p;
}

std::unique_ptr<Queue> make_queue(const BackendOptions& options) {
  BackendOptions o = options;
  if (o.backend == Backend::Auto) o.backend = resolve_auto_backend();
  switch (o.backend) {
#if J2KFRONT_HAVE_CUDA
    case Backend::Cuda: return make_cuda_queue(o);
#endif
#if J2KFRONT_HAVE_OPENCL
    case Backend::OpenCL: return make_opencl_queue(o);
#endif
    case Backend::Cpu: return make_cpu_queue(o);
    default: break;
  }
  std::string why;
  backend_available(o.backend, &why);
  throw Error(ErrorCode::BackendUnavailable,
              std::string("backend '") + backend_name(o.backend) + "' is not available: " + why);
}

}  // namespace j2k
