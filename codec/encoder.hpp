// SPDX-License-Identifier: BSD-2-Clause
// The whole encoder for one image shape, the decoder's mirror image: the front stage's plan
// (any backend) leaves the coefficients where Tier-1 reads them (host memory, or the
// device's for a GPU batch: no copy, no file); the block coder (tier1/block_coder.hpp) codes
// every code-block, in parallel, the 9/7's quantised first (quant/); the guard bits follow
// from the blocks' bit planes; rate control (rate/) shares the passes out among the quality
// layers; Tier-2 and the markers (codestream/) write the codestream, and a JP2 file around it
// when asked. Everything the standard or the codec refuses is refused at construction, before
// any work; encode() then allocates only what Tier-1 and Tier-2 produce.
// By stripes (EncoderSettings::front_by_stripes, an image of one tile on the CPU): no plan;
// a row front stage (pipeline/row_front_stage.hpp) makes the finest DWT level a row of
// code-blocks at a time, whose blocks Tier-1 codes while they are in cache, and the coarser
// levels in planes of a quarter of the image's size: the same bytes as the plan's planes.
// By rows of tiles (EncoderSettings::by_tile_rows, encode_rows()): no plan of the whole image;
// each row of tiles is asked of a source, transformed by a plan of its own (tiles keep their
// canvas coordinates, so their coefficients are the whole image's), its blocks coded and the
// plan freed before the next row; the coded passes of every block (compressed data) wait for
// rate control and Tier-2, which then stream the file to a sink: the same bytes as encode().
// What runs where: the front stage on the plan's backend; Tier-1 on the CPU's threads, except
// HT with no rate or PSNR target on the cuda backend (a CUDA build), whose blocks are coded on
// the GPU where the plan left them (tier1/block_encode_batch.hpp: the 5/3's int32 read in
// place, the 9/7's quantised there first) and only the coded bytes come back; rate control,
// Tier-2 and the file on the host. The codestream is the same byte for byte either way.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codec/codestream/assembler.hpp"
#include "codec/device_turns.hpp"
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
#include "pipeline/row_front_stage.hpp"
#include "tiling/canvas.hpp"

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
  // A JP2 file's ICC profile (colr method 2; empty: the enumerated colour space), capture and
  // default display resolutions (res/resc, res/resd) and the boxes it carries after its JP2
  // Header box (XML, UUID), as Jp2Info has them; a bare codestream has no place for any of them.
  std::vector<uint8_t> icc;
  Jp2Resolution capture, display;
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
  // The image comes a row of tiles at a time (encode_rows(), not encode()): memory holds one
  // row's plan and coefficients, and every block's coded passes, never the whole image's
  // coefficients. Not with HT and a rate or PSNR target, whose plane choice codes the blocks
  // from their coefficients after every block's estimates (rate/ht_planes.hpp).
  bool by_tile_rows = false;
  // Where it applies (the CPU backend, an image of one tile,
  // components of one size and level count, Tier-1 on the CPU, not by rows of tiles, not HT with a rate or PSNR target, whose
  // plane choice codes the blocks again from their coefficients), the front stage makes the
  // finest DWT level a row of code-blocks at a time and Tier-1 codes each row's blocks right
  // after (pipeline/row_front_stage.hpp): the level's coefficients never fill whole-image
  // planes. false: the plan's whole planes, as every other image. The same codestream either
  // way (tests compare the two).
  bool front_by_stripes = true;
};

// params.layer_bytes from compression ratios (<= 1: every pass) of `raw_bytes` bytes of samples.
void set_layer_bytes(CodingParams& params, const std::vector<double>& rates, double raw_bytes);

struct EncodeReport {
  double front_ms = 0, tier1_ms = 0, rate_ms = 0, tier2_ms = 0;
  std::vector<double> layer_psnr;  // estimated, per layer (NaN: the 9/7 coded by a device batch that estimates none, HT's without a target)
  const char* tier1_on = "cpu";    // where the blocks were coded: "cpu", or a batch's device ("cuda")
  uint64_t bytes = 0;              // the file's
  int tile_rows = 0;               // the rows of tiles encode_rows() took the image in; 0: encode(), whole
  // When each stage began (by rows: first began), ms on the steady clock (clock_ms()), for
  // timelines of frames in flight; `lane`: FrameEncoder's encoder that coded the frame.
  double front_at = 0, tier1_at = 0, rate_at = 0, tier2_at = 0;
  int lane = 0;
};

// Milliseconds on the process's steady clock (an arbitrary origin), for EncodeReport's *_at.
double clock_ms(std::chrono::steady_clock::time_point t);

// What encode_rows() asks for: the view of canvas rows [y0, y0 + rows) of the image (every
// component's rows there, B-12), with the shape's x0, width and components' formats; its
// samples must stay valid until the next call or encode_rows()'s return.
using RowSource = std::function<j2k_image_view(uint32_t y0, uint32_t rows)>;

// The front stage as the encoder runs it: its plan's, or by rows a row's, with the whole
// image's tiles.
struct FrontInfo {
  Backend backend = Backend::Cpu;
  std::string description;
  bool mct = false;
  int64_t tiles_x = 0, tiles_y = 0;
  size_t tile_components = 0;
  j2k_sample_type coefficient_type = J2K_SAMPLE_I32;
  int streams = 1;
};

