// SPDX-License-Identifier: BSD-2-Clause
// Where the first forward level reads its samples from, as a policy of the DWT kernels
// (dwt_kernels.cuh, dwt_fused.cuh), so that the front stage's per-sample work happens in that
// read instead of in a pass of its own over int32/float memory:
//   Packed<In>  one plane, pixels adjacent: In is the coefficient type (levels 2.., or the
//               caller's shifted values), or unsigned 8/16-bit samples less their DC offset;
//   Gather<In>  unsigned 8/16-bit samples `pixel_stride` elements apart (interleaved
//               components): comp < 0 reads plane 0 less its DC offset; comp 0..2 reads the
//               same pixel of planes 0..2, shifts each, and keeps component `comp` of their
//               RCT (5/3, T = int32) or ICT (9/7, T = float), bit for bit the separate passes.
// Only samples that need no range check come this way: unsigned, at the full precision of
// their type (the plan decides).
#pragma once
#include <cstdint>
#include <type_traits>

#include "transform/cuda/mct.cuh"

namespace j2k::cudadwt {

struct Samples {
  const void* p[3] = {nullptr, nullptr, nullptr};
  long long row_stride = 0;    // elements
  long long pixel_stride = 1;  // elements (Gather)
  int32_t dc[3] = {0, 0, 0};
  int comp = -1;               // Gather: the MCT output component, or -1 for none
};

template <class T, class In>
__device__ __forceinline__ T shifted(In x, int32_t dc) {
  if constexpr (sizeof(In) < 4) return static_cast<T>(static_cast<int32_t>(x) - dc);
  else return x;
}

template <class In>
struct Packed {
  using Elem = In;
  static constexpr bool kPairs = true;  // two adjacent samples may be read in one access
  template <class T>
  __device__ static T load(const Samples& s, long long row, int col) {
    return shifted<T>(__ldg(static_cast<const In*>(s.p[0]) + row * s.row_stride + col), s.dc[0]);
  }
};

template <class In>
struct Gather {
  static_assert(sizeof(In) < 4, "Gather reads unsigned 8/16-bit samples");
  using Elem = In;
  static constexpr bool kPairs = false;
  template <class T>
  __device__ static T load(const Samples& s, long long row, int col) {
    const long long i = row * s.row_stride + col * s.pixel_stride;
    const T a = shifted<T>(__ldg(static_cast<const In*>(s.p[0]) + i), s.dc[0]);
    if (s.comp < 0) return a;
    const T b = shifted<T>(__ldg(static_cast<const In*>(s.p[1]) + i), s.dc[1]);
    const T c = shifted<T>(__ldg(static_cast<const In*>(s.p[2]) + i), s.dc[2]);
    T y, u, v;
    cudamct::forward(a, b, c, y, u, v);
    return s.comp == 0 ? y : s.comp == 1 ? u : v;
  }
};

}  // namespace j2k::cudadwt
