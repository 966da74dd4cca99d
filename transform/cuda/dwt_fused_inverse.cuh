// SPDX-License-Identifier: BSD-2-Clause
// Inverse levels 2 and 1 fused in one kernel (shared memory), so that the level-1 LL is
// rebuilt on chip and never goes to global memory. Same geometry rule as the forward fusion
// (dwt_fused.cuh): cas 0 in both directions at both levels, level-2 resolution at least 2 x 2.
//
// A block of kFusedThreads owns a BX x BY region of the level-1 LL at (X0, Y0), that is the
// 2BX x 2BY output samples at (2X0, 2Y0). Each level is inverted horizontally, then
// vertically, as in the reference; an output needs H inputs of context on each side in each
// direction. So:
//  1. S2 gets the level-2 input, in interleaved LL1 coordinates [X0 - 2H, X0 + BX + 2H) x
//     [Y0 - 2H, Y0 + BY + 2H) (from LL2 and the level-2 details; positions mirrored into the
//     level-2 resolution), and, in the same pass so that all loads are in flight together,
//     S gets the level-1 details of the level-1 input region: (2X0 - H, 2Y0 - H) +
//     (2BX + 2H) x (2BY + 2H), positions mirrored into the level-1 resolution;
//  2. level 2 (horizontal, then vertical, reg_pass) rebuilds LL1 on [X0 - H, X0 + BX + H)^2,
//     S2 rows and columns [H, BX + 3H);
//  3. the LL1 cells of S (even row, even column) take their value from S2, through the
//     level-1 mirror: the level-1 extension of the reconstructed signal, not the level-2 one;
//  4. level 1 (horizontal, then vertical) and the owned 2BX x 2BY samples go to dst in
//     16-byte row pieces.
// By the reflection argument of dwt_kernels.cuh every stored sample is exact. Neighbouring
// blocks recompute each other's context.
#pragma once
#include <cstdint>

#include "transform/cuda/dwt_fused.cuh"

