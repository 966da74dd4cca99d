// An image on the JPEG 2000 canvas: what the front stage takes in.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace j2k {

struct Component {
  int64_t width = 0, height = 0;  // samples; must equal the size the canvas implies (B-12)
  int precision = 8;              // bits, 1..16
  bool is_signed = false;
  int dx = 1, dy = 1;             // subsampling (XRsiz, YRsiz)
  std::vector<int32_t> samples;   // row-major, width * height
};

struct Image {
  // Image area [x0, x0 + width) x [y0, y0 + height) on the reference grid.
  int64_t x0 = 0, y0 = 0, width = 0, height = 0;
  std::vector<Component> components;
};

// Checks sizes, precisions and sample ranges; throws Error(InvalidArgument) naming the
// component and the problem.
void validate(const Image& image);

}  // namespace j2k
