// SPDX-License-Identifier: BSD-2-Clause
// Register-based DWT kernels, one decomposition level per launch (after Enfedaque, Auli-Llinas
// & Moure, IEEE TPDS 2015). One warp owns one tile: each lane holds 2 adjacent columns of
// R = rows + 2*halo rows in registers. Vertical lifting runs inside each lane, horizontal
// lifting across lanes through warp shuffles. Tiles overlap by their halos, so no warp waits
// for another; every sample of a tile is loaded before any arithmetic.
//
// Boundaries: whole-sample symmetric extension is a reflection of the signal about its first
// and last sample. Reflections keep parity, and every lifting step is symmetric in its two
// neighbours, so lifting the reflected (periodically mirrored) signal gives, at every real
// position, exactly the CPU reference's result (its "clamp the neighbour index" rule). Tiles
// therefore load mirrored positions and run branch-free lifting; a signal of one sample uses
// the Annex F single-sample rule instead.
//
// 9/7: every add and multiply is __fadd_rn / __fmul_rn (never contracted into an FMA), in
// the reference's order t = a + b; t = t * c; x = x + t.
#pragma once
#include "transform/common/constants.hpp"
#include "transform/common/int_wrap.hpp"
#include <cstdint>

#include "transform/cuda/sample_source.cuh"
#include "transform/cuda/tuning.hpp"

