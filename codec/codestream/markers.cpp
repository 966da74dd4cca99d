// SPDX-License-Identifier: BSD-2-Clause
#include "codec/codestream/markers.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace j2k::codec {

void put8(std::vector<uint8_t>& o, uint32_t v) { o.push_back(static_cast<uint8_t>(v)); }
void put16(std::vector<uint8_t>& o, uint32_t v) { put8(o, v >> 8), put8(o, v); }
void put32(std::vector<uint8_t>& o, uint32_t v) { put16(o, v >> 16), put16(o, v); }

void write_siz(const StreamInfo& info, std::vector<uint8_t>& out, bool ht, uint16_t rsiz) {
  const size_t n = info.components.size();
  put16(out, 0xFF51);
  put16(out, static_cast<uint32_t>(38 + 3 * n));
  put16(out, rsiz | (ht ? 0x4000u : 0u));  // Rsiz: the profile; bit 14: a CAP segment follows (Part 15)
  for (uint32_t v : {info.x1, info.y1, info.x0, info.y0, info.tile_w, info.tile_h, info.tile_x0, info.tile_y0}) put32(out, v);
  put16(out, static_cast<uint32_t>(n));
  for (const ComponentInfo& c : info.components) {
    put8(out, static_cast<uint32_t>(c.precision - 1) | (c.is_signed ? 0x80u : 0u));
    put8(out, static_cast<uint32_t>(c.dx));
    put8(out, static_cast<uint32_t>(c.dy));
  }
}

void write_cap(bool reversible, int magb, std::vector<uint8_t>& out) {
  put16(out, 0xFF50);
  put16(out, 8);
  put32(out, 0x00020000);  // Pcap: Pcap^15 (bit 32 - 15) alone
  // Ccap^15: bits 15-14 00, every code-block HT with one HT set; bit 5, irreversible
  // transforms may be used; bits 4-0, the magnitude bound B coded as 0 (B <= 8), B - 8 (below
  // 28) or 13 + B / 4.
  const int b = magb <= 8 ? 0 : magb < 28 ? magb - 8 : 13 + magb / 4;
  put16(out, (reversible ? 0u : 0x20u) | static_cast<uint32_t>(b));
}

namespace {
// SPcod / SPcoc (Table A.15): levels, code-block size, mode switches, wavelet, then one byte
// per resolution with its precinct exponents when given.
void write_spcod(const CodingParams& p, const ComponentStyle& style, std::vector<uint8_t>& out) {
  put8(out, static_cast<uint32_t>(style.levels));
  put8(out, static_cast<uint32_t>(style.block_w_log2 - 2));
  put8(out, static_cast<uint32_t>(style.block_h_log2 - 2));
  // The style byte: EBCOT's mode switches, or bit 6 alone for HT code-blocks (Part 15).
  put8(out, p.block_coding == BlockCoding::HighThroughput ? uint32_t{kModeHt} : p.modes);
  put8(out, p.reversible ? 1 : 0);
  for (const auto& [x, y] : style.precincts) put8(out, static_cast<uint32_t>(x | (y << 4)));
}
}  // namespace

void write_cod(const CodingParams& p, std::vector<uint8_t>& out) {
  // A.6.1: Scod (precincts given, SOP, EPH), SGcod (progression, layers, MCT), SPcod.
  const bool precincts = !p.precincts.empty();
  put16(out, 0xFF52);
  put16(out, static_cast<uint32_t>(12 + (precincts ? p.levels + 1 : 0)));
  put8(out, (precincts ? 1u : 0u) | (p.sop ? 2u : 0u) | (p.eph ? 4u : 0u));
  put8(out, static_cast<uint32_t>(p.order));
  put16(out, static_cast<uint32_t>(p.layers));
  put8(out, p.mct ? 1 : 0);
  write_spcod(p, ComponentStyle{p.levels, p.precincts, p.block_w_log2, p.block_h_log2}, out);
}

void write_coc(size_t component, size_t components, const CodingParams& p, const ComponentStyle& style,
               std::vector<uint8_t>& out) {
  // A.6.2: Ccoc (8 bits below 257 components, else 16), Scoc (precincts given), SPcoc.
  const bool precincts = !style.precincts.empty();
  const size_t index_bytes = components < 257 ? 1 : 2;
  put16(out, 0xFF53);
  put16(out, static_cast<uint32_t>(8 + index_bytes + (precincts ? style.levels + 1 : 0)));
  if (index_bytes == 1) put8(out, static_cast<uint32_t>(component));
  else put16(out, static_cast<uint32_t>(component));
  put8(out, precincts ? 1u : 0u);
  write_spcod(p, style, out);
}

