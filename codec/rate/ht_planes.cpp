// SPDX-License-Identifier: BSD-2-Clause
#include "codec/rate/ht_planes.hpp"

#include <algorithm>
#include <cmath>
#include <queue>

#include "codec/rate/pcrd.hpp"

namespace j2k::codec {
namespace {

using Point = StopPoint;

// The block's stopping points over every coded set.
std::vector<Point> set_hull(const HtBlock& b) {
  std::vector<Point> points;
  for (size_t s = 0; s < b.sets.size(); ++s) {
    double removed = 0;
    for (size_t k = 0; k < b.sets[s].passes.size(); ++k) {
      removed += b.sets[s].passes[k].distortion * b.weight;
      if (!b.sets[s].passes[k].may_stop) continue;
      points.push_back({static_cast<int>(s), static_cast<int>(k) + 1, static_cast<double>(b.sets[s].passes[k].end), removed, 0});
    }
  }
  return upper_hull(std::move(points));
}

// The model's points: the cleanup pass at each plane (`set` holds the plane).
std::vector<Point> model_hull(const HtBlock& b) {
  std::vector<Point> points;
  for (size_t p = 0; p < b.estimates.size(); ++p)
    points.push_back({static_cast<int>(p), 1, b.estimates[p].bytes, b.estimates[p].removed * b.weight, 0});
  return upper_hull(std::move(points));
}

// The last point of `hull` steeper than `lambda` (nullptr: none).
const Point* point_at(const std::vector<Point>& hull, double lambda) {
  const Point* at = nullptr;
  for (const Point& h : hull) {
    if (h.slope <= lambda) break;
    at = &h;
  }
  return at;
}

// Every finite slope of the hulls, ascending, with one below them all (every point) in front.
std::vector<double> thresholds(const std::vector<std::vector<Point>>& hulls) {
  std::vector<double> slopes;
  for (const auto& hull : hulls)
    for (const Point& h : hull)
      if (std::isfinite(h.slope)) slopes.push_back(h.slope);
  std::sort(slopes.begin(), slopes.end());
  slopes.erase(std::unique(slopes.begin(), slopes.end()), slopes.end());
  slopes.insert(slopes.begin(), slopes.empty() ? 1.0 : slopes.front() / 4);
  slopes.push_back(slopes.back() * 2);  // above every slope: nothing but what costs nothing
  return slopes;
}

double psnr_of(double remaining, const ImageEnergy& e) {
  return remaining > 0 ? 10 * std::log10(e.peak / remaining) : INFINITY;
}

int plane_of(const HtBlock& b, int set) { return b.sets[static_cast<size_t>(set)].bitplanes - 1; }

class Chooser {
 public:
  Chooser(std::vector<HtBlock>& blocks, double target, bool by_bytes, const ImageEnergy& energy,
          const std::function<uint64_t()>& stream_size)
      : blocks_(blocks), target_(target), by_bytes_(by_bytes), energy_(energy), stream_size_(stream_size) {}

  // (1): the plane of each block at the model's threshold for the target. The model's bytes
  // are the cleanup passes' plus a few per block for its packet header, over the headers of a
  // codestream with no block at all.
  std::vector<int> model_planes(double* cost = nullptr) {
    for (HtBlock& b : blocks_) b.chosen = -1;
    const double base = static_cast<double>(stream_size_());
    std::vector<std::vector<Point>> hulls;
    for (const HtBlock& b : blocks_) hulls.push_back(model_hull(b));
    double bytes = 0, removed = 0;
    auto at = [&](double lambda) {
      bytes = base, removed = 0;
      for (const auto& hull : hulls)
        if (const Point* p = point_at(hull, lambda)) bytes += p->bytes + 3, removed += p->removed;
    };
    auto meets = [&](double lambda) {
      at(lambda);
      return by_bytes_ ? bytes <= target_ : psnr_of(energy_.total - removed, energy_) >= target_;
    };
    const std::vector<double> slopes = thresholds(hulls);
    const double lambda = by_bytes_ ? smallest_where(slopes, meets) : largest_where(slopes, meets);
    if (cost) {
      at(lambda);
      *cost = by_bytes_ ? std::max(0.0, energy_.total - removed) : bytes;
    }
    std::vector<int> planes;
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const Point* p = point_at(hulls[i], lambda);
      // A block left out by the model still gets its coarsest plane coded: the model may err.
      planes.push_back(p ? p->set : static_cast<int>(blocks_[i].estimates.size()) - 1);
    }
    return planes;
  }

  // (3): every block's set and stop at the threshold that meets the target exactly.
  double choose() {
    hulls_.clear();
    for (const HtBlock& b : blocks_) hulls_.push_back(set_hull(b));
    const std::vector<double> slopes = thresholds(hulls_);
    auto fits = [&](double t) {
      set(t);
      return static_cast<double>(stream_size_()) <= target_;
    };
    auto reaches = [&](double t) {
      set(t);
      return psnr_of(remaining(), energy_) >= target_;
    };
    const double lambda = by_bytes_ ? smallest_where(slopes, fits) : largest_where(slopes, reaches);
    set(lambda);
    return lambda;
  }

