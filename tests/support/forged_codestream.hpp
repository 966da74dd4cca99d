// SPDX-License-Identifier: BSD-2-Clause
// Test helper: a codestream whose main header says whatever a test asks (image and tile sizes
// up to 2^32 - 1, any components, levels, code-block and precinct exponents, layers, RGN
// shifts) followed by a few empty tile-parts: headers that lie about sizes no encoder would
// write, byte by byte. Where empty_packet_stream.hpp writes every packet of a small image,
// this writes a header for a huge one and (nearly) no data.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace test_support {

struct ForgedComponent {
  int precision = 8;  // 1..38 (Ssiz)
  bool is_signed = false;
  int dx = 1, dy = 1;
};

struct ForgedCodestream {
  uint32_t x0 = 0, y0 = 0, x1 = 64, y1 = 64;            // image area on the reference grid
  uint32_t tile_x0 = 0, tile_y0 = 0, tile_w = 64, tile_h = 64;
  std::vector<ForgedComponent> components = std::vector<ForgedComponent>(1);
  int levels = 5;
  int block_w_log2 = 6, block_h_log2 = 6;  // 2..10 each (COD says them less 2)
  int precinct_log2 = 15;                  // on every resolution but the lowest (which takes
                                           // the smallest allowed there, 0 if this is 1); 15: none
  int layers = 1;
  int order = 0;
  int rgn_shift = -1;                      // an RGN segment for component 0; -1: none
  std::vector<std::array<int, 6>> poc;     // (RSpoc, CSpoc, LYEpoc, REpoc, CEpoc, Ppoc)
  // Tile-parts: the first `tiles_with_data` tiles get one each, of `packet_bytes` zeros (each
  // an empty packet).
  int tiles_with_data = 1;
  int packet_bytes = 1;
  bool cut = false;  // Psot says 1000 bytes more than there are: the data cut short
  bool cod_in_tiles = false;  // each tile-part's header repeats COD: a coding of its own

  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> s;
    auto u8 = [&](uint32_t v) { s.push_back(static_cast<uint8_t>(v)); };
    auto u16 = [&](uint32_t v) { u8(v >> 8), u8(v & 0xFF); };
    auto u32 = [&](uint32_t v) { u16(v >> 16), u16(v & 0xFFFF); };
    const size_t nc = components.size();
    const bool wide = nc >= 257;  // component indices of 16 bits
    u16(0xFF4F);
    u16(0xFF51), u16(static_cast<uint32_t>(38 + 3 * nc)), u16(0);
    u32(x1), u32(y1), u32(x0), u32(y0), u32(tile_w), u32(tile_h), u32(tile_x0), u32(tile_y0);
    u16(static_cast<uint32_t>(nc));
    for (const ForgedComponent& c : components)
      u8(static_cast<uint32_t>(c.precision - 1) | (c.is_signed ? 0x80u : 0u)), u8(static_cast<uint32_t>(c.dx)),
          u8(static_cast<uint32_t>(c.dy));
    const bool precincts = precinct_log2 != 15;
    auto cod = [&] {
      u16(0xFF52), u16(static_cast<uint32_t>(12 + (precincts ? levels + 1 : 0)));
      u8(precincts ? 1 : 0), u8(static_cast<uint32_t>(order)), u16(static_cast<uint32_t>(layers)), u8(0);
      u8(static_cast<uint32_t>(levels)), u8(static_cast<uint32_t>(block_w_log2 - 2)), u8(static_cast<uint32_t>(block_h_log2 - 2));
      u8(0), u8(1);
      for (int r = 0; precincts && r <= levels; ++r) {
        const int p = r == 0 ? precinct_log2 - 1 : precinct_log2;  // B.6: r = 0's precincts may be 1 x 1
        u8(static_cast<uint32_t>(p < 0 ? 0 : p) * 17);
      }
    };
    cod();
    u16(0xFF5C), u16(static_cast<uint32_t>(3 + 3 * levels + 1)), u8(0x40);  // QCD: reversible, 2 guard bits
    for (int b = 0; b < 3 * levels + 1; ++b) u8(10 << 3);
    if (rgn_shift >= 0) {
      u16(0xFF5E), u16(wide ? 6 : 5);
      if (wide) u16(0);
      else u8(0);
      u8(0), u8(static_cast<uint32_t>(rgn_shift));
    }
    if (!poc.empty()) {
      u16(0xFF5F), u16(static_cast<uint32_t>(2 + (wide ? 9 : 7) * poc.size()));
      for (const auto& e : poc) {
        u8(static_cast<uint32_t>(e[0]));
        if (wide) u16(static_cast<uint32_t>(e[1]));
        else u8(static_cast<uint32_t>(e[1]));
        u16(static_cast<uint32_t>(e[2])), u8(static_cast<uint32_t>(e[3]));
        if (wide) u16(static_cast<uint32_t>(e[4]));
        else u8(static_cast<uint32_t>(e[4]));
        u8(static_cast<uint32_t>(e[5]));
      }
    }
    for (int t = 0; t < tiles_with_data; ++t) {
      const size_t sot = s.size();
      u16(0xFF90), u16(10), u16(static_cast<uint32_t>(t)), u32(0), u8(0), u8(1);
      if (cod_in_tiles) cod();
      u16(0xFF93);
      for (int k = 0; k < packet_bytes; ++k) u8(0);
      const auto psot = static_cast<uint32_t>(s.size() - sot + (cut ? 1000 : 0));
      for (int k = 0; k < 4; ++k) s[sot + 6 + static_cast<size_t>(k)] = static_cast<uint8_t>(psot >> (24 - 8 * k));
    }
    u16(0xFFD9);
    return s;
  }
};

}  // namespace test_support
