// SPDX-License-Identifier: BSD-2-Clause
#include "codec/transcoder.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "codec/codestream/codestream_reader.hpp"
#include "codec/codestream/jp2_reader.hpp"
#include "codec/codestream/jp2_writer.hpp"
#include "codec/codestream/markers.hpp"
#include "codec/codestream/tile_packets.hpp"
#include "codec/quant/dequantiser.hpp"
#include "codec/tier1/block_coder.hpp"
#include "codec/tier2/packet_writer.hpp"
#include "codec/tier2/progression.hpp"
#include "codec/tier2/progression_changes.hpp"
#include "common/error.hpp"
#include "common/memory_budget.hpp"
#include "common/parallel/parallel_for.hpp"

namespace j2k::codec {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

[[noreturn]] void corrupt(const std::string& what) { throw Error(ErrorCode::CorruptInput, what); }

// ---------------------------------------------------------------- one code-block

// Where a block's decoded passes stop: after the pass of `kind` at bit plane `plane`.
enum class PassKind { SigProp = 0, MagRef = 1, Cleanup = 2 };
struct StopPoint {
  int plane = 0;
  PassKind kind = PassKind::Cleanup;
};

// Pass k (0-based) of a block whose passes start at `bitplanes` (B.10.5's Mb less the missing
// MSBs; Part 15 counts its passes the same way, placeholders included): the cleanup pass at
// bitplanes - 1, then SigProp, MagRef and cleanup one plane lower each three.
StopPoint stop_after(int bitplanes, int passes) {
  const int k = passes - 1;
  if (k == 0) return {bitplanes - 1, PassKind::Cleanup};
  return {bitplanes - 2 - (k - 1) / 3, static_cast<PassKind>((k - 1) % 3)};
}

// The passes of an EBCOT block of `bitplanes` planes that leave what `stop` leaves known
// (0: none; the block has nothing significant there).
int ebcot_passes(int bitplanes, const StopPoint& stop) {
  if (bitplanes <= 0) return 0;
  const int planes_above = bitplanes - 1 - stop.plane;  // cleanup passes before the stop's plane
  int n = 0;
  switch (stop.kind) {
    case PassKind::Cleanup: n = 1 + 3 * planes_above; break;
    case PassKind::SigProp: n = 3 * planes_above - 1; break;
    case PassKind::MagRef: n = 3 * planes_above; break;
  }
  return std::clamp(n, 0, 3 * bitplanes - 2);
}

// The block's quantisation indices (sign and magnitude, the bits not yet known 0) from the
// decoder's form (ebcot/block_decoder.hpp: twice the known magnitude plus 2^p, p the lowest
// plane known): the lowest bit set is that 2^p.
void indices_of(const int32_t* decoded, size_t n, int32_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const int32_t v = decoded[i];
    const uint32_t m = v < 0 ? static_cast<uint32_t>(-static_cast<int64_t>(v)) : static_cast<uint32_t>(v);
    const auto index = static_cast<int32_t>((m & (m - 1)) >> 1);
    out[i] = v < 0 ? -index : index;
  }
}

// The style byte of a re-coded component: HT's bit 6, or EBCOT's without mode switches; the
// stripe-causal bit kept (HT's SigProp honours it, so that its membership is EBCOT's) for the
// blocks' coding. In the markers (CodeBlockStyle) an HT component keeps it only where one of
// its blocks has a SigProp or MagRef pass: some decoders (Grok) refuse it beside bit 6.
uint8_t recoded_modes(uint8_t modes, BlockCoding target) {
  const uint8_t causal = modes & kModeCausal;
  return target == BlockCoding::HighThroughput ? static_cast<uint8_t>(kModeHt | causal) : causal;
}

struct CodeBlockStyle {
  BlockCoding target = BlockCoding::HighThroughput;
  std::vector<bool> refined;  // per component: an HT block of it has refinement passes
  uint8_t operator()(size_t c, uint8_t modes) const {
    const uint8_t m = recoded_modes(modes, target);
    if (target != BlockCoding::HighThroughput || (c < refined.size() && refined[c])) return m;
    return static_cast<uint8_t>(m & ~kModeCausal);
  }
};

// A re-coded block and what Tier-2 sends of it.
struct Recoded {
  CodedBlock coded;
  BlockContribution tier2;
};

