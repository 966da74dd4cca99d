// SPDX-License-Identifier: BSD-2-Clause
// j2kfront from C++: the front stage of a 64 x 48 8-bit RGB image, interleaved in one buffer.
#include <cstdint>
#include <cstdio>
#include <vector>

#include <j2kfront/j2kfront.hpp>

int main() {
  const uint32_t width = 64, height = 48;
  std::vector<uint8_t> rgb(width * height * 3);
  for (uint32_t i = 0; i < width * height; ++i) {  // red grows to the right, green downwards
    const uint32_t x = i % width, y = i / width;
    rgb[3 * i] = uint8_t(x * 4), rgb[3 * i + 1] = uint8_t(y * 5), rgb[3 * i + 2] = uint8_t(x + y);
  }
  try {
    auto view = j2kfront::ImageView::interleaved(rgb.data(), rgb.size(), width, height, 3, J2K_SAMPLE_U8, 8);
    j2kfront::Settings s;  // the 5/3, one tile, RCT on (3 components)
    s.backend = J2K_BACKEND_CPU;
    s.levels = 3;
    j2kfront::Plan plan(s, view);  // allocates once for this shape
    plan.run(view);                // any number of images of that shape
    j2k_band ll = plan.band(0, 0);  // tile-component 0, band 0: the LL
    std::printf("%zu tile-components; first band %lld x %lld\n", plan.tile_components(),
                (long long)ll.coefficients.width, (long long)ll.coefficients.height);
  } catch (const j2kfront::Error& e) {
    std::fprintf(stderr, "j2kfront: %s: %s\n", j2k_status_name(e.status()), e.what());
    return 1;
  }
}
