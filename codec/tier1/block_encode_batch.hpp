// SPDX-License-Identifier: BSD-2-Clause
// Tier-1 of a whole image at once on a device (issue 46): the code-blocks' coefficients read
// where the front stage left them (the plan's planes in device memory), coded there, and only
// the coded bytes brought back. The encoder asks the factory once per shape; where it gets a
// batch, the plan keeps its coefficients in the memory the batch reads (reads()) and every
// block goes through encode(); where it gets none (nullptr), the blocks go one by one through
// the BlockCoder on the CPU's threads, as before. The factory is the only place that weighs the
// backend (ARCHITECTURE.md: nothing above transform/ and codec/tier1/gpu/ branches on it).
//
//   std::unique_ptr<BlockEncodeBatch> batch = make_block_encode_batch(params, backend);  // once
//   if (batch && batch->reads(J2K_MEMORY_DEVICE)) ... the plan's output memory is DEVICE
//   std::vector<CodedBlock> coded = batch->encode(blocks, reversible);   // per image
//
// Today, on CUDA: EBCOT (Part 1) with any target and mode switches (every pass, with the
// distortion estimates rate control needs: each block as encode_block() codes it on the CPU, bit
// for bit, gpu/gpu_ebcot_encode_batch.hpp), and HT: with no rate or PSNR target every block's
// cleanup pass at plane 0, no SigProp or MagRef, no distortion estimates (ht::encode_block()'s
// bytes, `bitplanes` and `magnitude_bitplanes`); with one, HT rate control's two steps on the
// device (model_ht_planes, encode_ht_sets: rate/ht_planes.hpp's choice then runs on the host
// from their few figures a block and the sets' bytes). On OpenCL: HT likewise, the targets'
// steps one work-item a block where the device has doubles (gpu/opencl/ht_image_encoder: the
// OpenCL queue then keeps the plan's DEVICE coefficients in one cl_mem, which BatchBlock
// names by base and offset). The 5/3's int32 coefficients are read
// in place; the 9/7's float ones are quantised first into a device scratch of int32, as
// quantise_block (quant/quantiser.hpp) does, bit for bit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "codec/params/coding_params.hpp"
#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ht/plane_estimates.hpp"
#include "j2kfront/j2kfront.h"
#include "transform/backend.hpp"

namespace j2k::codec {

// One code-block where its coefficients lie: the block's first coefficient in the plane (an
// int32 for the 5/3, a float for the 9/7), rows `stride` values apart.
struct BatchBlock {
  const void* coefficients = nullptr;
  // The same place as the plane's memory and the bytes from its start, for memory that is not
  // addressed by pointers (OpenCL: `base` a cl_mem; `coefficients` then means nothing).
  const void* base = nullptr;
  size_t offset = 0;
  ptrdiff_t stride = 0;
  int width = 0, height = 0;  // 1..1024 each, width * height <= 4096
  j2k_band_type band = J2K_BAND_LL;
  // The 9/7's: the band's quantisation step and the bits kept below it (quantise_block's
  // kFractionBits); unused for the 5/3.
  double delta = 1;
  int fraction_bits = 0;
  // As BlockView has them (EBCOT's batch; the HT batch codes no pass they change): the mode
  // switches, and whether to estimate each pass's distortion.
  uint8_t modes = 0;
  bool estimate_distortion = false;
};

class BlockEncodeBatch {
 public:
  virtual ~BlockEncodeBatch() = default;
  // Whether encode() takes coefficients in `memory` (DEVICE for a GPU batch).
  virtual bool reads(j2k_memory memory) const = 0;
  // Where the blocks are coded, for the reports: "cuda" or "opencl".
  virtual const char* where() const = 0;
  // Whether encode() estimates the passes' distortion where BatchBlock::estimate_distortion
  // asks (EBCOT's batch: encode_block()'s figures bit for bit), so that the encoder can report
  // the layers' PSNR; the HT batch leaves them 0.
  virtual bool estimates_distortion() const { return false; }
  // Host memory encode() keeps for `blocks` (its page-locked copy of the output), for the
  // encoder's budget before it runs.
  virtual uint64_t host_bytes(const std::vector<BatchBlock>& blocks) const = 0;
  // Codes every block and returns them in order: EBCOT's batch every pass, as encode_block()
  // (distortions where BatchBlock::estimate_distortion asks); HT's the cleanup pass at plane 0,
  // passes, bytes and bit planes as the CPU's HT coder (distortion and energy 0). Throws
  // Error(InvalidArgument) for a 9/7 coefficient too large for its step (as the CPU path does),
  // and the batch's errors (gpu_ht_encode_batch.hpp). The blocks' bytes may stay in the
  // batch's memory (CodedBlock::external), valid until its next encode.
  virtual std::vector<CodedBlock> encode(const std::vector<BatchBlock>& blocks, bool reversible) = 0;

  // HT rate control's coding steps (rate/ht_planes.hpp) where the blocks lie, for a batch
  // where codes_ht_sets(); the others throw Error(Internal).
  virtual bool codes_ht_sets() const { return false; }
  // A device batch holds each set's worst case while it codes it (its output slot, scratch
  // and packed copy: about 90 KB for a 64 x 64 block on CUDA): the jobs of one call, so many
  // at most, bound that memory (about 0.7 GB) whatever the image's size.
  static constexpr size_t kMaxHtSetsPerCall = 8192;
  // Each block's plane model and energy: ht::estimate_planes() and ht::block_energy() of its
  // quantised indices, bit for bit.
  struct HtModel {
    std::vector<ht::PlaneEstimate> estimates;
    double energy = 0;
  };
  virtual std::vector<HtModel> model_ht_planes(const std::vector<BatchBlock>& blocks, bool reversible);
  // Codes each job (an index into `blocks`, a cleanup plane) as ht::encode_block() does with
  // estimate_distortion on: every pass, its distortion and the block's energy, bit for bit,
  // the bytes owned by each CodedBlock (the sets of several calls are kept side by side).
  // Throws as encode() does. The encoder gives at most kMaxHtSetsPerCall jobs a call.
  virtual std::vector<CodedBlock> encode_ht_sets(const std::vector<BatchBlock>& blocks,
                                                 const std::vector<std::pair<size_t, int>>& jobs, bool reversible);
};

// The batch for coding `params` on `backend` (Auto resolved as the plan resolves it), or
// nullptr where the blocks are coded one by one on the CPU: another backend, a build without
// CUDA or OpenCL, EBCOT on OpenCL, HT with a rate or PSNR target on an OpenCL device without
// doubles, or HT with a component target. Touches no device (but for that OpenCL case, which
// asks for its extensions): a missing one shows when the plan is made.
std::unique_ptr<BlockEncodeBatch> make_block_encode_batch(const CodingParams& params, const BackendOptions& backend);

}  // namespace j2k::codec
