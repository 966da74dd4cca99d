// SPDX-License-Identifier: BSD-2-Clause
// The benchmarks' images, made from the sample images (bench_images.hpp).
#include "bench/bench_images.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include "common/error.hpp"
#include "io/image_io.hpp"

namespace j2k::bench {
namespace fs = std::filesystem;

// width x height from an 8-bit sample image: bilinear upscaling plus a little deterministic
// noise (what a camera adds), at `bits` bits (v * (2^bits - 1) / 255 before the noise).
Upscaled upscale(const std::string& sample, int64_t width, int64_t height, int bits) {
  const j2kfront::Image in = io::read_image(sample);
  const size_t nc = in.components.size();
  if (in.components[0].sample_size() != 1) throw Error(ErrorCode::InvalidArgument, sample + ": expected 8-bit samples");
  const int maxval = (1 << bits) - 1;
  const bool wide = bits > 8;
  Upscaled out;
  out.width = width;
  out.height = height;
  out.components = static_cast<int>(nc);
  out.bits = bits;
  out.bytes.resize(static_cast<size_t>(width * height) * nc * (wide ? 2 : 1));
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0, 1.5 * maxval / 255.0);  // 1.5 levels of 8 bits
  auto sample_at = [&](size_t c, int64_t x, int64_t y) -> double {
    const auto& k = in.components[c];
    x = std::min<int64_t>(std::max<int64_t>(x, 0), k.width - 1);
    y = std::min<int64_t>(std::max<int64_t>(y, 0), k.height - 1);
    return k.row<uint8_t>(y)[x] * (maxval / 255.0);
  };
  const double sx = static_cast<double>(in.width) / static_cast<double>(width);
  const double sy = static_cast<double>(in.height) / static_cast<double>(height);
  size_t o = 0;
  for (int64_t y = 0; y < height; ++y) {
    const double fy = (static_cast<double>(y) + 0.5) * sy - 0.5;
    const int64_t y0 = static_cast<int64_t>(std::floor(fy));
    const double wy = fy - static_cast<double>(y0);
    for (int64_t x = 0; x < width; ++x) {
      const double fx = (static_cast<double>(x) + 0.5) * sx - 0.5;
      const int64_t x0 = static_cast<int64_t>(std::floor(fx));
      const double wx = fx - static_cast<double>(x0);
      for (size_t c = 0; c < nc; ++c) {
        const double v = (1 - wy) * ((1 - wx) * sample_at(c, x0, y0) + wx * sample_at(c, x0 + 1, y0)) +
                         wy * ((1 - wx) * sample_at(c, x0, y0 + 1) + wx * sample_at(c, x0 + 1, y0 + 1)) + noise(rng);
        const int s = static_cast<int>(std::lround(std::min<double>(std::max(v, 0.0), maxval)));
        if (wide) {
          const uint16_t w = static_cast<uint16_t>(s);
          std::memcpy(&out.bytes[o], &w, 2);
          o += 2;
        } else {
          out.bytes[o++] = static_cast<uint8_t>(s);
        }
      }
    }
  }
  return out;
}

void write_pnm(const Upscaled& image, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  out << (image.components == 1 ? "P5" : "P6") << "\n" << image.width << " " << image.height << "\n" << ((1 << image.bits) - 1) << "\n";
  std::vector<uint8_t> bytes = image.bytes;
  if (image.bits > 8)  // big-endian, as PNM has them
    for (size_t k = 0; k + 1 < bytes.size(); k += 2) {
      uint16_t v = 0;
      std::memcpy(&v, &image.bytes[k], 2);
      bytes[k] = static_cast<uint8_t>(v >> 8);
      bytes[k + 1] = static_cast<uint8_t>(v);
    }
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) throw Error(ErrorCode::Io, path + ": cannot write the benchmark's input");
}

std::string make_input(const std::string& sample, int64_t size, bool wide, const std::string& dir) {
  const Upscaled image = upscale(sample, size, size, wide ? 16 : 8);
  const std::string path = dir + "/" + fs::path(sample).stem().string() + (wide ? "16" : "") + "-" + std::to_string(size) +
                           (image.components == 1 ? ".pgm" : ".ppm");
  write_pnm(image, path);
  return path;
}

ScratchDir::ScratchDir() : path((fs::temp_directory_path() / ("j2kfront-bench-" + std::to_string(getpid()))).string()) {
  fs::create_directories(path);
}
ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path, ec);
}

}  // namespace j2k::bench
