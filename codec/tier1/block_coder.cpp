// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/block_coder.hpp"

#include "codec/tier1/ebcot/block_decoder.hpp"
#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier1/ht/block_decoder.hpp"
#include "codec/tier1/ht/block_encoder.hpp"
#include "common/error.hpp"

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
  void check(const BlockCode& code) const override { ht::check_block(code); }
  BlockDecodeReport decode(const BlockCode& code, int32_t* out, ptrdiff_t stride) const override {
    return ht::decode_block(code, out, stride);
  }
};

}  // namespace

std::unique_ptr<BlockCoder> make_block_coder(BlockCoding coding) {
  switch (coding) {
    case BlockCoding::Ebcot: return std::make_unique<EbcotCoder>();
    case BlockCoding::HighThroughput: return std::make_unique<HtCoder>();
  }
  throw Error(ErrorCode::Internal, "an unknown block coder");
}

}  // namespace j2k::codec
