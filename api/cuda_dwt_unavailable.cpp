// SPDX-License-Identifier: BSD-2-Clause
// j2k_cuda_dwt and its workspace query in a build without the CUDA backend: they exist, so
// that every build links the same interface, and say why they cannot run.
#include "api/guard.hpp"
#include "j2kfront/j2kfront.h"

namespace {
const char* const kNoCuda =
    "this build has no CUDA backend (CUDA toolkit not found at configure time)";
}

extern "C" {

j2k_status j2k_cuda_dwt_workspace_size(j2k_wavelet, const j2k_rect*, int, size_t* bytes) {
  if (bytes) *bytes = 0;
  return j2k::api::fail(J2K_BACKEND_UNAVAILABLE,
                        std::string("j2k_cuda_dwt_workspace_size: ") + kNoCuda);
}

j2k_status j2k_cuda_dwt(j2k_direction, j2k_wavelet, const j2k_device_plane*, int32_t,
                        const j2k_device_plane*, const j2k_rect*, int, void*, size_t, void*) {
  return j2k::api::fail(J2K_BACKEND_UNAVAILABLE, std::string("j2k_cuda_dwt: ") + kNoCuda);
}

}  // extern "C"
