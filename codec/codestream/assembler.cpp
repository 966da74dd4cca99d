// SPDX-License-Identifier: BSD-2-Clause
#include "codec/codestream/assembler.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "codec/codestream/markers.hpp"
#include "codec/tier2/progression_changes.hpp"
#include "codec/tier2/tag_tree.hpp"
#include "common/error.hpp"
#include "common/memory_pages.hpp"
#include "common/parallel/worker_pool.hpp"

namespace j2k::codec {
namespace {

[[noreturn]] void bad(const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); }

constexpr uint64_t kSopBytes = 6;  // A.8.1: marker, Lsop, Nsop
// A codestream into memory from this size on is copied on several threads, runs of about
// kRunBytes a thread at a time.
constexpr uint64_t kSideBySideBytes = uint64_t{4} << 20;
constexpr uint64_t kRunBytes = uint64_t{1} << 20;

}  // namespace

Assembler::Assembler(const StreamInfo& info, const CodingParams& params, const TileLayout& layout,
                     const std::vector<const BlockContribution*>& blocks, MainHeader main_header, int threads,
                     MemoryBudget* budget)
    : p_(params), main_(std::move(main_header)), threads_(threads), budget_(budget), memory_(budget) {
  // The records below, counted before they are made: per precinct its bands, per band with
  // blocks their pointers; per tile its packets in order (a vector that may double).
  uint64_t precincts = 0, band_count = 0, filled = 0, packets = 0, resolutions = 0, largest = 0;
  for (const LaidTile& t : layout.tiles)
    for (const auto& component : t.components)
      for (const LaidResolution& r : component) {
        ++resolutions;
        precincts += r.precincts.size();
        packets += r.precincts.size() * static_cast<uint64_t>(p_.layers);
        for (const LaidPrecinct& prec : r.precincts) {
          band_count += prec.bands.size();
          // A PrecinctCoder's: per band two tag trees, and two ints a block.
          uint64_t coder = 0;
          for (const LaidPrecinct::Band& b : prec.bands) {
            filled += b.count() > 0 ? 1 : 0;
            coder += 2 * TagTree::heap_for(static_cast<uint64_t>(std::max(b.blocks_x, 1)), static_cast<uint64_t>(std::max(b.blocks_y, 1))) +
                     2 * heap_bytes(b.count() * sizeof(int)) + 2 * sizeof(TagTree) + 2 * sizeof(std::vector<int>);
          }
          largest = std::max(largest, coder);
        }
      }
  const uint64_t blocks_bytes = static_cast<uint64_t>(blocks.size()) * sizeof(const BlockContribution*);
  memory_.grow(precincts * (sizeof(std::vector<PrecinctBand>) + 32) + band_count * sizeof(PrecinctBand) + blocks_bytes + 32 * filled +
                   2 * packets * sizeof(PacketId) + resolutions * (sizeof(size_t) + 32) + layout.tiles.size() * 128,
               [&] {
                 return "Tier-2's records of " + std::to_string(precincts) + " precincts, " + std::to_string(blocks.size()) +
                        " code-blocks and " + std::to_string(packets) + " packets";
               });
  coder_bytes_ = largest;
  for (const LaidTile& t : layout.tiles) {
    auto [grids, first] = tile_precincts(info, t, blocks, precincts_);
    first_.push_back(std::move(first));
    const size_t index = orders_.size();
    const auto own = std::find_if(p_.tile_poc.begin(), p_.tile_poc.end(),
                                  [&](const TileChanges& c) { return static_cast<size_t>(c.tile) == index; });
    change_starts_.emplace_back();
    tile_pocs_.emplace_back();
    if (own != p_.tile_poc.end()) {
      // The tile's own changes: the packets they cover (B.12.2), a tile-part each change.
      uint64_t steps = 0;
      orders_.emplace_back();
      change_packet_order(own->changes, p_.layers, grids, t.x0, t.y0, t.x1, t.y1, orders_.back(), steps, &change_starts_.back());
      write_poc(own->changes, info.components.size(), tile_pocs_.back());
    } else if (p_.poc.empty()) {
      orders_.push_back(packet_order(p_.order, p_.layers, grids, t.x0, t.y0, t.x1, t.y1));
    } else {
      // The changes must send every packet: a decoder has no other way to the rest.
      uint64_t steps = 0;
      orders_.emplace_back();
      change_packet_order(p_.poc, p_.layers, grids, t.x0, t.y0, t.x1, t.y1, orders_.back(), steps);
      if (orders_.back().size() != packet_order(p_.order, p_.layers, grids, t.x0, t.y0, t.x1, t.y1).size())
        bad("the progression order changes leave packets of tile " + std::to_string(orders_.size() - 1) + " unsent");
    }
  }
}

