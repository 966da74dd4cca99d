// SPDX-License-Identifier: BSD-2-Clause
// The DWT on planes in a GPU's memory, for the C API's j2k_cuda_dwt: the stage's one entry for
// it, so that nothing above transform/ names a backend. CUDA's (transform/cuda/cuda_dwt.hpp)
// where this build has it; in a build without CUDA both calls throw
// Error(BackendUnavailable) saying so.
#pragma once
#include <cstddef>
#include <cstdint>

#include "j2kfront/j2kfront.h"
#include "tiling/geometry.hpp"
#include "transform/dwt.hpp"

namespace j2k {

// A 2-D array in device memory: row y starts at (char*)data + y * row_stride.
struct DevicePlane {
  void* data = nullptr;
  j2k_sample_type type = J2K_SAMPLE_I32;
  ptrdiff_t row_stride = 0;  // bytes, a multiple of the element size
};

// Device workspace (bytes) that the forward and the inverse need for this geometry; 0 when
// at most one level is non-empty (workspace may then be null).
size_t device_dwt_workspace_bytes(Wavelet wavelet, const Rect& tc, int levels);

// `levels` levels of the DWT of `tc`, forward (less dc_shift first) or inverse, from src to
// dst on `stream` (a cudaStream_t), with the caller's workspace; cuda_dwt() checks every
// argument before any CUDA call.
void device_dwt(j2k_direction direction, Wavelet wavelet, const DevicePlane& src, int32_t dc_shift,
                const DevicePlane& dst, const Rect& tc, int levels, void* workspace, size_t workspace_bytes,
                void* stream);

}  // namespace j2k
