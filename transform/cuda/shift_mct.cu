// SPDX-License-Identifier: BSD-2-Clause
// One thread per sample: read a sample of its own width (strided), check its range, subtract
// the DC offset (to float for the 9/7); then RCT/ICT in place on components 0..2.
#include "transform/cuda/shift_mct.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "device/cuda/cuda_check.hpp"
#include "transform/cuda/mct.cuh"

namespace j2k::cuda {
namespace {

constexpr int kBlockX = 32, kBlockY = 8;

struct In {
  const char* data;
  long long row_stride, pixel_stride;
  int width, height;
  int offset;
  long long lo, hi;
};

template <class S, class D>
__global__ void shift_kernel(In in, D* out, long long out_stride, int* out_of_range) {
  const int x = blockIdx.x * kBlockX + threadIdx.x;
  if (x >= in.width) return;
  for (long long y = blockIdx.y * kBlockY + threadIdx.y; y < in.height; y += gridDim.y * kBlockY) {
    const S s = *reinterpret_cast<const S*>(in.data + y * in.row_stride + x * in.pixel_stride);
    const long long v = static_cast<long long>(s);
    if (v < in.lo || v > in.hi) *out_of_range = 1;
    out[y * out_stride + x] = static_cast<D>(static_cast<int>(v - in.offset));
  }
}

__global__ void rct_kernel(int* c0, int* c1, int* c2, long long stride, int width, int height) {
  const int x = blockIdx.x * kBlockX + threadIdx.x;
  if (x >= width) return;
  for (long long y = blockIdx.y * kBlockY + threadIdx.y; y < height; y += gridDim.y * kBlockY) {
    const long long i = y * stride + x;
    cudamct::forward(c0[i], c1[i], c2[i], c0[i], c1[i], c2[i]);
  }
}

__global__ void ict_kernel(float* c0, float* c1, float* c2, long long stride, int width, int height) {
  const int x = blockIdx.x * kBlockX + threadIdx.x;
  if (x >= width) return;
  for (long long y = blockIdx.y * kBlockY + threadIdx.y; y < height; y += gridDim.y * kBlockY) {
    const long long i = y * stride + x;
    cudamct::forward(c0[i], c1[i], c2[i], c0[i], c1[i], c2[i]);
  }
}

dim3 grid_for(int64_t w, int64_t h) {
  // Rows beyond 65535 blocks loop inside the kernels (the grid's y limit).
  const int64_t gy = std::min<int64_t>((h + kBlockY - 1) / kBlockY, 65535);
  return dim3(static_cast<unsigned>((w + kBlockX - 1) / kBlockX), static_cast<unsigned>(gy));
}

template <class T>
T* ptr(const Plane& p) {
  return reinterpret_cast<T*>(static_cast<char*>(p.base) + p.offset);
}

template <class D>
void shift(const TileSamples& tile, size_t c, const Plane& o, int* flag, cudaStream_t s) {
  const Plane& p = tile.in[c];
  In in{static_cast<const char*>(p.base) + p.offset, p.row_stride, p.pixel_stride,
        static_cast<int>(p.width), static_cast<int>(p.height), tile.offset[c], tile.lo[c], tile.hi[c]};
  const dim3 grid = grid_for(p.width, p.height), block(kBlockX, kBlockY);
  D* out = ptr<D>(o);
  const long long os = o.row_stride / static_cast<long long>(sizeof(D));
  switch (p.type) {
    case J2K_SAMPLE_U8: shift_kernel<uint8_t, D><<<grid, block, 0, s>>>(in, out, os, flag); break;
    case J2K_SAMPLE_I8: shift_kernel<int8_t, D><<<grid, block, 0, s>>>(in, out, os, flag); break;
    case J2K_SAMPLE_U16: shift_kernel<uint16_t, D><<<grid, block, 0, s>>>(in, out, os, flag); break;
    case J2K_SAMPLE_I16: shift_kernel<int16_t, D><<<grid, block, 0, s>>>(in, out, os, flag); break;
    case J2K_SAMPLE_U32: shift_kernel<uint32_t, D><<<grid, block, 0, s>>>(in, out, os, flag); break;
    case J2K_SAMPLE_I32: shift_kernel<int32_t, D><<<grid, block, 0, s>>>(in, out, os, flag); break;
    default: throw Error(ErrorCode::Internal, "cuda shift_mct: not a sample type");
  }
  cuda_check(cudaGetLastError(), "shift kernel launch");
}

}  // namespace

void shift_mct(const TileSamples& tile, Wavelet wavelet, const std::vector<Plane>& out,
               int* d_out_of_range, cudaStream_t stream) {
  const bool rev = wavelet == Wavelet::Reversible53;
  for (size_t c = 0; c < tile.in.size(); ++c) {
    if (tile.in[c].width == 0 || tile.in[c].height == 0) continue;
    if (!tile.fused.empty() && tile.fused[c]) continue;  // its DWT reads the samples
    if (rev) shift<int>(tile, c, out[c], d_out_of_range, stream);
    else shift<float>(tile, c, out[c], d_out_of_range, stream);
  }
  // Components 0..2 fused together: their DWTs apply the MCT as they read (sample_source.cuh).
  if (!tile.mct || out[0].width == 0 || out[0].height == 0 || (!tile.fused.empty() && tile.fused[0])) return;
  const dim3 grid = grid_for(out[0].width, out[0].height), block(kBlockX, kBlockY);
  const long long stride = out[0].row_stride / 4;
  const int w = static_cast<int>(out[0].width), h = static_cast<int>(out[0].height);
  if (rev) rct_kernel<<<grid, block, 0, stream>>>(ptr<int>(out[0]), ptr<int>(out[1]), ptr<int>(out[2]), stride, w, h);
  else ict_kernel<<<grid, block, 0, stream>>>(ptr<float>(out[0]), ptr<float>(out[1]), ptr<float>(out[2]), stride, w, h);
  cuda_check(cudaGetLastError(), "MCT kernel launch");
}

}  // namespace j2k::cuda
