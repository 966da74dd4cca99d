// SPDX-License-Identifier: BSD-2-Clause
// The packets of one tile, read (ISO/IEC 15444-1 B.9 to B.12): the tile laid out from the
// codestream's geometry and the tile's coding style, its packets walked in its progression
// (with POC's changes, B.12.2), each read by its precinct's PrecinctReader from the tile's
// tile-parts (or with the headers from PPM or PPT), so that every code-block of the tile ends
// with its bytes and codeword segments for the Tier-1 decoder.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codec/codestream/codestream_reader.hpp"
#include "codec/codestream/packet_progress.hpp"
#include "codec/codestream/tile_layout.hpp"
#include "codec/tier2/packet_reader.hpp"
#include "common/memory_budget.hpp"
#include "tiling/canvas.hpp"

namespace j2k::codec {

struct TilePackets {
  TileLayout layout;                   // the tile alone: tiles[0] and its blocks
  // The code-blocks the packets included (the others have no data), whose bytes may lie in
  // `data` or in the bytes read (read_tile_packets); block_data: per layout block, its index
  // in `blocks` or kNoData. A tile of millions of tiny blocks mostly holds empty ones.
  static constexpr uint32_t kNoData = UINT32_MAX;
  std::vector<BlockData> blocks;
  std::vector<uint32_t> block_data;
  const BlockData* data_of(size_t laid) const { return block_data[laid] == kNoData ? nullptr : &blocks[block_data[laid]]; }
  std::shared_ptr<const std::vector<uint8_t>> data;  // a tile's packet data copied together
                                                     // from several tile-parts, else empty
  std::vector<uint32_t> packet_bytes;  // each packet's bytes in the tile data (SOP, header
                                       // unless packed elsewhere, EPH, body), in order
  bool truncated = false;              // the tile's data ended before its last packet
  std::vector<std::string> warnings;   // what was read as OpenJPEG reads it, not as written:
                                       // packets missing from whole data, bytes left over
  // Work done, counted so that tests can hold it to the tile's own size: the tile-part
  // records looked at to find its data and packed headers, and the steps taken to order its
  // packets (B.12; with POC, its changes' bookkeeping too).
  size_t tile_parts_read = 0;
  uint64_t order_steps = 0;  // steps taken to put its packets in order (B.12)
  // Its share of the memory budget: what it holds (reserved before it was allocated).
  Reservation memory;
};

// Reads tile `t` of `cs` (whose bytes are `data`, which the result's blocks may point into:
// keep it while they are used); with `partial`, a tile whose data ends early keeps what is
// there. With `layers` > 0 the blocks keep only what the first `layers` layers bring (the
// packets after them are still read, to check them and find the next).
// With a `budget`, the memory its structures take (the tile's layout, one reader per
// precinct, the packets' order, the blocks' segments and bytes) is reserved there before they
// are made, from the headers' counts, and as the packets add to it: Error(OutOfMemory)
// naming the tile and the counts where it does not fit.
// Throws j2k::Error (CorruptInput) naming the tile and the cause.
TilePackets read_tile_packets(const Codestream& cs, const uint8_t* data, size_t t, bool partial = false, int layers = 0,
                              MemoryBudget* budget = nullptr);
// The same into `out` (a TilePackets as constructed), telling `progress` when the resolutions
// it waits for are read (PacketProgress::read) and when the call ends, however it ends (end()):
// another thread may then decode those resolutions' blocks from `out` while this one reads
// on. `out.blocks` is reserved for every code-block of the tile first, so that it never moves.
// Without POC (whose changes may leave a precinct's last layer unsent) and in a progression
// that sends those resolutions first (LRCP with one layer, RLCP, RPCL), the point comes before
// the last packet; otherwise, or where `budget` has no room for that reservation, at the end.
void read_tile_packets(TilePackets& out, const Codestream& cs, const uint8_t* data, size_t t, bool partial, int layers,
                       MemoryBudget* budget, PacketProgress& progress);

// The bytes a tile's tile-component records take (TileComponentInput with its bands and the
// resolution grids), from the levels of its components: what tile_components() allocates.
uint64_t tile_components_bytes(const Codestream& cs, size_t t);

// The codestream's canvas: image area, tile grid and subsampling (SIZ).
Canvas canvas_of(const Codestream& cs);

// The tile's tile-components as the layout needs them: rectangles (B-12), levels and bands.
std::vector<TileComponentInput> tile_components(const Codestream& cs, size_t t);

}  // namespace j2k::codec
