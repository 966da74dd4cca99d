// SPDX-License-Identifier: BSD-2-Clause
#include "codec/codestream/codestream_writer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <queue>
#include <string>

#include "codec/codestream/assembler.hpp"
#include "codec/codestream/markers.hpp"
#include "codec/codestream/tile_layout.hpp"
#include "codec/quant/quantiser.hpp"
#include "codec/rate/pcrd.hpp"
#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier2/packet_writer.hpp"
#include "common/error.hpp"
#include "common/parallel/worker_pool.hpp"

namespace j2k::codec {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

[[noreturn]] void bad(const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); }

// A band's decomposition level (1 = finest; LL at the coarsest) from its index.
int band_level(int levels, size_t k) { return k == 0 ? levels : levels - static_cast<int>((k - 1) / 3); }

// Everything known about one code-block once Tier-1 has coded it.
struct Block {
  CodedBlock coded;
  BlockContribution tier2;
  std::vector<HullPoint> hull;
  double weight = 1;  // image squared error per step^2 of this block's distortion
};

// One threshold leaves part of a byte budget unspent (whole hull steps fit or do not); the
// steepest next steps that still fit spend it, as long as the codestream stays within it.
// Each step is counted with a few header bytes to spare, then the real size is checked.
void fill_budget(std::vector<Block>& blocks, size_t layer, const Assembler& assembler, double budget) {
  auto next_step = [&](size_t i) -> const HullPoint* {
    const int now = blocks[i].tier2.passes[layer];
    for (const HullPoint& h : blocks[i].hull)
      if (h.passes > now) return &h;
    return nullptr;
  };
  auto bytes_to = [&](size_t i, int passes) {
    const CodedBlock& c = blocks[i].coded;
    return passes > 0 ? static_cast<double>(c.passes[static_cast<size_t>(passes - 1)].end) : 0.0;
  };
  auto set_passes = [&](size_t i, int n) {
    for (size_t m = layer; m < blocks[i].tier2.passes.size(); ++m) blocks[i].tier2.passes[m] = n;
  };
  std::priority_queue<std::pair<double, size_t>> steps;  // (slope, block)
  for (size_t i = 0; i < blocks.size(); ++i)
    if (const HullPoint* h = next_step(i)) steps.push({h->slope, i});
  double size = static_cast<double>(assembler.size());
  std::vector<std::pair<size_t, int>> taken;  // (block, passes before), to undo
  while (!steps.empty()) {
    const size_t i = steps.top().second;
    steps.pop();
    const int now = blocks[i].tier2.passes[layer];
    const HullPoint* h = next_step(i);
    const double grow = bytes_to(i, h->passes) - bytes_to(i, now) + (now == 0 ? 4 : 2);
    if (size + grow > budget) continue;
    size += grow;
    taken.push_back({i, now});
    set_passes(i, h->passes);
    if (const HullPoint* n = next_step(i)) steps.push({n->slope, i});
  }
  while (!taken.empty() && static_cast<double>(assembler.size()) > budget) {
    set_passes(taken.back().first, taken.back().second);
    taken.pop_back();
  }
}

}  // namespace