namespace j2k::cudadwt {

constexpr unsigned kFull = 0xffffffffu;
// kW97OpenJpeg: the 9/7 whose inverse scales as OpenJPEG's decoder (kInverse97OpenJpeg).
constexpr int kW53 = 0, kW97 = 1, kW97OpenJpeg = 2;

template <int W>
struct Wv;

template <>
struct Wv<kW53> {
  using T = int32_t;
  static constexpr int kSteps = 2;
  static constexpr int kHalo = 2;  // samples of context needed on each side
  static constexpr int kRows = cuda_tuning::kRows53;
  // Forward step S acts on highs when S is even, lows when odd.
  template <int S>
  __device__ static T fwd(T x, T a, T b) {
    if constexpr (S == 0) return wrap_sub(x, wrap_add(a, b) >> 1);  // sums wrap (int_wrap.hpp)
    else return wrap_add(x, wrap_add(wrap_add(a, b), 2) >> 2);
  }
  // Inverse step S acts on lows when S is even, highs when odd.
  template <int S>
  __device__ static T inv(T x, T a, T b) {
    if constexpr (S == 0) return wrap_sub(x, wrap_add(wrap_add(a, b), 2) >> 2);
    else return wrap_add(x, wrap_add(a, b) >> 1);
  }
  __device__ static T scale_fwd(T x, int) { return x; }
  __device__ static T scale_inv(T x, int) { return x; }
  __device__ static T single_fwd(T x) { return x * 2; }
  __device__ static T single_inv(T x) { return x / 2; }  // C's truncating division
};

template <>
struct Wv<kW97> {
  using T = float;
  static constexpr int kSteps = 4;
  static constexpr int kHalo = 4;
  static constexpr int kRows = cuda_tuning::kRows97;
  __device__ static float coef(int s) {
    return s == 0 ? constants::kAlpha : s == 1 ? constants::kBeta : s == 2 ? constants::kGamma : constants::kDelta;
  }
  template <int S>
  __device__ static T fwd(T x, T a, T b) {
    return __fadd_rn(x, __fmul_rn(__fadd_rn(a, b), coef(S)));
  }
  template <int S>
  __device__ static T inv(T x, T a, T b) {
    return __fadd_rn(x, __fmul_rn(__fadd_rn(a, b), -coef(3 - S)));
  }
  static constexpr float kK = constants::kK;
  static constexpr float kInvK = constants::kInvK;
  // cls: 0 = low, 1 = high.
  __device__ static T scale_fwd(T x, int cls) { return __fmul_rn(x, cls ? kK : kInvK); }
  __device__ static T scale_inv(T x, int cls) { return __fmul_rn(x, cls ? kInvK : kK); }
  __device__ static T single_fwd(T x) { return __fmul_rn(x, 2.0f); }
  __device__ static T single_inv(T x) { return __fmul_rn(x, 0.5f); }
};

// Inverse only: highs times OpenJPEG's "two_invK", a lone high sample left as it is.
template <>
struct Wv<kW97OpenJpeg> : Wv<kW97> {
  __device__ static T scale_inv(T x, int cls) { return __fmul_rn(x, cls ? constants::kInverse97OpenJpeg.high : kK); }
  __device__ static T single_inv(T x) { return x; }
};

// Index of position p after whole-sample symmetric extension of a signal of n >= 1 samples.
__device__ __forceinline__ int mirror(int p, int n) {
  if (p >= 0 && p < n) return p;
  if (n == 1) return 0;
  const int period = 2 * (n - 1);
  p %= period;
  if (p < 0) p += period;
  return p < n ? p : period - p;
}

// Deinterleaved (pyramid) index of interleaved position p: lows first, then highs.
__device__ __forceinline__ int deint(int p, int cas, int sn) {
  const int q = p + cas;
  return (q & 1) ? sn + (q >> 1) : (q >> 1) - cas;
}

// Two adjacent samples in one access (the pair's first sample at an even index, buffer and
// stride aligned for it).
template <class In> struct Pair;
template <> struct Pair<int32_t> { using type = int2; };
template <> struct Pair<float> { using type = float2; };
template <> struct Pair<uint16_t> { using type = ushort2; };
template <> struct Pair<uint8_t> { using type = uchar2; };

// Programmatic dependent launch: let the next level's grid start launching now, and wait
// until the previous level's grid has finished and its writes are visible. Both are no-ops
// when the grid was launched without the attribute.
__device__ __forceinline__ void pdl_wait_and_release() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Detail subbands are not read again by the transform: streaming (evict-first) stores keep
// L2 for the LL that the next level reads. -DJ2K_CUDA_PLAIN_STORES for A/B measurements.
template <class T>
__device__ __forceinline__ void store_detail(T* p, T v) {
#ifdef J2K_CUDA_PLAIN_STORES
  *p = v;
#else
  __stcs(p, v);
#endif
}

struct LevelGeom {
  int w, h, sn_x, sn_y;
  int tiles_x;
  int ty0 = 0;  // the first tile row of this launch (a launch may cover a band of tile rows)
  long long tiles;  // tiles of this launch
  bool reverse;  // walk the tiles last to first (see tile_index)
};

// Consecutive levels walk their tiles in opposite orders, so that each level starts on the
// rows of its input that the previous level wrote last, which are still in L2.
__device__ __forceinline__ long long tile_index(const LevelGeom& g) {
  const long long t = static_cast<long long>(blockIdx.x) * cuda_tuning::kWarpsPerBlock + (threadIdx.x >> 5);
  return g.reverse ? g.tiles - 1 - t : t;
}

template <class T>
struct FwdArgs {
  LevelGeom g;
  Samples src;  // read through the kernel's sample source (sample_source.cuh)
  bool vec;  // input buffer and stride allow Pair loads at even columns (Packed sources)
  T* det;  // HL, LH, HH at their pyramid places
  long long det_stride;
  T* ll;   // LL: next level's input, or dst at the last level
  long long ll_stride;
};

template <class T>
struct InvArgs {
  LevelGeom g;
  const T* ll;  // LL of this level
  long long ll_stride;
  const T* det;  // HL, LH, HH
  long long det_stride;
  T* out;  // reconstructed resolution, interleaved
  long long out_stride;
  bool vec;  // output buffer and stride allow Pair stores at even columns
};

// Horizontal lifting step S on one row held as (a0, a1) per lane. a0 sits at an even
// interleaved position, so its class is CAS_X (1 = high).
template <int W, bool kFwd, int S, int CAS_X>
__device__ __forceinline__ void hstep(typename Wv<W>::T& a0, typename Wv<W>::T& a1) {
  using Wt = Wv<W>;
  using T = typename Wt::T;
  constexpr int cls = kFwd ? 1 - (S & 1) : (S & 1);
  if constexpr (cls == CAS_X) {  // update a0 from the previous lane's a1 and own a1
    const T prev = __shfl_up_sync(kFull, a1, 1);
    a0 = kFwd ? Wt::template fwd<S>(a0, prev, a1) : Wt::template inv<S>(a0, prev, a1);
  } else {  // update a1 from own a0 and the next lane's a0
    const T next = __shfl_down_sync(kFull, a0, 1);
    a1 = kFwd ? Wt::template fwd<S>(a1, a0, next) : Wt::template inv<S>(a1, a0, next);
  }
}

// Vertical lifting step S on all rows in registers; row k has class (k + CAS_Y) & 1.
template <int W, bool kFwd, int S, int CAS_Y, int R>
__device__ __forceinline__ void vstep(typename Wv<W>::T (&v)[R][2]) {
  using Wt = Wv<W>;
  constexpr int cls = kFwd ? 1 - (S & 1) : (S & 1);
#pragma unroll
  for (int k = 1; k < R - 1; ++k) {
    if (((k + CAS_Y) & 1) == cls) {
#pragma unroll
      for (int c = 0; c < 2; ++c)
        v[k][c] = kFwd ? Wt::template fwd<S>(v[k][c], v[k - 1][c], v[k + 1][c])
                       : Wt::template inv<S>(v[k][c], v[k - 1][c], v[k + 1][c]);
    }
  }
}

template <int W, bool kFwd, int CAS_Y, int R, int S = 0>
__device__ __forceinline__ void vsteps(typename Wv<W>::T (&v)[R][2]) {
  if constexpr (S < Wv<W>::kSteps) {
    vstep<W, kFwd, S, CAS_Y, R>(v);
    vsteps<W, kFwd, CAS_Y, R, S + 1>(v);
  }
}

template <int W, bool kFwd, int CAS_X, int S = 0>
__device__ __forceinline__ void hsteps(typename Wv<W>::T& a0, typename Wv<W>::T& a1) {
  if constexpr (S < Wv<W>::kSteps) {
    hstep<W, kFwd, S, CAS_X>(a0, a1);
    hsteps<W, kFwd, CAS_X, S + 1>(a0, a1);
  }
}

constexpr int kThreads = cuda_tuning::kWarpsPerBlock * 32;

// One forward level: reads the w x h resolution (interleaved) through the sample source Src,
// writes its four subbands.
template <int W, class Src, int CAS_X, int CAS_Y, int TY>
__global__ void __launch_bounds__(kThreads, cuda_tuning::kMinBlocksFwd) forward_level(FwdArgs<typename Wv<W>::T> a) {
  using Wt = Wv<W>;
  using T = typename Wt::T;
  constexpr int H = Wt::kHalo, R = TY + 2 * H;
  constexpr int TX = 64 - 2 * H, HL = H / 2;  // output columns per tile, halo lanes
  static_assert(TY % 2 == 0, "tile rows must be even");
  const int lane = threadIdx.x & 31;
  const long long tile = tile_index(a.g);
  if (tile < 0 || tile >= a.g.tiles) return;  // whole warp
  const int ty = a.g.ty0 + static_cast<int>(tile / a.g.tiles_x), tx = static_cast<int>(tile % a.g.tiles_x);
  const int x0 = tx * TX, y0 = ty * TY;
  const int px = x0 - H + 2 * lane;  // even: a0's class is CAS_X
  const int c0 = mirror(px, a.g.w), c1 = mirror(px + 1, a.g.w);
  pdl_wait_and_release();

  T v[R][2];
  // Interior tiles (rows need no mirroring; the whole warp on aligned, unmirrored pairs):
  // one load per pair, addresses by constant row offsets.
  bool pairs = false;
  if constexpr (Src::kPairs) {
    const bool rows_inside = y0 - H >= 0 && y0 + TY + H <= a.g.h;
    pairs = __all_sync(kFull, rows_inside && a.vec && c1 == c0 + 1);
  }
  if (pairs) {
    if constexpr (Src::kPairs) {
      using In = typename Src::Elem;
      using P = typename Pair<In>::type;
      const P* base = reinterpret_cast<const P*>(static_cast<const In*>(a.src.p[0]) +
                                                 static_cast<long long>(y0 - H) * a.src.row_stride + c0);
      const long long ps = a.src.row_stride / 2;
#pragma unroll
      for (int k = 0; k < R; ++k) {
        const P p = __ldg(base + k * ps);
        v[k][0] = shifted<T>(p.x, a.src.dc[0]);
        v[k][1] = shifted<T>(p.y, a.src.dc[0]);
      }
    }
  } else {
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const int r = mirror(y0 - H + k, a.g.h);
      v[k][0] = Src::template load<T>(a.src, r, c0);
      v[k][1] = Src::template load<T>(a.src, r, c1);
    }
  }

