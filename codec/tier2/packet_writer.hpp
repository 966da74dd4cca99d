// Packets (ISO/IEC 15444-1 B.9, B.10): one precinct of one resolution of one tile-component
// in one quality layer: a header saying which code-blocks contribute, how many passes and
// bytes each, then those bytes. Here every included block contributes all its passes in the
// one layer.
#pragma once
#include <cstdint>
#include <vector>

#include "codec/tier1/block_encoder.hpp"

namespace j2k::codec {

// A band's code-blocks inside one precinct, in raster order.
struct PrecinctBand {
  int blocks_x = 0, blocks_y = 0;
  std::vector<const CodedBlock*> blocks;  // blocks_x * blocks_y
  std::vector<uint32_t> missing_bitplanes;  // per block: the band's bit planes minus the block's
};

// Appends the packet of `bands` (the resolution's bands: LL alone, or HL, LH, HH) for the
// first and only layer.
void write_packet(const std::vector<PrecinctBand>& bands, std::vector<uint8_t>& out);

}  // namespace j2k::codec
