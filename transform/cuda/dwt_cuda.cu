// SPDX-License-Identifier: BSD-2-Clause
// Launchers of the CUDA DWT (kernels in dwt_kernels.cuh) and the device-pointer call
// (cuda_dwt.hpp) that checks its typed planes and picks the launcher.
//
// Data flow, forward with L non-empty levels: level 1 reads src and writes its HL/LH/HH
// straight to their pyramid places in dst and its LL to workspace buffer 0; level k reads
// the LL of level k-1 from workspace buffer (k-2)&1 and writes its LL to buffer (k-1)&1; the
// last level writes its LL to dst. Inverse: the reverse, the last level writing dst. So each
// level reads its input once and writes its four subbands once, and src is never written.
// Forward where the geometry allows (fusable()) and CudaDwtOptions ask for it (by default the
// 5/3 only): levels 1 and 2 run as one kernel (dwt_fused.cuh) that writes the level-1 and
// level-2 details to dst and the level-2 LL to workspace buffer 1, where level 2 would have put
// it; levels 3.. follow as above. With fuse_inverse the inverse likewise ends with levels 2 and
// 1 in one kernel (dwt_fused_inverse.cuh), which reads the level-2 LL where level 3 wrote it.
// The forward's first step (level 1, or levels 1 and 2 fused) can run in bands of rows as the
// samples arrive (CudaForwardByRows), the other levels after it (ForwardRun).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "transform/cuda/cuda_dwt.hpp"
#include "transform/dwt.hpp"
#include "common/error.hpp"
#include "common/sample_type.hpp"
#include "device/cuda/cuda_check.hpp"
#include "transform/cuda/dwt_fused.cuh"
#include "transform/cuda/dwt_fused_inverse.cuh"
#include "transform/cuda/dwt_kernels.cuh"

namespace j2k {
namespace {

using cudadwt::kThreads;
using cudadwt::kW53;
using cudadwt::kW97;
using cudadwt::Gather;
using cudadwt::LevelGeom;
using cudadwt::Packed;
using cudadwt::Samples;
using cudadwt::Wv;

constexpr size_t kAlign = 256;
// Workspace rows hold a multiple of 4 samples, so that pair loads and 16-byte stores stay
// aligned.
long long ws_stride(int64_t n) { return (n + 3) & ~int64_t{3}; }
size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// The non-empty levels, in a fixed array: a launch allocates nothing on the host.
struct Levels {
  DwtLevel v[kMaxLevels];
  size_t n = 0;
  size_t size() const { return n; }
  bool empty() const { return n == 0; }
  const DwtLevel& operator[](size_t i) const { return v[i]; }
  void push_back(const DwtLevel& lv) { v[n++] = lv; }
};

struct Plan {
  Levels levels;  // non-empty levels only
  size_t ws_elems[2] = {0, 0};
};

Plan make_plan(const Rect& tc, int levels) {
  if (levels < 0 || levels > kMaxLevels)
    throw Error(ErrorCode::InvalidArgument, "levels must be 0.." + std::to_string(kMaxLevels) +
                                                ", got " + std::to_string(levels));
  if (tc.x0 < 0 || tc.y0 < 0 || tc.x1 < tc.x0 || tc.y1 < tc.y0)
    throw Error(ErrorCode::InvalidArgument, "tile-component rectangle is invalid");
  if (tc.width() >= (int64_t{1} << 30) || tc.height() >= (int64_t{1} << 30))
    throw Error(ErrorCode::InvalidArgument, "CUDA DWT: tile-component dimensions must be < 2^30");
  Plan p;
  if (tc.empty()) return p;
  DwtLevel all[kMaxLevels];
  const int count = dwt_levels(tc, levels, all);
  for (int i = 0; i < count; ++i) {
    if (all[i].width == 0 || all[i].height == 0) break;  // an empty resolution stays empty below
    p.levels.push_back(all[i]);
  }
  if (p.levels.size() >= 2) {
    for (int b = 0; b < 2; ++b) {
      const DwtLevel& lv = p.levels[static_cast<size_t>(b)];
      const int64_t snx = (lv.width + (lv.cas_x == 0 ? 1 : 0)) >> 1;
      const int64_t sny = (lv.height + (lv.cas_y == 0 ? 1 : 0)) >> 1;
      p.ws_elems[b] = static_cast<size_t>(ws_stride(snx) * sny);
    }
  }
  return p;
}

LevelGeom geom(const DwtLevel& lv, int tile_cols, int tile_rows) {
  LevelGeom g;
  g.w = static_cast<int>(lv.width);
  g.h = static_cast<int>(lv.height);
  g.sn_x = (g.w + (lv.cas_x == 0 ? 1 : 0)) >> 1;
  g.sn_y = (g.h + (lv.cas_y == 0 ? 1 : 0)) >> 1;
  g.tiles_x = (g.w + tile_cols - 1) / tile_cols;
  g.tiles = static_cast<long long>(g.tiles_x) * ((g.h + tile_rows - 1) / tile_rows);
  g.reverse = false;
  return g;
}

unsigned blocks_for(long long tiles) {
  return static_cast<unsigned>((tiles + cuda_tuning::kWarpsPerBlock - 1) /
                               cuda_tuning::kWarpsPerBlock);
}

template <class Kernel, class Args>
void launch(Kernel kernel, long long tiles, cudaStream_t s, const Args& args, const char* what) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks_for(tiles));
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = 0;
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = cuda_tuning::kUsePdl ? 1 : 0;
  cuda_check(cudaLaunchKernelEx(&cfg, kernel, args), what);
}