  // (4): the planes beyond a choice at the edge of what is coded.
  std::vector<std::pair<size_t, int>> planes_beyond() const {
    std::vector<std::pair<size_t, int>> jobs;
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const HtBlock& b = blocks_[i];
      if (b.sets.empty()) continue;
      int finest = 64, coarsest = -1;
      for (const CodedBlock& s : b.sets) finest = std::min(finest, s.bitplanes - 1), coarsest = std::max(coarsest, s.bitplanes - 1);
      const int planes = static_cast<int>(b.estimates.size());
      const int plane = b.chosen >= 0 ? plane_of(b, b.chosen) : -1;
      const bool whole = b.chosen >= 0 && static_cast<size_t>(b.passes) == b.sets[static_cast<size_t>(b.chosen)].passes.size();
      if (plane == finest && whole && finest > 0) jobs.push_back({i, finest - 1});
      if ((b.chosen < 0 || (plane == coarsest && b.passes == 1)) && coarsest < planes - 1) jobs.push_back({i, coarsest + 1});
    }
    return jobs;
  }

  // (5): the bytes one threshold leaves unspent, filled with the steepest next hull steps that
  // fit (each counted with a few header bytes to spare), as long as the real size stays within.
  void fill_budget() {
    // Each block's place on its hull: the point chosen (-1: none), as set() left it.
    std::vector<int> at(blocks_.size(), -1);
    for (size_t i = 0; i < blocks_.size(); ++i)
      for (size_t k = 0; k < hulls_[i].size(); ++k)
        if (hulls_[i][k].set == blocks_[i].chosen && hulls_[i][k].passes == blocks_[i].passes) at[i] = static_cast<int>(k);
    auto next = [&](size_t i) -> const Point* {
      const size_t k = static_cast<size_t>(at[i] + 1);
      return k < hulls_[i].size() ? &hulls_[i][k] : nullptr;
    };
    std::priority_queue<std::pair<double, size_t>> steps;  // (slope, block)
    for (size_t i = 0; i < blocks_.size(); ++i)
      if (const Point* h = next(i)) steps.push({h->slope, i});
    double size = static_cast<double>(stream_size_());
    std::vector<std::pair<size_t, int>> taken;  // (block, hull place before), to undo
    auto place = [&](size_t i, int k) {
      at[i] = k;
      blocks_[i].chosen = k >= 0 ? hulls_[i][static_cast<size_t>(k)].set : -1;
      blocks_[i].passes = k >= 0 ? hulls_[i][static_cast<size_t>(k)].passes : 0;
    };
    while (!steps.empty()) {
      const size_t i = steps.top().second;
      steps.pop();
      const Point* h = next(i);
      const double grow = h->bytes - bytes_of(blocks_[i]) + (blocks_[i].chosen < 0 ? 4 : 2);
      if (size + grow > target_) continue;
      size += grow;
      taken.push_back({i, at[i]});
      place(i, at[i] + 1);
      if (const Point* n = next(i)) steps.push({n->slope, i});
    }
    while (!taken.empty() && static_cast<double>(stream_size_()) > target_) {
      place(taken.back().first, taken.back().second);
      taken.pop_back();
    }
  }

 private:
  void set(double lambda) {
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const Point* p = point_at(hulls_[i], lambda);
      blocks_[i].chosen = p ? p->set : -1;
      blocks_[i].passes = p ? p->passes : 0;
    }
  }
  double remaining() const {
    double removed = 0;
    for (const HtBlock& b : blocks_)
      if (b.chosen >= 0)
        for (int k = 0; k < b.passes; ++k) removed += b.sets[static_cast<size_t>(b.chosen)].passes[static_cast<size_t>(k)].distortion * b.weight;
    return std::max(0.0, energy_.total - removed);
  }
  static double bytes_of(const HtBlock& b) {
    return b.chosen >= 0 ? static_cast<double>(b.sets[static_cast<size_t>(b.chosen)].passes[static_cast<size_t>(b.passes - 1)].end) : 0.0;
  }

  std::vector<HtBlock>& blocks_;
  double target_;
  bool by_bytes_;
  const ImageEnergy& energy_;
  const std::function<uint64_t()>& stream_size_;
  std::vector<std::vector<Point>> hulls_;
};

// Rounds of (4) after the first choice: each codes one more plane where a choice sits at the
// edge; a model that is far off needs a few.
constexpr int kMaxExtraRounds = 4;

}  // namespace

double modelled_cost(std::vector<HtBlock>& blocks, double target, bool by_bytes, const ImageEnergy& energy,
                     const std::function<uint64_t()>& stream_size) {
  double cost = 0;
  Chooser(blocks, target, by_bytes, energy, stream_size).model_planes(&cost);
  return cost;
}

void choose_ht_sets(std::vector<HtBlock>& blocks, double target, bool by_bytes, const ImageEnergy& energy,
                    const CodeHtSets& code, const std::function<uint64_t()>& stream_size) {
  Chooser chooser(blocks, target, by_bytes, energy, stream_size);
  // (2): the model's plane and the one on either side.
  const std::vector<int> planes = chooser.model_planes();
  std::vector<std::pair<size_t, int>> jobs;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const int top = static_cast<int>(blocks[i].estimates.size()) - 1;
    for (int p = planes[i] + 1; p >= planes[i] - 1; --p)
      if (p >= 0 && p <= top) jobs.push_back({i, p});
  }
  for (int round = 0;; ++round) {
    std::vector<CodedBlock> sets = code(jobs);
    for (size_t k = 0; k < jobs.size(); ++k)
      if (!sets[k].passes.empty()) blocks[jobs[k].first].sets.push_back(std::move(sets[k]));
    chooser.choose();
    if (round == kMaxExtraRounds) break;
    jobs = chooser.planes_beyond();
    if (jobs.empty()) break;
  }
  if (by_bytes) chooser.fill_budget();
}

}  // namespace j2k::codec
