// SPDX-License-Identifier: BSD-2-Clause
#include "codec/codestream/codestream_reader.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "tiling/limits.hpp"

namespace j2k::codec {
namespace {

constexpr uint16_t kCAP = 0xFF50, kSOC = 0xFF4F, kSOT = 0xFF90, kSOD = 0xFF93, kEOC = 0xFFD9, kSIZ = 0xFF51, kCOD = 0xFF52,
                   kCOC = 0xFF53, kTLM = 0xFF55, kPLM = 0xFF57, kPLT = 0xFF58, kQCD = 0xFF5C, kQCC = 0xFF5D,
                   kRGN = 0xFF5E, kPOC = 0xFF5F, kPPM = 0xFF60, kPPT = 0xFF61, kCRG = 0xFF63, kCOM = 0xFF64;

std::string hex(uint32_t v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*X", digits, v);
  return buf;
}

// Tile-components whose coding a tile header may make its own (each resolved from its
// segments, a few hundred bytes): a base no real stream nears (16 tiles of 16,384 components),
// and 64 for each byte of the stream.
constexpr uint64_t kResolvedSpare = uint64_t{1} << 18;
constexpr uint64_t kResolvedPerByte = 64;

[[noreturn]] void corrupt(const std::string& what) { throw Error(ErrorCode::CorruptInput, what); }
[[noreturn]] void unsupported(const std::string& what) { throw Error(ErrorCode::UnsupportedInput, what); }

// A marker segment's parameters (after its length), read with bounds checks: a segment too
// short for what its fields say is an error naming it.
class Segment {
 public:
  Segment(const uint8_t* p, size_t n, std::string name) : p_(p), n_(n), name_(std::move(name)) {}
  uint32_t u8() { return take(1); }
  uint32_t u16() { return take(2); }
  uint32_t u32() { return take(4); }
  size_t left() const { return n_ - at_; }
  const uint8_t* here() const { return p_ + at_; }
  void skip(size_t k) {
    if (k > left()) fail("is shorter than its fields");
    at_ += k;
  }
  // Ccoc, Cqcc, Crgn, CSpoc...: 8 bits below 257 components, else 16.
  uint32_t component(size_t components) { return components < 257 ? u8() : u16(); }
  void end() {
    if (left() != 0) fail("has " + std::to_string(left()) + " bytes more than its fields");
  }
  [[noreturn]] void fail(const std::string& why) const { corrupt(name_ + " " + why); }
  const std::string& name() const { return name_; }

