// SPDX-License-Identifier: BSD-2-Clause
// Whether this build has the HT coders' AVX2 builds (block_decoder_avx2.cpp,
// block_encoder_avx2.cpp: x86-64, compilers with target attributes), and the attribute that
// compiles a function for them; -DJ2K_HT_HAVE_AVX2=0 leaves them out, as a build for another
// CPU does. Each is called only on a CPU with AVX2 and BMI2 (avx2_runs(), which the coders'
// available() ask).
#pragma once

#ifndef J2K_HT_HAVE_AVX2
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define J2K_HT_HAVE_AVX2 1
#else
#define J2K_HT_HAVE_AVX2 0
#endif
#endif

#if J2K_HT_HAVE_AVX2
#define J2K_HT_AVX2 __attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt")))
// The decoder's MagSgn sub-pass four quads a vector (block_decoder_avx2.cpp).
#define J2K_HT_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd,avx2,bmi,bmi2,lzcnt,popcnt")))
#endif

namespace j2k::codec::ht {

// Whether this build has the AVX2 builds and this CPU runs them.
inline bool avx2_runs() {
#if J2K_HT_HAVE_AVX2
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#else
  return false;
#endif
}

// Whether this build has them and this CPU runs the AVX-512 build (AVX2's and F, BW, VL, DQ, CD).
inline bool avx512_runs() {
#if J2K_HT_HAVE_AVX2
  return avx2_runs() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd");
#else
  return false;
#endif
}

}  // namespace j2k::codec::ht
