// SPDX-License-Identifier: BSD-2-Clause
// OpenJPEG 2.5.0's own transforms, called through the mirrored structs. Test-only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tiling/geometry.hpp"

namespace oracle {

// Empty when the linked library is the 2.5.0 these mirrors describe, else what it reports.
std::string version_problem();

// Buffers are tc.width() x tc.height(), row-major, stride = width; transformed in place.
// The caller must not pass a geometry for which known_bug() is not None.
void forward53(std::vector<int32_t>& data, const j2k::Rect& tc, int levels);
void forward97(std::vector<float>& data, const j2k::Rect& tc, int levels);
void inverse53(std::vector<int32_t>& data, const j2k::Rect& tc, int levels);
// OpenJPEG's decoder's 9/7: high-pass samples scaled by its "two_invK" (constants.hpp,
// kInverse97OpenJpeg), not the forward transform's inverse.
void inverse97(std::vector<float>& data, const j2k::Rect& tc, int levels);

// opj_mct_encode / opj_mct_encode_real on three equal-sized planes (copied through the
// 16-byte-aligned buffers OpenJPEG asserts).
void mct_forward(std::vector<int32_t>& c0, std::vector<int32_t>& c1, std::vector<int32_t>& c2);
void mct_forward(std::vector<float>& c0, std::vector<float>& c1, std::vector<float>& c2);

// For the benchmark: the same calls on a pool of `threads` OpenJPEG worker threads, returning
// the milliseconds spent inside OpenJPEG's transform alone (no copies).
double timed_forward53(std::vector<int32_t>& data, const j2k::Rect& tc, int levels, int threads);
double timed_forward97(std::vector<float>& data, const j2k::Rect& tc, int levels, int threads);

// The four geometries where OpenJPEG 2.5.0 departs from ISO/IEC 15444-1 Annex F
// (../shared/OPENJPEG.md, "Where OpenJPEG 2.5.0 is wrong"). Each needs a processed
// resolution with an empty or one-sample dimension.
enum class KnownBug {
  None,
  ZeroWidthOddOrigin53,   // 1: 5/3, width 0 and height > 0 at odd x0: rows rewritten
  ZeroWidth97,            // 2: 9/7, width 0 and height > 0: assertion failure
  OnePixelZeroHeight53,   // 3: 5/3, 1x1 tile-component, a zero-height resolution: heap overrun
  LoneOddSample97,        // 4: 9/7, a length-1 row or column at an odd coordinate: not doubled
};
KnownBug known_bug(j2k::Wavelet wavelet, const j2k::Rect& tc, int levels);
const char* known_bug_name(KnownBug bug);

}  // namespace oracle
