// SPDX-License-Identifier: BSD-2-Clause
// Test helper: one stream of each class of hostile input that made the decoder's work or
// memory grow out of proportion to its bytes (issue 45), at full size (what the issue
// measured: 65,535 tiles, 16,384 components, thousands of POC entries) or small (a few
// hundred bytes, the same shape: the structure-aware fuzzer's seeds). Written byte by byte
// with empty_packet_stream.hpp (every packet present and empty) and forged_codestream.hpp (a
// header that lies, nearly no data).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/codestream_units.hpp"
#include "tests/support/empty_packet_stream.hpp"
#include "tests/support/forged_codestream.hpp"

namespace test_support {

struct HostileStream {
  std::string name;  // also the seed's file name, less .j2k
  std::vector<uint8_t> bytes;
  bool allow_partial = false;  // decoded as --allow-partial (the class needs a cut tile)
};

// `real`: a small valid codestream (one code-block with data at least), for the classes
// that need packets with bytes (RGN's shift applies to included code-blocks only); empty:
// those classes are left out.
inline std::vector<HostileStream> hostile_streams(bool full, const std::vector<uint8_t>& real = {}) {
  std::vector<HostileStream> out;
  {  // Tiles x tile-parts: every tile in 4 tile-parts, interleaved (tile-part j of every
     // tile, then j + 1), headers in the packets or in PPM.
    EmptyPacketStream s;
    s.tiles_x = full ? 255 : 2, s.tiles_y = full ? 257 : 2;
    s.tile_size = 8, s.levels = 3, s.tile_parts = 4, s.interleaved = true;
    out.push_back({"tiles_x_tile_parts", s.bytes()});
    s.ppm = true;
    out.push_back({"tiles_x_tile_parts_ppm", s.bytes()});
  }
  {  // 65,535 tiles of 5 levels, one tile-part each.
    EmptyPacketStream s;
    s.tiles_x = full ? 255 : 3, s.tiles_y = full ? 257 : 3;
    s.tile_size = 32, s.levels = 5;
    out.push_back({"tiles_5_levels", s.bytes()});
  }
  {  // POC entries: as many as the header holds over a 16 x 16 image (each sends nothing new
     // after the first), and entries x packets: changes in turn over 2 x 2 precincts.
    EmptyPacketStream s;
    s.tile_size = 16, s.levels = 4;
    for (int i = 0; i < (full ? 80000 : 24); ++i) s.poc.push_back({0, 0, 1, 5, 1, i % 5});
    out.push_back({"poc_entries", s.bytes()});
    EmptyPacketStream p;
    p.tile_size = full ? 256 : 16, p.levels = full ? 5 : 2, p.layers = 4, p.precinct_log2 = 1;
    for (int i = 0; i < (full ? 4000 : 12); ++i) p.poc.push_back({i % 3, 0, 1 + i % 4, 6, 1, i % 5});
    out.push_back({"poc_x_packets", p.bytes()});
  }
  {  // 4 x 4 code-blocks on a 16384^2 image, in one tile: 16.7 million blocks, 102 bytes.
    ForgedCodestream f;
    f.x1 = f.y1 = f.tile_w = f.tile_h = 16384;
    f.block_w_log2 = f.block_h_log2 = 2;
    f.packet_bytes = 6;  // a byte for each of its packets
    out.push_back({"tiny_blocks_large_image", f.bytes()});
    // 1 x 1 precincts (2 x 2 above the lowest resolution) on 8192^2, its data cut: a
    // partial decode does not bound the precincts by the bytes.
    ForgedCodestream p;
    p.x1 = p.y1 = p.tile_w = p.tile_h = 8192;
    p.precinct_log2 = 1;
    p.cut = true;
    out.push_back({"precincts_1x1_cut", p.bytes(), true});
  }
  {  // Many components, each of 32 levels.
    ForgedCodestream f;
    f.components.assign(full ? 16384 : 60, ForgedComponent{});
    f.levels = 32;
    f.x1 = f.y1 = f.tile_w = f.tile_h = 64;
    out.push_back({"components_x_levels", f.bytes()});
  }
  {  // Tiles x components: 65,535 tiles of 16,384 components, one tile with data (each tile
     // resolved its own coding: terabytes), then every tile's header with a COD of its own.
    ForgedCodestream f;
    f.x1 = 255, f.y1 = 257, f.tile_w = f.tile_h = 1, f.levels = 0;
    f.components.assign(full ? 16384 : 100, ForgedComponent{});
    out.push_back({"tiles_x_components", f.bytes()});
    f.tiles_with_data = full ? 65535 : 8;
    f.cod_in_tiles = true;
    out.push_back({"tile_codings_x_components", f.bytes()});
  }
  {  // Tile counts: the most a stream may have (65,535 of 1 x 1, one with data), one more,
     // and 2^32 - 1 each way (whose product overflowed).
    ForgedCodestream f;
    f.x1 = 255, f.y1 = 257, f.tile_w = f.tile_h = 1, f.levels = 0;
    out.push_back({"tiles_65535", f.bytes()});
    f.x1 = 256, f.y1 = 256;
    out.push_back({"tiles_65536", f.bytes()});
    f.x1 = f.y1 = 0xFFFFFFFFu;
    out.push_back({"tiles_2p32_each_way", f.bytes()});
  }
  {  // Sizes whose byte counts wrap past 64 bits (header_arithmetic_test).
    ForgedCodestream f;
    f.x1 = 0xFFFFFFFFu, f.y1 = (1u << 31) + 1, f.tile_w = f.tile_h = 1u << 24;
    f.components = {ForgedComponent{16, false, 1, 1}};
    out.push_back({"image_bytes_past_2p64", f.bytes()});
    f.x1 = 1u << 31, f.y1 = (1u << 30) - (1u << 18);
    f.components.assign(4, ForgedComponent{});
    out.push_back({"budget_sum_wraps", f.bytes()});
  }
  if (!real.empty()) {  // RGN's largest shift, 255, on a real stream's blocks.
    if (auto units = parse_units(real.data(), real.size())) {
      size_t at = 0;
      while (at < units->size() && (*units)[at].marker != kSOT) ++at;
      units->insert(units->begin() + static_cast<std::ptrdiff_t>(at), Unit{kRGN, {0, 0, 255}, false});
      out.push_back({"rgn_shift_255", write_units(*units)});
    }
  }
  return out;
}

}  // namespace test_support