namespace j2k::cudadwt {

template <int W>
struct FusedInvDims {
  static constexpr int H = Wv<W>::kHalo;
  static constexpr int BX = cuda_tuning::kFusedBX;
  static constexpr int BY = W == kW53 ? cuda_tuning::kFusedBY53 : cuda_tuning::kFusedBY97;
  static constexpr int NX2 = BX + 4 * H, NY2 = BY + 4 * H, P2 = NX2 + 1;  // level-2 input
  static constexpr int NX1 = 2 * BX + 2 * H, NY1 = 2 * BY + 2 * H, P1 = NX1 + 1;  // level 1
  static constexpr size_t kSmemBytes = sizeof(typename Wv<W>::T) * (P1 * NY1 + P2 * NY2);
  static constexpr int kMinBlocks =
      W == kW53 ? cuda_tuning::kFusedMinBlocks53 : cuda_tuning::kFusedMinBlocks97;
};

template <class T>
struct FusedInvArgs {
  const T* src;  // the pyramid: level-1 and level-2 details
  long long src_stride;
  const T* ll2;  // level-2 LL: workspace, or src when level 2 is the coarsest
  long long ll2_stride;
  int w1, h1, snx1, sny1;  // level-1 resolution
  int w2, h2, snx2, sny2;  // level-2 resolution (the level-1 LL)
  int blocks_x;
  T* dst;
  long long dst_stride;
};

template <int W>
__global__ void __launch_bounds__(kFusedThreads, FusedInvDims<W>::kMinBlocks)
    inverse_fused21(FusedInvArgs<typename Wv<W>::T> a) {
  using Wt = Wv<W>;
  using T = typename Wt::T;
  using D = FusedInvDims<W>;
  constexpr int H = D::H, BX = D::BX, BY = D::BY;
  constexpr int NX1 = D::NX1, NY1 = D::NY1, P1 = D::P1, NX2 = D::NX2, NY2 = D::NY2, P2 = D::P2;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* S = reinterpret_cast<T*>(smem_raw);
  T* S2 = S + P1 * NY1;

  const int by = static_cast<int>(blockIdx.x / a.blocks_x);
  const int bx = static_cast<int>(blockIdx.x - static_cast<unsigned>(by) * a.blocks_x);
  const int X0 = bx * BX, Y0 = by * BY;
  const int gx2 = X0 - 2 * H, gy2 = Y0 - 2 * H;          // S2(0, 0), LL1 coordinates
  const int gx1 = 2 * X0 - H, gy1 = 2 * Y0 - H;          // S(0, 0), level-1 coordinates
  pdl_wait_and_release();

  // 1. Loads. Items are column pairs (even, odd interleaved position) of one row. Each thread
  // loads all its items into registers before it stores any to shared memory, so that all of
  // them are in flight at once (a load-store loop waits for each load in turn: 2x slower).
  // Blocks whose regions need no mirroring read the bands straight (no mirror, no per-sample
  // class test); the others mirror and deinterleave every position. The LL1 cells of S get 0
  // here and their value in step 3.
  const bool inside2 = gx2 >= 0 && gy2 >= 0 && X0 + BX + 2 * H <= a.w2 && Y0 + BY + 2 * H <= a.h2;
  const bool inside1 = gx1 >= 0 && gy1 >= 0 && gx1 + NX1 <= a.w1 && gy1 + NY1 <= a.h1;
  auto load2 = [&](int idx, T (&v)[2]) {  // S2 item: level-2 input
    const int r = idx / (NX2 / 2), cp = idx - r * (NX2 / 2);
    if (inside2) {
      const int gy = gy2 + r, jx = (gx2 >> 1) + cp;  // gx2 even: columns 2cp, 2cp + 1
      if ((gy & 1) == 0) {
        v[0] = __ldg(a.ll2 + static_cast<long long>(gy >> 1) * a.ll2_stride + jx);
        v[1] = __ldg(a.src + static_cast<long long>(gy >> 1) * a.src_stride + a.snx2 + jx);
      } else {
        const T* row = a.src + static_cast<long long>(a.sny2 + (gy >> 1)) * a.src_stride;
        v[0] = __ldg(row + jx);
        v[1] = __ldg(row + a.snx2 + jx);
      }
    } else {
      const int my = mirror(gy2 + r, a.h2), ry = deint(my, 0, a.sny2);
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int mx = mirror(gx2 + 2 * cp + e, a.w2), cx = deint(mx, 0, a.snx2);
        v[e] = ((my | mx) & 1) == 0 ? __ldg(a.ll2 + static_cast<long long>(ry) * a.ll2_stride + cx)
                                    : __ldg(a.src + static_cast<long long>(ry) * a.src_stride + cx);
      }
    }
  };
  auto load1 = [&](int idx, T (&v)[2]) {  // S item: level-1 details
    const int r = idx / (NX1 / 2), cp = idx - r * (NX1 / 2);
    v[0] = v[1] = T(0);
    if (inside1) {
      const int gy = gy1 + r, jx = (gx1 >> 1) + cp;
      if ((gy & 1) == 0) {  // LL1 and HL1
        v[1] = __ldg(a.src + static_cast<long long>(gy >> 1) * a.src_stride + a.snx1 + jx);
      } else {  // LH1 and HH1
        const T* row = a.src + static_cast<long long>(a.sny1 + (gy >> 1)) * a.src_stride;
        v[0] = __ldg(row + jx);
        v[1] = __ldg(row + a.snx1 + jx);
      }
    } else {
      const int my = mirror(gy1 + r, a.h1), ry = deint(my, 0, a.sny1);
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int mx = mirror(gx1 + 2 * cp + e, a.w1);
        if (((my | mx) & 1) != 0)
          v[e] = __ldg(a.src + static_cast<long long>(ry) * a.src_stride + deint(mx, 0, a.snx1));
      }
    }
  };
  {
    constexpr int N2 = NY2 * (NX2 / 2), N1 = NY1 * (NX1 / 2);
    constexpr int K2 = (N2 + kFusedThreads - 1) / kFusedThreads;
    constexpr int K1 = (N1 + kFusedThreads - 1) / kFusedThreads;
    const int t = static_cast<int>(threadIdx.x);
    T v2[K2][2], v1[K1][2];
#pragma unroll
    for (int k = 0; k < K2; ++k)
      if (t + k * kFusedThreads < N2) load2(t + k * kFusedThreads, v2[k]);
#pragma unroll
    for (int k = 0; k < K1; ++k)
      if (t + k * kFusedThreads < N1) load1(t + k * kFusedThreads, v1[k]);
#pragma unroll
    for (int k = 0; k < K2; ++k) {
      const int idx = t + k * kFusedThreads, r = idx / (NX2 / 2), cp = idx - r * (NX2 / 2);
      if (idx < N2) {
        S2[r * P2 + 2 * cp] = v2[k][0];
        S2[r * P2 + 2 * cp + 1] = v2[k][1];
      }
    }
#pragma unroll
    for (int k = 0; k < K1; ++k) {
      const int idx = t + k * kFusedThreads, r = idx / (NX1 / 2), cp = idx - r * (NX1 / 2);
      if (idx < N1) {
        S[r * P1 + 2 * cp] = v1[k][0];
        S[r * P1 + 2 * cp + 1] = v1[k][1];
      }
    }
  }
  __syncthreads();

  // 2. Level 2: rows of S2, then the columns [H, BX + 3H) that level 1 needs.
  reg_pass<W, NY2, BX + 2 * H, 2, P2, 1, W != kW53, false>(S2);
  reg_pass<W, BX + 2 * H, BY + 2 * H, 2, 1, P2, W != kW53, false>(S2 + H);

  // 3. LL1 cells of S: S(2i, 2j) is level-1 position (gy1 + 2i, gx1 + 2j); after the level-1
  // mirror (which keeps parity) its LL1 index is half of it, at S2 (index - gy2, - gx2).
  // Positions H or more past the last row or column are context of nothing that is stored:
  // they are left as they are (their mirrors may lie outside S2).
  for (int idx = threadIdx.x; idx < (NY1 / 2) * (NX1 / 2); idx += kFusedThreads) {
    const int i = idx / (NX1 / 2), j = idx - i * (NX1 / 2);
    if (gy1 + 2 * i >= a.h1 + H || gx1 + 2 * j >= a.w1 + H) continue;
    const int ly = (inside1 ? gy1 + 2 * i : mirror(gy1 + 2 * i, a.h1)) >> 1;
    const int lx = (inside1 ? gx1 + 2 * j : mirror(gx1 + 2 * j, a.w1)) >> 1;
    S[2 * i * P1 + 2 * j] = S2[(ly - gy2) * P2 + (lx - gx2)];
  }
  __syncthreads();

  // 4. Level 1: every row of S, then the owned columns; then the owned samples to dst.
  reg_pass<W, NY1, 2 * BX, 4, P1, 1, W != kW53, false>(S);
  reg_pass<W, 2 * BX, 2 * BY, 4, 1, P1, W != kW53, false>(S + H);
  as_each_thread([&](int tid) {
    constexpr int QPR = 2 * BX / 4, RS = cuda_tuning::kFusedThreads / QPR;
    const int q = tid % QPR, r = tid / QPR;
    const int y = 2 * Y0 + r, x = 2 * X0 + 4 * q;
    store_band_rows<1, RS, false>(S + (H + r) * P1 + H + 4 * q, RS * P1,
                                  a.dst + static_cast<long long>(y) * a.dst_stride + x,
                                  RS * a.dst_stride, imin(2 * BY - r, a.h1 - y), a.w1 - x);
  });
}

}  // namespace j2k::cudadwt
