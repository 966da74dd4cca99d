// A JPEG 2000 Part 1 codestream (ISO/IEC 15444-1 Annex A) from the front stage's output:
// SOC, SIZ, COD, QCD, then per tile SOT, SOD and its packets, then EOC. This first writer
// makes lossless streams of the reversible 5/3: no quantisation, one quality layer, LRCP
// order, 64 x 64 code-blocks, the largest precincts (2^15), no mode switches.
#pragma once
#include <cstdint>
#include <vector>

#include "j2kfront/j2kfront.h"

namespace j2k::codec {

struct ComponentInfo {
  int precision = 8;  // bits, 1..16 (for SIZ)
  bool is_signed = false;
  int dx = 1, dy = 1;
};

// The canvas (SIZ) and the coding parameters (COD).
struct StreamInfo {
  uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;             // the image area on the canvas
  uint32_t tile_x0 = 0, tile_y0 = 0, tile_w = 0, tile_h = 0;  // the tile grid (as SIZ holds it)
  std::vector<ComponentInfo> components;
  int levels = 5;
  bool mct = false;  // the RCT on components 0..2
  int threads = 0;   // CPU threads for Tier-1 (0: one per core this process may use)
};

// One tile-component's coefficients as the front stage left them (OpenJPEG's layout): int32,
// `stride` elements apart, each band where j2k_plan_get_band says.
struct TileComponentInput {
  j2k_rect rect{};  // on the component's grid
  int levels = 0;
  const int32_t* data = nullptr;
  ptrdiff_t stride = 0;
  struct Band {
    j2k_band_type type;
    j2k_rect rect;        // on the band's grid
    int64_t col, row;     // its top-left in the array
  };
  std::vector<Band> bands;  // LL, then HL, LH, HH from the coarsest level
};

// The codestream of every tile (raster order; per tile its components in order). Throws
// j2k::Error naming the cause for what this writer does not handle.
std::vector<uint8_t> write_codestream(const StreamInfo& info,
                                      const std::vector<std::vector<TileComponentInput>>& tiles);

}  // namespace j2k::codec
