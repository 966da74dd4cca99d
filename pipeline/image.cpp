// Validation of an input image against the canvas it claims.
#include <string>

#include "tiling/canvas.hpp"
#include "common/error.hpp"
#include "pipeline/image.hpp"

namespace j2k {

void validate(const Image& im) {
  auto fail = [](const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); };
  if (im.width <= 0 || im.height <= 0) fail("image is empty");
  if (im.x0 < 0 || im.y0 < 0) fail("image origin must be non-negative");
  if (im.components.empty() || im.components.size() > 4)
    fail("images with 1 to 4 components are supported, got " + std::to_string(im.components.size()));
  for (size_t c = 0; c < im.components.size(); ++c) {
    const Component& k = im.components[c];
    const std::string name = "component " + std::to_string(c) + ": ";
    if (k.precision < 1 || k.precision > 16)
      fail(name + "precision must be 1..16 bits, got " + std::to_string(k.precision));
    if (k.dx < 1 || k.dx > 255 || k.dy < 1 || k.dy > 255) fail(name + "subsampling must be 1..255");
    auto cdiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
    const int64_t w = cdiv(im.x0 + im.width, k.dx) - cdiv(im.x0, k.dx);
    const int64_t h = cdiv(im.y0 + im.height, k.dy) - cdiv(im.y0, k.dy);
    if (k.width != w || k.height != h)
      fail(name + "size " + std::to_string(k.width) + "x" + std::to_string(k.height) +
           " does not match the canvas, which implies " + std::to_string(w) + "x" + std::to_string(h));
    if (static_cast<int64_t>(k.samples.size()) != w * h)
      fail(name + "holds " + std::to_string(k.samples.size()) + " samples, expected " +
           std::to_string(w * h));
    const int32_t lo = k.is_signed ? -(int32_t{1} << (k.precision - 1)) : 0;
    const int32_t hi = k.is_signed ? (int32_t{1} << (k.precision - 1)) - 1
                                   : static_cast<int32_t>((int64_t{1} << k.precision) - 1);
    for (size_t i = 0; i < k.samples.size(); ++i)
      if (k.samples[i] < lo || k.samples[i] > hi)
        fail(name + "sample " + std::to_string(i) + " = " + std::to_string(k.samples[i]) +
             " is outside the " + std::to_string(k.precision) + "-bit " +
             (k.is_signed ? "signed" : "unsigned") + " range");
  }
}

}  // namespace j2k
