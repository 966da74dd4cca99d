// SPDX-License-Identifier: BSD-2-Clause
// block_encode_batch.hpp's factory: here, with the batches, so that the backend is weighed in
// codec/tier1/gpu/ alone.
#include "codec/tier1/block_encode_batch.hpp"

#include <string>

#include "common/error.hpp"

#if J2KFRONT_HAVE_CUDA
#include "codec/tier1/gpu/cuda/ebcot_image_encoder.hpp"
#include "codec/tier1/gpu/cuda/ht_image_encoder.hpp"
#endif
#if J2KFRONT_HAVE_OPENCL
#include "codec/tier1/gpu/opencl/ht_block_encoder.hpp"
#include "codec/tier1/gpu/opencl/ht_image_encoder.hpp"
#endif

namespace j2k::codec {

std::vector<BlockEncodeBatch::HtModel> BlockEncodeBatch::model_ht_planes(const std::vector<BatchBlock>&, bool) {
  throw Error(ErrorCode::Internal, std::string("the Tier-1 batch on ") + where() + " has no HT rate control");
}
std::vector<CodedBlock> BlockEncodeBatch::encode_ht_sets(const std::vector<BatchBlock>&, const std::vector<std::pair<size_t, int>>&,
                                                         bool) {
  throw Error(ErrorCode::Internal, std::string("the Tier-1 batch on ") + where() + " has no HT rate control");
}

std::unique_ptr<BlockEncodeBatch> make_block_encode_batch(const CodingParams& params, const BackendOptions& backend) {
  // HT: on CUDA or OpenCL with or without a rate or PSNR target (its rate control's coding
  // steps there). EBCOT: every pass and its distortion, encode_block()'s bit for bit, so
  // any target (rate control on the host).
  const bool ht = params.block_coding == BlockCoding::HighThroughput;
  const bool ht_targets = ht && (!params.layer_bytes.empty() || !params.layer_psnr.empty());
  if (ht && params.component_bytes > 0) return nullptr;
  // Auto as the plan's queue resolves it (make_queue).
  const Backend b = backend.backend == Backend::Auto ? resolve_backend(Backend::Auto, Job::Transform) : backend.backend;
#if J2KFRONT_HAVE_CUDA
  if (b == Backend::Cuda) {
    if (ht) return std::make_unique<cuda::HtImageEncoder>(backend.device, params.threads, ht_targets);
    return std::make_unique<cuda::EbcotImageEncoder>(backend.device, params.threads);
  }
#endif
#if J2KFRONT_HAVE_OPENCL
  // OpenCL: HT only (no EBCOT encoder in OpenCL C yet); with a target only on a device with
  // doubles, which the sets' distortions need (else Tier-1 on the CPU: the one place the
  // factory asks the device, and only then).
  if (b == Backend::OpenCL && ht && (!ht_targets || opencl::device_has_doubles(backend.device)))
    return std::make_unique<opencl::HtImageEncoder>(backend.device, params.threads, ht_targets);
#endif
  (void)b;
  (void)ht_targets;
  return nullptr;
}

}  // namespace j2k::codec
