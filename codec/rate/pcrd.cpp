// SPDX-License-Identifier: BSD-2-Clause
#include "codec/rate/pcrd.hpp"

#include <algorithm>
#include <cmath>

namespace j2k::codec {

std::vector<StopPoint> upper_hull(std::vector<StopPoint> points) {
  std::stable_sort(points.begin(), points.end(), [](const StopPoint& a, const StopPoint& b) {
    return a.bytes != b.bytes ? a.bytes < b.bytes : a.removed > b.removed;
  });
  std::vector<StopPoint> hull{StopPoint{}};
  for (const StopPoint& p : points) {
    if (p.removed <= hull.back().removed) continue;  // costs more and removes no more
    // Drop the points that would not be convex with p: those at least as shallow as p from
    // their predecessor. slope(a, b) <= slope(a, p) <=> (b.removed - a.removed) * (p.bytes -
    // a.bytes) <= (p.removed - a.removed) * (b.bytes - a.bytes).
    while (hull.size() > 1) {
      const StopPoint& a = hull[hull.size() - 2];
      const StopPoint& b = hull.back();
      if ((b.removed - a.removed) * (p.bytes - a.bytes) <= (p.removed - a.removed) * (b.bytes - a.bytes)) hull.pop_back();
      else break;
    }
    hull.push_back(p);
  }
  for (size_t i = 1; i < hull.size(); ++i) {
    const double bytes = hull[i].bytes - hull[i - 1].bytes;
    hull[i].slope = bytes > 0 ? (hull[i].removed - hull[i - 1].removed) / bytes : INFINITY;
  }
  hull.erase(hull.begin());
  return hull;
}

std::vector<HullPoint> convex_hull(const CodedBlock& block, double weight) {
  std::vector<StopPoint> points;
  double removed = 0;
  for (size_t k = 0; k < block.passes.size(); ++k) {
    removed += block.passes[k].distortion * weight;
    if (block.passes[k].may_stop) points.push_back({0, static_cast<int>(k) + 1, static_cast<double>(block.passes[k].end), removed, 0});
  }
  std::vector<HullPoint> out;
  for (const StopPoint& p : upper_hull(std::move(points))) out.push_back({p.passes, p.slope});
  return out;
}

int passes_at(const std::vector<HullPoint>& hull, double lambda) {
  int passes = 0;
  for (const HullPoint& h : hull) {
    if (h.slope <= lambda) break;
    passes = h.passes;
  }
  return passes;
}

double smallest_where(const std::vector<double>& ascending, const std::function<bool(double)>& ok) {
  // Invariant: ok fails below lo and holds at hi (the last threshold stands in if it holds nowhere).
  size_t lo = 0, hi = ascending.size() - 1;
  if (!ok(ascending[hi])) return ascending[hi];
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (ok(ascending[mid])) hi = mid;
    else lo = mid + 1;
  }
  return ascending[hi];
}

double largest_where(const std::vector<double>& ascending, const std::function<bool(double)>& ok) {
  // Invariant: ok holds at lo (the first stands in if it holds nowhere) and fails above hi.
  size_t lo = 0, hi = ascending.size() - 1;
  if (!ok(ascending[lo])) return ascending[lo];
  while (lo < hi) {
    const size_t mid = hi - (hi - lo) / 2;
    if (ok(ascending[mid])) lo = mid;
    else hi = mid - 1;
  }
  return ascending[lo];
}

}  // namespace j2k::codec
