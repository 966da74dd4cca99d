// SPDX-License-Identifier: BSD-2-Clause
#include "codec/encoder.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "codec/codestream/assembler.hpp"
#include "codec/codestream/jp2_writer.hpp"
#include "codec/codestream/markers.hpp"
#include "codec/quant/quantiser.hpp"
#include "codec/rate/ht_planes.hpp"
#include "codec/rate/layers.hpp"
#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/block_encode_batch.hpp"
#include "codec/tier1/ht/block_encoder.hpp"
#include "codec/tier1/ht/plane_estimates.hpp"
#include "codec/tier2/packet_writer.hpp"
#include "common/error.hpp"
#include "common/parallel/worker_pool.hpp"
#include "tiling/canvas.hpp"
#include "transform/host_rows.hpp"

namespace j2k::codec {

// Each component's band steps (QCD/QCC) and the image squared error of a step^2 of
// distortion in each band (the squared synthesis norm, of the MCT too, times the step^2).
struct BandSteps {
  std::vector<std::vector<BandStep>> steps;
  std::vector<std::vector<double>> weights;
};

double clock_ms(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(t.time_since_epoch()).count();
}

namespace {

[[noreturn]] void bad(const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); }

bool is_signed(j2k_sample_type t) { return t == J2K_SAMPLE_I8 || t == J2K_SAMPLE_I16 || t == J2K_SAMPLE_I32; }

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// A stage's first beginning (by rows, stages come again row after row).
void began(double& at, Clock::time_point t) {
  if (at == 0) at = clock_ms(t);
}

// A band's decomposition level (1 = finest; LL at the coarsest) from its index.
int band_level(int levels, size_t k) { return k == 0 ? levels : levels - static_cast<int>((k - 1) / 3); }

BandSteps band_steps(const StreamInfo& info, const CodingParams& params) {
  const size_t ncomp = info.components.size();
  BandSteps b;
  b.steps.resize(ncomp);
  b.weights.resize(ncomp);
  for (size_t c = 0; c < ncomp; ++c) {
    const int levels = component_style(params, c).levels;
    for (int k = 0; k < 3 * levels + 1; ++k) {
      const j2k_band_type type = k == 0 ? J2K_BAND_LL : static_cast<j2k_band_type>(1 + (k - 1) % 3);
      const int level = band_level(levels, static_cast<size_t>(k));
      const int range = info.components[c].precision + band_gain_log2(type);
      const double norm = synthesis_norm(params.reversible, level, type);
      const double base = params.relative_step > 0
                              ? params.base_step * params.relative_step * std::ldexp(1.0, info.components[c].precision)
                              : params.base_step;
      const BandStep s = params.reversible ? reversible_step(range) : expounded_step(base / norm, range);
      const double mct = params.mct && c < 3 ? mct_norm(params.reversible, static_cast<int>(c)) : 1.0;
      b.steps[c].push_back(s);
      b.weights[c].push_back(norm * norm * s.delta * s.delta * mct * mct);
    }
  }
  return b;
}

// Where a code-block's first coefficient lies in its tile-component's plane (int32 or float,
// host or device memory: only the address is computed), rows `stride` values apart.
struct BlockOrigin {
  const char* base = nullptr;  // the plane's first coefficient
  ptrdiff_t stride = 0;
  ptrdiff_t offset = 0;        // the block's, in values from `base`
};
// Where Tier-1 reads each code-block: in the plan's planes (plane_origins), or in a row
// front stage's rows (Encoder::encode_by_stripes).
using OriginOf = std::function<BlockOrigin(const LaidBlock&)>;

BlockOrigin block_origin(const LaidBlock& lb, const std::vector<std::vector<TileComponentInput>>& tiles) {
  const TileComponentInput& tc = tiles[lb.tile][lb.component];
  const TileComponentInput::Band& band = tc.bands[lb.band];
  BlockOrigin o;
  o.stride = tc.coefficients.row_stride / 4;  // int32 or float
  o.base = static_cast<const char*>(tc.coefficients.base) + tc.coefficients.offset;
  o.offset = (band.row + lb.y0 - band.rect.y0) * o.stride + (band.col + lb.x0 - band.rect.x0);
  return o;
}

OriginOf plane_origins(const std::vector<std::vector<TileComponentInput>>& tiles) {
  return [&tiles](const LaidBlock& lb) { return block_origin(lb, tiles); };
}

// Asks for the first rows of a code-block that is coded next, so that they arrive while this
// one is coded. Its rows lie a plane row apart, each on a page of its own, where the hardware
// prefetcher does not follow; the quantiser fetches the rows after these itself, ahead of
// its reads (quantise_block).
void prefetch_leading_rows(const LaidBlock& lb, const OriginOf& origin_of) {
  constexpr int64_t kRows = 8;
  const BlockOrigin o = origin_of(lb);
  const char* first = o.base + o.offset * 4;
  const int64_t bytes = (lb.x1 - lb.x0) * 4;
  for (int64_t y = 0; y < std::min<int64_t>(kRows, lb.y1 - lb.y0); ++y)
    for (int64_t x = 0; x < bytes; x += 64) __builtin_prefetch(first + y * o.stride * 4 + x);
}

// Calls fn(k, view, worker) for k in [0, count) on the CPU's threads, `view` the code-block
// block_of(k) of the layout (the 9/7's quantised first into the worker's scratch).
void for_each_view(ptrdiff_t count, const std::function<size_t(ptrdiff_t)>& block_of, const TileLayout& layout,
                   const std::vector<std::vector<TileComponentInput>>& tiles, const OriginOf& origin_of, const CodingParams& params,
                   const BandSteps& bands, bool estimate, int threads,
                   const std::function<void(ptrdiff_t, const BlockView&, int)>& fn) {
  std::vector<std::vector<int32_t>> scratch(static_cast<size_t>(std::max(threads, 1)), std::vector<int32_t>(4096));
  run_on_workers(count, threads, [&](ptrdiff_t k, int worker) {
    const LaidBlock& lb = layout.blocks[block_of(k)];
    const TileComponentInput& tc = tiles[lb.tile][lb.component];
    const TileComponentInput::Band& band = tc.bands[lb.band];
    const auto [base, stride, offset] = origin_of(lb);
    if (k + 1 < count) prefetch_leading_rows(layout.blocks[block_of(k + 1)], origin_of);
    BlockView v;
    v.width = static_cast<int>(lb.x1 - lb.x0);
    v.height = static_cast<int>(lb.y1 - lb.y0);
    v.band = band.type;
    v.modes = params.modes;
    v.reversible = params.reversible;
    v.estimate_distortion = estimate;
    if (params.reversible) {
      v.data = reinterpret_cast<const int32_t*>(base) + offset;
      v.stride = stride;
    } else {
      int32_t* q = scratch[static_cast<size_t>(worker)].data();
      if (!quantise_block(reinterpret_cast<const float*>(base) + offset, stride, v.width, v.height,
                          bands.steps[lb.component][lb.band].delta, q))
        bad("a 9/7 coefficient is too large for its quantisation step; use a larger step");
      v.data = q;
      v.stride = v.width;
      v.fraction_bits = kFractionBits;
    }
    fn(k, v, worker);
  });
}

// Tier-1: code-blocks block_of(0 .. count) of the layout, read where origin_of says, through
// the coder into coded[block_of(k)], their output reserved in `memory` as it comes.
void code_blocks(const BlockCoder& coder, const TileLayout& layout, const std::vector<std::vector<TileComponentInput>>& tiles,
                 const OriginOf& origin_of, const CodingParams& params, const BandSteps& bands, bool estimate, int threads,
                 ptrdiff_t count, const std::function<size_t(ptrdiff_t)>& block_of, std::vector<CodedBlock>& coded,
                 Reservation& memory) {
  for_each_view(count, block_of, layout, tiles, origin_of, params, bands, estimate, threads, [&](ptrdiff_t k, const BlockView& v, int) {
                  CodedBlock& out = coded[block_of(k)];
                  out = coder.encode(v);
                  // Its passes and bytes (a block of 1 x 1 samples has up to 3 passes a bit
                  // plane: a layout of tiny blocks codes to many times the image's size).
                  memory.grow(heap_bytes(out.passes.capacity() * sizeof(CodedPass)) + heap_bytes(out.bytes.capacity()),
                              [&] { return "Tier-1's output for " + std::to_string(coded.size()) + " code-blocks"; });
                });
}

// Code-blocks [first, last) of the layout where the plan left them (code_blocks).
void code_blocks(const BlockCoder& coder, const TileLayout& layout, const std::vector<std::vector<TileComponentInput>>& tiles,
                 const CodingParams& params, const BandSteps& bands, bool estimate, int threads, size_t first, size_t last,
                 std::vector<CodedBlock>& coded, Reservation& memory) {
  code_blocks(coder, layout, tiles, plane_origins(tiles), params, bands, estimate, threads, static_cast<ptrdiff_t>(last - first),
              [first](ptrdiff_t k) { return first + static_cast<size_t>(k); }, coded, memory);
}

// The code-blocks [first, last) of the layout where the plan left them, as a batch reads them.
std::vector<BatchBlock> batch_blocks(const TileLayout& layout, const std::vector<std::vector<TileComponentInput>>& tiles,
                                     const CodingParams& params, const BandSteps& bands, bool estimate, size_t first, size_t last) {
  std::vector<BatchBlock> blocks(last - first);
  for (size_t i = 0; i < blocks.size(); ++i) {
    const LaidBlock& lb = layout.blocks[first + i];
    const BlockOrigin o = block_origin(lb, tiles);
    BatchBlock& b = blocks[i];
    b.coefficients = o.base + o.offset * 4;  // int32 or float
    const Plane& plane = tiles[lb.tile][lb.component].coefficients;
    b.base = plane.base;
    b.offset = plane.offset + static_cast<size_t>(o.offset) * 4;
    b.stride = o.stride;
    b.width = static_cast<int>(lb.x1 - lb.x0);
    b.height = static_cast<int>(lb.y1 - lb.y0);
    b.band = tiles[lb.tile][lb.component].bands[lb.band].type;
    b.modes = params.modes;
    b.estimate_distortion = estimate;
    if (!params.reversible) {
      b.delta = bands.steps[lb.component][lb.band].delta;
      b.fraction_bits = kFractionBits;
    }
  }
  return blocks;
}

// Tier-1 through a batch (a device's, block_encode_batch.hpp): code-blocks [first, last) of
// the layout where the plan left them, coded at once into coded[first, last); what comes back
// is reserved in `memory`, the batch's host copy in `host` (the largest it has held).
void code_blocks_in_batch(BlockEncodeBatch& batch, const TileLayout& layout, const std::vector<std::vector<TileComponentInput>>& tiles,
                          const CodingParams& params, const BandSteps& bands, bool estimate, size_t first, size_t last,
                          std::vector<CodedBlock>& coded, Reservation& memory, Reservation& host) {
  const std::vector<BatchBlock> blocks = batch_blocks(layout, tiles, params, bands, estimate, first, last);
  const uint64_t copy = batch.host_bytes(blocks);
  if (copy > host.bytes())
    host.grow(copy - host.bytes(), [&] { return std::string("Tier-1's output on ") + batch.where() + " (its host copy)"; });
  std::vector<CodedBlock> out = batch.encode(blocks, params.reversible);
  uint64_t bytes = 0;
  for (const CodedBlock& c : out) bytes += heap_bytes(c.passes.capacity() * sizeof(CodedPass)) + heap_bytes(c.bytes.capacity());
  memory.grow(bytes, [&] { return "Tier-1's output for " + std::to_string(coded.size()) + " code-blocks"; });
  std::move(out.begin(), out.end(), coded.begin() + static_cast<ptrdiff_t>(first));
}

// HT with a rate or PSNR target (rate/ht_planes.hpp): each block's plane estimates, energy
// and weight, before any coding; without `model`, the estimates are left empty, only as many
// as the block's planes. Only every `every`-th block where more than 1 (the others left at
// their defaults, no estimate).
std::vector<HtBlock> ht_estimates(const TileLayout& layout, const std::vector<std::vector<TileComponentInput>>& tiles,
                                  const CodingParams& params, const BandSteps& bands, int threads, bool model = true,
                                  size_t every = 1) {
  std::vector<HtBlock> blocks(layout.blocks.size());
  for_each_view(static_cast<ptrdiff_t>((blocks.size() + every - 1) / every), [every](ptrdiff_t k) { return static_cast<size_t>(k) * every; },
                layout, tiles, plane_origins(tiles), params, bands, true, threads, [&](ptrdiff_t k, const BlockView& v, int) {
                  const auto i = static_cast<ptrdiff_t>(static_cast<size_t>(k) * every);
                  HtBlock& b = blocks[static_cast<size_t>(i)];
                  if (model) b.estimates = ht::plane_estimates(v);
                  else b.estimates.resize(static_cast<size_t>(ht::magnitude_bitplanes(v)));
                  b.energy = ht::block_energy(v.data, v.stride, v.width, v.height, v.fraction_bits);
                  const LaidBlock& lb = layout.blocks[static_cast<size_t>(i)];
                  b.weight = bands.weights[lb.component][lb.band];
                });
  return blocks;
}

// The same from a batch's model of the blocks where they lie (its figures are the CPU's).
std::vector<HtBlock> ht_estimates_in_batch(BlockEncodeBatch& batch, const std::vector<BatchBlock>& views, const TileLayout& layout,
                                           const CodingParams& params, const BandSteps& bands, bool model = true, size_t every = 1) {
  std::vector<BatchBlock> sampled;
  for (size_t i = 0; i < views.size(); i += every) sampled.push_back(views[i]);
  std::vector<BlockEncodeBatch::HtModel> models = batch.model_ht_planes(sampled, params.reversible);
  std::vector<HtBlock> blocks(layout.blocks.size());
  for (size_t k = 0; k < models.size(); ++k) {
    HtBlock& b = blocks[k * every];
    if (model) b.estimates = std::move(models[k].estimates);
    else b.estimates.resize(models[k].estimates.size());
    b.energy = models[k].energy;
    const LaidBlock& lb = layout.blocks[k * every];
    b.weight = bands.weights[lb.component][lb.band];
  }
  return blocks;
}

// Mb = G + epsilon_b - 1 bit planes must hold every block's (E.1.1.1, E-2): with the
// default, more guard bits where the coefficients need them.
int guard_bits_for(const std::vector<int>& block_planes, const TileLayout& layout, const BandSteps& bands, int asked) {
  int needed = 0;
  for (size_t i = 0; i < block_planes.size(); ++i) {
    const LaidBlock& lb = layout.blocks[i];
    needed = std::max(needed, block_planes[i] - bands.steps[lb.component][lb.band].exponent + 1);
  }
  const int guard_bits = asked >= 0 ? asked : std::max(2, needed);
  if (needed > guard_bits)
    bad("the coefficients need " + std::to_string(needed) + " guard bits; " + std::to_string(guard_bits) + " were asked for");
  if (guard_bits > 7) bad("the coefficients need " + std::to_string(guard_bits) + " guard bits; a codestream holds at most 7");
  return guard_bits;
}

// RGN's max-shift makes a decoder take each code-block of the component `shift` bit planes
// higher (its coefficients coded as without it): no block may then pass the bit planes
// decoders take (OpenJPEG's and ours, kMaxDecodedBitplanes).
void check_roi_planes(const std::vector<CodedBlock>& coded, const TileLayout& layout, const std::vector<int>& roi_shift) {
  std::vector<int> most(roi_shift.size(), 0);
  for (size_t i = 0; i < coded.size(); ++i) {
    const size_t c = layout.blocks[i].component;
    if (c < roi_shift.size() && roi_shift[c] > 0) most[c] = std::max(most[c], coded[i].bitplanes);
  }
  for (size_t c = 0; c < roi_shift.size(); ++c)
    if (roi_shift[c] > 0 && most[c] + roi_shift[c] > kMaxDecodedBitplanes)
      bad("the ROI shift of " + std::to_string(roi_shift[c]) + " gives component " + std::to_string(c) + "'s code-blocks up to " +
          std::to_string(most[c] + roi_shift[c]) + " bit planes; decoders (OpenJPEG's, ours) take at most " +
          std::to_string(kMaxDecodedBitplanes) + ": a shift of at most " + std::to_string(kMaxDecodedBitplanes - most[c]) +
          " for this image");
}

// The squared peak times the samples of every component (for the layers' PSNR).
double peak_energy(const StreamInfo& info, const TileLayout& layout) {
  double peak_energy = 0;
  for (size_t c = 0; c < info.components.size(); ++c) {
    uint64_t samples = 0;
    for (const LaidTile& t : layout.tiles) {
      const ResolutionGrid& g = t.components[c].back().grid;
      samples += static_cast<uint64_t>((g.x1 - g.x0) * (g.y1 - g.y0));
    }
    const double peak = std::ldexp(1.0, info.components[c].precision) - 1;
    peak_energy += static_cast<double>(samples) * peak * peak;
  }
  return peak_energy;
}

// Tier-2's missing MSBs of a block (B.10.5): the band's Mb less the block's bit planes.
uint32_t missing_bitplanes(const LaidBlock& lb, const CodedBlock& c, const BandSteps& bands, int guard_bits) {
  return static_cast<uint32_t>(guard_bits + bands.steps[lb.component][lb.band].exponent - 1 - c.bitplanes);
}

// What HT rate control settles for one scale of the 9/7's steps: the steps, the guard bits
// and each block's chosen set (its energy kept where none is).
struct HtCoding {
  BandSteps bands;
  int guard_bits = 0;
  std::vector<CodedBlock> coded;
  UniformGuess guess;      // HtRun::Model's
  UniformResult uniform;   // HtRun::Uniform's
};

// What code_ht_for_target does at its scale: Model codes nothing, only guesses the scale at
// which every block at one plane meets the target (modelled_uniform_plane); Uniform codes
// every block at plane 0 and says what that gives, Sample does that for a sample of the blocks
// (every sample_every()-th) and scales it up to the image; Choose chooses every block's set.
enum class HtRun { Model, Uniform, Sample, Choose };

// Model's sample of the blocks, every so many: its guess is only where the search's codings
// start, and the model itself is some 0.2 of an octave off (measured on the benchmark's
// images at 4096: every 4th block's guess within 0.02 of an octave of all the blocks', every
// 16th's within 0.04 of every 4th's, at a quarter of the time: 35 against 131 ms on the grey
// image, whose many planes the model visits at the unscaled step). Every 16th from
// kManyBlocks blocks (at least 256 of them), else every 4th.
constexpr size_t kManyBlocks = 4096;
size_t model_every(size_t blocks) { return blocks >= kManyBlocks ? 16 : 4; }

// The uniform scale's search codes every so many blocks (uniform_scale), the sample's bias
// measured by one whole coding and taken off. Measured on the benchmark's RGB image: every 4th
// block 0.024 of the bytes' log off the image, every 8th 0.037, every 16th 0.083, each moving
// about 0.002 over 0.15 of an octave; every 16th took a second correcting step, every 8th
// none more than every 4th, at half the time a coding. A sample of fewer blocks is off by more
// and moves more with the scale (a 512 x 512 image's every 8th: 0.19 and 0.24 of the bytes'
// log at 12:1 and 30:1), and its image codes quickly anyway: at least kMinSampled blocks, or
// the whole image (every = 1: the search runs on whole codings alone).
constexpr size_t kSampleEvery = 8;
constexpr size_t kMinSampled = 512;
size_t sample_every(size_t blocks) {
  size_t every = kSampleEvery;
  while (every > 1 && blocks / every < kMinSampled) every /= 2;
  return every;
}

// The share of the blocks, those whose uniform cleanup removes the most distortion a byte,
// that HtRun::Choose codes at the coarser plane too in an image of kManyBlocks or more
// (code_ht_for_target says why): on the benchmark's 4096 x 4096 images and another 4096 x
// 4096 astronaut at 8:1 to 100:1, within 0.001 dB of every block's coarser plane; a few of
// the blocks that go down lie outside the quarter, each a 4096th of the image or less.
// (The time: the choice's codings 0.6 of what they were.) One layer only: with several, a
// block's cleanup pass alone is no stopping point (-r 40,20,10 on the RGB image lost 0.014 dB
// with the quarter).
constexpr double kCoarserShare = 0.25;

// Runs `run` for the last layer's target (rate/ht_planes.hpp) with the 9/7's base step times
// `step_scale`; Tier-2's size from an assembler of its own. Choose takes `uniform` to
// choose_ht_sets (-1: the model's planes). The sets coded are reserved in `memory` as they
// come. With a `batch` (one that codes_ht_sets()), the model and the sets are made where the
// blocks lie, else on the CPU's threads by `coder`: the same figures and sets either way.
HtCoding code_ht_for_target(const BlockCoder& coder, BlockEncodeBatch* batch, const StreamInfo& info, const CodingParams& params,
                            const TileLayout& layout, const std::vector<std::vector<TileComponentInput>>& tiles,
                            double step_scale, double target, bool by_bytes, int threads, HtRun run, int uniform,
                            Reservation& memory) {
  CodingParams p = params;
  p.base_step *= step_scale;
  HtCoding out;
  out.bands = band_steps(info, p);
  const BandSteps& bands = out.bands;
  const std::vector<BatchBlock> views = batch ? batch_blocks(layout, tiles, p, bands, true, 0, layout.blocks.size()) : std::vector<BatchBlock>();
  std::vector<HtBlock> blocks;
  // A coded set's memory, and its stops for several layers: a block's SigProp pass goes in
  // the layer of its cleanup pass. Part 15 lets it start a later layer's packet, and we read
  // that, but OpenJPEG 2.5 misreads such a packet (measured: its segments come out wrong), so
  // no layer stops a block right after its cleanup pass, nor after a SigProp pass of no bytes
  // (OpenJPEG warns of an empty segment).
  auto settle = [&](CodedBlock& set) {
    memory.grow(heap_bytes(set.passes.capacity() * sizeof(CodedPass)) + heap_bytes(set.bytes.capacity()),
                [&] { return "HT rate control's coded planes for " + std::to_string(layout.blocks.size()) + " code-blocks"; });
    std::vector<CodedPass>& passes = set.passes;
    if (p.layers > 1 && passes.size() > 1) {
      passes[0].may_stop = false;
      if (passes[1].end == passes[0].end) passes[1].may_stop = false;
    }
  };
  auto code = [&](const std::vector<std::pair<size_t, int>>& jobs) {
    if (batch) {  // in runs the batch's memory is sized for
      std::vector<CodedBlock> sets;
      sets.reserve(jobs.size());
      for (size_t at = 0; at < jobs.size(); at += BlockEncodeBatch::kMaxHtSetsPerCall) {
        const size_t end = std::min(jobs.size(), at + BlockEncodeBatch::kMaxHtSetsPerCall);
        const std::vector<std::pair<size_t, int>> part(jobs.begin() + static_cast<ptrdiff_t>(at), jobs.begin() + static_cast<ptrdiff_t>(end));
        for (CodedBlock& set : batch->encode_ht_sets(views, part, p.reversible)) {
          settle(set);
          sets.push_back(std::move(set));
        }
      }
      return sets;
    }
    // The jobs by block (they come block by block), so that a block is quantised once. The
    // search's codings for a byte target need no distortion (a batch's sets have it anyway).
    const bool figures = !(by_bytes && (run == HtRun::Uniform || run == HtRun::Sample));
    std::vector<size_t> starts;
    for (size_t k = 0; k < jobs.size(); ++k)
      if (k == 0 || jobs[k].first != jobs[k - 1].first) starts.push_back(k);
    starts.push_back(jobs.size());
    std::vector<CodedBlock> sets(jobs.size());
    for_each_view(static_cast<ptrdiff_t>(starts.size()) - 1, [&](ptrdiff_t g) { return jobs[starts[static_cast<size_t>(g)]].first; },
                  layout, tiles, plane_origins(tiles), p, bands, figures, threads, [&](ptrdiff_t g, const BlockView& view, int) {
                    BlockView v = view;
                    for (size_t k = starts[static_cast<size_t>(g)]; k < starts[static_cast<size_t>(g) + 1]; ++k) {
                      v.cleanup_plane = jobs[k].second;
                      sets[k] = coder.encode(v);
                      settle(sets[k]);
                    }
                  });
    return sets;
  };
  std::vector<int> planes;
  const bool uniform_run = run == HtRun::Uniform || run == HtRun::Sample;
  // The blocks with figures: every one, or every so many of the Model's and the Sample's.
  const size_t every = run == HtRun::Model ? model_every(layout.blocks.size()) : run == HtRun::Sample ? sample_every(layout.blocks.size()) : 1;
  if (uniform_run) {
    std::vector<std::pair<size_t, int>> jobs;
    for (size_t i = 0; i < layout.blocks.size(); i += every) jobs.push_back({i, 0});
    std::vector<CodedBlock> sets = code(jobs);
    blocks.resize(layout.blocks.size());
    planes.assign(blocks.size(), 0);
    for (size_t k = 0; k < sets.size(); ++k) {
      const size_t i = jobs[k].first;
      HtBlock& b = blocks[i];
      const LaidBlock& lb = layout.blocks[i];
      b.weight = bands.weights[lb.component][lb.band];
      b.energy = sets[k].energy;
      planes[i] = sets[k].magnitude_bitplanes;
      if (sets[k].passes.empty()) continue;
      b.chosen = 0, b.passes = static_cast<int>(sets[k].passes.size());
      b.sets.push_back(std::move(sets[k]));
    }
  } else if (run == HtRun::Choose && uniform >= 0) {
    // The uniform plane for every block, and the coarser one (which choose_ht_sets would code
    // too) where the choice may take it: coded here, their sets give each block's planes and
    // energy (a pass over the blocks gave them before). A block leaves the uniform plane, up
    // (its SigProp and MagRef) or down (the coarser plane's passes), where its slope there is
    // near the threshold the choice settles on; measured on the benchmark's images at 12:1 and
    // 30:1, 219 of the 222 blocks that went down were among the tenth whose uniform cleanup
    // removes the most distortion a byte (the coarse bands'). So in an image of many blocks
    // the coarser plane is coded for the quarter with the most a byte (kCoarserShare), and
    // the others stay at the uniform plane or above: choose_ht_sets codes nothing coarser for
    // them, their planes' count capped.
    std::vector<std::pair<size_t, int>> jobs;
    for (size_t i = 0; i < layout.blocks.size(); ++i) jobs.push_back({i, uniform});
    std::vector<CodedBlock> at = code(jobs);
    std::vector<std::pair<double, size_t>> by_slope;  // (distortion removed a byte, block)
    for (size_t i = 0; i < at.size(); ++i) {
      const LaidBlock& lb = layout.blocks[i];
      if (!at[i].passes.empty() && at[i].magnitude_bitplanes > uniform + 1)
        by_slope.push_back({at[i].passes[0].distortion * bands.weights[lb.component][lb.band] / std::max<uint32_t>(at[i].passes[0].end, 1), i});
    }
    // Not with several layers: no layer may stop a block after its cleanup pass (settle), so
    // that the uniform plane's cleanup alone is no choice there and most blocks go up or down.
    const double share = layout.blocks.size() >= kManyBlocks && p.layers == 1 ? kCoarserShare : 1.0;
    const auto coarser_count = static_cast<size_t>(std::ceil(share * static_cast<double>(by_slope.size())));
    std::nth_element(by_slope.begin(), by_slope.begin() + static_cast<ptrdiff_t>(by_slope.size() - coarser_count), by_slope.end());
    jobs.clear();
    for (size_t k = by_slope.size() - coarser_count; k < by_slope.size(); ++k) jobs.push_back({by_slope[k].second, uniform + 1});
    std::sort(jobs.begin(), jobs.end());
    std::vector<CodedBlock> coarser = code(jobs);
    std::vector<CodedBlock*> coarser_of(layout.blocks.size(), nullptr);
    for (size_t k = 0; k < jobs.size(); ++k) coarser_of[jobs[k].first] = &coarser[k];
    blocks.resize(layout.blocks.size());
    for (size_t i = 0; i < blocks.size(); ++i) {
      HtBlock& b = blocks[i];
      const LaidBlock& lb = layout.blocks[i];
      b.weight = bands.weights[lb.component][lb.band];
      b.energy = at[i].energy;
      planes.push_back(at[i].magnitude_bitplanes);
      // No model: only the planes' count, up to the uniform one where the coarser is not coded.
      b.estimates.resize(static_cast<size_t>(coarser_of[i] ? at[i].magnitude_bitplanes : std::min(at[i].magnitude_bitplanes, uniform + 1)));
      if (coarser_of[i] && !coarser_of[i]->passes.empty()) b.sets.push_back(std::move(*coarser_of[i]));
      if (!at[i].passes.empty()) b.sets.push_back(std::move(at[i]));
    }
  } else {
    const bool model = run == HtRun::Model || uniform < 0;
    blocks = batch ? ht_estimates_in_batch(*batch, views, layout, p, bands, model, every)
                   : ht_estimates(layout, tiles, p, bands, threads, model, every);
    for (const HtBlock& b : blocks) planes.push_back(static_cast<int>(b.estimates.size()));
  }
  out.guard_bits = guard_bits_for(planes, layout, bands, p.guard_bits);
  const size_t n = blocks.size();
  std::vector<BlockContribution> contributions(n);
  std::vector<const BlockContribution*> tier2(n);
  for (size_t i = 0; i < n; ++i) tier2[i] = &contributions[i];
  const Assembler assembler(info, p, layout, tier2, main_header(info, p, bands.steps, out.guard_bits), threads);
  ImageEnergy energy;
  energy.peak = peak_energy(info, layout);
  for (const HtBlock& b : blocks) energy.total += b.energy * b.weight;
  const CodedBlock nothing;
  auto stream_size = [&] {
    for (size_t i = 0; i < n; ++i) {
      const HtBlock& b = blocks[i];
      const CodedBlock& c = b.chosen >= 0 ? b.sets[static_cast<size_t>(b.chosen)] : nothing;
      contributions[i].coded = &c;
      contributions[i].missing_bitplanes = missing_bitplanes(layout.blocks[i], c, bands, out.guard_bits);
      contributions[i].passes.assign(static_cast<size_t>(p.layers), b.passes);
    }
    return assembler.size();
  };
  const double share = static_cast<double>((n + every - 1) / every) / static_cast<double>(std::max<size_t>(n, 1));
  if (run == HtRun::Model) {
    out.guess = modelled_uniform_plane(blocks, target, by_bytes, energy, static_cast<double>(stream_size()), share);
    return out;
  }
  if (uniform_run) {
    double removed = 0;
    for (const HtBlock& b : blocks)
      if (b.chosen >= 0) removed += b.sets[0].passes[0].distortion * b.weight;
    const double left = std::max(0.0, energy.total - removed) / share;
    const auto bytes = static_cast<double>(stream_size());
    out.uniform.psnr = left > 0 ? 10 * std::log10(energy.peak / left) : INFINITY;
    out.uniform.bytes = bytes;
    if (run == HtRun::Sample) {
      // The blocks' share of the bytes scaled up, over those of a stream with no block.
      for (HtBlock& b : blocks) b.chosen = -1, b.passes = 0;
      const auto base = static_cast<double>(stream_size());
      out.uniform.bytes = base + (bytes - base) / share;
    }
    return out;
  }
  choose_ht_sets(blocks, target, by_bytes, energy, code, stream_size, uniform);
  out.coded.resize(n);
  for (size_t i = 0; i < n; ++i) {
    HtBlock& b = blocks[i];
    if (b.chosen >= 0) out.coded[i] = std::move(b.sets[static_cast<size_t>(b.chosen)]);
    out.coded[i].energy = b.energy;  // the block's, whatever set (or none) was chosen
  }
  return out;
}

}  // namespace

