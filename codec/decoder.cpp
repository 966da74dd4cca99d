// SPDX-License-Identifier: BSD-2-Clause
#include "codec/decoder.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <cmath>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#include "codec/codestream/codestream_reader.hpp"
#include "codec/codestream/jp2_reader.hpp"
#include "codec/codestream/tile_packets.hpp"
#include "codec/icc_colour.hpp"
#include "codec/jp2_channels.hpp"
#include "codec/opj_colour.hpp"
#include "codec/quant/dequantiser.hpp"
#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/gpu/gpu_block_batch.hpp"
#include "common/checked_math.hpp"
#include "codec/tier1/gpu/gpu_block_records.hpp"
#include "common/error.hpp"
#include "common/memory_budget.hpp"
#include "common/memory_pages.hpp"
#include "tiling/canvas.hpp"
#include "pipeline/back_stage.hpp"
#include "pipeline/row_back_stage.hpp"
#include "common/parallel/parallel_for.hpp"
#include "common/parallel/worker_pool.hpp"

namespace j2k::codec {
namespace {

// The resolution a band of a tile-component belongs to (bands: LL, then HL, LH, HH from the
// coarsest level).
int band_resolution(size_t band) { return band == 0 ? 0 : static_cast<int>((band - 1) / 3) + 1; }

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// One tile-component's coefficients at the resolution decoded, in OpenJPEG's pyramid layout:
// int32 for the 5/3, float for the 9/7, in the back stage's buffer. Not zeroed: every block of
// the decoded resolutions writes its rectangle, those without data zeros (so the first touch
// of these pages runs in parallel).
struct TileComponent {
  Rect rect;  // the decoded resolution's rectangle on the component's grid
  int levels = 0;  // inverse DWT levels: the resolutions decoded
  bool reversible = true;
  int32_t* ints = nullptr;
  float* floats = nullptr;
};

class TileDecoder {
 public:
  // by_rows: the tiles go through run_by_rows() (decodes_by_rows() said yes).
  TileDecoder(const Codestream& cs, const uint8_t* data, const DecodeSettings& settings, BackStage& stage, MemoryBudget& budget,
              bool by_rows)
      : cs_(cs), data_(data), settings_(settings), stage_(stage), budget_(budget), by_rows_(by_rows) {}

  // Decodes tile t into `image` (its components already sized): Tier-2 and Tier-1 here, the
  // rest in the back stage (on a GPU, while the next tile's blocks are decoded). With Tier-1
  // on the GPU, the tile's blocks join those of the tiles before it, decoded together once
  // they fill a launch (or at finish()).
  void run(size_t t, DecodedImage& image) {
    if (by_rows_) {
      run_by_rows(t, image);
      return;
    }
    Prepared p = prepare(t, image);
    // HT code-blocks (Part 15) go to the GPU's batch as Part 1's do (CUDA's and OpenCL's
    // decode both, block by block: an HTMIXED tile's in one launch). A batch that did not
    // (decodes_ht()) would leave such a tile to the CPU's threads, through the host buffers,
    // after the GPU's gathered tiles.
    if (stage_.on_device()) {
      bool ht = false;
      for (const ComponentCoding& k : cs_.tiles[t].components) ht = ht || (k.modes & kModeHt) != 0;
      if (!ht || gpu_batch().decodes_ht()) {
        gather(p);
        return;
      }
      flush();
    }
    const std::vector<void*>& buffers = stage_.begin(p.stage, p.mct);
    for (size_t c = 0; c < p.comps.size(); ++c) {
      if (p.comps[c].reversible) p.comps[c].ints = static_cast<int32_t*>(buffers[c]);
      else p.comps[c].floats = static_cast<float*>(buffers[c]);
    }
    decode_blocks(t, cs_.tiles[t], p.inputs, p.packets, p.comps);
    stage_.end();
  }

  // Hands the back stage the tiles still gathered for the GPU. Then, once the stage's work
  // is done (BackStage::finish()), gpu_warnings().
  void finish() { flush(); }

  // The warnings of blocks that failed their SEGMARK check on the GPU, and of HT blocks
  // decoded there as zeros, once its work is done.
  void gpu_warnings() {
    if (!gpu_blocks_) return;
    for (const auto& [t, n] : gpu_blocks_->segmark_errors()) segmark_warning(static_cast<size_t>(t), n);
    for (const auto& [t, n] : gpu_blocks_->corrupt_blocks()) corrupt_warning(static_cast<size_t>(t), n);
  }

 private:
  // A tile after Tier-2: its blocks' data, and what the back stage and Tier-1 need.
  struct Prepared {
    size_t t = 0;
    std::vector<TileComponentInput> inputs;
    TilePackets packets;
    std::vector<BackStage::Component> stage;
    std::vector<TileComponent> comps;
    bool mct = false;
    Reservation memory;  // for the above, less the packets' (their own)
  };

  Prepared prepare(size_t t, DecodedImage& image) {
    Prepared p = tile_of(t, image);
    read_packets(p, image);
    return p;
  }

  // Tier-2: the tile's packets, its blocks' data.
  void read_packets(Prepared& p, DecodedImage& image) {
    p.packets = read_tile_packets(cs_, data_, p.t, settings_.allow_partial, settings_.layers, &budget_);
    packets_read(p, image);
  }
  // What Tier-2 said of the tile: whether its data was cut short, its warnings.
  void packets_read(const Prepared& p, DecodedImage& image) {
    if (p.packets.truncated) image.truncated = true;
    warnings_.insert(warnings_.end(), p.packets.warnings.begin(), p.packets.warnings.end());
  }

  // The tile as its headers give it, before Tier-2: its tile-components, with the back stage's
  // and Tier-1's records of them.
  Prepared tile_of(size_t t, DecodedImage& image) {
    Prepared p;
    p.t = t;
    const TileCoding& tc = cs_.tiles[t];
    p.memory = Reservation(&budget_, tile_components_bytes(cs_, t) +
                                         tc.components.size() * (sizeof(BackStage::Component) + sizeof(TileComponent)) + 64,
                           [&] { return "tile " + std::to_string(t) + "'s " + std::to_string(tc.components.size()) + " tile-components"; });
    p.inputs = tile_components(cs_, t);
    const std::vector<TileComponentInput>& inputs = p.inputs;

    std::vector<BackStage::Component>& stage = p.stage;
    stage.resize(inputs.size());
    for (size_t c = 0; c < inputs.size(); ++c) {
      const TileComponentInput& in = inputs[c];
      BackStage::Component& k = stage[c];
      if (settings_.reduce > in.levels)
        throw Error(ErrorCode::InvalidArgument, "reduce " + std::to_string(settings_.reduce) + " is more than the " +
                                                    std::to_string(in.levels) + " decomposition levels of component " +
                                                    std::to_string(c) + " in tile " + std::to_string(t));
      k.levels = in.levels - settings_.reduce;
      k.rect = resolution_rect(Rect{in.rect.x0, in.rect.y0, in.rect.x1, in.rect.y1}, in.levels, k.levels);
      k.reversible = tc.components[c].reversible;
      goes_to(k, cs_.info.components[c], image.components[c]);
    }
    p.mct = tc.mct && stage.size() >= 3;
    if (p.mct) check_mct(t, stage);
    p.comps.resize(inputs.size());
    for (size_t c = 0; c < p.comps.size(); ++c) {
      p.comps[c].rect = stage[c].rect;
      p.comps[c].levels = stage[c].levels;
      p.comps[c].reversible = stage[c].reversible;
    }
    return p;
  }

