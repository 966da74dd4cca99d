// `j2kfront compress`: lossless 5/3 codestreams checked by the outside decoders (OpenJPEG's
// opj_decompress and Grok's grk_decompress give back exactly the input's samples) and against
// OpenJPEG's own encoder (opj_compress, same settings: the same bytes, less its COM marker).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "io/image_io.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

namespace fs = std::filesystem;
using test_support::quote;
using test_support::run_command;

namespace {

const std::string kCli = J2K_CLI_PATH;
const std::string kData = J2K_TEST_DATA_DIR;

bool have(const char* tool) { return run_command(std::string("command -v ") + tool).exit_code == 0; }

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// A codestream without its COM marker segments (opj_compress writes one naming itself).
std::vector<uint8_t> without_comments(std::vector<uint8_t> b) {
  for (size_t i = 0; i + 3 < b.size(); ++i)
    if (b[i] == 0xFF && b[i + 1] == 0x64) {
      const size_t length = (static_cast<size_t>(b[i + 2]) << 8) | b[i + 3];
      b.erase(b.begin() + static_cast<ptrdiff_t>(i), b.begin() + static_cast<ptrdiff_t>(i + 2 + length));
      break;
    }
  return b;
}

class Compress : public test_support::TempDirTest {
 protected:

  // Compresses `input` with `args`, decodes it with each outside decoder there is, and expects
  // the input's samples back.
  // grok: whether Grok is expected to decode it. Debian 12's grk_decompress (Grok 10) gets
  // clipped border tiles with more levels than they have samples wrong, also in the streams
  // opj_compress writes with the same settings (SameBytesAsOpenJpegsEncoder shows ours are
  // those); OpenJPEG's decoder is the oracle for those.
  void round_trip(const std::string& input, const std::string& args, bool grok = true) {
    const std::string j2k = path("out.j2k");
    fs::remove(j2k);
    auto r = run_command(quote(kCli) + " compress -i " + quote(input) + " -o " + quote(j2k) + " " + args + " -q");
    ASSERT_EQ(r.exit_code, 0) << args << ": " << r.output;
    const j2kfront::Image want = j2k::io::read_image(input);
    int decoders = 0;
    for (const char* decoder : {"opj_decompress", "grk_decompress"}) {
      if (!have(decoder) || (!grok && std::string(decoder) == "grk_decompress")) continue;
      ++decoders;
      const std::string tif = path(std::string(decoder) + ".tif");
      fs::remove(tif);
      r = run_command(std::string(decoder) + " -i " + quote(j2k) + " -o " + quote(tif));
      ASSERT_EQ(r.exit_code, 0) << decoder << " " << args << ": " << r.output;
      const j2kfront::Image got = j2k::io::read_image(tif);
      ASSERT_EQ(got.width, want.width) << decoder << " " << args;
      ASSERT_EQ(got.height, want.height) << decoder << " " << args;
      ASSERT_EQ(got.components.size(), want.components.size()) << decoder << " " << args;
      for (size_t c = 0; c < want.components.size(); ++c) {
        EXPECT_EQ(got.components[c].precision, want.components[c].precision) << decoder << " " << args;
        EXPECT_TRUE(got.components[c].bytes == want.components[c].bytes)
            << decoder << " " << input << " " << args << ": component " << c << " differs";
      }
    }
    ASSERT_GT(decoders, 0);
  }

