// SPDX-License-Identifier: BSD-2-Clause
// The PNG reader (io/png_reader.cpp) against files written here with libpng: every colour
// type and bit depth, interlaced or not, palettes with and without transparency, in bands,
// and files that lie about their size or end early.
#include <gtest/gtest.h>
#include <png.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "io/image_io.hpp"

namespace {

namespace fs = std::filesystem;

struct Png {
  uint32_t width = 0, height = 0;
  int color = PNG_COLOR_TYPE_GRAY, depth = 8;
  bool interlaced = false;
  std::vector<std::vector<uint16_t>> samples;  // [channel][y * width + x], as the file holds them
  std::vector<png_color> palette;               // PALETTE: samples[0] are indices
  std::vector<png_byte> alpha;                  // PALETTE: tRNS entries
};

int channels_of(int color) {
  switch (color) {
    case PNG_COLOR_TYPE_GRAY_ALPHA: return 2;
    case PNG_COLOR_TYPE_RGB: return 3;
    case PNG_COLOR_TYPE_RGB_ALPHA: return 4;
    default: return 1;
  }
}

Png random_png(uint32_t w, uint32_t h, int color, int depth, bool interlaced, uint32_t seed) {
  Png p;
  p.width = w;
  p.height = h;
  p.color = color;
  p.depth = depth;
  p.interlaced = interlaced;
  std::mt19937 rng(seed);
  const int n = channels_of(color);
  const uint32_t max = (1u << depth) - 1;
  p.samples.assign(static_cast<size_t>(n), std::vector<uint16_t>(size_t{w} * h));
  for (auto& ch : p.samples)
    for (auto& v : ch) v = static_cast<uint16_t>(rng() % (max + 1));
  if (color == PNG_COLOR_TYPE_PALETTE)
    for (uint32_t i = 0; i <= max; ++i)
      p.palette.push_back(png_color{static_cast<png_byte>(rng()), static_cast<png_byte>(rng()), static_cast<png_byte>(rng())});
  return p;
}

// Writes `p` with libpng (packing low bit depths, big-endian 16-bit samples as PNG has them).
void write_png(const std::string& path, const Png& p) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    FAIL() << "libpng could not write " << path;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, p.width, p.height, p.depth, p.color,
               p.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (!p.palette.empty()) png_set_PLTE(png, info, p.palette.data(), static_cast<int>(p.palette.size()));
  if (!p.alpha.empty()) png_set_tRNS(png, info, p.alpha.data(), static_cast<int>(p.alpha.size()), nullptr);
  png_write_info(png, info);
  const int n = channels_of(p.color);
  const size_t row_bytes = (size_t{p.width} * static_cast<size_t>(n) * static_cast<size_t>(p.depth) + 7) / 8;
  std::vector<std::vector<png_byte>> rows(p.height, std::vector<png_byte>(row_bytes, 0));
  for (uint32_t y = 0; y < p.height; ++y)
    for (uint32_t x = 0; x < p.width; ++x)
      for (int c = 0; c < n; ++c) {
        const uint32_t v = p.samples[static_cast<size_t>(c)][size_t{y} * p.width + x];
        const size_t bit = (size_t{x} * static_cast<size_t>(n) + static_cast<size_t>(c)) * static_cast<size_t>(p.depth);
        png_byte* at = rows[y].data() + bit / 8;
        if (p.depth == 16) {
          at[0] = static_cast<png_byte>(v >> 8);
          at[1] = static_cast<png_byte>(v);
        } else if (p.depth == 8) {
          at[0] = static_cast<png_byte>(v);
        } else {
          at[0] = static_cast<png_byte>(at[0] | (v << (8 - p.depth - bit % 8)));
        }
      }
  std::vector<png_bytep> at;
  for (auto& r : rows) at.push_back(r.data());
  png_write_image(png, at.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  std::fclose(f);
}

// The samples read_image should give: a palette expanded to RGB(A), everything else as is.
std::vector<std::vector<uint16_t>> expected(const Png& p) {
  if (p.color != PNG_COLOR_TYPE_PALETTE) return p.samples;
  std::vector<std::vector<uint16_t>> out(p.alpha.empty() ? 3 : 4, std::vector<uint16_t>(p.samples[0].size()));
  for (size_t i = 0; i < p.samples[0].size(); ++i) {
    const uint16_t k = p.samples[0][i];
    out[0][i] = p.palette[k].red;
    out[1][i] = p.palette[k].green;
    out[2][i] = p.palette[k].blue;
    if (!p.alpha.empty()) out[3][i] = k < p.alpha.size() ? p.alpha[k] : 255;
  }
  return out;
}

std::vector<uint16_t> samples_of(const j2kfront::Image::Component& c) {
  std::vector<uint16_t> v(static_cast<size_t>(c.width * c.height));
  for (size_t i = 0; i < v.size(); ++i) {
    if (c.type == J2K_SAMPLE_U16) std::memcpy(&v[i], c.bytes.data() + 2 * i, 2);
    else v[i] = c.bytes[i];
  }
  return v;
}

void expect_image(const j2kfront::Image& got, const Png& p, const std::string& what) {
  const auto want = expected(p);
  ASSERT_EQ(got.width, p.width) << what;
  ASSERT_EQ(got.height, p.height) << what;
  ASSERT_EQ(got.components.size(), want.size()) << what;
  const int precision = p.color == PNG_COLOR_TYPE_PALETTE ? 8 : p.depth;
  for (size_t c = 0; c < want.size(); ++c) {
    const auto& k = got.components[c];
    EXPECT_EQ(k.precision, precision) << what << ", component " << c;
    EXPECT_EQ(k.type, precision == 16 ? J2K_SAMPLE_U16 : J2K_SAMPLE_U8) << what;
    EXPECT_TRUE(samples_of(k) == want[c]) << what << ": component " << c << " differs";
  }
}

j2kfront::Image read_in_bands(const std::string& path, uint32_t band) {
  j2k::io::ImageReader reader(path);
  j2kfront::Image whole = reader.shape();
  while (reader.next_row() < whole.height) {
    const j2kfront::Image b = reader.read_rows(std::min(band, whole.height - reader.next_row()));
    for (size_t c = 0; c < whole.components.size(); ++c)
      whole.components[c].bytes.insert(whole.components[c].bytes.end(), b.components[c].bytes.begin(),
                                       b.components[c].bytes.end());
  }
  return whole;
}

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("j2kfront_png_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

TEST(Png, EveryColourTypeAndDepthInterlacedOrNotWholeAndInBands) {
  struct Kind {
    int color, depth;
  };
  const Kind kinds[] = {{PNG_COLOR_TYPE_GRAY, 1},       {PNG_COLOR_TYPE_GRAY, 2},       {PNG_COLOR_TYPE_GRAY, 4},
                        {PNG_COLOR_TYPE_GRAY, 8},       {PNG_COLOR_TYPE_GRAY, 16},      {PNG_COLOR_TYPE_GRAY_ALPHA, 8},
                        {PNG_COLOR_TYPE_GRAY_ALPHA, 16}, {PNG_COLOR_TYPE_RGB, 8},        {PNG_COLOR_TYPE_RGB, 16},
                        {PNG_COLOR_TYPE_RGB_ALPHA, 8},  {PNG_COLOR_TYPE_RGB_ALPHA, 16}, {PNG_COLOR_TYPE_PALETTE, 4},
                        {PNG_COLOR_TYPE_PALETTE, 8}};
  const std::string path = temp_path("kinds.png");
  uint32_t seed = 1;
  for (const Kind& k : kinds)
    for (bool interlaced : {false, true})
      for (auto [w, h] : {std::pair<uint32_t, uint32_t>{1, 1}, {7, 3}, {33, 17}}) {
        const std::string what = "color " + std::to_string(k.color) + ", " + std::to_string(k.depth) + " bits, " +
                                 std::to_string(w) + "x" + std::to_string(h) + (interlaced ? ", interlaced" : "");
        Png p = random_png(w, h, k.color, k.depth, interlaced, seed++);
        if (k.color == PNG_COLOR_TYPE_PALETTE && seed % 2)  // half of them with transparent entries
          for (size_t i = 0; i < p.palette.size() / 2; ++i) p.alpha.push_back(static_cast<png_byte>(i * 17));
        write_png(path, p);
        expect_image(j2k::io::read_image(path), p, what);
        if (!interlaced) {
          for (uint32_t band : {1u, 2u, 5u}) expect_image(read_in_bands(path, band), p, what + ", bands of " + std::to_string(band));
        } else if (h > 1) {
          try {
            read_in_bands(path, 2);
            ADD_FAILURE() << what << ": read in bands";
          } catch (const j2k::Error& e) {
            EXPECT_EQ(e.code(), j2k::ErrorCode::UnsupportedInput) << e.what();
            EXPECT_NE(std::string(e.what()).find("interlaced"), std::string::npos) << e.what();
          }
        }
      }
  fs::remove(path);
}

// The sample images through PNG: the same samples as their PNM originals.
TEST(Png, SampleImagesReadAsTheirPnmOriginals) {
  const fs::path data = fs::path(J2K_TEST_DATA_DIR);
  const std::string path = temp_path("sample.png");
  for (const char* name : {"camera.pgm", "coffee.ppm"}) {
    const j2kfront::Image pnm = j2k::io::read_image((data / name).string());
    Png p;
    p.width = pnm.width;
    p.height = pnm.height;
    p.color = pnm.components.size() == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY;
    for (const auto& c : pnm.components) p.samples.push_back(samples_of(c));
    write_png(path, p);
    const j2kfront::Image png = j2k::io::read_image(path);
    ASSERT_EQ(png.components.size(), pnm.components.size()) << name;
    for (size_t c = 0; c < png.components.size(); ++c)
      EXPECT_TRUE(png.components[c].bytes == pnm.components[c].bytes) << name << ", component " << c;
  }
  fs::remove(path);
}

std::vector<unsigned char> file_bytes(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  std::vector<unsigned char> b;
  for (int c; f && (c = std::fgetc(f)) != EOF;) b.push_back(static_cast<unsigned char>(c));
  if (f) std::fclose(f);
  return b;
}

void put_bytes(const std::string& path, const std::vector<unsigned char>& b) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(b.data(), 1, b.size(), f);
  std::fclose(f);
}

void put_u32(std::vector<unsigned char>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<size_t>(i)] = static_cast<unsigned char>(v >> (24 - 8 * i));
}

