// SPDX-License-Identifier: BSD-2-Clause
// Rate control by post-compression rate-distortion optimisation (PCRD-opt, Taubman's EBCOT):
// each code-block may stop after any of its coding passes; the useful stopping points are the
// convex hull of its (bytes, distortion removed) points, along which the slope (distortion
// removed per byte) falls. One slope threshold per quality layer picks in every block the
// last hull point still steeper than it, which spends the bytes where they remove the most
// distortion; the thresholds are searched so that each layer meets its byte or PSNR target.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "codec/tier1/ebcot/block_encoder.hpp"

namespace j2k::codec {

struct HullPoint {
  int passes = 0;      // stop after this many passes
  double slope = 0;    // distortion removed per byte from the hull point before
};

// A stopping point: `passes` of coding `set` (-1, 0: nothing), its bytes and the image squared
// error it removes, and on a hull the slope from the point before.
struct StopPoint {
  int set = -1, passes = 0;
  double bytes = 0, removed = 0, slope = 0;
};

// The upper convex hull of `points` and the origin, along which the slope falls: the points
// worth stopping at, each with its slope (the origin left out). Points from several codings
// of a block (HT's planes) may be mixed; of points at the same bytes the one removing the
// most stays, and of equal ones the first given.
std::vector<StopPoint> upper_hull(std::vector<StopPoint> points);

// The block's hull; `weight` turns its distortion (in steps^2) into image units (squared
// synthesis norm times step^2). Passes that remove nothing are left out.
std::vector<HullPoint> convex_hull(const CodedBlock& block, double weight);

// The passes to include at threshold `lambda`: the last hull point steeper than it.
int passes_at(const std::vector<HullPoint>& hull, double lambda);

// Threshold searches by bisection over `ascending`, the thresholds worth trying (the hull
// slopes: the passes chosen change only there), for tests that change once along them.
// smallest_where: the smallest threshold where `ok` holds, `ok` holding for large thresholds
// (a byte budget met), the last one if it holds nowhere. largest_where: the largest where
// `ok` holds, `ok` holding for small thresholds (a PSNR reached), the first if nowhere.
double smallest_where(const std::vector<double>& ascending, const std::function<bool(double)>& ok);
double largest_where(const std::vector<double>& ascending, const std::function<bool(double)>& ok);

}  // namespace j2k::codec