uint64_t Encoder::run_records_bytes(int threads) const {
  return blocks_ * block_record_bytes() + heap_bytes(settings_.coding.layers * sizeof(int)) * blocks_ +
         static_cast<uint64_t>(std::max(threads, 1)) * heap_bytes(4096 * sizeof(int32_t));
}

uint64_t Encoder::block_record_bytes() {
  return sizeof(CodedBlock) + sizeof(BlockContribution) + sizeof(const BlockContribution*) + sizeof(RatedBlock);
}

void set_layer_bytes(CodingParams& params, const std::vector<double>& rates, double raw_bytes) {
  if (rates.empty()) return;
  params.layer_bytes.clear();
  for (double r : rates) params.layer_bytes.push_back(r <= 1 ? 0 : raw_bytes / r);
}

Encoder::Encoder(const EncoderSettings& settings, const j2k_image_view& shape) : settings_(settings) {
  check_view(shape, false);  // the plan's checks of the view, before the codec's
  apply_profile(settings_.profile, shape, settings_.plan, settings_.coding);
  const size_t ncomp = static_cast<size_t>(shape.num_components);
  const PlanSettings& ps = settings_.plan;
  if (ps.narrow_output) bad("the encoder's Tier-1 reads int32 coefficients: narrow_output must be 0");

  CodingParams& p = settings_.coding;
  p.reversible = ps.wavelet == Wavelet::Reversible53;
  if (p.reversible && p.relative_step > 0) bad("a quantisation step (qstep) is the 9/7's: the 5/3 is lossless, with no step");
  p.mct = ps.mct == Mct::On || (ps.mct == Mct::Auto && ncomp >= 3);
  p.threads = ps.backend.threads;
  // The samples at their precision; a subsampled component has ceil(x1 / dx) - ceil(x0 / dx)
  // columns (B-12), and as many rows likewise.
  auto samples = [](int64_t x0, int64_t x1, int64_t d) { return (x1 + d - 1) / d - (x0 + d - 1) / d; };
  double raw_bytes = 0;
  for (size_t c = 0; c < ncomp; ++c) {
    const j2k_component_view& v = shape.components[c];
    raw_bytes += static_cast<double>(samples(shape.x0, int64_t{shape.x0} + shape.width, v.dx)) *
                 static_cast<double>(samples(shape.y0, int64_t{shape.y0} + shape.height, v.dy)) * v.precision / 8.0;
  }
  set_layer_bytes(p, settings_.layer_rates, raw_bytes);
  cap_profile_bytes(settings_.profile, p);
  check_params(p, ncomp);
  // The block coder takes the coefficients where the plan leaves them, or the plan is refused.
  coder_ = make_block_coder(p.block_coding);
  // Or a batch that codes every block where the plan leaves it (a device's; nullptr: none for
  // this coding, backend or build): then the plan keeps the coefficients in its memory.
  batch_ = settings_.make_tier1_batch ? settings_.make_tier1_batch() : make_block_encode_batch(p, ps.backend);
  const bool batch_on_device = batch_ && batch_->reads(J2K_MEMORY_DEVICE);
  if (!batch_ && !coder_->reads(ps.output_memory))
    bad(std::string("this build's block coder reads coefficients in ") + (ps.output_memory == J2K_MEMORY_HOST ? "device" : "host") +
        " memory: output_memory must be " + (ps.output_memory == J2K_MEMORY_HOST ? "DEVICE" : "HOST"));

  // The canvas (it refuses more than 65535 tiles), and, as opj_compress, no more levels than
  // a nominal tile's sides allow in each component (a subsampled one has 1/dx of the
  // columns), so that the coarsest resolution of a whole tile is not empty (decoders differ
  // on such streams).
  const Canvas canvas(canvas_spec(ps, shape));
  for (const TileChanges& t : p.tile_poc)
    if (t.tile >= canvas.tile_count())
      bad("progression order changes for tile " + std::to_string(t.tile) + ": the image has " + std::to_string(canvas.tile_count()) +
          " tile" + (canvas.tile_count() == 1 ? "" : "s") + " (0 to " + std::to_string(canvas.tile_count() - 1) + ")");
  for (size_t c = 0; c < p.roi_shift.size(); ++c)
    if (p.roi_shift[c] >= kMaxDecodedBitplanes)
      bad("the ROI shift of " + std::to_string(p.roi_shift[c]) + " for component " + std::to_string(c) + " leaves its code-blocks more than " +
          std::to_string(kMaxDecodedBitplanes) + " bit planes, the most decoders (OpenJPEG's, ours) take: at most " +
          std::to_string(kMaxDecodedBitplanes - 1));
  for (size_t c = 0; c < ncomp; ++c) {
    const int levels = component_style(p, c).levels;
    const int64_t side = std::min(canvas.spec().tile_w / shape.components[c].dx, canvas.spec().tile_h / shape.components[c].dy);
    if ((int64_t{1} << levels) <= side) continue;
    int most = 0;
    while ((int64_t{2} << most) <= side) ++most;
    bad(std::to_string(levels) + " decomposition levels (" + std::to_string(levels + 1) + " resolutions) need tiles of at least " + std::to_string(int64_t{1} << levels) +
        " samples a side" + (ncomp > 1 ? " in component " + std::to_string(c) : std::string()) + "; " +
        (ps.tile_w > 0 ? "these tiles allow " : "this image allows ") + std::to_string(most) + " levels (" +
        std::to_string(most + 1) + " resolutions)");
  }

  // The layout and the tile-components' records, counted from the canvas before either is
  // made (a few flags can ask for millions of code-blocks and precincts); then the plan,
  // which checks its own share (max_host_memory) before it allocates the coefficients.
  // Tier-1 reads each tile-component where the plan keeps it: its geometry from the canvas
  // here, the place of its coefficients from the plan (by rows, a row's at a time).
  LayoutCounts counts;
  uint64_t records = 0;
  tiles_.resize(static_cast<size_t>(canvas.tile_count()));
  for (int64_t t = 0; t < canvas.tile_count(); ++t) {
    std::vector<TileComponentInput>& tile = tiles_[static_cast<size_t>(t)];
    tile.resize(ncomp);
    for (size_t c = 0; c < ncomp; ++c) {
      const Rect r = canvas.tile_component(t, static_cast<int>(c));
      tile[c].rect = j2k_rect{r.x0, r.y0, r.x1, r.y1};
      tile[c].levels = component_style(p, c).levels;
      for (const BandInfo& b : band_layout(r, tile[c].levels))
        tile[c].bands.push_back({static_cast<j2k_band_type>(b.type), j2k_rect{b.rect.x0, b.rect.y0, b.rect.x1, b.rect.y1}, b.col, b.row});
      // Here and in the plan: the tile-component and its bands.
      records += sizeof(TileComponentInput) + sizeof(PlanTileComponent) + 64 +
                 tile[c].bands.size() * (sizeof(TileComponentInput::Band) + sizeof(BandInfo));
    }
    const LayoutCounts n = count_layout(p, tile);
    counts.components += n.components, counts.resolutions += n.resolutions, counts.bands += n.bands;
    counts.precincts += n.precincts, counts.precinct_bands += n.precinct_bands;
    counts.filled_precinct_bands += n.filled_precinct_bands, counts.blocks += n.blocks;
    counts.largest_precinct_blocks = std::max(counts.largest_precinct_blocks, n.largest_precinct_blocks);
  }
  held_.grow(records + layout_bytes(counts), [&] {
    return "the layout of " + std::to_string(counts.blocks) + " code-blocks in " + std::to_string(counts.precincts) + " precincts";
  });
  // Every encode() then needs a record per block (Tier-1's, Tier-2's, rate control's) at least.
  blocks_ = counts.blocks;
  const uint64_t per_encode = blocks_ * block_record_bytes();
  if (settings_.max_bytes != 0 && held_.bytes() + per_encode > settings_.max_bytes)
    budget_->refuse(per_encode, "the records of " + std::to_string(blocks_) + " code-blocks (" + std::to_string(block_record_bytes()) +
                                    " bytes each) that each image takes to encode");
  PlanSettings plan_settings = ps;
  if (batch_on_device) plan_settings.output_memory = J2K_MEMORY_DEVICE;
  front_.tiles_x = canvas.tiles_x();
  front_.tiles_y = canvas.tiles_y();
  front_.tile_components = static_cast<size_t>(canvas.tile_count()) * ncomp;
  const uint64_t left = settings_.max_bytes == 0 ? 0 : std::max<uint64_t>(1, settings_.max_bytes - held_.bytes() - per_encode);
  auto refused = [&](const Error& e, const std::string& what) {
    return Error(ErrorCode::OutOfMemory, what + e.what() + ": the " + mib_text(settings_.max_bytes) +
                                             " of memory allowed (max_bytes, --max-memory) less the " + mib_text(held_.bytes() + per_encode) +
                                             " the layout and the code-blocks' records need");
  };
  if (settings_.by_tile_rows) {
    const bool targets = !p.layer_bytes.empty() || !p.layer_psnr.empty();
    if (p.block_coding == BlockCoding::HighThroughput && targets)
      throw Error(ErrorCode::UnsupportedInput,
                  "HT rate control (a rate or PSNR target with HT code-blocks) chooses each code-block's cleanup plane "
                  "from every block's estimates and then codes the blocks from their coefficients, so it needs the whole "
                  "image's coefficients at once; it cannot code the image a row of tiles at a time");
    // Each row of tiles has a plan of its own, with the whole canvas's tile size and the grid
    // moved down to the row's top (so the row's tiles keep their coordinates); the tallest
    // row's is made here to check what a row needs, and freed.
    shape_ = shape;
    shape_components_.assign(shape.components, shape.components + ncomp);
    for (j2k_component_view& c : shape_components_) c.data = nullptr, c.bytes = 0;
    shape_.components = shape_components_.data();
    row_settings_ = plan_settings;
    row_settings_.tile_w = canvas.spec().tile_w;
    row_settings_.tile_h = canvas.spec().tile_h;
    size_t tallest = 0;
    for (int64_t q = 0; q < canvas.tiles_y(); ++q) {
      rows_.push_back(canvas.tile_row(q));
      const TileRow& r = rows_.back();
      if (r.y1 - r.y0 > rows_[tallest].y1 - rows_[tallest].y0) tallest = rows_.size() - 1;
    }
    const TileRow& row = rows_[tallest];
    std::unique_ptr<Plan> plan;
    try {
      plan = row_plan(row, left);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::OutOfMemory || left == 0) throw;
      throw refused(e, "a row of tiles (canvas rows " + std::to_string(row.y0) + ".." + std::to_string(row.y1 - 1) +
                           ", the tallest of " + std::to_string(rows_.size()) + "): ");
    }
    p.mct = plan->mct();
    front_.backend = plan->backend();
    front_.description = plan->description();
    front_.coefficient_type = plan->coefficient_type();
    front_.streams = plan->streams();
  } else {
    if (left != 0 && (plan_settings.max_host_memory == 0 || plan_settings.max_host_memory > left)) plan_settings.max_host_memory = left;
    std::vector<RowFrontStage::Component> comps;
    const int stripe = front_stripe_rows(canvas, shape, comps);
    const uint64_t stripe_bytes = stripe > 0 ? RowFrontStage::bytes(comps, stripe, ps.backend.threads) : 0;
    // Where its rows do not fit the budget, the plan refuses the image (or takes it) as before.
    if (stripe > 0 && (plan_settings.max_host_memory == 0 || stripe_bytes <= plan_settings.max_host_memory)) {
      held_.grow(stripe_bytes, "the front stage's rows of code-blocks");
      stripes_ = std::make_unique<RowFrontStage>(comps, p.mct, stripe, ps.backend.threads);
      stripe_rows_ = stripe;
      shape_ = shape;
      shape_components_.assign(shape.components, shape.components + ncomp);
      for (j2k_component_view& c : shape_components_) c.data = nullptr, c.bytes = 0;
      shape_.components = shape_components_.data();
      stripe_samples_.in.resize(ncomp);
      for (size_t c = 0; c < ncomp; ++c) {
        const j2k_component_view& k = shape.components[c];
        const bool sign = is_signed(k.type);
        stripe_samples_.offset.push_back(sign ? 0 : int32_t{1} << (k.precision - 1));
        stripe_samples_.lo.push_back(sign ? -(int64_t{1} << (k.precision - 1)) : 0);
        stripe_samples_.hi.push_back(sign ? (int64_t{1} << (k.precision - 1)) - 1 : (int64_t{1} << k.precision) - 1);
      }
      stripe_samples_.fused.assign(ncomp, 0);
      stripe_samples_.mct = p.mct;
      front_.backend = Backend::Cpu;
      front_.description = host_description(ps.backend.threads);
      front_.coefficient_type = coefficient_type(ps.wavelet);
      front_.streams = 1;
    } else {
      try {
        plan_ = std::make_unique<Plan>(plan_settings, shape);
      } catch (const Error& e) {
        if (e.code() != ErrorCode::OutOfMemory || plan_settings.max_host_memory == ps.max_host_memory) throw;
        throw refused(e, "");
      }
      const j2k_memory_report front = plan_->memory();
      held_.grow(front.host + front.pinned, "the front stage's coefficients and buffers");
      p.mct = plan_->mct();  // auto: off where components 0..2 differ in subsampling
      for (const PlanTileComponent& tc : plan_->tile_components()) {
        TileComponentInput& in = tiles_.at(static_cast<size_t>(tc.tile)).at(static_cast<size_t>(tc.component));
        if (in.rect.x0 != tc.rect.x0 || in.rect.y0 != tc.rect.y0 || in.rect.x1 != tc.rect.x1 || in.rect.y1 != tc.rect.y1)
          throw Error(ErrorCode::Internal, "encoder: the plan's tile-component is not the canvas's");
        in.coefficients = tc.home;
      }
      front_.backend = plan_->backend();
      front_.description = plan_->description();
      front_.coefficient_type = plan_->coefficient_type();
      front_.streams = plan_->streams();
    }
  }
  front_.mct = p.mct;

  info_.x0 = shape.x0;
  info_.y0 = shape.y0;
  info_.x1 = static_cast<uint32_t>(canvas.spec().image_x1);
  info_.y1 = static_cast<uint32_t>(canvas.spec().image_y1);
  info_.tile_x0 = static_cast<uint32_t>(canvas.spec().tile_x0);
  info_.tile_y0 = static_cast<uint32_t>(canvas.spec().tile_y0);
  info_.tile_w = static_cast<uint32_t>(canvas.spec().tile_w);
  info_.tile_h = static_cast<uint32_t>(canvas.spec().tile_h);
  for (size_t c = 0; c < ncomp; ++c)
    info_.components.push_back({shape.components[c].precision, is_signed(shape.components[c].type),
                                shape.components[c].dx, shape.components[c].dy});
  layout_ = lay_out(info_, p, tiles_);
  // Through the row front stage: the coarser levels' blocks first in Tier-1's order, then the
  // finest level's stripe by stripe (a block's height divides S: none crosses a stripe).
  if (stripes_) {
    const int64_t first = stripes_->first_stripe(), last = stripes_->last_stripe();
    std::vector<std::vector<size_t>> by_stripe(static_cast<size_t>(last - first + 1));
    for (size_t i = 0; i < layout_.blocks.size(); ++i) {
      const LaidBlock& lb = layout_.blocks[i];
      if (lb.band == 0 || band_level(tiles_[0][lb.component].levels, lb.band) != 1) {
        stripe_order_.push_back(i);
        continue;
      }
      const int64_t k = lb.y0 / stripe_rows_;
      if (k < first || k > last || (lb.y1 - 1) / stripe_rows_ != k)
        throw Error(ErrorCode::Internal, "encoder: a code-block across a row of code-blocks");
      by_stripe[static_cast<size_t>(k - first)].push_back(i);
    }
    stripe_starts_.push_back(stripe_order_.size());
    for (const std::vector<size_t>& blocks : by_stripe) {
      stripe_order_.insert(stripe_order_.end(), blocks.begin(), blocks.end());
      stripe_starts_.push_back(stripe_order_.size());
    }
  }
  // By rows: each row's blocks, which the layout lays out tile after tile.
  if (settings_.by_tile_rows) {
    auto tile_of = [](const LaidBlock& b) { return b.tile; };
    if (!std::is_sorted(layout_.blocks.begin(), layout_.blocks.end(),
                        [&](const LaidBlock& a, const LaidBlock& b) { return tile_of(a) < tile_of(b); }))
      throw Error(ErrorCode::Internal, "encoder: the layout's blocks are not in tile order");
    for (const TileRow& row : rows_)
      row_blocks_.push_back(static_cast<size_t>(
          std::lower_bound(layout_.blocks.begin(), layout_.blocks.end(), static_cast<uint32_t>(row.first_tile),
                           [](const LaidBlock& b, uint32_t t) { return b.tile < t; }) -
          layout_.blocks.begin()));
    row_blocks_.push_back(layout_.blocks.size());
  }
}