 private:
  uint32_t take(size_t k) {
    if (k > left()) fail("is shorter than its fields");
    uint32_t v = 0;
    for (size_t i = 0; i < k; ++i) v = v << 8 | p_[at_ + i];
    at_ += k;
    return v;
  }
  const uint8_t* p_;
  size_t n_, at_ = 0;
  std::string name_;
};

// COD's tile-wide fields (Scod, SGcod) and its SPcod.
struct CodSegment {
  Progression order;
  int layers;
  bool mct, sop, eph;
  ComponentCoding coding;
};

// What one header (the main one, or a tile's first tile-part's) says; unset where it is silent.
struct HeaderState {
  std::optional<CodSegment> cod;
  std::map<size_t, ComponentCoding> coc;
  std::optional<ComponentQuant> qcd;
  std::map<size_t, ComponentQuant> qcc;
  std::map<size_t, int> rgn;
  std::vector<PocEntry> poc;
  std::vector<PackedSegment> ppm;  // the main header's PPM segments, in stream order
};

// SPcod / SPcoc (Table A.15), with the precincts when `precincts` (Scod or Scoc bit 0).
ComponentCoding read_spcod(Segment& s, bool precincts) {
  ComponentCoding c;
  c.levels = static_cast<int>(s.u8());
  if (c.levels > kMaxLevels) s.fail("says " + std::to_string(c.levels) + " decomposition levels (at most 32)");
  const uint32_t xcb = s.u8(), ycb = s.u8();
  if (!valid_block_log2(static_cast<int>(xcb) + 2, static_cast<int>(ycb) + 2))
    s.fail("says code-blocks of 2^" + std::to_string(xcb + 2) + " x 2^" + std::to_string(ycb + 2) +
           " (at most 1024 a side and 4096 samples)");
  c.block_w_log2 = static_cast<int>(xcb) + 2;
  c.block_h_log2 = static_cast<int>(ycb) + 2;
  const uint32_t style = s.u8();
  // Bit 6: HT code-blocks (ISO/IEC 15444-15), decoded by Part 15's block coder; with bit 7 as
  // well, each block HT or Part 1 (HTMIXED, told block by block by the packet headers).
  if ((style & 0xC0) == 0x80) s.fail("has code-block style bit 7 (HT mixed) set without bit 6 (HT)");
  c.modes = static_cast<uint8_t>(style);
  const uint32_t transform = s.u8();
  if (transform > 1) unsupported(s.name() + ": wavelet transform " + std::to_string(transform) + " is a Part 2 extension");
  c.reversible = transform == 1;
  for (int r = 0; r <= c.levels; ++r) {
    if (!precincts) {
      c.precincts.emplace_back(15, 15);
      continue;
    }
    const uint32_t v = s.u8();
    const int ppx = static_cast<int>(v & 15), ppy = static_cast<int>(v >> 4);
    if (r > 0 && (ppx == 0 || ppy == 0))
      s.fail("says precincts of 2^" + std::to_string(ppx) + " x 2^" + std::to_string(ppy) + " at resolution " +
             std::to_string(r) + " (only the lowest may be 1 wide or high)");
    c.precincts.emplace_back(ppx, ppy);
  }
  return c;
}

CodSegment read_cod(Segment& s) {
  CodSegment c;
  const uint32_t scod = s.u8();
  if (scod & ~7u) unsupported("COD: coding style " + hex(scod, 2) + " has Part 2 bits (precinct partition offsets)");
  const uint32_t order = s.u8();
  if (order > 4) s.fail("says progression order " + std::to_string(order) + " (0 to 4)");
  c.order = static_cast<Progression>(order);
  c.layers = static_cast<int>(s.u16());
  if (c.layers == 0) s.fail("says 0 quality layers");
  const uint32_t mct = s.u8();
  if (mct > 1) unsupported("COD: multiple component transform " + std::to_string(mct) + " is a Part 2 extension");
  c.mct = mct == 1;
  c.sop = (scod & 2) != 0;
  c.eph = (scod & 4) != 0;
  c.coding = read_spcod(s, (scod & 1) != 0);
  s.end();
  return c;
}

ComponentQuant read_quant(Segment& s) {
  ComponentQuant q;
  const uint32_t sq = s.u8();
  q.guard_bits = static_cast<int>(sq >> 5);
  const uint32_t style = sq & 31;
  if (style > 2) s.fail("says quantisation style " + std::to_string(style) + " (0 to 2)");
  q.style = static_cast<ComponentQuant::Style>(style);
  if (q.style == ComponentQuant::None) {
    while (s.left() > 0) q.steps.emplace_back(static_cast<int>(s.u8() >> 3), 0);
  } else {
    if (s.left() % 2 != 0) s.fail("has an odd number of bytes of 16-bit steps");
    while (s.left() > 0) {
      const uint32_t v = s.u16();
      q.steps.emplace_back(static_cast<int>(v >> 11), static_cast<int>(v & 0x7FF));
    }
  }
  if (q.steps.empty()) s.fail("has no step");
  if (q.steps.size() > 97) s.fail("has " + std::to_string(q.steps.size()) + " steps (at most 97: 32 levels)");
  if (q.style == ComponentQuant::Derived && q.steps.size() != 1) s.fail("derives its steps from one, but has " + std::to_string(q.steps.size()));
  return q;
}

size_t read_component_index(Segment& s, size_t components) {
  const size_t c = s.component(components);
  if (c >= components) s.fail("names component " + std::to_string(c) + " of " + std::to_string(components));
  return c;
}

void read_poc(Segment& s, size_t components, std::vector<PocEntry>& out) {
  const size_t entry = components < 257 ? 7 : 9;
  if (s.left() == 0 || s.left() % entry != 0) s.fail("is not a whole number of progression changes");
  while (s.left() > 0) {
    PocEntry e;
    e.res_start = static_cast<int>(s.u8());
    e.comp_start = static_cast<int>(s.component(components));
    e.layer_end = static_cast<int>(s.u16());
    e.res_end = static_cast<int>(s.u8());
    uint32_t ce = s.component(components);
    if (ce == 0) ce = components < 257 ? 256 : 16384;  // A.6.6: 0 is the largest count
    e.comp_end = static_cast<int>(std::min<size_t>(ce, components));
    const uint32_t order = s.u8();
    if (order > 4) s.fail("says progression order " + std::to_string(order) + " (0 to 4)");
    e.order = static_cast<Progression>(order);
    if (e.res_start > 32 || e.res_end <= e.res_start || e.res_end > 33 || static_cast<size_t>(e.comp_start) >= components ||
        e.comp_end <= e.comp_start || e.layer_end == 0)
      s.fail("has an empty or impossible progression change (resolutions " + std::to_string(e.res_start) + ".." +
             std::to_string(e.res_end) + ", components " + std::to_string(e.comp_start) + ".." + std::to_string(ce) +
             ", layers up to " + std::to_string(e.layer_end) + ")");
    out.push_back(e);
  }
}

// PLT's Iplt (A.7.3): packet lengths in 7-bit groups, most significant first, bit 7 set on all
// groups but the last.
void read_plt(Segment& s, std::vector<uint32_t>& out) {
  s.u8();  // Zplt: the segments come in order (A.7.3), which the caller relies on
  uint64_t v = 0;
  int groups = 0;
  while (s.left() > 0) {
    const uint32_t b = s.u8();
    v = v << 7 | (b & 0x7F);
    if (++groups > 5 || v > 0xFFFFFFFFu) s.fail("has a packet length beyond 32 bits");
    if ((b & 0x80) == 0) {
      out.push_back(static_cast<uint32_t>(v));
      v = 0;
      groups = 0;
    }
  }
  if (groups != 0) s.fail("ends inside a packet length");
}

// CAP (ISO/IEC 15444-15 A.5): Pcap says which parts' capabilities follow, Pcap^i (bit 32 - i)
// for Part i, then a 16-bit Ccap^i for each, in the order of i. Part 15's Ccap^15 is kept.
void read_cap(Segment& s, Codestream& cs) {
  const uint32_t pcap = s.u32();
  for (int i = 1; i <= 32; ++i) {
    if (!((pcap >> (32 - i)) & 1)) continue;
    const uint32_t ccap = s.u16();
    if (i == 15) cs.ccap15 = static_cast<int>(ccap);
  }
  s.end();
}

void read_siz(Segment& s, Codestream& cs) {
  const uint32_t rsiz = s.u16();
  if (rsiz & 0x8000) unsupported("SIZ: Rsiz " + hex(rsiz, 4) + " asks for Part 2 extensions, which are not supported");
  cs.rsiz = static_cast<int>(rsiz);
  StreamInfo& i = cs.info;
  i.x1 = s.u32(), i.y1 = s.u32(), i.x0 = s.u32(), i.y0 = s.u32();
  i.tile_w = s.u32(), i.tile_h = s.u32(), i.tile_x0 = s.u32(), i.tile_y0 = s.u32();
  const uint32_t n = s.u16();
  if (n == 0 || n > static_cast<uint32_t>(kMaxComponents)) s.fail("says " + std::to_string(n) + " components (1 to 16384)");
  if (s.left() != 3 * size_t{n}) s.fail("has room for " + std::to_string(s.left() / 3) + " components, not " + std::to_string(n));
  if (i.x1 <= i.x0 || i.y1 <= i.y0)
    s.fail("says an empty image: " + std::to_string(i.x0) + ".." + std::to_string(i.x1) + " x " + std::to_string(i.y0) + ".." +
           std::to_string(i.y1));
  if (i.tile_w == 0 || i.tile_h == 0) s.fail("says tiles of 0 samples");
  if (i.tile_x0 > i.x0 || i.tile_y0 > i.y0 || uint64_t{i.tile_x0} + i.tile_w <= i.x0 || uint64_t{i.tile_y0} + i.tile_h <= i.y0)
    s.fail("puts the first tile outside the image (B-3: XTOsiz <= XOsiz < XTOsiz + XTsiz, likewise y)");
  // 32-bit fields in int64: below 2^34, no overflow.
  cs.tiles_x = (static_cast<int64_t>(i.x1) - i.tile_x0 + i.tile_w - 1) / i.tile_w;
  cs.tiles_y = (static_cast<int64_t>(i.y1) - i.tile_y0 + i.tile_h - 1) / i.tile_h;
  // Each count first: both can be 2^32 - 1, whose product overflows int64.
  if (cs.tiles_x > kMaxTiles || cs.tiles_y > kMaxTiles || cs.tiles_x * cs.tiles_y > kMaxTiles)
    s.fail("says " + std::to_string(cs.tiles_x) + " x " + std::to_string(cs.tiles_y) + " tiles (at most 65535)");
  for (uint32_t c = 0; c < n; ++c) {
    const uint32_t ssiz = s.u8(), dx = s.u8(), dy = s.u8();
    ComponentInfo k;
    k.precision = static_cast<int>(ssiz & 0x7F) + 1;
    k.is_signed = (ssiz & 0x80) != 0;
    k.dx = static_cast<int>(dx), k.dy = static_cast<int>(dy);
    if (k.precision > kMaxSizPrecision) s.fail("says " + std::to_string(k.precision) + "-bit samples for component " + std::to_string(c) + " (1 to 38)");
    if (dx == 0 || dy == 0) s.fail("says a subsampling of 0 for component " + std::to_string(c));
    i.components.push_back(k);
  }
}

// A PPM or PPT segment: Zppm (Zppt), then the packed headers, which may start or end inside a
// tile-part's share (an Nppm run goes on into the segment of the next index).
PackedSegment read_packed(Segment& s) {
  PackedSegment out;
  out.index = static_cast<int>(s.u8());
  out.bytes.assign(s.here(), s.here() + s.left());
  s.skip(s.left());
  return out;
}

// `segments` put together in index order. Indices that repeat, where `repeats` names what
// they may not repeat in, are an error (which of two is first would be a guess).
std::vector<uint8_t> merge_packed(std::vector<PackedSegment>& segments, const std::string& repeats) {
  std::stable_sort(segments.begin(), segments.end(), [](const PackedSegment& a, const PackedSegment& b) { return a.index < b.index; });
  std::vector<uint8_t> out;
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0 && segments[i].index == segments[i - 1].index)
      corrupt(repeats + " has two segments of index " + std::to_string(segments[i].index));
    out.insert(out.end(), segments[i].bytes.begin(), segments[i].bytes.end());
  }
  segments.clear();
  return out;
}

