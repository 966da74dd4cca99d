// Packets (ISO/IEC 15444-1 B.9, B.10): one precinct of one resolution of one tile-component
// in one quality layer: a header saying which code-blocks contribute, how many new coding
// passes and bytes each (a length per codeword segment they touch), then those bytes. The
// precinct's tag trees and each block's Lblock carry over from layer to layer, so a
// precinct's packets are written in layer order through one PrecinctCoder.
#pragma once
#include <cstdint>
#include <vector>

#include "codec/tier1/block_encoder.hpp"
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

// Packet options of COD (Scod) that change what a packet holds.
struct PacketMarkers {
  bool sop = false;  // a start-of-packet marker segment before each packet (A.8.1)
  bool eph = false;  // an end-of-packet-header marker after each header (A.8.2)
};

class PrecinctCoder {
 public:
  // `bands`: the resolution's bands in the precinct (LL alone, or HL, LH, HH); they must
  // outlive the coder.
  explicit PrecinctCoder(const std::vector<PrecinctBand>& bands);

  // Appends the packet of `layer` (0, 1, ... in turn). `sequence` is the packet's index in
  // its tile, for SOP.
  void write(int layer, const PacketMarkers& markers, uint32_t sequence, std::vector<uint8_t>& out);

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
