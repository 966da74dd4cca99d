// SPDX-License-Identifier: BSD-2-Clause
// Forward levels 1 and 2 fused in one kernel (shared memory), so that the level-1 LL never
// goes to global memory. Used where both levels have cas_x = cas_y = 0 (tile-component origin
// a multiple of 4) and the level-2 resolution is at least 2 x 2; every other geometry takes
// the per-level kernels of dwt_kernels.cuh.
//
// A block of kFusedThreads owns a BX x BY region of the level-1 LL (the level-2 resolution),
// at (X0, Y0), and holds in shared memory S the level-1 input that covers it plus H LL samples
// of level-2 context on each side plus H level-1 samples of level-1 context:
//  1. level-1 vertical pass: each thread loads one column chunk (plus context rows) straight
//     from global memory (positions mirrored into the level-1 resolution, DC shift, MCT and
//     conversion fused: sample_source.cuh), lifts it in registers and writes its output rows to S;
//  2. level-1 horizontal pass: each thread lifts one row chunk of S in registers (all threads
//     read, barrier, all write). By the reflection argument of dwt_kernels.cuh, the samples at
//     real positions are exact wherever their context was loaded;
//  3. the level-1 HL/LH/HH of the owned region go to their pyramid places in dst with
//     row-contiguous, 256-byte-aligned (BX = 64) stores;
//  4. the level-1 LL sits on the even/even lattice of S. LL positions outside the level-2
//     resolution get the value of their whole-sample-symmetric mirror (level 2 has its own
//     extension: it is not the level-1 extension lifted);
//  5. level 2 runs on that lattice (register passes as in 1-2, from shared memory); its
//     HL/LH/HH go to dst and its LL to the workspace (or dst when level 2 is the last).
// 9/7 scaling is applied after the lifting in each direction, as in the reference. Neighbouring
// blocks recompute each other's context (halos) and read the overlap from L2.
#pragma once
#include <cstdint>

#include "transform/cuda/dwt_kernels.cuh"

