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
