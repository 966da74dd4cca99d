// Backend names, availability, and the choice behind Backend::Auto.
#include <string>

#include "transform/backend.hpp"
#include "j2kfront/config.h"
#include "common/error.hpp"
#include "transform/dwt_engine.hpp"

namespace j2k {

Backend parse_backend(const std::string& name) {
  if (name == "auto") return Backend::Auto;
  if (name == "cpu") return Backend::Cpu;
  if (name == "cuda") return Backend::Cuda;
  if (name == "opencl") return Backend::OpenCL;
  throw Error(ErrorCode::InvalidArgument,
              "unknown backend '" + name + "' (expected auto, cpu, cuda or opencl)");
}

const char* backend_name(Backend backend) {
  switch (backend) {
    case Backend::Auto: return "auto";
    case Backend::Cpu: return "cpu";
    case Backend::Cuda: return "cuda";
    case Backend::OpenCL: return "opencl";
  }
  return "?";
}

bool backend_available(Backend backend, std::string* why) {
  switch (backend) {
    case Backend::Auto:
    case Backend::Cpu:
      return true;
    case Backend::Cuda:
#if J2KFRONT_HAVE_CUDA
      return cuda_available(why);
#else
      if (why) *why = "this build has no CUDA backend (CUDA toolkit not found at configure time)";
      return false;
#endif
    case Backend::OpenCL:
#if J2KFRONT_HAVE_OPENCL
      return opencl_available(why);
#else
      if (why) *why = "this build has no OpenCL backend (OpenCL headers/ICD loader not found at configure time)";
      return false;
#endif
  }
  return false;
}

Backend resolve_auto_backend() {
#if J2KFRONT_HAVE_CUDA
  if (cuda_available(nullptr)) return Backend::Cuda;
#endif
#if J2KFRONT_HAVE_OPENCL
  if (opencl_gpu_available()) return Backend::OpenCL;
#endif
  return Backend::Cpu;
}

std::unique_ptr<DwtEngine> make_engine(const BackendOptions& options) {
  BackendOptions o = options;
  if (o.backend == Backend::Auto) o.backend = resolve_auto_backend();
  switch (o.backend) {
    // Each GPU factory checks its settings, then its devices, and says what is missing.
#if J2KFRONT_HAVE_CUDA
    case Backend::Cuda: return make_cuda_engine(o);
#endif
#if J2KFRONT_HAVE_OPENCL
    case Backend::OpenCL: return make_opencl_engine(o);
#endif
    case Backend::Cpu: return make_cpu_engine(o);
    default: break;
  }
  std::string why;
  backend_available(o.backend, &why);
  throw Error(ErrorCode::BackendUnavailable,
              std::string("backend '") + backend_name(o.backend) + "' is not available: " + why);
}

}  // namespace j2k
