// SPDX-License-Identifier: BSD-2-Clause
// The block coder (Tier-1, ISO/IEC 15444-1 Annex D; Part 15 for HT): one interface for every
// coder, so that the encoder and the decoder do not know which one they drive. Encoding takes
// a view of a code-block's quantised coefficients and returns its coding passes with where
// each ends in the bytes and how much it lowers the block's squared error (what rate control
// needs); decoding takes the segments Tier-2 gathered for a block and writes its coefficients.
// A coder keeps no state between blocks, so that blocks run in parallel on one coder.
//
//   std::unique_ptr<BlockCoder> coder = make_block_coder(BlockCoding::Ebcot);  // once
//   CodedBlock c = coder->encode(view);                   // any thread
//   coder->decode(code, out, stride);                     // any thread
//
// The GPU batches (gpu/gpu_block_batch.hpp) decode many blocks at once on a device, each
// bit for bit as the CPU coder of the same kind.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "codec/params/block_modes.hpp"
#include "j2kfront/j2kfront.h"

namespace j2k::codec {

// A code-block's quantised coefficients: `height` rows of `width` int32 values, rows `stride`
// elements apart, each sign and magnitude with `fraction_bits` bits below the quantiser's
// step (0 for the 5/3; those bits are not coded, they only make the distortion estimates
// exact).
struct BlockView {
  const int32_t* data = nullptr;
  ptrdiff_t stride = 0;
  int width = 0, height = 0;  // 1..1024 each, width * height <= 4096 (A.6.1)
  j2k_band_type band = J2K_BAND_LL;  // selects the significance contexts (Table D.1)
  int fraction_bits = 0;
  uint8_t modes = 0;          // BlockMode bits (EBCOT's)
  // Whether a decoder reconstructs a fully decoded coefficient exactly (the 5/3) rather than
  // at the middle of its quantisation interval (the 9/7): what the last pass's distortion is.
  bool reversible = true;
  // Whether to estimate each pass's distortion (CodedPass::distortion), which rate control
  // needs; a lossless codestream keeps every pass and needs none.
  bool estimate_distortion = true;
  // HT only: the bit plane of the block's cleanup pass (0: every magnitude bit, no SigProp or
  // MagRef pass); rate control chooses it per block (rate/ht_planes.hpp). EBCOT ignores it.
  int cleanup_plane = 0;
};

struct CodedPass {
  uint32_t end = 0;         // bytes of the block's data a decoder needs to decode this pass
  double distortion = 0;    // what the pass removes from the block's squared error, in steps^2
                            // (0 without BlockView::estimate_distortion)
  bool terminated = false;  // the pass ends a codeword segment (its `end` is exact)
  // Whether rate control may stop a block (in any layer) after this pass; the encoder clears
  // it where a stop there would not read back everywhere (an HT cleanup pass whose SigProp
  // would start a later layer's packet: see encoder.cpp).
  bool may_stop = true;
};

// EBCOT's passes; an HT coder's differ (ht/block_encoder.hpp says how: a cleanup pass, then
// SigProp and MagRef, with `bitplanes` one above the cleanup's plane).
struct CodedBlock {
  int bitplanes = 0;             // of the largest magnitude (0: every coefficient is 0)
  // The largest magnitude's bit planes, which Mb must hold (the guard bits): `bitplanes` for
  // EBCOT; for HT more where the cleanup pass is above plane 0 (its magnitudes reach higher).
  int magnitude_bitplanes = 0;
  std::vector<CodedPass> passes; // 3 * bitplanes - 2, or none
  std::vector<uint8_t> bytes;    // the codeword segments of every pass, back to back
  double energy = 0;             // the sum of the squared magnitudes, in steps^2: the error
                                 // with no pass decoded (HT: 0 without estimate_distortion
                                 // unless SigProp and MagRef are coded)
  // Where set, the segments are there (passes.back().end bytes) instead of in `bytes`: a GPU
  // batch's page-locked copy of every block's bytes, valid until the batch's next encode.
  const uint8_t* external = nullptr;
  const uint8_t* data() const { return external ? external : bytes.data(); }
};

// What Tier-2 gathered for a block (BlockData), with the block's geometry and coding style.
struct BlockCode {
  const uint8_t* bytes = nullptr;         // the codeword segments back to back
  size_t size = 0;                        // bytes there
  const uint32_t* segment_bytes = nullptr;  // each segment's bytes
  const int* segment_passes = nullptr;    // each segment's coding passes
  size_t segments = 0;
  int width = 0, height = 0;              // 1..1024 each, width * height <= 4096
  j2k_band_type band = J2K_BAND_LL;
  uint8_t modes = 0;                      // BlockMode bits
  // The bit planes the passes start from: the band's Mb less the block's missing planes
  // (B.10.5), plus the ROI shift. At most kMaxDecodedBitplanes.
  int bitplanes = 0;
};

// The most bit planes a block may have: its coefficients are held in int32 at twice their
// scale (see decode_block).
constexpr int kMaxDecodedBitplanes = 30;

// What the decoder's dequantisation (codec/quant/dequantiser.hpp, E.1) makes of a decoded value
// v (decode()'s form: twice the magnitude), OpenJPEG's arithmetic: the 5/3's v / 2 in int32 (C's
// truncating division), the 9/7's v times half the band's step in float. Here, below the
// dequantiser, so that a coder can write the coefficients in this form straight into the band
// (BlockCoder::decode_dequantised) with the same arithmetic as the dequantiser's own loops.
struct Dequantisation {
  bool reversible = true;
  float half_step = 0.0f;  // the 9/7's 0.5f * step
  static Dequantisation of_step(float step) { return {false, 0.5f * step}; }  // the 9/7's
  static int32_t reversible_value(int32_t v) { return v / 2; }
  float irreversible_value(int32_t v) const { return static_cast<float>(v) * half_step; }
};

struct BlockDecodeReport {
  int passes = 0;               // coding passes decoded
  bool segmark_error = false;   // a cleanup pass did not end in SEGMARK's 1010 (D.5)
  bool corrupt = false;         // HT: the segments are inconsistent; the block decoded as zeros
};

// One block of BlockCoder::decode_dequantised_blocks(): where it is, where it goes, and then
// its report.
struct DequantisedBlock {
  const BlockCode* code = nullptr;
  Dequantisation q;
  void* out = nullptr;
  ptrdiff_t stride = 0;
  BlockDecodeReport report;
};

class BlockCoder {
 public:
  virtual ~BlockCoder() = default;
  // Whether encode() takes coefficients in `memory` where the front stage left them: host
  // memory for a CPU coder, the device's for a GPU coder (which then reads them in place).
  virtual bool reads(j2k_memory memory) const = 0;
  // Codes every pass of the block.
  virtual CodedBlock encode(const BlockView& block) const = 0;
  // Throws as decode() does for a block it cannot decode, without decoding it (the checks a
  // GPU batch has its caller make on the host).
  virtual void check(const BlockCode& code) const = 0;
  // Decodes the block into out[y * stride + x] (the coder's header says in what form; EBCOT's
  // and HT's are the same form).
  virtual BlockDecodeReport decode(const BlockCode& code, int32_t* out, ptrdiff_t stride) const = 0;
  // decode() then `q`, into out[y * stride + x]: int32 coefficients for the 5/3, floats for
  // the 9/7 (the band's plane, as the dequantiser writes it; the block without an ROI shift).
  // The same values as decode_block_dequantised() below; a coder that can do it without a
  // copy of the block in between (HT's) does.
  virtual BlockDecodeReport decode_dequantised(const BlockCode& code, const Dequantisation& q, void* out,
                                               ptrdiff_t stride) const;
  // decode_dequantised() of each of `count` blocks, each report into its DequantisedBlock: a
  // coder that decodes several blocks faster together (HT's) does so.
  virtual void decode_dequantised_blocks(DequantisedBlock* blocks, size_t count) const;
  // How many blocks decode_dequantised_blocks() gains from at once on this CPU (1: it does
  // them one by one), at most kMaxBlocksTogether; half as many gain too.
  virtual int blocks_decoded_together() const { return 1; }
};

// The most blocks a coder decodes together (BlockCoder::blocks_decoded_together).
constexpr int kMaxBlocksTogether = 16;

// decode() into a copy of the block, then each value dequantised into `out` (the default
// BlockCoder::decode_dequantised).
BlockDecodeReport decode_block_dequantised(const BlockCoder& coder, const BlockCode& code, const Dequantisation& q,
                                           void* out, ptrdiff_t stride);

// The values of a width x height block (decode()'s form, rows `in_stride` apart) dequantised
// into `out`: int32 for the 5/3, float for the 9/7.
void write_dequantised(const int32_t* in, ptrdiff_t in_stride, int width, int height, const Dequantisation& q, void* out,
                       ptrdiff_t out_stride);

// What every coder's decode() checks first, whatever the coder: the block's size (A.6.1), its
// bit planes against kMaxDecodedBitplanes, and its segments within its bytes. Throws
// Error(InvalidArgument, UnsupportedInput or CorruptInput) naming the figures; the GPU batches
// (gpu/) have their caller make it on the host.
void check_block(const BlockCode& code);

// The coder for `coding`, chosen once per codestream (COD's code-block style, CAP). Throws
// Error(UnsupportedInput) for a coder this build does not have.
std::unique_ptr<BlockCoder> make_block_coder(BlockCoding coding);

}  // namespace j2k::codec
