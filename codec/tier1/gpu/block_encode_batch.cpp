// SPDX-License-Identifier: BSD-2-Clause
// block_encode_batch.hpp's factory: here, with the batches, so that the backend is weighed in
// codec/tier1/gpu/ alone.
#include "codec/tier1/block_encode_batch.hpp"

#if J2KFRONT_HAVE_CUDA
#include "codec/tier1/gpu/cuda/ebcot_image_encoder.hpp"
#include "codec/tier1/gpu/cuda/ht_image_encoder.hpp"
#endif
#if J2KFRONT_HAVE_OPENCL
#include "codec/tier1/gpu/opencl/ht_image_encoder.hpp"
#endif

namespace j2k::codec {

std::unique_ptr<BlockEncodeBatch> make_block_encode_batch(const CodingParams& params, const BackendOptions& backend) {
  // HT: only the cleanup pass at plane 0 and no distortion, so no target. EBCOT: every pass
  // and its distortion, encode_block()'s bit for bit, so any target (rate control on the host).
  const bool ht = params.block_coding == BlockCoding::HighThroughput;
  if (ht && (!params.layer_bytes.empty() || !params.layer_psnr.empty() || params.component_bytes > 0)) return nullptr;
  // Auto as the plan's queue resolves it (make_queue).
  const Backend b = backend.backend == Backend::Auto ? resolve_backend(Backend::Auto, Job::Transform) : backend.backend;
#if J2KFRONT_HAVE_CUDA
  if (b == Backend::Cuda) {
    if (ht) return std::make_unique<cuda::HtImageEncoder>(backend.device, params.threads);
    return std::make_unique<cuda::EbcotImageEncoder>(backend.device, params.threads);
  }
#endif
#if J2KFRONT_HAVE_OPENCL
  // OpenCL: HT only (no EBCOT encoder in OpenCL C yet).
  if (b == Backend::OpenCL && ht) return std::make_unique<opencl::HtImageEncoder>(backend.device, params.threads);
#endif
  (void)b;
  return nullptr;
}

}  // namespace j2k::codec