struct BlockCounts {
  std::atomic<int> segmark{0}, corrupt{0};
};

// Decodes the block (`code`, of a band with `band_planes` bit planes, ROI shift included) and
// codes it again with `coder` under `modes`: the passes that leave the same coefficients known.
void recode(const BlockCode& code, int band_planes, bool reversible, const BlockCoder& decoder, const BlockCoder& coder,
            BlockCoding target, uint8_t modes, Recoded& out, BlockCounts& counts) {
  thread_local std::vector<int32_t> decoded, indices;
  const size_t n = static_cast<size_t>(code.width) * static_cast<size_t>(code.height);
  decoded.resize(n);
  indices.resize(n);
  const BlockDecodeReport report = decoder.decode(code, decoded.data(), code.width);
  if (report.segmark_error) ++counts.segmark;
  if (report.corrupt) ++counts.corrupt;
  out.tier2.passes.assign(1, 0);
  if (report.passes <= 0 || report.corrupt) return;  // nothing known: zeros
  indices_of(decoded.data(), n, indices.data());
  const StopPoint stop = stop_after(code.bitplanes, report.passes);
  BlockView v;
  v.data = indices.data();
  v.stride = code.width;
  v.width = code.width;
  v.height = code.height;
  v.band = code.band;
  v.modes = modes;
  v.reversible = reversible;
  v.estimate_distortion = false;
  int passes = 0;
  if (target == BlockCoding::HighThroughput) {
    // An HT set: the cleanup pass at the stop's plane, or one above it with SigProp (and
    // MagRef) at the stop's.
    v.cleanup_plane = stop.kind == PassKind::Cleanup ? stop.plane : stop.plane + 1;
    out.coded = coder.encode(v);
    const int refinement = stop.kind == PassKind::Cleanup ? 0 : stop.kind == PassKind::SigProp ? 1 : 2;
    passes = out.coded.passes.empty() ? 0 : std::min<int>(1 + refinement, static_cast<int>(out.coded.passes.size()));
  } else {
    out.coded = coder.encode(v);
    passes = ebcot_passes(out.coded.bitplanes, stop);
  }
  if (passes == 0) return;
  const int planes = std::max(out.coded.bitplanes, out.coded.magnitude_bitplanes);
  if (planes > band_planes)
    corrupt("a code-block's magnitudes need " + std::to_string(planes) + " bit planes, more than its band's " +
            std::to_string(band_planes));
  out.tier2.missing_bitplanes = static_cast<uint32_t>(band_planes - out.coded.bitplanes);
  out.tier2.passes[0] = passes;
  // The bytes past the last pass sent are not needed: Tier-2 sends [0, passes[passes-1].end).
}

// ---------------------------------------------------------------- markers

bool default_precincts(const std::vector<std::pair<int, int>>& p) {
  return std::all_of(p.begin(), p.end(), [](const std::pair<int, int>& e) { return e.first == 15 && e.second == 15; });
}

// SPcod / SPcoc (A.6.1, Table A.15) of a component coded as `k` says, its style `modes`.
void put_spcod(const ComponentCoding& k, uint8_t modes, bool precincts, std::vector<uint8_t>& out) {
  put8(out, static_cast<uint32_t>(k.levels));
  put8(out, static_cast<uint32_t>(k.block_w_log2 - 2));
  put8(out, static_cast<uint32_t>(k.block_h_log2 - 2));
  put8(out, modes);
  put8(out, k.reversible ? 1 : 0);
  if (precincts)
    for (const auto& [x, y] : k.precincts) put8(out, static_cast<uint32_t>(x | (y << 4)));
}

void put_cod(const TileCoding& tc, const CodeBlockStyle& style, std::vector<uint8_t>& out) {
  const ComponentCoding& k = tc.components[0];
  const bool precincts = !default_precincts(k.precincts);
  put16(out, 0xFF52);
  put16(out, static_cast<uint32_t>(12 + (precincts ? k.precincts.size() : 0)));
  put8(out, (precincts ? 1u : 0u) | (tc.sop ? 2u : 0u) | (tc.eph ? 4u : 0u));
  put8(out, static_cast<uint32_t>(tc.order));
  put16(out, 1);  // the layers, collapsed into one
  put8(out, tc.mct ? 1 : 0);
  put_spcod(k, style(0, k.modes), precincts, out);
}

