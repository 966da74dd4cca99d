// SPDX-License-Identifier: BSD-2-Clause
// int32 sums that wrap around (two's complement) instead of overflowing. Overflow of a signed
// int is undefined in C++ (and in CUDA and OpenCL C), and the coefficients of a corrupt stream
// (or of 31-bit samples) can pass int32 in the 5/3 lifting steps and the RCT; OpenJPEG's int
// arithmetic wraps there on every machine it runs on. The same add and subtract instructions,
// with a defined result, on the CPU and in the CUDA kernels (the OpenCL kernels have WADD and
// WSUB in dwt.cl).
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define J2K_WRAP_HOST_DEVICE __host__ __device__
#else
#define J2K_WRAP_HOST_DEVICE
#endif

namespace j2k {

J2K_WRAP_HOST_DEVICE inline int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
J2K_WRAP_HOST_DEVICE inline int32_t wrap_sub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}

}  // namespace j2k
