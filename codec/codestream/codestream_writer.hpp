// SPDX-License-Identifier: BSD-2-Clause
// A JPEG 2000 Part 1 codestream (ISO/IEC 15444-1 Annex A) from the front stage's output: the
// main header (SOC, SIZ, COD, COC and QCC for components that differ from component 0, QCD,
// COM, TLM), then
// per tile its tile-parts (SOT, PLT, SOD, packets in the chosen progression), then EOC. The
// code-blocks are coded (Tier-1) in parallel, quantised first for the 9/7; rate control
// (PCRD-opt) shares their passes out among the quality layers; Tier-2 writes the packets.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codec/tier2/progression.hpp"
#include "j2kfront/j2kfront.h"

namespace j2k::codec {

struct ComponentInfo {
  int precision = 8;  // bits, 1..16 (for SIZ)
  bool is_signed = false;
  int dx = 1, dy = 1;
};

// What a component's tile-components are cut into: its decomposition levels, precinct sizes
// and code-blocks (COC where they differ from COD's).
struct ComponentStyle {
  int levels = 5;
  // Precinct sizes (log2, 0..15) per resolution, [0] the lowest; empty: the largest (2^15)
  // everywhere and none signalled.
  std::vector<std::pair<int, int>> precincts;
  int block_w_log2 = 6, block_h_log2 = 6;
  bool operator==(const ComponentStyle& o) const {
    return levels == o.levels && precincts == o.precincts && block_w_log2 == o.block_w_log2 && block_h_log2 == o.block_h_log2;
  }
};

// What the codestream says and how it is coded (COD, COC, QCD and the rate targets).
struct CodingParams {
  bool reversible = true;  // the 5/3, no quantisation; else the 9/7, quantised
  int levels = 5;          // COD's (component 0's)
  bool mct = false;        // the RCT or ICT on components 0..2
  int block_w_log2 = 6, block_h_log2 = 6;  // code-blocks 2^2..2^10 a side, area <= 4096
  // Precinct sizes (log2, 0..15) per resolution, [0] the lowest; empty: the largest (2^15)
  // everywhere and none signalled in COD.
  std::vector<std::pair<int, int>> precincts;
  // Per component, its levels, precincts and code-blocks; empty: every component as COD's
  // fields. Component 0's must be COD's.
  std::vector<ComponentStyle> components;
  Progression order = Progression::LRCP;
  int layers = 1;
  uint8_t modes = 0;       // BlockMode bits
  bool sop = false, eph = false, plt = false, tlm = false;
  char tile_parts = 0;     // 0: one tile-part per tile; 'R', 'L' or 'C': a new one where that index changes
  int guard_bits = -1;     // 0..7; -1: 2, or more where the 5/3's coefficients need them
  double base_step = 1.0;  // the 9/7's step before division by each band's norm
  // Per layer, at most how many bytes the whole codestream may have up to and with it (0: no
  // limit, every pass; only the last layer may be lossless), or the PSNR (dB) it must reach
  // at least; one of the two lists, with `layers` entries, or both empty (lossless).
  std::vector<double> layer_bytes;
  std::vector<double> layer_psnr;
  std::string comment;     // a COM marker segment (Latin-1 text); empty: none
  int threads = 0;         // CPU threads for Tier-1 (0: one per core this process may use)
};

// The canvas (SIZ).
struct StreamInfo {
  uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;                    // the image area on the canvas
  uint32_t tile_x0 = 0, tile_y0 = 0, tile_w = 0, tile_h = 0;  // the tile grid (as SIZ holds it)
  std::vector<ComponentInfo> components;
};

// One tile-component's coefficients as the front stage left them (OpenJPEG's layout): int32
// (5/3) or float (9/7), `stride` elements apart, each band where j2k_plan_get_band says.
struct TileComponentInput {
  j2k_rect rect{};  // on the component's grid
  int levels = 0;
  const void* data = nullptr;
  ptrdiff_t stride = 0;
  struct Band {
    j2k_band_type type;
    j2k_rect rect;        // on the band's grid
    int64_t col, row;     // its top-left in the array
  };
  std::vector<Band> bands;  // LL, then HL, LH, HH from the coarsest level
};

// What the writer measured, for a report.
struct CodestreamStats {
  double tier1_ms = 0, rate_ms = 0, tier2_ms = 0;
  std::vector<double> layer_psnr;  // estimated from the distortions, per layer
};

// The codestream of every tile (raster order; per tile its components in order). Throws
// j2k::Error naming the cause for parameters the standard or this writer does not allow.
std::vector<uint8_t> write_codestream(const StreamInfo& info, const CodingParams& params,
                                      const std::vector<std::vector<TileComponentInput>>& tiles,
                                      CodestreamStats* stats = nullptr);

// Component c's levels and precincts.
ComponentStyle component_style(const CodingParams& params, size_t c);

// Checks `params` against the standard's limits before any work; throws j2k::Error naming the
// first problem. write_codestream calls it too.
void check_params(const CodingParams& params, size_t components);

}  // namespace j2k::codec
