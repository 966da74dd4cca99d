// SPDX-License-Identifier: BSD-2-Clause
// Every limit of ISO/IEC 15444-1 (and of j2kfront) that the geometry is checked against, in
// one place. Values from the SIZ and COD marker segments (Annex A) unless noted.
#pragma once
#include <cstdint>

namespace j2k {

constexpr int64_t kMaxCoordinate = (int64_t{1} << 32) - 1;  // Xsiz, Ysiz, XTsiz, ... are 32-bit
constexpr int kMaxLevels = 32;         // COD: decomposition levels 0..32
constexpr int kMaxComponents = 16384;  // SIZ: Csiz 1..16384
constexpr int kMaxSubsampling = 255;   // SIZ: XRsiz, YRsiz 1..255
constexpr int64_t kMaxTiles = 65535;   // SOT: Isot 0..65534
// j2kfront: samples of 1..16 bits (int32 holds the 5/3 of 16-bit samples with RCT and 32
// levels of growth; the 9/7 works in float32).
constexpr int kMaxPrecision = 16;

}  // namespace j2k