  // The tile's blocks into the batch for the GPU, their coefficients to planes of the batch's
  // own (first_plane + component); the launch waits until the tiles gathered hold
  // kGpuGroupBytes of coefficients (or as much as one buffer of the device takes, if less) or
  // a batch's most planes (a launch lasts as long as its heaviest block takes one GPU thread,
  // however few blocks it holds: a tile of 1024^2 alone leaves most of the GPU idle for as
  // long as the whole image would take). A tile larger than that goes alone, into the back
  // stage's planes.
  void gather(Prepared& p) {
    const uint64_t device_limit = gpu_batch().max_buffer_bytes();
    const size_t limit = device_limit > 0 && device_limit < kGpuGroupBytes ? static_cast<size_t>(device_limit) : kGpuGroupBytes;
    std::vector<size_t> planes;
    size_t bytes = 0;  // as own_planes() lays them out, each from a 256-byte boundary
    for (const TileComponent& k : p.comps) {
      planes.push_back(static_cast<size_t>(k.rect.width()) * static_cast<size_t>(k.rect.height()) * 4);
      bytes += (planes.back() + 255) / 256 * 256;
    }
    if (!group_.empty() && (group_bytes_ + bytes > limit || plane_bytes_.size() + planes.size() > GpuBlockBatch::kMaxPlanes))
      flush();
    const size_t first = plane_bytes_.size();
    // The batch's host copy of the blocks (records, segment tables, bytes; vectors that may
    // double), held until the launch.
    uint64_t staged = 0;
    for (const BlockData& d : p.packets.blocks) staged += d.size() + d.segments.size() * (sizeof(uint32_t) + sizeof(int));
    staged = 2 * (staged + p.packets.layout.blocks.size() * sizeof(GpuBlockRecord));
    group_memory_.grow(staged, [&] { return "tile " + std::to_string(p.t) + "'s code-blocks gathered for the GPU"; });
    each_block(p.t, cs_.tiles[p.t], p.inputs, p.packets, p.comps, [&](const Block& b) {
      coder_->check(b.code);
      gpu_blocks_->add(b.code, b.roi, first + b.component, b.at, b.stride, b.step);  // step 0: the 5/3
    });
    plane_bytes_.insert(plane_bytes_.end(), planes.begin(), planes.end());
    plane_tiles_.insert(plane_tiles_.end(), planes.size(), static_cast<int64_t>(p.t));
    group_.push_back(GroupTile{std::move(p.stage), p.mct, first});
    group_bytes_ += bytes;
  }

  // The gathered tiles to the back stage. The first one's writer launches the decoding of
  // every gathered block (on the stage's stream, ahead of its inverse DWT); each tile's writer
  // then copies its planes into the stage's. A tile alone is decoded into the stage's planes.
  void flush() {
    if (group_.empty()) return;
    const bool alone = group_.size() == 1;
    std::vector<Plane> own;
    for (size_t i = 0; i < group_.size(); ++i) {
      const GroupTile& g = group_[i];
      stage_.begin_on_device(g.stage, g.mct);
      stage_.end_on_device([&](const std::vector<Plane>& planes, void* stream) {
        if (alone) {
          gpu_blocks_->decode(planes, plane_bytes_, stream, plane_tiles_);
          return;
        }
        if (i == 0) {
          own = gpu_blocks_->own_planes(plane_bytes_, stream);
          gpu_blocks_->decode(own, plane_bytes_, stream, plane_tiles_);
        }
        for (size_t c = 0; c < planes.size(); ++c)
          gpu_blocks_->copy(own[g.first_plane + c], planes[c], plane_bytes_[g.first_plane + c], stream);
      });
    }
    group_.clear();
    plane_bytes_.clear();
    plane_tiles_.clear();
    group_bytes_ = 0;
    gpu_blocks_->clear();
    group_memory_.reset();
  }

  // A block of the decoded resolutions as Tier-1 takes it, and where its coefficients go:
  // component's plane [at + y * stride + x]; `step`: the 9/7's (band_step()), 0 for the 5/3.
  struct Block {
    BlockCode code;
    int roi = 0;
    size_t component = 0;
    ptrdiff_t at = 0, stride = 0;
    float step = 0.0f;
  };

  // fn(Block) for each block of the decoded resolutions (in parallel on `threads` > 1), a
  // block without coding passes as one of no segments and no bit planes (zeros).
  template <class Fn>
  void each_block(size_t t, const TileCoding& tc, const std::vector<TileComponentInput>& inputs, const TilePackets& packets,
                  const std::vector<TileComponent>& comps, Fn&& fn, int threads = 1) {
    Reservation memory;
    const std::vector<size_t> todo = blocks_to_decode(t, packets, comps, memory);
    parallel_for(static_cast<ptrdiff_t>(todo.size()), threads,
                 [&](ptrdiff_t j) { fn(block_of(t, tc, inputs, packets, comps, todo[static_cast<size_t>(j)])); });
  }

  // The indices of the tile's blocks of the decoded resolutions, their list's memory reserved
  // in `memory` first.
  std::vector<size_t> blocks_to_decode(size_t t, const TilePackets& packets, const std::vector<TileComponent>& comps,
                                       Reservation& memory) {
    auto decoded = [&](const LaidBlock& lb) { return band_resolution(lb.band) <= comps[lb.component].levels; };
    const auto count = static_cast<size_t>(std::count_if(packets.layout.blocks.begin(), packets.layout.blocks.end(), decoded));
    memory = Reservation(&budget_, heap_bytes(count * sizeof(size_t)),
                         [&] { return "tile " + std::to_string(t) + "'s list of " + std::to_string(count) + " code-blocks to decode"; });
    std::vector<size_t> todo;
    todo.reserve(count);
    for (size_t i = 0; i < packets.layout.blocks.size(); ++i)
      if (decoded(packets.layout.blocks[i])) todo.push_back(i);
    return todo;
  }

