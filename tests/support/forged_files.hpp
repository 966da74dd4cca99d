// SPDX-License-Identifier: BSD-2-Clause
// Test helper: small files whose headers promise far more than they hold, built byte by
// byte (no library would write them).
#pragma once
#include <cstdint>
#include <string>

namespace test_support {

// Little-endian fields, as a TIFF that starts "II" stores them.
inline void put_u16le(std::string& s, uint32_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>(v >> 8 & 0xff);
}
inline void put_u32le(std::string& s, uint32_t v) {
  put_u16le(s, v & 0xffff);
  put_u16le(s, v >> 16);
}

// A little-endian TIFF of one 16-bit gray block (a strip, or a tile with `tile` > 0) that
// declares w x h samples and stores `payload` as that block's bytes: a header that promises
// far more than the file holds.
inline std::string forged_tiff(uint32_t w, uint32_t h, uint16_t compression, uint32_t tile,
                               const std::string& payload) {
  std::string s = std::string("II*\0", 4);
  auto u16 = [&](uint32_t v) { put_u16le(s, v); };
  auto u32 = [&](uint32_t v) { put_u32le(s, v); };
  const uint32_t data = 8, ifd = data + static_cast<uint32_t>(payload.size());
  u32(ifd);
  s += payload;
  auto entry = [&](uint32_t tag, uint32_t type, uint32_t value) {
    u16(tag);
    u16(type);
    u32(1);
    if (type == 3) {
      u16(value);
      u16(0);
    } else {
      u32(value);
    }
  };
  u16(tile ? 10 : 9);
  entry(256, 4, w);                                    // ImageWidth
  entry(257, 4, h);                                    // ImageLength
  entry(258, 3, 16);                                   // BitsPerSample
  entry(259, 3, compression);                          // Compression
  entry(262, 3, 1);                                    // MinIsBlack
  if (!tile) entry(273, 4, data);                      // StripOffsets
  entry(277, 3, 1);                                    // SamplesPerPixel
  if (!tile) entry(278, 4, h);                         // RowsPerStrip: one strip
  if (!tile) entry(279, 4, static_cast<uint32_t>(payload.size()));  // StripByteCounts
  if (tile) {
    entry(322, 4, tile);                               // TileWidth
    entry(323, 4, tile);                               // TileLength
    entry(324, 4, data);                               // TileOffsets
    entry(325, 4, static_cast<uint32_t>(payload.size()));  // TileByteCounts
  }
  u32(0);
  return s;
}

}  // namespace test_support