void put_coc(size_t c, size_t components, const ComponentCoding& k, const CodeBlockStyle& style, std::vector<uint8_t>& out) {
  const bool precincts = !default_precincts(k.precincts);
  const size_t index_bytes = components < 257 ? 1 : 2;
  put16(out, 0xFF53);
  put16(out, static_cast<uint32_t>(8 + index_bytes + (precincts ? k.precincts.size() : 0)));
  if (index_bytes == 1) put8(out, static_cast<uint32_t>(c));
  else put16(out, static_cast<uint32_t>(c));
  put8(out, precincts ? 1u : 0u);
  put_spcod(k, style(c, k.modes), precincts, out);
}

// QCD (component < 0) or QCC as the stream signalled it: style, guard bits, the steps held.
void put_qcd(int component, size_t components, const ComponentQuant& q, std::vector<uint8_t>& out) {
  const size_t per_band = q.style == ComponentQuant::None ? 1 : 2;
  const size_t index_bytes = component < 0 ? 0 : components < 257 ? 1 : 2;
  put16(out, component < 0 ? 0xFF5C : 0xFF5D);
  put16(out, static_cast<uint32_t>(3 + index_bytes + per_band * q.steps.size()));
  if (index_bytes == 1) put8(out, static_cast<uint32_t>(component));
  if (index_bytes == 2) put16(out, static_cast<uint32_t>(component));
  put8(out, static_cast<uint32_t>(q.guard_bits << 5) | static_cast<uint32_t>(q.style));
  for (const auto& [exponent, mantissa] : q.steps) {
    if (q.style == ComponentQuant::None) put8(out, static_cast<uint32_t>(exponent << 3));
    else put16(out, static_cast<uint32_t>(exponent << 11 | mantissa));
  }
}

// The POC changes with their layers clamped to the one layer left.
std::vector<PocEntry> one_layer(std::vector<PocEntry> changes) {
  for (PocEntry& e : changes) e.layer_end = std::min(e.layer_end, 1);
  return changes;
}

bool same_coding(const ComponentCoding& a, const ComponentCoding& b) {
  return a.levels == b.levels && a.block_w_log2 == b.block_w_log2 && a.block_h_log2 == b.block_h_log2 && a.modes == b.modes &&
         a.reversible == b.reversible && a.precincts == b.precincts;
}
bool same_quant(const ComponentQuant& a, const ComponentQuant& b) {
  return a.style == b.style && a.guard_bits == b.guard_bits && a.steps == b.steps;
}
bool same_poc(const std::vector<PocEntry>& a, const std::vector<PocEntry>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const PocEntry& x, const PocEntry& y) {
    return x.res_start == y.res_start && x.comp_start == y.comp_start && x.layer_end == y.layer_end && x.res_end == y.res_end &&
           x.comp_end == y.comp_end && x.order == y.order;
  });
}
bool same_tile_coding(const TileCoding& a, const TileCoding& b) {
  if (a.order != b.order || a.mct != b.mct || a.sop != b.sop || a.eph != b.eph || a.roi_shift != b.roi_shift ||
      !same_poc(a.poc, b.poc) || a.components.size() != b.components.size() || a.quant.size() != b.quant.size())
    return false;
  for (size_t c = 0; c < a.components.size(); ++c)
    if (!same_coding(a.components[c], b.components[c]) || !same_quant(a.quant[c], b.quant[c])) return false;
  return true;
}

// A tile's (or the main header's) coding: COD and QCD from component 0's, COC and QCC for the
// components that differ from it (or every one: `all`), RGN where the shift differs from
// `roi_before`'s, POC.
void put_coding(const TileCoding& tc, const CodeBlockStyle& style, bool all, const std::vector<int>& roi_before,
                std::vector<uint8_t>& out) {
  const size_t n = tc.components.size();
  put_cod(tc, style, out);
  for (size_t c = 1; c < n; ++c)
    if (all || !same_coding(tc.components[c], tc.components[0]) || style(c, tc.components[c].modes) != style(0, tc.components[0].modes))
      put_coc(c, n, tc.components[c], style, out);
  put_qcd(-1, n, tc.quant[0], out);
  for (size_t c = 1; c < n; ++c)
    if (all || !same_quant(tc.quant[c], tc.quant[0])) put_qcd(static_cast<int>(c), n, tc.quant[c], out);
  for (size_t c = 0; c < n && c < tc.roi_shift.size(); ++c) {
    const int before = c < roi_before.size() ? roi_before[c] : 0;
    if (tc.roi_shift[c] != before) write_rgn(c, n, tc.roi_shift[c], out);
  }
  if (!tc.poc.empty()) write_poc(one_layer(tc.poc), n, out);
}

