// SPDX-License-Identifier: BSD-2-Clause
// The queue of the backend that the options name (Auto resolved here, once).
#include "transform/queue.hpp"

#include <cstdlib>
#include <string>

#include "common/error.hpp"
#include "j2kfront/config.h"

namespace j2k {

void Queue::on_stream(const std::function<void(void*)>&) { no_cuda_streams(); }

bool check_to_samples(const std::vector<Plane>& in, const TileOutput& out) {
  const size_t n = out.out.size();
  if (in.size() != n || out.offset.size() != n || out.lo.size() != n || out.hi.size() != n)
    throw Error(ErrorCode::Internal, "to_samples: a plane, offset and range per component");
  for (size_t c = 0; c < n; ++c) {
    if (in[c].type != J2K_SAMPLE_I32 && in[c].type != J2K_SAMPLE_F32)
      throw Error(ErrorCode::Internal, "to_samples: coefficients must be I32 or F32");
    const j2k_sample_type t = out.out[c].type;
    if (t != J2K_SAMPLE_U8 && t != J2K_SAMPLE_I8 && t != J2K_SAMPLE_U16 && t != J2K_SAMPLE_I16 && t != J2K_SAMPLE_U32 &&
        t != J2K_SAMPLE_I32)
      throw Error(ErrorCode::Internal, "to_samples: output samples must be U8, I8, U16, I16, U32 or I32");
  }
  const bool mct = out.mct && n >= 3;
  if (mct && (in[1].type != in[0].type || in[2].type != in[0].type))
    throw Error(ErrorCode::Internal, "to_samples: components 0..2 of an MCT tile differ in wavelet");
  return mct;
}

void* allocate_host_coefficients(size_t bytes, j2k_memory& where, const char* backend) {
  if (where == J2K_MEMORY_DEVICE)
    throw Error(ErrorCode::InvalidArgument, std::string("the ") + backend +
                                                " backend keeps coefficients in host memory; device memory needs the cuda backend");
  where = J2K_MEMORY_HOST;
  // Rows of 64-byte aligned buffers start on a cache line (the plan aligns each plane). No
  // transparent huge pages asked for: in a virtual machine whose host backs the guest's
  // memory on first touch, or takes back its free 2 MiB blocks (free page reporting), a fresh
  // huge page costs far more than the 512 small pages the kernel hands out from what was just
  // freed. One-thread decode of a 4096^2 RGB stream on a development VM: 0.34 to 0.72 s of
  // system time with the hint against 0.15 to 0.25 s without, the whole run 5% to 25% slower;
  // compress 7% slower; the DWT on reused buffers no faster (docs/maintainers/experiments.md, Memory pages).
  const size_t size = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, size);
  if (!p && bytes)
    throw Error(ErrorCode::OutOfMemory,
                "cannot allocate " + std::to_string(bytes) + " bytes of host memory for the coefficients");
  return p;
}

std::unique_ptr<Queue> make_queue(const BackendOptions& options) {
  BackendOptions o = options;
  o.backend = resolve_backend(o.backend, Job::Transform);
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