int Encoder::front_stripe_rows(const Canvas& canvas, const j2k_image_view& shape, std::vector<RowFrontStage::Component>& comps) const {
  const PlanSettings& ps = settings_.plan;
  const CodingParams& p = settings_.coding;
  // As encode() decides: HT with a target codes its blocks again from their coefficients.
  const bool by_bytes = !p.layer_bytes.empty();
  const std::vector<double>& final_targets = by_bytes ? p.layer_bytes : p.layer_psnr;
  const bool ht_planes = p.block_coding == BlockCoding::HighThroughput && !final_targets.empty() && final_targets.back() != 0;
  if (!settings_.front_by_stripes || settings_.by_tile_rows || batch_ || ht_planes || canvas.tile_count() != 1 ||
      ps.output_memory != J2K_MEMORY_HOST || shape.memory == J2K_MEMORY_DEVICE || (p.mct && shape.num_components < 3) ||
      resolve_backend(ps.backend.backend, Job::Transform) != Backend::Cpu)
    return 0;
  // Rows of code-blocks at least kMinStripeRows tall (several of low code-blocks, whose
  // multiples no code-block crosses either), as the decoder's (decoder.cpp, run_by_rows): a
  // window's margins are 2 x 4 rows (the 9/7) whatever its height.
  constexpr int kMinStripeRows = 32;
  int block_h_log2 = 0;
  comps.clear();
  for (size_t c = 0; c < static_cast<size_t>(shape.num_components); ++c) {
    const ComponentStyle style = component_style(p, c);
    const int levels = component_levels(ps, c);
    if (levels != style.levels || levels != component_levels(ps, 0)) return 0;
    comps.push_back(RowFrontStage::Component{canvas.tile_component(0, static_cast<int>(c)), levels, p.reversible});
    block_h_log2 = std::max(block_h_log2, style.block_h_log2);
  }
  const int stripe = std::max(kMinStripeRows, 1 << block_h_log2);
  return RowFrontStage::fits(comps, stripe) ? stripe : 0;
}

