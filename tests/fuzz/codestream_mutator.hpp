// SPDX-License-Identifier: BSD-2-Clause
// The structure-aware mutator of decode_structure_fuzzer: a codestream parsed into its
// markers (codestream_units.hpp), one to four of its fields set to plausible values that lie
// (sizes at the edges of 32 bits, tile grids of 65,535 and more, code-blocks of 4 samples,
// 1 x 1 precincts, 32 levels and more, thousands of components, POC ranges past the image,
// RGN shifts up to 255, Psot and Nppm that disagree with the bytes, tile-parts copied many
// times), and written back with lengths that hold, so that the decoder gets past its header
// checks to the work a lying header asks for. Inputs it cannot parse (JP2 files, bytes cut
// inside a segment) go to libFuzzer's own mutator.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "tests/support/codestream_units.hpp"

namespace fuzz {

using namespace test_support;

class CodestreamMutator {
 public:
  // raw(data, size, max_size): libFuzzer's byte-level mutator (LLVMFuzzerMutate).
  using RawMutate = size_t (*)(uint8_t*, size_t, size_t);

  CodestreamMutator(unsigned seed, RawMutate raw) : rng_(seed), raw_(raw) {}

  size_t mutate(uint8_t* data, size_t size, size_t max_size) {
    std::optional<std::vector<Unit>> parsed = parse_units(data, size);
    // A quarter of the time the bytes as they are, so that the byte-level mutations libFuzzer
    // learns from coverage keep their share.
    if (!parsed || parsed->size() < 3 || pick(4) == 0) return raw_ ? raw_(data, size, max_size) : size;
    units_ = std::move(*parsed);
    const int edits = 1 + static_cast<int>(pick(4));
    for (int i = 0; i < edits; ++i) edit();
    const std::vector<uint8_t> out = write_units(units_);
    if (out.size() > max_size) return raw_ ? raw_(data, size, max_size) : size;
    std::memcpy(data, out.data(), out.size());
    return out.size();
  }

 private:
  uint32_t pick(uint32_t n) { return n == 0 ? 0 : static_cast<uint32_t>(rng_() % n); }