struct BandSteps;  // each component's band steps and weights (encoder.cpp)

class Encoder {
 public:
  // Throws Error (InvalidArgument, UnsupportedInput) naming the first problem. By rows, the
  // shape's samples are not read (its data may be null), and the tallest row's plan is made
  // (and freed) to check that it fits max_bytes beside the layout and the records.
  Encoder(const EncoderSettings& settings, const j2k_image_view& shape);
  // The file's bytes, valid until the next encode(). `image` has the shape's geometry and types.
  const std::vector<uint8_t>& encode(const j2k_image_view& image);
  // By rows: each row of tiles from `source`, top to bottom (every row read, transformed and
  // coded before the next is asked for), then the file through `sink`, in order, a piece at a
  // time; returns its size. What `source` or `sink` throw goes through.
  uint64_t encode_rows(const RowSource& source, const ByteSink& sink);
  const std::vector<uint8_t>& bytes() const { return bytes_; }  // the last encode()'s
  // Hands the last encode()'s file over in exchange for `storage` (whose contents are
  // dropped; its capacity serves a later file): no copy of the file.
  void swap_bytes(std::vector<uint8_t>& storage) { bytes_.swap(storage); }
  // Turns on its device shared with other encoders (FrameEncoder, device_turns.hpp): encode()
  // on a GPU backend holds one through its device stages. nullptr: none.
  void share_device(DeviceTurns* turns) { turns_ = turns; }
  const EncodeReport& report() const { return report_; }
  const FrontInfo& front() const { return front_; }
  // Whether encode() makes the finest DWT level a row of code-blocks at a time
  // (EncoderSettings::front_by_stripes, where it applies).
  bool by_stripes() const { return stripes_ != nullptr; }
  // The rows of tiles on the canvas, top to bottom.
  const std::vector<TileRow>& tile_rows() const { return rows_; }

 private:
  EncoderSettings settings_;
  std::unique_ptr<MemoryBudget> budget_ = std::make_unique<MemoryBudget>(settings_.max_bytes);
  Reservation held_{budget_.get()};    // what the encoder keeps: the plan, the layout, records
  Reservation output_{budget_.get()};  // the last encode()'s bytes
  std::unique_ptr<Plan> plan_;
  // Or the front stage a row of code-blocks at a time (EncoderSettings::front_by_stripes);
  // the layout's blocks in its order: the coarser levels' (stripe_starts_[0] of them), then
  // stripe first_stripe() + k's, stripe_order_[stripe_starts_[k] .. stripe_starts_[k + 1]);
  // the samples' offsets and ranges.
  std::unique_ptr<RowFrontStage> stripes_;
  std::vector<size_t> stripe_order_, stripe_starts_;
  int stripe_rows_ = 0;
  TileSamples stripe_samples_;
  StreamInfo info_;
  std::vector<std::vector<TileComponentInput>> tiles_;
  TileLayout layout_;  // every code-block's place: fixed by the shape and the parameters
  std::unique_ptr<BlockCoder> coder_;
  std::unique_ptr<BlockEncodeBatch> batch_;  // where the blocks are coded at once (a device's), or none
  std::vector<uint8_t> bytes_;
  EncodeReport report_;
  FrontInfo front_;
  DeviceTurns* turns_ = nullptr;
  uint64_t blocks_ = 0;  // layout_'s
  // By rows and by stripes: the shape (no samples); by rows: each row of tiles and its first
  // block in layout_ (one more: the end), and what each row's plan is made with.
  j2k_image_view shape_{};
  std::vector<j2k_component_view> shape_components_;
  std::vector<TileRow> rows_;
  std::vector<size_t> row_blocks_;
  PlanSettings row_settings_;

  // encode() through stripes_: its stripes' front stage and Tier-1 in turn, then the coarser
  // levels'.
  void encode_by_stripes(const j2k_image_view& image);
  // The rows of code-blocks (S, on the band grid) the image's front stage takes where it can go
  // a row of them at a time, `comps` its components; 0 where it cannot.
  int front_stripe_rows(const Canvas& canvas, const j2k_image_view& shape, std::vector<RowFrontStage::Component>& comps) const;
  // A plan for row `row` within `limit` bytes of host memory (0: none).
  std::unique_ptr<Plan> row_plan(const TileRow& row, uint64_t limit) const;
  // Rate control, Tier-2 and the file from every block's coding: into bytes_, or through
  // `sink` when given. Returns the file's size; `work` holds Tier-1's output.
  uint64_t write_file(const std::vector<CodedBlock>& coded, const BandSteps& bands, int guard_bits, bool estimate,
                      int threads, Reservation& work, const ByteSink* sink);
  // The bytes each encode() takes a code-block for its records (Tier-1's, Tier-2's, rate
  // control's), before their vectors.
  static uint64_t block_record_bytes();
  // What a run reserves before Tier-1's output: every block's record and layers, and each of
  // `threads` threads' scratch.
  uint64_t run_records_bytes(int threads) const;
};

}  // namespace j2k::codec
