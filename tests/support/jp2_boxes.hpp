// SPDX-License-Identifier: BSD-2-Clause
// Test helper: JP2 files built box by box around a codestream, for header boxes the project's
// writer does not make (a palette, a component mapping, any colour space or precision).
#pragma once
#include <cstdint>
#include <vector>

namespace test_support {

// `v` as `bytes` big-endian bytes, as every JP2 field is stored.
inline void put_be(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// A box: its length, its type, its contents.
inline std::vector<uint8_t> jp2_box(const char* type, const std::vector<uint8_t>& contents) {
  std::vector<uint8_t> b;
  put_be(b, 8 + contents.size(), 4);
  b.insert(b.end(), type, type + 4);
  b.insert(b.end(), contents.begin(), contents.end());
  return b;
}

// A JP2 file whose one w x h component of 8-bit indices (`codestream`) picks rows of `entries`,
// a palette of three columns of `bits` bits each (unsigned), mapped to three channels (cmap),
// in the colour space EnumCS `enum_cs`.
inline std::vector<uint8_t> palette_jp2(const std::vector<uint8_t>& codestream, uint32_t w, uint32_t h, int bits,
                                        int enum_cs, const std::vector<std::vector<uint64_t>>& entries) {
  std::vector<uint8_t> ihdr, colr = {1, 0, 0}, pclr, cmap;
  put_be(ihdr, h, 4), put_be(ihdr, w, 4), put_be(ihdr, 1, 2), put_be(ihdr, 7, 1), put_be(ihdr, 7, 1);
  put_be(ihdr, 0, 1), put_be(ihdr, 0, 1);
  put_be(colr, static_cast<uint64_t>(enum_cs), 4);
  put_be(pclr, entries.size(), 2), put_be(pclr, 3, 1);
  for (int c = 0; c < 3; ++c) put_be(pclr, static_cast<uint64_t>(bits - 1), 1);
  for (const auto& e : entries)
    for (int c = 0; c < 3; ++c) put_be(pclr, e[static_cast<size_t>(c)], (bits + 7) / 8);
  for (int c = 0; c < 3; ++c) put_be(cmap, 0, 2), put_be(cmap, 1, 1), put_be(cmap, static_cast<uint64_t>(c), 1);
  std::vector<uint8_t> header, file = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
  for (const auto& b : {jp2_box("ihdr", ihdr), jp2_box("colr", colr), jp2_box("pclr", pclr), jp2_box("cmap", cmap)})
    header.insert(header.end(), b.begin(), b.end());
  const std::vector<uint8_t> ftyp = {'j', 'p', '2', ' ', 0, 0, 0, 0, 'j', 'p', '2', ' '};
  for (const auto& b : {jp2_box("ftyp", ftyp), jp2_box("jp2h", header), jp2_box("jp2c", codestream)})
    file.insert(file.end(), b.begin(), b.end());
  return file;
}

}  // namespace test_support
