// SPDX-License-Identifier: BSD-2-Clause
// Where every code-block of a codestream lies (ISO/IEC 15444-1 B.5 to B.7): each tile's
// tile-components, their resolutions and precinct partitions, and each precinct's share of
// the resolution's bands cut into code-blocks. Built once from the front stage's bands and
// the coding parameters; Tier-1 codes the blocks it lists, Tier-2 walks its precincts.
#pragma once
#include <cstdint>
#include <vector>

#include "codec/params/coding_params.hpp"
#include "codec/params/tile_input.hpp"
#include "codec/tier2/progression.hpp"
#include "codec/tier2/packet_writer.hpp"

namespace j2k::codec {

struct LaidBlock {
  size_t tile = 0, component = 0, band = 0;  // band: index into the tile-component's bands
  int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;    // on the band's grid
};

struct LaidPrecinct {
  // Per band of the resolution (LL alone, or HL, LH, HH): its blocks in raster order, as
  // indices into TileLayout::blocks, and that grid's size.
  struct Band {
    int blocks_x = 0, blocks_y = 0;
    std::vector<size_t> blocks;
  };
  std::vector<Band> bands;
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

// The precinct exponents of resolution r of a component (the default 15 x 15 when none are
// given).
std::pair<int, int> precinct_log2(const ComponentStyle& style, int r);

TileLayout lay_out(const StreamInfo& info, const CodingParams& params,
                   const std::vector<std::vector<TileComponentInput>>& tiles);

// Tile t alone (raster index in the image's grid), appended to `out` (its tiles and blocks).
void lay_out_tile(const StreamInfo& info, const CodingParams& params, size_t t, const std::vector<TileComponentInput>& components,
                  TileLayout& out);

}  // namespace j2k::codec