  // A value near `v` or at an edge a size or count is checked against.
  uint32_t lie32(uint32_t v) {
    static constexpr uint32_t kEdges[] = {0,       1,       2,       3,        4,          7,          8,          15,
                                          16,      17,      31,      32,       33,         63,         64,         127,
                                          128,     255,     256,     257,      1023,       1024,       4095,       4096,
                                          16383,   16384,   16385,   65534,    65535,      65536,      1u << 20,   1u << 24,
                                          1u << 30, 0x7FFFFFFF, 0x80000000u, 0x80000001u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    switch (pick(6)) {
      case 0: return v + 1;
      case 1: return v - 1;
      case 2: return v * 2;
      case 3: return v / 2;
      default: return kEdges[pick(sizeof kEdges / sizeof kEdges[0])];
    }
  }
  uint32_t lie16(uint32_t v) { return lie32(v) & 0xFFFF; }
  uint32_t lie8(uint32_t v) { return lie32(v) & 0xFF; }

  std::vector<size_t> all(uint16_t marker) const {
    std::vector<size_t> at;
    for (size_t i = 0; i < units_.size(); ++i)
      if (units_[i].marker == marker) at.push_back(i);
    return at;
  }
  Unit* any(uint16_t marker) {
    const std::vector<size_t> at = all(marker);
    return at.empty() ? nullptr : &units_[at[pick(static_cast<uint32_t>(at.size()))]];
  }
  size_t component_bytes() const { return component_count(units_) < 257 ? 1 : 2; }
  // Where a main-header segment goes: before the first SOT (or at the end).
  size_t main_header_end() const {
    for (size_t i = 0; i < units_.size(); ++i)
      if (units_[i].marker == kSOT || units_[i].marker == kEOC) return i;
    return units_.size();
  }
  // Where a tile-part header segment goes: before one SOD.
  size_t some_tile_header() {
    const std::vector<size_t> at = all(kSOD);
    return at.empty() ? main_header_end() : at[pick(static_cast<uint32_t>(at.size()))];
  }
  void insert(size_t at, Unit u) { units_.insert(units_.begin() + static_cast<std::ptrdiff_t>(std::min(at, units_.size())), std::move(u)); }

  void edit() {
    switch (pick(14)) {
      case 0: case 1: return edit_siz();
      case 2: case 3: return edit_cod();
      case 4: return edit_quant();
      case 5: return add_poc();
      case 6: return add_rgn();
      case 7: return edit_sot();
      case 8: return copy_tile_parts();
      case 9: return add_packed();
      case 10: return add_lengths();
      case 11: return edit_data();
      case 12: return move_unit();
      default: return edit_cod();
    }
  }

  // SIZ: the image and tile grid, the component count (entries added or removed to match, or
  // not), a component's depth and subsampling.
  void edit_siz() {
    Unit* u = any(kSIZ);
    if (!u || u->body.size() < 36) return;
    std::vector<uint8_t>& b = u->body;
    switch (pick(5)) {
      case 0: {  // one of Xsiz .. YTOsiz
        const size_t at = 2 + 4 * pick(8);
        put_be(b, at, 4, lie32(get_be(b, at, 4)));
        return;
      }
      case 1: {  // a tile grid of about `n` tiles
        static constexpr uint32_t kTiles[] = {255, 256, 257, 4096, 65535, 65536, 1u << 20};
        const uint32_t n = kTiles[pick(7)];
        const uint32_t w = get_be(b, 2, 4), h = get_be(b, 6, 4);
        const uint32_t across = std::max<uint32_t>(1, std::min<uint32_t>(n, w));
        put_be(b, 18, 4, std::max<uint32_t>(1, w / across)), put_be(b, 26, 4, 0), put_be(b, 10, 4, 0);
        put_be(b, 22, 4, std::max<uint32_t>(1, h / std::max<uint32_t>(1, n / across))), put_be(b, 30, 4, 0), put_be(b, 14, 4, 0);
        return;
      }
      case 2: {  // Csiz, and the component entries to match (most of the time)
        const uint32_t n = pick(3) == 0 ? lie16(get_be(b, 34, 2)) : std::min<uint32_t>(16384, 1 + pick(2) * 255 + pick(300));
        put_be(b, 34, 2, n);
        if (pick(4) != 0) {
          const std::array<uint8_t, 3> last{b[b.size() - 3], b[b.size() - 2], b[b.size() - 1]};
          b.resize(36);
          for (uint32_t c = 0; c < n && b.size() + 3 <= 65533; ++c) b.insert(b.end(), last.begin(), last.end());
        }
        return;
      }
      case 3: {  // a component's Ssiz: 1..38 bits or past
        const size_t c = 36 + 3 * pick(static_cast<uint32_t>((b.size() - 36) / 3));
        if (c < b.size()) b[c] = static_cast<uint8_t>(pick(2) ? pick(38) | (pick(2) << 7) : pick(256));
        return;
      }
      default: {  // a component's XRsiz or YRsiz
        static constexpr uint8_t kSub[] = {0, 1, 2, 3, 4, 128, 255};
        const size_t c = 37 + 3 * pick(static_cast<uint32_t>((b.size() - 36) / 3)) + pick(2);
        if (c < b.size()) b[c] = kSub[pick(7)];
        return;
      }
    }
  }

  // COD or COC: levels, code-block size and style, precincts (made present, 1 x 1, or
  // their byte count kept to the levels), layers, progression, MCT.
  void edit_cod() {
    const bool coc = pick(3) == 0;
    Unit* u = any(coc ? kCOC : kCOD);
    if (!u) return;
    std::vector<uint8_t>& b = u->body;
    const size_t sp = coc ? component_bytes() + 1 : 5;  // where SPcod / SPcoc starts
    const size_t style = coc ? component_bytes() : 0;   // Scod / Scoc
    if (b.size() < sp + 5) return;
    const bool precincts = (b[style] & 1) != 0;
    auto fit_precincts = [&](bool on) {
      const size_t levels = b[sp];
      b.resize(sp + 5);
      if (on) {
        const uint8_t p = pick(2) ? static_cast<uint8_t>(pick(256)) : (pick(2) ? 0x11 : 0x00);
        for (size_t r = 0; r <= levels; ++r) b.push_back(r == 0 || p != 0 ? p : 0x11);
      }
      b[style] = static_cast<uint8_t>(on ? b[style] | 1 : b[style] & ~1u);
    };
    switch (pick(coc ? 5 : 8)) {
      case 0: {  // decomposition levels
        static constexpr uint8_t kLevels[] = {0, 1, 5, 10, 15, 31, 32, 33, 255};
        b[sp] = kLevels[pick(9)];
        fit_precincts(precincts && pick(8) != 0);
        return;
      }
      case 1:  // code-block exponents (less 2): 4 x 4 to 1024 x 1024, and past
        b[sp + 1] = static_cast<uint8_t>(pick(4) == 0 ? pick(256) : pick(9));
        b[sp + 2] = static_cast<uint8_t>(pick(4) == 0 ? pick(256) : pick(9));
        return;
      case 2:  // code-block style: the mode switches, HT, reserved bits
        b[sp + 3] = static_cast<uint8_t>(pick(256));
        return;
      case 3:  // precincts: on (tiny or random), off
        fit_precincts(pick(3) != 0);
        return;
      case 4:  // wavelet
        b[sp + 4] = static_cast<uint8_t>(pick(3));
        return;
      case 5:  // layers
        put_be(b, 2, 2, lie16(get_be(b, 2, 2)));
        return;
      case 6:  // progression, SOP / EPH, MCT
        b[1] = static_cast<uint8_t>(pick(6));
        b[0] = static_cast<uint8_t>((b[0] & 1) | (pick(4) << 1));
        b[4] = static_cast<uint8_t>(pick(3));
        return;
      default: {  // a COC of its own for some component
        const size_t c = pick(static_cast<uint32_t>(std::max<size_t>(1, component_count(units_))));
        Unit k{kCOC, {}, false};
        if (component_bytes() == 2) k.body.push_back(static_cast<uint8_t>(c >> 8));
        k.body.push_back(static_cast<uint8_t>(c));
        k.body.push_back(static_cast<uint8_t>(b[0] & 1));
        k.body.insert(k.body.end(), b.begin() + 5, b.end());
        insert(pick(2) ? main_header_end() : some_tile_header(), std::move(k));
        return;
      }
    }
  }

  // QCD or QCC: guard bits and style, as many steps as some level count needs, or not.
  void edit_quant() {
    Unit* u = any(pick(3) == 0 ? kQCC : kQCD);
    if (!u || u->body.empty()) return;
    std::vector<uint8_t>& b = u->body;
    const size_t at = u->marker == kQCC ? component_bytes() : 0;
    if (b.size() <= at) return;
    if (pick(2)) {
      b[at] = static_cast<uint8_t>(pick(256));
      return;
    }
    const size_t bands = 3 * (pick(4) == 0 ? pick(40) : pick(33)) + 1;
    const size_t width = (b[at] & 31) == 0 ? 1 : 2;
    b.resize(at + 1 + bands * width, static_cast<uint8_t>(pick(256)));
  }

  // A POC segment of 1 to 200 changes, in the main header or a tile-part's: ranges at their
  // edges (past the image's resolutions, components and layers, or empty), any order.
  void add_poc() {
    const size_t cb = component_bytes();
    Unit u{kPOC, {}, false};
    const uint32_t n = 1 + pick(pick(4) == 0 ? 200 : 8);
    const auto ncomp = static_cast<uint32_t>(std::max<size_t>(1, component_count(units_)));
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t rs = pick(3) ? 0 : pick(34), re = pick(3) ? 33 : pick(40);
      const uint32_t cs = pick(3) ? 0 : pick(ncomp + 1), ce = pick(3) ? ncomp : lie16(ncomp);
      const uint32_t layers = pick(3) ? 1 + pick(4) : lie16(1);
      u.body.push_back(static_cast<uint8_t>(rs));
      if (cb == 2) u.body.push_back(static_cast<uint8_t>(cs >> 8));
      u.body.push_back(static_cast<uint8_t>(cs));
      u.body.push_back(static_cast<uint8_t>(layers >> 8)), u.body.push_back(static_cast<uint8_t>(layers));
      u.body.push_back(static_cast<uint8_t>(re));
      if (cb == 2) u.body.push_back(static_cast<uint8_t>(ce >> 8));
      u.body.push_back(static_cast<uint8_t>(ce));
      u.body.push_back(static_cast<uint8_t>(pick(pick(8) == 0 ? 256 : 5)));
    }
    insert(pick(2) ? main_header_end() : some_tile_header(), std::move(u));
  }

