// Which resolution each decomposition level transforms (Annex B, B-14).
#include "tiling/canvas.hpp"
#include "transform/dwt.hpp"
#include "common/error.hpp"

namespace j2k {

std::vector<DwtLevel> dwt_levels(const Rect& tc, int levels) {
  if (levels < 0 || levels > kMaxLevels)
    throw Error(ErrorCode::InvalidArgument,
                "levels must be 0.." + std::to_string(kMaxLevels) + ", got " + std::to_string(levels));
  std::vector<DwtLevel> out;
  out.reserve(static_cast<size_t>(levels));
  for (int nb = 1; nb <= levels; ++nb) {
    // Level nb transforms resolution r = levels - nb + 1, i.e. tc scaled down by 2^(nb-1).
    const Rect r = resolution_rect(tc, levels, levels - nb + 1);
    out.push_back(DwtLevel{r.width(), r.height(), static_cast<int>(r.x0 & 1),
                           static_cast<int>(r.y0 & 1)});
  }
  return out;
}

}  // namespace j2k
