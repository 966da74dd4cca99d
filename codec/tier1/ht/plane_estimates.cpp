// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/ht/plane_estimates.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "codec/tier1/ht/quad_rules.hpp"

namespace j2k::codec::ht {
namespace {

// The model's VLC and MEL costs in bits (a CxtVLC codeword is 1 to 7 bits, most often 3 or
// 4, a U-VLC 1 to 3 in the usual range; MEL codes long runs of empty quads in a bit or less).
constexpr double kSignificantQuadBits = 5;
constexpr double kEmptyQuadBits = 0.4;

}  // namespace

std::vector<PlaneEstimate> plane_estimates(const BlockView& b) {
  const double unit = std::ldexp(1.0, b.fraction_bits);
  // The block's quads, one sample at a time: their indices and magnitudes in steps.
  uint32_t any = 0;
  for (int y = 0; y < b.height; ++y)
    for (int x = 0; x < b.width; ++x)
      any |= static_cast<uint32_t>(std::llabs(static_cast<long long>(b.data[y * b.stride + x]))) >> b.fraction_bits;
  const int planes = bit_length(any);
  std::vector<PlaneEstimate> out(static_cast<size_t>(planes));
  std::vector<double> bits(static_cast<size_t>(planes), 0);
  double scale[32];  // 2^p
  for (int p = 0; p < planes; ++p) scale[p] = static_cast<double>(uint64_t{1} << p);
  const double step = 1 / unit;
  for (int y0 = 0; y0 < b.height; y0 += 2)
    for (int x0 = 0; x0 < b.width; x0 += 2) {
      uint32_t q[4] = {};
      double a[4] = {};
      int n = 0;
      for (int j = 0; j < 4; ++j) {
        const int x = x0 + (j >> 1), y = y0 + (j & 1);
        if (x >= b.width || y >= b.height) continue;
        const auto m = static_cast<uint32_t>(std::llabs(static_cast<long long>(b.data[y * b.stride + x])));
        q[n] = m >> b.fraction_bits;
        a[n] = static_cast<double>(m) * step;
        ++n;
      }
      for (int p = 0; p < planes; ++p) {
        int significant = 0, big_u = 0;
        if (((q[0] | q[1] | q[2] | q[3]) >> p) == 0) {  // the quad and every plane above: empty
          for (int r = p; r < planes; ++r) bits[static_cast<size_t>(r)] += kEmptyQuadBits;
          break;
        }
        for (int j = 0; j < n; ++j) {
          const uint32_t mu = q[j] >> p;
          if (mu == 0) continue;
          ++significant;
          big_u = std::max(big_u, bit_length(2 * (mu - 1) + 1));
          // The decoder's reconstruction: the interval's middle, the index for the 5/3 at 0.
          const double r = b.reversible && p == 0 ? static_cast<double>(mu) : (static_cast<double>(mu) + 0.5) * scale[p];
          out[static_cast<size_t>(p)].removed += a[j] * a[j] - (a[j] - r) * (a[j] - r);
        }
        bits[static_cast<size_t>(p)] += significant > 0 ? significant * big_u + kSignificantQuadBits : kEmptyQuadBits;
      }
    }
  for (int p = 0; p < planes; ++p) out[static_cast<size_t>(p)].bytes = bits[static_cast<size_t>(p)] / 8 + 2;  // + Scup
  return out;
}

}  // namespace j2k::codec::ht