// CAP's figures for an HT stream: whether any tile-component uses the 9/7, and the most
// magnitude bit planes (Mb, ROI shift included) of any band.
void cap_figures(const Codestream& cs, bool& reversible, int& magb) {
  reversible = true;
  magb = 0;
  std::set<const TileCoding*> seen;  // the tiles without a coding of their own share one
  for (size_t t = 0; t < cs.tiles.size(); ++t) {
    const TileCoding& tc = cs.tiles[t];
    if (!seen.insert(&tc).second) continue;
    for (size_t c = 0; c < tc.components.size(); ++c) {
      reversible = reversible && tc.components[c].reversible;
      const int roi = c < tc.roi_shift.size() ? tc.roi_shift[c] : 0;
      for (size_t b = 0; b < 3 * static_cast<size_t>(tc.components[c].levels) + 1; ++b)
        magb = std::max(magb, band_bitplanes(tc.quant[c], band_quant(tc.quant[c], b)) + roi);
    }
  }
}

// ---------------------------------------------------------------- one tile

// Tile t's packets, every block re-coded, in its progression with one layer: the tile-part's
// data after SOD, and each packet's length (for PLT).
class TileTranscoder {
 public:
  TileTranscoder(const Codestream& cs, const uint8_t* stream, const TranscodeSettings& settings, MemoryBudget& budget,
                 TranscodeReport& report)
      : cs_(cs), stream_(stream), settings_(settings), budget_(budget), report_(report) {}

  // Per component, whether an HT block of it has a SigProp or MagRef pass (CodeBlockStyle).
  const std::vector<bool>& refined() const { return refined_; }

