// SPDX-License-Identifier: BSD-2-Clause
// Binary PGM/PPM files for the tests that hand images to outside coders (ojph_compress,
// opj_compress) and read back what they and we decode, independently of the library's reader.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace test_support {

// A PGM or PPM: its samples, interleaved, as read from the file.
struct Pnm {
  int width = 0, height = 0, channels = 0, maxval = 0;
  std::vector<int> samples;
};

// The file's samples (none where it is cut short).
inline Pnm read_pnm(const std::string& path) {
  Pnm p;
  std::ifstream f(path, std::ios::binary);
  // The header's fields, past any comment lines (opj_decompress writes one).
  auto field = [&f]() {
    std::string t;
    while (f >> t && t[0] == '#') std::getline(f, t);
    return t;
  };
  const std::string magic = field();
  p.width = std::atoi(field().c_str());
  p.height = std::atoi(field().c_str());
  p.maxval = std::atoi(field().c_str());
  f.get();
  p.channels = magic == "P6" ? 3 : 1;
  const size_t n = static_cast<size_t>(p.width) * static_cast<size_t>(p.height) * static_cast<size_t>(p.channels);
  p.samples.resize(n);
  for (size_t i = 0; i < n && f; ++i) {
    int v = f.get();
    if (p.maxval > 255) v = (v << 8) | f.get();
    p.samples[i] = v;
  }
  if (!f) p.samples.clear();
  return p;
}

// A w x h image of 1 (PGM) or 3 (PPM) channels up to maxval: smooth ramps with noise on a
// third of the samples (every band has work to do), the noise from `seed`.
inline void write_pnm(const std::string& path, int w, int h, int channels, int maxval, uint32_t seed) {
  std::ofstream f(path, std::ios::binary);
  f << (channels == 3 ? "P6" : "P5") << "\n" << w << " " << h << "\n" << maxval << "\n";
  uint32_t s = seed;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < channels; ++c) {
        s = s * 1664525u + 1013904223u;
        const int64_t smooth = (static_cast<int64_t>(x) * (3 + c) + static_cast<int64_t>(y) * (5 - c)) * (maxval / 255 + 1);
        const int v = (s >> 28) < 5 ? static_cast<int>((s >> 8) % static_cast<uint32_t>(maxval + 1))
                                    : static_cast<int>(smooth % (maxval + 1));
        if (maxval > 255) f.put(static_cast<char>(v >> 8));
        f.put(static_cast<char>(v & 0xFF));
      }
}

}  // namespace test_support