// Tile `t`'s PPT headers (A.7.5): Zppt in order over the tile, or, where a tile-part's indices
// repeat those of an earlier one (each tile-part counting from 0), each tile-part's in order,
// the tile-parts in stream order.
std::vector<uint8_t> merge_ppt(Codestream& cs, size_t t) {
  std::vector<PackedSegment> all;
  std::vector<bool> seen(256, false);
  bool repeated = false;
  for (size_t i : cs.tile_parts[t])
    for (const PackedSegment& s : cs.parts[i].ppt) {
      repeated = repeated || seen[static_cast<size_t>(s.index)];
      seen[static_cast<size_t>(s.index)] = true;
    }
  std::vector<uint8_t> out;
  for (size_t i : cs.tile_parts[t]) {
    TilePart& p = cs.parts[i];
    const std::string where = "tile-part " + std::to_string(p.part) + " of tile " + std::to_string(t) + "'s PPT";
    if (repeated) {
      const std::vector<uint8_t> own = merge_packed(p.ppt, where);
      out.insert(out.end(), own.begin(), own.end());
    } else {
      all.insert(all.end(), std::make_move_iterator(p.ppt.begin()), std::make_move_iterator(p.ppt.end()));
      p.ppt.clear();
    }
  }
  return repeated ? out : merge_packed(all, "tile " + std::to_string(t) + "'s PPT");
}

