// SPDX-License-Identifier: BSD-2-Clause
// The decoder's by-rows path (an HT image of one tile on the CPU, its finest level a band of
// rows at a time: pipeline/row_back_stage) against its whole-plane path (DecodeSettings::by_rows
// off), bit for bit, through our HT encoder's streams: RGB 8-bit and 16-bit grey, odd sizes and
// canvas origins, 2 and 3 pixels tall or wide (row_back_stage_test has 1), the 5/3 and the 9/7,
// code-blocks 4 to 64 rows tall, one level and five, one and two threads. And that the memory limit counts what the
// by-rows path allocates (less than a tile's planes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/decoder.hpp"
#include "common/error.hpp"
#include "j2kfront/j2kfront.hpp"

namespace {

using j2k::codec::decode;
using j2k::codec::DecodedImage;
using j2k::codec::DecodeSettings;

// Smooth ramps with noise on them, so that code-blocks hold both skewed and coin-toss
// decisions: 8-bit RGB or 16-bit grey.
j2kfront::Image noisy(uint32_t x0, uint32_t y0, uint32_t width, uint32_t height, bool rgb) {
  j2kfront::Image img;
  img.x0 = x0;
  img.y0 = y0;
  img.width = width;
  img.height = height;
  for (int c = 0; c < (rgb ? 3 : 1); ++c) {
    auto& k = img.add_component(rgb ? J2K_SAMPLE_U8 : J2K_SAMPLE_U16, rgb ? 8 : 16);
    for (int64_t y = 0; y < k.height; ++y)
      for (int64_t x = 0; x < k.width; ++x) {
        const auto v = static_cast<uint32_t>(x * 3 + y * 5 + c * 70 + ((x * 2654435761u) >> 7 ^ y * 40503u) % 29);
        if (rgb) k.row<uint8_t>(y)[x] = static_cast<uint8_t>(v & 255);
        else k.row<uint16_t>(y)[x] = static_cast<uint16_t>((v * 97) & 65535);
      }
  }
  return img;
}

std::vector<uint8_t> ht_stream(const j2kfront::Image& img, bool irreversible, int levels, int block_w, int block_h) {
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.wavelet = irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
  s.levels = levels;
  j2kfront::Coding c;
  c.modes = J2K_MODE_HT;
  c.block_w = block_w;
  c.block_h = block_h;
  if (irreversible) c.rates = {6};
  return j2kfront::Encoder(s, c, img.view()).encode(img.view());
}

void expect_same(const std::vector<uint8_t>& bytes, int threads, const std::string& what) {
  DecodeSettings d;
  d.backend = j2k::BackendOptions(j2k::Backend::Cpu, threads);
  d.by_rows = false;
  const DecodedImage want = decode(bytes.data(), bytes.size(), d);
  d.by_rows = true;
  const DecodedImage got = decode(bytes.data(), bytes.size(), d);
  EXPECT_EQ(got.warnings, want.warnings) << what;
  ASSERT_EQ(got.components.size(), want.components.size()) << what;
  for (size_t k = 0; k < got.components.size(); ++k) {
    EXPECT_EQ(got.components[k].width, want.components[k].width) << what;
    EXPECT_EQ(got.components[k].height, want.components[k].height) << what;
    EXPECT_TRUE(got.components[k].bytes == want.components[k].bytes) << what << ", component " << k;
  }
}

TEST(DecodeByRows, SameSamplesAsWholePlanes) {
  struct Shape {
    uint32_t x0, y0, width, height;
  };
  const Shape shapes[] = {{0, 0, 211, 97}, {3, 5, 130, 77}, {1, 0, 67, 2}, {0, 1, 2, 50}, {0, 3, 50, 3}, {7, 2, 64, 128}};
  const int blocks[][2] = {{64, 4}, {32, 16}, {64, 64}};
  for (const Shape& sh : shapes)
    for (bool rgb : {true, false}) {
      const j2kfront::Image img = noisy(sh.x0, sh.y0, sh.width, sh.height, rgb);
      for (bool irreversible : {false, true})
        for (const auto& b : blocks)
          for (int levels : {1, 5}) {
            // Our encoder takes as many levels as the smaller side allows (a side of 2: one).
            if (levels > 1 && std::min(sh.width, sh.height) < 32) continue;
            const std::string what = std::to_string(sh.width) + "x" + std::to_string(sh.height) + " at (" + std::to_string(sh.x0) +
                                     "," + std::to_string(sh.y0) + ")" + (rgb ? " RGB" : " grey16") +
                                     (irreversible ? " 9/7" : " 5/3") + " blocks " + std::to_string(b[0]) + "x" +
                                     std::to_string(b[1]) + " levels " + std::to_string(levels);
            const std::vector<uint8_t> bytes = ht_stream(img, irreversible, levels, b[0], b[1]);
            expect_same(bytes, 1, what);
            if (b[1] == 16) expect_same(bytes, 2, what + ", 2 threads");
            if (::testing::Test::HasFailure()) return;
          }
    }
}

// 2048^2 RGB: a tile's planes are 48 MiB, the by-rows path's buffers about 23 (the coarse
// planes 12, three stripes of the bands and a window of rows 11). A limit between the two
// refuses the whole-plane path and lets the by-rows one through, which so must be the path
// taken; one below the coarse planes refuses both.
TEST(DecodeByRows, MemoryLimitCountsTheRows) {
  const j2kfront::Image img = noisy(0, 0, 2048, 2048, true);
  const std::vector<uint8_t> bytes = ht_stream(img, false, 5, 64, 64);
  DecodeSettings d;
  d.backend = j2k::BackendOptions(j2k::Backend::Cpu, 2);
  d.by_rows = false;
  const DecodedImage want = decode(bytes.data(), bytes.size(), d);
  const uint64_t base = bytes.size() + uint64_t{3} * 2048 * 2048 + (uint64_t{1} << 20);  // the stream, the output, headers
  d.max_bytes = base + (uint64_t{32} << 20);
  EXPECT_THROW(decode(bytes.data(), bytes.size(), d), j2k::Error);
  d.by_rows = true;
  const DecodedImage got = decode(bytes.data(), bytes.size(), d);
  for (size_t k = 0; k < 3; ++k) EXPECT_TRUE(got.components[k].bytes == want.components[k].bytes) << "component " << k;
  d.max_bytes = base + (uint64_t{8} << 20);
  EXPECT_THROW(decode(bytes.data(), bytes.size(), d), j2k::Error);
}

}  // namespace
