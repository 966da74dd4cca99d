// SPDX-License-Identifier: BSD-2-Clause
// The encoder by rows of tiles (j2k_encoder_create_by_rows / j2k_encoder_run_by_rows,
// codec/encoder.hpp): each row of tiles asked of a source in turn and the file handed to a
// writer in pieces must be byte for byte the file the whole-image encoder writes, for every
// geometry (tile sizes, odd sizes and origins, a first row cut by the image's top, subsampled
// components), 1 to 4 components of 8 and 16 bits, the 5/3 and the 9/7, lossless, with rates
// and PSNR targets, and the codestream options; what it cannot do, and a memory limit one row
// does not fit, are refused naming why.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "j2kfront/j2kfront.hpp"
#include "tests/support/image_rows.hpp"
#include "tests/support/pattern_images.hpp"

namespace {

using test_support::rows_of;
using test_support::shape_of;

// An image whose components have their own subsampling, random samples at `precision`.
j2kfront::Image subsampled_image(uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, const std::vector<std::pair<int, int>>& steps,
                                 unsigned seed) {
  j2kfront::Image im;
  im.x0 = x0, im.y0 = y0, im.width = w, im.height = h;
  std::mt19937 rng(seed);
  for (const auto& [dx, dy] : steps) {
    j2kfront::Image::Component& c = im.add_component(J2K_SAMPLE_U8, 8, dx, dy);
    for (unsigned char& b : c.bytes) b = static_cast<unsigned char>(rng() & 0xff);
  }
  return im;
}

struct RowsRun {
  std::vector<uint8_t> bytes;
  std::vector<std::pair<uint32_t, uint32_t>> asked;  // (y0, rows) of every call, in order
  j2k_encode_report report{};
};

// The file of `image` by rows of tiles, and what the encoder asked for.
RowsRun by_rows(const j2kfront::Settings& s, const j2kfront::Coding& c, const j2kfront::Image& image) {
  const j2kfront::Image shape = shape_of(image);  // its samples are not read
  j2kfront::Encoder encoder(s, c, shape.view(), j2kfront::Encoder::by_tile_rows);
  RowsRun run;
  const uint64_t size = encoder.encode_by_rows(
      [&](uint32_t y0, uint32_t rows) {
        run.asked.push_back({y0, rows});
        return rows_of(image, y0, rows);
      },
      [&](const uint8_t* data, size_t n) { run.bytes.insert(run.bytes.end(), data, data + n); });
  EXPECT_EQ(size, run.bytes.size());
  run.report = encoder.report();
  return run;
}

std::vector<uint8_t> whole(const j2kfront::Settings& s, const j2kfront::Coding& c, const j2kfront::Image& image) {
  return j2kfront::Encoder(s, c, image.view()).encode(image.view());
}

// The rows asked for: the image's, top to bottom, each a row of the tile grid.
void expect_rows_of_tiles(const RowsRun& run, const j2kfront::Settings& s, const j2kfront::Image& image, const std::string& what) {
  ASSERT_FALSE(run.asked.empty()) << what;
  EXPECT_EQ(run.report.tile_rows, static_cast<int>(run.asked.size())) << what;
  uint32_t next = image.y0;
  for (const auto& [y0, rows] : run.asked) {
    EXPECT_EQ(y0, next) << what << ": rows asked out of order";
    const uint32_t top = s.tile_y0 + (y0 - s.tile_y0) / s.tile_h * s.tile_h;  // the grid line at or above
    EXPECT_TRUE(y0 == image.y0 || y0 == top) << what << ": row " << y0 << " does not start a row of tiles";
    EXPECT_LE(y0 + rows, top + s.tile_h) << what << ": rows " << y0 << " + " << rows << " cross a row of tiles";
    next = y0 + rows;
  }
  EXPECT_EQ(next, image.y0 + image.height) << what;
}

struct Case {
  const char* what;
  uint32_t x0, y0, w, h;
  int ncomp;
  j2k_sample_type type;
  int precision;
  uint32_t tile_w, tile_h, tile_x0, tile_y0;
  int levels;
  bool irreversible;
  std::vector<double> rates;  // empty: every pass
};

TEST(EncoderByRows, SameFileAsTheWholeImage) {
  const std::vector<Case> cases = {
      {"RGB 8-bit 5/3, 32^2 tiles", 0, 0, 97, 83, 3, J2K_SAMPLE_U8, 8, 32, 32, 0, 0, 5, false, {}},
      {"RGB 8-bit 9/7 -r 20,8, odd origins", 13, 7, 101, 77, 3, J2K_SAMPLE_U8, 8, 40, 24, 5, 3, 3, true, {20, 8}},
      {"grey 12-bit in 16, -r 10, first row cut by the image", 3, 250, 64, 130, 1, J2K_SAMPLE_U16, 12, 64, 50, 0, 220, 4, false, {10}},
      {"grey + alpha signed 16-bit 9/7", 5, 9, 50, 61, 2, J2K_SAMPLE_I16, 16, 17, 13, 2, 4, 3, true, {}},
      {"RGBA 8-bit, full-width tiles, -r 30,10,1", 0, 0, 70, 70, 4, J2K_SAMPLE_U8, 8, 70, 16, 0, 0, 3, false, {30, 10, 1}},
      {"grey 5-bit in 8, 9/7 -r 4, one-sample-high tiles", 1, 2, 23, 9, 1, J2K_SAMPLE_U8, 5, 8, 1, 0, 2, 0, true, {4}},
      {"RGB 16-bit 5/3, one row of tiles over two", 0, 0, 48, 40, 3, J2K_SAMPLE_U16, 16, 16, 32, 0, 0, 4, false, {}},
      {"signed 7-bit in 8, -r 6", 0, 11, 33, 57, 2, J2K_SAMPLE_I8, 7, 33, 20, 0, 0, 2, false, {6}}};
  for (const Case& k : cases) {
    for (int pattern : {0, 1}) {
      const std::string what = std::string(k.what) + (pattern ? ", smooth" : ", random");
      SCOPED_TRACE(what);
      const j2kfront::Image image =
          test_support::pattern_image(k.x0, k.y0, k.w, k.h, k.ncomp, k.type, k.precision, pattern, 11 + static_cast<unsigned>(pattern));
      j2kfront::Settings s;
      s.backend = J2K_BACKEND_CPU;
      s.threads = 2;
      s.levels = k.levels;
      s.wavelet = k.irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
      s.tile_w = k.tile_w, s.tile_h = k.tile_h, s.tile_x0 = k.tile_x0, s.tile_y0 = k.tile_y0;
      j2kfront::Coding c;
      c.rates = k.rates;
      const RowsRun run = by_rows(s, c, image);
      EXPECT_TRUE(run.bytes == whole(s, c, image)) << what;
      expect_rows_of_tiles(run, s, image, what);
      EXPECT_GT(run.report.tile_rows, 1) << what;
      EXPECT_EQ(run.report.bytes, run.bytes.size()) << what;
    }
  }
}

// 4:2:0 and a component subsampled 3 x 2: each row's components hold their own rows (B-12).
TEST(EncoderByRows, SubsampledComponents) {
  for (const auto& steps : {std::vector<std::pair<int, int>>{{1, 1}, {2, 2}, {2, 2}}, std::vector<std::pair<int, int>>{{1, 1}, {3, 2}}}) {
    const j2kfront::Image image = subsampled_image(1, 3, 61, 45, steps, 5);
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    s.levels = 2;
    s.tile_w = 24, s.tile_h = 12;
    for (bool irreversible : {false, true}) {
      s.wavelet = irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
      j2kfront::Coding c;
      if (irreversible) c.rates = {12};
      const RowsRun run = by_rows(s, c, image);
      EXPECT_TRUE(run.bytes == whole(s, c, image)) << steps.size() << " components, " << (irreversible ? "9/7" : "5/3");
      expect_rows_of_tiles(run, s, image, "subsampled");
    }
  }
}

// The codestream's options, and a JP2 file around it (its boxes written before the
// codestream, whose size they name).
TEST(EncoderByRows, CodingOptionsAndJp2) {
  const j2kfront::Image image = test_support::pattern_image(7, 5, 150, 110, 3, J2K_SAMPLE_U8, 8, 1, 3);
  j2kfront::Settings base;
  base.backend = J2K_BACKEND_CPU;
  base.tile_w = 64, base.tile_h = 48;
  base.levels = 4;
  struct Option {
    const char* what;
    void (*change)(j2kfront::Settings&, j2kfront::Coding&);
  };
  const std::vector<Option> options = {
      {"JP2", [](auto&, auto& c) { c.format = J2K_FORMAT_JP2; }},
      {"TLM, PLT, tile-parts by resolution", [](auto&, auto& c) { c.tlm = c.plt = true, c.tile_parts = 'R'; }},
      {"SOP, EPH, RPCL, precincts", [](auto&, auto& c) { c.sop = c.eph = true, c.progression = J2K_RPCL, c.precincts = {{32, 32}}; }},
      {"9/7, PSNR 30,40, CPRL, tile-parts by component", [](auto& s, auto& c) {
         s.wavelet = J2K_WAVELET_97, c.psnr = {30, 40}, c.progression = J2K_CPRL, c.tile_parts = 'C';
       }},
      {"mode switches, 32 x 16 blocks, -r 15", [](auto&, auto& c) {
         c.modes = J2K_MODE_BYPASS | J2K_MODE_RESET | J2K_MODE_SEGMARK, c.block_w = 32, c.block_h = 16, c.rates = {15};
       }},
      {"9/7 qstep, JP2 with alpha", [](auto& s, auto& c) {
         s.wavelet = J2K_WAVELET_97, c.qstep = 0.004, c.format = J2K_FORMAT_JP2, c.last_is_alpha = true;
       }},
      {"HT, no target", [](auto&, auto& c) { c.modes = J2K_MODE_HT; }},
      {"HT 9/7, no target, JPH", [](auto& s, auto& c) { s.wavelet = J2K_WAVELET_97, c.modes = J2K_MODE_HT, c.format = J2K_FORMAT_JP2; }},
      {"no MCT, guard bits 3", [](auto& s, auto& c) { s.mct = J2K_MCT_OFF, c.guard_bits = 3; }}};
  for (const Option& o : options) {
    j2kfront::Settings settings = base;
    j2kfront::Coding c;
    o.change(settings, c);
    const RowsRun run = by_rows(settings, c, image);
    EXPECT_TRUE(run.bytes == whole(settings, c, image)) << o.what;
    EXPECT_EQ(run.report.tile_rows, 3) << o.what;
  }
}

// A file larger than a piece reaches the writer in several pieces, in order.
TEST(EncoderByRows, LargeFileInPieces) {
  const j2kfront::Image image = test_support::pattern_image(0, 0, 512, 350, 3, J2K_SAMPLE_U8, 8, 0, 9);  // ~0.5 MiB coded
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.tile_w = s.tile_h = 128;
  j2kfront::Coding c;
  c.format = J2K_FORMAT_JP2;
  const j2kfront::Image shape = shape_of(image);
  j2kfront::Encoder encoder(s, c, shape.view(), j2kfront::Encoder::by_tile_rows);
  std::vector<uint8_t> bytes;
  size_t pieces = 0, largest = 0;
  encoder.encode_by_rows([&](uint32_t y0, uint32_t rows) { return rows_of(image, y0, rows); },
                         [&](const uint8_t* data, size_t n) {
                           ++pieces, largest = std::max(largest, n);
                           bytes.insert(bytes.end(), data, data + n);
                         });
  EXPECT_TRUE(bytes == whole(s, c, image));
  EXPECT_GT(pieces, 2u);
  EXPECT_LT(largest, bytes.size() / 2) << "no piece holds the whole file";
  const j2k_plan_info info = encoder.info();
  EXPECT_EQ(info.tiles_x, 4);
  EXPECT_EQ(info.tiles_y, 3);
  EXPECT_EQ(info.tile_components, 36u);
  EXPECT_EQ(info.backend, J2K_BACKEND_CPU);
}

// A limit the whole image does not fit but a row does: whole refused at create, by rows the
// same file as without a limit. A limit a row does not fit: refused at create naming the row,
// what its plan needs and the limit.
TEST(EncoderByRows, MemoryLimit) {
  // Constant samples: the coded passes are few, so that the limit is the coefficients'.
  const j2kfront::Image image = test_support::pattern_image(0, 0, 512, 512, 3, J2K_SAMPLE_U8, 8, 2, 4);
  const j2kfront::Image shape = shape_of(image);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.threads = 2;  // the plans' scratch grows with the threads: fixed, so that the limits hold on any machine
  s.tile_w = s.tile_h = 128;
  j2kfront::Coding c;
  const std::vector<uint8_t> want = whole(s, c, image);
  c.max_bytes = uint64_t{2} << 20;  // the whole image's coefficients alone take 3 MiB; a row's, 0.75 MiB
  j2k_encoder* e = nullptr;
  EXPECT_EQ(j2k_encoder_create(&s, c.get(), image.view().get(), &e), J2K_OUT_OF_MEMORY);
  j2k_encoder_destroy(e);
  const RowsRun run = by_rows(s, c, image);
  EXPECT_TRUE(run.bytes == want);
  EXPECT_EQ(run.report.tile_rows, 4);

  c.max_bytes = uint64_t{512} << 10;
  EXPECT_EQ(j2k_encoder_create_by_rows(&s, c.get(), shape.view().get(), &e), J2K_OUT_OF_MEMORY);
  EXPECT_EQ(e, nullptr);
  const std::string why = j2k_last_error();
  for (const char* word : {"a row of tiles (canvas rows 0..127", "the plan needs", "0.5 MiB of memory allowed"})
    EXPECT_NE(why.find(word), std::string::npos) << "'" << word << "' is not in: " << why;
}

// What the rows cannot do, and calls that do not match the encoder, are refused naming why.
TEST(EncoderByRows, RefusedNamingWhy) {
  const j2kfront::Image image = test_support::pattern_image(0, 0, 64, 64, 1, J2K_SAMPLE_U8, 8, 1, 2);
  const j2kfront::Image shape = shape_of(image);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.tile_w = s.tile_h = 32;
  s.levels = 3;
  j2kfront::Coding c;
  c.modes = J2K_MODE_HT;
  c.rates = {8};
  j2k_encoder* e = nullptr;
  EXPECT_EQ(j2k_encoder_create_by_rows(&s, c.get(), shape.view().get(), &e), J2K_UNSUPPORTED_INPUT);
  for (const char* word : {"HT rate control", "whole image's coefficients", "a row of tiles at a time"})
    EXPECT_NE(std::string(j2k_last_error()).find(word), std::string::npos) << j2k_last_error();

  c = j2kfront::Coding();
  j2kfront::Encoder rows(s, c, shape.view(), j2kfront::Encoder::by_tile_rows);
  const uint8_t* data = nullptr;
  size_t size = 0;
  EXPECT_EQ(j2k_encoder_run(rows.get(), image.view().get(), &data, &size), J2K_INVALID_ARGUMENT);
  EXPECT_NE(std::string(j2k_last_error()).find("run it by rows (j2k_encoder_run_by_rows"), std::string::npos) << j2k_last_error();
  j2k_ticket ticket = 0;
  EXPECT_EQ(j2k_encoder_submit(rows.get(), image.view().get(), &ticket), J2K_INVALID_ARGUMENT);
  EXPECT_NE(std::string(j2k_last_error()).find("not as frames in flight"), std::string::npos) << j2k_last_error();
  j2kfront::Encoder whole_encoder(s, c, image.view());
  auto read = [](void*, uint32_t, uint32_t, j2k_image_view*) { return J2K_OK; };
  auto write = [](void*, const uint8_t*, size_t) { return J2K_OK; };
  EXPECT_EQ(j2k_encoder_run_by_rows(whole_encoder.get(), read, nullptr, write, nullptr, nullptr), J2K_INVALID_ARGUMENT);
  EXPECT_NE(std::string(j2k_last_error()).find("made for whole images (j2k_encoder_create)"), std::string::npos) << j2k_last_error();

  // A band of the wrong height is refused as a plan refuses a view of another shape.
  EXPECT_THROW(rows.encode_by_rows([&](uint32_t y0, uint32_t n) { return rows_of(image, y0, n - 1); },
                                   [](const uint8_t*, size_t) {}),
               j2kfront::Error);
}

// What the callbacks say stops the run: a C status comes back with a message naming the
// callback; what a C++ callback throws comes out as it was thrown.
TEST(EncoderByRows, CallbacksStopTheRun) {
  const j2kfront::Image image = test_support::pattern_image(0, 0, 64, 64, 1, J2K_SAMPLE_U8, 8, 1, 2);
  const j2kfront::Image shape = shape_of(image);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.tile_w = s.tile_h = 32;
  s.levels = 3;
  j2kfront::Encoder encoder(s, j2kfront::Coding(), shape.view(), j2kfront::Encoder::by_tile_rows);

  struct Source {
    const j2kfront::Image* image;
    j2kfront::ImageView band;
    int calls = 0;
  } source{&image, j2kfront::ImageView()};
  auto read = [](void* user, uint32_t y0, uint32_t rows, j2k_image_view* band) {
    Source& src = *static_cast<Source*>(user);
    if (++src.calls == 2) return J2K_IO_ERROR;
    src.band = rows_of(*src.image, y0, rows);
    *band = *src.band.get();
    return J2K_OK;
  };
  auto write = [](void*, const uint8_t*, size_t) { return J2K_OK; };
  uint64_t size = 1;
  EXPECT_EQ(j2k_encoder_run_by_rows(encoder.get(), read, &source, write, nullptr, &size), J2K_IO_ERROR);
  EXPECT_EQ(size, 0u);
  for (const char* word : {"row reader", "canvas rows 32..63", "J2K_IO_ERROR"})
    EXPECT_NE(std::string(j2k_last_error()).find(word), std::string::npos) << j2k_last_error();

  auto fail_write = [](void*, const uint8_t*, size_t) { return J2K_IO_ERROR; };
  source.calls = 10;
  EXPECT_EQ(j2k_encoder_run_by_rows(encoder.get(), read, &source, fail_write, nullptr, &size), J2K_IO_ERROR);
  EXPECT_NE(std::string(j2k_last_error()).find("byte writer"), std::string::npos) << j2k_last_error();

  struct Stop {};
  EXPECT_THROW(encoder.encode_by_rows([](uint32_t, uint32_t) -> j2kfront::ImageView { throw Stop(); },
                                      [](const uint8_t*, size_t) {}),
               Stop);
  // The encoder runs again after a stopped run.
  std::vector<uint8_t> bytes;
  encoder.encode_by_rows([&](uint32_t y0, uint32_t rows) { return rows_of(image, y0, rows); },
                         [&](const uint8_t* data, size_t n) { bytes.insert(bytes.end(), data, data + n); });
  EXPECT_TRUE(bytes == whole(s, j2kfront::Coding(), image));
}

}  // namespace