// A 100-byte file whose header claims 2^31-1 squared pixels: refused from the header, at once.
TEST(Png, ForgedSizeIsRefusedFromTheHeader) {
  const std::string path = temp_path("forged.png");
  write_png(path, random_png(2, 2, PNG_COLOR_TYPE_RGB, 16, false, 3));
  std::vector<unsigned char> b = file_bytes(path);
  ASSERT_GT(b.size(), 33u);
  // IHDR: length (8..11), type (12..15), width (16..19), height (20..23), ..., CRC (29..32).
  put_u32(b, 16, 0x7fffffff);
  put_u32(b, 20, 0x7fffffff);
  put_u32(b, 29, static_cast<uint32_t>(crc32(0, b.data() + 12, 17)));
  put_bytes(path, b);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    j2k::io::read_image(path);
    ADD_FAILURE() << "a forged size was read";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::CorruptInput) << e.what();
    EXPECT_NE(std::string(e.what()).find("more pixel data than the file's"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  fs::remove(path);
}

// Every prefix of a small file is refused with an error naming the file, never a crash.
TEST(Png, EveryTruncationThrows) {
  const std::string path = temp_path("whole.png"), cut = temp_path("cut.png");
  write_png(path, random_png(9, 5, PNG_COLOR_TYPE_RGB_ALPHA, 8, false, 4));
  const std::vector<unsigned char> b = file_bytes(path);
  for (size_t n = 1; n < b.size(); ++n) {
    put_bytes(cut, std::vector<unsigned char>(b.begin(), b.begin() + static_cast<ptrdiff_t>(n)));
    try {
      j2k::io::read_image(cut);
      ADD_FAILURE() << "a file cut to " << n << " of " << b.size() << " bytes was read";
    } catch (const j2k::Error& e) {
      EXPECT_NE(std::string(e.what()).find(cut), std::string::npos) << e.what();
    }
  }
  fs::remove(path);
  fs::remove(cut);
}

// PNG output: what write_png writes, read back by the reader (and so by libpng), sample for
// sample, for every channel count and both depths, with padded rows.
TEST(PngWriter, EveryChannelCountAndDepthReadsBackAsWritten) {
  const std::string path = temp_path("written.png");
  std::mt19937 rng(5);
  for (int channels = 1; channels <= 4; ++channels)
    for (int depth : {8, 16})
      for (auto [w, h] : {std::pair<uint32_t, uint32_t>{1, 1}, {1, 9}, {13, 1}, {37, 21}}) {
        const size_t bytes = static_cast<size_t>(depth / 8), stride = w * channels * bytes + 5;  // padded rows
        std::vector<unsigned char> pixels(stride * h);
        for (unsigned char& b : pixels) b = static_cast<unsigned char>(rng());
        j2k::io::PngPixels p;
        p.pixels = pixels.data();
        p.width = w;
        p.height = h;
        p.channels = channels;
        p.bit_depth = depth;
        p.row_stride = static_cast<ptrdiff_t>(stride);
        std::FILE* f = std::fopen(path.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        j2k::io::write_png(f, path, p);
        std::fclose(f);
        const std::string what = std::to_string(channels) + " channels, " + std::to_string(depth) + " bits, " +
                                 std::to_string(w) + "x" + std::to_string(h);
        EXPECT_TRUE(j2k::io::written_by_j2kfront(path)) << what;
        const j2kfront::Image im = j2k::io::read_image(path);
        ASSERT_EQ(im.width, w) << what;
        ASSERT_EQ(im.height, h) << what;
        ASSERT_EQ(im.components.size(), static_cast<size_t>(channels)) << what;
        for (int c = 0; c < channels; ++c) {
          EXPECT_EQ(im.components[c].precision, depth) << what;
          for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x) {
              const unsigned char* at = pixels.data() + y * stride + (x * channels + c) * bytes;
              uint32_t want = at[0];
              if (depth == 16) {
                uint16_t v;
                std::memcpy(&v, at, 2);  // native order in, native order out
                want = v;
              }
              const uint32_t got = depth == 8 ? im.components[c].row<uint8_t>(y)[x] : im.components[c].row<uint16_t>(y)[x];
              ASSERT_EQ(got, want) << what << " at " << x << "," << y << " channel " << c;
            }
        }
      }
  fs::remove(path);
}

TEST(PngWriter, BadPicturesAndFailedWritesAreErrorsNamingTheFile) {
  std::vector<unsigned char> pixels(64);
  j2k::io::PngPixels p;
  p.pixels = pixels.data();
  p.width = 4;
  p.height = 4;
  p.channels = 3;
  p.row_stride = 12;
  auto refused = [&](const j2k::io::PngPixels& bad, const char* word, std::FILE* f) {
    try {
      j2k::io::write_png(f, "pic.png", bad);
      ADD_FAILURE() << "written: " << word;
    } catch (const j2k::Error& e) {
      EXPECT_NE(std::string(e.what()).find("pic.png"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
  };
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  auto q = p;
  q.width = 0;
  refused(q, "2^31-1", f);
  q = p;
  q.channels = 5;
  refused(q, "1 to 4 channels", f);
  q = p;
  q.bit_depth = 12;
  refused(q, "8 or 16 bits", f);
  q = p;
  q.row_stride = 11;
  refused(q, "row stride", f);
  std::fclose(f);
  // A write that fails (the stream is read-only): an I/O error, not a crash.
  const std::string path = temp_path("readonly.png");
  { std::FILE* w = std::fopen(path.c_str(), "wb"); std::fclose(w); }
  std::FILE* ro = std::fopen(path.c_str(), "rb");
  ASSERT_NE(ro, nullptr);
  refused(p, "cannot write", ro);
  std::fclose(ro);
  // Not ours: an empty file, a PNG from elsewhere, no file at all.
  EXPECT_FALSE(j2k::io::written_by_j2kfront(path));
  const fs::path foreign = fs::path(J2K_TEST_DATA_DIR) / ".." / "fuzz" / "read_image" / "rgb8.png";
  ASSERT_TRUE(fs::exists(foreign));
  EXPECT_FALSE(j2k::io::written_by_j2kfront(foreign.string()));
  EXPECT_FALSE(j2k::io::written_by_j2kfront(temp_path("absent.png")));
  fs::remove(path);
}

}  // namespace