Assembler::CodedPackets Assembler::code_packets() const {
  CodedPackets out;
  const auto layers = static_cast<uint64_t>(p_.layers);
  // The precincts' records, and a coder for the largest precinct on each thread; then each
  // precinct's headers and body parts as its thread codes them.
  out.memory = Reservation(budget_, precincts_.size() * (sizeof(PrecinctPackets) + 3 * heap_bytes(layers * 8)) +
                                        static_cast<uint64_t>(std::max(threads_, 1)) * coder_bytes_,
                           [&] { return "the packets of " + std::to_string(precincts_.size()) + " precincts"; });
  std::vector<PrecinctPackets>& packets = out.precincts;
  packets.resize(precincts_.size());
  run_on_workers(static_cast<ptrdiff_t>(precincts_.size()), threads_, [&](ptrdiff_t k, int) {
    PrecinctPackets& pp = packets[static_cast<size_t>(k)];
    PrecinctCoder coder(precincts_[static_cast<size_t>(k)]);  // its tag trees carry over from layer to layer
    for (int l = 0; l < p_.layers; ++l) {
      pp.body_bytes.push_back(coder.write(l, p_.eph, pp.headers, pp.parts));
      pp.header_end.push_back(pp.headers.size());
      pp.parts_end.push_back(pp.parts.size());
    }
    out.memory.grow(heap_bytes(pp.headers.capacity()) + heap_bytes(pp.parts.capacity() * sizeof(BodyPart)),
                    [&] { return "the packet headers of precinct " + std::to_string(k) + " of " + std::to_string(packets.size()); });
  });
  return out;
}

