// SPDX-License-Identifier: BSD-2-Clause
// Which resolution each decomposition level transforms (Annex B, B-14).
#include <string>

#include "common/error.hpp"
#include "tiling/canvas.hpp"

namespace j2k {

int dwt_levels(const Rect& tc, int levels, DwtLevel* out) {
  if (levels < 0 || levels > kMaxLevels)
    throw Error(ErrorCode::InvalidArgument,
                "levels must be 0.." + std::to_string(kMaxLevels) + ", got " + std::to_string(levels));
  for (int nb = 1; nb <= levels; ++nb) {
    // Level nb transforms resolution r = levels - nb + 1, i.e. tc scaled down by 2^(nb-1).
    const Rect r = resolution_rect(tc, levels, levels - nb + 1);
    out[nb - 1] = DwtLevel{r.width(), r.height(), static_cast<int>(r.x0 & 1), static_cast<int>(r.y0 & 1)};
  }
  return levels;
}

std::vector<DwtLevel> dwt_levels(const Rect& tc, int levels) {
  std::vector<DwtLevel> out(static_cast<size_t>(levels < 0 || levels > kMaxLevels ? 0 : levels));
  dwt_levels(tc, levels, out.data());
  return out;
}

}  // namespace j2k