// Tile rows [ty0, ty1) of the level (ty1 < 0: all).
template <int W, class Src, int TY>
void launch_forward_ty(const DwtLevel& lv, cudadwt::FwdArgs<typename Wv<W>::T> a, cudaStream_t s, int ty0 = 0,
                       int ty1 = -1) {
  const bool reverse = a.g.reverse;
  a.g = geom(lv, 64 - 2 * Wv<W>::kHalo, TY);
  a.g.reverse = reverse;
  if (ty1 >= 0) {
    a.g.ty0 = ty0;
    a.g.tiles = static_cast<long long>(ty1 - ty0) * a.g.tiles_x;
  }
  switch (lv.cas_x * 2 + lv.cas_y) {
    case 0: launch(cudadwt::forward_level<W, Src, 0, 0, TY>, a.g.tiles, s, a, "forward_level launch"); break;
    case 1: launch(cudadwt::forward_level<W, Src, 0, 1, TY>, a.g.tiles, s, a, "forward_level launch"); break;
    case 2: launch(cudadwt::forward_level<W, Src, 1, 0, TY>, a.g.tiles, s, a, "forward_level launch"); break;
    default: launch(cudadwt::forward_level<W, Src, 1, 1, TY>, a.g.tiles, s, a, "forward_level launch"); break;
  }
}

template <int W, int TY>
void launch_inverse_ty(const DwtLevel& lv, cudadwt::InvArgs<typename Wv<W>::T> a, cudaStream_t s) {
  const bool reverse = a.g.reverse;
  a.g = geom(lv, 64 - 2 * Wv<W>::kHalo, TY);
  a.g.reverse = reverse;
  switch (lv.cas_x * 2 + lv.cas_y) {
    case 0: launch(cudadwt::inverse_level<W, 0, 0, TY>, a.g.tiles, s, a, "inverse_level launch"); break;
    case 1: launch(cudadwt::inverse_level<W, 0, 1, TY>, a.g.tiles, s, a, "inverse_level launch"); break;
    case 2: launch(cudadwt::inverse_level<W, 1, 0, TY>, a.g.tiles, s, a, "inverse_level launch"); break;
    default: launch(cudadwt::inverse_level<W, 1, 1, TY>, a.g.tiles, s, a, "inverse_level launch"); break;
  }
}

// Few tiles at the regular height: short tiles (see tuning.hpp).
template <int W>
bool small_level(const DwtLevel& lv) {
  return geom(lv, 64 - 2 * Wv<W>::kHalo, Wv<W>::kRows).tiles < cuda_tuning::kSmallLevelTiles;
}

template <int W, class Src>
void launch_forward(const DwtLevel& lv, const cudadwt::FwdArgs<typename Wv<W>::T>& a, cudaStream_t s) {
  if constexpr (std::is_same<Src, Packed<typename Wv<W>::T>>::value) {
    if (small_level<W>(lv)) return launch_forward_ty<W, Src, cuda_tuning::kRowsSmall>(lv, a, s);
  }
  launch_forward_ty<W, Src, Wv<W>::kRows>(lv, a, s);
}

// The tile rows of a first level read through Src (samples: always the regular tile height).
template <int W, class Src>
constexpr int first_level_rows() {
  return std::is_same<Src, Packed<typename Wv<W>::T>>::value ? 0 : Wv<W>::kRows;
}

template <int W>
void launch_inverse(const DwtLevel& lv, const cudadwt::InvArgs<typename Wv<W>::T>& a, cudaStream_t s) {
  if (small_level<W>(lv)) return launch_inverse_ty<W, cuda_tuning::kRowsSmall>(lv, a, s);
  launch_inverse_ty<W, Wv<W>::kRows>(lv, a, s);
}

bool pair_aligned(const void* p, long long stride, size_t elem) {
  return reinterpret_cast<uintptr_t>(p) % (2 * elem) == 0 && stride % 2 == 0;
}

