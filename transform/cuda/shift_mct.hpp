// SPDX-License-Identifier: BSD-2-Clause
// DC level shift and RCT/ICT on the GPU (shift_mct.cu): the CUDA mirror of
// transform/cpu/shift_mct.hpp, same arithmetic bit for bit (no FMA in the ICT).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "transform/queue.hpp"

namespace j2k::cuda {

// Planes hold device pointers (base + offset). `out` I32 (5/3) or F32 (9/7). A sample outside
// its precision sets *d_out_of_range (device memory) to 1. Asynchronous on `stream`.
void shift_mct(const TileSamples& tile, Wavelet wavelet, const std::vector<Plane>& out,
               int* d_out_of_range, cudaStream_t stream);

}  // namespace j2k::cuda
