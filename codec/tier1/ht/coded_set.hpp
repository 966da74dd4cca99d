// SPDX-License-Identifier: BSD-2-Clause
// Which of a block's HT sets the decoders (block_decoder.cpp and reference_block_decoder.cpp)
// decode: the last segment that ends with a cleanup pass and holds bytes, and the refinement
// segment right after it (block_decoder.hpp says how Tier-2 counts the passes). Host and
// device code (host_device.hpp), for device_block_decoder.hpp too.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ht/host_device.hpp"

namespace j2k::codec::ht {

// The HT set decoded: its cleanup segment and the refinement segment after it.
struct HtSet {
  const uint8_t* cleanup = nullptr;
  size_t cleanup_size = 0;
  const uint8_t* refinement = nullptr;
  size_t refinement_size = 0;
  int refinement_passes = 0;  // 0: cleanup only; 1: SigProp; 2: SigProp and MagRef
  int plane = 0;              // the cleanup pass's bit plane
  int passes = 0;             // the passes up to the last one decoded, placeholders included
};

// Whether the block has a set to decode; if so it is left in `set`.
J2K_HD inline bool find_set(const BlockCode& c, HtSet& set) {
  bool found = false;
  size_t offset = 0;
  int n = 0;
  for (size_t s = 0; s < c.segments; ++s) {
    const int passes = c.segment_passes[s];
    const uint8_t* bytes = c.bytes + offset;
    const size_t size = c.segment_bytes[s];
    offset += size;
    if (passes <= 0) continue;
    const int last = n + passes - 1;
    if (last % 3 == 0 && size > 0) {
      set = HtSet{};
      set.cleanup = bytes;
      set.cleanup_size = size;
      set.plane = c.bitplanes - 1 - last / 3;
      set.passes = last + 1;
      found = true;
    } else if (found && n == set.passes && n % 3 == 1) {
      set.refinement = bytes;
      set.refinement_size = size;
      set.refinement_passes = min_of(passes, 2);
      set.passes += set.refinement_passes;
    }
    n += passes;
  }
  return found;
}

}  // namespace j2k::codec::ht
