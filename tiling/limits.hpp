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
// SIZ's Ssiz and JP2's BPC/bpcc: a component's depth 1..38 bits, what a file may say.
constexpr int kMaxSizPrecision = 38;

// COD/COC: code-blocks of 2^xcb x 2^ycb samples, xcb and ycb from 2 to 10, xcb + ycb at most
// 12 (A.6.1): 4 to 1024 a side, at most 4096 samples.
constexpr int kMinBlockLog2 = 2;
constexpr int kMaxBlockLog2 = 10;
constexpr int kMaxBlockAreaLog2 = 12;
constexpr int kMaxBlockSide = 1 << kMaxBlockLog2;
constexpr int kMaxBlockSamples = 1 << kMaxBlockAreaLog2;
// The nominal code-block size (log2 of its sides) of a COD or COC.
constexpr bool valid_block_log2(int w_log2, int h_log2) {
  return w_log2 >= kMinBlockLog2 && w_log2 <= kMaxBlockLog2 && h_log2 >= kMinBlockLog2 && h_log2 <= kMaxBlockLog2 &&
         w_log2 + h_log2 <= kMaxBlockAreaLog2;
}
// A code-block as the band cuts it (smaller at the band's edges): 1 to 1024 a side, at most
// 4096 samples.
constexpr bool valid_block_size(int64_t width, int64_t height) {
  return width >= 1 && height >= 1 && width <= kMaxBlockSide && height <= kMaxBlockSide &&
         width * height <= kMaxBlockSamples;
}

}  // namespace j2k