// One marker segment of the main header (`part` null) or of a tile-part's header.
void read_header_segment(uint16_t marker, Segment& s, Codestream& cs, HeaderState& h, TilePart* part, bool first_part) {
  const size_t nc = cs.info.components.size();
  const bool tile = part != nullptr;
  auto only_first = [&] {
    if (tile && !first_part) s.fail("appears after the first tile-part of tile " + std::to_string(part->tile) + " (A.4.2)");
  };
  switch (marker) {
    case kCOD:
      only_first();
      if (h.cod) s.fail("appears twice in one header");
      h.cod = read_cod(s);
      break;
    case kCOC: {
      only_first();
      const size_t c = read_component_index(s, nc);
      const uint32_t scoc = s.u8();
      if (scoc & ~1u) unsupported("COC: coding style " + hex(scoc, 2) + " has Part 2 bits");
      if (h.coc.count(c)) s.fail("appears twice for component " + std::to_string(c));
      h.coc[c] = read_spcod(s, (scoc & 1) != 0);
      s.end();
      break;
    }
    case kQCD:
      only_first();
      if (h.qcd) s.fail("appears twice in one header");
      h.qcd = read_quant(s);
      break;
    case kQCC: {
      only_first();
      const size_t c = read_component_index(s, nc);
      if (h.qcc.count(c)) s.fail("appears twice for component " + std::to_string(c));
      h.qcc[c] = read_quant(s);
      break;
    }
    case kRGN: {
      only_first();
      const size_t c = read_component_index(s, nc);
      if (s.u8() != 0) unsupported("RGN: only the max-shift ROI style (0) is Part 1");
      h.rgn[c] = static_cast<int>(s.u8());
      s.end();
      break;
    }
    case kPOC:
      read_poc(s, nc, h.poc);
      break;
    case kCOM: {
      const uint32_t rcom = s.u16();
      if (rcom == 1) cs.comments.emplace_back(reinterpret_cast<const char*>(s.here()), s.left());
      s.skip(s.left());
      break;
    }
    case kPPM:
      if (tile) s.fail("belongs in the main header");
      h.ppm.push_back(read_packed(s));
      break;
    case kPPT:
      if (!tile) s.fail("belongs in a tile-part header");
      part->ppt.push_back(read_packed(s));
      break;
    case kPLT:
      if (!tile) s.fail("belongs in a tile-part header");
      read_plt(s, part->packet_lengths);
      break;
    case kTLM:
    case kPLM:
      if (tile) s.fail("belongs in the main header");
      if (marker == kTLM) cs.tlm = true;
      s.skip(s.left());  // lengths a decoder can do without: the tile-parts' own are read
      break;
    case kCRG:
      if (tile) s.fail("belongs in the main header");
      if (s.left() != 4 * nc) s.fail("does not hold 4 bytes per component");
      s.skip(s.left());
      break;
    case kCAP:
      if (tile) s.fail("belongs in the main header");
      read_cap(s, cs);
      break;
    case kSIZ:
      s.fail("appears twice");
    default:
      s.skip(s.left());  // a marker this reader does not know: its segment is skipped (A.1.4)
  }
}

