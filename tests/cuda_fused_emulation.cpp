// SPDX-License-Identifier: BSD-2-Clause
// Host emulation of the fused CUDA kernels (forward levels 1+2, transform/cuda/dwt_fused.cuh, reading
// packed planes and interleaved RGB with the DC shift and the RCT/ICT in its first read;
// inverse levels 2+1, dwt_fused_inverse.cuh) against the CPU reference: the kernel's own source, compiled for the host with the CUDA keywords defined
// away, so that its indexing is checked on every CI run, where there is no GPU. The kernel runs
// with one thread per block (J2K_EMU_THREADS=1: every thread loop walks all its items in order,
// and the register passes read from a copy of shared memory, so that no write is seen early);
// blocks run one after another. A CTest test (label cuda) when the CUDA backend is built;
// prints "cases N fails 0" and exits non-zero on any mismatch.
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <vector>
#include <random>
#include <cmath>
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(a, b)
#define __align__(n)
#define __shared__
#define __host__
struct Dim3 { unsigned x = 0, y = 0, z = 0; };
static Dim3 threadIdx, blockIdx, blockDim;
inline void __syncthreads() {}
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
inline float __fadd_rn(float a, float b) { volatile float r = a + b; return r; }
inline float __fmul_rn(float a, float b) { volatile float r = a * b; return r; }
inline float __fsub_rn(float a, float b) { volatile float r = a - b; return r; }
inline bool __all_sync(unsigned, bool b) { return b; }
template <class T> T __shfl_up_sync(unsigned, T v, int) { return v; }
template <class T> T __shfl_down_sync(unsigned, T v, int) { return v; }
struct int2 { int x, y; }; struct int4 { int x, y, z, w; }; struct float4 { float x, y, z, w; }; struct float2 { float x, y; }; struct ushort2 { unsigned short x, y; }; struct uchar2 { unsigned char x, y; };
namespace j2k::cudadwt { alignas(16) unsigned char smem_raw[1 << 20];
template <class T> T* emu_snapshot(const T* S, size_t n) {
  static std::vector<unsigned char> buf; buf.assign(reinterpret_cast<const unsigned char*>(S), reinterpret_cast<const unsigned char*>(S + n));
  return reinterpret_cast<T*>(buf.data()); }
}
#define J2K_EMU_THREADS 1
#include "transform/cuda/dwt_fused.cuh"
#include "transform/cuda/dwt_fused_inverse.cuh"
#include "transform/backend.hpp"
#include "transform/cpu/component_transform.hpp"
#include "transform/dwt.hpp"
using namespace j2k;
using namespace j2k::cudadwt;

int sn(int n, int cas) { return (n + (cas == 0 ? 1 : 0)) >> 1; }

