// The queue of the backend that the options name (Auto resolved here, once).
#include "transform/queue.hpp"

#include "common/error.hpp"
#include "j2kfront/config.h"

namespace j2k {

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
