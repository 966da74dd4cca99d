// SPDX-License-Identifier: BSD-2-Clause
// Test helper: rewrites a codestream written with SOP and EPH markers (opj_compress -SOP -EPH)
// so that its packet headers are packed in PPM or PPT marker segments (ISO/IEC 15444-1 A.7.4,
// A.7.5), as other encoders write them and opj_compress cannot. SOP and EPH make each packet's
// header findable without decoding it: a header runs from its SOP segment to its EPH marker,
// and neither 0xFF91 nor 0xFF92 can occur inside a header (bit stuffing) or a body (B.10.1,
// the MQ coder's byte stuffing). The segments are split small and written out of their index
// order, so that a reader must put them together by Zppm (Zppt) and follow an Nppm run from
// one segment into the next.
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace test_support {

struct PackedHeaderOptions {
  bool ppt = false;        // PPT segments in each tile-part's header, else PPM in the main header
  bool keep_eph = false;   // EPH stays (in the packed headers, A.8.2), else dropped and COD's
                           // Scod bit 2 cleared
  size_t segment_bytes = 40;  // Ippm (Ippt) bytes a segment holds at most, more where 40
                              // segments of a tile-part would not hold them
  unsigned shuffle_seed = 1;  // the order the segments are written in (0: their index order)
};

namespace packed_detail {

inline uint32_t be16(const std::vector<uint8_t>& s, size_t at) { return static_cast<uint32_t>(s.at(at) << 8 | s.at(at + 1)); }
inline uint32_t be32(const std::vector<uint8_t>& s, size_t at) { return be16(s, at) << 16 | be16(s, at + 2); }
inline void put16(std::vector<uint8_t>& s, uint32_t v) { s.push_back(static_cast<uint8_t>(v >> 8)), s.push_back(static_cast<uint8_t>(v)); }
inline void put32(std::vector<uint8_t>& s, uint32_t v) { put16(s, v >> 16), put16(s, v & 0xFFFF); }

// `data` in marker segments `marker` (Zppm/Zppt, then at most `limit` bytes each), their
// indices counted from `z` on (and `z` moved past them), written in a shuffled order. `whole` (PPM): offsets where a 4-byte
// Nppm starts, never split between two segments (OpenJPEG reads none split so; the data after
// it may run on).
inline std::vector<uint8_t> segments(uint16_t marker, const std::vector<uint8_t>& data, const std::vector<size_t>& whole,
                                     size_t limit, unsigned seed, size_t& z) {
  limit = std::max(limit, data.size() / 40 + 8);  // 40 segments at most: 256 hold a tile's
  std::vector<std::vector<uint8_t>> parts(1);
  size_t w = 0;
  for (size_t i = 0; i < data.size(); ++i) {
    const bool nppm = w < whole.size() && whole[w] == i;
    if (nppm) ++w;
    if (parts.back().size() + (nppm ? 4 : 1) > limit) parts.emplace_back();
    parts.back().push_back(data[i]);
    if (nppm) parts.back().insert(parts.back().end(), data.begin() + static_cast<std::ptrdiff_t>(i + 1), data.begin() + static_cast<std::ptrdiff_t>(i + 4)), i += 3;
  }
  if (z + parts.size() > 256) throw std::runtime_error("packed_header_stream: more than 256 segments");
  std::vector<size_t> order(parts.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  if (seed != 0) std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  std::vector<uint8_t> out;
  for (size_t k : order) {
    put16(out, marker), put16(out, static_cast<uint32_t>(3 + parts[k].size()));
    out.push_back(static_cast<uint8_t>(z + k));
    out.insert(out.end(), parts[k].begin(), parts[k].end());
  }
  z += parts.size();
  return out;
}

}  // namespace packed_detail

inline std::vector<uint8_t> packed_header_stream(const std::vector<uint8_t>& in, const PackedHeaderOptions& o) {
  using namespace packed_detail;
  size_t at = 2;  // after SOC
  std::vector<uint8_t> main(in.begin(), in.begin() + 2);
  while (be16(in, at) != 0xFF90) {
    const size_t end = at + 2 + be16(in, at + 2);
    std::vector<uint8_t> seg(in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(end));
    if (be16(in, at) == 0xFF52) {
      if (!(seg[4] & 4)) throw std::runtime_error("packed_header_stream: the stream has no EPH markers");
      if (!o.keep_eph) seg[4] = static_cast<uint8_t>(seg[4] & ~4);
    }
    main.insert(main.end(), seg.begin(), seg.end());
    at = end;
  }
  // Each tile-part: its header (SOT to SOD, without SOD), its bodies (with their SOPs) and its
  // packed headers.
  struct Part {
    std::vector<uint8_t> header, body, packed;
  };
  std::vector<Part> parts;
  while (be16(in, at) == 0xFF90) {
    const size_t end = at + be32(in, at + 6);
    Part p;
    size_t h = at;
    while (be16(in, h) != 0xFF93) h += 2 + be16(in, h + 2);
    p.header.assign(in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(h));
    for (size_t k = h + 2; k < end;) {
      if (be16(in, k) != 0xFF91) throw std::runtime_error("packed_header_stream: a packet without SOP");
      p.body.insert(p.body.end(), in.begin() + static_cast<std::ptrdiff_t>(k), in.begin() + static_cast<std::ptrdiff_t>(k + 6));
      size_t e = k + 6;
      while (be16(in, e) != 0xFF92) ++e;
      p.packed.insert(p.packed.end(), in.begin() + static_cast<std::ptrdiff_t>(k + 6), in.begin() + static_cast<std::ptrdiff_t>(o.keep_eph ? e + 2 : e));
      k = e + 2;
      while (k < end && !(k + 1 < end && in[k] == 0xFF && in[k + 1] == 0x91)) p.body.push_back(in[k++]);
    }
    parts.push_back(std::move(p));
    at = end;
  }
  if (!o.ppt) {
    std::vector<uint8_t> all;
    std::vector<size_t> nppm;
    for (const Part& p : parts) {
      nppm.push_back(all.size());
      put32(all, static_cast<uint32_t>(p.packed.size()));
      all.insert(all.end(), p.packed.begin(), p.packed.end());
    }
    size_t z = 0;
    const std::vector<uint8_t> ppm = segments(0xFF60, all, nppm, o.segment_bytes, o.shuffle_seed, z);
    main.insert(main.end(), ppm.begin(), ppm.end());
  }
  std::vector<uint8_t> out = main;
  std::vector<size_t> zppt(65536, 0);  // per tile: Zppt runs on over its tile-parts (A.7.5)
  for (const Part& p : parts) {
    const size_t sot = out.size();
    out.insert(out.end(), p.header.begin(), p.header.end());
    if (o.ppt) {
      const std::vector<uint8_t> ppt = segments(0xFF61, p.packed, {}, o.segment_bytes, o.shuffle_seed, zppt[be16(p.header, 4)]);
      out.insert(out.end(), ppt.begin(), ppt.end());
    }
    put16(out, 0xFF93);
    out.insert(out.end(), p.body.begin(), p.body.end());
    const auto psot = static_cast<uint32_t>(out.size() - sot);
    for (int k = 0; k < 4; ++k) out[sot + 6 + static_cast<size_t>(k)] = static_cast<uint8_t>(psot >> (24 - 8 * k));
  }
  out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(at), in.end());  // EOC
  return out;
}

}  // namespace test_support