std::unique_ptr<Plan> Encoder::row_plan(const TileRow& row, uint64_t limit) const {
  PlanSettings s = row_settings_;
  s.tile_y0 = row.top;
  if (limit != 0 && (s.max_host_memory == 0 || s.max_host_memory > limit)) s.max_host_memory = static_cast<size_t>(limit);
  j2k_image_view band = shape_;
  band.y0 = static_cast<uint32_t>(row.y0);
  band.height = static_cast<uint32_t>(row.y1 - row.y0);
  std::unique_ptr<Plan> plan = std::make_unique<Plan>(s, band);
  if (plan->canvas().tiles_y() != 1 || plan->canvas().tiles_x() != front_.tiles_x)
    throw Error(ErrorCode::Internal, "encoder: a row of tiles was planned as " + std::to_string(plan->canvas().tiles_x()) + " x " +
                                         std::to_string(plan->canvas().tiles_y()) + " tiles");
  return plan;
}

const std::vector<uint8_t>& Encoder::encode(const j2k_image_view& image) {
  if (stripes_) {
    encode_by_stripes(image);
    return bytes_;
  }
  if (!plan_)
    bad("this encoder was made for an image a row of tiles at a time (j2k_encoder_create_by_rows): run it by rows "
        "(j2k_encoder_run_by_rows, encode_by_rows), not whole");
  const CodingParams& params = settings_.coding;
  // A turn on the device (shared with other encoders) through the device stages only.
  DeviceTurn turn(front_.backend == Backend::Cpu ? nullptr : turns_);
  auto t0 = Clock::now();
  plan_->run(image);
  if (!batch_) turn.release();
  report_ = EncodeReport{};
  report_.tier1_on = batch_ ? batch_->where() : "cpu";
  report_.front_ms = ms_since(t0);
  began(report_.front_at, t0);
  // Tier-1 on the embedder's pool where the settings name one (as the plan's CPU work).
  const ScopedThreadPool pool(settings_.plan.backend.thread_pool);
  const int threads = params.threads > 0 ? params.threads : available_cores();

  // Rate control and the PSNR report need each pass's distortion; a lossless codestream
  // (the 5/3, every pass) has none left.
  const bool targets = !params.layer_bytes.empty() || !params.layer_psnr.empty();
  const bool estimate = targets || !params.reversible;
  // HT with a target chooses each block's cleanup plane (rate/ht_planes.hpp) and codes only
  // a few planes per block; a last layer that is lossless needs every block at plane 0.
  const bool by_bytes = !params.layer_bytes.empty();
  const std::vector<double>& final_targets = by_bytes ? params.layer_bytes : params.layer_psnr;
  const bool ht_planes = params.block_coding == BlockCoding::HighThroughput && targets && final_targets.back() != 0;
  // What this run allocates, reserved before it is made: the blocks' records, then Tier-1's
  // output as it comes (with HT targets, every plane coded on the way), rate control's hulls,
  // Tier-2's packets and the file.
  Reservation work(budget_.get(), run_records_bytes(threads),
                   [&] { return "the records of " + std::to_string(blocks_) + " code-blocks"; });
  Reservation batch_host(budget_.get());  // a batch's host copy of its output
  t0 = Clock::now();
  began(report_.tier1_at, t0);
  BandSteps bands;
  std::vector<CodedBlock> coded;
  int guard_bits = 0;
  if (ht_planes) {
    // An HT block's stopping points are its cleanup planes, an octave apart in step (with
    // SigProp and MagRef between): where the bands' steps fall against the step that meets
    // the target matters (measured: up to 0.7 dB). So the 9/7's steps are scaled so that
    // every block coded at one plane meets the target (uniform_scale, from the model's guess
    // over codings at plane 0 of a sample of the blocks and one of the whole image), and the
    // choice starts from that plane, the finer and the coarser one; it is at least as good as
    // that uniform choice. The 5/3's steps are fixed: its planes come from the model.
    double scale = 1;
    int uniform = -1;
    BlockEncodeBatch* const ht_batch = batch_ && batch_->codes_ht_sets() ? batch_.get() : nullptr;
    if (batch_ && !ht_batch && batch_->reads(J2K_MEMORY_DEVICE))
      throw Error(ErrorCode::Internal, std::string("encoder: HT rate control with the coefficients on ") + batch_->where() +
                                           ", whose Tier-1 batch has no HT rate control");
    if (!params.reversible) {
      const double target = final_targets.back();
      const HtCoding model = code_ht_for_target(*coder_, ht_batch, info_, params, layout_, tiles_, 1, target, by_bytes, threads,
                                                HtRun::Model, -1, work);
      // The scales searched: from a base step of half a sample value (the choice's plane 0 a
      // quarter: near-lossless targets), or where the coarsest band's coefficients would
      // pass the 2^25 steps that quantise_block keeps (about 2^(precision + 5) samples'
      // worth with the choice's plane 0), to the samples' range (QCD's exponents stay >= 0).
      double lowest = -INFINITY, highest = INFINITY;
      for (const ComponentInfo& c : info_.components) {
        const double base = std::log2(params.base_step * (params.relative_step > 0 ? params.relative_step * std::ldexp(1.0, c.precision) : 1));
        lowest = std::max(lowest, std::max(-1.0, c.precision - 19.0) - base), highest = std::min(highest, c.precision - base);
      }
      auto measure = [&](HtRun run) {
        return [&, run](double log2_scale) {
          Reservation trial(budget_.get());
          return code_ht_for_target(*coder_, ht_batch, info_, params, layout_, tiles_, std::exp2(log2_scale), target, by_bytes,
                                    threads, run, -1, trial)
              .uniform;
        };
      };
      const bool sampled = sample_every(layout_.blocks.size()) > 1;
      const double x = uniform_scale(model.guess, target, by_bytes, lowest, std::max(lowest, highest),
                                     measure(sampled ? HtRun::Sample : HtRun::Uniform),
                                     sampled ? measure(HtRun::Uniform) : std::function<UniformResult(double)>());
      scale = std::exp2(x - 1), uniform = 1;
    }
    HtCoding best = code_ht_for_target(*coder_, ht_batch, info_, params, layout_, tiles_, scale, final_targets.back(), by_bytes,
                                       threads, HtRun::Choose, uniform, work);
    bands = std::move(best.bands);
    guard_bits = best.guard_bits;
    coded = std::move(best.coded);
  } else {
    bands = band_steps(info_, params);
    coded.resize(layout_.blocks.size());
    if (batch_) code_blocks_in_batch(*batch_, layout_, tiles_, params, bands, estimate, 0, coded.size(), coded, work, batch_host);
    else code_blocks(*coder_, layout_, tiles_, params, bands, estimate, threads, 0, coded.size(), coded, work);
    std::vector<int> block_planes;
    for (const CodedBlock& c : coded) block_planes.push_back(std::max(c.bitplanes, c.magnitude_bitplanes));
    guard_bits = guard_bits_for(block_planes, layout_, bands, params.guard_bits);
  }
  report_.tier1_ms = ms_since(t0);  // with HT targets, the plane choice too: the two interleave
  turn.release();
  write_file(coded, bands, guard_bits, estimate, threads, work, nullptr);
  return bytes_;
}

