// SPDX-License-Identifier: BSD-2-Clause
// Test helper: a JPEG 2000 codestream written byte by byte whose packets are all empty (one
// byte, 0x00: "no code-block included", B.10.3), so that any number of tiles, tile-parts,
// precincts and progression changes costs a byte per packet and the packets' order does not
// change their bytes. The shapes of the streams that made the decoder's work or memory grow
// faster than its input (issue 45): many tiles in interleaved tile-parts, headers in PPM, many
// POC entries, tiny code-blocks or precincts on a large image, thousands of components.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace test_support {

struct EmptyPacketStream {
  int tiles_x = 1, tiles_y = 1;
  int tile_size = 8;    // samples a side, a power of 2 at least 2^levels: every resolution
                        // has samples, and precincts start at the tile's corner
  int levels = 3;
  int layers = 1;
  int components = 1;
  int precinct_log2 = 15;  // 2^p x 2^p precincts on every resolution (15: COD says none)
  int block_log2 = 6;      // 2^b x 2^b code-blocks (2..10, b + b <= 12)
  int order = 0;           // COD's progression (0 LRCP .. 4 CPRL)
  int tile_parts = 1;      // per tile, the packets split as evenly as they go
  bool interleaved = false;  // tile-parts in stream order part by part (every tile's first,
                             // then every tile's second...), not tile by tile
  bool ppm = false;          // packet headers in the main header's PPM segments
  // POC entries (RSpoc, CSpoc, LYEpoc, REpoc, CEpoc, Ppoc), each segment at most
  // `poc_per_segment` of them; in the main header, or in each tile's first tile-part header.
  std::vector<std::array<int, 6>> poc;
  size_t poc_per_segment = 9361;  // (65535 - 2) / 7
  bool poc_in_tiles = false;
  int64_t packets = -1;  // the packets each tile holds; -1: packets_per_tile()
  bool sop = false;      // each packet after an SOP marker segment (7 bytes a packet, not 1)
  // The last tile-part's Psot counts this many bytes more than the stream holds (0: none): a
  // stream cut short, whose tile's bytes say nothing of the packets it had.
  uint32_t cut_bytes = 0;

  // Packets in each tile: every layer, component and resolution, times its precincts.
  int64_t packets_per_tile() const {
    int64_t precincts = 0;
    for (int r = 0; r <= levels; ++r) {
      const int64_t side = tile_size >> (levels - r);
      const int64_t n = (side + (int64_t{1} << std::min(precinct_log2, 30)) - 1) >> std::min(precinct_log2, 30);
      precincts += n * n;
    }
    return precincts * components * layers;
  }

  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> s;
    auto u8 = [&](uint32_t v) { s.push_back(static_cast<uint8_t>(v)); };
    auto u16 = [&](uint32_t v) { u8(v >> 8), u8(v & 0xFF); };
    auto u32 = [&](uint32_t v) { u16(v >> 16), u16(v & 0xFFFF); };
    const bool precincts = precinct_log2 != 15;
    u16(0xFF4F);  // SOC
    u16(0xFF51), u16(38 + 3 * components), u16(0);  // SIZ
    u32(static_cast<uint32_t>(tiles_x * tile_size)), u32(static_cast<uint32_t>(tiles_y * tile_size)), u32(0), u32(0);
    u32(static_cast<uint32_t>(tile_size)), u32(static_cast<uint32_t>(tile_size)), u32(0), u32(0);
    u16(static_cast<uint32_t>(components));
    for (int c = 0; c < components; ++c) u8(7), u8(1), u8(1);  // 8-bit unsigned, no subsampling
    u16(0xFF52), u16(12 + (precincts ? levels + 1 : 0));        // COD
    u8((precincts ? 1 : 0) | (sop ? 2 : 0)), u8(static_cast<uint32_t>(order)), u16(static_cast<uint32_t>(layers)), u8(0);
    u8(static_cast<uint32_t>(levels)), u8(static_cast<uint32_t>(block_log2 - 2)), u8(static_cast<uint32_t>(block_log2 - 2)), u8(0), u8(1);  // 5/3
    for (int r = 0; precincts && r <= levels; ++r) u8(static_cast<uint32_t>(precinct_log2 * 17));
    u16(0xFF5C), u16(3 + 3 * levels + 1), u8(0x40);  // QCD: no quantisation, 2 guard bits
    for (int b = 0; b < 3 * levels + 1; ++b) u8(10 << 3);
    auto put_poc = [&] {
      for (size_t i = 0; i < poc.size(); i += poc_per_segment) {
        const size_t n = std::min(poc_per_segment, poc.size() - i);
        u16(0xFF5F), u16(static_cast<uint32_t>(2 + 7 * n));
        for (size_t k = i; k < i + n; ++k) {
          const auto& e = poc[k];
          u8(e[0]), u8(e[1]), u16(e[2]), u8(e[3]), u8(e[4]), u8(e[5]);
        }
      }
    };
    if (!poc_in_tiles) put_poc();

    // Tile-part j of a tile: its share of the packets, each a byte 0x00.
    const int64_t held = packets < 0 ? packets_per_tile() : packets;
    auto share = [&](int j) { return held * (j + 1) / tile_parts - held * j / tile_parts; };
    const int tiles = tiles_x * tiles_y;
    std::vector<std::array<int, 2>> stream;  // (tile, part) in stream order
    for (int a = 0; a < (interleaved ? tile_parts : tiles); ++a)
      for (int b = 0; b < (interleaved ? tiles : tile_parts); ++b) stream.push_back(interleaved ? std::array<int, 2>{b, a} : std::array<int, 2>{a, b});
    if (ppm) {
      // Each tile-part's Nppm and headers, whole in one PPM segment (OpenJPEG reads no Nppm
      // split between two), as many as a segment holds.
      std::vector<uint8_t> segment;
      uint32_t z = 0;
      auto flush = [&] {
        u16(0xFF60), u16(static_cast<uint32_t>(3 + segment.size())), u8(z++ & 0xFF);
        s.insert(s.end(), segment.begin(), segment.end());
        segment.clear();
      };
      for (const auto& [t, j] : stream) {
        const auto n = static_cast<uint32_t>(share(j));
        if (segment.size() + 4 + n > 65532) flush();
        for (int k = 24; k >= 0; k -= 8) segment.push_back(static_cast<uint8_t>(n >> k));
        segment.insert(segment.end(), n, 0);
      }
      if (!segment.empty()) flush();
    }
    for (size_t i = 0; i < stream.size(); ++i) {
      const auto [t, j] = stream[i];
      const size_t sot = s.size();
      u16(0xFF90), u16(10), u16(static_cast<uint32_t>(t)), u32(0), u8(static_cast<uint32_t>(j)), u8(static_cast<uint32_t>(tile_parts));
      if (poc_in_tiles && j == 0) put_poc();
      u16(0xFF93);
      for (int64_t k = 0; k < share(j) && !ppm; ++k) {
        if (sop) u16(0xFF91), u16(4), u16(0);  // Nsop: not checked by the readers
        u8(0);
      }
      const auto psot = static_cast<uint32_t>(s.size() - sot) + (i + 1 == stream.size() ? cut_bytes : 0);
      for (int k = 0; k < 4; ++k) s[sot + 6 + static_cast<size_t>(k)] = static_cast<uint8_t>(psot >> (24 - 8 * k));
    }
    if (cut_bytes == 0) u16(0xFFD9);
    return s;
  }
};

}  // namespace test_support
