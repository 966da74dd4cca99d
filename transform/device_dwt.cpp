// SPDX-License-Identifier: BSD-2-Clause
#include "transform/device_dwt.hpp"

#include "common/error.hpp"
#include "j2kfront/config.h"
#if J2KFRONT_HAVE_CUDA
#include "transform/cuda/cuda_dwt.hpp"
#endif

namespace j2k {

#if J2KFRONT_HAVE_CUDA

size_t device_dwt_workspace_bytes(Wavelet wavelet, const Rect& tc, int levels) {
  return cuda_dwt_workspace_bytes(wavelet, tc, levels);
}

void device_dwt(j2k_direction direction, Wavelet wavelet, const DevicePlane& src, int32_t dc_shift,
                const DevicePlane& dst, const Rect& tc, int levels, void* workspace, size_t workspace_bytes,
                void* stream) {
  cuda_dwt(direction, wavelet, src, dc_shift, dst, tc, levels, workspace, workspace_bytes,
           static_cast<cudaStream_t>(stream));
}

#else

namespace {
[[noreturn]] void no_cuda() {
  throw Error(ErrorCode::BackendUnavailable,
              "this build has no CUDA backend (CUDA toolkit not found at configure time)");
}
}  // namespace

size_t device_dwt_workspace_bytes(Wavelet, const Rect&, int) { no_cuda(); }

void device_dwt(j2k_direction, Wavelet, const DevicePlane&, int32_t, const DevicePlane&, const Rect&, int, void*, size_t,
                void*) {
  no_cuda();
}

#endif

}  // namespace j2k
