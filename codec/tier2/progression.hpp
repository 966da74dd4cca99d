// SPDX-License-Identifier: BSD-2-Clause
// The order of a tile's packets (ISO/IEC 15444-1 B.12): the five progressions of B.12.1, for
// one tile, as the list of (layer, resolution, component, precinct) the encoder writes in turn.
// LRCP and RLCP are nested counters (B.12.1.1, B.12.1.2); RPCL, PCRL and CPRL are driven by
// positions on the reference grid (B.12.1.3 to B.12.1.5), so that a precinct's packets come
// when the walk over the tile reaches the precinct's top-left corner. packet_order is one
// progression for the whole tile, all layers, resolutions and components; packet_order_of the
// same loops over some component-resolutions and layers (what a POC change sends, B.12.2:
// progression_changes.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codec/params/coding_params.hpp"

namespace j2k::codec {

// One resolution r of one tile-component (B.5, B.6): its rectangle on the resolution's own
// grid, trx0 = ceil(tcx0 / 2^(NL - r)) and so on (x1, y1 exclusive), and its precincts:
// 2^ppx x 2^ppy, anchored at 0 on that grid, numbered in raster order inside the resolution.
// precincts_x = ceil(trx1 / 2^ppx) - floor(trx0 / 2^ppx), likewise y; both 0 when the
// resolution is empty (no samples in x or in y), which then has no packets.
struct ResolutionGrid {
  int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int ppx = 15, ppy = 15;
  int64_t precincts_x = 0, precincts_y = 0;
};

struct ComponentGrid {
  int dx = 1, dy = 1;                      // XRsiz, YRsiz
  std::vector<ResolutionGrid> resolutions;  // r = 0 .. NL (NL may differ between components)
};

struct PacketId {
  int layer;
  int resolution;
  int component;
  int64_t precinct;  // raster index inside the resolution
};

// Every packet of the tile, in the order `p` sets, each exactly once: for each of `layers`
// layers, each component, each resolution that component has (r <= its NL) and each of that
// resolution's precincts. The tile is tx0..tx1 x ty0..ty1 on the reference grid (B.3; x1, y1
// exclusive, coordinates below 2^32 as SIZ allows); `components` must describe that tile
// (trx0 = ceil(tx0 / (XRsiz * 2^(NL - r))) and so on), which resolution_grid gives.
// The position-driven orders visit only the reference-grid positions where some precinct
// starts, so the work is about the number of packets, not the tile's area.
std::vector<PacketId> packet_order(Progression p, int layers, const std::vector<ComponentGrid>& components,
                                   int64_t tx0, int64_t ty0, int64_t tx1, int64_t ty1);

// One component-resolution and the layers [first_layer, end_layer) it sends in one pass of a
// progression (a POC change, B.12.2, sends some layers of some of them).
struct StreamLayers {
  int component = 0, resolution = 0;
  int first_layer = 0, end_layer = 0;
};

// packet_order for the packets of `sending` alone (each component-resolution at most once;
// those without precincts or layers, or with r > NL, send none), appended to `out` in the
// order `p` sets, as if the progression's loops ran over the whole tile and skipped every other
// packet. The work is about the packets sent plus the entries of `sending`, whatever the
// layer counts; `steps` counts it (an entry, a packet, a position or a layer visited).
void packet_order_of(Progression p, const std::vector<ComponentGrid>& components, const std::vector<StreamLayers>& sending,
                     int64_t tx0, int64_t ty0, int64_t tx1, int64_t ty1, std::vector<PacketId>& out, uint64_t& steps);

// Resolution r of a tile-component tcx0..tcx1 x tcy0..tcy1 (on the component's grid, B.3)
// with NL = `levels` decomposition levels and precincts 2^ppx x 2^ppy on the resolution's grid.
ResolutionGrid resolution_grid(int64_t tcx0, int64_t tcy0, int64_t tcx1, int64_t tcy1, int levels, int r, int ppx,
                               int ppy);

}  // namespace j2k::codec
