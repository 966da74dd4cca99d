// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/ht/plane_estimates.hpp"

namespace j2k::codec::ht {

std::vector<PlaneEstimate> plane_estimates(const BlockView& b) {
  PlaneEstimate out[kMaxEstimatedPlanes];
  const int planes = estimate_planes(b.data, b.stride, b.width, b.height, b.fraction_bits, b.reversible, out);
  return std::vector<PlaneEstimate>(out, out + planes);
}

}  // namespace j2k::codec::ht
