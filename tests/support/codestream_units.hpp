// SPDX-License-Identifier: BSD-2-Clause
// A codestream as the list of its markers (ISO/IEC 15444-1 Annex A), for tools that edit
// streams field by field and write them back well-formed: the structure-aware fuzzer's
// mutator (decode_structure_fuzzer.cpp) and the hostile seeds' writer
// (make_hostile_seeds.cpp). Marker segments keep their parameters; an SOD keeps its tile-part's
// data. Writing recomputes each segment's length and each SOT's Psot, so that an edit that
// adds or removes bytes keeps the stream parseable (unless the SOT is marked to lie).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace test_support {

constexpr uint16_t kSOC = 0xFF4F, kSIZ = 0xFF51, kCOD = 0xFF52, kCOC = 0xFF53, kTLM = 0xFF55, kPLT = 0xFF58, kQCD = 0xFF5C,
                   kQCC = 0xFF5D, kRGN = 0xFF5E, kPOC = 0xFF5F, kPPM = 0xFF60, kPPT = 0xFF61, kSOT = 0xFF90, kSOD = 0xFF93,
                   kEOC = 0xFFD9;

struct Unit {
  uint16_t marker = 0;
  std::vector<uint8_t> body;  // a segment's parameters (after Lxxx); SOD: the tile-part's data
  bool keep_psot = false;     // SOT: write its Psot as it is, not the tile-part's length
};

// Markers without a segment: SOC, SOD, EOC and 0xFF30..0xFF3F (A.1.4).
inline bool has_segment(uint16_t m) { return m != kSOC && m != kSOD && m != kEOC && (m & 0xFFF0) != 0xFF30; }

inline uint32_t get_be(const std::vector<uint8_t>& b, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | (at + static_cast<size_t>(i) < b.size() ? b[at + static_cast<size_t>(i)] : 0);
  return v;
}
inline void put_be(std::vector<uint8_t>& b, size_t at, int bytes, uint32_t v) {
  for (int i = 0; i < bytes; ++i)
    if (at + static_cast<size_t>(i) < b.size()) b[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * (bytes - 1 - i)));
}

// The stream's units, or nothing where it is no codestream whose segments' lengths hold. A
// tile-part's data runs to its Psot, or (Psot 0, or past the end) to EOC at the end of the
// stream or the end, and then its SOT keeps its Psot; a stream may stop anywhere after a
// whole unit. Writing the units back gives the bytes parsed.
inline std::optional<std::vector<Unit>> parse_units(const uint8_t* p, size_t n) {
  if (n < 2 || p[0] != 0xFF || p[1] != 0x4F) return std::nullopt;
  std::vector<Unit> out{Unit{kSOC, {}, false}};
  size_t pos = 2, part_end = 0, last_sot = SIZE_MAX;
  while (pos + 2 <= n) {
    const auto m = static_cast<uint16_t>(p[pos] << 8 | p[pos + 1]);
    if ((m >> 8) != 0xFF) return std::nullopt;
    if (m == kEOC) {
      out.push_back(Unit{m, {}, false});
      break;
    }
    if (m == kSOD) {
      pos += 2;
      size_t end = part_end;
      if (end < pos || end > n) {
        end = n >= 2 && p[n - 2] == 0xFF && p[n - 1] == 0xD9 && n - 2 >= pos ? n - 2 : n;
        if (last_sot < out.size()) out[last_sot].keep_psot = true;  // 0, or not its length: kept as said
      }
      out.push_back(Unit{m, std::vector<uint8_t>(p + pos, p + end), false});
      pos = end;
      continue;
    }
    if (!has_segment(m)) {
      out.push_back(Unit{m, {}, false});
      pos += 2;
      continue;
    }
    if (pos + 4 > n) return std::nullopt;
    const size_t length = static_cast<size_t>(p[pos + 2] << 8 | p[pos + 3]);
    if (length < 2 || pos + 2 + length > n) return std::nullopt;
    Unit u{m, std::vector<uint8_t>(p + pos + 4, p + pos + 2 + length), false};
    if (m == kSOT) {
      const uint32_t psot = get_be(u.body, 2, 4);
      part_end = psot == 0 ? 0 : pos + psot;
      last_sot = out.size();
    }
    out.push_back(std::move(u));
    pos += 2 + length;
  }
  return out;
}

// The units written back: each segment's length from its parameters (cut to 65,533 bytes),
// each SOT's Psot from its tile-part's bytes unless it keeps its own.
inline std::vector<uint8_t> write_units(const std::vector<Unit>& units) {
  std::vector<uint8_t> s;
  size_t sot = SIZE_MAX;
  bool keep = false;
  auto close_part = [&] {
    if (sot != SIZE_MAX && !keep) {
      const auto psot = static_cast<uint32_t>(s.size() - sot);
      for (int k = 0; k < 4; ++k) s[sot + 6 + static_cast<size_t>(k)] = static_cast<uint8_t>(psot >> (24 - 8 * k));
    }
    sot = SIZE_MAX;
  };
  for (const Unit& u : units) {
    if (u.marker == kSOT || u.marker == kEOC) close_part();
    s.push_back(static_cast<uint8_t>(u.marker >> 8));
    s.push_back(static_cast<uint8_t>(u.marker & 0xFF));
    if (u.marker == kSOD) {
      s.insert(s.end(), u.body.begin(), u.body.end());
      continue;
    }
    if (!has_segment(u.marker)) continue;
    const size_t n = u.body.size() < 65533 ? u.body.size() : 65533;
    if (u.marker == kSOT && n >= 6) {
      sot = s.size() - 2;
      keep = u.keep_psot;
    }
    s.push_back(static_cast<uint8_t>((n + 2) >> 8));
    s.push_back(static_cast<uint8_t>((n + 2) & 0xFF));
    s.insert(s.end(), u.body.begin(), u.body.begin() + static_cast<std::ptrdiff_t>(n));
  }
  close_part();
  return s;
}

// SIZ's Csiz, 0 where there is no SIZ.
inline size_t component_count(const std::vector<Unit>& units) {
  for (const Unit& u : units)
    if (u.marker == kSIZ) return get_be(u.body, 34, 2);
  return 0;
}

}  // namespace test_support