  void SkipWithoutDecoders() {
    if (!have("opj_decompress") && !have("grk_decompress"))
      GTEST_SKIP() << "no outside JPEG 2000 decoder: opj_decompress and grk_decompress not found (Debian: "
                      "apt install libopenjp2-tools grokj2k-tools)";
  }
};

TEST_F(Compress, SampleImagesDecodeToTheirSamplesInOutsideDecoders) {
  SkipWithoutDecoders();
  for (const char* name : {"camera.pgm", "astronaut.ppm", "moon_u16.tif", "hubble_deep_field.tif"})
    round_trip(kData + "/" + name, "");
}

// Tiles at odd origins, every count of resolutions from 1 (no DWT) to more than a tile
// allows, 1-pixel images.
TEST_F(Compress, TilesOriginsAndLevelsDecodeExactly) {
  SkipWithoutDecoders();
  round_trip(kData + "/coffee.ppm", "-t 200,136 -n 4 -d 7,5 -T 3,1");
  round_trip(kData + "/moon_u16.tif", "-t 97,64 -n 3 -d 1,1");
  for (const char* n : {"1", "2", "5"}) round_trip(kData + "/camera.pgm", std::string("-n ") + n + " -t 100,77");
  // The border tiles are 12 x 50 samples: 7 resolutions have empty ones there.
  round_trip(kData + "/camera.pgm", "-n 7 -t 100,77 -d 3,5 -T 1,0", /*grok=*/false);
  for (auto [w, h, n] : {std::tuple<int, int, int>{1, 1, 1}, {1, 17, 1}, {23, 1, 1}, {3, 2, 2}, {5, 9, 3}}) {
    const std::string pgm = path("tiny.pgm");
    {
      std::ofstream f(pgm, std::ios::binary);
      f << "P5\n" << w << " " << h << "\n255\n";
      for (int i = 0; i < w * h; ++i) f.put(static_cast<char>(i * 37 + 11));
    }
    round_trip(pgm, "-n " + std::to_string(n));
    // At an odd origin Grok 10 gets some of these wrong (3 x 2: also opj_compress's stream).
    round_trip(pgm, "-n " + std::to_string(n) + " -d 3,1", /*grok=*/false);
  }
}

// Four components (RGBA, through a PNG): the RCT on the first three, the fourth as it is.
TEST_F(Compress, FourComponentsDecodeExactly) {
  SkipWithoutDecoders();
  std::vector<uint8_t> rgba(37 * 23 * 4);
  std::mt19937 rng(3);
  for (uint8_t& v : rgba) v = static_cast<uint8_t>(rng());
  j2k::io::PngPixels p;
  p.pixels = rgba.data();
  p.width = 37;
  p.height = 23;
  p.channels = 4;
  p.row_stride = 37 * 4;
  const std::string png = path("rgba.png");
  std::FILE* f = std::fopen(png.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  j2k::io::write_png(f, png, p);
  std::fclose(f);
  round_trip(png, "-n 3");
}

// OpenJPEG's encoder with the same settings writes the same codestream, less its COM marker.
TEST_F(Compress, SameBytesAsOpenJpegsEncoder) {
  if (!have("opj_compress")) GTEST_SKIP() << "opj_compress not found (Debian: apt install libopenjp2-tools)";
  {
    std::ofstream f(path("tiny.pgm"), std::ios::binary);
    f << "P5\n3 2\n255\n";
    for (int i = 0; i < 6; ++i) f.put(static_cast<char>(i * 37 + 11));
  }
  for (const std::string& args : {"-i " + quote(path("tiny.pgm")) + " -n 2 -d 3,1","-i " + quote(kData + "/astronaut.ppm"),
                                  "-i " + quote(kData + "/coffee.ppm") + " -t 200,136 -n 4 -d 7,5 -T 3,1",
                                  "-i " + quote(kData + "/moon_u16.tif") + " -n 8",
                                  "-i " + quote(kData + "/camera.pgm") + " -n 7 -t 100,77 -d 3,5 -T 1,0"}) {
    auto r = run_command(quote(kCli) + " compress " + args + " -o " + quote(path("ours.j2k")) + " --force -q");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_command("opj_compress " + args + " -o " + quote(path("opj.j2k")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto ours = file_bytes(path("ours.j2k")), theirs = without_comments(file_bytes(path("opj.j2k")));
    EXPECT_EQ(ours.size(), theirs.size()) << args;
    EXPECT_TRUE(ours == theirs) << args;
  }
}

TEST_F(Compress, BadRequestsAreRefusedBeforeAnyWork) {
  const std::string image = quote(kData + "/camera.pgm");
  auto r = run_command(quote(kCli) + " compress -i " + image + " -o " + quote(path("x.jp2")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("JP2 files are not written yet"), std::string::npos) << r.output;
  r = run_command(quote(kCli) + " compress -i " + image + " -o " + quote(path("x.png")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find(".j2k or .j2c"), std::string::npos) << r.output;
  r = run_command(quote(kCli) + " compress -i " + image + " -o " + quote(path("x.j2k")) + " -n 34");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_command(quote(kCli) + " compress -i " + image + " -o " + quote(path("x.j2k")) + " -n 11");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("11 resolutions need tiles of at least 1024 samples a side; this image allows 10"),
            std::string::npos) << r.output;
  r = run_command(quote(kCli) + " compress -i " + image + " -o " + quote(path("x.j2k")) + " -n 8 -t 100,77");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("these tiles allow 7"), std::string::npos) << r.output;
  r = run_command(quote(kCli) + " compress -i " + image + " -o " + quote(path("x.j2k")) + " -d 5,5 -T 6,0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("tile origin"), std::string::npos) << r.output;
  // An existing file is replaced only with --force; the input never.
  { std::ofstream(path("keep.j2k")) << "mine"; }
  r = run_command(quote(kCli) + " compress -i " + image + " -o " + quote(path("keep.j2k")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("exists; use --force"), std::string::npos) << r.output;
  EXPECT_EQ(file_bytes(path("keep.j2k")), (std::vector<uint8_t>{'m', 'i', 'n', 'e'}));
  fs::copy_file(kData + "/camera.pgm", path("in.j2k"));
  r = run_command(quote(kCli) + " compress -i " + quote(path("in.j2k")) + " -o " + quote(path("in.j2k")) + " --force");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("is the input file"), std::string::npos) << r.output;
  EXPECT_EQ(fs::file_size(path("in.j2k")), fs::file_size(kData + "/camera.pgm"));
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".partial"), std::string::npos) << e.path();
}

}  // namespace