  // Block i of the tile's layout as Tier-1 takes it, placed in the whole-plane layout of comps.
  Block block_of(size_t t, const TileCoding& tc, const std::vector<TileComponentInput>& inputs, const TilePackets& packets,
                 const std::vector<TileComponent>& comps, size_t i) const {
    static const BlockData kNoData;
    const LaidBlock& lb = packets.layout.blocks[i];
    const BlockData* data = packets.data_of(i);
    const BlockData& bd = data ? *data : kNoData;
    const size_t c = lb.component;
    const TileComponentInput::Band& band = inputs[c].bands[lb.band];
    Block b;
    b.component = c;
    b.stride = static_cast<ptrdiff_t>(comps[c].rect.width());
    b.at = (band.row + (lb.y0 - band.rect.y0)) * b.stride + band.col + (lb.x0 - band.rect.x0);
    BlockCode& code = b.code;
    code.width = static_cast<int>(lb.x1 - lb.x0);
    code.height = static_cast<int>(lb.y1 - lb.y0);
    code.band = band.type;
    code.modes = bd.modes(tc.components[c].modes);  // HTMIXED: HT or Part 1 block by block
    if (bd.passes > 0) {
      const ComponentQuant& q = tc.quant[c];
      const BandQuant bq = band_quant(q, lb.band);
      // With ROI's max-shift (Annex H) the band has `roi` more bit planes, which the packet
      // headers' missing bit planes count in.
      b.roi = c < tc.roi_shift.size() ? tc.roi_shift[c] : 0;
      const int planes = band_bitplanes(q, bq) + b.roi;
      if (static_cast<int64_t>(bd.missing_bitplanes) > planes)
        throw Error(ErrorCode::CorruptInput, "tile " + std::to_string(t) + ", component " + std::to_string(c) +
                                                 ": a code-block misses " + std::to_string(bd.missing_bitplanes) +
                                                 " of its band's " + std::to_string(planes) + " bit planes");
      code.bytes = bd.data();
      code.size = bd.size();
      code.segment_bytes = bd.segments.data();
      code.segment_passes = bd.segment_passes.data();
      code.segments = bd.segments.size();
      code.bitplanes = planes - static_cast<int>(bd.missing_bitplanes);
      if (code.bitplanes > kMaxDecodedBitplanes)  // said here, where the tile and the cause are known
        throw Error(ErrorCode::UnsupportedInput,
                    "tile " + std::to_string(t) + ", component " + std::to_string(c) + ": a code-block with " +
                        std::to_string(code.bitplanes) + " bit planes (its band's " + std::to_string(band_bitplanes(q, bq)) +
                        (b.roi ? " and the RGN shift of " + std::to_string(b.roi) : std::string()) + "); at most " +
                        std::to_string(kMaxDecodedBitplanes) + " are decoded");
      // OpenJPEG's convention: the step without the band's gain, which its inverse 9/7's
      // scaling of the high-pass samples makes up for (kInverse97OpenJpeg).
      if (!comps[c].reversible) b.step = band_step(cs_.info.components[c].precision, 0, bq);
    }
    return b;
  }

  // Tier-1 and dequantisation of every block of the decoded resolutions, in parallel (each
  // block writes its own rectangle of its tile-component), in groups (decode_placed).
  void decode_blocks(size_t t, const TileCoding& tc, const std::vector<TileComponentInput>& inputs, const TilePackets& packets,
                     std::vector<TileComponent>& comps) {
    BlockCounts counts;
    Reservation memory;
    const std::vector<size_t> todo = blocks_to_decode(t, packets, comps, memory);
    decode_in_groups(todo.data(), todo.size(), settings_.backend.threads, counts, [&](size_t i, PlacedBlocks& placed) {
      const Block b = block_of(t, tc, inputs, packets, comps, i);
      const TileComponent& k = comps[b.component];
      placed.add(b, k.reversible, k.reversible ? static_cast<void*>(k.ints + b.at) : static_cast<void*>(k.floats + b.at),
                 b.stride);
    });
    counts.warn(*this, t);
  }

  // The blocks that failed their SEGMARK check and the HT blocks decoded as zeros, of a tile.
  struct BlockCounts {
    std::atomic<int> segmark_errors{0}, corrupt_blocks{0};
    void warn(TileDecoder& d, size_t t) const {
      if (segmark_errors > 0) d.segmark_warning(t, segmark_errors.load());
      if (corrupt_blocks > 0) d.corrupt_warning(t, corrupt_blocks.load());
    }
  };

  // Block b decoded and dequantised into `at` (its top-left: int32 for the 5/3, float for the
  // 9/7), rows `stride` values apart.
  void decode_block(const Block& b, bool reversible, void* at, ptrdiff_t stride, BlockCounts& counts) const {
    const BlockCode& code = b.code;
    if (code.segments == 0) {  // no data: zeros
      for (int y = 0; y < code.height; ++y) {
        if (reversible) std::fill_n(static_cast<int32_t*>(at) + y * stride, code.width, 0);
        else std::fill_n(static_cast<float*>(at) + y * stride, code.width, 0.0f);
      }
      return;
    }
    BlockDecodeReport report;
    if (b.roi == 0) {  // decoded and dequantised in one (an HT block's straight into the band)
      const Dequantisation q = reversible ? Dequantisation{} : Dequantisation::of_step(b.step);
      report = coder_for(code).decode_dequantised(code, q, at, stride);
    } else {  // the ROI shift undone between the two
      thread_local std::vector<int32_t> values;
      values.resize(static_cast<size_t>(code.width) * static_cast<size_t>(code.height));
      report = coder_for(code).decode(code, values.data(), code.width);
      undo_roi_shift(values.data(), values.size(), b.roi);
      if (reversible)
        dequantise_reversible(values.data(), code.width, code.width, code.height, static_cast<int32_t*>(at), stride);
      else
        dequantise_irreversible(values.data(), code.width, code.width, code.height, b.step, static_cast<float*>(at), stride);
    }
    if (report.segmark_error) ++counts.segmark_errors;
    if (report.corrupt) ++counts.corrupt_blocks;
  }

  // Blocks that one worker decodes in one call (decode_placed), each placed at its band's
  // `at`, rows `stride` values apart.
  struct PlacedBlocks {
    Block block[kMaxBlocksTogether];
    bool reversible[kMaxBlocksTogether] = {};
    void* at[kMaxBlocksTogether] = {};
    ptrdiff_t stride[kMaxBlocksTogether] = {};
    int count = 0;
    void add(const Block& b, bool r, void* where, ptrdiff_t s) {
      block[count] = b;
      reversible[count] = r;
      at[count] = where;
      stride[count] = s;
      ++count;
    }
  };

  // Where each group of `blocks` blocks starts (and, last, where they end), a group being what
  // a worker takes at once (decode_placed; the workers take the groups in turn as each is
  // free). Groups of as many as the HT coder decodes together (n: on a CPU with AVX-512 16, in
  // two chains of eight lanes) while each of the w workers would still have two such groups
  // of what is left, then of n / 2 on the same rule, then the blocks one by one, so that the
  // last ones are shared by all the workers (smaller groups would neither fill the coder's
  // lanes nor share as well). On one worker all n but the last; where n is 1, every block.
  std::vector<size_t> group_starts(size_t blocks, int threads) const {
    const auto workers = static_cast<size_t>(std::max(1, worker_count(threads)));
    const auto n = static_cast<size_t>(std::clamp(ht_coder_->blocks_decoded_together(), 1, kMaxBlocksTogether));
    std::vector<size_t> starts{0};
    for (size_t at = 0; at < blocks;) {
      const size_t left = blocks - at;
      at += workers == 1                      ? std::min(left, n)
            : left >= 2 * workers * n       ? n
            : left >= 2 * workers * (n / 2) ? std::max<size_t>(n / 2, 1)
                                            : 1;
      starts.push_back(at);
    }
    return starts;
  }

