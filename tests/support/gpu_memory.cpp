// SPDX-License-Identifier: BSD-2-Clause
#include "tests/support/gpu_memory.hpp"

#include "j2kfront/config.h"

namespace test_support {

std::unique_ptr<GpuMemory> make_gpu_memory(j2k::Backend backend, std::string& why) {
  if (!j2k::backend_available(backend, &why)) return nullptr;
#if J2KFRONT_HAVE_CUDA
  if (backend == j2k::Backend::Cuda) return make_cuda_memory();
#endif
#if J2KFRONT_HAVE_OPENCL
  if (backend == j2k::Backend::OpenCL) return make_opencl_memory();
#endif
  why = std::string(j2k::backend_name(backend)) + " is not a GPU backend of this build";
  return nullptr;
}

}  // namespace test_support
