// SPDX-License-Identifier: BSD-2-Clause
// Backend names, availability, and the choice behind Backend::Auto.
#include <string>

#include "transform/backend.hpp"
#include "j2kfront/config.h"
#include "common/error.hpp"
#include "transform/dwt_engine.hpp"
#include "transform/queue.hpp"
#include "transform/queue_engine.hpp"

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
  // The CPU reference runs in place on the caller's buffer; the GPU backends run through their
  // queue's upload, DWT and download. make_queue resolves Auto and says what is missing.
  const Backend b = options.backend == Backend::Auto ? resolve_auto_backend() : options.backend;
  if (b == Backend::Cpu) return make_cpu_engine(options);
  BackendOptions o = options;
  o.backend = b;
  return make_queue_engine(make_queue(o));
}

}  // namespace j2k
