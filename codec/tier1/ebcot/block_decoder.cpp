// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/ebcot/block_decoder.hpp"

#include <vector>

#include "codec/tier1/ebcot/block_passes.hpp"

namespace j2k::codec {

BlockDecodeReport decode_block(const BlockCode& code, int32_t* out, ptrdiff_t stride) {
  check_block(code);
  thread_local std::vector<uint32_t> words;  // reused from block to block
  words.resize(t1::BlockPasses<t1::HostTables>::words_for(code));
  return t1::BlockPasses<t1::HostTables>(code, words.data(), out, stride).run();
}

}  // namespace j2k::codec
