// SPDX-License-Identifier: BSD-2-Clause
// Where every code-block of a codestream lies (ISO/IEC 15444-1 B.5 to B.7): each tile's
// tile-components, their resolutions and precinct partitions, and each precinct's share of
// the resolution's bands cut into code-blocks. Built once from the front stage's bands and
// the coding parameters; Tier-1 codes the blocks it lists, Tier-2 walks its precincts.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "codec/params/coding_params.hpp"
#include "codec/params/tile_input.hpp"
#include "codec/tier2/progression.hpp"
#include "codec/tier2/packet_writer.hpp"

namespace j2k::codec {

// Narrow fields: a tile laid out with 4 x 4 code-blocks has millions of them.
struct LaidBlock {
  uint32_t tile = 0;       // raster index (at most 65535 tiles)
  uint16_t component = 0;  // at most 16384 components
  uint8_t band = 0;        // index into the tile-component's bands (at most 3 * 32 + 1)
  int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // on the band's grid
};

struct LaidPrecinct {
  // Per band of the resolution (LL alone, or HL, LH, HH): its grid of blocks, which are
  // TileLayout::blocks[first ...] in raster order.
  struct Band {
    int blocks_x = 0, blocks_y = 0;
    size_t first = 0;
    size_t count() const { return static_cast<size_t>(blocks_x) * static_cast<size_t>(blocks_y); }
  };
  // At most three, held in place: a tile of 2 x 2 precincts has millions of them, and a
  // vector each would add a heap block each.
  struct Bands {
    std::array<Band, 3> items;
    size_t n = 0;
    void push_back(const Band& b) { items.at(n++) = b; }
    size_t size() const { return n; }
    const Band& operator[](size_t i) const { return items[i]; }
    const Band* begin() const { return items.data(); }
    const Band* end() const { return items.data() + n; }
  };
  Bands bands;
};

struct LaidResolution {
  ResolutionGrid grid;
  std::vector<LaidPrecinct> precincts;  // raster order (grid.precincts_x * grid.precincts_y)
};

struct LaidTile {
  int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // on the reference grid
  std::vector<std::vector<LaidResolution>> components;  // [component][resolution]
};

struct TileLayout {
  std::vector<LaidTile> tiles;
  std::vector<LaidBlock> blocks;
};

// How many of each structure lay_out_tile makes for one tile, counted from its geometry
// without making them (in time proportional to its resolutions, not its blocks), so that the
// memory they take can be checked before they are allocated.
struct LayoutCounts {
  uint64_t components = 0, resolutions = 0, bands = 0;
  uint64_t precincts = 0;               // of every resolution
  uint64_t precinct_bands = 0;          // a precinct's share of a band, with blocks or not
  uint64_t filled_precinct_bands = 0;   // those with code-blocks
  uint64_t blocks = 0;
  uint64_t tag_nodes = 0;               // of one tag tree per precinct-band (1 where it has no block)
  uint64_t largest_precinct_blocks = 0;  // code-blocks of the precinct that has the most
};
LayoutCounts count_layout(const CodingParams& params, const std::vector<TileComponentInput>& components);

// The bytes lay_out_tile allocates for a tile of these counts.
uint64_t layout_bytes(const LayoutCounts& counts);

// The precinct exponents of resolution r of a component (the default 15 x 15 when none are
// given).
std::pair<int, int> precinct_log2(const ComponentStyle& style, int r);

TileLayout lay_out(const StreamInfo& info, const CodingParams& params,
                   const std::vector<std::vector<TileComponentInput>>& tiles);

// Tile t alone (raster index in the image's grid), appended to `out` (its tiles and blocks).
void lay_out_tile(const StreamInfo& info, const CodingParams& params, size_t t, const std::vector<TileComponentInput>& components,
                  TileLayout& out);

// A laid tile as Tier-2 codes it: each component's grids (for the progression), and for each
// component and resolution the index in `precincts` of its first precinct, whose bands with
// their blocks' contributions (blocks[i] for the layout's block i) are appended there.
struct TilePrecincts {
  std::vector<ComponentGrid> grids;
  std::vector<std::vector<size_t>> first;  // [component][resolution]
};
TilePrecincts tile_precincts(const StreamInfo& info, const LaidTile& tile, const std::vector<const BlockContribution*>& blocks,
                             std::vector<std::vector<PrecinctBand>>& precincts);

}  // namespace j2k::codec
