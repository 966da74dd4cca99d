// SPDX-License-Identifier: BSD-2-Clause
// What lets the HT cleanup coder (cleanup_encoder.hpp, with bit_writers.hpp and
// quad_rules.hpp) compile for the CPU and, unchanged, for the CUDA kernel that codes a batch of
// code-blocks on the GPU (gpu/cuda/warp_cleanup.cuh), and the HT decoder's steps for the
// kernel that decodes them (device_block_decoder.hpp): functions both may call are J2K_HD,
// and the few intrinsics and memory accesses that differ are wrapped here.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define J2K_HD __host__ __device__
#else
#define J2K_HD
#endif

namespace j2k::codec::ht {

// std::min and std::max where device code may call them too: the CPU keeps the standard ones
// (its HT decoder's code, which the AVX2 path was measured with, stays as it was compiled).
template <class T>
J2K_HD constexpr const T& min_of(const T& a, const T& b) {
#if defined(__CUDA_ARCH__)
  return b < a ? b : a;
#else
  return std::min(a, b);
#endif
}
template <class T>
J2K_HD constexpr const T& max_of(const T& a, const T& b) {
#if defined(__CUDA_ARCH__)
  return a < b ? b : a;
#else
  return std::max(a, b);
#endif
}

// The leading zero bits of x, which must not be 0.
J2K_HD inline int leading_zeros(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(x));
#else
  return __builtin_clz(x);
#endif
}

// w's 4 bytes at p, least significant first, p of any alignment (the writers' whole-word
// stores): one unaligned store on the CPU, four byte stores on the GPU (whose 32-bit stores
// must be aligned).
J2K_HD inline void store_le32(uint8_t* p, uint32_t w) {
#if defined(__CUDA_ARCH__)
  p[0] = static_cast<uint8_t>(w);
  p[1] = static_cast<uint8_t>(w >> 8);
  p[2] = static_cast<uint8_t>(w >> 16);
  p[3] = static_cast<uint8_t>(w >> 24);
#else
  std::memcpy(p, &w, 4);
#endif
}

// n bytes from `from` to `to` (not overlapping).
J2K_HD inline void copy_bytes(uint8_t* to, const uint8_t* from, size_t n) {
#if defined(__CUDA_ARCH__)
  for (size_t i = 0; i < n; ++i) to[i] = from[i];
#else
  if (n != 0) std::memcpy(to, from, n);
#endif
}

// n bytes at `to` set to 0.
J2K_HD inline void zero_bytes(uint8_t* to, size_t n) {
#if defined(__CUDA_ARCH__)
  for (size_t i = 0; i < n; ++i) to[i] = 0;
#else
  if (n != 0) std::memset(to, 0, n);
#endif
}

}  // namespace j2k::codec::ht
