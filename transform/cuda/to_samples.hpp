// SPDX-License-Identifier: BSD-2-Clause
// The decoder's last step on the GPU (to_samples.cu): the CUDA mirror of
// transform/cpu/to_samples.hpp, the same arithmetic bit for bit (no FMA in the ICT).
#pragma once
#include <cuda_runtime_api.h>

#include <vector>

#include "transform/queue.hpp"

namespace j2k::cuda {

// Planes hold device pointers (base + offset). Asynchronous on `stream`.
void to_samples(const std::vector<Plane>& in, const TileOutput& out, cudaStream_t stream);

}  // namespace j2k::cuda