  // An RGN segment: max-shift (or another style) with a shift up to 255.
  void add_rgn() {
    Unit u{kRGN, {}, false};
    const size_t c = pick(static_cast<uint32_t>(std::max<size_t>(1, component_count(units_))));
    if (component_bytes() == 2) u.body.push_back(static_cast<uint8_t>(c >> 8));
    u.body.push_back(static_cast<uint8_t>(c));
    u.body.push_back(pick(8) == 0 ? 1 : 0);
    u.body.push_back(static_cast<uint8_t>(pick(2) ? 255 - pick(8) : pick(64)));
    insert(pick(2) ? main_header_end() : some_tile_header(), std::move(u));
  }

  // An SOT: its tile index, part index and count, or a Psot that lies.
  void edit_sot() {
    Unit* u = any(kSOT);
    if (!u || u->body.size() < 8) return;
    switch (pick(4)) {
      case 0: put_be(u->body, 0, 2, lie16(get_be(u->body, 0, 2))); return;
      case 1: u->body[6] = static_cast<uint8_t>(lie8(u->body[6])); return;
      case 2: u->body[7] = static_cast<uint8_t>(lie8(u->body[7])); return;
      default:
        put_be(u->body, 2, 4, lie32(get_be(u->body, 2, 4)));
        u->keep_psot = true;
        return;
    }
  }

