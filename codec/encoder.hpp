// SPDX-License-Identifier: BSD-2-Clause
// The whole encoder for one image shape, the decoder's mirror image: the front stage's plan
// (any backend) leaves the coefficients where Tier-1 reads them (host memory, or the
// device's for a GPU batch: no copy, no file); the block coder (tier1/block_coder.hpp) codes
// every code-block, in parallel, the 9/7's quantised first (quant/); the guard bits follow
// from the blocks' bit planes; rate control (rate/) shares the passes out among the quality
// layers; Tier-2 and the markers (codestream/) write the codestream, and a JP2 file around it
// when asked. Everything the standard or the codec refuses is refused at construction, before
// any work; encode() then allocates only what Tier-1 and Tier-2 produce.
// What runs where: the front stage on the plan's backend; Tier-1 on the CPU's threads, except
// HT with no rate or PSNR target on the cuda backend (a CUDA build), whose blocks are coded on
// the GPU where the plan left them (tier1/block_encode_batch.hpp: the 5/3's int32 read in
// place, the 9/7's quantised there first) and only the coded bytes come back; rate control,
// Tier-2 and the file on the host. The codestream is the same byte for byte either way.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "codec/codestream/jp2_boxes.hpp"
#include "codec/codestream/tile_layout.hpp"
#include "codec/params/coding_params.hpp"
#include "codec/params/tile_input.hpp"
#include "codec/profiles.hpp"
#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/block_encode_batch.hpp"
#include "common/memory_budget.hpp"
#include "j2kfront/j2kfront.h"
#include "pipeline/plan.hpp"

namespace j2k::codec {

struct EncoderSettings {
  PlanSettings plan;     // wavelet, levels, MCT, tiles, backend, threads
  CodingParams coding;   // reversible, levels and mct are set from `plan` and the shape
  // Per layer, the compression ratio (samples' bytes at their precision / file bytes); <= 1:
  // every pass. Turned into coding.layer_bytes for the shape. Empty: none.
  std::vector<double> layer_rates;
  FileFormat format = FileFormat::Codestream;
  // A profile the codestream keeps to (profiles.hpp): it sets what it fixes in `plan` and
  // `coding`, and caps the byte targets.
  ProfileRequest profile;
  // The last component is an alpha channel: a JP2 file says so (cdef).
  bool last_is_alpha = false;
  // A JP2 file's ICC profile (colr method 2; empty: the enumerated colour space), capture
  // resolution (res/resc) and the boxes it carries after its JP2 Header box (XML, UUID), as
  // Jp2Info has them; a bare codestream has no place for any of them.
  std::vector<uint8_t> icc;
  Jp2Resolution capture;
  std::vector<Jp2Box> boxes;
  // Host memory the encoder may take: the front stage's coefficients and buffers, every
  // code-block's and precinct's records, Tier-1's output, Tier-2's packets and the file. Each
  // is counted before it is made (the layout and the plan at construction, the rest in
  // encode()); an image or settings that need more are refused (OutOfMemory) naming what for.
  // 0: no limit.
  uint64_t max_bytes = 0;
  // For tests: makes the Tier-1 batch that replaces make_block_encode_batch()'s choice (e.g.
  // the host emulation of the GPU's, tier1/gpu/host_ht_image_encoder.hpp); empty: the factory's.
  std::function<std::unique_ptr<BlockEncodeBatch>()> make_tier1_batch;
};

// params.layer_bytes from compression ratios (<= 1: every pass) of `raw_bytes` bytes of samples.
void set_layer_bytes(CodingParams& params, const std::vector<double>& rates, double raw_bytes);

struct EncodeReport {
  double front_ms = 0, tier1_ms = 0, rate_ms = 0, tier2_ms = 0;
  std::vector<double> layer_psnr;  // estimated, per layer (NaN: the 9/7 coded on a device, none estimated)
  const char* tier1_on = "cpu";    // where the blocks were coded: "cpu", or a batch's device ("cuda")
};

class Encoder {
 public:
  // Throws Error (InvalidArgument, UnsupportedInput) naming the first problem.
  Encoder(const EncoderSettings& settings, const j2k_image_view& shape);
  // The file's bytes, valid until the next encode(). `image` has the shape's geometry and types.
  const std::vector<uint8_t>& encode(const j2k_image_view& image);
  const std::vector<uint8_t>& bytes() const { return bytes_; }  // the last encode()'s
  const EncodeReport& report() const { return report_; }
  const Plan& plan() const { return *plan_; }

 private:
  EncoderSettings settings_;
  std::unique_ptr<MemoryBudget> budget_ = std::make_unique<MemoryBudget>(settings_.max_bytes);
  Reservation held_{budget_.get()};    // what the encoder keeps: the plan, the layout, records
  Reservation output_{budget_.get()};  // the last encode()'s bytes
  std::unique_ptr<Plan> plan_;
  StreamInfo info_;
  std::vector<std::vector<TileComponentInput>> tiles_;
  TileLayout layout_;  // every code-block's place: fixed by the shape and the parameters
  std::unique_ptr<BlockCoder> coder_;
  std::unique_ptr<BlockEncodeBatch> batch_;  // where the blocks are coded at once (a device's), or none
  std::vector<uint8_t> bytes_;
  EncodeReport report_;
  uint64_t blocks_ = 0;  // layout_'s
  // The bytes each encode() takes a code-block for its records (Tier-1's, Tier-2's, rate
  // control's), before their vectors.
  static uint64_t block_record_bytes();
};

}  // namespace j2k::codec