void Encoder::encode_by_stripes(const j2k_image_view& image) {
  check_shape(image, shape_);
  const CodingParams& params = settings_.coding;
  report_ = EncodeReport{};
  const ScopedThreadPool pool(settings_.plan.backend.thread_pool);
  const int threads = params.threads > 0 ? params.threads : available_cores();
  const bool targets = !params.layer_bytes.empty() || !params.layer_psnr.empty();
  const bool estimate = targets || !params.reversible;
  Reservation work(budget_.get(), run_records_bytes(threads),
                   [&] { return "the records of " + std::to_string(blocks_) + " code-blocks"; });
  // The samples where the caller has them: the image's one tile.
  TileSamples& samples = stripe_samples_;
  for (size_t c = 0; c < samples.in.size(); ++c) {
    const j2k_component_view& k = image.components[c];
    const j2k_rect& r = tiles_[0][c].rect;
    Plane& src = samples.in[c];
    src.base = const_cast<void*>(k.data);
    src.offset = static_cast<size_t>((r.y0 - (int64_t{image.y0} + k.dy - 1) / k.dy) * k.row_stride +
                                     (r.x0 - (int64_t{image.x0} + k.dx - 1) / k.dx) * k.pixel_stride);
    src.type = k.type;
    src.row_stride = k.row_stride;
    src.pixel_stride = k.pixel_stride;
    src.width = r.x1 - r.x0;
    src.height = r.y1 - r.y0;
    src.memory = image.memory;
  }
  const BandSteps bands = band_steps(info_, params);
  std::vector<CodedBlock> coded(layout_.blocks.size());
  const RowFrontStage& rows = *stripes_;
  // The finest level's blocks in the stripe's band rows, the coarser levels' in the coarse plane.
  const OriginOf origin_of = [&](const LaidBlock& lb) {
    const TileComponentInput& tc = tiles_[lb.tile][lb.component];
    const TileComponentInput::Band& band = tc.bands[lb.band];
    BlockOrigin o;
    if (lb.band != 0 && band_level(tc.levels, lb.band) == 1) {
      const int kind = (lb.band - 1) % 3;  // HL, LH, HH
      o.base = static_cast<const char*>(rows.band_row(lb.component, kind, lb.y0));
      o.stride = rows.band_stride(lb.component, kind);
      o.offset = lb.x0 - band.rect.x0;
    } else {
      o.base = static_cast<const char*>(rows.coarse(lb.component));
      o.stride = rows.coarse_stride(lb.component);
      o.offset = (band.row + lb.y0 - band.rect.y0) * o.stride + (band.col + lb.x0 - band.rect.x0);
    }
    return o;
  };
  auto code = [&](size_t from, size_t to) {
    code_blocks(*coder_, layout_, tiles_, origin_of, params, bands, estimate, threads, static_cast<ptrdiff_t>(to - from),
                [&](ptrdiff_t k) { return stripe_order_[from + static_cast<size_t>(k)]; }, coded, work);
  };
  const int64_t first = stripes_->first_stripe(), last = stripes_->last_stripe();
  for (int64_t k = first; k <= last; ++k) {
    auto t0 = Clock::now();
    began(report_.front_at, t0);
    if (!stripes_->run(samples, k)) throw sample_out_of_range();
    report_.front_ms += ms_since(t0);
    t0 = Clock::now();
    began(report_.tier1_at, t0);
    const auto s = static_cast<size_t>(k - first);
    code(stripe_starts_[s], stripe_starts_[s + 1]);
    report_.tier1_ms += ms_since(t0);
  }
  auto t0 = Clock::now();
  began(report_.front_at, t0);
  stripes_->finish_coarse();
  report_.front_ms += ms_since(t0);
  t0 = Clock::now();
  began(report_.tier1_at, t0);
  code(0, stripe_starts_[0]);
  std::vector<int> block_planes;
  for (const CodedBlock& c : coded) block_planes.push_back(std::max(c.bitplanes, c.magnitude_bitplanes));
  const int guard_bits = guard_bits_for(block_planes, layout_, bands, params.guard_bits);
  report_.tier1_ms += ms_since(t0);
  write_file(coded, bands, guard_bits, estimate, threads, work, nullptr);
}

