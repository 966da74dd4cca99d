// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/block_coder.hpp"

#include <string>

#include "codec/tier1/ebcot/block_decoder.hpp"
#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier1/ht/block_decoder.hpp"
#include "codec/tier1/ht/block_encoder.hpp"
#include "common/error.hpp"
#include "tiling/limits.hpp"

namespace j2k::codec {
namespace {

// Part 1's coder (ebcot/): the MQ coder's passes.
class EbcotCoder final : public BlockCoder {
 public:
  bool reads(j2k_memory memory) const override { return memory == J2K_MEMORY_HOST; }
  CodedBlock encode(const BlockView& block) const override { return encode_block(block); }
  void check(const BlockCode& code) const override { check_block(code); }
  BlockDecodeReport decode(const BlockCode& code, int32_t* out, ptrdiff_t stride) const override {
    return decode_block(code, out, stride);
  }
};

// Part 15's coder (ht/): the HT cleanup pass, with SigProp and MagRef when decoding.
class HtCoder final : public BlockCoder {
 public:
  bool reads(j2k_memory memory) const override { return memory == J2K_MEMORY_HOST; }
  CodedBlock encode(const BlockView& block) const override { return ht::encode_block(block); }
  void check(const BlockCode& code) const override { check_block(code); }
  BlockDecodeReport decode(const BlockCode& code, int32_t* out, ptrdiff_t stride) const override {
    return ht::decode_block(code, out, stride);
  }
  BlockDecodeReport decode_dequantised(const BlockCode& code, const Dequantisation& q, void* out,
                                       ptrdiff_t stride) const override {
    return ht::decode_block_dequantised(code, q, out, stride);
  }
  void decode_dequantised_blocks(DequantisedBlock* blocks, size_t count) const override {
    ht::decode_blocks_dequantised(blocks, count);
  }
  int blocks_decoded_together() const override { return ht::blocks_decoded_together(); }
};

}  // namespace

BlockDecodeReport BlockCoder::decode_dequantised(const BlockCode& code, const Dequantisation& q, void* out,
                                                 ptrdiff_t stride) const {
  return decode_block_dequantised(*this, code, q, out, stride);
}

void BlockCoder::decode_dequantised_blocks(DequantisedBlock* blocks, size_t count) const {
  for (size_t i = 0; i < count; ++i)
    blocks[i].report = decode_dequantised(*blocks[i].code, blocks[i].q, blocks[i].out, blocks[i].stride);
}

BlockDecodeReport decode_block_dequantised(const BlockCoder& coder, const BlockCode& code, const Dequantisation& q,
                                           void* out, ptrdiff_t stride) {
  thread_local std::vector<int32_t> values;
  values.resize(static_cast<size_t>(code.width) * static_cast<size_t>(code.height));
  const BlockDecodeReport report = coder.decode(code, values.data(), code.width);
  write_dequantised(values.data(), code.width, code.width, code.height, q, out, stride);
  return report;
}

void write_dequantised(const int32_t* in, ptrdiff_t in_stride, int width, int height, const Dequantisation& q, void* out,
                       ptrdiff_t out_stride) {
  for (int y = 0; y < height; ++y) {
    const int32_t* from = in + y * in_stride;
    if (q.reversible) {
      int32_t* to = static_cast<int32_t*>(out) + y * out_stride;
      for (int x = 0; x < width; ++x) to[x] = Dequantisation::reversible_value(from[x]);
    } else {
      float* to = static_cast<float*>(out) + y * out_stride;
      for (int x = 0; x < width; ++x) to[x] = q.irreversible_value(from[x]);
    }
  }
}

void check_block(const BlockCode& code) {
  if (!valid_block_size(code.width, code.height))
    throw Error(ErrorCode::InvalidArgument, "a code-block of " + std::to_string(code.width) + "x" +
                                                std::to_string(code.height) + " samples (at most 1024 a side, 4096 in all)");
  if (code.bitplanes > kMaxDecodedBitplanes)
    throw Error(ErrorCode::UnsupportedInput, "a code-block with " + std::to_string(code.bitplanes) +
                                                 " bit planes (at most " + std::to_string(kMaxDecodedBitplanes) +
                                                 " are decoded)");
  uint64_t bytes = 0;
  for (size_t s = 0; s < code.segments; ++s) bytes += code.segment_bytes[s];
  if (bytes > code.size)
    throw Error(ErrorCode::CorruptInput, "a code-block's segments hold " + std::to_string(bytes) + " bytes, " +
                                             std::to_string(code.size) + " are there");
}

std::unique_ptr<BlockCoder> make_block_coder(BlockCoding coding) {
  switch (coding) {
    case BlockCoding::Ebcot: return std::make_unique<EbcotCoder>();
    case BlockCoding::HighThroughput: return std::make_unique<HtCoder>();
  }
  throw Error(ErrorCode::Internal, "an unknown block coder");
}

}  // namespace j2k::codec