void write_qcd(int component, size_t components, bool reversible, int guard_bits, const std::vector<BandStep>& steps,
               std::vector<uint8_t>& out) {
  // A.6.4, A.6.5: no quantisation (an 8-bit exponent per band) or scalar expounded (16 bits:
  // exponent and mantissa).
  const size_t per_band = reversible ? 1 : 2;
  const size_t index_bytes = component < 0 ? 0 : components < 257 ? 1 : 2;
  put16(out, component < 0 ? 0xFF5C : 0xFF5D);
  put16(out, static_cast<uint32_t>(3 + index_bytes + per_band * steps.size()));
  if (index_bytes == 1) put8(out, static_cast<uint32_t>(component));
  if (index_bytes == 2) put16(out, static_cast<uint32_t>(component));
  put8(out, static_cast<uint32_t>(guard_bits << 5) | (reversible ? 0u : 2u));
  for (const BandStep& s : steps) {
    if (reversible) put8(out, static_cast<uint32_t>(s.exponent << 3));
    else put16(out, static_cast<uint32_t>(s.exponent << 11 | s.mantissa));
  }
}

void write_poc(const std::vector<PocEntry>& changes, size_t components, std::vector<uint8_t>& out) {
  // A.6.6: per change RSpoc, CSpoc, LYEpoc, REpoc, CEpoc, Ppoc; component indices in 8 bits
  // below 257 components, else 16 (CEpoc's count then 0 for the largest).
  const size_t wide = components < 257 ? 0 : 1, entry = 7 + 2 * wide;
  if (changes.empty() || 2 + entry * changes.size() > 65535) throw Error(ErrorCode::InvalidArgument, "POC: 1 to 9361 progression changes");
  put16(out, 0xFF5F);
  put16(out, static_cast<uint32_t>(2 + entry * changes.size()));
  auto component = [&](int c) { wide ? put16(out, static_cast<uint32_t>(c)) : put8(out, static_cast<uint32_t>(c)); };
  for (const PocEntry& e : changes) {
    put8(out, static_cast<uint32_t>(e.res_start));
    component(e.comp_start);
    put16(out, static_cast<uint32_t>(e.layer_end));
    put8(out, static_cast<uint32_t>(e.res_end));
    component(e.comp_end == (wide ? 16384 : 256) ? 0 : e.comp_end);
    put8(out, static_cast<uint32_t>(e.order));
  }
}

void write_rgn(size_t component, size_t components, int shift, std::vector<uint8_t>& out) {
  // A.6.3: Crgn (8 bits below 257 components, else 16), Srgn (0: max-shift), SPrgn.
  const size_t index_bytes = components < 257 ? 1 : 2;
  put16(out, 0xFF5E);
  put16(out, static_cast<uint32_t>(4 + index_bytes));
  if (index_bytes == 1) put8(out, static_cast<uint32_t>(component));
  else put16(out, static_cast<uint32_t>(component));
  put8(out, 0);
  put8(out, static_cast<uint32_t>(shift));
}

void write_com(const std::string& text, std::vector<uint8_t>& out) {
  if (text.size() > 65531) throw Error(ErrorCode::InvalidArgument, "a comment holds at most 65531 bytes");
  put16(out, 0xFF64);
  put16(out, static_cast<uint32_t>(4 + text.size()));
  put16(out, 1);  // Rcom: Latin-1 text
  out.insert(out.end(), text.begin(), text.end());
}

namespace {
// Tile indices in 8 bits while every tile has one (as OpenJPEG writes them), else 16; lengths
// in 32 bits. Ltlm is 16 bits, which bounds the entries per segment.
size_t tlm_entry(bool wide_index) { return wide_index ? 6 : 5; }
size_t tlm_per_segment(bool wide_index) { return (65535 - 4) / tlm_entry(wide_index); }
}  // namespace