// A tile-component's resolved style: `tile`'s COC over its COD over the main COC over the
// main COD (A.6.1, A.6.2), likewise for QCC/QCD and RGN.
TileCoding resolve(const Codestream& cs, const HeaderState& main, const HeaderState* tile, int t) {
  const size_t nc = cs.info.components.size();
  const std::string where = t < 0 ? std::string("the main header") : "tile " + std::to_string(t);
  TileCoding out;
  const CodSegment& cod = tile && tile->cod ? *tile->cod : *main.cod;
  out.order = cod.order;
  out.layers = cod.layers;
  out.mct = cod.mct;
  out.sop = cod.sop, out.eph = cod.eph;
  out.poc = tile && !tile->poc.empty() ? tile->poc : main.poc;
  for (size_t c = 0; c < nc; ++c) {
    auto pick_coding = [&]() -> const ComponentCoding& {
      if (tile && tile->coc.count(c)) return tile->coc.at(c);
      if (tile && tile->cod) return tile->cod->coding;
      if (main.coc.count(c)) return main.coc.at(c);
      return main.cod->coding;
    };
    auto pick_quant = [&]() -> const ComponentQuant& {
      if (tile && tile->qcc.count(c)) return tile->qcc.at(c);
      if (tile && tile->qcd) return *tile->qcd;
      if (main.qcc.count(c)) return main.qcc.at(c);
      return *main.qcd;
    };
    const ComponentCoding& k = pick_coding();
    const ComponentQuant& q = pick_quant();
    const size_t bands = 3 * static_cast<size_t>(k.levels) + 1;
    if (q.style != ComponentQuant::Derived && q.steps.size() < bands)
      corrupt(where + ", component " + std::to_string(c) + ": its quantisation gives " + std::to_string(q.steps.size()) +
              " band steps, its " + std::to_string(k.levels) + " levels need " + std::to_string(bands));
    out.components.push_back(k);
    out.quant.push_back(q);
    int roi = 0;
    if (tile && tile->rgn.count(c)) roi = tile->rgn.at(c);
    else if (main.rgn.count(c)) roi = main.rgn.at(c);
    out.roi_shift.push_back(roi);
  }
  if (out.mct) {
    if (nc < 3) corrupt(where + ": a component transform with " + std::to_string(nc) + " components");
    for (size_t c = 1; c < 3; ++c)
      if (cs.info.components[c].dx != cs.info.components[0].dx || cs.info.components[c].dy != cs.info.components[0].dy)
        corrupt(where + ": a component transform over components 0..2 of different subsampling");
  }
  return out;
}

