// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/ebcot/block_decoder.hpp"

#include <string>
#include <vector>

#include "codec/tier1/ebcot/block_passes.hpp"
#include "common/error.hpp"
#include "tiling/limits.hpp"

namespace j2k::codec {

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

BlockDecodeReport decode_block(const BlockCode& code, int32_t* out, ptrdiff_t stride) {
  check_block(code);
  thread_local std::vector<uint32_t> words;  // reused from block to block
  words.resize(t1::BlockPasses<t1::HostTables>::words_for(code));
  return t1::BlockPasses<t1::HostTables>(code, words.data(), out, stride).run();
}

}  // namespace j2k::codec