// src: its planes (all three for a component of the MCT), element strides; src_elem: bytes.
void check_buffers(const Samples& src, size_t src_elem, const void* dst, size_t dst_stride,
                   const Rect& tc, const Plan& plan, size_t elem, const void* ws, size_t ws_bytes) {
  if (tc.empty()) return;
  const int planes = src.comp < 0 ? 1 : 3;
  for (int i = 0; i < planes; ++i)
    if (src.p[i] == nullptr)
      throw Error(ErrorCode::InvalidArgument, "CUDA DWT: null source");
  if (dst == nullptr) throw Error(ErrorCode::InvalidArgument, "CUDA DWT: null destination");
  const auto w = static_cast<size_t>(tc.width()), h = static_cast<size_t>(tc.height());
  const auto ps = static_cast<size_t>(src.pixel_stride);
  if (static_cast<size_t>(src.row_stride) < (w - 1) * ps + 1 || dst_stride < w)
    throw Error(ErrorCode::InvalidArgument, "CUDA DWT: stride smaller than the width " +
                                                std::to_string(tc.width()));
  // Out of place only: the source is read by every level-1 tile while others write dst.
  const auto d0 = reinterpret_cast<uintptr_t>(dst);
  const uintptr_t d1 = d0 + ((h - 1) * dst_stride + w) * elem;
  for (int i = 0; i < planes; ++i) {
    const auto s0 = reinterpret_cast<uintptr_t>(src.p[i]);
    const uintptr_t s1 = s0 + ((h - 1) * static_cast<size_t>(src.row_stride) + (w - 1) * ps + 1) * src_elem;
    if (s0 < d1 && d0 < s1)
      throw Error(ErrorCode::InvalidArgument, "CUDA DWT: source and destination overlap "
                                              "(the device API is out of place)");
  }
  const size_t need = align_up(plan.ws_elems[0] * elem) + plan.ws_elems[1] * elem;
  if (need > 0 && (ws == nullptr || ws_bytes < need))
    throw Error(ErrorCode::InvalidArgument, "CUDA DWT: workspace of " + std::to_string(ws_bytes) +
                                                " bytes given, " + std::to_string(need) + " needed");
}

template <class T, class Src>
void copy_level0(const Samples& src, T* dst, size_t dst_stride, const Rect& tc, cudaStream_t s) {
  const auto w = static_cast<int>(tc.width()), h = static_cast<int>(tc.height());
  if (std::is_same<Src, Packed<T>>::value) {
    cuda_check(cudaMemcpy2DAsync(dst, dst_stride * sizeof(T), src.p[0], static_cast<size_t>(src.row_stride) * sizeof(T),
                                 static_cast<size_t>(w) * sizeof(T), static_cast<size_t>(h),
                                 cudaMemcpyDeviceToDevice, s),
               "cudaMemcpy2DAsync");
    return;
  }
  const long long n = static_cast<long long>(w) * h;
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  cudadwt::convert_copy<T, Src><<<blocks, 256, 0, s>>>(src, dst, static_cast<long long>(dst_stride), w, h);
  cuda_check(cudaGetLastError(), "convert_copy launch");
}

// Levels 1 and 2 fused (dwt_fused.cuh): both levels non-empty with cas 0 in both directions,
// and a level-2 resolution of at least 2 x 2 (no single-sample signals).
bool fusable(const Plan& plan) {
  if (plan.levels.size() < 2) return false;
  const DwtLevel& a = plan.levels[0];
  const DwtLevel& b = plan.levels[1];
  // (Grids of up to 2^31 - 1 blocks of 64 x (more than 32) level-2 samples.)
  return a.cas_x == 0 && a.cas_y == 0 && b.cas_x == 0 && b.cas_y == 0 && b.width >= 2 &&
         b.height >= 2 && (b.width / 64 + 1) * (b.height / 32 + 1) < (int64_t{1} << 31);
}

// Raises a kernel's dynamic shared-memory limit once for each device it runs on (the opt-in
// is per device and per kernel: one instance, so one set of flags, per kernel).
template <auto kernel>
void allow_smem(size_t bytes) {
  static std::atomic<unsigned long long> done{0};
  int dev = 0;
  cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
  const unsigned long long bit = dev < 64 ? 1ull << dev : 0;
  if (bit != 0 && (done.load(std::memory_order_acquire) & bit) != 0) return;
  cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)),
             "cudaFuncSetAttribute (fused DWT shared memory)");
  done.fetch_or(bit, std::memory_order_acq_rel);
}

template <class Kernel, class Args>
void launch_fused(Kernel kernel, long long blocks, size_t smem, cudaStream_t s, const Args& a,
                  const char* what) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(blocks));
  cfg.blockDim = dim3(cudadwt::kFusedThreads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = cuda_tuning::kUsePdl ? 1 : 0;
  cuda_check(cudaLaunchKernelEx(&cfg, kernel, a), what);
}

// The level-1 and level-2 geometry of the fused kernels' arguments (FusedArgs, FusedInvArgs);
// returns the number of blocks of BX x BY level-2 samples.
template <class D, class Args>
long long set_fused_geometry(const Plan& plan, Args& a) {
  const LevelGeom g1 = geom(plan.levels[0], 1, 1), g2 = geom(plan.levels[1], 1, 1);
  a.w1 = g1.w;
  a.h1 = g1.h;
  a.snx1 = g1.sn_x;
  a.sny1 = g1.sn_y;
  a.w2 = g2.w;
  a.h2 = g2.h;
  a.snx2 = g2.sn_x;
  a.sny2 = g2.sn_y;
  a.blocks_x = (g2.w + D::BX - 1) / D::BX;
  return static_cast<long long>(a.blocks_x) * ((g2.h + D::BY - 1) / D::BY);
}

