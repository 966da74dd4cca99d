// SPDX-License-Identifier: BSD-2-Clause
#include "codec/dci_xyz.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/error.hpp"

namespace j2k::codec {
namespace {

[[noreturn]] void bad(const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); }

// sRGB and BT.709 share their primaries and white (D65): linear RGB to CIE XYZ (IEC 61966-2-1).
constexpr double kToXyz[3][3] = {{0.4124564, 0.3575761, 0.1804375},
                                 {0.2126729, 0.7151522, 0.0721750},
                                 {0.0193339, 0.1191920, 0.9503041}};
// DCI: the reference white at 48 cd/m^2, coded against 52.37 cd/m^2 with gamma 2.6.
constexpr double kWhite = 48.0, kNormalising = 52.37, kGamma = 2.6, kPeak = 4095.0;

double linear(double v, RgbTransfer t) {
  if (t == RgbTransfer::Bt709) return std::pow(v, 2.4);
  return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}

}  // namespace

void rgb_to_dci_xyz(const j2k_image_view& rgb, RgbTransfer transfer, std::vector<uint16_t> out[3]) {
  if (rgb.num_components != 3) bad("X'Y'Z' is made from 3 components (RGB), not " + std::to_string(rgb.num_components));
  for (int c = 0; c < 3; ++c) {
    const j2k_component_view& v = rgb.components[c];
    if ((v.type != J2K_SAMPLE_U8 && v.type != J2K_SAMPLE_U16) || v.dx != 1 || v.dy != 1)
      bad("X'Y'Z' is made from unsigned 8- or 16-bit RGB samples without subsampling; component " + std::to_string(c) + " is not");
  }
  // Each component's samples linearised once per code value (at most 2^16 of them).
  std::vector<double> table[3];
  for (int c = 0; c < 3; ++c) {
    const int precision = rgb.components[c].precision;
    const double top = std::ldexp(1.0, precision) - 1;
    table[c].resize(size_t{1} << precision);
    for (size_t k = 0; k < table[c].size(); ++k) table[c][k] = linear(static_cast<double>(k) / top, transfer);
  }
  const size_t n = size_t{rgb.width} * rgb.height;
  for (int c = 0; c < 3; ++c) out[c].assign(n, 0);
  auto sample = [&](int c, uint32_t x, uint32_t y) -> size_t {
    const j2k_component_view& v = rgb.components[c];
    const auto* p = static_cast<const unsigned char*>(v.data) + static_cast<ptrdiff_t>(y) * v.row_stride + static_cast<ptrdiff_t>(x) * v.pixel_stride;
    const size_t s = v.type == J2K_SAMPLE_U8 ? *p : *reinterpret_cast<const uint16_t*>(p);
    return std::min(s, table[c].size() - 1);  // a sample above its precision: the top code
  };
  for (uint32_t y = 0; y < rgb.height; ++y)
    for (uint32_t x = 0; x < rgb.width; ++x) {
      const double lin[3] = {table[0][sample(0, x, y)], table[1][sample(1, x, y)], table[2][sample(2, x, y)]};
      for (int c = 0; c < 3; ++c) {
        const double xyz = kToXyz[c][0] * lin[0] + kToXyz[c][1] * lin[1] + kToXyz[c][2] * lin[2];
        const double coded = kPeak * std::pow(std::max(0.0, xyz * kWhite / kNormalising), 1.0 / kGamma);
        out[c][size_t{y} * rgb.width + x] = static_cast<uint16_t>(std::lround(std::min(kPeak, coded)));
      }
    }
}

}  // namespace j2k::codec
