// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/gpu/gpu_block_batch.hpp"

#include <algorithm>
#include <string>

#include "codec/tier1/gpu/gpu_block_records.hpp"
#include "common/error.hpp"
#if J2KFRONT_HAVE_CUDA
#include "codec/tier1/gpu/cuda/block_decoder.hpp"
#endif
#if J2KFRONT_HAVE_OPENCL
#include "codec/tier1/gpu/opencl/block_decoder.hpp"
#endif

namespace j2k::codec {

GpuBlockBatch::GpuBlockBatch() : records_(std::make_unique<GpuBlockRecords>()) {}
GpuBlockBatch::~GpuBlockBatch() = default;

void GpuBlockBatch::clear() { records_->clear(); }
size_t GpuBlockBatch::size() const { return records_->blocks.size(); }
void GpuBlockBatch::add(const BlockCode& code, int roi, size_t plane, int64_t at, int64_t stride, float step) {
  if ((code.modes & kModeHt) && !decodes_ht())
    throw Error(ErrorCode::Internal, "GpuBlockBatch::add: an HT code-block for a batch that decodes Part 1's only");
  records_->add(code, roi, plane, at, stride, step);
}

std::vector<Plane> GpuBlockBatch::own_planes(const std::vector<size_t>& bytes, void* stream) {
  std::vector<Plane> planes(bytes.size());
  size_t total = 0;
  for (size_t p = 0; p < bytes.size(); ++p) {
    planes[p].offset = total;
    planes[p].memory = J2K_MEMORY_DEVICE;
    total += (bytes[p] + 255) / 256 * 256;
  }
  void* base = own_buffer(std::max<size_t>(total, 4), stream);
  for (Plane& p : planes) p.base = base;
  return planes;
}

std::unique_ptr<GpuBlockBatch> make_gpu_block_batch(const BackendOptions& options) {
  switch (options.backend) {
#if J2KFRONT_HAVE_CUDA
    case Backend::Cuda: return std::make_unique<cuda::BlockBatch>();
#endif
#if J2KFRONT_HAVE_OPENCL
    case Backend::OpenCL: return std::make_unique<opencl::BlockBatch>(options.device, options.opencl_tuning);
#endif
    default: break;
  }
  throw Error(ErrorCode::BackendUnavailable, std::string("Tier-1 on the GPU: no ") + backend_name(options.backend) + " batch in this build");
}

}  // namespace j2k::codec
