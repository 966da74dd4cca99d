// SPDX-License-Identifier: BSD-2-Clause
// HT cleanup passes of code-blocks on an OpenCL device, one code-block a work-item
// (ht_block_encoder.cl), each block's coefficients read where they are (for rate control,
// whole HT sets with their figures, and the plane model): the GpuHtEncodeBatch of
// the OpenCL backend (gpu_ht_encode_batch.hpp says how an encoder uses it). Blocks come by
// add_at(): a cl_mem and the block's first coefficient in bytes from its start (add() with a
// pointer is refused: OpenCL buffers have no addresses); the stream is a cl_command_queue
// (in order) of the device's context (ocl::context_for), which every buffer must share.
//
// As the CUDA batch: the records, an output slot of each block's worst case
// (cleanup_output_capacity), a scratch (cleanup_scratch_bytes a block) and the results, in
// device buffers grown to the largest batch and kept. The segments are then packed end to end
// on the device (a one-group scan of their sizes, then a copy kernel), and what comes back is
// the results, then, once wait() knows their total, exactly the packed bytes: the slots are
// many times the coded bytes.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "codec/tier1/block_encode_batch.hpp"
#include "codec/tier1/gpu/gpu_ht_encode_batch.hpp"

namespace j2k::codec::opencl {

// Whether the OpenCL device `device` (BackendOptions::device, ocl::select_device) has doubles
// (cl_khr_fp64), which the 9/7's quantisation and HT rate control's sets and model need; false
// where there is no such device, or no OpenCL.
bool device_has_doubles(int device);

class HtEncodeBatch final : public GpuHtEncodeBatch {
 public:
  HtEncodeBatch();
  ~HtEncodeBatch() override;

  void clear() override;
  // Refused (Error(InvalidArgument)): blocks lie in cl_mem buffers, added by add_at().
  size_t add(const int32_t* d_data, ptrdiff_t stride, int width, int height, j2k_band_type band, int fraction_bits,
             int cleanup_plane) override;
  // `d_base` a cl_mem; `offset` a multiple of 4. Up to 255 buffers a batch.
  size_t add_at(const void* d_base, size_t offset, ptrdiff_t stride, int width, int height, j2k_band_type band,
                int fraction_bits, int cleanup_plane) override;
  // A block coded as HT rate control codes it (ht::encode_block with estimate_distortion):
  // the cleanup pass, then above plane 0 SigProp and MagRef (ht_block_encoder.cl's
  // finish_sets, one work-item a block), each pass's distortion and the block's energy, bit
  // for bit the CPU's; `reversible` and `causal` as BlockView has them. Needs doubles
  // (cl_khr_fp64): encode() throws Error(BackendUnavailable) without.
  size_t add_set_at(const void* d_base, size_t offset, ptrdiff_t stride, int width, int height, j2k_band_type band,
                    int fraction_bits, int cleanup_plane, bool reversible, bool causal);
  size_t size() const override;
  void encode(void* queue) override;
  void wait() override;
  CodedBlock coded(size_t i) const override;
  CodedBlock coded_in_place(size_t i) const override;
  const uint8_t* bytes(size_t i, size_t& size) const override;

  // The 9/7's quantisation (batch_quantise.hpp's arithmetic, ht_block_encoder.cl's
  // quantise_blocks) on `queue`, for ht_image_encoder: each job's width x height floats at
  // `src` (floats from its start, rows `stride` apart) into `dst` int32 packed (rows `width`
  // apart), `scale` 2^fraction_bits / delta; `too_large` (a cl_mem of one uint, cleared first
  // by the caller) set where a magnitude reaches 2^31 steps. Throws Error(BackendUnavailable)
  // for a device without doubles (cl_khr_fp64).
  struct QuantiseJob {
    uint64_t src;
    int64_t stride;
    uint64_t dst;
    double scale;
    int32_t width, height;
  };
  void quantise(const std::vector<QuantiseJob>& jobs, const void* in, const void* out, const void* too_large, void* queue);

  // HT rate control's plane model (ht::estimate_planes and ht::block_energy, bit for bit) of
  // blocks of int32 indices, `offset` bytes into the cl_mem `base`, rows `stride` apart, on
  // `queue` (one work-item a block), waited for. Needs doubles, as add_set_at.
  struct ModelBlock {
    const void* base = nullptr;
    size_t offset = 0;
    ptrdiff_t stride = 0;
    int width = 0, height = 0, fraction_bits = 0;
    bool reversible = true;
  };
  std::vector<BlockEncodeBatch::HtModel> model(const std::vector<ModelBlock>& blocks, void* queue);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k::codec::opencl
