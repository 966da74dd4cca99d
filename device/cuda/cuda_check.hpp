// SPDX-License-Identifier: BSD-2-Clause
// CUDA errors become j2k::Error(BackendFailure, "<call>: <CUDA's message>") at the launcher;
// a machine without a usable device or driver gives BackendUnavailable (j2k_status's meaning).
#pragma once
#include <cuda_runtime_api.h>

#include <string>

#include "common/error.hpp"

namespace j2k {

inline void cuda_check(cudaError_t err, const char* call) {
  if (err == cudaSuccess) return;
  const bool no_device = err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
                         err == cudaErrorDevicesUnavailable;
  throw Error(no_device ? ErrorCode::BackendUnavailable : ErrorCode::BackendFailure,
              std::string(call) + ": " + cudaGetErrorString(err));
}

cudaError_t cuda_kernel_image_check();  // dwt_cuda.cu

}  // namespace j2k
