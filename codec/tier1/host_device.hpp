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

namespace j2k::codec::t1 {

// Leading zeros of a non-zero 32-bit word.
J2K_T1_HD inline int clz32(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(x));
#else
  return __builtin_clz(x);
#endif
}

}  // namespace j2k::codec::t1