// Block rows [by0, by1) (by1 < 0: all).
template <int W, class Src>
void launch_fused12(const Plan& plan, const Samples& src, typename Wv<W>::T* dst,
                    long long dst_stride, typename Wv<W>::T* ll2, long long ll2_stride, cudaStream_t s,
                    int by0 = 0, int by1 = -1) {
  using D = cudadwt::FusedDims<W>;
  constexpr auto kernel = cudadwt::forward_fused12<W, Src>;
  allow_smem<kernel>(D::kSmemBytes);
  cudadwt::FusedArgs<typename Wv<W>::T> a;
  a.src = src;
  long long blocks = set_fused_geometry<D>(plan, a);
  if (by1 >= 0) {
    a.by0 = by0;
    blocks = static_cast<long long>(by1 - by0) * a.blocks_x;
  }
  if (blocks == 0) return;
  a.dst = dst;
  a.dst_stride = dst_stride;
  a.ll2 = ll2;
  a.ll2_stride = ll2_stride;
  launch_fused(kernel, blocks, D::kSmemBytes, s, a, "forward_fused12 launch");
}

template <int W>
void launch_fused21(const Plan& plan, const typename Wv<W>::T* src, long long src_stride,
                    const typename Wv<W>::T* ll2, long long ll2_stride, typename Wv<W>::T* dst,
                    long long dst_stride, cudaStream_t s) {
  using D = cudadwt::FusedInvDims<W>;
  constexpr auto kernel = cudadwt::inverse_fused21<W>;
  allow_smem<kernel>(D::kSmemBytes);
  cudadwt::FusedInvArgs<typename Wv<W>::T> a;
  a.src = src;
  a.src_stride = src_stride;
  a.ll2 = ll2;
  a.ll2_stride = ll2_stride;
  const long long blocks = set_fused_geometry<D>(plan, a);
  a.dst = dst;
  a.dst_stride = dst_stride;
  launch_fused(kernel, blocks, D::kSmemBytes, s, a, "inverse_fused21 launch");
}

// The launches of one forward transform whose first level reads `src` through the sample
// source Src (sample_source.cuh): a first step, the first level (levels 1 and 2 where fused),
// in units of rows that can run as the samples arrive (rows of level-1 tiles, or of fused
// blocks), then the other levels.
template <int W, class Src>
struct ForwardRun {
  static constexpr int wavelet() { return W; }  // kW53 or kW97
  using Source = Src;
  using T = typename Wv<W>::T;
  const Plan& plan;
  Samples src;
  T* dst;
  size_t dst_stride;
  T* buf[2];
  bool fused12;

  ForwardRun(const Plan& p, const Samples& in, T* d, size_t ds, void* ws, const CudaDwtOptions& opt)
      : plan(p), src(in), dst(d), dst_stride(ds), buf{static_cast<T*>(ws), nullptr},
        fused12((W == kW53 ? opt.fuse_levels12 : opt.fuse_97) && fusable(p)) {
    if (ws) buf[1] = reinterpret_cast<T*>(static_cast<char*>(ws) + align_up(plan.ws_elems[0] * sizeof(T)));
  }

  // Units of the first step: rows of level-1 tiles, or of fused blocks.
  int units() const {
    if (fused12) return (geom(plan.levels[1], 1, 1).h + cudadwt::FusedDims<W>::BY - 1) / cudadwt::FusedDims<W>::BY;
    constexpr int TY = first_level_rows<W, Src>();
    if constexpr (TY == 0) return 1;  // coefficients in: one launch
    else return (static_cast<int>(plan.levels[0].height) + TY - 1) / TY;
  }
  // Units [0, result) read only the first `ready` sample rows.
  int units_ready(int64_t ready) const {
    if (ready >= plan.levels[0].height) return units();
    if (!fused12 && first_level_rows<W, Src>() == 0) return 0;  // coefficients in: all rows at once
    // Level-1 tile row u reads rows < (u + 1) * TY + H; fused block row u reads level-1 rows
    // < 2 * (u + 1) * BY + 3H (dwt_fused.cuh, its level-1 input region).
    const int64_t per = fused12 ? 2 * cudadwt::FusedDims<W>::BY : first_level_rows<W, Src>();
    const int64_t halo = fused12 ? 3 * Wv<W>::kHalo : Wv<W>::kHalo;
    return static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(units(), (ready - halo) / per)));
  }
  // The first step on units [u0, u1).
  void first(int u0, int u1, cudaStream_t s) const {
    if (u1 <= u0) return;
    const size_t n = plan.levels.size();
    if (fused12) {
      // Its level-2 LL goes where level 2 would write it.
      if (n == 2)
        launch_fused12<W, Src>(plan, src, dst, static_cast<long long>(dst_stride), dst,
                               static_cast<long long>(dst_stride), s, u0, u1);
      else
        launch_fused12<W, Src>(plan, src, dst, static_cast<long long>(dst_stride), buf[1],
                               ws_stride(geom(plan.levels[1], 1, 1).sn_x), s, u0, u1);
      return;
    }
    cudadwt::FwdArgs<T> a = args(0);
    a.src = src;
    a.vec = pair_aligned(src.p[0], src.row_stride, sizeof(typename Src::Elem));
    constexpr int TY = first_level_rows<W, Src>();
    if constexpr (TY == 0) {  // coefficients: the launcher picks the tile height, all rows at once
      launch_forward<W, Src>(plan.levels[0], a, s);
    } else {
      launch_forward_ty<W, Src, TY>(plan.levels[0], a, s, u0, u1);
    }
  }
  // The levels after the first step.
  void rest(cudaStream_t s) const {
    for (size_t k = fused12 ? 2 : 1; k < plan.levels.size(); ++k) {
      cudadwt::FwdArgs<T> a = args(k);
      a.src = Samples{};
      a.src.p[0] = buf[(k - 1) & 1];
      a.src.row_stride = ws_stride(a.g.w);
      a.vec = pair_aligned(a.src.p[0], a.src.row_stride, sizeof(T));
      launch_forward<W, Packed<T>>(plan.levels[k], a, s);
    }
  }

 private:
  // Level k's outputs: details to dst, LL to the workspace (dst at the last level).
  cudadwt::FwdArgs<T> args(size_t k) const {
    cudadwt::FwdArgs<T> a;
    a.g = geom(plan.levels[k], 1, 1);  // sn_x for the workspace stride; tiles set by the launcher
    a.g.reverse = cuda_tuning::kAlternateTileOrder && (k & 1);
    a.det = dst;
    a.det_stride = static_cast<long long>(dst_stride);
    if (k + 1 == plan.levels.size()) {
      a.ll = dst;
      a.ll_stride = static_cast<long long>(dst_stride);
    } else {
      a.ll = buf[k & 1];
      a.ll_stride = ws_stride(a.g.sn_x);
    }
    return a;
  }
};

