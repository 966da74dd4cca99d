// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/gpu/gpu_ht_encode_batch.hpp"

#include <string>

#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "common/error.hpp"
#if J2KFRONT_HAVE_CUDA
#include "codec/tier1/gpu/cuda/ht_block_encoder.hpp"
#endif
#if J2KFRONT_HAVE_OPENCL
#include "codec/tier1/gpu/opencl/ht_block_encoder.hpp"
#endif

namespace j2k::codec {

std::unique_ptr<GpuHtEncodeBatch> make_gpu_ht_encode_batch(const BackendOptions& options) {
#if J2KFRONT_HAVE_CUDA
  if (options.backend == Backend::Cuda) return std::make_unique<cuda::HtEncodeBatch>();
#endif
#if J2KFRONT_HAVE_OPENCL
  if (options.backend == Backend::OpenCL) return std::make_unique<opencl::HtEncodeBatch>();
#endif
  throw Error(ErrorCode::BackendUnavailable,
              std::string("HT block coding on the GPU: no ") + backend_name(options.backend) + " batch in this build");
}

size_t gpu_ht_output_capacity(int width, int height) { return ht::cleanup_output_capacity(width, height); }

void check_gpu_ht_block(const void* d_data, ptrdiff_t stride, int width, int height, int fraction_bits, int cleanup_plane) {
  const std::string what = "GPU HT encoder: a block of " + std::to_string(width) + " x " + std::to_string(height);
  if (width < 1 || height < 1 || width > 1024 || height > 1024 || width * height > 4096)
    throw Error(ErrorCode::InvalidArgument, what + " (1 to 1024 samples each way, at most 4096)");
  if (d_data == nullptr || stride < width)
    throw Error(ErrorCode::InvalidArgument, what + ": no coefficients, or rows " + std::to_string(stride) + " apart (at least its width)");
  if (cleanup_plane < 0 || cleanup_plane > 30)
    throw Error(ErrorCode::InvalidArgument, what + ": a cleanup pass at bit plane " + std::to_string(cleanup_plane) + " (0 to 30)");
  if (fraction_bits < 0 || fraction_bits > 30 || fraction_bits + cleanup_plane > 31)
    throw Error(ErrorCode::InvalidArgument, what + ": " + std::to_string(fraction_bits) + " fraction bits at plane " +
                                                std::to_string(cleanup_plane) + " (0 to 30, their sum at most 31)");
}

}  // namespace j2k::codec
