// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench --backend cuda`: the CUDA DWT on device buffers, kernel time by CUDA events
// (median of options.repeats after warm-up), next to a device-to-device copy of the same int32
// image measured in the same run as the yardstick.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "transform/cuda/cuda_dwt.hpp"
#include "common/error.hpp"

namespace j2k::bench {
namespace {

void ck(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw Error(ErrorCode::BackendFailure, std::string(what) + ": " + cudaGetErrorString(e));
}

template <class T>
struct Dev {
  T* p = nullptr;
  explicit Dev(size_t n) { ck(cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(T)), "cudaMalloc"); }
  ~Dev() { cudaFree(p); }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
};

double time_ms(const std::function<void()>& fn, int repeats, cudaStream_t s) {
  cudaEvent_t a, b;
  ck(cudaEventCreate(&a), "cudaEventCreate");
  ck(cudaEventCreate(&b), "cudaEventCreate");
  for (int i = 0; i < 3; ++i) fn();  // warm-up
  ck(cudaStreamSynchronize(s), "warm-up");
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    ck(cudaEventRecord(a, s), "cudaEventRecord");
    fn();
    ck(cudaEventRecord(b, s), "cudaEventRecord");
    ck(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    ck(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(t);
}

}  // namespace

int run_cuda(const Options& o) {
  const int dev = o.device >= 0 ? o.device : 0;
  ck(cudaSetDevice(dev), "cudaSetDevice");
  cudaDeviceProp prop{};
  ck(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
  char device[512];
  std::snprintf(device, sizeof device, "%s (sm_%d%d, %d SMs, L2 %d MB)", prop.name, prop.major,
                prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  std::printf("CUDA DWT bench on %s; levels %d, median of %d\n", device, o.levels, o.repeats);
  DwtCsv csv(o, "cuda", device);
  cudaStream_t s;
  ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  std::printf("%7s  %-34s %10s %12s %9s\n", "size", "variant", "median ms", "Gsamples/s", "x copy");
  for (const int64_t size : o.sizes) {
    const auto n = static_cast<size_t>(size * size);
    const Rect tc{0, 0, size, size};
    const auto w = static_cast<size_t>(size);
    const int L = o.levels;
    std::vector<int32_t> pat = test_pattern(size, size, 12, 1);
    std::vector<uint8_t> p8(n);
    std::vector<uint16_t> p16(n);
    std::vector<float> pf(n);
    for (size_t i = 0; i < n; ++i) {
      pat[i] -= 2048;  // DC-shifted 12-bit samples
      p8[i] = static_cast<uint8_t>((pat[i] + 2048) >> 4);
      p16[i] = static_cast<uint16_t>(pat[i] + 2048);
      pf[i] = static_cast<float>(pat[i]);
    }
    Dev<int32_t> si(n), di(n), bi(n);
    Dev<float> sf(n), df(n), bf(n);
    Dev<uint8_t> s8(n);
    Dev<uint16_t> s16(n);
    const size_t ws_bytes = cuda_dwt_workspace_bytes(Wavelet::Reversible53, tc, std::max(L, 2));
    Dev<char> ws(ws_bytes + 1);
    ck(cudaMemcpy(si.p, pat.data(), n * 4, cudaMemcpyHostToDevice), "H2D");
    ck(cudaMemcpy(sf.p, pf.data(), n * 4, cudaMemcpyHostToDevice), "H2D");
    ck(cudaMemcpy(s8.p, p8.data(), n, cudaMemcpyHostToDevice), "H2D");
    ck(cudaMemcpy(s16.p, p16.data(), n * 2, cudaMemcpyHostToDevice), "H2D");
    // One call of the device API on these square buffers (contiguous rows).
    auto dwt = [&](j2k_direction dir, Wavelet wv, void* in, j2k_sample_type in_type, int32_t dc,
                   void* out, int levels, void* work, size_t work_bytes,
                   const CudaDwtOptions& kernels = CudaDwtOptions{}) {
      const size_t in_elem = in_type == J2K_SAMPLE_U8 ? 1 : in_type == J2K_SAMPLE_U16 ? 2 : 4;
      const j2k_sample_type out_type = coefficient_type(wv);
      cuda_dwt(dir, wv, DevicePlane{in, in_type, static_cast<ptrdiff_t>(w * in_elem)}, dc,
               DevicePlane{out, out_type, static_cast<ptrdiff_t>(w * 4)}, tc, levels, work,
               work_bytes, s, kernels);
    };
    // Inverse inputs: real coefficients.
    dwt(J2K_FORWARD, Wavelet::Reversible53, si.p, J2K_SAMPLE_I32, 0, bi.p, L, ws.p, ws_bytes);
    dwt(J2K_FORWARD, Wavelet::Irreversible97, sf.p, J2K_SAMPLE_F32, 0, bf.p, L, ws.p, ws_bytes);
    ck(cudaStreamSynchronize(s), "forward");

    const double copy = time_ms(
        [&] { ck(cudaMemcpyAsync(di.p, si.p, n * 4, cudaMemcpyDeviceToDevice, s), "copy"); },
        o.repeats, s);
    auto row = [&](const char* name, double ms, bool yardstick = false) {
      std::printf("%7lld  %-34s %10.4f %12.2f %9.3f\n", static_cast<long long>(size), name, ms,
                  static_cast<double>(n) / ms * 1e-6, ms / copy);
      std::fflush(stdout);
      csv.row(size, name, ms, copy, yardstick);
    };
    row("copy int32 (D2D)", copy, true);
    const size_t wb = ws_bytes;
    row("fwd 5/3 int32", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Reversible53, si.p, J2K_SAMPLE_I32, 0, di.p, L, ws.p, wb); }, o.repeats, s));
    row("inv 5/3 int32", time_ms([&] { dwt(J2K_INVERSE, Wavelet::Reversible53, bi.p, J2K_SAMPLE_I32, 0, di.p, L, ws.p, wb); }, o.repeats, s));
    row("fwd 9/7 float", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Irreversible97, sf.p, J2K_SAMPLE_F32, 0, df.p, L, ws.p, wb); }, o.repeats, s));
    row("inv 9/7 float", time_ms([&] { dwt(J2K_INVERSE, Wavelet::Irreversible97, bf.p, J2K_SAMPLE_F32, 0, df.p, L, ws.p, wb); }, o.repeats, s));
    row("fwd 5/3 from 8-bit", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Reversible53, s8.p, J2K_SAMPLE_U8, 128, di.p, L, ws.p, wb); }, o.repeats, s));
    row("fwd 5/3 from 16-bit", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Reversible53, s16.p, J2K_SAMPLE_U16, 2048, di.p, L, ws.p, wb); }, o.repeats, s));
    row("fwd 9/7 from 8-bit", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Irreversible97, s8.p, J2K_SAMPLE_U8, 128, df.p, L, ws.p, wb); }, o.repeats, s));
    row("fwd 9/7 from 16-bit", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Irreversible97, s16.p, J2K_SAMPLE_U16, 2048, df.p, L, ws.p, wb); }, o.repeats, s));
    // Diagnostics: one level alone (one read + one write of the image: ideal = 1.0x copy).
    row("fwd 5/3 int32, 1 level", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Reversible53, si.p, J2K_SAMPLE_I32, 0, di.p, 1, nullptr, 0); }, o.repeats, s));
    row("fwd 9/7 float, 1 level", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Irreversible97, sf.p, J2K_SAMPLE_F32, 0, df.p, 1, nullptr, 0); }, o.repeats, s));
    // Levels 1 + 2 (fused into one kernel where the geometry allows: ideal about 1.06x copy).
    row("fwd 5/3 int32, 2 levels", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Reversible53, si.p, J2K_SAMPLE_I32, 0, di.p, 2, ws.p, wb); }, o.repeats, s));
    row("fwd 9/7 float, 2 levels", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Irreversible97, sf.p, J2K_SAMPLE_F32, 0, df.p, 2, ws.p, wb); }, o.repeats, s));
    row("inv 5/3 int32, 1 level", time_ms([&] { dwt(J2K_INVERSE, Wavelet::Reversible53, bi.p, J2K_SAMPLE_I32, 0, di.p, 1, nullptr, 0); }, o.repeats, s));
    row("inv 5/3 int32, 2 levels", time_ms([&] { dwt(J2K_INVERSE, Wavelet::Reversible53, bi.p, J2K_SAMPLE_I32, 0, di.p, 2, ws.p, wb); }, o.repeats, s));
    row("inv 9/7 float, 2 levels", time_ms([&] { dwt(J2K_INVERSE, Wavelet::Irreversible97, bf.p, J2K_SAMPLE_F32, 0, df.p, 2, ws.p, wb); }, o.repeats, s));
    // The other kernel choices (CudaDwtOptions), for A/B measurements against the rows above.
    CudaDwtOptions per_level, fuse97, fuse_inv;
    per_level.fuse_levels12 = false;
    fuse97.fuse_97 = true;
    fuse_inv.fuse_inverse = true;
    row("fwd 5/3 int32, per-level", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Reversible53, si.p, J2K_SAMPLE_I32, 0, di.p, L, ws.p, wb, per_level); }, o.repeats, s));
    row("fwd 5/3 int32, 2 levels, per-level", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Reversible53, si.p, J2K_SAMPLE_I32, 0, di.p, 2, ws.p, wb, per_level); }, o.repeats, s));
    row("fwd 9/7 float, fused 1+2", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Irreversible97, sf.p, J2K_SAMPLE_F32, 0, df.p, L, ws.p, wb, fuse97); }, o.repeats, s));
    row("fwd 9/7 float, 2 levels, fused", time_ms([&] { dwt(J2K_FORWARD, Wavelet::Irreversible97, sf.p, J2K_SAMPLE_F32, 0, df.p, 2, ws.p, wb, fuse97); }, o.repeats, s));
    row("inv 5/3 int32, fused 2+1", time_ms([&] { dwt(J2K_INVERSE, Wavelet::Reversible53, bi.p, J2K_SAMPLE_I32, 0, di.p, L, ws.p, wb, fuse_inv); }, o.repeats, s));
    row("inv 5/3 int32, 2 levels, fused", time_ms([&] { dwt(J2K_INVERSE, Wavelet::Reversible53, bi.p, J2K_SAMPLE_I32, 0, di.p, 2, ws.p, wb, fuse_inv); }, o.repeats, s));
    row("inv 9/7 float, fused 2+1", time_ms([&] { dwt(J2K_INVERSE, Wavelet::Irreversible97, bf.p, J2K_SAMPLE_F32, 0, df.p, L, ws.p, wb, fuse_inv); }, o.repeats, s));
    row("inv 9/7 float, 2 levels, fused", time_ms([&] { dwt(J2K_INVERSE, Wavelet::Irreversible97, bf.p, J2K_SAMPLE_F32, 0, df.p, 2, ws.p, wb, fuse_inv); }, o.repeats, s));
  }
  ck(cudaStreamDestroy(s), "cudaStreamDestroy");
  csv.commit();
  return 0;
}

}  // namespace j2k::bench