  // Vertical pass.
  if (a.g.h == 1) {
    if (CAS_Y) {
#pragma unroll
      for (int k = 0; k < R; ++k) {
        v[k][0] = Wt::single_fwd(v[k][0]);
        v[k][1] = Wt::single_fwd(v[k][1]);
      }
    }
  } else {
    vsteps<W, true, CAS_Y, R>(v);
    if (W != kW53) {
#pragma unroll
      for (int k = H; k < H + TY; ++k) {
        v[k][0] = Wt::scale_fwd(v[k][0], (k + CAS_Y) & 1);
        v[k][1] = Wt::scale_fwd(v[k][1], (k + CAS_Y) & 1);
      }
    }
  }

  // Horizontal pass on the output rows.
#pragma unroll
  for (int k = H; k < H + TY; ++k) {
    if (a.g.w == 1) {
      if (CAS_X) {
        v[k][0] = Wt::single_fwd(v[k][0]);
        v[k][1] = Wt::single_fwd(v[k][1]);
      }
    } else {
      hsteps<W, true, CAS_X>(v[k][0], v[k][1]);
      if (W != kW53) {
        v[k][0] = Wt::scale_fwd(v[k][0], CAS_X);
        v[k][1] = Wt::scale_fwd(v[k][1], 1 - CAS_X);
      }
    }
  }

