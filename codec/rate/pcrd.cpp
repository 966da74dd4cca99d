// SPDX-License-Identifier: BSD-2-Clause
#include "codec/rate/pcrd.hpp"

#include <cmath>

namespace j2k::codec {

std::vector<HullPoint> convex_hull(const CodedBlock& block, double weight) {
  struct Point {
    int passes;
    double bytes, removed;
  };
  std::vector<Point> hull{{0, 0, 0}};
  double removed = 0;
  for (size_t k = 0; k < block.passes.size(); ++k) {
    removed += block.passes[k].distortion * weight;
    if (!block.passes[k].may_stop) continue;
    const Point p{static_cast<int>(k) + 1, static_cast<double>(block.passes[k].end), removed};
    if (p.removed <= hull.back().removed) continue;  // removes nothing more: never a stopping point
    // Drop the points that would not be convex with p: those at least as shallow as p from
    // their predecessor (a point at the same byte count is always replaced).
    while (hull.size() > 1) {
      const Point& a = hull[hull.size() - 2];
      const Point& b = hull.back();
      // slope(a, b) <= slope(a, p)  <=>  (b.removed - a.removed) * (p.bytes - a.bytes) <= ...
      if ((b.removed - a.removed) * (p.bytes - a.bytes) <= (p.removed - a.removed) * (b.bytes - a.bytes)) hull.pop_back();
      else break;
    }
    hull.push_back(p);
  }
  std::vector<HullPoint> out;
  for (size_t i = 1; i < hull.size(); ++i) {
    const double bytes = hull[i].bytes - hull[i - 1].bytes;
    const double gain = hull[i].removed - hull[i - 1].removed;
    out.push_back({hull[i].passes, bytes > 0 ? gain / bytes : INFINITY});
  }
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
