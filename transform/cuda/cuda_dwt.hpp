// SPDX-License-Identifier: BSD-2-Clause
// The CUDA DWT on device buffers: out of place (src and dst must not overlap), asynchronous
// on the caller's stream, no allocation. Same arithmetic, order and pyramid layout as the CPU
// reference (j2k::Dwt), bit for bit. Levels 0..32, any geometry. The C interface's
// j2k_cuda_dwt (api/cuda_dwt_api.cpp) is this call.
//
//   size_t ws = j2k::cuda_dwt_workspace_bytes(Wavelet::Reversible53, tc, 5);
//   // cudaMalloc(&workspace, ws) once, reuse for every call with a geometry needing <= ws
//   j2k::cuda_dwt(J2K_FORWARD, Wavelet::Reversible53, {d_src, J2K_SAMPLE_U8, src_pitch}, 128,
//                 {d_dst, J2K_SAMPLE_I32, dst_pitch}, tc, 5, workspace, ws, stream);
//
// Types: the forward reads 8- or 16-bit unsigned samples (U8, U16) and subtracts `dc_shift`
// on the fly (the DC level shift, 1 << (precision - 1), or 0), or I32 (5/3) / F32 (9/7)
// values with dc_shift 0; the inverse reads I32 / F32 coefficients, dc_shift 0. dst holds I32
// for the 5/3 and F32 for the 9/7.
// Errors throw j2k::Error: InvalidArgument for bad arguments, naming the problem (types,
// strides, null or misaligned pointers, overlap, a workspace that is too small), checked
// before any CUDA call; BackendUnavailable when there is no usable device; BackendFailure
// "<call>: <CUDA error>" when a CUDA call or launch fails.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "j2kfront/j2kfront.h"
#include "transform/common/constants.hpp"
#include "transform/device_dwt.hpp"  // DevicePlane
#include "tiling/geometry.hpp"

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;  // as in CUDA's driver_types.h

namespace j2k {

// Which kernels run where the geometry allows (tile-component origin a multiple of 4, the
// level-2 resolution at least 2 x 2), every choice giving the same bits; and the inverse 9/7's
// scaling.
struct CudaDwtOptions {
  // Forward 5/3: levels 1 and 2 in one kernel (dwt_fused.cuh). Off: one kernel per level, for
  // A/B measurements.
  bool fuse_levels12 = true;
  // Forward 9/7: the same fused kernel. Exact, but not faster than the per-level kernels on
  // the H100 (8192^2, 2 levels: 0.2546 against 0.2521 ms): its global loads all happen in its
  // first phase, and 2 blocks per SM leave DRAM idle through the others (docs/maintainers/experiments.md).
  bool fuse_97 = false;
  // Inverse, both wavelets: levels 2 and 1 in one kernel (dwt_fused_inverse.cuh). Exact, but
  // slower on the H100 (5/3, 8192^2, 2 levels: 0.264 against 0.239 ms).
  bool fuse_inverse = false;
  // How the inverse 9/7 scales (transform/common/constants.hpp): the standard's, or
  // OpenJPEG's decoder's (its images bit for bit); any other is refused. Unlike the choices
  // above, this one changes the result.
  constants::Inverse97Scale inverse97 = constants::kInverse97Standard;
};

// Device workspace (bytes) that the forward and the inverse need for this geometry; 0 when
// at most one level is non-empty (workspace may then be null).
size_t cuda_dwt_workspace_bytes(Wavelet wavelet, const Rect& tc, int levels);

void cuda_dwt(j2k_direction direction, Wavelet wavelet, const DevicePlane& src,
              int32_t dc_shift, const DevicePlane& dst, const Rect& tc, int levels,
              void* workspace, size_t workspace_bytes, cudaStream_t stream,
              const CudaDwtOptions& options = {});

// Unsigned 8/16-bit samples in device memory, element (x, y) of plane i at
// (char*)data[i] + y * row_stride + x * pixel_stride: interleaved components are planes of one
// buffer, pixel_stride apart. The planes share type and strides.
struct DeviceSamples {
  const void* data[3] = {nullptr, nullptr, nullptr};
  j2k_sample_type type = J2K_SAMPLE_U8;
  ptrdiff_t row_stride = 0, pixel_stride = 0;  // bytes, multiples of the sample size
  int32_t dc[3] = {0, 0, 0};                   // each plane's DC offset
  int component = -1;  // -1: plane 0 alone; 0..2: that component of planes 0..2's RCT / ICT
};

// The forward DWT of samples as the front stage's first read takes them (the pipeline's
// fused path): each less its DC offset and, for `component` 0..2, through the RCT (5/3) or
// ICT (9/7). The same coefficients, bit for bit, as the shift and MCT passes followed by
// cuda_dwt. For samples that need no range check (unsigned, full precision).
void cuda_dwt_from_samples(Wavelet wavelet, const DeviceSamples& src, const DevicePlane& dst,
                           const Rect& tc, int levels, void* workspace, size_t workspace_bytes,
                           cudaStream_t stream, const CudaDwtOptions& options = {});

// The same transform for samples that arrive in row order (a tile uploaded in row stripes):
// advance(ready) launches what the first `ready` rows of samples allow of the first level
// (levels 1 and 2 where they run fused), finish() the rest; each appends the regions of dst
// (element coordinates) whose coefficients became final, so that they can go home while the
// others are computed. Arguments are checked by the constructor; at least one non-empty level.
class CudaForwardByRows {
 public:
  CudaForwardByRows(Wavelet wavelet, const DeviceSamples& src, const DevicePlane& dst, const Rect& tc,
                    int levels, void* workspace, size_t workspace_bytes, const CudaDwtOptions& options);
  void advance(int64_t ready, cudaStream_t stream, std::vector<Rect>& final);
  void finish(cudaStream_t stream, std::vector<Rect>& final);

 private:
  template <class F>
  void visit(F&& f) const;  // f(the transform's launches), rebuilt from the members
  Wavelet wavelet_;
  DeviceSamples src_;
  DevicePlane dst_;
  Rect tc_;
  int levels_;
  void* ws_;
  CudaDwtOptions options_;
  int done_ = 0;  // units of the first level launched
};

}  // namespace j2k
