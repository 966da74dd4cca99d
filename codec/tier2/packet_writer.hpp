// SPDX-License-Identifier: BSD-2-Clause
// Packets (ISO/IEC 15444-1 B.9, B.10): one precinct of one resolution of one tile-component
// in one quality layer: a header saying which code-blocks contribute, how many new coding
// passes and bytes each (a length per codeword segment they touch), then those bytes. The
// precinct's tag trees and each block's Lblock carry over from layer to layer, so a
// precinct's packets are written in layer order through one PrecinctCoder.
#pragma once
#include <cstdint>
#include <vector>

#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier2/tag_tree.hpp"

namespace j2k::codec {

// A code-block as Tier-2 sees it.
struct BlockContribution {
  const CodedBlock* coded = nullptr;
  uint32_t missing_bitplanes = 0;  // the band's bit planes (Mb) minus the block's
  std::vector<int> passes;         // per layer, the passes included up to and with it
};

// A band's code-blocks inside one precinct, in raster order.
struct PrecinctBand {
  int blocks_x = 0, blocks_y = 0;
  std::vector<const BlockContribution*> blocks;  // blocks_x * blocks_y
};

// What a packet's body takes from one code-block: bytes [from, to) of its codeword.
struct BodyPart {
  const CodedBlock* coded;
  uint32_t from, to;
};

class PrecinctCoder {
 public:
  // `bands`: the resolution's bands in the precinct (LL alone, or HL, LH, HH); they must
  // outlive the coder.
  explicit PrecinctCoder(const std::vector<PrecinctBand>& bands);

  // The packet of `layer` (0, 1, ... in turn): appends its header to `header` (then an EPH
  // marker when `eph`, A.8.2) and its body's parts to `body`; returns the body's bytes. A SOP
  // marker segment before the packet (A.8.1) is the caller's: it numbers the tile's packets.
  uint64_t write(int layer, bool eph, std::vector<uint8_t>& header, std::vector<BodyPart>& body);

 private:
  struct BandState {
    TagTree inclusion, missing;
    std::vector<int> lblock;  // per block (3 until raised)
    std::vector<int> sent;    // passes already sent
  };
  const std::vector<PrecinctBand>& bands_;
  std::vector<BandState> state_;
};

}  // namespace j2k::codec