template <int W, class Src>
void forward(const Samples& src, typename Wv<W>::T* dst, size_t dst_stride, const Rect& tc,
             int levels, void* ws, size_t ws_bytes, cudaStream_t s, const CudaDwtOptions& opt) {
  using T = typename Wv<W>::T;
  const Plan plan = make_plan(tc, levels);
  check_buffers(src, sizeof(typename Src::Elem), dst, dst_stride, tc, plan, sizeof(T), ws, ws_bytes);
  if (tc.empty()) return;
  if (plan.levels.empty()) {
    copy_level0<T, Src>(src, dst, dst_stride, tc, s);
    return;
  }
  const ForwardRun<W, Src> run(plan, src, dst, dst_stride, ws, opt);
  run.first(0, run.units(), s);
  run.rest(s);
}

template <int W>
void inverse(const typename Wv<W>::T* src, size_t src_stride, typename Wv<W>::T* dst,
             size_t dst_stride, const Rect& tc, int levels, void* ws, size_t ws_bytes,
             cudaStream_t s, const CudaDwtOptions& opt) {
  using T = typename Wv<W>::T;
  const Plan plan = make_plan(tc, levels);
  Samples in;
  in.p[0] = src;
  in.row_stride = static_cast<long long>(src_stride);
  check_buffers(in, sizeof(T), dst, dst_stride, tc, plan, sizeof(T), ws, ws_bytes);
  if (tc.empty()) return;
  if (plan.levels.empty()) {
    copy_level0<T, Packed<T>>(in, dst, dst_stride, tc, s);
    return;
  }
  T* buf[2] = {static_cast<T*>(ws), nullptr};
  if (ws) buf[1] = reinterpret_cast<T*>(static_cast<char*>(ws) + align_up(plan.ws_elems[0] * sizeof(T)));
  const size_t n = plan.levels.size();
  // Levels 2 and 1 fused (the last two steps) where asked for and the geometry allows.
  const size_t last = opt.fuse_inverse && fusable(plan) ? 2 : 0;
  for (size_t k = n; k-- > last;) {  // k = level index nb-1, coarsest first
    const DwtLevel& lv = plan.levels[k];
    cudadwt::InvArgs<T> a;
    a.g = geom(lv, 1, 1);
    a.g.reverse = cuda_tuning::kAlternateTileOrder && ((n - 1 - k) & 1);
    a.det = src;
    a.det_stride = static_cast<long long>(src_stride);
    if (k + 1 == n) {
      a.ll = src;
      a.ll_stride = static_cast<long long>(src_stride);
    } else {
      a.ll = buf[k & 1];  // written by level k+1 below
      a.ll_stride = ws_stride(a.g.sn_x);
    }
    if (k == 0) {
      a.out = dst;
      a.out_stride = static_cast<long long>(dst_stride);
    } else {
      a.out = buf[(k - 1) & 1];
      a.out_stride = ws_stride(a.g.w);
    }
    a.vec = pair_aligned(a.out, a.out_stride, sizeof(T));
    launch_inverse<W>(lv, a, s);
  }
  if (last == 2) {
    const LevelGeom g2 = geom(plan.levels[1], 1, 1);
    if (n == 2)
      launch_fused21<W>(plan, src, static_cast<long long>(src_stride), src,
                        static_cast<long long>(src_stride), dst, static_cast<long long>(dst_stride), s);
    else
      launch_fused21<W>(plan, src, static_cast<long long>(src_stride), buf[1], ws_stride(g2.sn_x),
                        dst, static_cast<long long>(dst_stride), s);
  }
}

}  // namespace