  // One tile-part (its SOT up to the next SOT or EOC) copied 2 to 256 times: the copies as
  // further tile-parts of its tile, or as the first of the next tiles, or interleaved.
  void copy_tile_parts() {
    const std::vector<size_t> sots = all(kSOT);
    if (sots.empty()) return;
    const size_t first = sots[pick(static_cast<uint32_t>(sots.size()))];
    size_t last = first + 1;
    while (last < units_.size() && units_[last].marker != kSOT && units_[last].marker != kEOC) ++last;
    const std::vector<Unit> part(units_.begin() + static_cast<std::ptrdiff_t>(first), units_.begin() + static_cast<std::ptrdiff_t>(last));
    const uint32_t copies = 2 + pick(pick(3) == 0 ? 255 : 15);
    const uint32_t mode = pick(3);
    const uint32_t tile = get_be(part[0].body, 0, 2), index = part[0].body.size() > 6 ? part[0].body[6] : 0;
    std::vector<Unit> added;
    for (uint32_t k = 1; k <= copies; ++k) {
      std::vector<Unit> copy = part;
      std::vector<uint8_t>& sot = copy[0].body;
      if (sot.size() < 8) return;
      if (mode == 0) {  // more parts of the same tile
        sot[6] = static_cast<uint8_t>(index + k);
        sot[7] = 0;
      } else if (mode == 1) {  // the next tiles' first parts
        put_be(sot, 0, 2, (tile + k) & 0xFFFF);
        sot[6] = 0;
      } else {  // two parts each of the next tiles, interleaved
        put_be(sot, 0, 2, (tile + (k + 1) / 2) & 0xFFFF);
        sot[6] = static_cast<uint8_t>(k % 2);
        sot[7] = 2;
      }
      added.insert(added.end(), copy.begin(), copy.end());
    }
    units_.insert(units_.begin() + static_cast<std::ptrdiff_t>(last), added.begin(), added.end());
  }

