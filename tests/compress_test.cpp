// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront compress`: lossless 5/3 codestreams checked by the outside decoders (OpenJPEG's
// opj_decompress and Grok's grk_decompress give back exactly the input's samples) and against
// OpenJPEG's own encoder (opj_compress, same settings: the same bytes, less its COM marker).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "codec/codestream/jp2_reader.hpp"
#include "io/image_io.hpp"
#include "io/image_writers.hpp"
#include "tests/support/pattern_images.hpp"
#include "tests/support/rate_test_images.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

namespace fs = std::filesystem;
using test_support::quote;
using test_support::run_command;

namespace {

const std::string kCli = J2K_CLI_PATH;
const std::string kData = J2K_TEST_DATA_DIR;

using test_support::file_bytes;
bool have(const char* tool) { return test_support::on_path(tool); }

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

// The PSNR of `got` against `want` over every sample of every component (unsigned 8- or
// 16-bit samples), as decoders' outputs are compared.
double psnr(const j2kfront::Image& want, const j2kfront::Image& got) {
  double se = 0, peak = 0;
  uint64_t n = 0;
  for (size_t c = 0; c < want.components.size(); ++c) {
    const auto& a = want.components[c];
    const auto& b = got.components[c];
    const bool wide = a.sample_size() == 2;
    const double max = std::ldexp(1.0, a.precision) - 1;
    for (size_t i = 0; i < static_cast<size_t>(a.width * a.height); ++i) {
      const double x = wide ? reinterpret_cast<const uint16_t*>(a.bytes.data())[i] : a.bytes[i];
      const double y = wide ? reinterpret_cast<const uint16_t*>(b.bytes.data())[i] : b.bytes[i];
      se += (x - y) * (x - y);
      peak += max * max;
      ++n;
    }
  }
  return se == 0 ? INFINITY : 10 * std::log10(peak / se);
}

class Compress : public test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    // The outside decoders' outputs (and some inputs) are TIFF files.
    if (!J2K_TESTS_HAVE_TIFF) GTEST_SKIP() << "this build reads no TIFF (libtiff not found; Debian: libtiff-dev)";
  }

  // Compresses `input` with `args`, decodes it with each outside decoder there is, and expects
  // the input's samples back.
  // grok: whether Grok is expected to decode it. Debian 12's grk_decompress (Grok 10) gets
  // clipped border tiles with more levels than they have samples wrong, also in the streams
  // opj_compress writes with the same settings (SameBytesAsOpenJpegsEncoder shows ours are
  // those); OpenJPEG's decoder is the oracle for those.
  void round_trip(const std::string& input, const std::string& args, bool grok = true, const std::string& out = "out.j2k") {
    const std::string j2k = path(out);
    fs::remove(j2k);
    auto r = run_command(quote(kCli) + " compress -i " + quote(input) + " -o " + quote(j2k) + " " + args + " --quiet");
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

  // `j2k` decoded by our own decoder (`j2kfront decompress`) to exactly `input`'s samples.
  void ours_decodes_exactly(const std::string& j2k, const std::string& input, const std::string& what) {
    const std::string tif = path("ours_back.tif");
    const auto r = run_command(quote(kCli) + " decompress -i " + quote(j2k) + " -o " + quote(tif) + " --force --quiet");
    ASSERT_EQ(r.exit_code, 0) << what << ": " << r.output;
    const j2kfront::Image want = j2k::io::read_image(input), got = j2k::io::read_image(tif);
    ASSERT_EQ(got.components.size(), want.components.size()) << what;
    for (size_t c = 0; c < want.components.size(); ++c)
      EXPECT_TRUE(got.components[c].bytes == want.components[c].bytes) << what << ": component " << c << " differs";
  }

  // Our file and opj_compress's for `input` with `args`, less their COM markers; "" where
  // opj_compress fails (its message in *why).
  std::pair<std::vector<uint8_t>, std::vector<uint8_t>> ours_and_opjs(const std::string& input, const std::string& args,
                                                                      std::string* why = nullptr) {
    auto r = run_command(quote(kCli) + " compress -i " + quote(input) + " " + args + " -o " + quote(path("ours.j2k")) + " --force --quiet");
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.output;
    fs::remove(path("opj.j2k"));
    r = run_command("opj_compress -i " + quote(input) + " " + args + " -o " + quote(path("opj.j2k")));
    if (why) *why = r.output;
    const bool opj = r.exit_code == 0 && fs::exists(path("opj.j2k"));
    return {without_comments(file_bytes(path("ours.j2k"))), opj ? without_comments(file_bytes(path("opj.j2k"))) : std::vector<uint8_t>{}};
  }

  void SkipWithoutDecoders() {  // the test returns when IsSkipped()
    if (!have("opj_decompress") && !have("grk_decompress"))
      GTEST_SKIP() << "no outside JPEG 2000 decoder: opj_decompress and grk_decompress not found (Debian: "
                      "apt install libopenjp2-tools grokj2k-tools)";
  }
};

TEST_F(Compress, SampleImagesDecodeToTheirSamplesInOutsideDecoders) {
  SkipWithoutDecoders();
  if (IsSkipped()) return;  // GTEST_SKIP in a helper returns from the helper only
  for (const char* name : {"camera.pgm", "astronaut.ppm", "moon_u16.tif", "hubble_deep_field.tif"})
    round_trip(kData + "/" + name, "");
}

