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

#include "codec/params/coding_params.hpp"
#include "codec/params/tile_input.hpp"
#include "j2kfront/j2kfront.h"

namespace j2k::codec {

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


}  // namespace j2k::codec
