// SPDX-License-Identifier: BSD-2-Clause
// Backend names, availability, and the choice behind Backend::Auto.
#include <algorithm>
#include <string>
#include <thread>

#include "transform/backend.hpp"
#include "j2kfront/config.h"
#include "common/error.hpp"
#include "device/available.hpp"
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

void apply_backend_options(BackendOptions& o, const std::string& items) {
  size_t start = 0;
  while (start <= items.size()) {
    size_t end = items.find(',', start);
    if (end == std::string::npos) end = items.size();
    const std::string item = items.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    if (item.rfind("opencl.", 0) == 0) {
      o.opencl_tuning += (o.opencl_tuning.empty() ? "" : ",") + item.substr(7);
    } else if (item == "cuda.fuse_97") {
      o.cuda_fuse_97 = true;
    } else if (item == "cuda.fuse_inverse") {
      o.cuda_fuse_inverse = true;
    } else {
      throw Error(ErrorCode::InvalidArgument,
                  "unknown backend option '" + item +
                      "' (expected opencl.<tuning item>, cuda.fuse_97 or cuda.fuse_inverse)");
    }
  }
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

Backend resolve_backend(Backend asked, Job job, uint64_t size, int threads, bool (*cuda_there)()) {
  if (asked != Backend::Auto) return asked;
  switch (job) {
    case Job::CompressOne:
    case Job::Decompress: {
      const uint64_t n = threads > 0 ? static_cast<uint64_t>(threads) : std::max(1u, std::thread::hardware_concurrency());
      if (size <= n * (job == Job::Decompress ? kAutoCudaBytesPerThread : kAutoCudaInputBytesPerThread)) return Backend::Cpu;
      return (cuda_there ? cuda_there() : backend_available(Backend::Cuda)) ? Backend::Cuda : Backend::Cpu;
    }
    case Job::Transform:
    case Job::CompressBatch: break;
  }
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
  const Backend b = resolve_backend(options.backend, Job::Transform);
  if (b == Backend::Cpu) return make_cpu_engine(options);
  BackendOptions o = options;
  o.backend = b;
  return make_queue_engine(make_queue(o));
}

}  // namespace j2k
