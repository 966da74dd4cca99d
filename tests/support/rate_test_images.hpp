// SPDX-License-Identifier: BSD-2-Clause
// Test helper: the images the rate-target tests (Compress, HtRate) code at many ratios.
#pragma once
#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace test_support {

struct RateTestImage {
  std::string path;
  int width = 0, height = 0, channels = 0;
  size_t bytes() const { return static_cast<size_t>(width) * height * channels; }  // 8-bit samples
};

// Image k of a set of many sizes and kinds: its size drawn from `rng` (17..600 x 9..500),
// grey or (k % 3 == 2) RGB, by k % 4 a gradient, noise, waves or text-like strokes on white;
// written as dir/rate<k>.pgm or .ppm.
inline RateTestImage write_rate_test_image(int k, std::mt19937& rng, const std::string& dir) {
  const int w = std::uniform_int_distribution<int>(17, 600)(rng), h = std::uniform_int_distribution<int>(9, 500)(rng);
  const int channels = k % 3 == 2 ? 3 : 1;
  std::vector<uint8_t> samples(static_cast<size_t>(w) * h * channels);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < channels; ++c) {
        const size_t i = (static_cast<size_t>(y) * w + x) * channels + c;
        switch (k % 4) {
          case 0: samples[i] = static_cast<uint8_t>((x * 255 / w + y * 128 / h + c * 40) & 255); break;  // gradient
          case 1: samples[i] = static_cast<uint8_t>(rng() & 255); break;                                 // noise
          case 2: samples[i] = static_cast<uint8_t>(128 + 100 * std::sin(x * 0.05 * (c + 1)) * std::cos(y * 0.03)); break;
          default: samples[i] = (y % 14 < 9 && (x / 5 + y / 14) % 3 != 0 && rng() % 2) ? static_cast<uint8_t>(rng() % 60) : 245;
        }
      }
  const std::string image = dir + "/rate" + std::to_string(k) + (channels == 1 ? ".pgm" : ".ppm");
  std::ofstream f(image, std::ios::binary);
  f << (channels == 1 ? "P5" : "P6") << "\n" << w << " " << h << "\n255\n";
  f.write(reinterpret_cast<const char*>(samples.data()), static_cast<std::streamsize>(samples.size()));
  return {image, w, h, channels};
}

}  // namespace test_support
