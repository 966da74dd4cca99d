#include "codec/codestream/codestream_writer.hpp"

#include <algorithm>
#include <string>

#include "codec/tier1/block_encoder.hpp"
#include "codec/tier2/packet_writer.hpp"
#include "common/error.hpp"
#include "transform/cpu/worker_pool.hpp"

namespace j2k::codec {
namespace {

constexpr int kBlockLog2 = 6;       // 64 x 64 code-blocks (COD: 6 - 2 = 4 each way)
constexpr int kPrecinctLog2 = 15;   // the default precincts: one per resolution, short of huge images

int64_t ceil_shift(int64_t a, int k) { return (a + (int64_t{1} << k) - 1) >> k; }

void put8(std::vector<uint8_t>& o, uint32_t v) { o.push_back(static_cast<uint8_t>(v)); }
void put16(std::vector<uint8_t>& o, uint32_t v) { put8(o, v >> 8), put8(o, v); }
void put32(std::vector<uint8_t>& o, uint32_t v) { put16(o, v >> 16), put16(o, v); }

// The nominal gain of a band's filters in bits (E.1.1.1): what its exponent adds to the
// samples' precision.
int band_gain(j2k_band_type t) { return t == J2K_BAND_LL ? 0 : t == J2K_BAND_HH ? 2 : 1; }

// A band's code-blocks, coded: the grid of 64 x 64 blocks anchored at 0 on the band's grid.
struct CodedBand {
  int64_t first_x = 0, first_y = 0;  // block indices of the band's first block
  int count_x = 0, count_y = 0;
  std::vector<CodedBlock> blocks;
  const CodedBlock& at(int64_t bx, int64_t by) const {
    return blocks[static_cast<size_t>((by - first_y) * count_x + (bx - first_x))];
  }
};

// A code-block to code: its view and where its result goes.
struct BlockJob {
  BlockView view;
  CodedBlock* out;
};

// Lays out a band's code-blocks (coded later, in parallel).
CodedBand plan_band(const TileComponentInput::Band& b) {
  CodedBand out;
  const j2k_rect& r = b.rect;
  if (r.x1 <= r.x0 || r.y1 <= r.y0) return out;
  out.first_x = r.x0 >> kBlockLog2;
  out.first_y = r.y0 >> kBlockLog2;
  out.count_x = static_cast<int>(ceil_shift(r.x1, kBlockLog2) - out.first_x);
  out.count_y = static_cast<int>(ceil_shift(r.y1, kBlockLog2) - out.first_y);
  out.blocks.resize(static_cast<size_t>(out.count_x) * static_cast<size_t>(out.count_y));
  return out;
}

// Lists a band's code-blocks as jobs.
void list_blocks(const TileComponentInput& tc, const TileComponentInput::Band& b, CodedBand& band,
                 std::vector<BlockJob>& jobs) {
  const j2k_rect& r = b.rect;
  for (int j = 0; j < band.count_y; ++j)
    for (int i = 0; i < band.count_x; ++i) {
      const int64_t x0 = std::max(r.x0, (band.first_x + i) << kBlockLog2);
      const int64_t y0 = std::max(r.y0, (band.first_y + j) << kBlockLog2);
      const int64_t x1 = std::min(r.x1, (band.first_x + i + 1) << kBlockLog2);
      const int64_t y1 = std::min(r.y1, (band.first_y + j + 1) << kBlockLog2);
      BlockView v;
      v.data = tc.data + (b.row + y0 - r.y0) * tc.stride + (b.col + x0 - r.x0);
      v.stride = tc.stride;
      v.width = static_cast<int>(x1 - x0);
      v.height = static_cast<int>(y1 - y0);
      v.band = b.type;
      jobs.push_back({v, &band.blocks[static_cast<size_t>(j) * static_cast<size_t>(band.count_x) + static_cast<size_t>(i)]});
    }
}

}  // namespace

std::vector<uint8_t> write_codestream(const StreamInfo& info,
                                      const std::vector<std::vector<TileComponentInput>>& tiles) {
  const size_t ncomp = info.components.size();
  if (ncomp == 0 || ncomp > 16384) throw Error(ErrorCode::InvalidArgument, "a codestream holds 1 to 16384 components");
  int max_precision = 0;
  for (const ComponentInfo& c : info.components) max_precision = std::max(max_precision, c.precision);

  // Tier-1: every code-block of every band, the blocks shared out among the CPU's threads.
  std::vector<std::vector<std::vector<CodedBand>>> coded(tiles.size());  // [tile][component][band]
  for (size_t t = 0; t < tiles.size(); ++t) {
    if (tiles[t].size() != ncomp) throw Error(ErrorCode::Internal, "codestream: a tile without every component");
    for (const TileComponentInput& tc : tiles[t]) {
      if (tc.levels != info.levels) throw Error(ErrorCode::Internal, "codestream: levels differ between tile-components");
      coded[t].emplace_back();
      for (const TileComponentInput::Band& b : tc.bands) coded[t].back().push_back(plan_band(b));
    }
  }
  std::vector<BlockJob> jobs;  // listed once every band's blocks have their final place
  for (size_t t = 0; t < tiles.size(); ++t)
    for (size_t c = 0; c < ncomp; ++c)
      for (size_t k = 0; k < tiles[t][c].bands.size(); ++k) list_blocks(tiles[t][c], tiles[t][c].bands[k], coded[t][c][k], jobs);
  run_on_workers(static_cast<ptrdiff_t>(jobs.size()), info.threads > 0 ? info.threads : available_cores(),
                 [&](ptrdiff_t i, int) { *jobs[static_cast<size_t>(i)].out = encode_block(jobs[static_cast<size_t>(i)].view); });
  // Mb = G + epsilon_b - 1 bit planes must hold every block's (E.1.1.1, E-2): more guard bits
  // where the 5/3's growth needs them.
  int guard_bits = 2;
  for (size_t t = 0; t < tiles.size(); ++t)
    for (size_t c = 0; c < ncomp; ++c)
      for (size_t k = 0; k < tiles[t][c].bands.size(); ++k) {
        const int epsilon = max_precision + band_gain(tiles[t][c].bands[k].type);
        for (const CodedBlock& b : coded[t][c][k].blocks) guard_bits = std::max(guard_bits, b.bitplanes - epsilon + 1);
      }
  if (guard_bits > 7)
    throw Error(ErrorCode::UnsupportedInput, "the coefficients need " + std::to_string(guard_bits) +
                                                 " guard bits; a codestream holds at most 7");

  std::vector<uint8_t> out;
  put16(out, 0xFF4F);  // SOC
  // SIZ (A.5.1)
  put16(out, 0xFF51);
  put16(out, static_cast<uint32_t>(38 + 3 * ncomp));
  put16(out, 0);  // Rsiz: Part 1, no profile restriction
  for (uint32_t v : {info.x1, info.y1, info.x0, info.y0, info.tile_w, info.tile_h, info.tile_x0, info.tile_y0})
    put32(out, v);
  put16(out, static_cast<uint32_t>(ncomp));
  for (const ComponentInfo& c : info.components) {
    put8(out, static_cast<uint32_t>(c.precision - 1) | (c.is_signed ? 0x80u : 0u));
    put8(out, static_cast<uint32_t>(c.dx));
    put8(out, static_cast<uint32_t>(c.dy));
  }
  // COD (A.6.1): no precinct sizes given (the largest), no SOP/EPH; LRCP, 1 layer, MCT;
  // levels, 64 x 64 blocks, no mode switches, the 5/3.
  put16(out, 0xFF52);
  put16(out, 12);
  put8(out, 0);
  put8(out, 0);
  put16(out, 1);
  put8(out, info.mct ? 1 : 0);
  put8(out, static_cast<uint32_t>(info.levels));
  put8(out, kBlockLog2 - 2);
  put8(out, kBlockLog2 - 2);
  put8(out, 0);
  put8(out, 1);
  // QCD (A.6.4): no quantisation; per band its exponent epsilon_b (LL, then HL, LH, HH from
  // the coarsest level).
  const int nbands = 3 * info.levels + 1;
  put16(out, 0xFF5C);
  put16(out, static_cast<uint32_t>(3 + nbands));
  put8(out, static_cast<uint32_t>(guard_bits << 5));
  put8(out, static_cast<uint32_t>(max_precision << 3));
  for (int l = 0; l < info.levels; ++l)
    for (j2k_band_type t : {J2K_BAND_HL, J2K_BAND_LH, J2K_BAND_HH})
      put8(out, static_cast<uint32_t>((max_precision + band_gain(t)) << 3));

  for (size_t t = 0; t < tiles.size(); ++t) {
    // The packets, layer by resolution by component by precinct (LRCP, B.12.1.1).
    std::vector<uint8_t> body;
    for (int r = 0; r <= info.levels; ++r) {
      for (size_t c = 0; c < ncomp; ++c) {
        const TileComponentInput& tc = tiles[t][c];
        const int shift = info.levels - r;
        const int64_t rx0 = ceil_shift(tc.rect.x0, shift), rx1 = ceil_shift(tc.rect.x1, shift);
        const int64_t ry0 = ceil_shift(tc.rect.y0, shift), ry1 = ceil_shift(tc.rect.y1, shift);
        if (rx1 <= rx0 || ry1 <= ry0) continue;  // an empty resolution has no precincts
        const int64_t px0 = rx0 >> kPrecinctLog2, px1 = ceil_shift(rx1, kPrecinctLog2);
        const int64_t py0 = ry0 >> kPrecinctLog2, py1 = ceil_shift(ry1, kPrecinctLog2);
        // The resolution's bands: LL alone, or HL, LH, HH of level levels - r + 1; a
        // precinct covers half as much of each of those (B.6).
        const size_t first = r == 0 ? 0 : static_cast<size_t>(1 + 3 * (r - 1));
        const size_t count = r == 0 ? 1 : 3;
        const int band_log2 = kPrecinctLog2 - (r == 0 ? 0 : 1);
        for (int64_t py = py0; py < py1; ++py)
          for (int64_t px = px0; px < px1; ++px) {
            std::vector<PrecinctBand> bands;
            for (size_t k = first; k < first + count; ++k) {
              const j2k_rect& br = tc.bands[k].rect;
              const CodedBand& cb = coded[t][c][k];
              PrecinctBand pb;
              const int64_t x0 = std::max(br.x0, px << band_log2), x1 = std::min(br.x1, (px + 1) << band_log2);
              const int64_t y0 = std::max(br.y0, py << band_log2), y1 = std::min(br.y1, (py + 1) << band_log2);
              if (x1 > x0 && y1 > y0) {
                const int64_t bx0 = x0 >> kBlockLog2, bx1 = ceil_shift(x1, kBlockLog2);
                const int64_t by0 = y0 >> kBlockLog2, by1 = ceil_shift(y1, kBlockLog2);
                pb.blocks_x = static_cast<int>(bx1 - bx0);
                pb.blocks_y = static_cast<int>(by1 - by0);
                const int mb = guard_bits + max_precision + band_gain(tc.bands[k].type) - 1;
                for (int64_t by = by0; by < by1; ++by)
                  for (int64_t bx = bx0; bx < bx1; ++bx) {
                    const CodedBlock& block = cb.at(bx, by);
                    pb.blocks.push_back(&block);
                    pb.missing_bitplanes.push_back(static_cast<uint32_t>(mb - block.bitplanes));
                  }
              }
              bands.push_back(std::move(pb));
            }
            write_packet(bands, body);
          }
      }
    }
    // SOT (A.4.2): the tile-part's length from the SOT marker to the end of its data.
    const uint64_t psot = 12 + 2 + body.size();
    if (psot > UINT32_MAX) throw Error(ErrorCode::UnsupportedInput, "a tile's data exceeds 4 GiB");
    put16(out, 0xFF90);
    put16(out, 10);
    put16(out, static_cast<uint32_t>(t));
    put32(out, static_cast<uint32_t>(psot));
    put8(out, 0);
    put8(out, 1);
    put16(out, 0xFF93);  // SOD
    out.insert(out.end(), body.begin(), body.end());
  }
  put16(out, 0xFFD9);  // EOC
  return out;
}

}  // namespace j2k::codec
