// SPDX-License-Identifier: BSD-2-Clause
// The subband mosaic of a transformed image (`j2kfront transform --mosaic FILE.png`): each
// tile-component drawn in OpenJPEG's pyramid layout (LL top-left, then HL right of it, LH
// below, HH diagonal, level after level), every band scaled for viewing on its own, the
// bands framed by one-pixel lines; tiles in their grid, components side by side.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "j2kfront/j2kfront.hpp"

namespace j2k::tools {

struct Mosaic {
  uint32_t width = 0, height = 0;
  std::vector<unsigned char> rgb;  // height rows of width RGB pixels, packed
};

// Bytes the mosaic of `plan`'s output takes, known before drawing it (to check against the
// memory budget).
uint64_t mosaic_bytes(const j2kfront::Plan& plan);

// Draws the mosaic from the tile-components' coefficients in host memory (`coefficients[i]`
// for tile-component i, as the plan wrote them). The LL band shows its values from darkest
// (its minimum) to brightest (its maximum); the detail bands show magnitudes, black for 0 to
// white at the 99th percentile of the band's magnitudes and above.
Mosaic draw_mosaic(const j2kfront::Plan& plan, const std::vector<j2k_coefficients>& coefficients);

// Writes it as PNG at `path` (a temporary file renamed into place: never a half-written
// file). An existing file there is replaced only when j2kfront wrote it, or with `force`;
// `input` never.
void write_mosaic(const std::string& path, const std::string& input, bool force, const Mosaic& mosaic);

}  // namespace j2k::tools
