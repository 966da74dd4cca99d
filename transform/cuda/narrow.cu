// SPDX-License-Identifier: BSD-2-Clause
#include "transform/cuda/narrow.hpp"

#include <algorithm>
#include <cstdint>

#include "device/cuda/cuda_check.hpp"

namespace j2k::cuda {
namespace {

constexpr int kBlockX = 128, kBlockY = 2;

// One coefficient a thread; rows beyond the grid loop.
__global__ void narrow_kernel(const char* src, long long src_stride, char* dst, long long dst_stride, int width,
                              long long height) {
  const int x = blockIdx.x * kBlockX + threadIdx.x;
  if (x >= width) return;
  for (long long y = blockIdx.y * kBlockY + threadIdx.y; y < height; y += gridDim.y * kBlockY) {
    const int32_t v = reinterpret_cast<const int32_t*>(src + y * src_stride)[x];
    reinterpret_cast<int16_t*>(dst + y * dst_stride)[x] = static_cast<int16_t>(v);
  }
}

}  // namespace

void narrow(const Plane& src, const Plane& dst, cudaStream_t stream) {
  if (src.width == 0 || src.height == 0) return;
  const auto gy = static_cast<unsigned>(std::min<int64_t>((src.height + kBlockY - 1) / kBlockY, 65535));
  const dim3 grid(static_cast<unsigned>((src.width + kBlockX - 1) / kBlockX), gy), block(kBlockX, kBlockY);
  narrow_kernel<<<grid, block, 0, stream>>>(static_cast<const char*>(src.base) + src.offset, src.row_stride,
                                            static_cast<char*>(dst.base) + dst.offset, dst.row_stride,
                                            static_cast<int>(src.width), src.height);
  cuda_check(cudaGetLastError(), "narrow kernel launch");
}

}  // namespace j2k::cuda
