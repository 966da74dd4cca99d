// SPDX-License-Identifier: BSD-2-Clause
// One thread per pixel: read the coefficient (of components 0..2 with the MCT), inverse
// RCT/ICT, add the DC offset, clamp, store at the samples' width.
#include "transform/cuda/to_samples.hpp"

#include <algorithm>
#include <climits>

#include "common/error.hpp"
#include "device/cuda/cuda_check.hpp"
#include "transform/cuda/mct.cuh"

namespace j2k::cuda {
namespace {

constexpr int kBlockX = 64, kBlockY = 4;

// A component's planes and range; `in`, `out` device pointers, strides in bytes.
struct Comp {
  const char* in;
  char* out;
  long long in_stride, out_stride;
  int offset, lo, hi;
  int type;  // j2k_sample_type of out: U8, I8, U16, I16, U32 or I32
};

__device__ __forceinline__ int sample(int v, const Comp& c) {
  const long long s = static_cast<long long>(v) + c.offset;
  return static_cast<int>(s < c.lo ? c.lo : s > c.hi ? c.hi : s);
}
// As lrintf: to nearest, ties to even; beyond int32 (or NaN) to the end it lies towards.
__device__ __forceinline__ int sample(float f, const Comp& c) {
  if (!(f <= static_cast<float>(INT_MAX))) return c.hi;
  if (f < static_cast<float>(INT_MIN)) return c.lo;
  const long long s = __float2ll_rn(f) + c.offset;
  return static_cast<int>(s < c.lo ? c.lo : s > c.hi ? c.hi : s);
}

template <class T>
__device__ __forceinline__ T load(const Comp& c, long long y, int x) {
  return reinterpret_cast<const T*>(c.in + y * c.in_stride)[x];
}
// The type is the same for every thread: the branch costs nothing next to the memory traffic.
__device__ __forceinline__ void store(const Comp& c, long long y, int x, int v) {
  char* row = c.out + y * c.out_stride;
  switch (c.type) {
    case J2K_SAMPLE_U8: reinterpret_cast<uint8_t*>(row)[x] = static_cast<uint8_t>(v); break;
    case J2K_SAMPLE_I8: reinterpret_cast<int8_t*>(row)[x] = static_cast<int8_t>(v); break;
    case J2K_SAMPLE_U16: reinterpret_cast<uint16_t*>(row)[x] = static_cast<uint16_t>(v); break;
    case J2K_SAMPLE_I16: reinterpret_cast<int16_t*>(row)[x] = static_cast<int16_t>(v); break;
    case J2K_SAMPLE_U32: reinterpret_cast<uint32_t*>(row)[x] = static_cast<uint32_t>(v); break;
    default: reinterpret_cast<int32_t*>(row)[x] = v; break;
  }
}

// N = 1: one component; N = 3: components 0..2 through the inverse MCT. Rows beyond the
// grid loop.
template <class T, int N>
__global__ void to_samples_kernel(Comp c0, Comp c1, Comp c2, int width, long long height) {
  const int x = blockIdx.x * kBlockX + threadIdx.x;
  if (x >= width) return;
  for (long long y = blockIdx.y * kBlockY + threadIdx.y; y < height; y += gridDim.y * kBlockY) {
    if constexpr (N == 1) {
      store(c0, y, x, sample(load<T>(c0, y, x), c0));
    } else {
      T r, g, b;
      cudamct::inverse(load<T>(c0, y, x), load<T>(c1, y, x), load<T>(c2, y, x), r, g, b);
      store(c0, y, x, sample(r, c0));
      store(c1, y, x, sample(g, c1));
      store(c2, y, x, sample(b, c2));
    }
  }
}

Comp comp(const std::vector<Plane>& in, const TileOutput& out, size_t c) {
  return Comp{static_cast<const char*>(in[c].base) + in[c].offset, static_cast<char*>(out.out[c].base) + out.out[c].offset,
              in[c].row_stride, out.out[c].row_stride, out.offset[c], out.lo[c], out.hi[c], out.out[c].type};
}

template <class T, int N>
void launch(const std::vector<Plane>& in, const TileOutput& out, size_t c, cudaStream_t s) {
  const Plane& o = out.out[c];
  if (o.width == 0 || o.height == 0) return;
  const auto gy = static_cast<unsigned>(std::min<int64_t>((o.height + kBlockY - 1) / kBlockY, 65535));
  const dim3 grid(static_cast<unsigned>((o.width + kBlockX - 1) / kBlockX), gy), block(kBlockX, kBlockY);
  const Comp a = comp(in, out, c), b = N == 3 ? comp(in, out, c + 1) : a, d = N == 3 ? comp(in, out, c + 2) : a;
  to_samples_kernel<T, N><<<grid, block, 0, s>>>(a, b, d, static_cast<int>(o.width), o.height);
  cuda_check(cudaGetLastError(), "to_samples kernel launch");
}

template <int N>
void launch_any(const std::vector<Plane>& in, const TileOutput& out, size_t c, cudaStream_t s) {
  if (in[c].type == J2K_SAMPLE_F32) launch<float, N>(in, out, c, s);
  else launch<int32_t, N>(in, out, c, s);
}

}  // namespace

void to_samples(const std::vector<Plane>& in, const TileOutput& out, cudaStream_t stream) {
  const size_t n = out.out.size();
  const bool mct = check_to_samples(in, out);
  if (mct) launch_any<3>(in, out, 0, stream);
  for (size_t c = mct ? 3 : 0; c < n; ++c) launch_any<1>(in, out, c, stream);
}

}  // namespace j2k::cuda
