// SPDX-License-Identifier: BSD-2-Clause
#include "codec/codestream/tile_layout.hpp"

#include <algorithm>

#include "codec/tier2/tag_tree.hpp"
#include "common/error.hpp"
#include "common/memory_budget.hpp"

namespace j2k::codec {
namespace {

int64_t ceil_shift(int64_t a, int k) { return (a + (int64_t{1} << k) - 1) >> k; }

// A band's extent [lo, hi) along one axis cut by the precincts (cells of 2^cell from the
// index `first` on, `cells` of them) into code-blocks of 2^block: the blocks of each cell
// there, as at most three runs (first cell, the whole ones, last cell) of (blocks, cells).
struct Run {
  int64_t blocks = 0, cells = 0;
};
std::vector<Run> cell_runs(int64_t lo, int64_t hi, int64_t first, int64_t cells, int cell, int block) {
  std::vector<Run> out;
  const int64_t a = std::max(lo >> cell, first), b = std::min(ceil_shift(hi, cell), first + cells);
  if (hi <= lo || b <= a) return out;
  auto blocks_in = [&](int64_t i) {
    const int64_t x0 = std::max(lo, i << cell), x1 = std::min(hi, (i + 1) << cell);
    return ceil_shift(x1, block) - (x0 >> block);
  };
  out.push_back({blocks_in(a), 1});
  if (b - a >= 3) out.push_back({blocks_in(a + 1), b - a - 2});
  if (b - a >= 2) out.push_back({blocks_in(b - 1), 1});
  return out;
}

}  // namespace

std::pair<int, int> precinct_log2(const ComponentStyle& style, int r) {
  if (style.precincts.empty()) return {15, 15};
  return style.precincts[static_cast<size_t>(r)];
}

LayoutCounts count_layout(const CodingParams& params, const std::vector<TileComponentInput>& components) {
  LayoutCounts n;
  n.components = components.size();
  for (size_t c = 0; c < components.size(); ++c) {
    const TileComponentInput& tc = components[c];
    const ComponentStyle style = component_style(params, c);
    n.bands += tc.bands.size();
    for (int r = 0; r <= tc.levels; ++r) {
      const auto [ppx, ppy] = precinct_log2(style, r);
      const ResolutionGrid grid = resolution_grid(tc.rect.x0, tc.rect.y0, tc.rect.x1, tc.rect.y1, tc.levels, r, ppx, ppy);
      const uint64_t precincts = static_cast<uint64_t>(grid.precincts_x) * static_cast<uint64_t>(grid.precincts_y);
      ++n.resolutions;
      n.precincts += precincts;
      // As lay_out_tile cuts them: the bands' share of a precinct, blocks no larger (B.6, B.7).
      const size_t first = r == 0 ? 0 : static_cast<size_t>(1 + 3 * (r - 1)), count = r == 0 ? 1 : 3;
      const int bpx = ppx - (r == 0 ? 0 : 1), bpy = ppy - (r == 0 ? 0 : 1);
      const int cbx = std::min(style.block_w_log2, bpx), cby = std::min(style.block_h_log2, bpy);
      uint64_t precinct_blocks = 0;  // the most in one precinct: each band's largest cell
      for (size_t k = first; k < first + count && k < tc.bands.size(); ++k) {
        const j2k_rect& br = tc.bands[k].rect;
        n.precinct_bands += precincts;
        uint64_t filled = 0, largest = 0;
        for (const Run& x : cell_runs(br.x0, br.x1, grid.x0 >> ppx, grid.precincts_x, bpx, cbx))
          for (const Run& y : cell_runs(br.y0, br.y1, grid.y0 >> ppy, grid.precincts_y, bpy, cby)) {
            const auto cells = static_cast<uint64_t>(x.cells * y.cells);
            const auto blocks = static_cast<uint64_t>(x.blocks * y.blocks);
            filled += cells;
            n.blocks += cells * blocks;
            n.tag_nodes += cells * tag_tree_nodes(static_cast<uint64_t>(x.blocks), static_cast<uint64_t>(y.blocks));
            largest = std::max(largest, blocks);
          }
        n.filled_precinct_bands += filled;
        n.tag_nodes += precincts - std::min(precincts, filled);  // a band with no block here: a tree of one node
        precinct_blocks += largest;
      }
      n.largest_precinct_blocks = std::max(n.largest_precinct_blocks, precinct_blocks);
    }
  }
  return n;
}

uint64_t layout_bytes(const LayoutCounts& n) {
  // Each vector is one heap block: its elements plus at most 32 bytes of the allocator's.
  auto vectors = [](uint64_t count, uint64_t bytes) { return bytes + 32 * count; };
  return sizeof(LaidTile) + vectors(1, n.components * sizeof(std::vector<LaidResolution>)) +
         vectors(n.components, n.resolutions * sizeof(LaidResolution)) +
         vectors(n.resolutions, n.precincts * sizeof(LaidPrecinct)) + vectors(1, n.blocks * sizeof(LaidBlock));
}

void lay_out_tile(const StreamInfo& info, const CodingParams& params, size_t t, const std::vector<TileComponentInput>& components,
                  TileLayout& out) {
  LaidTile tile;
  tile.components.reserve(components.size());
  const int64_t tiles_x = (static_cast<int64_t>(info.x1) - info.tile_x0 + info.tile_w - 1) / info.tile_w;  // B-5
  const int64_t p = static_cast<int64_t>(t) % tiles_x, q = static_cast<int64_t>(t) / tiles_x;
  // B.3: the tile's area on the reference grid, clipped to the image.
  tile.x0 = std::max<int64_t>(info.tile_x0 + p * info.tile_w, info.x0);
  tile.y0 = std::max<int64_t>(info.tile_y0 + q * info.tile_h, info.y0);
  tile.x1 = std::min<int64_t>(info.tile_x0 + (p + 1) * info.tile_w, info.x1);
  tile.y1 = std::min<int64_t>(info.tile_y0 + (q + 1) * info.tile_h, info.y1);
  for (size_t c = 0; c < components.size(); ++c) {
    const TileComponentInput& tc = components[c];
    const ComponentStyle style = component_style(params, c);
    if (tc.levels != style.levels) throw Error(ErrorCode::Internal, "codestream: a tile-component's levels are not its component's");
    if (tc.bands.size() != static_cast<size_t>(3 * tc.levels + 1)) throw Error(ErrorCode::Internal, "codestream: a tile-component without every band");
    std::vector<LaidResolution> resolutions;
    resolutions.reserve(static_cast<size_t>(tc.levels) + 1);
    for (int r = 0; r <= tc.levels; ++r) {
      const auto [ppx, ppy] = precinct_log2(style, r);
      LaidResolution res;
      res.grid = resolution_grid(tc.rect.x0, tc.rect.y0, tc.rect.x1, tc.rect.y1, tc.levels, r, ppx, ppy);
      // The resolution's bands and their share of a precinct (B.6: half the resolution's
      // precinct size, except for LL at r = 0); code-blocks no larger than that (B.7).
      const size_t first = r == 0 ? 0 : static_cast<size_t>(1 + 3 * (r - 1));
      const size_t count = r == 0 ? 1 : 3;
      const int bpx = ppx - (r == 0 ? 0 : 1), bpy = ppy - (r == 0 ? 0 : 1);
      const int cbx = std::min(style.block_w_log2, bpx), cby = std::min(style.block_h_log2, bpy);
      // Coordinates below 2^32 and exponents at most 15: the shifts below stay under 2^48.
      const int64_t px0 = res.grid.x0 >> ppx, py0 = res.grid.y0 >> ppy;
      res.precincts.reserve(static_cast<size_t>(res.grid.precincts_x * res.grid.precincts_y));
      for (int64_t j = 0; j < res.grid.precincts_y; ++j)
        for (int64_t i = 0; i < res.grid.precincts_x; ++i) {
          LaidPrecinct prec;
          for (size_t k = first; k < first + count; ++k) {
            const j2k_rect& br = tc.bands[k].rect;
            LaidPrecinct::Band pb;
            const int64_t x0 = std::max(br.x0, (px0 + i) << bpx), x1 = std::min(br.x1, (px0 + i + 1) << bpx);
            const int64_t y0 = std::max(br.y0, (py0 + j) << bpy), y1 = std::min(br.y1, (py0 + j + 1) << bpy);
            if (x1 > x0 && y1 > y0) {
              const int64_t bx0 = x0 >> cbx, bx1 = ceil_shift(x1, cbx);
              const int64_t by0 = y0 >> cby, by1 = ceil_shift(y1, cby);
              pb.blocks_x = static_cast<int>(bx1 - bx0);
              pb.blocks_y = static_cast<int>(by1 - by0);
              pb.first = out.blocks.size();
              for (int64_t by = by0; by < by1; ++by)
                for (int64_t bx = bx0; bx < bx1; ++bx) {
                  LaidBlock b;
                  b.tile = static_cast<uint32_t>(t), b.component = static_cast<uint16_t>(c), b.band = static_cast<uint8_t>(k);
                  b.x0 = std::max(x0, bx << cbx), b.x1 = std::min(x1, (bx + 1) << cbx);
                  b.y0 = std::max(y0, by << cby), b.y1 = std::min(y1, (by + 1) << cby);
                  out.blocks.push_back(b);
                }
            }
            prec.bands.push_back(pb);
          }
          res.precincts.push_back(std::move(prec));
        }
      resolutions.push_back(std::move(res));
    }
    tile.components.push_back(std::move(resolutions));
  }
  out.tiles.push_back(std::move(tile));
}

TileLayout lay_out(const StreamInfo& info, const CodingParams& params,
                   const std::vector<std::vector<TileComponentInput>>& tiles) {
  TileLayout out;
  uint64_t blocks = 0;  // allocated once (a vector grown block by block takes up to twice)
  for (const auto& tile : tiles) blocks += count_layout(params, tile).blocks;
  out.blocks.reserve(static_cast<size_t>(blocks));
  out.tiles.reserve(tiles.size());
  for (size_t t = 0; t < tiles.size(); ++t) lay_out_tile(info, params, t, tiles[t], out);
  return out;
}

TilePrecincts tile_precincts(const StreamInfo& info, const LaidTile& tile, const std::vector<const BlockContribution*>& blocks,
                             std::vector<std::vector<PrecinctBand>>& precincts) {
  TilePrecincts out;
  for (size_t c = 0; c < tile.components.size(); ++c) {
    ComponentGrid g;
    g.dx = info.components[c].dx;
    g.dy = info.components[c].dy;
    out.first.emplace_back();
    for (const LaidResolution& r : tile.components[c]) {
      g.resolutions.push_back(r.grid);
      out.first.back().push_back(precincts.size());
      for (const LaidPrecinct& prec : r.precincts) {
        std::vector<PrecinctBand> bands;
        for (const LaidPrecinct::Band& b : prec.bands) {
          PrecinctBand pb;
          pb.blocks_x = b.blocks_x;
          pb.blocks_y = b.blocks_y;
          pb.blocks.assign(blocks.begin() + static_cast<ptrdiff_t>(b.first), blocks.begin() + static_cast<ptrdiff_t>(b.first + b.count()));
          bands.push_back(std::move(pb));
        }
        precincts.push_back(std::move(bands));
      }
    }
    out.grids.push_back(std::move(g));
  }
  return out;
}

}  // namespace j2k::codec