size_t cuda_dwt_workspace_bytes(Wavelet wavelet, const Rect& tc, int levels) {
  const Plan plan = make_plan(tc, levels);
  const size_t elem = wavelet == Wavelet::Reversible53 ? sizeof(int32_t) : sizeof(float);
  if (plan.ws_elems[0] == 0 && plan.ws_elems[1] == 0) return 0;
  return align_up(plan.ws_elems[0] * elem) + plan.ws_elems[1] * elem;
}

namespace {

std::string describe(j2k_sample_type t) {
  return j2k_sample_size(t) ? std::string(sample_type_name(t))
                            : "an unknown type (" + std::to_string(static_cast<int>(t)) + ")";
}

[[noreturn]] void invalid(const std::string& what) {
  throw Error(ErrorCode::InvalidArgument, "CUDA DWT: " + what);
}

// The plane's row stride in elements, once its stride and pointer are checked.
size_t element_stride(const DevicePlane& p, const char* which, size_t elem, const Rect& tc) {
  if (p.row_stride < 0 || static_cast<size_t>(p.row_stride) % elem != 0)
    invalid(std::string(which) + " row_stride " + std::to_string(p.row_stride) +
            " is not a non-negative multiple of its element size " + std::to_string(elem));
  if (p.data == nullptr && !tc.empty())
    invalid(std::string("null ") + which + " data for a non-empty tile-component");
  if (reinterpret_cast<uintptr_t>(p.data) % elem != 0)
    invalid(std::string(which) + " data is not aligned to its " + std::to_string(elem) +
            "-byte elements");
  return static_cast<size_t>(p.row_stride) / elem;
}

template <int W>
void dispatch(j2k_direction direction, const DevicePlane& src, size_t ss, int32_t dc,
              const DevicePlane& dst, size_t ds, const Rect& tc, int levels, void* ws,
              size_t wsb, cudaStream_t s, const CudaDwtOptions& o) {
  using T = typename Wv<W>::T;
  T* out = static_cast<T*>(dst.data);
  if (direction == J2K_INVERSE)
    return inverse<W>(static_cast<const T*>(src.data), ss, out, ds, tc, levels, ws, wsb, s, o);
  Samples in;
  in.p[0] = src.data;
  in.row_stride = static_cast<long long>(ss);
  in.dc[0] = dc;
  switch (src.type) {
    case J2K_SAMPLE_U8: return forward<W, Packed<uint8_t>>(in, out, ds, tc, levels, ws, wsb, s, o);
    case J2K_SAMPLE_U16: return forward<W, Packed<uint16_t>>(in, out, ds, tc, levels, ws, wsb, s, o);
    default: return forward<W, Packed<T>>(in, out, ds, tc, levels, ws, wsb, s, o);
  }
}

}  // namespace

void cuda_dwt(j2k_direction direction, Wavelet wavelet, const DevicePlane& src, int32_t dc_shift,
              const DevicePlane& dst, const Rect& tc, int levels, void* ws, size_t wsb,
              cudaStream_t s, const CudaDwtOptions& o) {
  if (direction != J2K_FORWARD && direction != J2K_INVERSE)
    invalid("unknown direction " + std::to_string(static_cast<int>(direction)));
  if (wavelet != Wavelet::Reversible53 && wavelet != Wavelet::Irreversible97)
    invalid("unknown wavelet " + std::to_string(static_cast<int>(wavelet)));
  const bool w53 = wavelet == Wavelet::Reversible53;
  const j2k_sample_type coef = coefficient_type(wavelet);
  const std::string wname = w53 ? "5/3" : "9/7";
  if (dst.type != coef)
    invalid("the " + wname + " writes " + sample_type_name(coef) + " coefficients, dst type is " +
            describe(dst.type));
  const bool narrow = src.type == J2K_SAMPLE_U8 || src.type == J2K_SAMPLE_U16;
  if (direction == J2K_INVERSE) {
    if (src.type != coef)
      invalid("the " + wname + " inverse reads " + sample_type_name(coef) + " coefficients, src type is " +
              describe(src.type));
    if (dc_shift != 0)
      invalid("the inverse takes no DC shift, dc_shift is " + std::to_string(dc_shift));
  } else {
    if (!narrow && src.type != coef)
      invalid("the " + wname + " forward reads U8, U16 or " + sample_type_name(coef) +
              " samples, src type is " + describe(src.type));
    if (!narrow && dc_shift != 0)
      invalid("dc_shift applies to U8/U16 sources only, got " + std::to_string(dc_shift) +
              " with " + sample_type_name(coef));
  }
  const size_t src_elem = src.type == J2K_SAMPLE_U8 ? 1 : src.type == J2K_SAMPLE_U16 ? 2 : 4;
  const size_t ss = element_stride(src, "src", src_elem, tc);
  const size_t ds = element_stride(dst, "dst", 4, tc);
  const bool openjpeg = o.inverse97 == constants::kInverse97OpenJpeg;
  if (!openjpeg && o.inverse97 != constants::kInverse97Standard)
    invalid("an inverse 9/7 scaling other than the standard's or OpenJPEG's");
  if (w53)
    dispatch<kW53>(direction, src, ss, dc_shift, dst, ds, tc, levels, ws, wsb, s, o);
  else if (direction == J2K_INVERSE && openjpeg)
    inverse<cudadwt::kW97OpenJpeg>(static_cast<const float*>(src.data), ss, static_cast<float*>(dst.data), ds, tc,
                                   levels, ws, wsb, s, o);
  else
    dispatch<kW97>(direction, src, ss, dc_shift, dst, ds, tc, levels, ws, wsb, s, o);
}