uint64_t Encoder::encode_rows(const RowSource& source, const ByteSink& sink) {
  if (!settings_.by_tile_rows)
    bad("this encoder was made for whole images (j2k_encoder_create): run it on an image (j2k_encoder_run, encode), "
        "not by rows; j2k_encoder_create_by_rows makes one for rows of tiles");
  const CodingParams& params = settings_.coding;
  report_ = EncodeReport{};
  report_.tier1_on = batch_ ? batch_->where() : "cpu";
  report_.tile_rows = static_cast<int>(rows_.size());
  output_.reset();  // the last run's file is written already
  bytes_ = std::vector<uint8_t>();
  const ScopedThreadPool pool(settings_.plan.backend.thread_pool);
  const int threads = params.threads > 0 ? params.threads : available_cores();
  const bool targets = !params.layer_bytes.empty() || !params.layer_psnr.empty();
  const bool estimate = targets || !params.reversible;
  Reservation work(budget_.get(), run_records_bytes(threads),
                   [&] { return "the records of " + std::to_string(blocks_) + " code-blocks"; });
  Reservation batch_host(budget_.get());
  const BandSteps bands = band_steps(info_, params);
  std::vector<CodedBlock> coded(layout_.blocks.size());
  const size_t ncomp = info_.components.size();
  for (size_t q = 0; q < rows_.size(); ++q) {
    const TileRow& row = rows_[q];
    const std::string which = "the row of tiles at canvas rows " + std::to_string(row.y0) + ".." + std::to_string(row.y1 - 1);
    // The row's plan within what the rows before left of the budget (their coded passes).
    auto t0 = Clock::now();
    std::unique_ptr<Plan> plan;
    const uint64_t taken = budget_->reserved();
    try {
      plan = row_plan(row, settings_.max_bytes == 0 ? 0 : std::max<uint64_t>(1, settings_.max_bytes - std::min(taken, settings_.max_bytes)));
    } catch (const Error& e) {
      if (e.code() != ErrorCode::OutOfMemory || settings_.max_bytes == 0) throw;
      throw Error(ErrorCode::OutOfMemory, which + ": " + e.what() + ": the " + mib_text(settings_.max_bytes) +
                                              " of memory allowed (max_bytes, --max-memory) less the " + mib_text(taken) +
                                              " taken by the layout, the records and the coded passes of the rows above");
    }
    const j2k_memory_report m = plan->memory();
    Reservation front(budget_.get(), m.host + m.pinned, [&] { return "the front stage's coefficients and buffers for " + which; });
    report_.front_ms += ms_since(t0);
    began(report_.front_at, t0);
    const j2k_image_view band = source(static_cast<uint32_t>(row.y0), static_cast<uint32_t>(row.y1 - row.y0));  // (its time is the caller's)
    t0 = Clock::now();
    plan->run(band);  // refuses a band that is not the row's shape
    report_.front_ms += ms_since(t0);

    t0 = Clock::now();
    began(report_.tier1_at, t0);
    // Tier-1 reads the row's tiles where its plan keeps them; they go with the plan, and
    // nothing may point to them after.
    const auto first_tile = static_cast<size_t>(row.first_tile);
    auto forget = [&] {
      for (size_t t = first_tile; t < first_tile + static_cast<size_t>(front_.tiles_x); ++t)
        for (size_t c = 0; c < ncomp; ++c) tiles_[t][c].coefficients = Plane{};
    };
    try {
      for (const PlanTileComponent& tc : plan->tile_components()) {
        TileComponentInput& in = tiles_.at(first_tile + static_cast<size_t>(tc.tile)).at(static_cast<size_t>(tc.component));
        if (in.rect.x0 != tc.rect.x0 || in.rect.y0 != tc.rect.y0 || in.rect.x1 != tc.rect.x1 || in.rect.y1 != tc.rect.y1)
          throw Error(ErrorCode::Internal, "encoder: " + which + "'s tile-component is not the canvas's");
        in.coefficients = tc.home;
      }
      if (batch_) {
        code_blocks_in_batch(*batch_, layout_, tiles_, params, bands, estimate, row_blocks_[q], row_blocks_[q + 1], coded, work,
                             batch_host);
        // The batch's copy of the blocks' bytes (CodedBlock::external) holds until its next
        // encode, the next row's: each block's go to its own bytes now.
        for (size_t i = row_blocks_[q]; i < row_blocks_[q + 1]; ++i) {
          CodedBlock& c = coded[i];
          if (!c.external) continue;
          const size_t n = c.passes.empty() ? 0 : c.passes.back().end;
          work.grow(heap_bytes(n), [&] { return "Tier-1's output for " + std::to_string(coded.size()) + " code-blocks"; });
          c.bytes.assign(c.external, c.external + n);
          c.external = nullptr;
        }
      } else {
        code_blocks(*coder_, layout_, tiles_, params, bands, estimate, threads, row_blocks_[q], row_blocks_[q + 1], coded, work);
      }
    } catch (...) {
      forget();
      throw;
    }
    forget();
    report_.tier1_ms += ms_since(t0);
  }
  std::vector<int> block_planes;
  for (const CodedBlock& c : coded) block_planes.push_back(std::max(c.bitplanes, c.magnitude_bitplanes));
  const int guard_bits = guard_bits_for(block_planes, layout_, bands, params.guard_bits);
  return write_file(coded, bands, guard_bits, estimate, threads, work, &sink);
}