  void run(size_t t, std::vector<uint8_t>& data, std::vector<uint32_t>& packet_lengths) {
    const TileCoding& tc = cs_.tiles[t];
    report_.layers = std::max(report_.layers, tc.layers);
    auto t0 = Clock::now();
    const TilePackets packets = read_tile_packets(cs_, stream_, t, false, 0, &budget_);
    report_.warnings.insert(report_.warnings.end(), packets.warnings.begin(), packets.warnings.end());
    const std::vector<TileComponentInput> inputs = tile_components(cs_, t);
    report_.tier2_read_ms += ms_since(t0);

    // Tier-1: every block decoded and coded again, in parallel; its output counted as it comes.
    t0 = Clock::now();
    const TileLayout& layout = packets.layout;
    const size_t nblocks = layout.blocks.size();
    Reservation memory(&budget_, nblocks * (sizeof(Recoded) + sizeof(const BlockContribution*)),
                       [&] { return "tile " + std::to_string(t) + "'s records of " + std::to_string(nblocks) + " code-blocks"; });
    std::vector<Recoded> blocks(nblocks);
    BlockCounts counts;
    std::atomic<uint64_t> recoded{0};
    parallel_for(static_cast<ptrdiff_t>(nblocks), settings_.threads, [&](ptrdiff_t j) {
      const auto i = static_cast<size_t>(j);
      Recoded& r = blocks[i];
      r.tier2.coded = &r.coded;
      r.tier2.passes.assign(1, 0);
      const BlockData* bd = packets.data_of(i);
      if (!bd || bd->passes == 0) return;
      const LaidBlock& lb = layout.blocks[i];
      const size_t c = lb.component;
      const ComponentQuant& q = tc.quant[c];
      const int roi = c < tc.roi_shift.size() ? tc.roi_shift[c] : 0;
      const int planes = band_bitplanes(q, band_quant(q, lb.band)) + roi;
      if (static_cast<int64_t>(bd->missing_bitplanes) > planes)
        corrupt("tile " + std::to_string(t) + ", component " + std::to_string(c) + ": a code-block misses " +
                std::to_string(bd->missing_bitplanes) + " of its band's " + std::to_string(planes) + " bit planes");
      BlockCode code;
      code.width = static_cast<int>(lb.x1 - lb.x0);
      code.height = static_cast<int>(lb.y1 - lb.y0);
      code.band = inputs[c].bands[lb.band].type;
      code.modes = bd->modes(tc.components[c].modes);  // HTMIXED: HT or Part 1 block by block
      code.bytes = bd->data();
      code.size = bd->size();
      code.segment_bytes = bd->segments.data();
      code.segment_passes = bd->segment_passes.data();
      code.segments = bd->segments.size();
      code.bitplanes = planes - static_cast<int>(bd->missing_bitplanes);
      if (code.bitplanes > kMaxDecodedBitplanes)
        throw Error(ErrorCode::UnsupportedInput, "tile " + std::to_string(t) + ", component " + std::to_string(c) +
                                                     ": a code-block with " + std::to_string(code.bitplanes) + " bit planes; at most " +
                                                     std::to_string(kMaxDecodedBitplanes) + " are decoded");
      const BlockCoder& decoder = (code.modes & kModeHt) ? *ht_ : *ebcot_;
      const BlockCoder& coder = settings_.target == BlockCoding::HighThroughput ? *ht_ : *ebcot_;
      recode(code, planes, tc.components[c].reversible, decoder, coder, settings_.target,
             recoded_modes(code.modes, settings_.target), r, counts);
      r.coded.passes.resize(static_cast<size_t>(r.tier2.passes[0]));  // Tier-2 needs no more
      if (r.tier2.passes[0] > 0) {
        r.coded.bytes.resize(r.coded.passes.back().end);
        ++recoded;
      }
      memory.grow(heap_bytes(r.coded.bytes.capacity()) + heap_bytes(r.coded.passes.capacity() * sizeof(CodedPass)),
                  [&] { return "tile " + std::to_string(t) + "'s re-coded code-blocks"; });
    });
    report_.blocks += recoded.load();
    for (size_t i = 0; i < nblocks; ++i)
      if (blocks[i].tier2.passes[0] > 1 && settings_.target == BlockCoding::HighThroughput) refined_[layout.blocks[i].component] = true;
    if (counts.segmark > 0)
      report_.warnings.push_back("tile " + std::to_string(t) + ": " + std::to_string(counts.segmark.load()) +
                                 " code-blocks failed their SEGMARK check (re-coded as decoded)");
    if (counts.corrupt > 0)
      report_.warnings.push_back("tile " + std::to_string(t) + ": " + std::to_string(counts.corrupt.load()) +
                                 " HT code-blocks with inconsistent data (re-coded as zeros, as they decode)");
    report_.tier1_ms += ms_since(t0);

    // Tier-2: each precinct's one packet, then the packets in the tile's progression.
    t0 = Clock::now();
    const LaidTile& tile = layout.tiles[0];
    std::vector<const BlockContribution*> contributions(nblocks);
    for (size_t i = 0; i < nblocks; ++i) contributions[i] = &blocks[i].tier2;
    std::vector<std::vector<PrecinctBand>> precincts;
    const auto [grids, first] = tile_precincts(cs_.info, tile, contributions, precincts);
    struct Packet {
      std::vector<uint8_t> header;
      std::vector<BodyPart> body;
      uint64_t body_bytes = 0;
    };
    std::vector<Packet> coded(precincts.size());
    parallel_for(static_cast<ptrdiff_t>(precincts.size()), settings_.threads, [&](ptrdiff_t k) {
      Packet& p = coded[static_cast<size_t>(k)];
      PrecinctCoder coder(precincts[static_cast<size_t>(k)]);
      p.body_bytes = coder.write(0, tc.eph, p.header, p.body);
    });
    std::vector<PacketId> order;
    uint64_t steps = 0;
    if (!tc.poc.empty()) {
      change_packet_order(one_layer(tc.poc), 1, grids, tile.x0, tile.y0, tile.x1, tile.y1, order, steps);
    } else {
      order = packet_order(tc.order, 1, grids, tile.x0, tile.y0, tile.x1, tile.y1);
    }
    uint32_t sequence = 0;
    for (const PacketId& id : order) {
      const size_t k = first[static_cast<size_t>(id.component)][static_cast<size_t>(id.resolution)] + static_cast<size_t>(id.precinct);
      const Packet& p = coded[k];
      const size_t start = data.size();
      memory.grow(p.header.size() + p.body_bytes + 6, [&] { return "tile " + std::to_string(t) + "'s packets"; });
      if (tc.sop) {
        put16(data, 0xFF91);
        put16(data, 4);
        put16(data, sequence & 0xFFFF);
      }
      ++sequence;
      data.insert(data.end(), p.header.begin(), p.header.end());
      for (const BodyPart& b : p.body) data.insert(data.end(), b.coded->data() + b.from, b.coded->data() + b.to);
      packet_lengths.push_back(static_cast<uint32_t>(data.size() - start));
    }
    report_.tier2_write_ms += ms_since(t0);
  }