  // decode_block() of each placed block, the HT blocks without an ROI shift that have data in
  // one call to the HT coder (BlockCoder::decode_dequantised_blocks).
  void decode_placed(const PlacedBlocks& placed, BlockCounts& counts) const {
    if (placed.count == 1) {  // the many workers' last blocks: nothing to share
      decode_block(placed.block[0], placed.reversible[0], placed.at[0], placed.stride[0], counts);
      return;
    }
    DequantisedBlock together[kMaxBlocksTogether];
    size_t n = 0;
    for (int j = 0; j < placed.count; ++j) {
      const Block& b = placed.block[j];
      if (b.code.segments == 0 || b.roi != 0 || (b.code.modes & kModeHt) == 0) {
        decode_block(b, placed.reversible[j], placed.at[j], placed.stride[j], counts);
        continue;
      }
      DequantisedBlock& d = together[n++];
      d.code = &b.code;
      d.q = placed.reversible[j] ? Dequantisation{} : Dequantisation::of_step(b.step);
      d.out = placed.at[j];
      d.stride = placed.stride[j];
    }
    if (n == 0) return;
    ht_coder_->decode_dequantised_blocks(together, n);
    for (size_t j = 0; j < n; ++j) {
      if (together[j].report.segmark_error) ++counts.segmark_errors;
      if (together[j].report.corrupt) ++counts.corrupt_blocks;
    }
  }

  // decode_placed() of the `count` blocks indices[0 ..] (the layout's) in groups (group_starts)
  // on the workers; place(i, placed) adds block i where its coefficients go.
  template <class Place>
  void decode_in_groups(const size_t* indices, size_t count, int threads, BlockCounts& counts, Place place) const {
    const std::vector<size_t> groups = group_starts(count, threads);
    parallel_for(static_cast<ptrdiff_t>(groups.size()) - 1, threads,
                 [&](ptrdiff_t g) { decode_group(indices, groups, g, counts, place); });
  }

  // decode_placed() of group g of those (groups: group_starts()).
  template <class Place>
  void decode_group(const size_t* indices, const std::vector<size_t>& groups, ptrdiff_t g, BlockCounts& counts, Place& place) const {
    PlacedBlocks placed;
    for (size_t j = groups[static_cast<size_t>(g)]; j < groups[static_cast<size_t>(g) + 1]; ++j) place(indices[j], placed);
    decode_placed(placed, counts);
  }

  // The tile through a RowBackStage: the coarser levels' blocks, their inverse DWT, then the
  // finest level's blocks a row of code-blocks (stripe) ahead of the output rows made from
  // them, so that the finest level's coefficients never fill whole-tile planes.
  // A streamed image's rows go to settings_.rows as each stripe makes them.
  void run_by_rows(size_t t, DecodedImage& image) {
    Prepared p = tile_of(t, image);
    const TileCoding& tc = cs_.tiles[p.t];
    // Rows of code-blocks at least kMinStripeRows tall (several of low code-blocks, whose
    // multiples no code-block crosses either): a window's margins are 2 x 8 rows (the 9/7)
    // whatever its height, so 4-row code-blocks alone would transform each row 3 times.
    constexpr int kMinStripeRows = 32;
    const int stripe = std::max(1 << tc.components[0].block_h_log2, kMinStripeRows);
    const int threads = settings_.backend.threads;
    if (!RowBackStage::fits(p.stage, stripe)) throw Error(ErrorCode::Internal, "tile " + std::to_string(p.t) + " cannot go by rows");
    const auto what = [&] { return "tile " + std::to_string(p.t) + "'s coefficients, a row of code-blocks at a time"; };
    const Reservation memory(&budget_, RowBackStage::bytes(p.stage, stripe, threads, image.streamed), what);
    RowBackStage::RowsOut out;
    if (image.streamed)
      out = [&](int64_t y, int64_t count, const std::vector<const uint8_t*>& data) { settings_.rows(image, DecodedRows{y, count, data}); };
    // On three workers or more Tier-2 reads the packets on a thread of its own while this one
    // maps the buffers' pages on the workers, then decodes the coarser levels' blocks once their
    // packets are read (PacketProgress), while Tier-2 reads the finest level's: most of the tile
    // in a resolution-first progression. H200, 16 threads, 4096^2 streams: Tier-2 took 3 to 4
    // ms (grey) and 6 to 10 (RGB), the mapping beside it 2 to 3.5, and the coarse blocks had
    // waited for Tier-2's end; beside it, the decodes 2% to 9% faster (experiments.md). On two
    // workers (the development machine's two CPUs) the thread beside them made it 1% to 3%
    // slower.
    const bool aside = worker_count(threads) > 2;
    RowBackStage rows(p.stage, p.mct, stripe, threads, std::move(out), /*map_now=*/!aside);
    const int depth = rows.row_levels();
    std::vector<int> coarse_resolutions;  // each component's resolutions 0 .. levels - depth
    for (const TileComponent& k : p.comps) coarse_resolutions.push_back(k.levels - depth);
    PacketProgress progress(std::move(coarse_resolutions));
    std::thread tier2;
    std::exception_ptr tier2_failed;
    struct Join {  // joined however this ends (an error too): the thread uses `p`
      std::thread& t;
      ~Join() {
        if (t.joinable()) t.join();
      }
    } join{tier2};
    bool beside = false;  // the coarse blocks decoded while Tier-2 reads on
    if (aside) {
      const j2k_thread_pool* embedders = scoped_thread_pool();  // the caller's runs' pool, if an embedder's
      tier2 = std::thread([&, embedders] {
        std::optional<ScopedThreadPool> same_pool;  // runs from this thread go where the caller's do
        if (embedders != nullptr) same_pool.emplace(*embedders);
        try {
          read_tile_packets(p.packets, cs_, data_, p.t, settings_.allow_partial, settings_.layers, &budget_, progress);
        } catch (...) {
          tier2_failed = std::current_exception();
        }
      });
      rows.map_pages();
      beside = progress.wait();
    } else {
      read_packets(p, image);
    }
    auto join_tier2 = [&] {
      tier2.join();
      if (tier2_failed) std::rethrow_exception(tier2_failed);
      packets_read(p, image);
    };
    if (aside && !beside) join_tier2();
    const std::vector<LaidBlock>& blocks = p.packets.layout.blocks;
    const Reservation order_memory(&budget_, heap_bytes(blocks.size() * sizeof(size_t)), what);
    // The blocks' indices: the coarser levels' first, then those of each level made by rows by
    // stripe (group g's from starts[g] to starts[g + 1]; level l's stripe k is group
    // group_of[l] + k - first_stripe(l)).
    std::vector<size_t> group_of(static_cast<size_t>(depth) + 1, 0);
    for (int l = 0; l < depth; ++l) {
      const auto stripes = static_cast<size_t>(rows.last_stripe(l) - rows.first_stripe(l) + 1);
      group_of[static_cast<size_t>(l) + 1] = group_of[static_cast<size_t>(l)] + stripes;
    }
    const size_t groups = group_of.back();
    std::vector<size_t> group(blocks.size(), groups);  // groups: the coarse planes'
    std::vector<size_t> order;
    order.reserve(blocks.size());
    for (size_t i = 0; i < blocks.size(); ++i) {
      const LaidBlock& lb = blocks[i];
      const int l = p.comps[lb.component].levels - band_resolution(lb.band);  // its DWT level less one
      if (l >= depth) {
        order.push_back(i);
        continue;
      }
      const int64_t k = lb.y0 / stripe;
      if (k < rows.first_stripe(l) || k > rows.last_stripe(l) || (lb.y1 - 1) / stripe != k)
        throw Error(ErrorCode::Internal, "tile " + std::to_string(p.t) + ": a code-block across a row of code-blocks");
      group[i] = group_of[static_cast<size_t>(l)] + static_cast<size_t>(k - rows.first_stripe(l));
    }
    const size_t coarse = order.size();
    std::vector<size_t> starts(groups + 1, coarse);
    for (size_t i = 0; i < blocks.size(); ++i)
      if (group[i] < groups) ++starts[group[i] + 1];
    for (size_t g = 1; g <= groups; ++g) starts[g] += starts[g - 1] - coarse;
    order.resize(starts.back());
    std::vector<size_t> at(starts.begin(), starts.end() - 1);
    for (size_t i = 0; i < blocks.size(); ++i)
      if (group[i] < groups) order[at[group[i]]++] = i;

    BlockCounts counts;
    decode_in_groups(order.data(), coarse, threads, counts, [&](size_t i, PlacedBlocks& placed) {
      const Block b = block_of(p.t, tc, p.inputs, p.packets, p.comps, i);
      const LaidBlock& lb = blocks[i];
      const TileComponentInput::Band& band = p.inputs[b.component].bands[lb.band];
      const ptrdiff_t stride = rows.coarse_stride(b.component);
      const ptrdiff_t offset = (band.row + (lb.y0 - band.rect.y0)) * stride + band.col + (lb.x0 - band.rect.x0);
      placed.add(b, p.comps[b.component].reversible, static_cast<char*>(rows.coarse(b.component)) + offset * 4, stride);
    });
    rows.finish_coarse();
    if (beside) join_tier2();
    // The stripes' blocks: those of the decode steps before the first emit step in one run,
    // then those of the steps beside each emit step in its run (RowBackStage::Step::beside),
    // a step that may not go beside its emit step in a run of its own before the next.
    auto place_in_band = [&](size_t i, PlacedBlocks& placed) {
      const Block b = block_of(p.t, tc, p.inputs, p.packets, p.comps, i);
      const LaidBlock& lb = blocks[i];
      const int l = p.comps[b.component].levels - band_resolution(lb.band);
      const int kind = (lb.band - 1) % 3;  // HL, LH, HH
      const TileComponentInput::Band& band = p.inputs[b.component].bands[lb.band];
      char* row = static_cast<char*>(rows.band_row(l, b.component, kind, lb.y0));
      placed.add(b, p.comps[b.component].reversible, row + (lb.x0 - band.rect.x0) * 4, rows.band_stride(l, b.component, kind));
    };
    const std::vector<RowBackStage::Step>& steps = rows.steps();
    std::vector<size_t> list;  // the blocks of the steps taken together
    auto take = [&](const RowBackStage::Step& step) {
      const size_t g = group_of[static_cast<size_t>(step.level)] + static_cast<size_t>(step.stripe - rows.first_stripe(step.level));
      list.insert(list.end(), order.begin() + static_cast<ptrdiff_t>(starts[g]), order.begin() + static_cast<ptrdiff_t>(starts[g + 1]));
    };
    for (size_t s = 0; s < steps.size(); ++s) {
      if (!steps[s].emit) {
        take(steps[s]);
        continue;
      }
      if (!list.empty()) decode_in_groups(list.data(), list.size(), threads, counts, place_in_band);
      list.clear();
      const RowBackStage::Step& emit = steps[s];
      for (; s + 1 < steps.size() && steps[s + 1].beside; ++s) take(steps[s + 1]);
      const std::vector<size_t> groups_beside = group_starts(list.size(), threads);
      rows.emit(emit.level, emit.stripe, static_cast<ptrdiff_t>(groups_beside.size()) - 1,
                [&](ptrdiff_t g, int) { decode_group(list.data(), groups_beside, g, counts, place_in_band); });
      list.clear();
    }
    counts.warn(*this, p.t);
  }

