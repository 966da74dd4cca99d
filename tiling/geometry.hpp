// SPDX-License-Identifier: BSD-2-Clause
// Canvas geometry shared by every stage: rectangles on the JPEG 2000 reference grid.
#pragma once
#include <cstdint>

#include "j2kfront/j2kfront.h"

namespace j2k {

// Half-open rectangle [x0, x1) x [y0, y1) on the canvas. Coordinates are 64-bit so that
// origins up to 2^31-1 plus tile sizes never overflow (ISO/IEC 15444-1 allows 2^32-1).
struct Rect {
  int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int64_t width() const { return x1 > x0 ? x1 - x0 : 0; }
  int64_t height() const { return y1 > y0 ? y1 - y0 : 0; }
  bool empty() const { return width() == 0 || height() == 0; }
  bool operator==(const Rect& o) const {
    return x0 == o.x0 && y0 == o.y0 && x1 == o.x1 && y1 == o.y1;
  }
};

enum class Wavelet { Reversible53, Irreversible97 };

// What the DWT's coefficients are held in: int32 for the 5/3 (exact integers), float32 for
// the 9/7 (OpenJPEG's precision, bit for bit).
constexpr j2k_sample_type coefficient_type(Wavelet w) {
  return w == Wavelet::Reversible53 ? J2K_SAMPLE_I32 : J2K_SAMPLE_F32;
}

// Subband orientation; xo/yo are the offsets of Annex B equation (B-15).
enum class BandType { LL, HL, LH, HH };

}  // namespace j2k