// Tiles at odd origins, every count of resolutions from 1 (no DWT) to more than a tile
// allows, 1-pixel images.
TEST_F(Compress, TilesOriginsAndLevelsDecodeExactly) {
  SkipWithoutDecoders();
  if (IsSkipped()) return;  // GTEST_SKIP in a helper returns from the helper only
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
  if (IsSkipped()) return;  // GTEST_SKIP in a helper returns from the helper only
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

// A PNG's alpha channel (grey + alpha, RGBA) is said in the JP2 file's cdef box, the other
// channels colour 1, 2, 3 in order, as opj_compress writes it; RGB has no cdef. Decoded back
// to a PNG, by us and by opj_decompress, the alpha channel comes out whole.
TEST_F(Compress, AlphaChannelsAreDefinedInJp2) {
  std::mt19937 rng(5);
  for (const int channels : {2, 3, 4}) {
    SCOPED_TRACE(std::to_string(channels) + " channels");
    std::vector<uint8_t> pixels(static_cast<size_t>(41) * 19 * channels);
    for (uint8_t& v : pixels) v = static_cast<uint8_t>(rng());
    j2k::io::PngPixels p;
    p.pixels = pixels.data();
    p.width = 41;
    p.height = 19;
    p.channels = channels;
    p.row_stride = 41 * channels;
    const std::string png = path("in.png");
    std::FILE* f = std::fopen(png.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    j2k::io::write_png(f, png, p);
    std::fclose(f);
    auto r = run_command(quote(kCli) + " compress -i " + quote(png) + " -o " + quote(path("out.jp2")) + " --force --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::vector<uint8_t> file = file_bytes(path("out.jp2"));
    const j2k::codec::Jp2File jp2 = j2k::codec::read_jp2(file.data(), file.size());
    if (channels == 3) {
      EXPECT_TRUE(jp2.channels.empty()) << "cdef for RGB";
    } else {
      ASSERT_EQ(jp2.channels.size(), static_cast<size_t>(channels));
      for (int k = 0; k < channels; ++k) {
        EXPECT_EQ(jp2.channels[static_cast<size_t>(k)].channel, k);
        EXPECT_EQ(jp2.channels[static_cast<size_t>(k)].type, k + 1 == channels ? 1 : 0);
        EXPECT_EQ(jp2.channels[static_cast<size_t>(k)].association, k + 1 == channels ? 0 : k + 1);
      }
    }
    r = run_command(quote(kCli) + " decompress -i " + quote(path("out.jp2")) + " -o " + quote(path("back.png")) + " --force --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const j2kfront::Image back = j2k::io::read_image(path("back.png"));
    ASSERT_EQ(back.components.size(), static_cast<size_t>(channels));
    for (int c = 0; c < channels; ++c)
      for (size_t i = 0; i < static_cast<size_t>(41 * 19); ++i)
        ASSERT_EQ(back.components[static_cast<size_t>(c)].bytes[i], pixels[i * static_cast<size_t>(channels) + static_cast<size_t>(c)]) << c;
    if (!have("opj_decompress")) continue;
    r = run_command("opj_decompress -i " + quote(path("out.jp2")) + " -o " + quote(path("opj.png")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(j2k::io::read_image(path("opj.png")).components.size(), static_cast<size_t>(channels));
  }
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
    auto r = run_command(quote(kCli) + " compress " + args + " -o " + quote(path("ours.j2k")) + " --force --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_command("opj_compress " + args + " -o " + quote(path("opj.j2k")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto ours = without_comments(file_bytes(path("ours.j2k"))), theirs = without_comments(file_bytes(path("opj.j2k")));
    EXPECT_EQ(ours.size(), theirs.size()) << args;
    EXPECT_TRUE(ours == theirs) << args;
  }
}

TEST_F(Compress, BadRequestsAreRefusedBeforeAnyWork) {
  const std::string image = quote(kData + "/camera.pgm");
  auto r = run_command(quote(kCli) + " compress -i " + image + " -o " + quote(path("x.png")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find(".j2k, .j2c or .jpc"), std::string::npos) << r.output;
  r = run_command(quote(kCli) + " compress -i " + image + " -o " + quote(path("x.j2k")) + " -n 34");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_command(quote(kCli) + " compress -i " + image + " -o " + quote(path("x.j2k")) + " -n 11");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("(11 resolutions) need tiles of at least 1024 samples a side; this image allows 9 levels (10 resolutions)"),
            std::string::npos) << r.output;
  r = run_command(quote(kCli) + " compress -i " + image + " -o " + quote(path("x.j2k")) + " -n 8 -t 100,77");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("these tiles allow 6 levels (7 resolutions)"), std::string::npos) << r.output;
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

// Every progression order, precincts, code-block sizes, mode switch and marker option: the
// outside decoders give back the samples.
TEST_F(Compress, EveryOptionDecodesExactly) {
  SkipWithoutDecoders();
  if (IsSkipped()) return;  // GTEST_SKIP in a helper returns from the helper only
  for (const char* args : {"-p RLCP", "-p RPCL", "-p PCRL", "-p CPRL", "-c [64,64]", "-c [128,128],[64,64] -p RPCL",
                           "-c [32,32] -p PCRL -b 16,16", "-b 32,128", "-b 4,1024 -n 3", "-b 1024,4 -n 3", "-M 1",
                           "-M 2", "-M 4", "-M 8", "-M 16", "-M 32", "-M 63", "-M 5 -c [64,64]", "-SOP -EPH",
                           "-PLT -TLM", "-TP R -TLM -PLT", "-TP C -p CPRL", "-TP L -r 40,10,1 -p LRCP"})
    round_trip(kData + "/coffee.ppm", args);
  for (const char* args : {"-p RPCL -c [32,32] -M 63 -SOP -EPH", "-p CPRL -b 8,512 -PLT -TLM -TP R"})
    round_trip(kData + "/moon_u16.tif", args);
  // An odd tile grid with small precincts (opj_compress refuses this one; Grok 10 misdecodes
  // clipped border tiles, as in TilesOriginsAndLevelsDecodeExactly).
  round_trip(kData + "/coffee.ppm", "-t 100,77 -d 3,5 -T 1,0 -p RPCL -c [16,16]", /*grok=*/false);
}

// JP2 files (-o NAME.jp2) open in both decoders with the samples, grey and colour, 8 and 16 bit.
TEST_F(Compress, Jp2FilesDecodeExactly) {
  SkipWithoutDecoders();
  if (IsSkipped()) return;  // GTEST_SKIP in a helper returns from the helper only
  for (const char* name : {"camera.pgm", "coffee.ppm", "moon_u16.tif"}) round_trip(kData + "/" + name, "", true, "out.jp2");
}

// With these options OpenJPEG's encoder writes the same bytes (less its COM marker): the
// progressions, precinct and code-block partitions, every mode switch (their terminations),
// SOP/EPH, PLT, TLM and tile-parts match it bit for bit.
TEST_F(Compress, OptionsGiveOpenJpegsBytes) {
  if (!have("opj_compress")) GTEST_SKIP() << "opj_compress not found (Debian: apt install libopenjp2-tools)";
  for (const char* args : {"-p RLCP", "-p RPCL", "-p PCRL", "-p CPRL", "-c [128,128],[64,64] -p RPCL", "-b 32,128",
                           "-b 4,1024 -n 3", "-M 1", "-M 2", "-M 4", "-M 8", "-M 16", "-M 32", "-M 63", "-SOP -EPH",
                           "-PLT", "-TLM", "-TP R", "-TP C -p CPRL", "-TLM -TP R -t 200,200 -PLT"}) {
    const std::string in = "-i " + quote(kData + "/coffee.ppm") + " " + args;
    auto r = run_command(quote(kCli) + " compress " + in + " -o " + quote(path("ours.j2k")) + " --force --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_command("opj_compress " + in + " -o " + quote(path("opj.j2k")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(without_comments(file_bytes(path("ours.j2k"))) == without_comments(file_bytes(path("opj.j2k")))) << args;
  }
}

// -s DX,DY as opj_compress (its image readers): each component's dx, dy multiplied by them
// (a raw input's own subsampling too) and the image area (width - 1) * DX + 1 by
// (height - 1) * DY + 1 from the origin. opj_compress's bytes for the same flags, and the
// samples back from opj_decompress and our decoder (grk_decompress's TIFF writer takes no
// subsampled components).
TEST_F(Compress, SubsamplingAsOpenJpeg) {
  if (!have("opj_compress")) GTEST_SKIP() << "opj_compress not found (Debian: apt install libopenjp2-tools)";
  SkipWithoutDecoders();
  if (IsSkipped()) return;  // GTEST_SKIP in a helper returns from the helper only
  for (const auto& [image, args] : std::vector<std::pair<std::string, std::string>>{
           {"camera.pgm", "-s 2,2"}, {"coffee.ppm", "-s 3,2 -d 6,4"}, {"coffee.ppm", "-s 2,1 -t 256,256 -n 4"},
           {"coffee.ppm", "-s 5,7 -ROI c=1,U=2"}}) {
    const std::string input = kData + "/" + image;
    const auto [ours, theirs] = ours_and_opjs(input, args);
    EXPECT_TRUE(ours == theirs) << image << " " << args << ": " << ours.size() << " bytes, opj_compress's " << theirs.size();
    round_trip(input, args, /*grok=*/false);
    ours_decodes_exactly(path("out.j2k"), input, image + " " + args);
  }
  // A raw input's 4:2:0 planes (even sides: opj_compress reads w * h / 4 samples of each),
  // subsampled again on the canvas.
  std::mt19937 rng(11);
  std::vector<char> planes(36 * 22 + 2 * 18 * 11);
  for (char& v : planes) v = static_cast<char>(rng());
  std::ofstream(path("yuv.raw"), std::ios::binary).write(planes.data(), static_cast<std::streamsize>(planes.size()));
  for (const char* args : {"-s 2,3 -n 3", "-s 2,2 -d 4,4 -n 3", "-s 3,1 -d 6,5 -n 2"}) {
    const auto [ours, theirs] = ours_and_opjs(path("yuv.raw"), std::string("-F 36,22,3,8,u@1x1:2x2:2x2 ") + args);
    EXPECT_TRUE(ours == theirs) << args << ": " << ours.size() << " bytes, opj_compress's " << theirs.size();
  }
}

// -POC T<tile>=resStart,compStart,layerEnd,resEnd,compEnd,PROG[/...] as opj_compress writes
// it: the changes in a POC segment in the tile's first tile-part header (the values as given,
// compEnd clamped to the components), a tile-part a change. opj_compress's bytes for changes
// that send each packet once, in one tile or several, past the stream's bounds, with SOP,
// EPH, PLT, TLM and precincts, and for changes that leave packets out (a warning says so);
// the samples back from opj_decompress, grk_decompress and our decoder.
TEST_F(Compress, ProgressionChangesAsOpenJpeg) {
  if (!have("opj_compress")) GTEST_SKIP() << "opj_compress not found (Debian: apt install libopenjp2-tools)";
  SkipWithoutDecoders();
  if (IsSkipped()) return;  // GTEST_SKIP in a helper returns from the helper only
  const std::string coffee = kData + "/coffee.ppm";
  for (const char* args : {"-POC T1=0,0,1,3,3,CPRL/T1=3,0,1,6,3,LRCP", "-POC T1=0,0,1,3,3,CPRL/T1=3,0,1,6,3,LRCP -SOP -EPH -PLT -TLM",
                           "-POC T1=0,0,5,33,9,RPCL", "-POC T1=0,0,1,6,1,LRCP/T1=0,1,1,6,3,RLCP",
                           "-c [128,128],[64,64] -POC T1=0,0,1,2,3,PCRL/T1=2,0,1,6,3,RPCL", "-t 300,400 -POC T2=0,0,1,6,3,PCRL",
                           "-t 300,400 -POC T1=0,0,1,3,3,CPRL/T1=3,0,1,6,3,LRCP/T2=0,0,1,3,3,CPRL/T2=3,0,1,6,3,LRCP"}) {
    const auto [ours, theirs] = ours_and_opjs(coffee, args);
    EXPECT_TRUE(ours == theirs) << args << ": " << ours.size() << " bytes, opj_compress's " << theirs.size();
    round_trip(coffee, args);
    ours_decodes_exactly(path("out.j2k"), coffee, args);
  }
  // Changes that leave resolutions 3 to 5 out: the same bytes, and the run says so.
  const auto [ours, theirs] = ours_and_opjs(coffee, "-POC T1=0,0,1,3,3,CPRL");
  EXPECT_TRUE(ours == theirs) << ours.size() << " bytes, opj_compress's " << theirs.size();
  const auto r = run_command(quote(kCli) + " compress -i " + quote(coffee) + " -o " + quote(path("part.j2k")) + " -POC T1=0,0,1,3,3,CPRL --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: -POC leaves packets unsent (T1: 9 of its 18 component-resolutions, the first component 0 resolution 3)"),
            std::string::npos) << r.output;
}

// Where opj_compress's file is not what the changes say, ours differs and decodes exactly:
// changes that overlap (opj_compress sends the packets again in the later tile-part, which
// opj_decompress reads as the next packets), a change whose layers run past the one before
// (opj_compress sends none of its packets), and -TP with -POC (opj_compress fails, or divides
// at more than the index asked for).
TEST_F(Compress, ProgressionChangesSendEachPacketOnce) {
  SkipWithoutDecoders();
  if (IsSkipped()) return;  // GTEST_SKIP in a helper returns from the helper only
  const std::string coffee = kData + "/coffee.ppm";
  for (const char* args : {"-POC T1=0,0,1,3,3,CPRL/T1=0,0,1,6,3,LRCP", "-r 20,10,1 -POC T1=0,0,2,3,3,CPRL/T1=0,0,3,6,3,LRCP",
                           "-POC T1=0,0,1,3,3,CPRL/T1=3,0,1,6,3,LRCP -TP R", "-POC T1=0,0,1,6,3,CPRL -TP C"}) {
    round_trip(coffee, args);
    ours_decodes_exactly(path("out.j2k"), coffee, args);
  }
  // The overlap's packets once: the file of the changes apart, byte for byte.
  const auto once = [&](const std::string& args) {
    auto r = run_command(quote(kCli) + " compress -i " + quote(coffee) + " " + args + " -o " + quote(path("once.j2k")) + " --force --quiet");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return file_bytes(path("once.j2k"));
  };
  std::vector<uint8_t> apart = once("-POC T1=0,0,1,3,3,CPRL/T1=3,0,1,6,3,LRCP"), overlapping = once("-POC T1=0,0,1,3,3,CPRL/T1=0,0,1,6,3,LRCP");
  const uint8_t poc[] = {0xFF, 0x5F};
  for (std::vector<uint8_t>* b : {&apart, &overlapping}) {  // their POC segments differ in one byte: the second RSpoc
    const size_t at = static_cast<size_t>(std::search(b->begin(), b->end(), std::begin(poc), std::end(poc)) - b->begin());
    ASSERT_LT(at + 11, b->size());
    (*b)[at + 11] = 0;
  }
  EXPECT_TRUE(apart == overlapping);
}

// -ROI c=N,U=S as opj_compress: RGN (max-shift) for component N in the main header, after TLM
// and before COM, and the code-blocks as without it (a decoder takes them S bit planes higher
// and shifts them back). opj_compress's bytes; the samples back from opj_decompress,
// grk_decompress and our decoder (Grok 10 not at the 30 bit planes of moon_u16.tif's largest
// blocks with a shift of 11: it decodes 28 at most); a shift that takes a code-block past the
// 30 bit planes decoders take refused, saying how far it may go.
TEST_F(Compress, RegionOfInterestAsOpenJpeg) {
  if (!have("opj_compress")) GTEST_SKIP() << "opj_compress not found (Debian: apt install libopenjp2-tools)";
  SkipWithoutDecoders();
  if (IsSkipped()) return;  // GTEST_SKIP in a helper returns from the helper only
  struct Case { const char* image; const char* args; bool grok; };
  for (const Case& k : {Case{"camera.pgm", "-ROI c=0,U=5", true}, Case{"coffee.ppm", "-ROI c=2,U=10", true},
                        Case{"coffee.ppm", "-ROI c=1,U=3 -TLM -PLT -t 256,256", true}, Case{"moon_u16.tif", "-ROI c=0,U=11", false},
                        Case{"moon_u16.tif", "-ROI c=0,U=9", true}, Case{"coffee.ppm", "-ROI c=0,U=0", true}}) {
    const std::string input = kData + "/" + k.image;
    const auto [ours, theirs] = ours_and_opjs(input, k.args);
    EXPECT_TRUE(ours == theirs) << k.image << " " << k.args << ": " << ours.size() << " bytes, opj_compress's " << theirs.size();
    round_trip(input, k.args, k.grok);
    ours_decodes_exactly(path("out.j2k"), input, std::string(k.image) + " " + k.args);
  }
  const auto r = run_command(quote(kCli) + " compress -i " + quote(kData + "/camera.pgm") + " -o " + quote(path("roi.j2k")) + " -ROI c=0,U=25");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("the ROI shift of 25 gives component 0's code-blocks up to 33 bit planes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("a shift of at most 22 for this image"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("roi.j2k")));
}

// Lossy 9/7 at -r 10, 20, 40, 80: both decoders open the streams, and at the size of
// opj_compress's file for the same -r (our -r set to that size) the PSNR is at least its.
TEST_F(Compress, LossyPsnrAtLeastOpenJpegsAtTheSameSize) {
  if (!have("opj_compress") || !have("opj_decompress")) GTEST_SKIP() << "opj_compress/opj_decompress not found (Debian: apt install libopenjp2-tools)";
  for (const char* name : {"astronaut.ppm", "camera.pgm"}) {
    const std::string input = kData + "/" + name;
    const j2kfront::Image want = j2k::io::read_image(input);
    double raw = 0;
    for (const auto& c : want.components) raw += static_cast<double>(c.width * c.height) * c.precision / 8;
    for (int rate : {10, 20, 40, 80}) {
      auto r = run_command("opj_compress -i " + quote(input) + " -o " + quote(path("opj.j2k")) + " -I -r " + std::to_string(rate));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      const double opj_size = static_cast<double>(fs::file_size(path("opj.j2k")));
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, "%.6f", raw / opj_size);
      r = run_command(quote(kCli) + " compress -i " + quote(input) + " -o " + quote(path("ours.j2k")) + " -I -r " + ratio + " --force --quiet");
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_LE(static_cast<double>(fs::file_size(path("ours.j2k"))), opj_size) << name << " -r " << rate;
      double ours_psnr = 0;
      for (const char* decoder : {"opj_decompress", "grk_decompress"}) {
        if (!have(decoder)) continue;
        const std::string tif = path(std::string(decoder) + ".tif");
        fs::remove(tif);
        r = run_command(std::string(decoder) + " -i " + quote(path("ours.j2k")) + " -o " + quote(tif));
        ASSERT_EQ(r.exit_code, 0) << decoder << ": " << r.output;
        const double p = psnr(want, j2k::io::read_image(tif));
        if (ours_psnr == 0) ours_psnr = p;
        EXPECT_NEAR(p, ours_psnr, 0.01) << decoder << " decodes " << name << " -r " << rate << " differently";
      }
      fs::remove(path("theirs.tif"));
      r = run_command("opj_decompress -i " + quote(path("opj.j2k")) + " -o " + quote(path("theirs.tif")));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      const double theirs = psnr(want, j2k::io::read_image(path("theirs.tif")));
      EXPECT_GE(ours_psnr, theirs) << name << " -r " << rate;
      EXPECT_GT(ours_psnr, 25.0) << name << " -r " << rate;
    }
  }
}

// Quality layers: -r 80,40,20 and -q 30,36,42 (PSNR); decoding the first n layers gives a
// growing PSNR, the -r layers stay within their byte budgets, the -q ones reach about their
// PSNR (the distortion estimates are the transform domain's, so within half a dB).
TEST_F(Compress, LayersMeetTheirTargets) {
  if (!have("opj_decompress")) GTEST_SKIP() << "opj_decompress not found (Debian: apt install libopenjp2-tools)";
  const std::string input = kData + "/astronaut.ppm";
  const j2kfront::Image want = j2k::io::read_image(input);
  const double raw = 512.0 * 512 * 3;
  for (const std::string& targets : {std::string("-r 80,40,20"), std::string("-q 30,36,42")}) {
    auto r = run_command(quote(kCli) + " compress -i " + quote(input) + " -o " + quote(path("l.j2k")) + " -I " + targets + " --force --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_LE(static_cast<double>(fs::file_size(path("l.j2k"))), targets[1] == 'r' ? raw / 20 : raw);
    double previous = 0;
    for (int layers = 1; layers <= 3; ++layers) {
      const std::string tif = path("l" + std::to_string(layers) + ".tif");
      r = run_command("opj_decompress -i " + quote(path("l.j2k")) + " -o " + quote(tif) + " -l " + std::to_string(layers));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      const double p = psnr(want, j2k::io::read_image(tif));
      EXPECT_GT(p, previous + 1.0) << targets << " layers " << layers;
      if (targets[1] == 'q') {
        EXPECT_NEAR(p, 24.0 + 6.0 * layers, 0.5) << targets << " layers " << layers;
      }
      previous = p;
    }
  }
}

// A rate target (-r) is a maximum: on 20 images of many sizes and kinds (gradients, noise,
// text-like strokes on white; grey and RGB), at several ratios with either wavelet, the
// codestream never exceeds the samples' bytes / ratio, unless even the stream of no coded
// pass (its markers and empty packets, what the target cannot avoid) is larger.
TEST_F(Compress, RateTargetsAreMaxima) {
  std::mt19937 rng(41);
  int checked = 0;
  for (int k = 0; k < 20; ++k) {
    const test_support::RateTestImage img = test_support::write_rate_test_image(k, rng, dir_.string());
    const std::string& image = img.path;
    const std::string wavelet = k % 2 ? " -I" : "";
    auto r = run_command(quote(kCli) + " compress -i " + quote(image) + " -o " + quote(path("floor.j2k")) + wavelet +
                         " -r 1000000 --force --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto floor = static_cast<double>(fs::file_size(path("floor.j2k")));
    for (const double ratio : {8.0, 20.0, 40.0, 90.0}) {
      r = run_command(quote(kCli) + " compress -i " + quote(image) + " -o " + quote(path("rate.j2k")) + wavelet + " -r " +
                      std::to_string(ratio) + " --force --quiet");
      ASSERT_EQ(r.exit_code, 0) << r.output;
      const double target = static_cast<double>(img.bytes()) / ratio;
      const auto size = static_cast<double>(fs::file_size(path("rate.j2k")));
      EXPECT_LE(size, std::max(target, floor)) << img.width << "x" << img.height << "x" << img.channels << wavelet << " -r " << ratio
                                               << ": target " << target << " bytes, floor " << floor;
      checked += target >= floor;
    }
  }
  EXPECT_GT(checked, 40) << "most cases should have a target above the unavoidable bytes";
}

// `j2kfront info` and j2k_read_info say what opj_dump says of opj_compress's streams and ours:
// sizes, tiles, components, progression, layers, MCT, levels, code-blocks, modes, wavelet.
TEST_F(Compress, InfoSaysWhatOpjDumpSays) {
  if (!have("opj_dump") || !have("opj_compress")) GTEST_SKIP() << "opj_dump / opj_compress not found (Debian: apt install libopenjp2-tools)";
  const std::string coffee = kData + "/coffee.ppm", camera = kData + "/camera.pgm";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"opj_compress -i " + quote(coffee) + " -o %s -n 4 -b 32,16 -p RPCL -t 200,150 -M 9 -SOP -EPH -r 40,20", "a.j2k"},
      {"opj_compress -i " + quote(camera) + " -o %s -I -n 7 -d 3,5 -T 1,2 -t 100,77 -p CPRL -mct 0", "b.jp2"},
      {quote(kCli) + " compress -i " + quote(coffee) + " -o %s -n 2 -b 64,32 -p PCRL -M 36 --force --quiet", "c.jp2"},
  };
  for (const auto& each : cases) {
    const std::string& command = each.first;
    const std::string name = each.second;  // a variable, not a binding: lambdas capture it (C++17)
    const std::string file = path(name);
    std::string cmd = command;
    cmd.replace(cmd.find("%s"), 2, quote(file));
    auto r = run_command(cmd);
    ASSERT_EQ(r.exit_code, 0) << cmd << ": " << r.output;
    const std::vector<uint8_t> bytes = test_support::file_bytes(file);
    j2k_stream_info info{};
    ASSERT_EQ(j2k_read_info(bytes.data(), bytes.size(), &info, nullptr, 0), J2K_OK) << j2k_last_error();
    std::vector<j2k_component_info> comps(static_cast<size_t>(info.num_components));
    ASSERT_EQ(j2k_read_info(bytes.data(), bytes.size(), &info, comps.data(), info.num_components), J2K_OK);
    const auto dump = run_command("opj_dump -i " + quote(file));
    ASSERT_EQ(dump.exit_code, 0) << dump.output;
    auto says = [&](const std::string& key, int64_t value) {
      EXPECT_NE(dump.output.find(key + "=" + std::to_string(value)), std::string::npos)
          << name << ": we say " << key << "=" << value << "\n" << dump.output;
    };
    says("x0", info.x0);
    says("y1", int64_t{info.y0} + info.height);
    says("numcomps", info.num_components);
    says("tx0", info.tile_x0);
    says("tdx", info.tile_w);
    says("tdy", info.tile_h);
    says("tw", info.tiles_x);
    says("th", info.tiles_y);
    says("numlayers", info.layers);
    says("mct", info.mct);
    EXPECT_NE(dump.output.find("prg=0x" + std::to_string(static_cast<int>(info.progression))), std::string::npos) << name;
    EXPECT_EQ(info.format, name.substr(2) == "jp2" ? J2K_FORMAT_JP2 : J2K_FORMAT_J2K) << name;
    for (const j2k_component_info& c : comps) {
      says("prec", c.precision);
      says("numresolutions", c.levels + 1);
      says("qmfbid", c.reversible);
    }
    for (const j2k_component_info& c : comps) {
      int wl = 0, hl = 0;
      while ((1 << wl) < c.block_w) ++wl;
      while ((1 << hl) < c.block_h) ++hl;
      EXPECT_NE(dump.output.find("cblkw=2^" + std::to_string(wl)), std::string::npos) << name;
      EXPECT_NE(dump.output.find("cblkh=2^" + std::to_string(hl)), std::string::npos) << name;
      char sty[16];
      std::snprintf(sty, sizeof sty, "cblksty=0x%x", c.modes);
      EXPECT_NE(dump.output.find(c.modes ? sty : "cblksty=0"), std::string::npos) << name << " " << sty;
    }
    r = run_command(quote(kCli) + " info " + quote(file));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(std::to_string(info.tiles_x) + " x " + std::to_string(info.tiles_y) + " of "), std::string::npos)
        << r.output;
  }
  // A file that is no JPEG 2000: named, exit 1.
  const auto r = run_command(quote(kCli) + " info " + quote(camera));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("camera.pgm"), std::string::npos) << r.output;
}

// -F: raw samples as opj_compress reads them (big-endian .raw, little-endian .rawl, the
// components one after another): the same codestream as opj_compress's for the same bytes;
// a subsampled layout decodes to its planes; a file of the wrong size, or a raw input
// without -F, is refused by name.
TEST_F(Compress, RawInputAsOpenJpegReadsIt) {
  if (!have("opj_compress")) GTEST_SKIP() << "opj_compress not found (Debian: apt install libopenjp2-tools)";
  std::mt19937 rng(7);
  struct Case { const char* name; int w, h, components, bits; bool is_signed; };
  for (const Case c : {Case{"g.raw", 13, 9, 1, 8, false}, Case{"rgb.raw", 21, 17, 3, 12, false},
                       Case{"rgb.rawl", 21, 17, 3, 16, false}, Case{"s.raw", 11, 6, 2, 12, true}}) {
    const std::string raw = path(c.name);
    const int bytes = c.bits > 8 ? 2 : 1;
    {
      std::ofstream f(raw, std::ios::binary);
      const bool little = std::string(c.name).back() == 'l';
      for (int i = 0; i < c.w * c.h * c.components; ++i) {
        const int32_t lo = c.is_signed ? -(1 << (c.bits - 1)) : 0;
        const auto v = static_cast<uint32_t>(lo + static_cast<int32_t>(rng() % (1u << c.bits)));
        if (bytes == 1) f.put(static_cast<char>(v));
        else if (little) f.put(static_cast<char>(v)), f.put(static_cast<char>(v >> 8));
        else f.put(static_cast<char>(v >> 8)), f.put(static_cast<char>(v));
      }
    }
    const std::string layout = std::to_string(c.w) + "," + std::to_string(c.h) + "," + std::to_string(c.components) + "," +
                               std::to_string(c.bits) + (c.is_signed ? ",s" : ",u");
    auto r = run_command(quote(kCli) + " compress -i " + quote(raw) + " -o " + quote(path("ours.j2k")) + " -F " + layout +
                         " -n 3 --force --quiet");
    ASSERT_EQ(r.exit_code, 0) << c.name << ": " << r.output;
    r = run_command("opj_compress -i " + quote(raw) + " -o " + quote(path("opj.j2k")) + " -F " + layout + " -n 3");
    ASSERT_EQ(r.exit_code, 0) << c.name << ": " << r.output;
    EXPECT_EQ(without_comments(file_bytes(path("ours.j2k"))), without_comments(file_bytes(path("opj.j2k")))) << c.name;
  }
  // A subsampled second component: planes of 9 x 5 and 5 x 3 samples, each decoding to its own
  // bytes (two components: three in 4:2:0 would be taken for sYCC and converted, as
  // opj_decompress does).
  const std::string yuv = path("yuv.raw");
  std::vector<uint8_t> planes(9 * 5 + 5 * 3);
  for (uint8_t& v : planes) v = static_cast<uint8_t>(rng());
  {
    std::ofstream f(yuv, std::ios::binary);
    f.write(reinterpret_cast<const char*>(planes.data()), static_cast<std::streamsize>(planes.size()));
  }
  auto r = run_command(quote(kCli) + " compress -i " + quote(yuv) + " -o " + quote(path("yuv.j2k")) +
                       " -F 9,5,2,8,u@1x1:2x2 -n 2 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(quote(kCli) + " decompress -i " + quote(path("yuv.j2k")) + " -o " + quote(path("yuv.pgx")) + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  size_t at = 0;
  for (int k = 0; k < 2; ++k) {
    const std::vector<uint8_t> pgx = file_bytes(path("yuv_" + std::to_string(k) + ".pgx"));
    const size_t n = k == 0 ? 45 : 15;
    ASSERT_GE(pgx.size(), n);
    EXPECT_TRUE(std::equal(pgx.end() - static_cast<ptrdiff_t>(n), pgx.end(), planes.begin() + static_cast<ptrdiff_t>(at)))
        << "plane " << k;
    at += n;
  }
  // Refused by name: a size -F does not give, a raw input without -F, -F for an image file.
  for (const auto& [args, want] : std::vector<std::pair<std::string, std::string>>{
           {"-i " + quote(yuv) + " -F 9,5,2,8,u", "the file holds 60"},
           {"-i " + quote(yuv) + " -F 9,5,3,8,u@1x1:2x2", "2 subsamplings for 3 components"},
           {"-i " + quote(yuv) + " -F 9,5,3,8,x", "not s or u"},
           {"-i " + quote(yuv), "-F W,H,COMPONENTS,BITS"},
           {"-i " + quote(kData + "/camera.pgm") + " -F 9,5,3,8,u", "one raw input"}}) {
    r = run_command(quote(kCli) + " compress " + args + " -o " + quote(path("bad.j2k")));
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_NE(r.output.find(want), std::string::npos) << args << ": " << r.output;
    EXPECT_FALSE(fs::exists(path("bad.j2k"))) << args;
  }
}

// opj_dump reads back the parameters asked for.
TEST_F(Compress, OpjDumpReportsTheParameters) {
  if (!have("opj_dump")) GTEST_SKIP() << "opj_dump not found (Debian: apt install libopenjp2-tools)";
  auto r = run_command(quote(kCli) + " compress -i " + quote(kData + "/coffee.ppm") + " -o " + quote(path("d.j2k")) +
                       " -I -r 40,20 -n 4 -b 32,16 -c [128,128],[64,64] -p RPCL -M 9 -SOP -EPH --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command("opj_dump -i " + quote(path("d.j2k")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // csty 0x7: precincts given, SOP, EPH; the precincts halve below the last one given.
  for (const char* want : {"csty=0x7", "prg=0x2", "numlayers=2", "mct=1", "numresolutions=4", "cblkw=2^5", "cblkh=2^4",
                           "cblksty=0x9", "qmfbid=0", "qntsty=2", "preccintsize (w,h)=(4,4) (5,5) (6,6) (7,7) "})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
}

// Without -n, an image (or tiles) under 32 samples a side gets the resolutions its sides allow
// instead of opj_compress's refusal; -n asked for is still refused where the sides forbid it.
TEST_F(Compress, SmallImagesGetFewerResolutionsWithoutN) {
  SkipWithoutDecoders();
  if (IsSkipped()) return;
  const std::string pgm = path("small.pgm");
  {
    std::ofstream f(pgm, std::ios::binary);
    f << "P5\n20 20\n255\n";
    for (int i = 0; i < 400; ++i) f.put(static_cast<char>(i * 29 + 3));
  }
  round_trip(pgm, "");
  round_trip(pgm, "-t 8,8", true, "tiled.j2k");
  if (have("opj_dump")) {
    // 20 a side: 2^4 <= 20 < 2^5, 4 levels; tiles of 8: 3 levels.
    for (const auto& [file, want] : {std::pair<const char*, const char*>{"out.j2k", "numresolutions=5"},
                                     {"tiled.j2k", "numresolutions=4"}}) {
      const auto r = run_command("opj_dump -i " + quote(path(file)));
      EXPECT_NE(r.output.find(want), std::string::npos) << file << ": " << r.output;
    }
  }
  const auto r = run_command(quote(kCli) + " compress -i " + quote(pgm) + " -o " + quote(path("x.j2k")) + " -n 6");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("this image allows 4 levels (5 resolutions)"), std::string::npos) << r.output;
}

// Bad flags and combinations, each named, before any work.
TEST_F(Compress, BadCodingOptionsAreNamed) {
  const std::string base = quote(kCli) + " compress -i " + quote(kData + "/camera.pgm") + " -o " + quote(path("b.j2k")) + " ";
  for (auto [args, want] : std::vector<std::pair<std::string, std::string>>{
           {"-b 128,64", "at most 4096 samples"},
           {"-b 48,64", "not a power of two"},
           {"-b 2,64", "-b"},
           {"-p XYZ", "LRCP, RLCP, RPCL, PCRL or CPRL"},
           {"-r 20 -q 30", "not both"},
           {"-r 10,20", "must fall from layer to layer (each layer adds to the ones before), got 10 then 20"},
           {"-r 0,20", "only the last quality layer may be lossless"},
           {"-r abc", "expected numbers"},
           {"-c [64,48]", "not a power of two"},
           {"-c 64,64", "expected [W,H]"},
           {"-M 64", "-M"},
           {"-TP X", "-TP"},
           {"--guard-bits 8", "--guard-bits"},
           {"-mct 1", "3 or more components"}}) {
    const auto r = run_command(base + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find(want), std::string::npos) << args << ": " << r.output;
    EXPECT_FALSE(fs::exists(path("b.j2k"))) << args;
  }
}

// A directory in, a directory out: every image, each decoded exactly; a broken one named
// while the others go on; other files skipped; nothing replaced without --force; two images
// with one output name refused before any work.
TEST_F(Compress, DirectoryInDirectoryOut) {
  SkipWithoutDecoders();
  if (IsSkipped()) return;  // GTEST_SKIP in a helper returns from the helper only
  const std::string in = path("in"), out = path("out");
  fs::create_directories(in);
  for (const char* name : {"camera.pgm", "astronaut.ppm", "moon_u16.tif"}) fs::copy_file(kData + "/" + name, in + "/" + name);
  fs::copy_file(kData + "/camera.pgm", in + "/camera_again.pgm");  // the same shape: one encoder for both
  { std::ofstream(in + "/notes.txt") << "not an image"; }
  { std::ofstream(in + "/broken.pgm") << "P5\n64 64\n255\nshort"; }
  const std::string base = quote(kCli) + " compress -i " + quote(in) + " -o " + quote(out);
  auto r = run_command(base + " -OutFor jp2");
  EXPECT_EQ(r.exit_code, 1) << "one image failed: " << r.output;
  EXPECT_NE(r.output.find("broken.pgm: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("4 of 5 images compressed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 other files skipped"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\r'), std::string::npos) << "no progress bar when standard error is not a terminal";
  EXPECT_FALSE(fs::exists(out + "/broken.jp2"));
  EXPECT_FALSE(fs::exists(out + "/notes.jp2"));
  for (const char* name : {"camera", "camera_again", "astronaut", "moon_u16"}) {
    const std::string jp2 = out + "/" + name + ".jp2";
    ASSERT_TRUE(fs::exists(jp2)) << jp2;
    const std::string original = fs::exists(in + "/" + name + ".pgm") ? in + "/" + name + ".pgm"
                                 : fs::exists(in + "/" + name + ".ppm") ? in + "/" + name + ".ppm"
                                                                         : in + "/" + name + ".tif";
    const std::string tif = path(std::string(name) + ".tif");
    const std::string decoder = have("opj_decompress") ? "opj_decompress" : "grk_decompress";
    ASSERT_EQ(run_command(decoder + " -i " + quote(jp2) + " -o " + quote(tif)).exit_code, 0) << jp2;
    const j2kfront::Image want = j2k::io::read_image(original), got = j2k::io::read_image(tif);
    ASSERT_EQ(got.components.size(), want.components.size()) << name;
    for (size_t c = 0; c < want.components.size(); ++c)
      EXPECT_TRUE(got.components[c].bytes == want.components[c].bytes) << name << " component " << c;
  }
  // Again: the outputs exist, so nothing is written without --force; with it, all are.
  const auto before = fs::last_write_time(out + "/camera.jp2");
  fs::remove(in + "/broken.pgm");
  r = run_command(base + " -OutFor jp2");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("exists; use --force"), std::string::npos) << r.output;
  EXPECT_EQ(fs::last_write_time(out + "/camera.jp2"), before);
  r = run_command(base + " -OutFor jp2 --force --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "") << "--quiet prints nothing but errors";
  // Two images that would write one file, a file as the output directory, a bad format.
  fs::copy_file(kData + "/camera.tif", in + "/camera.tif");
  r = run_command(quote(kCli) + " compress -i " + quote(in) + " -o " + quote(path("other")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("would both write"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("other")));
  fs::remove(in + "/camera.tif");
  for (auto [args, want] : std::vector<std::pair<std::string, std::string>>{
           {" -o " + quote(out + "/camera.jp2"), "-o must be one too"},
           {" -o " + quote(path("other")) + " -OutFor png", "j2k, j2c, jpc, jp2, or with --ht jhc or jph"}}) {
    r = run_command(quote(kCli) + " compress -i " + quote(in) + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find(want), std::string::npos) << args << ": " << r.output;
  }
  EXPECT_FALSE(fs::exists(path("other")));
}

// A directory's images coded several at once (--frames-in-flight) give the files of one after
// another, byte for byte: runs of one shape with a broken file among them, a shape change, HT
// and EBCOT, layers, and a --max-memory that holds fewer images in flight than asked for.
TEST_F(Compress, DirectoryInFlightGivesTheFilesOfOneAfterAnother) {
  const std::string in = path("in");
  fs::create_directories(in);
  auto write = [&](const std::string& name, const j2kfront::Image& im) {
    std::FILE* f = std::fopen((in + "/" + name).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    j2k::io::write_pnm(f, name, j2k::io::samples_of(im));
    std::fclose(f);
  };
  using test_support::pattern_image;
  for (unsigned i = 0; i < 7; ++i) write("a" + std::to_string(i) + ".ppm", pattern_image(0, 0, 131, 77, 3, J2K_SAMPLE_U8, 8, i % 2, 50 + i));
  for (unsigned i = 0; i < 3; ++i) write("b" + std::to_string(i) + ".pgm", pattern_image(0, 0, 64, 50, 1, J2K_SAMPLE_U16, 12, 1, 9 + i));
  { std::ofstream(in + "/a3x.ppm") << "P6\n131 77\n255\nshort"; }  // between a3 and a4
  for (const std::string mode : {"", "--ht", "-I -r 20,8", "--ht -I --qstep 0.01", "-t 64,64 --max-memory 1M"}) {
    SCOPED_TRACE(mode);
    std::vector<std::string> runs;
    for (const char* depth : {"1", "3", "8"}) {
      const std::string out = path(std::string("out") + depth);
      const auto r = run_command(quote(kCli) + " compress -i " + quote(in) + " -o " + quote(out) + " --backend cpu --threads 2 --force " +
                                 mode + " --frames-in-flight " + depth);
      EXPECT_EQ(r.exit_code, 1) << "the broken file fails the run: " << r.output;
      EXPECT_NE(r.output.find("a3x.ppm: "), std::string::npos) << r.output;
      EXPECT_NE(r.output.find("10 of 11 images compressed"), std::string::npos) << r.output;
      runs.push_back(out);
    }
    int files = 0;
    for (const auto& e : fs::directory_iterator(runs[0])) {
      ++files;
      const std::vector<uint8_t> one = file_bytes(e.path().string());
      for (size_t k = 1; k < runs.size(); ++k)
        EXPECT_TRUE(file_bytes(runs[k] + "/" + e.path().filename().string()) == one) << runs[k] << ": " << e.path().filename();
    }
    EXPECT_EQ(files, 10);
  }
  // One image, or the CPU asked for GPUs: refused by name before any work.
  for (auto [args, want] : std::vector<std::pair<std::string, std::string>>{
           {"-i " + quote(in + "/a0.ppm") + " -o " + quote(path("one.j2k")) + " --frames-in-flight 2", "--frames-in-flight"},
           {"-i " + quote(in + "/a0.ppm") + " -o " + quote(path("one.j2k")) + " --devices 0", "--device picks its GPU"},
           {"-i " + quote(in) + " -o " + quote(path("cpu")) + " --backend cpu --devices all", "the backend is the CPU"},
           {"-i " + quote(in) + " -o " + quote(path("cpu")) + " --frames-in-flight 9", "--frames-in-flight"}}) {
    const auto r = run_command(quote(kCli) + " compress " + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find(want), std::string::npos) << args << ": " << r.output;
  }
  EXPECT_FALSE(fs::exists(path("one.j2k")));
  EXPECT_FALSE(fs::exists(path("cpu")));
}

}  // namespace

namespace {

// `j2kfront bench --compress` on a small image: a row per tool and mode, our time split, and
// the CSV with the same rows.
TEST_F(Compress, BenchComparesWithTheOtherEncoders) {
  if (!have("opj_compress") || !have("opj_decompress")) GTEST_SKIP() << "opj_compress is not installed (Debian: libopenjp2-tools)";
  const std::string csv = path("bench.csv");
  const auto r = run_command(quote(kCli) + " bench --compress --repeats 1 --inputs " + quote(kData + "/camera.pgm") +
                             " --csv " + quote(csv));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* want : {"lossless  j2kfront", "lossless  opj_compress", "-I -r 20  j2kfront", "-I -r 20  opj_compress",
                           "j2kfront at opj's size", "read ", "Tier-1 ", "lossless  j2kfront --ht", "peak MiB"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("image,mode,tool,threads,ms,speed_vs_opj,bytes", 0), 0u) << header;
  EXPECT_EQ(header.substr(header.size() - 9), ",peak_mib") << header;
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_GE(rows, 7) << "two modes, three tools at least (ours with EBCOT and HT), and ours at opj's size";
}

}  // namespace