  // The decoder's GPU batch, made by the first tile on the GPU.
  GpuBlockBatch& gpu_batch() {
    if (!gpu_blocks_) gpu_blocks_ = make_gpu_block_batch(settings_.backend);
    return *gpu_blocks_;
  }

  const BlockCoder& coder_for(const BlockCode& code) const { return (code.modes & kModeHt) ? *ht_coder_ : *coder_; }

  void segmark_warning(size_t t, int blocks) {
    warnings_.push_back("tile " + std::to_string(t) + ": " + std::to_string(blocks) +
                        " code-blocks failed their SEGMARK check (decoded anyway)");
  }
  void corrupt_warning(size_t t, int blocks) {
    warnings_.push_back("tile " + std::to_string(t) + ": " + std::to_string(blocks) +
                        " HT code-blocks with inconsistent data (decoded as zeros)");
  }

  // The inverse RCT or ICT (G.2, G.3) needs components 0..2 of one size and wavelet.
  static void check_mct(size_t t, const std::vector<BackStage::Component>& comps) {
    for (int c = 1; c < 3; ++c)
      if (comps[c].rect.width() != comps[0].rect.width() || comps[c].rect.height() != comps[0].rect.height() ||
          comps[c].reversible != comps[0].reversible)
        throw Error(ErrorCode::CorruptInput, "tile " + std::to_string(t) +
                                                 " has the component transform on, but its components 0 to 2 differ in size or wavelet");
  }

  // Where the part of tile-component k inside the output goes (all of it, without a region or
  // tile), and the range its samples are clamped to: the DC level shift and the clamp of
  // OpenJPEG (the 9/7's floats rounded to nearest, even on ties), in the back stage.
  static void goes_to(BackStage::Component& k, const ComponentInfo& info, DecodedComponent& out) {
    k.offset = info.is_signed ? 0 : int32_t{1} << (info.precision - 1);
    k.lo = info.is_signed ? -(int32_t{1} << (info.precision - 1)) : 0;
    k.hi = info.is_signed ? (int32_t{1} << (info.precision - 1)) - 1 : static_cast<int32_t>((int64_t{1} << info.precision) - 1);
    const int64_t x0 = std::max(k.rect.x0, out.x0), x1 = std::min(k.rect.x1, out.x0 + out.width);
    const int64_t y0 = std::max(k.rect.y0, out.y0), y1 = std::min(k.rect.y1, out.y0 + out.height);
    const auto size = static_cast<ptrdiff_t>(j2k_sample_size(out.type));
    k.home.base = out.bytes.data();
    k.home.type = out.type;
    k.home.pixel_stride = size;
    k.home.row_stride = size * out.width;
    k.home.memory = J2K_MEMORY_HOST;
    if (x1 <= x0 || y1 <= y0) return;  // an empty window: nothing of it goes out
    k.window = Rect{x0, y0, x1, y1};
    k.home.offset = static_cast<size_t>((y0 - out.y0) * k.home.row_stride + (x0 - out.x0) * size);
    k.home.width = x1 - x0;
    k.home.height = y1 - y0;
  }

 public:
  std::vector<std::string> warnings_;