std::vector<uint8_t> write_codestream(const StreamInfo& info, const CodingParams& params,
                                      const std::vector<std::vector<TileComponentInput>>& tiles, CodestreamStats* stats) {
  const size_t ncomp = info.components.size();
  check_params(params, ncomp);
  for (const auto& t : tiles)
    if (t.size() != ncomp) throw Error(ErrorCode::Internal, "codestream: a tile without every component");
  const TileLayout layout = lay_out(info, params, tiles);

  // Each component's band steps (QCD/QCC) and the distortion weight of a step in each band.
  std::vector<std::vector<BandStep>> steps(ncomp);
  std::vector<std::vector<double>> weights(ncomp);
  for (size_t c = 0; c < ncomp; ++c) {
    const int levels = component_style(params, c).levels;
    for (int k = 0; k < 3 * levels + 1; ++k) {
      const j2k_band_type type = k == 0 ? J2K_BAND_LL : static_cast<j2k_band_type>(1 + (k - 1) % 3);
      const int level = band_level(levels, static_cast<size_t>(k));
      const int range = info.components[c].precision + band_gain_log2(type);
      const double norm = synthesis_norm(params.reversible, level, type);
      const BandStep s = params.reversible ? reversible_step(range) : expounded_step(params.base_step / norm, range);
      const double mct = params.mct && c < 3 ? mct_norm(params.reversible, static_cast<int>(c)) : 1.0;
      steps[c].push_back(s);
      weights[c].push_back(norm * norm * s.delta * s.delta * mct * mct);
    }
  }

  // Rate control and the PSNR report need each pass's distortion; a lossless codestream
  // (the 5/3, every pass) has none left.
  const bool targets = !params.layer_bytes.empty() || !params.layer_psnr.empty();
  const bool estimate = targets || !params.reversible;

  // Tier-1: every code-block, the blocks shared out among the CPU's threads; the 9/7's
  // quantised first into the worker's scratch.
  auto t0 = Clock::now();
  std::vector<Block> blocks(layout.blocks.size());
  const int threads = params.threads > 0 ? params.threads : available_cores();
  std::vector<std::vector<int32_t>> scratch(static_cast<size_t>(std::max(threads, 1)), std::vector<int32_t>(4096));
  run_on_workers(static_cast<ptrdiff_t>(blocks.size()), threads, [&](ptrdiff_t i, int worker) {
    const LaidBlock& lb = layout.blocks[static_cast<size_t>(i)];
    const TileComponentInput& tc = tiles[lb.tile][lb.component];
    const TileComponentInput::Band& band = tc.bands[lb.band];
    const ptrdiff_t offset = (band.row + lb.y0 - band.rect.y0) * tc.stride + (band.col + lb.x0 - band.rect.x0);
    BlockView v;
    v.width = static_cast<int>(lb.x1 - lb.x0);
    v.height = static_cast<int>(lb.y1 - lb.y0);
    v.band = band.type;
    v.modes = params.modes;
    v.reversible = params.reversible;
    v.estimate_distortion = estimate;
    if (params.reversible) {
      v.data = static_cast<const int32_t*>(tc.data) + offset;
      v.stride = tc.stride;
    } else {
      int32_t* q = scratch[static_cast<size_t>(worker)].data();
      if (!quantise_block(static_cast<const float*>(tc.data) + offset, tc.stride, v.width, v.height,
                          steps[lb.component][lb.band].delta, q))
        bad("a 9/7 coefficient is too large for its quantisation step; use a larger step");
      v.data = q;
      v.stride = v.width;
      v.fraction_bits = kFractionBits;
    }
    Block& b = blocks[static_cast<size_t>(i)];
    b.coded = encode_block(v);
    b.weight = weights[lb.component][lb.band];
  });
  if (stats) stats->tier1_ms = ms_since(t0);

  // Mb = G + epsilon_b - 1 bit planes must hold every block's (E.1.1.1, E-2): with the
  // default, more guard bits where the coefficients need them.
  int needed = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const LaidBlock& lb = layout.blocks[i];
    needed = std::max(needed, blocks[i].coded.bitplanes - steps[lb.component][lb.band].exponent + 1);
  }
  int guard_bits = params.guard_bits >= 0 ? params.guard_bits : std::max(2, needed);
  if (needed > guard_bits)
    bad("the coefficients need " + std::to_string(needed) + " guard bits; " + std::to_string(guard_bits) + " were asked for");
  if (guard_bits > 7) bad("the coefficients need " + std::to_string(guard_bits) + " guard bits; a codestream holds at most 7");
  for (size_t i = 0; i < blocks.size(); ++i) {
    const LaidBlock& lb = layout.blocks[i];
    blocks[i].tier2.coded = &blocks[i].coded;
    blocks[i].tier2.missing_bitplanes =
        static_cast<uint32_t>(guard_bits + steps[lb.component][lb.band].exponent - 1 - blocks[i].coded.bitplanes);
  }

  // The main header.
  std::vector<uint8_t> header;
  put16(header, 0xFF4F);  // SOC
  write_siz(info, header);
  // COD and QCD say component 0's; COC and QCC each other component's that differ (A.6.2,
  // A.6.5: a COC or QCC overrides the main header's for its component).
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
  if (!params.comment.empty()) write_com(params.comment, header);

  // Rate control: the passes of each layer.
  t0 = Clock::now();
  const size_t nlayers = static_cast<size_t>(params.layers);
  for (Block& b : blocks) b.tier2.passes.assign(nlayers, static_cast<int>(b.coded.passes.size()));
  double total_energy = 0, peak_energy = 0;
  for (size_t i = 0; i < blocks.size(); ++i) total_energy += blocks[i].coded.energy * blocks[i].weight;
  for (size_t c = 0; c < ncomp; ++c) {
    uint64_t samples = 0;
    for (const LaidTile& t : layout.tiles) {
      const ResolutionGrid& g = t.components[c].back().grid;
      samples += static_cast<uint64_t>((g.x1 - g.x0) * (g.y1 - g.y0));
    }
    const double peak = std::ldexp(1.0, info.components[c].precision) - 1;
    peak_energy += static_cast<double>(samples) * peak * peak;
  }
  auto psnr_of = [&](double remaining) { return remaining > 0 ? 10 * std::log10(peak_energy / remaining) : INFINITY; };
  // What remains of the image's squared error with the passes of layer l.
  auto remaining_at = [&](size_t l) {
    double removed = 0;
    for (const Block& b : blocks)
      for (int k = 0; k < b.tier2.passes[l]; ++k) removed += b.coded.passes[static_cast<size_t>(k)].distortion * b.weight;
    return std::max(0.0, total_energy - removed);
  };
  std::vector<const BlockContribution*> contributions;
  for (const Block& b : blocks) contributions.push_back(&b.tier2);
  Assembler assembler(info, params, layout, contributions, header, threads);
  if (targets) {
    // The thresholds worth trying: every hull slope, and one below them all (every pass).
    std::vector<double> slopes;
    for (Block& b : blocks) {
      b.hull = convex_hull(b.coded, b.weight);
      for (const HullPoint& h : b.hull)
        if (std::isfinite(h.slope)) slopes.push_back(h.slope);
    }
    std::sort(slopes.begin(), slopes.end());
    slopes.erase(std::unique(slopes.begin(), slopes.end()), slopes.end());
    slopes.insert(slopes.begin(), slopes.empty() ? 1.0 : slopes.front() / 4);
    double previous = slopes.back() * 2;  // above every slope: no pass but those that cost nothing
    for (size_t l = 0; l < nlayers; ++l) {
      const double target = params.layer_bytes.empty() ? params.layer_psnr[l] : params.layer_bytes[l];
      if (target == 0) break;  // the last layer lossless: every pass, as set above
      // Layer l and those after it at `lambda` (the later ones then add nothing).
      auto set = [&](double lambda) {
        for (Block& b : blocks) {
          const int n = std::max(l > 0 ? b.tier2.passes[l - 1] : 0, passes_at(b.hull, lambda));
          for (size_t m = l; m < nlayers; ++m) b.tier2.passes[m] = n;
        }
      };
      // A layer adds to the one before: its threshold is not above that one's.
      std::vector<double> candidates(slopes.begin(), std::lower_bound(slopes.begin(), slopes.end(), previous));
      candidates.push_back(previous);
      double lambda;
      if (!params.layer_bytes.empty()) {
        lambda = smallest_where(candidates, [&](double t) {
          set(t);
          return static_cast<double>(assembler.size()) <= target;
        });
      } else {
        lambda = largest_where(candidates, [&](double t) {
          set(t);
          return psnr_of(remaining_at(l)) >= target;
        });
      }
      set(lambda);
      if (!params.layer_bytes.empty()) fill_budget(blocks, l, assembler, target);
      previous = lambda;
    }
    // The searches gave later layers their passes too; a lossless last layer has them all.
    const std::vector<double>& t = params.layer_bytes.empty() ? params.layer_psnr : params.layer_bytes;
    if (t.back() == 0)
      for (Block& b : blocks) b.tier2.passes.back() = static_cast<int>(b.coded.passes.size());
  }
  if (stats) stats->rate_ms = ms_since(t0);

  t0 = Clock::now();
  std::vector<uint8_t> out = assembler.run();
  if (stats) {
    stats->tier2_ms = ms_since(t0);
    stats->layer_psnr.clear();
    for (size_t l = 0; l < nlayers; ++l) stats->layer_psnr.push_back(estimate ? psnr_of(remaining_at(l)) : INFINITY);
  }
  return out;
}

}  // namespace j2k::codec
