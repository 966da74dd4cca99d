// The CUDA DWT on device buffers: out of place (src and dst must not overlap), asynchronous
// on the caller's stream, no allocation. Same arithmetic, order and pyramid layout as the CPU
// reference (j2k::Dwt), bit for bit. Strides are in elements. Levels 0..32, any geometry.
//
//   size_t ws = j2k::cuda_dwt_workspace_bytes(Wavelet::Reversible53, tc, 5);
//   // cudaMalloc(&workspace, ws) once, reuse for every call with a geometry needing <= ws
//   j2k::cuda_dwt_forward53(d_src, w, d_dst, w, tc, 5, workspace, ws, stream);
//
// Forward variants read 8- or 16-bit unsigned samples and subtract `dc_shift` on the fly
// (the DC level shift, 1 << (precision - 1), or 0) before the transform.
// Errors throw j2k::Error: InvalidArgument for bad arguments (including a workspace that is too
// small), BackendFailure "<call>: <CUDA error>" when a CUDA call or launch fails.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tiling/geometry.hpp"

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;  // as in CUDA's driver_types.h

namespace j2k {

// Which kernels run where the geometry allows (tile-component origin a multiple of 4, the
// level-2 resolution at least 2 x 2); every choice gives the same bits.
struct CudaDwtOptions {
  // Forward 5/3: levels 1 and 2 in one kernel (dwt_fused.cuh). Off: one kernel per level, for
  // A/B measurements.
  bool fuse_levels12 = true;
  // Forward 9/7: the same fused kernel. Exact, but not faster than the per-level kernels on
  // the H100 (8192^2, 2 levels: 0.2546 against 0.2521 ms): its global loads all happen in its
  // first phase, and 2 blocks per SM leave DRAM idle through the others (bench/RESULTS.md).
  bool fuse_97 = false;
  // Inverse, both wavelets: levels 2 and 1 in one kernel (dwt_fused_inverse.cuh). Exact, but
  // slower on the H100 (5/3, 8192^2, 2 levels: 0.264 against 0.239 ms).
  bool fuse_inverse = false;
};

// Device workspace (bytes) that the forward and the inverse need for this geometry; 0 when
// at most one level is non-empty (workspace may then be null).
size_t cuda_dwt_workspace_bytes(Wavelet wavelet, const Rect& tc, int levels);

void cuda_dwt_forward53(const int32_t* src, size_t src_stride, int32_t* dst, size_t dst_stride,
                        const Rect& tc, int levels, void* workspace, size_t workspace_bytes,
                        cudaStream_t stream, const CudaDwtOptions& options = {});
void cuda_dwt_forward53(const uint8_t* src, size_t src_stride, int32_t dc_shift, int32_t* dst,
                        size_t dst_stride, const Rect& tc, int levels, void* workspace,
                        size_t workspace_bytes, cudaStream_t stream,
                        const CudaDwtOptions& options = {});
void cuda_dwt_forward53(const uint16_t* src, size_t src_stride, int32_t dc_shift, int32_t* dst,
                        size_t dst_stride, const Rect& tc, int levels, void* workspace,
                        size_t workspace_bytes, cudaStream_t stream,
                        const CudaDwtOptions& options = {});
void cuda_dwt_inverse53(const int32_t* src, size_t src_stride, int32_t* dst, size_t dst_stride,
                        const Rect& tc, int levels, void* workspace, size_t workspace_bytes,
                        cudaStream_t stream, const CudaDwtOptions& options = {});

void cuda_dwt_forward97(const float* src, size_t src_stride, float* dst, size_t dst_stride,
                        const Rect& tc, int levels, void* workspace, size_t workspace_bytes,
                        cudaStream_t stream, const CudaDwtOptions& options = {});
void cuda_dwt_forward97(const uint8_t* src, size_t src_stride, int32_t dc_shift, float* dst,
                        size_t dst_stride, const Rect& tc, int levels, void* workspace,
                        size_t workspace_bytes, cudaStream_t stream,
                        const CudaDwtOptions& options = {});
void cuda_dwt_forward97(const uint16_t* src, size_t src_stride, int32_t dc_shift, float* dst,
                        size_t dst_stride, const Rect& tc, int levels, void* workspace,
                        size_t workspace_bytes, cudaStream_t stream,
                        const CudaDwtOptions& options = {});
void cuda_dwt_inverse97(const float* src, size_t src_stride, float* dst, size_t dst_stride,
                        const Rect& tc, int levels, void* workspace, size_t workspace_bytes,
                        cudaStream_t stream, const CudaDwtOptions& options = {});

}  // namespace j2k