 private:
  const Codestream& cs_;
  const uint8_t* data_;
  const DecodeSettings& settings_;
  BackStage& stage_;
  MemoryBudget& budget_;
  const bool by_rows_;
  Reservation group_memory_{&budget_};  // the host copy of the blocks gathered for the GPU
  // The blocks of the tiles gathered for the GPU (group_), and the planes they go to.
  struct GroupTile {
    std::vector<BackStage::Component> stage;
    bool mct = false;
    size_t first_plane = 0;  // its component 0's plane
  };
  // The block coders: EBCOT, and Part 15's HT for the components whose COD or COC style has
  // bit 6 (kModeHt), chosen block by block.
  const std::unique_ptr<BlockCoder> coder_ = make_block_coder(BlockCoding::Ebcot);
  const std::unique_ptr<BlockCoder> ht_coder_ = make_block_coder(BlockCoding::HighThroughput);
  std::unique_ptr<GpuBlockBatch> gpu_blocks_;  // made by the first tile on the GPU
  std::vector<GroupTile> group_;
  std::vector<size_t> plane_bytes_;
  std::vector<int64_t> plane_tiles_;
  size_t group_bytes_ = 0;
};

// The component's samples, allocated and set to `mid` on `threads` threads (a band of rows
// each), so that the pages' first touch is spread too.
void fill_mid(DecodedComponent& out, uint32_t mid, int threads) {
  const size_t size = j2k_sample_size(out.type), row = static_cast<size_t>(out.width) * size;
  out.bytes.resize(row * static_cast<size_t>(out.height));
  if (out.bytes.empty()) return;  // an empty component (0 columns): no data() to write to
  constexpr int64_t kRows = 64;
  parallel_for((out.height + kRows - 1) / kRows, threads, [&](ptrdiff_t band) {
    const int64_t y0 = band * kRows, rows = std::min(kRows, out.height - y0);
    unsigned char* p = out.bytes.data() + static_cast<size_t>(y0) * row;
    const auto n = static_cast<size_t>(rows) * static_cast<size_t>(out.width);
    if (size == 1) std::memset(p, static_cast<int>(mid), n);
    else if (size == 2) std::fill_n(reinterpret_cast<uint16_t*>(p), n, static_cast<uint16_t>(mid));
    else std::fill_n(reinterpret_cast<uint32_t*>(p), n, mid);
  });
}

// What the codestream's headers hold once read (the reader bounds them by the stream's size):
// per tile its coding style, per tile-component its style and steps, the tile-parts' records,
// the packed headers. Counted so that what follows is held to what is left.
uint64_t codestream_bytes(const Codestream& cs) {
  uint64_t bytes = sizeof(Codestream) + cs.parts.size() * (sizeof(TilePart) + sizeof(size_t)) + cs.ppm.size();
  for (const TileCoding& t : cs.tiles) {
    bytes += sizeof(TileCoding) + 4 * 32 + sizeof(std::vector<size_t>) + sizeof(std::vector<uint8_t>) + 64;
    for (const ComponentCoding& k : t.components) bytes += sizeof(ComponentCoding) + heap_bytes(k.precincts.size() * sizeof(k.precincts[0]));
    for (const ComponentQuant& q : t.quant) bytes += sizeof(ComponentQuant) + heap_bytes(q.steps.size() * sizeof(q.steps[0]));
    bytes += t.roi_shift.size() * sizeof(int) + t.poc.size() * sizeof(PocEntry);
  }
  for (const auto& p : cs.ppt) bytes += p.size();
  return bytes;
}

// Whether the image's tile goes through TileDecoder::run_by_rows(), its finest level a band of
// rows at a time on the CPU (pipeline/row_back_stage.hpp): one tile, decoded whole at full
// resolution with every layer (no -t, -d, -r, -l), from a whole stream, every component HT
// coded, not subsampled, without an RGN shift, with one level or more and one code-block
// height. Everything else goes through the back stage's whole tile-component planes, as
// before.
bool decodes_by_rows(const Codestream& cs, const DecodeSettings& settings) {
  if (!settings.by_rows || settings.backend.backend != Backend::Cpu || settings.reduce != 0 || settings.layers != 0 || settings.tile >= 0 ||
      !(settings.region == Rect{}) || settings.allow_partial || cs.truncated || cs.tiles.size() != 1)
    return false;
  const TileCoding& tc = cs.tiles[0];
  if (tc.components.size() != cs.info.components.size() || tc.components.empty()) return false;
  for (size_t c = 0; c < tc.components.size(); ++c) {
    const ComponentCoding& k = tc.components[c];
    if (cs.info.components[c].dx != 1 || cs.info.components[c].dy != 1 || (k.modes & kModeHt) == 0 || k.levels < 1 ||
        k.block_h_log2 != tc.components[0].block_h_log2 || (c < tc.roi_shift.size() && tc.roi_shift[c] != 0))
      return false;
  }
  return true;
}

// Whether decode()'s steps after the tiles leave a JP2 file's samples as decoded: no palette,
// component mapping or channel definitions, no ICC profile, and sRGB, grey or no colour space
// named (EnumCS 16, 17; none of the conversions apply).
bool jp2_as_decoded(const Jp2File& jp2) {
  return jp2.palette.columns.empty() && jp2.mapping.empty() && jp2.channels.empty() && jp2.icc.empty() &&
         (jp2.enum_cs == 0 || jp2.enum_cs == 16 || jp2.enum_cs == 17);
}

// The output's samples and the largest tile's coefficients, reserved in `budget` before they
// are allocated; `area`: the output's on the reference grid. by_rows: the tile's coefficients
// are reserved as run_by_rows() allocates them, not here; streamed: so are the output's rows
// (DecodeSettings::rows), which never fill whole planes.
void reserve_image(const Codestream& cs, const Rect& area, const DecodeSettings& settings, bool by_rows, bool streamed,
                   Reservation& memory) {
  uint64_t samples = 0, bytes = 0;
  for (const ComponentInfo& c : cs.info.components) {
    const int r = settings.reduce;
    const uint64_t w = static_cast<uint64_t>(ceil_div_pow2(ceil_div(area.x1, c.dx), r) - ceil_div_pow2(ceil_div(area.x0, c.dx), r));
    const uint64_t h = static_cast<uint64_t>(ceil_div_pow2(ceil_div(area.y1, c.dy), r) - ceil_div_pow2(ceil_div(area.y0, c.dy), r));
    // Each of w, h is below 2^32, but their product and the sum over 16,384 components are
    // not below 2^64: saturated, so that a sum that would wrap to a small figure is refused.
    const uint64_t n = saturating_mul(w, h);
    samples = saturating_add(samples, n);
    const uint64_t samples_bytes = streamed ? 0 : saturating_mul(n, j2k_sample_size(decoded_type(c.precision, c.is_signed)));
    bytes = saturating_add(bytes, saturating_add(samples_bytes, sizeof(DecodedComponent)));
  }
  memory.grow(bytes, [&] {
    return "the output's " + std::to_string(samples) + " samples in " + std::to_string(cs.info.components.size()) + " components";
  });
  // A tile-component spans at most its nominal size's share, plus one for the grid's offset.
  uint64_t tile = 0;
  const int64_t tw = std::min<int64_t>(cs.info.tile_w, cs.info.x1), th = std::min<int64_t>(cs.info.tile_h, cs.info.y1);
  for (const ComponentInfo& c : cs.info.components)
    tile = saturating_add(tile, saturating_mul(static_cast<uint64_t>(ceil_div_pow2(ceil_div(tw, c.dx) + 1, settings.reduce)),
                                               static_cast<uint64_t>(ceil_div_pow2(ceil_div(th, c.dy) + 1, settings.reduce))));
  // A GPU back stage holds two tiles on the host (one decoded, one in flight), each with its
  // coefficients and its samples on their way home.
  const bool gpu = settings.backend.backend == Backend::Cuda || settings.backend.backend == Backend::OpenCL;
  if (by_rows) return;
  memory.grow(saturating_mul(tile, gpu ? 2 * (4 + 2) : 4), [&] { return "a tile's " + std::to_string(tile) + " coefficients"; });
}

}  // namespace

DecodedImage decode(const uint8_t* data, size_t size, const DecodeSettings& settings, BackStage* reused) {
  if (!reused && settings.backend.backend == Backend::Auto) {
    DecodeSettings chosen = settings;
    chosen.backend.backend = resolve_backend(Backend::Auto, Job::Decompress, size, settings.backend.threads);
    return decode(data, size, chosen, nullptr);
  }
  if (settings.reduce < 0) throw Error(ErrorCode::InvalidArgument, "reduce must be 0 or more, not " + std::to_string(settings.reduce));
  if (settings.layers < 0) throw Error(ErrorCode::InvalidArgument, "layers must be 0 (all) or more, not " + std::to_string(settings.layers));
  DecodedImage image;
  const uint8_t* stream = data;
  size_t stream_size = size;
  Jp2File jp2;
  if (is_jp2(data, size)) {
    jp2 = read_jp2(data, size, settings.allow_partial);
    stream = data + jp2.codestream;
    stream_size = jp2.codestream_length;
    image.format = FileFormat::Jp2;
    image.enum_cs = jp2.enum_cs;
    // The decoded image's grid: at reduce r, 2^r grid points make one.
    image.resolution = jp2.capture.given() ? jp2.capture : jp2.display;
    image.resolution.x = std::ldexp(image.resolution.x, -std::min(settings.reduce, 64));
    image.resolution.y = std::ldexp(image.resolution.y, -std::min(settings.reduce, 64));
    image.display.x = std::ldexp(jp2.display.x, -std::min(settings.reduce, 64));
    image.display.y = std::ldexp(jp2.display.y, -std::min(settings.reduce, 64));
  }
  // Every large allocation below is reserved here first (common/memory_budget.hpp). The
  // stream's bytes count too: they are held while it is decoded.
  MemoryBudget budget(settings.max_bytes);
  Reservation memory(&budget, size, [&] { return "the stream's " + std::to_string(size) + " bytes"; });
  if (image.format == FileFormat::Jp2) {
    // The copies of the profile and the boxes that go out with the image.
    uint64_t metadata = jp2.icc.size();
    for (const Jp2BoxRef& b : jp2.boxes) metadata += b.length;
    memory.grow(metadata, [&] { return "the JP2 file's ICC profile and " + std::to_string(jp2.boxes.size()) + " other boxes"; });
    image.icc = jp2.icc;
    for (const Jp2BoxRef& b : jp2.boxes)
      image.boxes.push_back({b.type, std::vector<uint8_t>(data + b.contents, data + b.contents + b.length)});
  }
  ReadOptions options;
  options.allow_partial = settings.allow_partial;
  const Codestream cs = read_codestream(stream, stream_size, options);
  memory.grow(codestream_bytes(cs), [&] {
    return "the codestream's headers (" + std::to_string(cs.tiles.size()) + " tiles, " + std::to_string(cs.info.components.size()) +
           " components, " + std::to_string(cs.parts.size()) + " tile-parts)";
  });
  image.truncated = cs.truncated || jp2.cut;

  for (size_t c = 0; c < cs.info.components.size(); ++c)
    if (cs.info.components[c].precision > kMaxDecodedPrecision)
      throw Error(ErrorCode::UnsupportedInput, "component " + std::to_string(c) + " has " +
                                                   std::to_string(cs.info.components[c].precision) +
                                                   "-bit samples (this decoder reads up to " +
                                                   std::to_string(kMaxDecodedPrecision) + ")");
  // The output's area on the reference grid: the image, or the part of it that -t or -d ask.
  const Canvas canvas = canvas_of(cs);
  Rect area{cs.info.x0, cs.info.y0, cs.info.x1, cs.info.y1};
  auto intersect = [](const Rect& a, const Rect& b) {
    return Rect{std::max(a.x0, b.x0), std::max(a.y0, b.y0), std::min(a.x1, b.x1), std::min(a.y1, b.y1)};
  };
  if (settings.tile >= 0) {
    if (settings.tile >= canvas.tile_count())
      throw Error(ErrorCode::InvalidArgument, "tile " + std::to_string(settings.tile) + ": the image has " +
                                                  std::to_string(canvas.tile_count()) + " tiles (0 to " +
                                                  std::to_string(canvas.tile_count() - 1) + ")");
    area = intersect(area, canvas.tile(settings.tile));
  }
  if (!(settings.region == Rect{})) {
    const Rect& g = settings.region;
    area = intersect(area, g);
    if (g.x1 <= g.x0 || g.y1 <= g.y0 || area.empty())
      throw Error(ErrorCode::InvalidArgument, "the region " + std::to_string(g.x0) + "," + std::to_string(g.y0) + "," +
                                                  std::to_string(g.x1) + "," + std::to_string(g.y1) + " holds none of the image [" +
                                                  std::to_string(cs.info.x0) + "," + std::to_string(cs.info.x1) + ") x [" +
                                                  std::to_string(cs.info.y0) + "," + std::to_string(cs.info.y1) + ")");
  }
  // -c picks the image's channels: a JP2 file's (its palette and mapping), else the components.
  const size_t channels = image.format == FileFormat::Jp2 ? jp2_channel_count(jp2, cs.info.components.size()) : cs.info.components.size();
  for (int c : settings.components)
    if (c < 0 || static_cast<size_t>(c) >= channels)
      throw Error(ErrorCode::InvalidArgument, "component " + std::to_string(c) + ": the image has " + std::to_string(channels) +
                                                  " (0 to " + std::to_string(channels - 1) + ")");
  const bool by_rows = decodes_by_rows(cs, settings);
  // A tile the output needs but a cut stream (allow_partial) has no part of leaves its samples
  // at the middle of the range. One a whole stream has no part of (B.10.1 allows tiles without
  // tile-parts) leaves them 0, with a warning, as opj_decompress writes them. Every other
  // sample is written by its tile's back stage, so without such a tile the outputs need no
  // first value.
  std::vector<bool> has_data(cs.tiles.size(), false);
  for (const TilePart& p : cs.parts) has_data[static_cast<size_t>(p.tile)] = true;
  bool gaps = false;
  for (size_t t = 0; t < cs.tiles.size(); ++t)
    gaps = gaps || (!has_data[t] && !intersect(canvas.tile(static_cast<int64_t>(t)), area).empty());
  // Rows handed out as they are made: only where no step after the decode (a JP2 file's
  // channels and colours, the choice of components) changes the image, and every row comes
  // from the tile's back stage.
  image.streamed = settings.rows && by_rows && !gaps && (image.format == FileFormat::Codestream || jp2_as_decoded(jp2)) &&
                   settings.components.empty();
  reserve_image(cs, area, settings, by_rows, image.streamed, memory);
  const int r = settings.reduce;
  image.x0 = ceil_div_pow2(area.x0, r);
  image.y0 = ceil_div_pow2(area.y0, r);
  image.width = ceil_div_pow2(area.x1, r) - image.x0;
  image.height = ceil_div_pow2(area.y1, r) - image.y0;
  for (const ComponentInfo& c : cs.info.components) {
    DecodedComponent out;
    const int64_t x0 = ceil_div(area.x0, c.dx), y0 = ceil_div(area.y0, c.dy);
    const int64_t x1 = ceil_div(area.x1, c.dx), y1 = ceil_div(area.y1, c.dy);
    out.x0 = ceil_div_pow2(x0, r);
    out.y0 = ceil_div_pow2(y0, r);
    out.width = ceil_div_pow2(x1, r) - out.x0;
    out.height = ceil_div_pow2(y1, r) - out.y0;
    out.precision = c.precision;
    out.is_signed = c.is_signed;
    out.dx = c.dx;
    out.dy = c.dy;
    out.type = decoded_type(c.precision, c.is_signed);
    // Its bytes, checked: width and height are below 2^32 each, their product with the sample
    // size is not below 2^64 (without a memory limit nothing else bounds it, and a size that
    // wrapped would be allocated small and written in full). fill_mid's products are this one.
    uint64_t bytes = 0;
    if (!checked_mul<uint64_t>(static_cast<uint64_t>(out.width), static_cast<uint64_t>(out.height), &bytes) ||
        !checked_mul<uint64_t>(bytes, j2k_sample_size(out.type), &bytes) || bytes > SIZE_MAX)
      throw Error(ErrorCode::OutOfMemory, "component " + std::to_string(image.components.size()) + " has " +
                                              std::to_string(out.width) + " x " + std::to_string(out.height) +
                                              " samples, more bytes than memory can address");
    // With tiles no back stage writes: a cut stream's at the middle of the range (signed
    // samples at 0), a whole stream's at 0. The buffer does not start zeroed: both are written.
    // Its pages mapped first on the threads that write it (common/memory_pages.hpp).
    if (gaps) {
      fill_mid(out, cs.truncated && !c.is_signed ? 1u << (c.precision - 1) : 0, settings.backend.threads);
    } else if (!image.streamed) {
      out.bytes.resize(static_cast<size_t>(bytes));
      populate_pages(out.bytes.data(), out.bytes.size(), settings.backend.threads);
    }
    image.components.push_back(std::move(out));
  }

  std::unique_ptr<BackStage> own;
  if (!reused) own = std::make_unique<BackStage>(settings.backend);
  BackStage& stage = reused ? *reused : *own;
  TileDecoder tiles(cs, stream, settings, stage, budget, by_rows);
  try {
    for (size_t t = 0; t < cs.tiles.size(); ++t) {
      if (intersect(canvas.tile(static_cast<int64_t>(t)), area).empty()) continue;
      if (!has_data[t]) {
        if (cs.truncated) image.truncated = true;
        else tiles.warnings_.push_back("tile " + std::to_string(t) + " has no tile-part: its samples are 0 (as OpenJPEG leaves them)");
        continue;
      }
      tiles.run(t, image);
    }
    tiles.finish();
    stage.finish();
    tiles.gpu_warnings();
  } catch (...) {
    stage.cancel();  // no copy may still be on its way into `image` when it goes
    throw;
  }
  image.warnings = jp2.warnings;
  image.warnings.insert(image.warnings.end(), tiles.warnings_.begin(), tiles.warnings_.end());
  // The steps below make new arrays beside the decoded ones: each reserves what it makes
  // before, and gives it back once the arrays it replaces are gone.
  // The image's widest sample (bytes) and largest component (samples), as the steps find it.
  auto extent = [&image](uint64_t& widest, uint64_t& largest) {
    widest = largest = 0;
    for (const DecodedComponent& c : image.components) {
      widest = std::max<uint64_t>(widest, j2k_sample_size(c.type));
      largest = std::max(largest, saturating_mul(static_cast<uint64_t>(c.width), static_cast<uint64_t>(c.height)));
    }
  };
  uint64_t widest = 0, largest = 0;
  extent(widest, largest);
  if (image.format == FileFormat::Jp2) {
    // The channels cmap makes (none without one): a palette's at its column's depth, a
    // component's copied.
    uint64_t bytes = 0;
    for (const Jp2Mapping& m : jp2.mapping) {
      const bool column = m.palette && static_cast<size_t>(m.column) < jp2.palette.columns.size();
      const uint64_t sample = column ? j2k_sample_size(decoded_type(std::min(jp2.palette.columns[static_cast<size_t>(m.column)].precision, 31),
                                                                    jp2.palette.columns[static_cast<size_t>(m.column)].is_signed))
                                     : widest;
      bytes = saturating_add(bytes, saturating_mul(largest, sample));
    }
    const Reservation mapped(&budget, bytes, [&] {
      return "the JP2 file's " + std::to_string(jp2.mapping.size()) + " channels (its palette and component mapping)";
    });
    apply_jp2_channels(jp2, image);
  }
  if (!settings.components.empty()) {
    uint64_t bytes = 0;
    for (int c : settings.components) bytes = saturating_add(bytes, image.components[static_cast<size_t>(c)].bytes.size());
    const Reservation copies(&budget, bytes, [&] { return "the " + std::to_string(settings.components.size()) + " components asked for"; });
    std::vector<DecodedComponent> chosen;
    for (int c : settings.components) chosen.push_back(image.components[static_cast<size_t>(c)]);
    image.components = std::move(chosen);
  }
  if (settings.convert_colour) {
    // A conversion (sYCC, e-sYCC, CMYK, CIELab, an ICC profile) writes new planes of the
    // largest component's size (subsampled chroma comes back full size) at most as wide as the
    // widest sample: reserved where one will run.
    const int cs_code = image.format == FileFormat::Jp2 ? jp2.enum_cs : 0;
    const bool converts = cs_code == 12 || cs_code == 14 || cs_code == 18 || cs_code == 24 ||
                          (image.format == FileFormat::Jp2 && !jp2.icc.empty() && !settings.keep_icc) ||
                          (image.components.size() == 3 && image.components[1].dx != 1);  // taken as sYCC, as OpenJPEG does
    extent(widest, largest);  // after the channels and the choice of components
    const Reservation planes(&budget, converts ? saturating_mul(saturating_mul(largest, widest), image.components.size()) : 0,
                             [&] { return "the colour conversion's " + std::to_string(image.components.size()) + " planes"; });
    apply_opj_colour(image, cs_code, area.x0, area.y0, settings.keep_cmyk);
    // Then, as opj_decompress, the JP2 file's ICC profile or CIELab through Little CMS.
    if (image.format == FileFormat::Jp2 && !jp2.icc.empty()) {
      if (!settings.keep_icc) image.icc_applied = apply_icc_profile(image, jp2.icc);
    } else if (image.format == FileFormat::Jp2 && jp2.enum_cs == 14) apply_cielab(image, jp2.lab);
  }
  return image;
}

}  // namespace j2k::codec
