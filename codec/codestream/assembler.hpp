// SPDX-License-Identifier: BSD-2-Clause
// Tier-2's assembly of a codestream (ISO/IEC 15444-1 A.4 to A.7, B.9, B.10): every precinct's
// packets for the code-blocks' passes per layer as they stand, then per tile its tile-parts
// (SOT, PLT, SOD, the packets in the progression's order, each after a SOP when asked), the
// main header (with TLM when asked) before them and EOC after. With POC, the tile's packets
// in the order its changes send them; a tile's own changes (CodingParams::tile_poc) go in its
// first tile-part's header, each change starting a tile-part. Precincts are independent, so
// their packet headers are coded on all threads. Rate control asks for the size at every
// step of its search; that codes the headers but copies no byte of the code-blocks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "codec/params/coding_params.hpp"
#include "codec/codestream/markers.hpp"
#include "codec/codestream/tile_layout.hpp"
#include "codec/tier2/packet_writer.hpp"
#include "common/memory_budget.hpp"

namespace j2k::codec {

// Where a file's bytes go as they are made, in order, a piece at a time (a writer that does
// not hold the whole file).
using ByteSink = std::function<void(const uint8_t* data, size_t size)>;

class Assembler {
 public:
  // `blocks`: Tier-2's view of each of layout.blocks (same index), whose passes per layer
  // the caller changes between calls; `main_header`: the main header but TLM, and TLM's place
  // in it. Everything given must outlive the assembler. With a `budget`, what the assembly
  // allocates (its precincts' records, each run's packet headers and the codestream) is
  // reserved there first (Error(OutOfMemory) where it does not fit).
  Assembler(const StreamInfo& info, const CodingParams& params, const TileLayout& layout,
            const std::vector<const BlockContribution*>& blocks, MainHeader main_header, int threads,
            MemoryBudget* budget = nullptr);

  // The codestream, in `storage`'s memory where it has room (a sequence of frames then writes
  // each into the pages of an earlier one instead of faulting in new ones: 25 MB a 12-bit
  // lossless 4K frame).
  std::vector<uint8_t> run(std::vector<uint8_t> storage = {}) const;
  // The same bytes through `write`, in pieces of about a MiB (never the whole codestream at
  // once); returns their count.
  uint64_t run(const ByteSink& write) const;
  // Its size in bytes, as run() would make it.
  uint64_t size() const;
  // The bytes of each component's packets (SOP and headers with them), as run() would make them.
  std::vector<uint64_t> component_sizes() const;

 private:
  // One precinct's packets, layer after layer: [l] ends layer l's header and body parts.
  struct PrecinctPackets {
    std::vector<uint8_t> headers;
    std::vector<BodyPart> parts;
    std::vector<size_t> header_end, parts_end;
    std::vector<uint64_t> body_bytes;
  };
  struct CodedPackets {
    std::vector<PrecinctPackets> precincts;
    Reservation memory;  // what they take
  };
  CodedPackets code_packets() const;
  // Lays the packets out in tile-parts; returns the codestream's size, and writes it to *out
  // when given (or through *sink, a piece at a time), each component's packet bytes to
  // *per_component when given.
  uint64_t assemble(const std::vector<PrecinctPackets>& packets, std::vector<uint8_t>* out,
                    std::vector<uint64_t>* per_component = nullptr, const ByteSink* sink = nullptr) const;

  const CodingParams& p_;
  MainHeader main_;
  int threads_;
  MemoryBudget* budget_;
  Reservation memory_;       // for the records below
  uint64_t coder_bytes_ = 0;  // a PrecinctCoder's for the largest precinct (one a thread at once)
  std::vector<std::vector<PrecinctBand>> precincts_;          // every tile's, in tile, component, resolution order
  std::vector<std::vector<std::vector<size_t>>> first_;      // [tile][component][resolution]: its first in precincts_
  std::vector<std::vector<PacketId>> orders_;                // per tile, the progression
  // Per tile with changes of its own: where each change's packets start in its order, and
  // its POC segment (for its first tile-part's header); empty for the others.
  std::vector<std::vector<size_t>> change_starts_;
  std::vector<std::vector<uint8_t>> tile_pocs_;
};

}  // namespace j2k::codec
