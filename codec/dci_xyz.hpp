// SPDX-License-Identifier: BSD-2-Clause
// RGB to the X'Y'Z' that digital cinema codes (SMPTE 428-1, DCI): each sample linearised by
// its transfer function, the sRGB / BT.709 primaries' matrix to CIE XYZ (D65 white), white at
// 48 cd/m^2, then X' = 4095 (L X / 52.37)^(1 / 2.6) in 12 bits, as `compress --xyz` feeds the
// cinema profiles.
#pragma once
#include <cstdint>
#include <vector>

#include "j2kfront/j2kfront.h"

namespace j2k::codec {

enum class RgbTransfer {
  Srgb,   // IEC 61966-2-1: linear below 0.04045, else ((v + 0.055) / 1.055)^2.4
  Bt709,  // BT.709 as displayed (BT.1886's gamma 2.4 on a display with a true black)
};

// `rgb`: 3 unsigned components (U8 or U16 samples of any precision) without subsampling.
// out[c]: component c's X'Y'Z' samples, width x height, 12-bit. Throws InvalidArgument for
// any other image.
void rgb_to_dci_xyz(const j2k_image_view& rgb, RgbTransfer transfer, std::vector<uint16_t> out[3]);

}  // namespace j2k::codec
