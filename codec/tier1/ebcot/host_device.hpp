// SPDX-License-Identifier: BSD-2-Clause
// What lets the Tier-1 decoder's passes compile for the CPU and, unchanged, for the CUDA
// kernel that decodes a tile's code-blocks on the GPU (cuda/block_decoder.cu): functions both
// may call are J2K_T1_HD, and the few intrinsics that differ are wrapped here.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define J2K_T1_HD __host__ __device__
#else
#define J2K_T1_HD
#endif

// Inlined on the CPU whatever the compiler's budget: the decoders' steps, so that a pass keeps
// the MQ decoder's registers in CPU registers. One call left out of line takes the decoder's
// address, and then every decision of the pass loaded and stored them through memory (GCC did
// so in the significance pass; forced, 8-bit blocks decode 3% faster, lossy ones 4%:
// bench/tier1_ab.sh). The CUDA kernel's device code is left to nvcc, which inlines them.
#if defined(__CUDA_ARCH__)
#define J2K_T1_INLINE
#elif defined(__GNUC__)
#define J2K_T1_INLINE inline __attribute__((always_inline))
#else
#define J2K_T1_INLINE inline
#endif

namespace j2k::codec::t1 {

// Leading zeros of a 16-bit value 1..0xFFFF (the MQ decoder's A: RENORMD's shifts). On the
// CPU as 15 less the top bit's index, which BSR gives and 15 ^ index takes from 15: one
// instruction less than clz - 16 (BSR's index ^ 31, less 16) without LZCNT.
J2K_T1_HD inline int clz16(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(x)) - 16;
#else
  return (31 ^ __builtin_clz(x)) ^ 15;
#endif
}

}  // namespace j2k::codec::t1
