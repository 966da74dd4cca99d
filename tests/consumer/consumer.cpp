// SPDX-License-Identifier: BSD-2-Clause
// The C++ layer (j2kfront.hpp) of an installed j2kfront, beyond examples/embed.cpp: an image
// that owns its 12-bit samples, the 9/7, tiles and a canvas origin; a rejected setting
// arriving as j2kfront::Error.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <j2kfront/j2kfront.hpp>

int main() {
  if (std::strcmp(j2k_version(), J2KFRONT_VERSION_STRING) != 0) {
    std::fprintf(stderr, "library %s, headers %s\n", j2k_version(), J2KFRONT_VERSION_STRING);
    return 1;
  }
  j2kfront::Image image;
  image.x0 = 5, image.y0 = 3, image.width = 100, image.height = 70;
  for (int c = 0; c < 2; ++c) {
    j2kfront::Image::Component& comp = image.add_component(J2K_SAMPLE_U16, 12);
    for (int64_t y = 0; y < comp.height; ++y)
      for (int64_t x = 0; x < comp.width; ++x)
        comp.row<uint16_t>(y)[x] = static_cast<uint16_t>((x * 37 + y * 11 + c * 500) & 0xfff);
  }
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.wavelet = J2K_WAVELET_97;
  s.tile_w = s.tile_h = 32;
  try {
    j2kfront::Plan plan(s, image.view());
    plan.run(image.view());
    const j2k_plan_info info = plan.info();
    // [5, 105) x [3, 73) in tiles of 32 from (0, 0): 4 x 3 tiles of 2 components.
    std::printf("%s: %lld x %lld tiles, %zu tile-components\n",
                info.description ? info.description : "?",
                (long long)info.tiles_x, (long long)info.tiles_y, info.tile_components);
    if (info.backend != J2K_BACKEND_CPU || info.tiles_x != 4 || info.tiles_y != 3 ||
        info.tile_components != 24 || info.coefficient_type != J2K_SAMPLE_F32) {
      std::fprintf(stderr, "unexpected plan\n");
      return 1;
    }
  } catch (const j2kfront::Error& e) {
    std::fprintf(stderr, "j2kfront: %s: %s\n", j2k_status_name(e.status()), e.what());
    return 1;
  }
  j2kfront::Settings bad;
  bad.levels = -1;
  try {
    j2kfront::Plan plan(bad, image.view());
    std::fprintf(stderr, "levels -1 accepted\n");
    return 1;
  } catch (const j2kfront::Error& e) {
    std::printf("levels -1 rejected: %s: %s\n", j2k_status_name(e.status()), e.what());
    return e.status() == J2K_INVALID_ARGUMENT ? 0 : 1;
  }
}
