// SPDX-License-Identifier: BSD-2-Clause
#include "codec/codestream/tile_packets.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "codec/tier2/progression_changes.hpp"
#include "common/checked_math.hpp"
#include "common/error.hpp"
#include "tiling/canvas.hpp"

namespace j2k::codec {
namespace {

[[noreturn]] void corrupt(const std::string& what) { throw Error(ErrorCode::CorruptInput, what); }

// Samples one tile may have before its layout is refused: what a decoder of this size would
// allocate for the tile's coefficients anyway, so a header cannot make it allocate more.
constexpr uint64_t kMaxTileSamples = uint64_t{1} << 30;

// Steps the POC changes of a tile may take beyond its packets (change_coverage): a base that
// no real stream nears (a few changes over some hundred component-resolutions), and more for
// each byte of the tile's data, whose packets the changes order.
constexpr uint64_t kOrderSteps = uint64_t{1} << 20;
constexpr uint64_t kOrderStepsPerByte = 64;

// Precincts a tile may have beyond one a byte of its data: those of resolutions no packet
// reaches.
constexpr int64_t kSparePrecincts = int64_t{1} << 16;

// Code-blocks a tile may have beyond 16 a byte of its data: as many as a tile of 2^30 samples
// (the most it may have) holds in blocks of 64 x 64, so that a stream of the usual block
// sizes is never refused whatever its bytes; smaller blocks need bytes in proportion. A
// code-block costs its layout, its packet state and its Tier-1 call whether or not a packet
// brings it data, and a few bytes of header can declare millions (4 x 4 blocks on 16384^2, or
// 1 x 1 blocks under 2 x 2 precincts).
constexpr uint64_t kSpareBlocks = uint64_t{1} << 18;
constexpr uint64_t kBlocksPerByte = 16;

// What a tile's packets take per component-resolution beyond its precincts: its slots for
// readers and their taken flags (two vectors, 112 bytes with the allocator's), and ordering
// the packets (B.12: the stream's records and lists, progression.cpp, up to 128 bytes).
constexpr uint64_t kResolutionBytes = 256;

// Packed packet headers (A.7.4, A.7.5) of tile `t`: its PPT segments put together, or its
// tile-parts' shares of PPM; empty: in the packets.
std::vector<uint8_t> packed_headers(const Codestream& cs, size_t t) {
  if (cs.ppm.empty()) return cs.ppt.at(t);
  std::vector<uint8_t> out;
  for (size_t i : cs.tile_parts.at(t)) {
    const TilePart& p = cs.parts[i];
    if (i >= cs.ppm_parts)
      corrupt(cs.ppm_overrun ? "PPM's Nppm runs past its data" : "PPM holds headers for fewer tile-parts than the codestream has");
    const auto from = cs.ppm.begin() + static_cast<ptrdiff_t>(p.ppm_at);
    out.insert(out.end(), from, from + static_cast<ptrdiff_t>(p.ppm_length));
  }
  return out;
}

// The packets of the tile in the order B.12 says: COD's progression, or POC's changes in turn
// (B.12.2), each over its layers, resolutions and components and only the packets not yet
// sent. With POC, the packets no change covers are not in the tile (OpenJPEG reads them so;
// following them in COD's order refused opj_compress's -POC streams that leave some out).
std::vector<PacketId> tile_order(const TileCoding& tc, int layers, const std::vector<ComponentGrid>& grids, const LaidTile& tile,
                                 uint64_t& steps) {
  std::vector<PacketId> out;
  if (!tc.poc.empty()) {
    change_packet_order(tc.poc, layers, grids, tile.x0, tile.y0, tile.x1, tile.y1, out, steps);
    return out;
  }
  std::vector<StreamLayers> every;
  for (int c = 0; c < static_cast<int>(grids.size()); ++c)
    for (int r = 0; r < static_cast<int>(grids[static_cast<size_t>(c)].resolutions.size()); ++r) every.push_back({c, r, 0, layers});
  packet_order_of(tc.order, grids, every, tile.x0, tile.y0, tile.x1, tile.y1, out, steps);
  return out;
}

}  // namespace

Canvas canvas_of(const Codestream& cs) {
  CanvasSpec spec;
  spec.image_x0 = cs.info.x0, spec.image_y0 = cs.info.y0, spec.image_x1 = cs.info.x1, spec.image_y1 = cs.info.y1;
  spec.tile_x0 = cs.info.tile_x0, spec.tile_y0 = cs.info.tile_y0, spec.tile_w = cs.info.tile_w, spec.tile_h = cs.info.tile_h;
  for (const ComponentInfo& c : cs.info.components) spec.components.push_back({c.dx, c.dy});
  return Canvas(spec);
}

std::vector<TileComponentInput> tile_components(const Codestream& cs, size_t t) {
  const Canvas canvas = canvas_of(cs);
  std::vector<TileComponentInput> out;
  for (size_t c = 0; c < cs.info.components.size(); ++c) {
    const Rect r = canvas.tile_component(static_cast<int64_t>(t), static_cast<int>(c));
    TileComponentInput in;
    in.rect = j2k_rect{r.x0, r.y0, r.x1, r.y1};
    in.levels = cs.tiles[t].components[c].levels;
    for (const BandInfo& b : band_layout(r, in.levels))
      in.bands.push_back({static_cast<j2k_band_type>(b.type), j2k_rect{b.rect.x0, b.rect.y0, b.rect.x1, b.rect.y1}, b.col, b.row});
    out.push_back(std::move(in));
  }
  return out;
}

uint64_t tile_components_bytes(const Codestream& cs, size_t t) {
  uint64_t components = 0, bands = 0, resolutions = 0;
  for (const ComponentCoding& k : cs.tiles.at(t).components) {
    ++components;
    bands += 3 * static_cast<uint64_t>(k.levels) + 1;
    resolutions += static_cast<uint64_t>(k.levels) + 1;
  }
  // Each vector one heap block: its elements plus at most 32 bytes of the allocator's. The
  // inputs with their bands; the grids with their resolutions; the coding style with its
  // precinct sizes (read_tile_packets' own copies).
  return components * (sizeof(TileComponentInput) + sizeof(ComponentGrid) + sizeof(ComponentStyle) + 3 * 32) +
         bands * sizeof(TileComponentInput::Band) + resolutions * (sizeof(ResolutionGrid) + sizeof(std::pair<int, int>)) + 3 * 32;
}

namespace {

// read_tile_packets' work, into `out`; `progress` (where not null) told when its resolutions
// are read.
void read_into(TilePackets& out, const Codestream& cs, const uint8_t* data, size_t t, bool partial, int kept_layers, MemoryBudget* budget,
               PacketProgress* progress) {
  const std::string name = "tile " + std::to_string(t);
  const TileCoding& tc = cs.tiles.at(t);
  out.memory = Reservation(budget);
  out.memory.grow(tile_components_bytes(cs, t), [&] {
    return name + "'s " + std::to_string(tc.components.size()) + " tile-components and their bands";
  });
  const std::vector<TileComponentInput> components = tile_components(cs, t);
  uint64_t samples = 0;
  // Each tile-component below 2^32 a side: the products fit, their sum over 16,384 components
  // need not, and a sum that wrapped would pass the limit.
  for (const TileComponentInput& c : components)
    samples = saturating_add(samples, saturating_mul(static_cast<uint64_t>(c.rect.x1 - c.rect.x0),
                                                     static_cast<uint64_t>(c.rect.y1 - c.rect.y0)));
  if (samples > kMaxTileSamples)
    throw Error(ErrorCode::UnsupportedInput, name + " has " + std::to_string(samples) + " samples, more than this decoder's limit of " +
                                                 std::to_string(kMaxTileSamples) + " a tile");

  // The tile's data: its tile-parts' packet data back to back (no packet spans two, A.4.2).
  // A tile in one tile-part (the usual case) is read where it lies in `data`; those of a tile
  // in several are copied together first, and the result holds the copy, for the blocks' bytes
  // stay where they were read (BlockData::piece). Not copying one tile-part takes a 4096^2
  // RGB lossless decode from 290 to 272 MB at its peak, 4,700 page faults fewer.
  std::vector<const TilePart*> parts;
  for (size_t i : cs.tile_parts.at(t)) parts.push_back(&cs.parts[i]);
  auto tile_data = std::make_shared<std::vector<uint8_t>>();
  const uint8_t* body = nullptr;
  size_t body_size = 0;
  if (parts.size() == 1) {
    body = data + parts[0]->data;
    body_size = parts[0]->length;
  } else {
    for (const TilePart* p : parts) tile_data->insert(tile_data->end(), data + p->data, data + p->data + p->length);
    body = tile_data->data();
    body_size = tile_data->size();
  }
  const std::vector<uint8_t> headers = packed_headers(cs, t);
  const bool packed = !cs.ppm.empty() || !headers.empty();

  CodingParams params;
  for (const ComponentCoding& k : tc.components) params.components.push_back({k.levels, k.precincts, k.block_w_log2, k.block_h_log2});
  const ComponentStyle& first = params.components[0];
  params.levels = first.levels, params.precincts = first.precincts;
  params.block_w_log2 = first.block_w_log2, params.block_h_log2 = first.block_h_log2;

  out.data = tile_data;
  out.tile_parts_read = parts.size();
  // Each packet takes at least a byte (a header of one bit, in the data or packed), so a tile
  // cannot have more packets than bytes: a header saying otherwise is refused before the
  // layout is allocated (or, partial, the layers no byte can reach are left out). Under POC
  // the packets are those its changes cover.
  // Bounded by the samples' limit above: a resolution of w x h samples (w, h >= 1) has at
  // most (w + 1)(h + 1) <= 4wh precincts, so 33 resolutions of 2^30 samples stay below 2^38,
  // and times 65,535 layers below 2^55 (the packets without POC; under POC each
  // component-resolution's packets count once).
  std::vector<ComponentGrid> grids;
  int64_t precincts = 0;
  for (size_t c = 0; c < components.size(); ++c) {
    const TileComponentInput& k = components[c];
    ComponentGrid g;
    g.dx = cs.info.components[c].dx, g.dy = cs.info.components[c].dy;
    for (int r = 0; r <= k.levels; ++r) {
      const auto [ppx, ppy] = precinct_log2(params.components[c], r);
      g.resolutions.push_back(resolution_grid(k.rect.x0, k.rect.y0, k.rect.x1, k.rect.y1, k.levels, r, ppx, ppy));
      precincts += g.resolutions.back().precincts_x * g.resolutions.back().precincts_y;
    }
    grids.push_back(std::move(g));
  }
  const int64_t bytes = static_cast<int64_t>(body_size + headers.size());
  // POC's changes cost, beyond the packets, a step per component-resolution each covers (its
  // packets already sent or not): refused where that is out of proportion to the tile's bytes
  // (a 584 KB stream of changes over a 16x16 image took 233 s). OpenJPEG refuses more than 31
  // changes a tile; the standard allows thousands, which pass here while their work is small.
  const uint64_t coverage = change_coverage(tc.poc, grids);
  const uint64_t allowed = saturating_add(kOrderSteps, saturating_mul(kOrderStepsPerByte, static_cast<uint64_t>(bytes)));
  if (coverage > allowed)
    throw Error(ErrorCode::UnsupportedInput, name + ": its " + std::to_string(tc.poc.size()) + " progression changes (POC) cover " +
                                                 std::to_string(coverage) + " component-resolutions in all, more work than its " +
                                                 std::to_string(bytes) + " bytes justify (this decoder's limit: " +
                                                 std::to_string(allowed) + ")");
  int layers = tc.layers;
  const int64_t packets = tc.poc.empty() ? precincts * layers : change_packet_count(tc.poc, layers, grids, out.order_steps);
  if (precincts > 0 && packets > bytes) {
    if (!partial)
      corrupt(name + ": " + std::to_string(packets) + " packets (" + std::to_string(precincts) + " precincts, " +
              std::to_string(layers) + " layers" + (tc.poc.empty() ? "" : ", as its progression changes cover them") + ") in " +
              std::to_string(bytes) + " bytes");
    layers = static_cast<int>(std::clamp<int64_t>(bytes / precincts + 1, 1, layers));
  }
  // Precincts no packet reaches (POC's changes may cover some alone) are laid out all the
  // same: past one a byte of the tile's data, and a margin for real streams' empty
  // resolutions, they are refused before the layout is allocated (a few bytes would otherwise
  // lay out hundreds of millions). A cut tile's bytes say nothing of what it had: as before,
  // its layers are bounded above, not its precincts.
  bool cut_data = false;
  for (const TilePart* p : parts) cut_data = cut_data || p->cut;
  if (!cut_data && precincts > bytes + kSparePrecincts)
    throw Error(ErrorCode::UnsupportedInput, name + " has " + std::to_string(precincts) + " precincts for its " + std::to_string(bytes) +
                                                 " bytes (this decoder's limit: one a byte, plus " +
                                                 std::to_string(kSparePrecincts) + ")");

  // The memory the tile's structures take, counted from the headers before any is made: the
  // layout, a reader for every precinct (made as its first packet comes), the packets'
  // order and lengths (at most what `packets` says), each block's index into its data.
  const LayoutCounts counts = count_layout(params, components);
  const auto order_packets = static_cast<uint64_t>(tc.poc.empty() ? precincts * layers : packets);
  // A precinct's reader goes once its last layer is read: with one layer, or the layers
  // innermost in the progression (RPCL, PCRL, CPRL), one lives at a time; else all may.
  const bool one_reader = tc.poc.empty() && (layers == 1 || tc.order == Progression::RPCL || tc.order == Progression::PCRL ||
                                             tc.order == Progression::CPRL);
  // (A tree over n leaves has fewer than 3n nodes, and one where n is 0.)
  const uint64_t largest = counts.largest_precinct_blocks;
  const uint64_t reader_bytes = one_reader ? PrecinctReader::footprint(1, 3, 3, largest, 3 * largest + 3)
                                           : PrecinctReader::footprint(counts.precincts, counts.precinct_bands, counts.filled_precinct_bands,
                                                                       counts.blocks, counts.tag_nodes);
  const uint64_t structures = layout_bytes(counts) + reader_bytes +
                              counts.precincts * (sizeof(std::unique_ptr<PrecinctReader>) + sizeof(bool)) + kResolutionBytes * counts.resolutions +
                              counts.blocks * sizeof(uint32_t) + 2 * order_packets * (sizeof(PacketId) + sizeof(uint32_t));
  out.memory.grow(structures, [&] {
    return name + "'s code-block and precinct structures (" + std::to_string(counts.blocks) + " code-blocks, " +
           std::to_string(counts.precincts) + " precincts, " + std::to_string(order_packets) + " packets)";
  });
  // (After the memory they would take, so that a limit the user set is what names a stream
  // over it.) Code-blocks are held to the bytes like the precincts above, cut tile or not: those past the bytes' reach decode to zeros, but
  // each is laid out and visited all the same.
  const uint64_t blocks = counts.blocks;  // at most the tile's samples (kMaxTileSamples, checked above)
  const uint64_t block_limit = saturating_add(kSpareBlocks, saturating_mul(kBlocksPerByte, static_cast<uint64_t>(bytes)));
  if (blocks > block_limit)
    throw Error(ErrorCode::UnsupportedInput, name + " has " + std::to_string(blocks) + " code-blocks for its " + std::to_string(bytes) +
                                                 " bytes (this decoder's limit: " + std::to_string(kBlocksPerByte) +
                                                 " a byte, plus " + std::to_string(kSpareBlocks) + ")");
  out.layout.blocks.reserve(counts.blocks);
  lay_out_tile(cs.info, params, t, components, out.layout);
  const LaidTile& tile = out.layout.tiles[0];
  // One reader per precinct, made when its first packet comes.
  std::vector<std::vector<std::vector<std::unique_ptr<PrecinctReader>>>> readers(components.size());
  std::vector<std::vector<std::vector<bool>>> taken(components.size());  // its blocks taken already
  for (size_t c = 0; c < components.size(); ++c) readers[c].resize(tile.components[c].size()), taken[c].resize(tile.components[c].size());
  // What the packets add to the readers (the blocks they include, their segments and bytes),
  // and the included blocks' data taken from them, are reserved as they grow.
  auto grown = [&](uint64_t more) {
    out.memory.grow(more, [&] { return name + "'s packet data (the code-blocks its packets include, their segments)"; });
  };
  // Each laid block's data, from its precinct's reader: when the last kept layer is read
  // (copied: the reader reads on), or at the end (moved).
  out.block_data.assign(out.layout.blocks.size(), TilePackets::kNoData);
  // With `progress`, room for every block's data at once: `out.blocks` must not move while
  // another thread reads the blocks taken already. Where the memory limit leaves no room for
  // that (a tile of many code-blocks, most of them empty), the point is the end: the tile is
  // read as without `progress`.
  if (progress) {
    if (out.memory.try_grow(heap_bytes(counts.blocks * sizeof(BlockData)))) out.blocks.reserve(counts.blocks);
    else progress = nullptr;
  }
  auto take_blocks = [&](const LaidPrecinct& prec, PrecinctReader& reader, bool move) {
    const size_t capacity = out.blocks.capacity();
    uint64_t copied = 0;
    for (size_t b = 0; b < prec.bands.size(); ++b)
      for (size_t i = 0; i < prec.bands[b].count(); ++i)
        if (BlockData* d = reader.included_block(b, i)) {
          if (progress && out.blocks.size() == out.blocks.capacity())
            throw Error(ErrorCode::Internal, name + ": more code-blocks' data than code-blocks");
          out.block_data[prec.bands[b].first + i] = static_cast<uint32_t>(out.blocks.size());
          if (move) {
            out.blocks.push_back(std::move(*d));
          } else {
            out.blocks.push_back(*d);
            copied += heap_bytes(d->segments.size() * sizeof(uint32_t)) + heap_bytes(d->segment_passes.size() * sizeof(int)) +
                      heap_bytes(d->bytes.size());
          }
        }
    grown(copied + heap_bytes(out.blocks.capacity() * sizeof(BlockData)) - heap_bytes(capacity * sizeof(BlockData)));
  };
  const bool keep_all = kept_layers <= 0 || kept_layers >= layers;

  // A tile whose data is whole (no tile-part of it cut) but ends before its last packet: the
  // packets after are empty, as OpenJPEG reads them (its header bits past the end are 0s).
  // opj_compress writes such tiles under -POC (a change whose layers start past its
  // predecessor's writes none of its packets). A cut tile's are missing, as before.
  const std::vector<PacketId> order = tile_order(tc, layers, grids, tile, out.order_steps);
  // With `progress`: the packets after which its resolutions are read, each of their precincts
  // at its last layer, so with its blocks taken (SIZE_MAX: not before the end). POC's changes
  // may leave a precinct's last layer unsent, its blocks taken only at the end.
  size_t read_after = SIZE_MAX;
  if (progress && tc.poc.empty()) {
    read_after = 0;
    for (size_t k = 0; k < order.size(); ++k)
      if (order[k].resolution <= progress->last_resolution(static_cast<size_t>(order[k].component))) read_after = k + 1;
    if (read_after == 0) progress->read(out);
  }
  size_t at = 0, hat = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const PacketId& id = order[k];
    const auto c = static_cast<size_t>(id.component), r = static_cast<size_t>(id.resolution);
    const LaidPrecinct& prec = tile.components[c][r].precincts[static_cast<size_t>(id.precinct)];
    auto& slots = readers[c][r];
    if (slots.empty()) slots.resize(tile.components[c][r].precincts.size());
    auto& reader = slots[static_cast<size_t>(id.precinct)];
    if (!reader) {
      std::vector<std::pair<int, int>> bands;
      for (const LaidPrecinct::Band& b : prec.bands) bands.emplace_back(b.blocks_x, b.blocks_y);
      reader = std::make_unique<PrecinctReader>(bands, tc.components[c].modes);  // counted in `structures`
      if (taken[c][r].empty()) taken[c][r].resize(slots.size());
    }
    const uint64_t held = reader->held_bytes();
    const size_t start = at;
    try {
      if (at >= body_size && !(packed && hat < headers.size())) {
        if (!cut_data) {
          out.warnings.push_back(name + ": its data ends after " + std::to_string(out.packet_bytes.size()) + " of its " +
                                 std::to_string(order.size()) + " packets; those after are empty (as OpenJPEG reads them)");
          break;
        }
        if (!partial) corrupt("its data ends before its last packet");
        out.truncated = true;
        break;
      }
      if (packed) {
        if (at + 6 <= body_size && body[at] == 0xFF && body[at + 1] == 0x91) at += 6;  // SOP stays with the body
        hat += reader->read_header(headers.data() + hat, headers.size() - hat, tc.eph);
      } else {
        at += reader->read_header(body + at, body_size - at, tc.eph);
      }
      bool cut = false;
      at += reader->read_body(body + at, body_size - at, partial, &cut);
      if (cut) out.truncated = true;
      grown(reader->held_bytes() - held);
      auto done = taken[c][r][static_cast<size_t>(id.precinct)];  // a reference into the vector<bool>
      if (!keep_all && id.layer == kept_layers - 1) {
        take_blocks(prec, *reader, false);
        done = true;
      }
      if (reader->layers_read() == layers) {  // its last packet: its blocks' data move out, the rest goes
        if (!done) take_blocks(prec, *reader, true);
        done = true;
        out.memory.release(reader->list_bytes());
        reader.reset();
      }
    } catch (const Error& e) {
      if (e.code() == ErrorCode::OutOfMemory) throw;
      if (partial) {
        out.truncated = true;
        break;
      }
      throw Error(e.code(), name + ", layer " + std::to_string(id.layer) + ", resolution " + std::to_string(id.resolution) +
                                ", component " + std::to_string(id.component) + ", precinct " + std::to_string(id.precinct) + ": " + e.what());
    }
    out.packet_bytes.push_back(static_cast<uint32_t>(at - start));
    if (k + 1 == read_after) progress->read(out);
  }
  // Bytes after the last packet are not read, as OpenJPEG leaves them: opj_compress's -POC
  // streams whose changes overlap send packets again in a later tile-part, which its own
  // decoder (and B.12.2) does not read.
  if (!out.truncated && at < body_size)
    out.warnings.push_back(name + ": its packets take " + std::to_string(at) + " of its " + std::to_string(body_size) +
                           " bytes; the rest is not read (as OpenJPEG leaves it)");

  // The precincts whose data ended before the last kept layer (or all of them) keep what
  // they have.
  for (size_t c = 0; c < components.size(); ++c)
    for (size_t r = 0; r < readers[c].size(); ++r)
      for (size_t k = 0; k < readers[c][r].size(); ++k) {
        PrecinctReader* reader = readers[c][r][k].get();
        if (reader && !taken[c][r][k]) take_blocks(tile.components[c][r].precincts[k], *reader, true);
        readers[c][r][k].reset();
      }
}

}  // namespace

TilePackets read_tile_packets(const Codestream& cs, const uint8_t* data, size_t t, bool partial, int layers, MemoryBudget* budget) {
  TilePackets out;
  read_into(out, cs, data, t, partial, layers, budget, nullptr);
  return out;
}

void read_tile_packets(TilePackets& out, const Codestream& cs, const uint8_t* data, size_t t, bool partial, int layers,
                       MemoryBudget* budget, PacketProgress& progress) {
  struct End {  // however the reading ends, an error too: the waiting thread must wake
    PacketProgress& p;
    ~End() { p.end(); }
  } end{progress};
  read_into(out, cs, data, t, partial, layers, budget, &progress);
}

}  // namespace j2k::codec