// Each tile-part's share of PPM (A.7.4: an Nppm, then that many bytes of packed headers, for
// each tile-part in stream order), found in one walk so that no tile walks it again.
void index_ppm(Codestream& cs) {
  if (cs.ppm.empty()) return;
  size_t at = 0;
  for (TilePart& p : cs.parts) {
    if (at + 4 > cs.ppm.size()) return;
    const size_t n = static_cast<size_t>(cs.ppm[at]) << 24 | static_cast<size_t>(cs.ppm[at + 1]) << 16 |
                     static_cast<size_t>(cs.ppm[at + 2]) << 8 | cs.ppm[at + 3];
    at += 4;
    if (n > cs.ppm.size() - at) {
      cs.ppm_overrun = true;
      return;
    }
    p.ppm_at = at;
    p.ppm_length = n;
    at += n;
    ++cs.ppm_parts;
  }
}

}  // namespace

Codestream read_codestream(const uint8_t* data, size_t size, const ReadOptions& options) {
  Codestream cs;
  size_t pos = 0;
  auto marker_at = [&](size_t p) { return static_cast<uint16_t>(data[p] << 8 | data[p + 1]); };
  if (size < 2 || marker_at(0) != kSOC) corrupt("not a JPEG 2000 codestream: it does not start with SOC (0xFF4F)");
  pos = 2;
  // A marker segment at `pos`: its marker, then its parameters as a Segment; the header must be
  // whole even for a partial decode.
  auto next_segment = [&](uint16_t& marker) -> Segment {
    if (pos + 4 > size) corrupt("the codestream ends inside a header, at offset " + std::to_string(pos));
    marker = marker_at(pos);
    if ((marker >> 8) != 0xFF) corrupt("expected a marker at offset " + std::to_string(pos) + ", found " + hex(marker, 4));
    const size_t length = static_cast<size_t>(data[pos + 2] << 8 | data[pos + 3]);
    const std::string name = "the marker segment " + hex(marker, 4) + " at offset " + std::to_string(pos);
    if (length < 2) corrupt(name + " has length " + std::to_string(length) + " (at least 2)");
    if (pos + 2 + length > size) corrupt(name + " runs past the end of the codestream");
    Segment s(data + pos + 4, length - 2, name);
    pos += 2 + length;
    return s;
  };

  uint16_t marker = 0;
  {
    Segment siz = next_segment(marker);
    if (marker != kSIZ) corrupt("the main header does not start with SIZ (found " + hex(marker, 4) + ")");
    read_siz(siz, cs);
  }
  HeaderState main;
  // Markers 0xFF30 to 0xFF3F carry no segment and are skipped (A.1.4).
  auto reserved = [&](size_t p) { return (marker_at(p) & 0xFFF0) == 0xFF30; };
  bool ended = false;
  while (true) {
    if (pos + 2 > size) {
      if (!options.allow_partial) corrupt("the codestream ends inside its main header");
      ended = cs.truncated = true;
      break;
    }
    if (marker_at(pos) == kSOT) break;
    if (reserved(pos)) {
      pos += 2;
      continue;
    }
    Segment s = next_segment(marker);
    read_header_segment(marker, s, cs, main, nullptr, false);
  }
  if (!main.cod) corrupt("the main header has no COD marker segment");
  if (!main.qcd) corrupt("the main header has no QCD marker segment");

  const auto tile_count = static_cast<size_t>(cs.tiles_x * cs.tiles_y);
  std::vector<HeaderState> tile_headers(tile_count);
  std::vector<int> parts_seen(tile_count, 0);
  // Tile-parts up to EOC.
  while (!ended) {
    if (pos + 2 > size) {
      if (!options.allow_partial) corrupt("the codestream ends without EOC (truncated?)");
      cs.truncated = true;
      break;
    }
    if (marker_at(pos) == kEOC) break;
    const size_t sot_at = pos;
    Segment sot = next_segment(marker);
    if (marker != kSOT) corrupt("expected SOT or EOC at offset " + std::to_string(sot_at) + ", found " + hex(marker, 4));
    if (sot.left() != 8) sot.fail("has length " + std::to_string(sot.left() + 2) + " (10)");
    TilePart part;
    part.sot = sot_at;
    part.tile = static_cast<int>(sot.u16());
    const uint32_t psot = sot.u32();
    part.part = static_cast<int>(sot.u8());
    part.parts = static_cast<int>(sot.u8());
    const std::string name = "tile-part " + std::to_string(part.part) + " of tile " + std::to_string(part.tile) +
                             " (offset " + std::to_string(sot_at) + ")";
    if (static_cast<size_t>(part.tile) >= tile_count)
      corrupt(name + ": the image has " + std::to_string(tile_count) + " tiles");
    int& seen = parts_seen[static_cast<size_t>(part.tile)];
    if (part.part != seen) corrupt(name + ": expected tile-part " + std::to_string(seen) + " of that tile next (B.10.2)");
    ++seen;
    if (part.parts != 0 && part.part >= part.parts) corrupt(name + ": TNsot says " + std::to_string(part.parts) + " tile-parts");
    // Its end: Psot bytes from SOT, or (0, the last tile-part) up to EOC.
    size_t end;
    bool cut = false;
    if (psot == 0) {
      const bool eoc = size >= 2 && marker_at(size - 2) == kEOC;
      end = eoc ? size - 2 : size;
      part.cut = !eoc;  // without EOC, its end may have been cut
    } else {
      if (psot < 14) corrupt(name + ": Psot " + std::to_string(psot) + " is shorter than SOT and SOD");
      end = sot_at + psot;  // sot_at < size and Psot < 2^32: no wrap in a 64-bit size_t
      if (end > size) {
        if (!options.allow_partial) corrupt(name + ": Psot says " + std::to_string(psot) + " bytes, the codestream ends first (truncated?)");
        end = size;
        cut = true;
      }
    }
    // Its header, up to SOD.
    HeaderState& th = tile_headers[static_cast<size_t>(part.tile)];
    while (true) {
      if (pos + 2 > end) corrupt(name + ": its header runs past its end");
      if (marker_at(pos) == kSOD) {
        pos += 2;
        break;
      }
      if (reserved(pos)) {
        pos += 2;
        continue;
      }
      const size_t at = pos;
      Segment s = next_segment(marker);
      if (pos > end) corrupt(name + ": the marker segment at offset " + std::to_string(at) + " runs past the tile-part's end");
      if (marker == kSOT || marker == kEOC) corrupt(name + ": no SOD before offset " + std::to_string(at));
      read_header_segment(marker, s, cs, th, &part, part.part == 0);
    }
    part.data = pos;
    part.length = end - pos;
    part.cut = part.cut || cut;
    pos = end;
    cs.parts.push_back(std::move(part));
    if (cut) {
      cs.truncated = true;
      break;
    }
  }

  cs.tile_parts.resize(tile_count);
  for (size_t i = 0; i < cs.parts.size(); ++i) cs.tile_parts[static_cast<size_t>(cs.parts[i].tile)].push_back(i);
  cs.ppm = merge_packed(main.ppm, "the main header's PPM");
  index_ppm(cs);
  cs.ppt.resize(tile_count);
  for (size_t t = 0; t < tile_count; ++t) cs.ppt[t] = merge_ppt(cs, t);

  cs.defaults = resolve(cs, main, nullptr, -1);
  // A tile's own coding costs a resolved coding per component: refused where the tile headers
  // that ask for one, times the components, are out of proportion to the stream's bytes.
  auto says_coding = [](const HeaderState& h) {
    return h.cod || !h.coc.empty() || h.qcd || !h.qcc.empty() || !h.rgn.empty() || !h.poc.empty();
  };
  uint64_t own = 0;
  for (size_t t = 0; t < tile_count; ++t) own += parts_seen[t] > 0 && says_coding(tile_headers[t]) ? 1 : 0;
  const uint64_t resolved = own * cs.info.components.size();  // below 2^16 x 2^14
  const uint64_t allowed = kResolvedSpare + kResolvedPerByte * static_cast<uint64_t>(size);
  if (resolved > allowed)
    unsupported(std::to_string(own) + " tiles with coding styles of their own, each over " + std::to_string(cs.info.components.size()) +
                " components, in " + std::to_string(size) + " bytes (this decoder's limit: " + std::to_string(allowed) +
                " tile-components)");
  for (size_t t = 0; t < tile_count; ++t) {
    if (parts_seen[t] > 0 && says_coding(tile_headers[t])) cs.tiles.push_back(resolve(cs, main, &tile_headers[t], static_cast<int>(t)));
    else cs.tiles.push_back_shared(cs.defaults);
  }
  return cs;
}

}  // namespace j2k::codec
