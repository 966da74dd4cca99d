// SPDX-License-Identifier: BSD-2-Clause
// Int16 output on the GPU (narrow.cu): int32 5/3 coefficients, known to fit, copied into an
// int16 plane to halve the download.
#pragma once
#include <cuda_runtime_api.h>

#include "transform/queue.hpp"

namespace j2k::cuda {

// Planes hold device pointers (base + offset): src I32, dst I16, same size. Asynchronous.
void narrow(const Plane& src, const Plane& dst, cudaStream_t stream);

}  // namespace j2k::cuda
