// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/gpu/gpu_ebcot_encode_batch.hpp"

#include <string>

#include "codec/params/block_modes.hpp"
#include "common/error.hpp"
#if J2KFRONT_HAVE_CUDA
#include "codec/tier1/gpu/cuda/ebcot_block_encoder.hpp"
#endif

namespace j2k::codec {

std::unique_ptr<GpuEbcotEncodeBatch> make_gpu_ebcot_encode_batch(const BackendOptions& options) {
#if J2KFRONT_HAVE_CUDA
  if (options.backend == Backend::Cuda) return std::make_unique<cuda::EbcotEncodeBatch>();
#endif
  throw Error(ErrorCode::BackendUnavailable,
              std::string("EBCOT block coding on the GPU: no ") + backend_name(options.backend) + " batch in this build");
}

CodedBlock coded_block_of(const t1::EncodeResult& result, const t1::EncodedPass* passes, const uint8_t* bytes) {
  CodedBlock c;
  c.bitplanes = result.bitplanes;
  c.magnitude_bitplanes = result.bitplanes;
  c.energy = result.energy;
  if (result.passes == 0) return c;
  c.passes.resize(result.passes);
  for (size_t k = 0; k < c.passes.size(); ++k) {
    c.passes[k].end = passes[k].end;
    c.passes[k].distortion = passes[k].distortion;
    c.passes[k].terminated = passes[k].terminated != 0;
  }
  c.external = bytes;
  return c;
}

void check_gpu_ebcot_block(const BlockView& b) {
  const std::string what = "GPU EBCOT encoder: a block of " + std::to_string(b.width) + " x " + std::to_string(b.height);
  if (b.width < 1 || b.height < 1 || b.width > 1024 || b.height > 1024 || b.width * b.height > 4096)
    throw Error(ErrorCode::InvalidArgument, what + " (1 to 1024 samples each way, at most 4096)");
  if (b.data == nullptr || b.stride < b.width)
    throw Error(ErrorCode::InvalidArgument, what + ": no coefficients, or rows " + std::to_string(b.stride) + " apart (at least its width)");
  if (b.fraction_bits < 0 || b.fraction_bits > 30)
    throw Error(ErrorCode::InvalidArgument, what + ": " + std::to_string(b.fraction_bits) + " fraction bits (0 to 30)");
  if (b.modes & (kModeHt | kModeHtMixed))
    throw Error(ErrorCode::InvalidArgument, what + ": HT mode bits (" + std::to_string(b.modes) + ") for the EBCOT coder");
  if (b.band != J2K_BAND_LL && b.band != J2K_BAND_HL && b.band != J2K_BAND_LH && b.band != J2K_BAND_HH)
    throw Error(ErrorCode::InvalidArgument, what + ": band " + std::to_string(static_cast<int>(b.band)));
}

}  // namespace j2k::codec