namespace {

// The checked sample source of DeviceSamples, in elements.
Samples checked_samples(Wavelet wavelet, const DeviceSamples& src, const DevicePlane& dst) {
  if (wavelet != Wavelet::Reversible53 && wavelet != Wavelet::Irreversible97)
    invalid("unknown wavelet " + std::to_string(static_cast<int>(wavelet)));
  if (dst.type != coefficient_type(wavelet))
    invalid("dst type " + describe(dst.type) + " is not the wavelet's coefficient type");
  if (src.type != J2K_SAMPLE_U8 && src.type != J2K_SAMPLE_U16)
    invalid("samples of " + describe(src.type) + " (U8 or U16 only)");
  if (src.component < -1 || src.component > 2)
    invalid("MCT component " + std::to_string(src.component) + " (0..2, or -1 for none)");
  const size_t elem = j2k_sample_size(src.type);
  if (src.row_stride < 0 || src.pixel_stride <= 0 || static_cast<size_t>(src.row_stride) % elem != 0 ||
      static_cast<size_t>(src.pixel_stride) % elem != 0)
    invalid("sample strides " + std::to_string(src.row_stride) + ", " + std::to_string(src.pixel_stride) +
            " are not positive multiples of the sample size");
  Samples in;
  for (int i = 0; i < 3; ++i) {
    in.p[i] = src.data[i];
    in.dc[i] = src.dc[i];
    if (reinterpret_cast<uintptr_t>(src.data[i]) % elem != 0) invalid("samples not aligned to their type");
  }
  in.row_stride = static_cast<long long>(static_cast<size_t>(src.row_stride) / elem);
  in.pixel_stride = static_cast<long long>(static_cast<size_t>(src.pixel_stride) / elem);
  in.comp = src.component;
  return in;
}

// Calls f(ForwardRun<W, Src>&) with the run that reads these samples: one packed plane
// through Packed (pair loads), anything else through Gather.
template <class F>
void with_run(Wavelet wavelet, const Samples& in, j2k_sample_type type, const Plan& plan, void* dst, size_t ds,
              void* ws, const CudaDwtOptions& o, F&& f) {
  const bool packed = in.comp < 0 && in.pixel_stride == 1, u8 = type == J2K_SAMPLE_U8;
  auto go = [&](auto w, auto* elem) {
    constexpr int W = decltype(w)::value;
    using In = std::remove_pointer_t<decltype(elem)>;
    using T = typename Wv<W>::T;
    if (packed) {
      ForwardRun<W, Packed<In>> run(plan, in, static_cast<T*>(dst), ds, ws, o);
      f(run);
    } else {
      ForwardRun<W, Gather<In>> run(plan, in, static_cast<T*>(dst), ds, ws, o);
      f(run);
    }
  };
  using W53 = std::integral_constant<int, kW53>;
  using W97 = std::integral_constant<int, kW97>;
  if (wavelet == Wavelet::Reversible53) {
    if (u8) go(W53{}, static_cast<uint8_t*>(nullptr));
    else go(W53{}, static_cast<uint16_t*>(nullptr));
  } else {
    if (u8) go(W97{}, static_cast<uint8_t*>(nullptr));
    else go(W97{}, static_cast<uint16_t*>(nullptr));
  }
}

}  // namespace

void cuda_dwt_from_samples(Wavelet wavelet, const DeviceSamples& src, const DevicePlane& dst, const Rect& tc,
                           int levels, void* ws, size_t wsb, cudaStream_t s, const CudaDwtOptions& o) {
  const Samples in = checked_samples(wavelet, src, dst);
  const size_t ds = element_stride(dst, "dst", 4, tc);
  const Plan plan = make_plan(tc, levels);
  check_buffers(in, j2k_sample_size(src.type), dst.data, ds, tc, plan, 4, ws, wsb);
  if (tc.empty()) return;
  with_run(wavelet, in, src.type, plan, dst.data, ds, ws, o, [&](auto& run) {
    using Run = std::remove_reference_t<decltype(run)>;
    if (plan.levels.empty())  // the samples as they are read
      return copy_level0<typename Run::T, typename Run::Source>(in, run.dst, ds, tc, s);
    run.first(0, run.units(), s);
    run.rest(s);
  });
}

CudaForwardByRows::CudaForwardByRows(Wavelet wavelet, const DeviceSamples& src, const DevicePlane& dst,
                                     const Rect& tc, int levels, void* ws, size_t wsb, const CudaDwtOptions& o)
    : wavelet_(wavelet), src_(src), dst_(dst), tc_(tc), levels_(levels), ws_(ws), options_(o) {
  const Samples in = checked_samples(wavelet, src, dst);
  const size_t ds = element_stride(dst, "dst", 4, tc);
  const Plan plan = make_plan(tc, levels);
  check_buffers(in, j2k_sample_size(src.type), dst.data, ds, tc, plan, 4, ws, wsb);
  if (tc.empty() || plan.levels.empty())
    invalid("a tile-component transformed by rows needs at least one non-empty level");
}