uint64_t Encoder::write_file(const std::vector<CodedBlock>& coded, const BandSteps& bands, int guard_bits, bool estimate,
                             int threads, Reservation& work, const ByteSink* sink) {
  const CodingParams& params = settings_.coding;
  check_roi_planes(coded, layout_, params.roi_shift);
  const bool targets = !params.layer_bytes.empty() || !params.layer_psnr.empty();
  if (targets) {
    // Rate control's hull per block (at most a point a pass, and one), and its lists of
    // slopes (every hull point's, and a copy; vectors that may double).
    uint64_t passes = 0, hulls = 0;
    for (const CodedBlock& c : coded) {
      passes += c.passes.size();
      hulls += heap_bytes((c.passes.size() + 1) * sizeof(HullPoint));
    }
    work.grow(hulls + 3 * passes * sizeof(double), [&] { return "rate control's hulls of " + std::to_string(passes) + " coding passes"; });
  }

  const size_t nblocks = layout_.blocks.size();
  std::vector<BlockContribution> contributions(nblocks);
  std::vector<const BlockContribution*> tier2(nblocks);
  for (size_t i = 0; i < nblocks; ++i) tier2[i] = &contributions[i];

  // Rate control: the passes of each layer, the codestream's size asked of Tier-2.
  auto t0 = Clock::now();
  began(report_.rate_at, t0);
  const Assembler assembler(info_, params, layout_, tier2, main_header(info_, params, bands.steps, guard_bits), threads,
                            budget_.get());
  std::vector<RatedBlock> rated(nblocks);
  for (size_t i = 0; i < nblocks; ++i) {
    const LaidBlock& lb = layout_.blocks[i];
    contributions[i].coded = &coded[i];
    contributions[i].missing_bitplanes = missing_bitplanes(lb, coded[i], bands, guard_bits);
    rated[i].coded = &coded[i];
    rated[i].weight = bands.weights[lb.component][lb.band];
    rated[i].passes = &contributions[i].passes;
  }
  const ImageEnergy energy = image_energy(rated, peak_energy(info_, layout_));
  allocate_layers(rated, params, energy, [&] { return assembler.size(); });
  if (params.component_bytes > 0) {
    std::vector<size_t> component_of(coded.size());
    for (size_t i = 0; i < coded.size(); ++i) component_of[i] = layout_.blocks[i].component;
    limit_component_bytes(rated, component_of, params.component_bytes, [&] { return assembler.component_sizes(); });
  }
  report_.rate_ms = ms_since(t0);

  t0 = Clock::now();
  began(report_.tier2_at, t0);
  if (estimate && batch_ && !batch_->estimates_distortion())
    report_.layer_psnr.assign(static_cast<size_t>(params.layers), NAN);  // none estimated (HT's batch)
  else if (estimate) report_.layer_psnr = layer_psnr(rated, static_cast<size_t>(params.layers), energy);
  else report_.layer_psnr.assign(static_cast<size_t>(params.layers), INFINITY);
  Jp2Info j;
  if (settings_.format == FileFormat::Jp2) {
    j.width = info_.x1 - info_.x0;
    j.height = info_.y1 - info_.y0;
    for (const ComponentInfo& c : info_.components) j.components.push_back({c.precision, c.is_signed});
    j.colour = default_colour(info_.components.size());
    j.jph = settings_.coding.block_coding == BlockCoding::HighThroughput;  // a JP2 file holds Part 1 code-blocks only
    j.last_is_alpha = settings_.last_is_alpha;
    j.icc = settings_.icc;
    j.capture = settings_.capture;
    j.display = settings_.display;
    j.boxes = settings_.boxes;
  }
  if (sink) {
    // The file streamed: the JP2 boxes (which need the codestream's size) before it.
    uint64_t bytes = 0;
    if (settings_.format == FileFormat::Jp2) {
      const std::vector<uint8_t> boxes = jp2_boxes_before_codestream(j, assembler.size());
      (*sink)(boxes.data(), boxes.size());
      bytes += boxes.size();
    }
    bytes += assembler.run(*sink);
    report_.bytes = bytes;
    report_.tier2_ms = ms_since(t0);
    return bytes;
  }
  output_.reset();  // the last run's bytes go now
  if (settings_.max_bytes == 0) {
    // No limit to keep within: the file goes into the last one's memory (a frame encoder's
    // lanes swap theirs with the waited frames', so this is an earlier frame's).
    bytes_ = assembler.run(std::move(bytes_));
  } else {
    // Within a limit, the last file's memory goes first: it is not counted in the budget.
    bytes_ = std::vector<uint8_t>();
    bytes_ = assembler.run();
  }
  if (settings_.format == FileFormat::Jp2) {
    uint64_t boxes = j.icc.size();
    for (const Jp2Box& b : j.boxes) boxes += 16 + b.contents.size();
    work.grow(bytes_.size() + 4096 + boxes, "the JP2 file's copy of the codestream and its boxes");
    bytes_ = write_jp2(j, bytes_);
  }
  report_.tier2_ms = ms_since(t0);
  work.reset();
  output_.grow(bytes_.capacity(), "the file");  // within what `work` held
  report_.bytes = bytes_.size();
  return bytes_.size();
}

}  // namespace j2k::codec