  // PPM (main header) or PPT (a tile-part's): an index, then Nppm lengths that say more or
  // fewer bytes than follow, or packed headers of zeros.
  void add_packed() {
    const bool ppm = pick(2) != 0;
    Unit u{ppm ? kPPM : kPPT, {static_cast<uint8_t>(pick(4))}, false};
    const uint32_t parts = 1 + pick(8);
    for (uint32_t i = 0; i < parts; ++i) {
      if (ppm) {
        const uint32_t n = pick(2) ? pick(8) : lie32(4);
        for (int k = 24; k >= 0; k -= 8) u.body.push_back(static_cast<uint8_t>(n >> k));
      }
      u.body.insert(u.body.end(), pick(16), static_cast<uint8_t>(pick(3) ? 0 : pick(256)));
    }
    insert(ppm ? main_header_end() : some_tile_header(), std::move(u));
  }

  // PLT (a tile-part's packet lengths) or TLM (the main header's tile-part lengths), with
  // lengths that may not match.
  void add_lengths() {
    if (pick(2)) {
      Unit u{kPLT, {static_cast<uint8_t>(pick(4))}, false};
      const uint32_t n = 1 + pick(16);
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t v = pick(2) ? 1 + pick(8) : lie32(1);
        for (int k = 28; k > 0; k -= 7)
          if (v >> k) u.body.push_back(static_cast<uint8_t>(0x80 | ((v >> k) & 0x7F)));
        u.body.push_back(static_cast<uint8_t>(v & 0x7F));
      }
      insert(some_tile_header(), std::move(u));
    } else {
      Unit u{kTLM, {static_cast<uint8_t>(pick(4)), 0x50}, false};  // Ztlm, Stlm: 16-bit Ttlm, 32-bit Ptlm
      const uint32_t n = 1 + pick(8);
      for (uint32_t i = 0; i < n; ++i) {
        const uint32_t t = pick(4), p = lie32(14);
        u.body.push_back(static_cast<uint8_t>(t >> 8)), u.body.push_back(static_cast<uint8_t>(t));
        for (int k = 24; k >= 0; k -= 8) u.body.push_back(static_cast<uint8_t>(p >> k));
      }
      insert(main_header_end(), std::move(u));
    }
  }

  // A tile-part's data through libFuzzer's byte mutator (packet headers that lie), or cut.
  void edit_data() {
    Unit* u = any(kSOD);
    if (!u) return;
    if (pick(4) == 0 || !raw_) {
      u->body.resize(pick(static_cast<uint32_t>(u->body.size() + 1)));
      return;
    }
    const size_t size = u->body.size();
    u->body.resize(size + 64);
    u->body.resize(raw_(u->body.data(), size, u->body.size()));
  }

  // A unit moved, copied or removed (SOC and the first SIZ stay).
  void move_unit() {
    if (units_.size() < 4) return;
    const size_t i = 2 + pick(static_cast<uint32_t>(units_.size() - 2));
    switch (pick(3)) {
      case 0: units_.erase(units_.begin() + static_cast<std::ptrdiff_t>(i)); return;
      case 1: insert(2 + pick(static_cast<uint32_t>(units_.size() - 2)), Unit(units_[i])); return;
      default: std::swap(units_[i], units_[2 + pick(static_cast<uint32_t>(units_.size() - 2))]); return;
    }
  }

  std::minstd_rand rng_;
  RawMutate raw_;
  std::vector<Unit> units_;
};

}  // namespace fuzz