namespace j2k::cudadwt {

template <int W>
struct FusedDims {
  static constexpr int H = Wv<W>::kHalo;
  static constexpr int BX = cuda_tuning::kFusedBX;
  static constexpr int BY = W == kW53 ? cuda_tuning::kFusedBY53 : cuda_tuning::kFusedBY97;
  static constexpr int NX2 = BX + 2 * H, NY2 = BY + 2 * H;  // level-2 input lattice
  static constexpr int NX1 = 2 * NX2 + 2 * H, NY1 = 2 * NY2 + 2 * H;  // level-1 input in S
  static constexpr int P = NX1 + 1;  // row pitch of S: odd, so that column walks hit all banks
  static constexpr size_t kSmemBytes = sizeof(typename Wv<W>::T) * P * NY1;
  static_assert(BX % 2 == 0 && BY % 2 == 0, "fused block region must be even");
  // Level-1 vertical pass: NX1 columns x QV chunks of CHV output rows, one per thread.
  static constexpr int NV = NY1 - 2 * H;
  static constexpr int QV = W == kW53 ? cuda_tuning::kFusedQV53 : cuda_tuning::kFusedQV97;
  static constexpr int CHV = NV / QV;
  static_assert(NV % QV == 0 && CHV % 2 == 0, "vertical chunks must be even");
  // Level-1 horizontal pass: NV rows x QH chunks of CWH output columns, one per thread.
  static constexpr int NH = NX1 - 2 * H;
  static constexpr int QH = W == kW53 ? cuda_tuning::kFusedQH53 : cuda_tuning::kFusedQH97;
  static constexpr int CWH = NH / QH;
  static_assert(NH % QH == 0 && CWH % 2 == 0, "horizontal chunks must be even");
  static constexpr int kMinBlocks =
      W == kW53 ? cuda_tuning::kFusedMinBlocks53 : cuda_tuning::kFusedMinBlocks97;
};

template <class T>
struct FusedArgs {
  Samples src;  // level 1's input, read through the kernel's sample source
  int w1, h1, snx1, sny1;  // level-1 resolution
  int w2, h2, snx2, sny2;  // level-2 resolution (the level-1 LL)
  int blocks_x;
  int by0 = 0;  // the first block row of this launch (a launch may cover a band of block rows)
  T* dst;
  long long dst_stride;
  T* ll2;  // level-2 LL: workspace, or dst at the last level
  long long ll2_stride;
};

#ifdef J2K_EMU_THREADS
constexpr int kFusedThreads = J2K_EMU_THREADS;  // host emulation (one thread)
#else
constexpr int kFusedThreads = cuda_tuning::kFusedThreads;
#endif

// Forward lifting of one line of R samples in registers (sample k has class k & 1); the
// first and last H samples are context only.
template <int W, int R, int S = 0>
__device__ __forceinline__ void line_steps(typename Wv<W>::T (&v)[R]) {
  if constexpr (S < Wv<W>::kSteps) {
    constexpr int cls = 1 - (S & 1);
#pragma unroll
    for (int k = 1; k < R - 1; ++k)
      if ((k & 1) == cls) v[k] = Wv<W>::template fwd<S>(v[k], v[k - 1], v[k + 1]);
    line_steps<W, R, S + 1>(v);
  }
}

// Inverse lifting of one line, as line_steps (inverse step S acts on lows when S is even).
template <int W, int R, int S = 0>
__device__ __forceinline__ void line_steps_inv(typename Wv<W>::T (&v)[R]) {
  if constexpr (S < Wv<W>::kSteps) {
    constexpr int cls = S & 1;
#pragma unroll
    for (int k = 1; k < R - 1; ++k)
      if ((k & 1) == cls) v[k] = Wv<W>::template inv<S>(v[k], v[k - 1], v[k + 1]);
    line_steps_inv<W, R, S + 1>(v);
  }
}

#ifdef J2K_EMU_THREADS
template <class T>
T* emu_snapshot(const T* S, size_t n);  // copy of S (host emulation builds only)
#endif

// Lifts NL lines held in shared memory, in place: line l starts at base + l * LP, its samples
// are E apart and sample s has class s & 1. Samples [H, H + NO) of each line are computed
// from [0, NO + 2H), in Q chunks of NO / Q per line, one thread per chunk, in registers; all
// threads read before any thread writes. kFwd: forward lifting, then (kScale) the 9/7 scaling
// of the outputs (lows by 1/K, highs by K), as the reference does in each direction; inverse:
// the inverse scaling of the inputs (kScale), then inverse lifting.
template <int W, int NL, int NO, int Q, int LP, int E, bool kScale, bool kFwd = true>
__device__ __forceinline__ void reg_pass(typename Wv<W>::T* base) {
  using Wt = Wv<W>;
  using T = typename Wt::T;
  constexpr int H = Wt::kHalo, CW = NO / Q, R = CW + 2 * H, N = NL * Q;
  static_assert(NO % Q == 0 && CW % 2 == 0, "chunks must be even");
#ifdef J2K_EMU_THREADS
  static_assert(LP > 0 && E > 0, "");
  const T* src = emu_snapshot(base, static_cast<size_t>((NL - 1) * LP + (NO + 2 * H - 1) * E + 1));
  for (int item = threadIdx.x; item < N; item += kFusedThreads) {
#else
  static_assert(N <= kFusedThreads, "one chunk per thread");
  {
    const int item = threadIdx.x;
    const T* src = base;
#endif
    T v[R];
    const int q = item / NL, l = item - q * NL;
    const int off = l * LP + q * CW * E;
    if (item < N) {
#pragma unroll
      for (int k = 0; k < R; ++k) v[k] = src[off + k * E];
    }
#ifndef J2K_EMU_THREADS
    __syncthreads();
#endif
    if (item < N) {
      if constexpr (kFwd) {
        line_steps<W, R>(v);
      } else {
        if constexpr (kScale) {
#pragma unroll
          for (int k = 0; k < R; ++k) v[k] = Wt::scale_inv(v[k], k & 1);
        }
        line_steps_inv<W, R>(v);
      }
#pragma unroll
      for (int k = H; k < H + CW; ++k)
        base[off + k * E] = kFwd && kScale ? Wt::scale_fwd(v[k], k & 1) : v[k];
    }
  }
  __syncthreads();
}

__device__ __forceinline__ int imin(int a, int b) { return a < b ? a : b; }

// Runs f(thread index) for this thread; the host emulation (one thread) runs it for every
// thread of a real block, in order. For phases whose work is mapped to fixed thread indices.
template <class F>
__device__ __forceinline__ void as_each_thread(F&& f) {
#ifdef J2K_EMU_THREADS
  for (int t = 0; t < cuda_tuning::kFusedThreads; ++t) f(t);
#else
  f(static_cast<int>(threadIdx.x));
#endif
}

// 4 consecutive samples of one subband row: one 16-byte store where p is 16-byte aligned and
// all 4 lie inside the band (n >= 4), else one store per sample inside (n of them). kDetail:
// streaming stores (store_detail), for subbands that the transform does not read again.
template <class T> struct Quad;
template <> struct Quad<int32_t> { using type = int4; };
template <> struct Quad<float> { using type = float4; };

template <bool kDetail, class T>
__device__ __forceinline__ void store_run4(T* p, const T (&v)[4], int n) {
  using Q = typename Quad<T>::type;
  if (n >= 4 && (reinterpret_cast<uintptr_t>(p) & 15) == 0) {
    Q q;
    q.x = v[0];
    q.y = v[1];
    q.z = v[2];
    q.w = v[3];
    if (kDetail) store_detail(reinterpret_cast<Q*>(p), q);
    else *reinterpret_cast<Q*>(p) = q;
  } else {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      if (e >= n) break;
      if (kDetail) store_detail(p + e, v[e]);
      else p[e] = v[e];
    }
  }
}

// One thread's share of a subband: `rows` rows (0 or fewer: none) of `cols` columns from p
// (at most 4 written per row), p_step apart; row k's 4 samples are s[k * s_step + e * E].
// The rows a thread takes are RS band rows apart, so the loop runs at most ceil(BY / RS) times.
template <int E, int RS, bool kDetail, class T>
__device__ __forceinline__ void store_band_rows(const T* s, int s_step, T* p, long long p_step,
                                                int rows, int cols) {
  if (cols <= 0) return;
  for (int k = 0; k < rows; k += RS, s += s_step, p += p_step) {
    const T v[4] = {s[0], s[E], s[2 * E], s[3 * E]};
    store_run4<kDetail>(p, v, cols);
  }
}

template <int W, class Src>
__global__ void __launch_bounds__(kFusedThreads, FusedDims<W>::kMinBlocks)
    forward_fused12(FusedArgs<typename Wv<W>::T> a) {
  using Wt = Wv<W>;
  using T = typename Wt::T;
  using D = FusedDims<W>;
  constexpr int H = D::H, BX = D::BX, BY = D::BY, P = D::P;
  constexpr int NX1 = D::NX1, NX2 = D::NX2, NY2 = D::NY2;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* S = reinterpret_cast<T*>(smem_raw);

  const int by = a.by0 + static_cast<int>(blockIdx.x / a.blocks_x);
  const int bx = static_cast<int>(blockIdx.x % static_cast<unsigned>(a.blocks_x));
  const int X0 = bx * BX, Y0 = by * BY;  // owned level-2 input region (LL1 coordinates)
  const int gx0 = 2 * (X0 - H) - H, gy0 = 2 * (Y0 - H) - H;  // S(0,0) in level-1 coordinates
  pdl_wait_and_release();

  // 1. Level-1 vertical pass, straight from global memory into registers: a thread takes one
  // column of S and CHV output rows plus H context rows on each side (mirrored into the
  // resolution), lifts them and writes the output rows (9/7: scaled) to S rows [H, NY1 - H).
  {
    constexpr int CH = D::CHV, R = CH + 2 * H;
#pragma unroll 1
    for (int item = threadIdx.x; item < NX1 * D::QV; item += kFusedThreads) {
      const int q = item / NX1, c = item - q * NX1;
      const int gc = mirror(gx0 + c, a.w1);
      const int r0 = gy0 + q * CH;
      T v[R];
      if (r0 >= 0 && r0 + R <= a.h1) {
#pragma unroll
        for (int k = 0; k < R; ++k) v[k] = Src::template load<T>(a.src, r0 + k, gc);
      } else {
#pragma unroll
        for (int k = 0; k < R; ++k) v[k] = Src::template load<T>(a.src, mirror(r0 + k, a.h1), gc);
      }
      line_steps<W, R>(v);
      T* o = S + (q * CH + H) * P + c;
#pragma unroll
      for (int k = 0; k < CH; ++k) o[k * P] = Wt::scale_fwd(v[H + k], k & 1);
    }
  }
  __syncthreads();

  // 2. Level-1 horizontal pass on rows [H, NY1 - H), in registers, QH chunks per row.
  reg_pass<W, D::NV, D::NH, D::QH, P, 1, W != kW53>(S + H * P);

  // 3. Level-1 details of the owned region: HL, LH and HH. Owned LL1 (i, j) = (Y0 + il, X0 + jl)
  // sits at S row 2 * il + 3H, column 2 * jl + 3H; its HL, LH and HH partners are one column,
  // one row, or both further on. Thread (r, q) writes band columns X0 + 4q .. + 3 of the band
  // rows Y0 + r, + 32, ...: 16 threads cover a 64-column row segment, and the indices are
  // fixed per thread and band (a flat loop's per-sample index arithmetic was a third of this
  // kernel's instructions).
  as_each_thread([&](int tid) {
    static_assert(cuda_tuning::kFusedThreads == 32 * (BX / 4), "one thread per quad, 32 rows");
    const int q = tid % (BX / 4), r = tid / (BX / 4);
    const int i = Y0 + r, j = X0 + 4 * q;
    const T* s = S + (2 * r + 3 * H) * P + 8 * q + 3 * H;
    const long long step = 32 * a.dst_stride;
    T* lo = a.dst + i * a.dst_stride;
    T* hi = a.dst + (a.sny1 + i) * a.dst_stride;
    const int lo_rows = imin(BY - r, a.sny1 - i), hi_rows = imin(BY - r, a.h1 - a.sny1 - i);
    const int lo_cols = a.snx1 - j, hi_cols = a.w1 - a.snx1 - j;
    store_band_rows<2, 32, true>(s + 1, 64 * P, lo + a.snx1 + j, step, lo_rows, hi_cols);      // HL
    store_band_rows<2, 32, true>(s + P, 64 * P, hi + j, step, hi_rows, lo_cols);               // LH
    store_band_rows<2, 32, true>(s + P + 1, 64 * P, hi + a.snx1 + j, step, hi_rows, hi_cols);  // HH
  });

  // 4. The level-1 LL lattice L(i, j) = S[(2i + H) * P + 2j + H], LL1 index (Y0 - H + i,
  // X0 - H + j): positions outside the level-2 resolution take the value of their mirror
  // (real and inside the block's lattice). From here on only lattice (even, even) cells are
  // written, and step 3 reads only the others: no barrier between them.
  T* L = S + H * P + H;
  constexpr int LRP = 2 * P, LCP = 2;
  if (X0 - H < 0 || Y0 - H < 0 || X0 + BX + H > a.w2 || Y0 + BY + H > a.h2) {
    for (int idx = threadIdx.x; idx < NX2 * NY2; idx += kFusedThreads) {
      const int i = idx / NX2, j = idx - i * NX2;
      const int gi = Y0 - H + i, gj = X0 - H + j;
      const bool out_i = gi < 0 || gi >= a.h2, out_j = gj < 0 || gj >= a.w2;
      // Only the H positions next to each edge are context of real outputs; the ones further
      // out (past the right or bottom edge) feed only positions that are never stored.
      if ((!out_i && !out_j) || gi >= a.h2 + H || gj >= a.w2 + H) continue;
      const int mi = mirror(gi, a.h2) - (Y0 - H), mj = mirror(gj, a.w2) - (X0 - H);
      L[i * LRP + j * LCP] = L[mi * LRP + mj * LCP];
    }
    __syncthreads();
  }

  // 5. Level 2 on the lattice.
  // Vertical: one line per lattice column; horizontal: one per output row of the lattice.
  reg_pass<W, NX2, BY, 2, LCP, LRP, W != kW53>(L);
  reg_pass<W, BY, BX, 2, LRP, LCP, W != kW53>(L + H * LRP);

  // Level-2 subbands: band b = 0 (LL), 1 (HL), 2 (LH), 3 (HH), 128 threads each. Owned LL1
  // (Y0 + il, X0 + jl) sits at lattice (il + H, jl + H); level-2 band row ii holds
  // il = 2 * ii + dy, band column jj holds jl = 2 * jj + dx. Thread (b, r, q) writes band
  // columns X0 / 2 + 4q .. + 3 of band rows Y0 / 2 + r and + 16 (X0 / 2 is a multiple of 32,
  // Y0 is even).
  as_each_thread([&](int tid) {
    static_assert(cuda_tuning::kFusedThreads == 4 * 16 * (BX / 8) && BY / 2 <= 32,
                  "level-2 store mapping");
    const int q = tid % (BX / 8), r = (tid / (BX / 8)) % 16;
    const int b = tid / (16 * (BX / 8));
    const int dy = b >> 1, dx = b & 1;
    const int i2 = (Y0 >> 1) + r, j2 = (X0 >> 1) + 4 * q;
    const T* s = L + (2 * r + dy + H) * LRP + (8 * q + dx + H) * LCP;
    const int rows = imin(BY / 2 - r, (dy ? a.h2 - a.sny2 : a.sny2) - i2);
    const int cols = (dx ? a.w2 - a.snx2 : a.snx2) - j2;
    if (b == 0) {
      store_band_rows<2 * LCP, 16, false>(s, 32 * LRP, a.ll2 + i2 * a.ll2_stride + j2,
                                                   16 * a.ll2_stride, rows, cols);
    } else {
      T* p = a.dst + ((dy ? a.sny2 : 0) + i2) * a.dst_stride + (dx ? a.snx2 : 0) + j2;
      store_band_rows<2 * LCP, 16, true>(s, 32 * LRP, p, 16 * a.dst_stride, rows, cols);
    }
  });
}

}  // namespace j2k::cudadwt
