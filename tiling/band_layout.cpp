// SPDX-License-Identifier: BSD-2-Clause
// Where each subband lands in OpenJPEG's pyramid layout.
#include "tiling/canvas.hpp"

namespace j2k {

std::vector<BandInfo> band_layout(const Rect& tc, int levels) {
  std::vector<BandInfo> bands;
  bands.push_back(BandInfo{BandType::LL, levels, band_rect(tc, levels, BandType::LL), 0, 0});
  for (int nb = levels; nb >= 1; --nb) {
    // Level nb splits resolution r = levels-nb+1 into resolution r-1 (top-left) and details.
    const Rect lower = resolution_rect(tc, levels, levels - nb);
    const int64_t w = lower.width(), h = lower.height();
    bands.push_back(BandInfo{BandType::HL, nb, band_rect(tc, nb, BandType::HL), w, 0});
    bands.push_back(BandInfo{BandType::LH, nb, band_rect(tc, nb, BandType::LH), 0, h});
    bands.push_back(BandInfo{BandType::HH, nb, band_rect(tc, nb, BandType::HH), w, h});
  }
  return bands;
}

}  // namespace j2k