 private:
  const Codestream& cs_;
  const uint8_t* stream_;
  const TranscodeSettings& settings_;
  MemoryBudget& budget_;
  TranscodeReport& report_;
  const std::unique_ptr<BlockCoder> ebcot_ = make_block_coder(BlockCoding::Ebcot);
  const std::unique_ptr<BlockCoder> ht_ = make_block_coder(BlockCoding::HighThroughput);
  std::vector<bool> refined_ = std::vector<bool>(cs_.info.components.size(), false);
};

}  // namespace

std::vector<uint8_t> transcode(const uint8_t* data, size_t size, const TranscodeSettings& settings, TranscodeReport* report) {
  if (data == nullptr && size > 0) throw Error(ErrorCode::InvalidArgument, "transcode: no input bytes");
  TranscodeReport own;
  TranscodeReport& r = report ? *report : own;
  r = TranscodeReport{};
  MemoryBudget budget(settings.max_bytes);
  Reservation memory(&budget, size, [&] { return "the stream's " + std::to_string(size) + " bytes"; });
  const uint8_t* stream = data;
  size_t stream_size = size;
  Jp2File jp2;
  const bool in_jp2 = is_jp2(data, size);
  if (in_jp2) {
    jp2 = read_jp2(data, size);
    stream = data + jp2.codestream;
    stream_size = jp2.codestream_length;
    r.warnings.insert(r.warnings.end(), jp2.warnings.begin(), jp2.warnings.end());
  }
  const Codestream cs = read_codestream(stream, stream_size);
  const size_t ncomp = cs.info.components.size();

  // The tiles in index order, each as one tile-part (those without one in the input have
  // none here either); their packets first, for the code-block style the headers say
  // depends on what the blocks came to.
  std::vector<bool> has_data(cs.tiles.size(), false);
  for (const TilePart& p : cs.parts) has_data[static_cast<size_t>(p.tile)] = true;
  bool plt = false;
  for (const TilePart& p : cs.parts) plt = plt || !p.packet_lengths.empty();
  struct TileOut {
    size_t tile = 0;
    std::vector<uint8_t> packets;
    std::vector<uint32_t> lengths;
  };
  std::vector<TileOut> coded_tiles;
  TileTranscoder tiles(cs, stream, settings, budget, r);
  Reservation output(&budget);
  for (size_t t = 0; t < cs.tiles.size(); ++t) {
    if (!has_data[t]) continue;
    TileOut o;
    o.tile = t;
    tiles.run(t, o.packets, o.lengths);
    output.grow(o.packets.capacity() + o.lengths.capacity() * sizeof(uint32_t),
                [&] { return "tile " + std::to_string(t) + "'s packets"; });
    coded_tiles.push_back(std::move(o));
  }
  CodeBlockStyle style;
  style.target = settings.target;
  style.refined = tiles.refined();

  // The main header: SIZ (Rsiz with Part 15's bit for HT), CAP for HT, the main header's
  // coding, COM text, TLM; then each tile-part: SOT, the tile's own coding where it differs
  // from the main header's, PLT, SOD and the packets.
  const bool ht = settings.target == BlockCoding::HighThroughput;
  std::vector<uint8_t> header;
  put16(header, 0xFF4F);  // SOC
  write_siz(cs.info, header, ht, static_cast<uint16_t>(cs.rsiz & ~0x4000));
  if (ht) {
    bool reversible = true;
    int magb = 0;
    cap_figures(cs, reversible, magb);
    write_cap(reversible, magb, header);
  }
  put_coding(cs.defaults, style, false, {}, header);
  for (const std::string& text : cs.comments) write_com(text, header);
  std::vector<std::vector<uint8_t>> part_headers;
  std::vector<TilePartEntry> entries;
  uint64_t total = 0;
  for (const TileOut& o : coded_tiles) {
    const TileCoding& tc = cs.tiles[o.tile];
    std::vector<uint8_t> h;
    std::vector<uint8_t> coding;  // the tile's own, where it has one
    if (!same_tile_coding(tc, cs.defaults)) put_coding(tc, style, true, cs.defaults.roi_shift, coding);
    std::vector<uint8_t> plt_bytes;
    if (plt) write_plt(o.lengths, plt_bytes);
    const uint64_t psot = 12 + coding.size() + plt_bytes.size() + 2 + o.packets.size();
    if (psot > UINT32_MAX)
      throw Error(ErrorCode::UnsupportedInput, "tile " + std::to_string(o.tile) + ": a tile-part of more than 4 GiB");
    write_sot(static_cast<uint32_t>(o.tile), static_cast<uint32_t>(psot), 0, 1, h);
    h.insert(h.end(), coding.begin(), coding.end());
    h.insert(h.end(), plt_bytes.begin(), plt_bytes.end());
    put16(h, 0xFF93);  // SOD
    part_headers.push_back(std::move(h));
    entries.push_back({static_cast<uint16_t>(o.tile), static_cast<uint32_t>(psot)});
    total += psot;
  }
  if (cs.tlm) write_tlm(entries, header);
  total += header.size() + 2;
  output.grow(total, [&] { return "the output's " + std::to_string(total) + " bytes"; });
  std::vector<uint8_t> out = std::move(header);
  out.reserve(static_cast<size_t>(total));
  for (size_t i = 0; i < coded_tiles.size(); ++i) {
    out.insert(out.end(), part_headers[i].begin(), part_headers[i].end());
    out.insert(out.end(), coded_tiles[i].packets.begin(), coded_tiles[i].packets.end());
    coded_tiles[i].packets = std::vector<uint8_t>();
  }
  put16(out, 0xFFD9);  // EOC

  if (settings.format == FileFormat::Jp2) {
    // A JP2 input's other top-level boxes (XML, UUID: XMP, Exif, GeoJP2, ...) go along, in
    // their order, between the JP2 Header box and the codestream.
    std::vector<Jp2Box> boxes;
    uint64_t box_bytes = 0;
    for (const Jp2BoxRef& b : jp2.boxes) box_bytes += 16 + b.length;
    output.grow(out.size() + 4096 + box_bytes, "the JP2 file's copy of the codestream and its boxes");
    for (const Jp2BoxRef& b : jp2.boxes) boxes.push_back({b.type, std::vector<uint8_t>(data + b.contents, data + b.contents + b.length)});
    if (in_jp2) return write_jp2_with_header(data + jp2.header, jp2.header_length, ht, boxes, out);
    Jp2Info j;
    j.width = cs.info.x1 - cs.info.x0;
    j.height = cs.info.y1 - cs.info.y0;
    for (const ComponentInfo& c : cs.info.components) j.components.push_back({c.precision, c.is_signed});
    j.colour = default_colour(ncomp);
    j.jph = ht;
    return write_jp2(j, out);
  }
  if (in_jp2 && (!jp2.icc.empty() || !jp2.palette.columns.empty() || !jp2.channels.empty() ||
                 (jp2.enum_cs != 0 && jp2.enum_cs != (ncomp >= 3 ? 16 : 17))))
    r.warnings.push_back("the JP2 file's colour specification, palette or channel definitions are not carried into a bare codestream");
  if (in_jp2 && !jp2.boxes.empty()) {
    std::string names;
    for (const Jp2BoxRef& b : jp2.boxes) {
      const std::string uuid = jp2_uuid_name(data + b.contents, b.type == jp2_fourcc("uuid") ? b.length : 0);
      names += (names.empty() ? "" : ", ") + ("'" + jp2_box_name(b.type) + "'") + (uuid.empty() ? "" : " (" + uuid + ")");
    }
    r.warnings.push_back("the JP2 file's " + names + " box" + (jp2.boxes.size() == 1 ? " is" : "es are") +
                         " not carried into a bare codestream");
  }
  if (in_jp2 && (jp2.capture.given() || jp2.display.given()))
    r.warnings.push_back("the JP2 file's resolution is not carried into a bare codestream");
  return out;
}

}  // namespace j2k::codec