void write_tlm(const std::vector<TilePartEntry>& parts, std::vector<uint8_t>& out) {
  // A.7.1: Stlm says the sizes: ST (bits 4-5) 1 or 2 bytes of tile index, SP (bit 6) 4-byte lengths.
  bool wide = false;
  for (const TilePartEntry& e : parts) wide = wide || e.tile > 255;
  const size_t per = tlm_per_segment(wide);
  if ((parts.size() + per - 1) / per > 256) throw Error(ErrorCode::InvalidArgument, "too many tile-parts for TLM (at most 256 segments)");
  for (size_t first = 0, z = 0; first < parts.size(); first += per, ++z) {
    const size_t n = std::min(per, parts.size() - first);
    put16(out, 0xFF55);
    put16(out, static_cast<uint32_t>(4 + tlm_entry(wide) * n));
    put8(out, static_cast<uint32_t>(z));
    put8(out, wide ? 0x60 : 0x50);
    for (size_t i = first; i < first + n; ++i) {
      if (wide) put16(out, parts[i].tile);
      else put8(out, parts[i].tile);
      put32(out, parts[i].length);
    }
  }
}

void write_sot(uint32_t tile, uint32_t psot, int part, int parts, std::vector<uint8_t>& out) {
  put16(out, 0xFF90);
  put16(out, 10);
  put16(out, tile);
  put32(out, psot);
  put8(out, static_cast<uint32_t>(part));
  put8(out, static_cast<uint32_t>(parts));
}

void write_plt(const std::vector<uint32_t>& lengths, std::vector<uint8_t>& out) {
  // A.7.3: each length in 7-bit groups, most significant first, all but the last with bit 7
  // set; a segment holds whole lengths and at most 65535 - 3 bytes of them.
  std::vector<std::vector<uint8_t>> coded;
  for (uint32_t len : lengths) {
    std::vector<uint8_t> g;
    do {
      g.insert(g.begin(), static_cast<uint8_t>((len & 0x7F) | (g.empty() ? 0 : 0x80)));
      len >>= 7;
    } while (len);
    coded.push_back(std::move(g));
  }
  size_t i = 0;
  for (uint32_t z = 0; i < coded.size(); ++z) {
    if (z > 255) throw Error(ErrorCode::InvalidArgument, "too many packets in a tile-part for PLT (at most 256 segments)");
    std::vector<uint8_t> body;
    while (i < coded.size() && body.size() + coded[i].size() <= 65535 - 3) body.insert(body.end(), coded[i].begin(), coded[i].end()), ++i;
    put16(out, 0xFF58);
    put16(out, static_cast<uint32_t>(3 + body.size()));
    put8(out, z);
    out.insert(out.end(), body.begin(), body.end());
  }
}

MainHeader main_header(const StreamInfo& info, const CodingParams& params, const std::vector<std::vector<BandStep>>& steps,
                       int guard_bits) {
  const size_t ncomp = info.components.size();
  MainHeader out;
  std::vector<uint8_t>& header = out.bytes;
  put16(header, 0xFF4F);  // SOC
  const bool ht = params.block_coding == BlockCoding::HighThroughput;
  write_siz(info, header, ht, params.rsiz);
  if (ht) {
    int magb = 0;
    for (const std::vector<BandStep>& component : steps)
      for (const BandStep& b : component) magb = std::max(magb, guard_bits + b.exponent - 1);
    write_cap(params.reversible, magb, header);
  }
  write_cod(params, header);
  const ComponentStyle first = component_style(params, 0);
  for (size_t c = 1; c < ncomp; ++c)
    if (!(component_style(params, c) == first)) write_coc(c, ncomp, params, component_style(params, c), header);
  write_qcd(-1, ncomp, params.reversible, guard_bits, steps[0], header);
  auto same_steps = [](const std::vector<BandStep>& a, const std::vector<BandStep>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const BandStep& x, const BandStep& y) {
      return x.exponent == y.exponent && x.mantissa == y.mantissa;
    });
  };
  for (size_t c = 1; c < ncomp; ++c)
    if (!same_steps(steps[c], steps[0])) write_qcd(static_cast<int>(c), ncomp, params.reversible, guard_bits, steps[c], header);
  out.tlm_at = header.size();
  if (!params.poc.empty()) write_poc(params.poc, ncomp, header);
  for (size_t c = 0; c < params.roi_shift.size(); ++c)
    if (params.roi_shift[c] > 0) write_rgn(c, ncomp, params.roi_shift[c], header);
  if (!params.comment.empty()) write_com(params.comment, header);
  return out;
}

}  // namespace j2k::codec