// comp -2: one packed plane (Packed<In>); otherwise RGB pixels interleaved (Gather<In>, 8/16-bit
// samples), comp -1 transforming the first component alone, comp 0..2 that component of the
// RCT (5/3) / ICT (9/7), against the CPU's shift, MCT and DWT.
template <int W, class In>
bool run(Dwt& cpu, int x0, int y0, int w, int h, std::mt19937& rng, int bits, int comp = -2) {
  using T = typename Wv<W>::T;
  Rect tc{x0, y0, x0 + w, y0 + h};
  auto lv = dwt_levels(tc, 2);
  if (lv.size() < 2 || lv[1].width < 2 || lv[1].height < 2 || lv[0].cas_x || lv[0].cas_y || lv[1].cas_x || lv[1].cas_y) return true;
  // Odd widths: a stride that misaligns most rows (scalar stores); even widths: a multiple of 4
  // (16-byte stores wherever a band row allows them). Both leave padding that must stay untouched.
  const int stride = (w & 1) ? w + 3 : ((w + 7) & ~3);
  const int ps = comp == -2 ? 1 : 3;  // elements between pixels
  std::vector<In> src(size_t(stride) * ps * h);
  const int32_t dc = sizeof(In) < 4 ? (1 << (bits - 1)) : 0;
  for (auto& v : src) {
    if constexpr (sizeof(In) < 4) v = In(rng() % (1u << bits));
    else if constexpr (std::is_same<In, float>::value) v = float(int(rng() % 4001) - 2000) * 0.25f;
    else v = int32_t(rng() % 4001) - 2000;
  }
  std::vector<T> ref(size_t(w) * h), dst(size_t(stride) * (h + 1), T(-12345));  // + a guard row
  std::vector<T> rgb[3];
  for (auto& p : rgb) p.resize(size_t(w) * h);
  for (int y = 0; y < h; ++y) for (int x = 0; x < w; ++x)
    for (int c = 0; c < (comp >= 0 ? 3 : 1); ++c) {
      In s = src[(size_t(y) * stride + x) * ps + c];
      rgb[c][size_t(y) * w + x] = sizeof(In) < 4 ? T(int32_t(s) - dc) : T(s);
    }
  if (comp >= 0) {
    if constexpr (W == kW53) rct_forward(rgb[0].data(), rgb[1].data(), rgb[2].data(), rgb[0].size());
    else ict_forward(rgb[0].data(), rgb[1].data(), rgb[2].data(), rgb[0].size());
  }
  ref = rgb[comp > 0 ? comp : 0];
  if constexpr (W == kW53) cpu.forward53(ref.data(), w, tc, 2); else cpu.forward97(ref.data(), w, tc, 2);
  FusedArgs<T> a;
  for (int c = 0; c < 3; ++c) { a.src.p[c] = src.data() + c; a.src.dc[c] = dc; }
  a.src.row_stride = stride * ps; a.src.pixel_stride = ps; a.src.comp = comp < 0 ? -1 : comp;
  a.w1 = w; a.h1 = h; a.snx1 = sn(w, 0); a.sny1 = sn(h, 0);
  a.w2 = int(lv[1].width); a.h2 = int(lv[1].height); a.snx2 = sn(a.w2, 0); a.sny2 = sn(a.h2, 0);
  using D = FusedDims<W>;
  a.blocks_x = (a.w2 + D::BX - 1) / D::BX;
  const int blocks = a.blocks_x * ((a.h2 + D::BY - 1) / D::BY);
  a.dst = dst.data(); a.dst_stride = stride; a.ll2 = dst.data(); a.ll2_stride = stride;
  // Launched in bands of block rows (as for samples that arrive by rows), one band a launch.
  const int block_rows = blocks / a.blocks_x;
  const int band = 1 + int(rng() % block_rows);
  for (int b = 0; b < blocks; ++b) {
    std::memset(smem_raw, 0x7f, D::kSmemBytes);
    a.by0 = b / a.blocks_x / band * band;
    blockIdx.x = b - a.by0 * a.blocks_x; threadIdx.x = 0;
    if constexpr (sizeof(In) < 4) {
      if (comp == -2) forward_fused12<W, Packed<In>>(a);
      else forward_fused12<W, Gather<In>>(a);
    } else {
      forward_fused12<W, Packed<In>>(a);
    }
  }
  long bad = 0;
  for (int y = 0; y < h; ++y) for (int x = 0; x < w; ++x)
    if (std::memcmp(&ref[size_t(y) * w + x], &dst[size_t(y) * stride + x], sizeof(T)) != 0) {
      if (bad < 3) printf("  mismatch W=%d in=%zu tc=(%d,%d %dx%d) at (%d,%d): ref %g got %g\n", W, sizeof(In), x0, y0, w, h, x, y,
                          double(ref[size_t(y) * w + x]), double(dst[size_t(y) * stride + x]));
      ++bad;
    }
  for (int y = 0; y <= h; ++y) for (int x = (y < h ? w : 0); x < stride; ++x)
    if (dst[size_t(y) * stride + x] != T(-12345)) { ++bad; if (bad < 3) printf("  padding or guard row written\n"); }
  return bad == 0;
}