  // Store: lows of both directions to LL, everything else to the detail buffer.
  if (lane < HL || lane >= 32 - HL) return;
  const int oc0 = deint(px, CAS_X, a.g.sn_x), oc1 = deint(px + 1, CAS_X, a.g.sn_x);
  const bool in0 = px < a.g.w, in1 = px + 1 < a.g.w;
  // Row k (interleaved y0 - H + k, y0 - H even) goes to pyramid row hb + (k + CAS_Y) / 2 - CAS_Y
  // when low, sn_y + hb + (k + CAS_Y) / 2 when high.
  const int hb = (y0 - H) >> 1;
  const int krows = a.g.h - y0 + H;  // rows k >= krows lie outside the resolution
  T* ll_lo = a.ll + static_cast<long long>(hb - CAS_Y) * a.ll_stride;
  T* det_lo = a.det + static_cast<long long>(hb - CAS_Y) * a.det_stride;
  T* det_hi = a.det + static_cast<long long>(a.g.sn_y + hb) * a.det_stride;
#pragma unroll
  for (int k = H; k < H + TY; ++k) {
    if (k >= krows) break;
    const bool low_r = ((k + CAS_Y) & 1) == 0;
    const long long half = (k + CAS_Y) >> 1;
    T* det = (low_r ? det_lo : det_hi) + half * a.det_stride;
    T* ll = ll_lo + half * a.ll_stride;
    if (in0) {
      if (low_r && CAS_X == 0) ll[oc0] = v[k][0];
      else store_detail(det + oc0, v[k][0]);
    }
    if (in1) {
      if (low_r && CAS_X == 1) ll[oc1] = v[k][1];
      else store_detail(det + oc1, v[k][1]);
    }
  }
}