uint64_t Assembler::assemble(const std::vector<PrecinctPackets>& packets, std::vector<uint8_t>* out,
                             std::vector<uint64_t>* per_component, const ByteSink* sink) const {
  // A packet: its precinct (index into packets), layer, number in its tile (for SOP) and component.
  struct Packet {
    size_t precinct;
    size_t layer;
    uint32_t sequence;
    int component;
  };
  struct TilePart {
    uint16_t tile;
    std::vector<Packet> packets;
    std::vector<uint8_t> plt;
    const std::vector<uint8_t>* poc = nullptr;  // the tile's own POC segment, in its first tile-part
    uint64_t psot = 0;
  };
  auto header_bytes = [&](const Packet& k) {
    const PrecinctPackets& pp = packets[k.precinct];
    return pp.header_end[k.layer] - (k.layer > 0 ? pp.header_end[k.layer - 1] : 0);
  };
  auto packet_bytes = [&](const Packet& k) {
    return (p_.sop ? kSopBytes : 0) + header_bytes(k) + packets[k.precinct].body_bytes[k.layer];
  };

  // The tile-parts: a new one where the index that divides them changes, and at each of a
  // tile's own changes (an empty one for a change that sends nothing, as OpenJPEG writes it).
  // Their lists of packets (vectors that may double), lengths and the codestream are reserved
  // first.
  uint64_t count = 0;
  for (const auto& order : orders_) count += order.size();
  Reservation memory(budget_, 2 * count * sizeof(Packet) + (p_.plt ? 2 * 5 * count : 0) + orders_.size() * 256,
                     [&] { return "the tile-parts' lists of " + std::to_string(count) + " packets"; });
  std::vector<std::vector<TilePart>> tiles(orders_.size());
  std::vector<TilePartEntry> entries;
  for (size_t t = 0; t < orders_.size(); ++t) {
    std::vector<TilePart>& parts = tiles[t];
    const std::vector<PacketId>& order = orders_[t];
    const std::vector<size_t>& starts = change_starts_[t];
    int key = -1;
    uint32_t sequence = 0;
    size_t change = 0;
    for (size_t i = 0; i <= order.size(); ++i) {
      bool opened = false;  // by a change starting here
      for (; change < starts.size() && starts[change] == i; ++change, opened = true) parts.push_back({static_cast<uint16_t>(t), {}, {}, nullptr, 0});
      if (i == order.size()) break;
      const PacketId& id = order[i];
      const int k = p_.tile_parts == 'R' ? id.resolution : p_.tile_parts == 'L' ? id.layer : p_.tile_parts == 'C' ? id.component : 0;
      if (parts.empty() || (!opened && p_.tile_parts && k != key)) parts.push_back({static_cast<uint16_t>(t), {}, {}, nullptr, 0});
      key = k;
      const size_t precinct = first_[t][static_cast<size_t>(id.component)][static_cast<size_t>(id.resolution)] + static_cast<size_t>(id.precinct);
      parts.back().packets.push_back({precinct, static_cast<size_t>(id.layer), sequence++, id.component});
    }
    if (parts.empty()) parts.push_back({static_cast<uint16_t>(t), {}, {}, nullptr, 0});  // a tile without packets still has a tile-part
    if (parts.size() > 255) bad("tile " + std::to_string(t) + " would have " + std::to_string(parts.size()) + " tile-parts; a tile has at most 255");
    if (!tile_pocs_[t].empty()) parts[0].poc = &tile_pocs_[t];
    for (TilePart& part : parts) {
      uint64_t body = 0;
      std::vector<uint32_t> lengths;
      for (const Packet& k : part.packets) {
        const uint64_t n = packet_bytes(k);
        if (n > UINT32_MAX) bad("a packet exceeds 4 GiB");
        if (per_component) {
          if (per_component->size() <= static_cast<size_t>(k.component)) per_component->resize(static_cast<size_t>(k.component) + 1);
          (*per_component)[static_cast<size_t>(k.component)] += n;
        }
        lengths.push_back(static_cast<uint32_t>(n));
        body += n;
      }
      if (p_.plt) write_plt(lengths, part.plt);
      part.psot = 12 + (part.poc ? part.poc->size() : 0) + part.plt.size() + 2 + body;  // SOT, POC, PLT, SOD, packets
      if (part.psot > UINT32_MAX) bad("a tile-part's data exceeds 4 GiB");
      entries.push_back({part.tile, static_cast<uint32_t>(part.psot)});
    }
  }
  std::vector<uint8_t> tlm;
  if (p_.tlm) write_tlm(entries, tlm);
  uint64_t total = main_.bytes.size() + tlm.size() + 2;  // EOC
  for (const auto& parts : tiles)
    for (const TilePart& part : parts) total += part.psot;
  if (out == nullptr && sink == nullptr) return total;

  // Through a sink, a piece of about kPiece bytes at a time (a packet header's or a
  // code-block's bytes more at most).
  constexpr size_t kPiece = size_t{256} << 10;
  std::vector<uint8_t> piece;
  const uint64_t held = sink ? 2 * kPiece : total;
  memory.grow(held, [&] {
    return sink ? "the codestream's pieces of " + std::to_string(kPiece) + " bytes" : "the codestream's " + std::to_string(total) + " bytes";
  });
  std::vector<uint8_t>& o = sink ? piece : *out;
  // Into memory on several threads, a large codestream is laid out first, its packet headers'
  // and code-blocks' bytes noted where they go, then copied side by side (a 12-bit 4096x2160
  // frame's 25 MB are most of Tier-2's time one thread copies them).
  struct Copy {
    const uint8_t* from;
    size_t n;
    uint64_t at;
  };
  std::vector<Copy> copies;
  const bool side_by_side = sink == nullptr && threads_ > 1 && total >= kSideBySideBytes;
  if (side_by_side) {
    memory.grow(count * 2 * sizeof(Copy), [&] { return "the codestream's copies of " + std::to_string(count) + " packets"; });
    // Over what `out` held (a frame's storage again): zeros only where it grows. Fresh pages
    // are mapped by the workers first, the vector's zeroing then takes no page fault (a 24 MB
    // stream's faults on one thread were about half of Tier-2 on the H200 machine's 16).
    if (o.capacity() < total) {
      o.reserve(static_cast<size_t>(total));
      populate_pages(o.data(), static_cast<size_t>(total), threads_);
    }
    o.resize(static_cast<size_t>(total));
  } else {
    o.clear();
    o.reserve(static_cast<size_t>(sink ? 2 * kPiece : total));
  }
  uint64_t at = 0;  // side by side: where the next bytes go
  uint64_t written = 0;
  auto pass_on = [&](size_t at_least) {
    if (!sink || o.empty() || o.size() < at_least) return;
    (*sink)(o.data(), o.size());
    written += o.size();
    o.clear();
  };
  // Appends n bytes from p (side by side: notes them, where `large`, or copies them now).
  auto put = [&](const uint8_t* p, size_t n, bool large) {
    if (!side_by_side) {
      o.insert(o.end(), p, p + n);
      if (large) pass_on(kPiece);
      return;
    }
    if (large) copies.push_back({p, n, at});
    else if (n != 0) std::memcpy(o.data() + at, p, n);
    at += n;
  };
  std::vector<uint8_t> small;  // a marker segment on its way
  auto put_small = [&] {
    put(small.data(), small.size(), false);
    small.clear();
  };
  const auto tlm_at = main_.bytes.begin() + static_cast<ptrdiff_t>(main_.tlm_at);
  small.insert(small.end(), main_.bytes.begin(), tlm_at);
  small.insert(small.end(), tlm.begin(), tlm.end());
  small.insert(small.end(), tlm_at, main_.bytes.end());
  put_small();
  for (const auto& parts : tiles)
    for (size_t i = 0; i < parts.size(); ++i) {
      const TilePart& part = parts[i];
      write_sot(part.tile, static_cast<uint32_t>(part.psot), static_cast<int>(i), static_cast<int>(parts.size()), small);
      if (part.poc) small.insert(small.end(), part.poc->begin(), part.poc->end());
      small.insert(small.end(), part.plt.begin(), part.plt.end());
      put16(small, 0xFF93);  // SOD
      put_small();
      for (const Packet& k : part.packets) {
        if (p_.sop) {
          put16(small, 0xFF91);
          put16(small, 4);
          put16(small, k.sequence & 0xFFFF);
          put_small();
        }
        const PrecinctPackets& pp = packets[k.precinct];
        const size_t h0 = k.layer > 0 ? pp.header_end[k.layer - 1] : 0, p0 = k.layer > 0 ? pp.parts_end[k.layer - 1] : 0;
        put(pp.headers.data() + h0, pp.header_end[k.layer] - h0, true);
        for (size_t j = p0; j < pp.parts_end[k.layer]; ++j) {
          const BodyPart& b = pp.parts[j];
          put(b.coded->data() + b.from, b.to - b.from, true);
        }
      }
    }
  if (side_by_side) {
    // Runs of copies of about kRunBytes each, a run a work item.
    std::vector<size_t> runs{0};
    uint64_t run = 0;
    for (size_t i = 0; i < copies.size(); ++i) {
      run += copies[i].n;
      if (run >= kRunBytes) runs.push_back(i + 1), run = 0;
    }
    if (runs.back() != copies.size()) runs.push_back(copies.size());
    run_on_workers(static_cast<ptrdiff_t>(runs.size()) - 1, threads_, [&](ptrdiff_t r, int) {
      for (size_t i = runs[static_cast<size_t>(r)]; i < runs[static_cast<size_t>(r) + 1]; ++i)
        if (copies[i].n != 0) std::memcpy(o.data() + copies[i].at, copies[i].from, copies[i].n);
    });
    small.clear();
    put16(small, 0xFFD9);  // EOC
    put_small();
    if (at != total) throw Error(ErrorCode::Internal, "codestream: assembled size differs from the count");
    return total;
  }
  put16(o, 0xFFD9);  // EOC
  pass_on(0);
  if (written + o.size() != total) throw Error(ErrorCode::Internal, "codestream: assembled size differs from the count");
  return total;
}

std::vector<uint8_t> Assembler::run(std::vector<uint8_t> storage) const {
  assemble(code_packets().precincts, &storage);
  return storage;
}

uint64_t Assembler::run(const ByteSink& write) const { return assemble(code_packets().precincts, nullptr, nullptr, &write); }

uint64_t Assembler::size() const { return assemble(code_packets().precincts, nullptr); }

std::vector<uint64_t> Assembler::component_sizes() const {
  std::vector<uint64_t> sizes;
  assemble(code_packets().precincts, nullptr, &sizes);
  return sizes;
}

}  // namespace j2k::codec