// Inverse levels 2 and 1 of a random pyramid; the level-2 LL read in place from the pyramid
// (two levels in all) or from a separate buffer (the workspace, when there are more levels).
template <int W>
bool run_inv(Dwt& cpu, int x0, int y0, int w, int h, std::mt19937& rng, bool separate_ll2) {
  using T = typename Wv<W>::T;
  Rect tc{x0, y0, x0 + w, y0 + h};
  auto lv = dwt_levels(tc, 2);
  if (lv.size() < 2 || lv[1].width < 2 || lv[1].height < 2 || lv[0].cas_x || lv[0].cas_y || lv[1].cas_x || lv[1].cas_y) return true;
  const int stride = (w & 1) ? w + 3 : ((w + 7) & ~3);
  std::vector<T> src(size_t(stride) * h), ref(size_t(w) * h), dst(size_t(stride) * (h + 1), T(-12345));
  for (auto& v : src) {
    if constexpr (W == kW97) v = float(int(rng() % 4001) - 2000) * 0.25f;
    else v = int32_t(rng() % 4001) - 2000;
  }
  for (int y = 0; y < h; ++y) for (int x = 0; x < w; ++x) ref[size_t(y) * w + x] = src[size_t(y) * stride + x];
  if constexpr (W == kW53) cpu.inverse53(ref.data(), w, tc, 2); else cpu.inverse97(ref.data(), w, tc, 2);
  FusedInvArgs<T> a;
  a.src = src.data(); a.src_stride = stride;
  a.w1 = w; a.h1 = h; a.snx1 = sn(w, 0); a.sny1 = sn(h, 0);
  a.w2 = int(lv[1].width); a.h2 = int(lv[1].height); a.snx2 = sn(a.w2, 0); a.sny2 = sn(a.h2, 0);
  const int ll_stride = (a.snx2 + 3) & ~3;
  std::vector<T> ll2(size_t(ll_stride) * a.sny2);
  for (int y = 0; y < a.sny2; ++y) for (int x = 0; x < a.snx2; ++x) ll2[size_t(y) * ll_stride + x] = src[size_t(y) * stride + x];
  a.ll2 = separate_ll2 ? ll2.data() : src.data();
  a.ll2_stride = separate_ll2 ? ll_stride : stride;
  using D = FusedInvDims<W>;
  a.blocks_x = (a.w2 + D::BX - 1) / D::BX;
  const int blocks = a.blocks_x * ((a.h2 + D::BY - 1) / D::BY);
  a.dst = dst.data(); a.dst_stride = stride;
  for (int b = 0; b < blocks; ++b) {
    std::memset(smem_raw, 0x7f, D::kSmemBytes);
    blockIdx.x = b; threadIdx.x = 0;
    inverse_fused21<W>(a);
  }
  long bad = 0;
  for (int y = 0; y < h; ++y) for (int x = 0; x < w; ++x)
    if (std::memcmp(&ref[size_t(y) * w + x], &dst[size_t(y) * stride + x], sizeof(T)) != 0) {
      if (bad < 3) printf("  inverse mismatch W=%d tc=(%d,%d %dx%d) at (%d,%d): ref %g got %g\n", W, x0, y0, w, h, x, y,
                          double(ref[size_t(y) * w + x]), double(dst[size_t(y) * stride + x]));
      ++bad;
    }
  for (int y = 0; y <= h; ++y) for (int x = (y < h ? w : 0); x < stride; ++x)
    if (dst[size_t(y) * stride + x] != T(-12345)) { ++bad; if (bad < 3) printf("  inverse: padding or guard row written\n"); }
  return bad == 0;
}

int main(int argc, char** argv) {
  Dwt cpu(BackendOptions{Backend::Cpu, 0, -1});
  std::mt19937 rng(5);
  long cases = 0, fails = 0;
  std::vector<int> sizes;
  for (int n = 3; n <= 40; ++n) sizes.push_back(n);
  for (int n : {79, 80, 81, 87, 88, 89, 176, 177, 63, 64, 65, 95, 96, 97, 100, 127, 128, 129, 130, 131, 135, 136, 137, 191, 192, 193, 255, 256, 257, 258, 259, 263, 300}) sizes.push_back(n);
  const int origins[][2] = {{0, 0}, {4, 8}, {8, 4}, {12, 12}};
  for (auto& o : origins)
    for (int w : sizes) for (int h : sizes) {
      if ((w > 40 || h > 40) && (rng() % 3)) continue;
      fails += !run<kW53, int32_t>(cpu, o[0], o[1], w, h, rng, 0);
      fails += !run<kW97, float>(cpu, o[0], o[1], w, h, rng, 0);
      fails += !run_inv<kW53>(cpu, o[0], o[1], w, h, rng, rng() & 1);
      fails += !run_inv<kW97>(cpu, o[0], o[1], w, h, rng, rng() & 1);
      cases += 4;
      if (rng() % 8 == 0) {
        fails += !run<kW53, uint8_t>(cpu, o[0], o[1], w, h, rng, 8);
        fails += !run<kW97, uint16_t>(cpu, o[0], o[1], w, h, rng, 12);
        cases += 2;
      }
      if (rng() % 8 == 0) {  // interleaved RGB: one component alone, and each of the MCT's
        const int comp = int(rng() % 4) - 1;
        fails += !run<kW53, uint8_t>(cpu, o[0], o[1], w, h, rng, 8, comp);
        fails += !run<kW97, uint8_t>(cpu, o[0], o[1], w, h, rng, 8, comp);
        fails += !run<kW53, uint16_t>(cpu, o[0], o[1], w, h, rng, 16, comp);
        fails += !run<kW97, uint16_t>(cpu, o[0], o[1], w, h, rng, 16, comp);
        cases += 4;
      }
    }
  fails += !run<kW53, int32_t>(cpu, 0, 0, 1024, 768, rng, 0);
  fails += !run<kW97, float>(cpu, 0, 0, 1024, 768, rng, 0);
  fails += !run_inv<kW53>(cpu, 0, 0, 1024, 768, rng, true);
  fails += !run_inv<kW97>(cpu, 0, 0, 1024, 768, rng, false);
  for (int comp = 0; comp < 3; ++comp) {
    fails += !run<kW53, uint8_t>(cpu, 0, 0, 260, 200, rng, 8, comp);
    fails += !run<kW97, uint16_t>(cpu, 0, 0, 260, 200, rng, 16, comp);
  }
  printf("cases %ld fails %ld\n", cases + 10, fails);
  return fails != 0;
}
