// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront transform --mosaic FILE.png` and `-v`: the picture's geometry worked out from the
// layout rule, its pixels from the coefficient files of the same run, and the rules about
// existing files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "io/image_io.hpp"
#include "tests/support/npy_reader.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

namespace fs = std::filesystem;
using test_support::quote;

namespace {

const std::string kCli = J2K_CLI_PATH;
const std::string kData = J2K_TEST_DATA_DIR;

class Mosaic : public test_support::TempDirTest {
 protected:
  test_support::CommandResult cli(const std::string& args) {
    return test_support::run_command(quote(kCli) + " " + args);
  }
};

struct Rgb {
  int r, g, b;
  bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
};
Rgb pixel(const j2kfront::Image& im, int64_t x, int64_t y) {
  return {im.components[0].row<uint8_t>(y)[x], im.components[1].row<uint8_t>(y)[x], im.components[2].row<uint8_t>(y)[x]};
}
const Rgb kFrame{255, 170, 0};

// camera.pgm, 512 x 512, 5 levels, one tile: the LL is 16 x 16 at the top left; each level
// adds a one-pixel line and its high bands: 16+1+16 = 33, 33+1+32 = 66, 66+1+64 = 131,
// 131+1+128 = 260, 260+1+256 = 517 each way.
TEST_F(Mosaic, GrayImageLaidOutAndScaledAsDocumented) {
  const auto r = cli("transform " + quote(kData + "/camera.pgm") + " " + quote(path("out")) + " --mosaic " +
                     quote(path("m.png")) + " --levels 5 --backend cpu -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const j2kfront::Image m = j2k::io::read_image(path("m.png"));
  ASSERT_EQ(m.width, 517u);
  ASSERT_EQ(m.height, 517u);
  ASSERT_EQ(m.components.size(), 3u);
  // The frames: the LL's right and bottom lines, and level 1's, across their whole level.
  for (int64_t k = 0; k < 33; ++k) {
    EXPECT_EQ(pixel(m, 16, k), kFrame) << k;
    EXPECT_EQ(pixel(m, k, 16), kFrame) << k;
  }
  for (int64_t k = 0; k < 517; ++k) {
    EXPECT_EQ(pixel(m, 260, k), kFrame) << k;
    EXPECT_EQ(pixel(m, k, 260), kFrame) << k;
  }
  // The pixels, from the coefficients the same run wrote (OpenJPEG's layout: LL 16 x 16 at
  // (0,0); HH1 256 x 256 at (256,256) of the array, drawn at (261,261)).
  const auto npy = test_support::read_npy(path("out") + "/tile0_comp0.npy");
  ASSERT_EQ(npy.cols, 512);
  auto coefficient = [&](int64_t x, int64_t y) { return static_cast<int32_t>(npy.words[y * 512 + x]); };
  int32_t lo = coefficient(0, 0), hi = lo;
  for (int64_t y = 0; y < 16; ++y)
    for (int64_t x = 0; x < 16; ++x) lo = std::min(lo, coefficient(x, y)), hi = std::max(hi, coefficient(x, y));
  ASSERT_LT(lo, hi);
  for (int64_t y = 0; y < 16; ++y)
    for (int64_t x = 0; x < 16; ++x) {
      const int want = static_cast<int>(std::lround((coefficient(x, y) - lo) * 255.0 / (hi - lo)));
      ASSERT_EQ(pixel(m, x, y), (Rgb{want, want, want})) << "LL " << x << "," << y;
    }
  std::vector<double> magnitudes;
  for (int64_t y = 256; y < 512; ++y)
    for (int64_t x = 256; x < 512; ++x) magnitudes.push_back(std::abs(coefficient(x, y)));
  std::vector<double> sorted = magnitudes;
  std::sort(sorted.begin(), sorted.end());
  const double p99 = sorted[(sorted.size() - 1) * 99 / 100];
  ASSERT_GT(p99, 0);
  for (int64_t y = 0; y < 256; ++y)
    for (int64_t x = 0; x < 256; ++x) {
      const int want = static_cast<int>(std::lround(std::min(255.0, magnitudes[y * 256 + x] * 255.0 / p99)));
      ASSERT_EQ(pixel(m, 261 + x, 261 + y), (Rgb{want, want, want})) << "HH1 " << x << "," << y;
    }
}

// astronaut.ppm (512 x 512 RGB) at (13,7) in 200 x 200 tiles from (0,0), 3 levels: tile
// columns 187, 200 and 125 wide, rows 193, 200 and 119 high, each drawn 3 pixels larger (a
// line per level), 2 pixels between tiles: 190+203+128+4 = 525 wide and 196+203+122+4 = 525
// high per component; three components 8 pixels apart: 3 * 525 + 16 = 1591.
TEST_F(Mosaic, TilesInTheirGridAndComponentsSideBySideOnly) {
  const auto r = cli("transform " + quote(kData + "/astronaut.ppm") + " --mosaic " + quote(path("m.png")) +
                     " --tile-size 200,200 --image-origin 13,7 --levels 3 --wavelet 9/7 --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("-> " + path("m.png")), std::string::npos) << r.output;
  const j2kfront::Image m = j2k::io::read_image(path("m.png"));
  EXPECT_EQ(m.width, 1591u);
  EXPECT_EQ(m.height, 525u);
  // With the input as its only positional argument, nothing else is written.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"m.png"});
  // Background between the tiles and between the components.
  EXPECT_EQ(pixel(m, 190, 0), (Rgb{40, 40, 40}));
  EXPECT_EQ(pixel(m, 525 + 3, 10), (Rgb{40, 40, 40}));
}

TEST_F(Mosaic, ReplacesOnlyItsOwnPicturesNeverTheInput) {
  const std::string image = quote(kData + "/camera.pgm");
  const std::string m = path("m.png");
  ASSERT_EQ(cli("transform " + image + " --mosaic " + quote(m) + " -q").exit_code, 0);
  EXPECT_EQ(cli("transform " + image + " --mosaic " + quote(m) + " -q --levels 2").exit_code, 0)
      << "a rerun replaces its own mosaic";
  EXPECT_EQ(j2k::io::read_image(m).width, 514u);

  const std::string foreign = path("photo.png");
  { std::ofstream(foreign) << "not a j2kfront picture"; }
  auto r = cli("transform " + image + " --mosaic " + quote(foreign) + " -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("photo.png: exists and was not written by j2kfront; use --force"), std::string::npos)
      << r.output;
  std::ifstream in(foreign);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "not a j2kfront picture");
  r = cli("transform " + image + " --mosaic " + quote(foreign) + " -q --force");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(j2k::io::written_by_j2kfront(foreign));

  // The input, even with --force; a directory.
  fs::copy_file(kData + "/camera.pgm", path("in.pgm"));
  r = cli("transform " + quote(path("in.pgm")) + " --mosaic " + quote(path("in.pgm")) + " --force -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("is the input file"), std::string::npos) << r.output;
  EXPECT_EQ(fs::file_size(path("in.pgm")), fs::file_size(kData + "/camera.pgm"));
  r = cli("transform " + image + " --mosaic " + quote(dir_.string()) + " -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("is a directory"), std::string::npos) << r.output;
  // No temporary file is left behind by any of these.
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".partial"), std::string::npos) << e.path();
}

TEST_F(Mosaic, DrawsOneImageOnly) {
  fs::create_directories(path("images"));
  fs::copy_file(kData + "/camera.pgm", path("images/a.pgm"));
  fs::copy_file(kData + "/camera.pgm", path("images/b.pgm"));
  auto r = cli("transform " + quote(path("images")) + " " + quote(path("out")) + " --mosaic " + quote(path("m.png")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--mosaic: draws one image; it got 2 images"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("m.png")));
  EXPECT_FALSE(fs::exists(path("out")));
}

TEST_F(Mosaic, VerboseTellsThePlanTheFilesAndTheSkippedOnes) {
  fs::create_directories(path("images"));
  fs::copy_file(kData + "/camera.pgm", path("images/a.pgm"));
  { std::ofstream(path("images/notes.txt")) << "x"; }
  auto r = cli("transform " + quote(path("images")) + " " + quote(path("out")) + " -v --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("skipping " + path("images/notes.txt") + ": not an image file"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("  plan: 1 x 1 tiles, 1 tile-components, 1 queue; holds "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  wrote 2 files, "), std::string::npos) << r.output;
  r = cli("transform " + quote(kData + "/camera.pgm") + " --mosaic " + quote(path("m.png")) + " -v");
  EXPECT_NE(r.output.find("  mosaic: " + path("m.png") + ", 517 x 517 pixels"), std::string::npos) << r.output;
  r = cli("transform " + quote(kData + "/camera.pgm") + " " + quote(path("o")) + " -q -v");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("excludes"), std::string::npos) << r.output;
  // Without -v, none of it.
  r = cli("transform " + quote(path("images")) + " " + quote(path("out2")));
  EXPECT_EQ(r.output.find("skipping"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("plan:"), std::string::npos) << r.output;
}

// The picture in docs/cli.md is what the command printed beside it draws.
TEST_F(Mosaic, TheReadmePictureIsWhatItsCommandDraws) {
  const std::string committed = kData + "/../../docs/camera-mosaic.png";
  const auto r = cli("transform " + quote(kData + "/camera.pgm") + " --mosaic " + quote(path("m.png")) + " --levels 4 -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const j2kfront::Image want = j2k::io::read_image(committed), got = j2k::io::read_image(path("m.png"));
  ASSERT_EQ(got.width, want.width);
  ASSERT_EQ(got.height, want.height);
  for (size_t c = 0; c < 3; ++c)
    EXPECT_EQ(got.components[c].bytes, want.components[c].bytes) << "component " << c << ": regenerate " << committed;
}

}  // namespace
