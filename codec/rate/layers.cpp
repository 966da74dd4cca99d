// SPDX-License-Identifier: BSD-2-Clause
#include "codec/rate/layers.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <utility>

namespace j2k::codec {
namespace {

double psnr_of(double remaining, const ImageEnergy& e) {
  return remaining > 0 ? 10 * std::log10(e.peak / remaining) : INFINITY;
}

// What remains of the image's squared error with the passes of layer l.
double remaining_at(const std::vector<RatedBlock>& blocks, size_t l, const ImageEnergy& e) {
  double removed = 0;
  for (const RatedBlock& b : blocks)
    for (int k = 0; k < (*b.passes)[l]; ++k) removed += b.coded->passes[static_cast<size_t>(k)].distortion * b.weight;
  return std::max(0.0, e.total - removed);
}

// One threshold leaves part of a byte budget unspent (whole hull steps fit or do not); the
// steepest next steps that still fit spend it, as long as the codestream stays within it.
// Each step is counted with a few header bytes to spare, then the real size is checked.
void fill_budget(std::vector<RatedBlock>& blocks, size_t layer, const std::function<uint64_t()>& stream_size,
                 double budget) {
  auto next_step = [&](size_t i) -> const HullPoint* {
    const int now = (*blocks[i].passes)[layer];
    for (const HullPoint& h : blocks[i].hull)
      if (h.passes > now) return &h;
    return nullptr;
  };
  auto bytes_to = [&](size_t i, int passes) {
    const CodedBlock& c = *blocks[i].coded;
    return passes > 0 ? static_cast<double>(c.passes[static_cast<size_t>(passes - 1)].end) : 0.0;
  };
  auto set_passes = [&](size_t i, int n) {
    std::vector<int>& p = *blocks[i].passes;
    for (size_t m = layer; m < p.size(); ++m) p[m] = n;
  };
  std::priority_queue<std::pair<double, size_t>> steps;  // (slope, block)
  for (size_t i = 0; i < blocks.size(); ++i)
    if (const HullPoint* h = next_step(i)) steps.push({h->slope, i});
  double size = static_cast<double>(stream_size());
  std::vector<std::pair<size_t, int>> taken;  // (block, passes before), to undo
  while (!steps.empty()) {
    const size_t i = steps.top().second;
    steps.pop();
    const int now = (*blocks[i].passes)[layer];
    const HullPoint* h = next_step(i);
    const double grow = bytes_to(i, h->passes) - bytes_to(i, now) + (now == 0 ? 4 : 2);
    if (size + grow > budget) continue;
    size += grow;
    taken.push_back({i, now});
    set_passes(i, h->passes);
    if (const HullPoint* n = next_step(i)) steps.push({n->slope, i});
  }
  while (!taken.empty() && static_cast<double>(stream_size()) > budget) {
    set_passes(taken.back().first, taken.back().second);
    taken.pop_back();
  }
}

}  // namespace

ImageEnergy image_energy(const std::vector<RatedBlock>& blocks, double peak) {
  ImageEnergy e;
  e.peak = peak;
  for (const RatedBlock& b : blocks) e.total += b.coded->energy * b.weight;
  return e;
}

void allocate_layers(std::vector<RatedBlock>& blocks, const CodingParams& params, const ImageEnergy& energy,
                     const std::function<uint64_t()>& stream_size) {
  const size_t nlayers = static_cast<size_t>(params.layers);
  for (RatedBlock& b : blocks) b.passes->assign(nlayers, static_cast<int>(b.coded->passes.size()));
  const bool by_bytes = !params.layer_bytes.empty();
  const std::vector<double>& targets = by_bytes ? params.layer_bytes : params.layer_psnr;
  if (targets.empty()) return;  // lossless: every pass in the one layer
  // The thresholds worth trying: every hull slope, and one below them all (every pass).
  std::vector<double> slopes;
  for (RatedBlock& b : blocks) {
    b.hull = convex_hull(*b.coded, b.weight);
    for (const HullPoint& h : b.hull)
      if (std::isfinite(h.slope)) slopes.push_back(h.slope);
  }
  std::sort(slopes.begin(), slopes.end());
  slopes.erase(std::unique(slopes.begin(), slopes.end()), slopes.end());
  slopes.insert(slopes.begin(), slopes.empty() ? 1.0 : slopes.front() / 4);
  double previous = slopes.back() * 2;  // above every slope: no pass but those that cost nothing
  for (size_t l = 0; l < nlayers; ++l) {
    const double target = targets[l];
    if (target == 0) break;  // the last layer lossless: every pass, as set above
    // Layer l and those after it at `lambda` (the later ones then add nothing).
    auto set = [&](double lambda) {
      for (RatedBlock& b : blocks) {
        std::vector<int>& p = *b.passes;
        const int n = std::max(l > 0 ? p[l - 1] : 0, passes_at(b.hull, lambda));
        for (size_t m = l; m < nlayers; ++m) p[m] = n;
      }
    };
    // A layer adds to the one before: its threshold is not above that one's.
    std::vector<double> candidates(slopes.begin(), std::lower_bound(slopes.begin(), slopes.end(), previous));
    candidates.push_back(previous);
    double lambda;
    if (by_bytes) {
      lambda = smallest_where(candidates, [&](double t) {
        set(t);
        return static_cast<double>(stream_size()) <= target;
      });
    } else {
      lambda = largest_where(candidates, [&](double t) {
        set(t);
        return psnr_of(remaining_at(blocks, l, energy), energy) >= target;
      });
    }
    set(lambda);
    if (by_bytes) fill_budget(blocks, l, stream_size, target);
    previous = lambda;
  }
  // The searches gave later layers their passes too; a lossless last layer has them all.
  if (targets.back() == 0)
    for (RatedBlock& b : blocks) b.passes->back() = static_cast<int>(b.coded->passes.size());
}

void limit_component_bytes(std::vector<RatedBlock>& blocks, const std::vector<size_t>& component_of, double limit,
                           const std::function<std::vector<uint64_t>()>& component_sizes) {
  const std::vector<uint64_t> sizes = component_sizes();
  for (size_t c = 0; c < sizes.size(); ++c) {
    if (static_cast<double>(sizes[c]) <= limit) continue;
    std::vector<size_t> mine;
    std::vector<std::vector<int>> before;  // the passes per layer the budget gave them
    std::vector<double> slopes;
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (component_of[i] != c) continue;
      RatedBlock& b = blocks[i];
      if (b.hull.empty()) b.hull = convex_hull(*b.coded, b.weight);
      mine.push_back(i);
      before.push_back(*b.passes);
      for (const HullPoint& h : b.hull)
        if (std::isfinite(h.slope)) slopes.push_back(h.slope);
    }
    std::sort(slopes.begin(), slopes.end());
    slopes.erase(std::unique(slopes.begin(), slopes.end()), slopes.end());
    slopes.push_back(slopes.empty() ? 1.0 : slopes.back() * 2);  // above them all: no pass but free ones
    auto set = [&](double lambda) {
      for (size_t k = 0; k < mine.size(); ++k) {
        RatedBlock& b = blocks[mine[k]];
        const int n = passes_at(b.hull, lambda);
        for (size_t l = 0; l < b.passes->size(); ++l) (*b.passes)[l] = std::min(before[k][l], n);
      }
    };
    set(smallest_where(slopes, [&](double t) {
      set(t);
      return static_cast<double>(component_sizes()[c]) <= limit;
    }));
  }
}

std::vector<double> layer_psnr(const std::vector<RatedBlock>& blocks, size_t layers, const ImageEnergy& energy) {
  std::vector<double> out;
  for (size_t l = 0; l < layers; ++l) out.push_back(psnr_of(remaining_at(blocks, l, energy), energy));
  return out;
}

}  // namespace j2k::codec
