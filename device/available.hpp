// SPDX-License-Identifier: BSD-2-Clause
// Whether a GPU backend can run here, for the backend choice (transform/backend.cpp) and the
// backends themselves. Each is compiled only with its backend (J2KFRONT_HAVE_CUDA,
// J2KFRONT_HAVE_OPENCL): device/cuda/cuda_device.cpp, device/opencl/opencl_device.cpp.
#pragma once
#include <future>
#include <string>

namespace j2k {

// A CUDA device and a driver new enough for this build; else false, with `why` (when given)
// naming the case: no driver, a driver too old, or no device.
bool cuda_available(std::string* why);
// How many CUDA devices there are (0 where cuda_available() is false).
int cuda_device_count();
// Starts CUDA's runtime and its context on `device` on a thread of its own, so that the
// driver's start-up (about 0.25 s on the H200 machine) overlaps what the caller does first
// (reading the image); the future is ready once it is done, whether it worked or not (the
// backend's own first call reports a failure). Destroying the future waits for it.
std::future<void> start_cuda(int device);
// An OpenCL device that supports OpenCL 1.2 with a compiler; else false, with `why` saying
// which is missing.
bool opencl_available(std::string* why);
// Such an OpenCL device that is a GPU.
bool opencl_gpu_available();

}  // namespace j2k