// One inverse level: reads the four subbands of the w x h resolution, writes it interleaved.
template <int W, int CAS_X, int CAS_Y, int TY>
__global__ void __launch_bounds__(kThreads, cuda_tuning::kMinBlocksInv) inverse_level(InvArgs<typename Wv<W>::T> a) {
  using Wt = Wv<W>;
  using T = typename Wt::T;
  constexpr int H = Wt::kHalo, R = TY + 2 * H;
  constexpr int TX = 64 - 2 * H, HL = H / 2;
  const int lane = threadIdx.x & 31;
  const long long tile = tile_index(a.g);
  if (tile < 0 || tile >= a.g.tiles) return;  // whole warp
  const int ty = static_cast<int>(tile / a.g.tiles_x), tx = static_cast<int>(tile % a.g.tiles_x);
  const int x0 = tx * TX, y0 = ty * TY;
  const int px = x0 - H + 2 * lane;
  const int c0 = deint(mirror(px, a.g.w), CAS_X, a.g.sn_x);
  const int c1 = deint(mirror(px + 1, a.g.w), CAS_X, a.g.sn_x);
  const bool low_c0 = c0 < a.g.sn_x, low_c1 = c1 < a.g.sn_x;
  pdl_wait_and_release();

  T v[R][2];
  if (y0 - H >= 0 && y0 + TY + H <= a.g.h) {
    // Rows need no mirroring: row k comes from pyramid row hb + (k + CAS_Y) / 2 - CAS_Y (low)
    // or sn_y + hb + (k + CAS_Y) / 2 (high); each lane's columns pick LL or detail once.
    const int hb = (y0 - H) >> 1;
    const T* lo0 = low_c0 ? a.ll + static_cast<long long>(hb - CAS_Y) * a.ll_stride + c0
                          : a.det + static_cast<long long>(hb - CAS_Y) * a.det_stride + c0;
    const T* lo1 = low_c1 ? a.ll + static_cast<long long>(hb - CAS_Y) * a.ll_stride + c1
                          : a.det + static_cast<long long>(hb - CAS_Y) * a.det_stride + c1;
    const long long ls0 = low_c0 ? a.ll_stride : a.det_stride;
    const long long ls1 = low_c1 ? a.ll_stride : a.det_stride;
    const T* hi = a.det + static_cast<long long>(a.g.sn_y + hb) * a.det_stride;
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const long long half = (k + CAS_Y) >> 1;
      if (((k + CAS_Y) & 1) == 0) {
        v[k][0] = __ldg(lo0 + half * ls0);
        v[k][1] = __ldg(lo1 + half * ls1);
      } else {
        v[k][0] = __ldg(hi + half * a.det_stride + c0);
        v[k][1] = __ldg(hi + half * a.det_stride + c1);
      }
    }
  } else {
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const int r = deint(mirror(y0 - H + k, a.g.h), CAS_Y, a.g.sn_y);
      const bool low_r = r < a.g.sn_y;
      const T* det = a.det + static_cast<long long>(r) * a.det_stride;
      const T* ll = a.ll + static_cast<long long>(r) * a.ll_stride;
      v[k][0] = __ldg((low_r && low_c0) ? ll + c0 : det + c0);
      v[k][1] = __ldg((low_r && low_c1) ? ll + c1 : det + c1);
    }
  }

  // Horizontal inverse on every row in registers.
#pragma unroll
  for (int k = 0; k < R; ++k) {
    if (a.g.w == 1) {
      if (CAS_X) {
        v[k][0] = Wt::single_inv(v[k][0]);
        v[k][1] = Wt::single_inv(v[k][1]);
      }
    } else {
      if (W != kW53) {
        v[k][0] = Wt::scale_inv(v[k][0], CAS_X);
        v[k][1] = Wt::scale_inv(v[k][1], 1 - CAS_X);
      }
      hsteps<W, false, CAS_X>(v[k][0], v[k][1]);
    }
  }

  // Vertical inverse.
  if (a.g.h == 1) {
    if (CAS_Y) {
#pragma unroll
      for (int k = 0; k < R; ++k) {
        v[k][0] = Wt::single_inv(v[k][0]);
        v[k][1] = Wt::single_inv(v[k][1]);
      }
    }
  } else {
    if (W != kW53) {
#pragma unroll
      for (int k = 0; k < R; ++k) {
        v[k][0] = Wt::scale_inv(v[k][0], (k + CAS_Y) & 1);
        v[k][1] = Wt::scale_inv(v[k][1], (k + CAS_Y) & 1);
      }
    }
    vsteps<W, false, CAS_Y, R>(v);
  }

  if (lane < HL || lane >= 32 - HL) return;
  const bool in0 = px < a.g.w, in1 = px + 1 < a.g.w;
  const int krows = a.g.h - y0 + H;
  T* out0 = a.out + static_cast<long long>(y0 - H) * a.out_stride;
#pragma unroll
  for (int k = H; k < H + TY; ++k) {
    if (k >= krows) break;
    T* out = out0 + k * a.out_stride;
    if (a.vec && in1) {
      using P = typename Pair<T>::type;
      P p;
      p.x = v[k][0];
      p.y = v[k][1];
      *reinterpret_cast<P*>(out + px) = p;
    } else {
      if (in0) out[px] = v[k][0];
      if (in1) out[px + 1] = v[k][1];
    }
  }
}

// Level 0 / no transform: dst = the samples as the source reads them.
template <class T, class Src>
__global__ void convert_copy(Samples src, T* dst, long long dst_stride, int w, int h) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(w) * h) return;
  const int y = static_cast<int>(i / w), x = static_cast<int>(i % w);
  dst[y * dst_stride + x] = Src::template load<T>(src, y, x);
}

}  // namespace j2k::cudadwt
