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

bool has_plane(const HtBlock& b, int plane) {
  for (const CodedBlock& s : b.sets)
    if (s.bitplanes - 1 == plane) return true;
  return false;
}

class Chooser {
 public:
  Chooser(std::vector<HtBlock>& blocks, double target, bool by_bytes, const ImageEnergy& energy,
          const std::function<uint64_t()>& stream_size)
      : blocks_(blocks), target_(target), by_bytes_(by_bytes), energy_(energy), stream_size_(stream_size) {}

  // (1): the plane of each block at the model's threshold for the target. The model's bytes
  // are the cleanup passes' plus a few per block for its packet header, over the headers of a
  // codestream with no block at all.
  std::vector<int> model_planes() {
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

  // Every block's cleanup at plane `uniform` instead of the choice made, where that meets the
  // target and does better: the choice is optimal only at its hulls' points, which the bytes
  // its threshold leaves and the packet headers keep it from. Not where a block may not stop
  // after its cleanup pass (several layers).
  void prefer_uniform(int uniform) {
    std::vector<std::pair<int, int>> made;
    for (const HtBlock& b : blocks_) made.push_back({b.chosen, b.passes});
    const double made_remaining = remaining(), made_bytes = static_cast<double>(stream_size_());
    bool may = true;
    for (HtBlock& b : blocks_) {
      b.chosen = -1, b.passes = 0;
      for (size_t s = 0; s < b.sets.size(); ++s)
        if (plane_of(b, static_cast<int>(s)) == uniform) b.chosen = static_cast<int>(s), b.passes = 1, may = may && b.sets[s].passes[0].may_stop;
    }
    const double bytes = static_cast<double>(stream_size_());
    const bool better = may && (by_bytes_ ? bytes <= target_ && remaining() < made_remaining
                                  : psnr_of(remaining(), energy_) >= target_ && bytes < made_bytes);
    if (better) return;
    for (size_t i = 0; i < blocks_.size(); ++i) blocks_[i].chosen = made[i].first, blocks_[i].passes = made[i].second;
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

UniformGuess modelled_uniform_plane(const std::vector<HtBlock>& blocks, double target, bool by_bytes, const ImageEnergy& energy,
                                    double base_bytes, double share) {
  size_t planes = 0;
  for (const HtBlock& b : blocks) planes = std::max(planes, b.estimates.size());
  // The target's measure with every block at plane p: falls as p grows.
  std::vector<double> measure;
  for (size_t p = 0; p <= planes; ++p) {
    double bytes = base_bytes, removed = 0;
    for (const HtBlock& b : blocks)
      if (p < b.estimates.size()) bytes += b.estimates[p].bytes + 3, removed += b.estimates[p].removed * b.weight;
    measure.push_back(by_bytes ? std::log(base_bytes + (bytes - base_bytes) / share)
                               : psnr_of(std::max(0.0, energy.total - removed) / share, energy));
  }
  const double t = by_bytes ? std::log(std::max(target, 1.0)) : target;
  UniformGuess g;
  g.slope = by_bytes ? 0.7 : 6.0;  // without two planes to tell: about what photographs give
  if (planes == 0) return g;
  size_t p = 0;
  while (p + 1 < planes && measure[p + 1] > t) ++p;  // measure[p] > t >= measure[p + 1], or an end
  const double fall = measure[p] - measure[p + 1];
  if (std::isfinite(fall) && fall > 0) g.slope = fall;
  g.plane = std::clamp(static_cast<double>(p) + (measure[p] - t) / g.slope, 0.0, static_cast<double>(planes));
  return g;
}

namespace {

// uniform_scale's tolerance: close enough within a window on either side of the target, where
// the choice moves a few blocks a plane up or down, which costs less than another coding
// (measured: a window on the met side alone took a fourth coding for 0.003 dB).
constexpr double kBytesWindow = 0.003;  // of the bytes' log: about 0.003 of an octave
constexpr double kPsnrWindow = 0.01;    // dB
constexpr int kMaxCodings = 8;          // of the sample, in each of the two searches

// A search's answer: the best scale tried and its h, and the secant's slope at the end.
struct Found {
  double x = 0, v = 0, slope = 0;
};

// The secant search for h(x) = 0 (h falling as x grows; met where h <= 0 for bytes, h >= 0
// for PSNR) from x, whose h is `v` where known (NaN: not yet), with a slope for the first
// step; within [lowest, highest], until close or after kMaxCodings of h.
Found secant(double x, double v, double slope, double window, bool by_bytes, double lowest, double highest,
             const std::function<double(double)>& h) {
  auto met = [&](double u) { return by_bytes ? u <= 0 : u >= 0; };
  auto close = [&](double u) { return std::abs(u) <= window; };
  // The best point so far: close, else met, else nearer the target.
  auto better = [&](double u, double than) {
    if (close(u) != close(than)) return close(u);
    if (met(u) != met(than)) return met(u);
    return std::abs(u) < std::abs(than);
  };
  x = std::clamp(x, lowest, highest);
  int coded = 0;
  if (std::isnan(v)) v = h(x), ++coded;
  Found best{x, v, slope};
  // A bracket [a, b] once the target has been seen on both sides (h(a) > 0 > h(b)), and the
  // point before, for the secant's slope.
  double a = -INFINITY, va = 0, b = INFINITY, vb = 0, last = NAN, last_v = 0;
  for (; coded < kMaxCodings && !close(v); ++coded) {
    if (v > 0) a = x, va = v;
    else b = x, vb = v;
    if (std::isfinite(last) && last_v != v && (last_v - v) / (x - last) > 0) slope = (last_v - v) / (x - last);
    double next = x + v / slope;
    if (std::isfinite(a) && std::isfinite(b)) {
      // Inside the bracket, and not at its ends, so that it shrinks (the false position's
      // point where the secant leaves it).
      if (!(next > a && next < b)) next = a + va * (b - a) / (va - vb);
      next = std::clamp(next, a + (b - a) / 16, b - (b - a) / 16);
    }
    next = std::clamp(next, lowest, highest);
    if (next == x) break;  // at a bound already
    last = x, last_v = v;
    x = next;
    v = h(x);
    if (better(v, best.v)) best.x = x, best.v = v;
  }
  best.slope = slope;
  return best;
}

}  // namespace

double uniform_scale(const UniformGuess& guess, double target, bool by_bytes, double lowest, double highest,
                     const std::function<UniformResult(double)>& sample, const std::function<UniformResult(double)>& whole) {
  // h(x): how far the uniform choice at scale 2^x is from the target, falling as x grows.
  auto h = [&](const UniformResult& r) { return by_bytes ? std::log(std::max(r.bytes, 1.0) / target) : r.psnr - target; };
  const double window = by_bytes ? kBytesWindow : kPsnrWindow;
  // The sample's search, then the whole image at its answer.
  const Found on_sample = secant(guess.plane, NAN, guess.slope, window, by_bytes, lowest, highest, [&](double x) { return h(sample(x)); });
  if (!whole) return on_sample.x;  // the sample is the image
  const double at = h(whole(on_sample.x));
  if (std::abs(at) <= window) return on_sample.x;
  // The sample less its bias there, from that point on, to half the window: the bias moves a
  // little with the scale.
  const double bias = on_sample.v - at;
  const Found corrected = secant(on_sample.x, at, on_sample.slope, window / 2, by_bytes, lowest, highest,
                                 [&](double x) { return h(sample(x)) - bias; });
  return corrected.x;
}

void choose_ht_sets(std::vector<HtBlock>& blocks, double target, bool by_bytes, const ImageEnergy& energy,
                    const CodeHtSets& code, const std::function<uint64_t()>& stream_size, int uniform) {
  Chooser chooser(blocks, target, by_bytes, energy, stream_size);
  // (2): the model's plane and the one on either side, or the uniform one and the coarser.
  std::vector<int> planes = uniform >= 0 ? std::vector<int>(blocks.size(), uniform) : chooser.model_planes();
  std::vector<std::pair<size_t, int>> jobs;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const int top = static_cast<int>(blocks[i].estimates.size()) - 1;
    // The finer plane's cleanup is never the uniform choice's better (measured): that plane's
    // SigProp and MagRef, with the uniform one, give the steps between.
    const int finest = uniform >= 0 ? planes[i] : planes[i] - 1;
    for (int p = std::min(planes[i] + 1, top); p >= finest; --p)
      if (p >= 0 && !has_plane(blocks[i], p)) jobs.push_back({i, p});
  }
  for (int round = 0;; ++round) {
    std::vector<CodedBlock> sets = jobs.empty() ? std::vector<CodedBlock>() : code(jobs);
    for (size_t k = 0; k < jobs.size(); ++k)
      if (!sets[k].passes.empty()) blocks[jobs[k].first].sets.push_back(std::move(sets[k]));
    chooser.choose();
    if (round == kMaxExtraRounds) break;
    jobs = chooser.planes_beyond();
    if (jobs.empty()) break;
  }
  if (by_bytes) chooser.fill_budget();
  if (uniform >= 0) chooser.prefer_uniform(uniform);
}

}  // namespace j2k::codec