namespace {

// The rows of each band of levels 1 and 2 that the first `units` units of the first step have
// finished (level 2 only where it is part of the first step).
struct FinalRows {
  int64_t lo1 = 0, hi1 = 0, lo2 = 0, hi2 = 0;
};

template <class Run>
FinalRows final_rows(const Run& run, int units) {
  const LevelGeom g1 = geom(run.plan.levels[0], 1, 1);
  FinalRows f;
  if (units >= run.units()) {  // everything of the first step
    f.lo1 = g1.sn_y;
    f.hi1 = g1.h - g1.sn_y;
    if (run.fused12) {
      const LevelGeom g2 = geom(run.plan.levels[1], 1, 1);
      f.lo2 = g2.sn_y;
      f.hi2 = g2.h - g2.sn_y;
    }
    return f;
  }
  if (run.fused12) {  // block row u: LL1 rows [u * BY, (u + 1) * BY), both origins even
    const int64_t BY = cudadwt::FusedDims<Run::wavelet()>::BY;
    const LevelGeom g2 = geom(run.plan.levels[1], 1, 1);
    f.lo1 = std::min<int64_t>(g1.sn_y, units * BY);
    f.hi1 = std::min<int64_t>(g1.h - g1.sn_y, units * BY);
    f.lo2 = std::min<int64_t>(g2.sn_y, units * BY / 2);
    f.hi2 = std::min<int64_t>(g2.h - g2.sn_y, units * BY / 2);
    return f;
  }
  // Level-1 tile row u: interleaved rows [u * TY, (u + 1) * TY); of the first n rows,
  // (n + 1 - cas_y) / 2 are low.
  const int64_t rows = std::min<int64_t>(g1.h, int64_t{units} * first_level_rows<Run::wavelet(), typename Run::Source>());
  const int cas = run.plan.levels[0].cas_y;
  f.lo1 = (rows + 1 - cas) >> 1;
  f.hi1 = rows - f.lo1;
  return f;
}

// Appends the regions of dst (x0, y0, x1, y1 in elements) that are final in `now` and were not
// in `before`. When the first step is the whole transform, its LL is final with its rows too.
template <class Run>
void append_final(const Run& run, const FinalRows& before, const FinalRows& now, std::vector<Rect>& out) {
  auto add = [&](int64_t x0, int64_t y0, int64_t x1, int64_t y1) {
    if (x1 > x0 && y1 > y0) out.push_back(Rect{x0, y0, x1, y1});
  };
  const LevelGeom g1 = geom(run.plan.levels[0], 1, 1);
  const size_t n = run.plan.levels.size();
  const bool last1 = n == 1 && !run.fused12;
  add(last1 ? 0 : g1.sn_x, before.lo1, g1.w, now.lo1);     // HL1 (and LL1 when last)
  add(0, g1.sn_y + before.hi1, g1.w, g1.sn_y + now.hi1);  // LH1, HH1
  if (!run.fused12) return;
  const LevelGeom g2 = geom(run.plan.levels[1], 1, 1);
  add(n == 2 ? 0 : g2.sn_x, before.lo2, g2.w, now.lo2);     // HL2 (and LL2 when last)
  add(0, g2.sn_y + before.hi2, g2.w, g2.sn_y + now.hi2);  // LH2, HH2
}

}  // namespace

template <class F>
void CudaForwardByRows::visit(F&& f) const {
  const Plan plan = make_plan(tc_, levels_);
  with_run(wavelet_, checked_samples(wavelet_, src_, dst_), src_.type, plan, dst_.data,
           static_cast<size_t>(dst_.row_stride) / 4, ws_, options_, f);
}

void CudaForwardByRows::advance(int64_t ready, cudaStream_t s, std::vector<Rect>& final) {
  visit([&](auto& run) {
    const int to = std::max(done_, run.units_ready(ready));
    if (to == done_) return;
    run.first(done_, to, s);
    append_final(run, final_rows(run, done_), final_rows(run, to), final);
    done_ = to;
  });
}

void CudaForwardByRows::finish(cudaStream_t s, std::vector<Rect>& final) {
  advance(tc_.height(), s, final);
  visit([&](auto& run) {
    run.rest(s);
    // What the other levels wrote: the LL quadrant of the first step's last level.
    const size_t first = run.fused12 ? 2 : 1;
    if (run.plan.levels.size() <= first) return;
    const LevelGeom g = geom(run.plan.levels[first - 1], 1, 1);
    final.push_back(Rect{0, 0, g.sn_x, g.sn_y});
  });
}

// Whether this binary has a kernel image the current device can run.
cudaError_t cuda_kernel_image_check() {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, cudadwt::forward_level<kW53, Packed<int32_t>, 0, 0, Wv<kW53>::kRows>);
}

}  // namespace j2k
