// SPDX-License-Identifier: BSD-2-Clause
// The CLI's PGM/PPM rows written on a thread of their own (tools/rows_in_background): the
// file is write_pnm's byte for byte whatever the bands, and a write that fails is an error
// naming the file and the cause.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/error.hpp"
#include "io/image_writers.hpp"
#include "tools/rows_in_background.hpp"

namespace {

namespace fs = std::filesystem;
using j2k::io::ComponentSamples;
using j2k::io::ImageSamples;

struct Samples {
  std::vector<std::vector<unsigned char>> planes;
  ImageSamples image;
};

// `comps` components of w x h samples, 8-bit or 12-bit (two bytes), every sample different.
Samples make(int64_t w, int64_t h, int comps, int bits) {
  Samples s;
  const size_t size = bits > 8 ? 2 : 1;
  for (int c = 0; c < comps; ++c) {
    std::vector<unsigned char> p(static_cast<size_t>(w * h) * size);
    for (size_t i = 0; i < p.size() / size; ++i) {
      const uint32_t v = static_cast<uint32_t>(i * 7 + static_cast<size_t>(c) * 1001) % (1u << bits);
      if (size == 1) p[i] = static_cast<unsigned char>(v);
      else {
        const uint16_t v16 = static_cast<uint16_t>(v);
        std::memcpy(&p[2 * i], &v16, 2);
      }
    }
    s.planes.push_back(std::move(p));
  }
  for (int c = 0; c < comps; ++c) {
    ComponentSamples k;
    k.type = bits > 8 ? J2K_SAMPLE_U16 : J2K_SAMPLE_U8;
    k.precision = bits;
    k.width = w, k.height = h;
    k.data = s.planes[static_cast<size_t>(c)].data();
    s.image.components.push_back(k);
  }
  return s;
}

// Rows [y0, y0 + rows) of `image`, as a decoder hands a band out.
ImageSamples band_of(const ImageSamples& image, int64_t y0, int64_t rows) {
  ImageSamples b = image;
  for (ComponentSamples& k : b.components) {
    k.data += static_cast<size_t>(y0 * k.width) * k.sample_size();
    k.height = rows;
  }
  return b;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(RowsInBackground, TheFileIsWritePnmsWhateverTheBands) {
  const fs::path dir = fs::temp_directory_path() / ("rows_in_background_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Case { int64_t w, h; int comps, bits, band; };
  // The last two: bands of several interleaving items (a few rows a worker).
  for (const Case& k : {Case{37, 50, 3, 8, 7}, Case{301, 40, 1, 12, 1}, Case{5, 9, 3, 12, 9}, Case{1000, 33, 3, 8, 32},
                        Case{4001, 70, 3, 12, 70}, Case{9000, 31, 1, 8, 17}}) {
    for (int threads : {1, 3}) {
      SCOPED_TRACE(std::to_string(k.w) + "x" + std::to_string(k.h) + " x" + std::to_string(k.comps) + ", bands of " +
                   std::to_string(k.band) + ", " + std::to_string(threads) + " threads");
      const Samples s = make(k.w, k.h, k.comps, k.bits);
      const std::string whole = (dir / "whole.pnm").string(), banded = (dir / "banded.pnm").string();
      std::FILE* f = std::fopen(whole.c_str(), "wb");
      ASSERT_NE(f, nullptr);
      j2k::io::write_pnm(f, whole, s.image);
      std::fclose(f);
      f = std::fopen(banded.c_str(), "wb");
      ASSERT_NE(f, nullptr);
      {
        j2k::io::PnmWriter out(f, banded, s.image, k.h);
        j2k::tools::RowsInBackground rows(f, banded, out.wide(), threads);
        for (int64_t y = 0; y < k.h; y += k.band) rows.put(band_of(s.image, y, std::min<int64_t>(k.band, k.h - y)));
        rows.finish();
        out.finish();
      }
      std::fclose(f);
      EXPECT_EQ(slurp(banded), slurp(whole));
    }
  }
  fs::remove_all(dir);
}

// /dev/full takes the open and fails the writes with ENOSPC, as a full disk would.
TEST(RowsInBackground, AFailedWriteIsAnErrorNamingTheFile) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "/dev/full is absent";
  std::FILE* f = std::fopen("/dev/full", "wb");
  ASSERT_NE(f, nullptr);
  const Samples s = make(4000, 64, 3, 8);  // bands larger than stdio's buffer: each fwrite fails
  try {
    j2k::tools::RowsInBackground rows(f, "out.ppm", false, 2);
    for (int64_t y = 0; y < 64; y += 8) rows.put(band_of(s.image, y, 8));
    rows.finish();
    ADD_FAILURE() << "no error";
  } catch (const j2k::Error& e) {
    EXPECT_NE(std::string(e.what()).find("out.ppm: cannot write: "), std::string::npos) << e.what();
  }
  std::fclose(f);
}

}  // namespace
