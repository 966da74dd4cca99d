// SPDX-License-Identifier: BSD-2-Clause
// The digital cinema and IMF profiles (codec/profiles.hpp): what the encoder writes for each,
// checked by opj_dump's report and by opj_decompress decoding it as we do, IMF's reversible
// streams byte for byte opj_compress -IMF's; DCI's byte limits met where they bind (a frame's
// and, with one component taking most bytes, a component's), IMF's sub level's; what the
// profiles refuse; `j2kfront check` naming every broken constraint, of opj_compress's
// -cinema2K stream none; RGB to X'Y'Z' (--xyz) against DCI's white and D65's chromaticity.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "codec/codestream/codestream_reader.hpp"
#include "codec/dci_xyz.hpp"
#include "common/error.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

namespace {

using test_support::quote;
using test_support::run_command;
const std::string kCli = J2K_CLI_PATH;

// Three unsigned 12-bit components: smooth ramps with noise of `noise` code values on top,
// the same in every component where `grey` (so that after the ICT one component carries it).
j2kfront::Image xyz_image(uint32_t w, uint32_t h, int noise, bool grey = false, unsigned seed = 1) {
  j2kfront::Image img;
  img.width = w, img.height = h;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> n(-noise, noise);
  for (int c = 0; c < 3; ++c) img.add_component(J2K_SAMPLE_U16, 12);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const int shared = n(rng);
      for (int c = 0; c < 3; ++c) {
        const int base = static_cast<int>((x * 2000) / w + (y * 1500) / h) + 200 * c;
        const int v = base + (grey ? shared : n(rng));
        img.components[static_cast<size_t>(c)].row<uint16_t>(y)[x] = static_cast<uint16_t>(std::clamp(v, 0, 4095));
      }
    }
  return img;
}

j2kfront::Coding cinema(j2k_profile profile, int fps) {
  j2kfront::Coding c;
  c.profile = profile;
  c.frame_rate = fps;
  return c;
}

// A codestream without the COM marker segments of its main header (opj_compress writes one
// naming itself), walked segment by segment up to the first SOT: packet data may hold the
// bytes FF 64 too.
std::vector<uint8_t> without_comment(std::vector<uint8_t> b) {
  size_t i = 2;  // after SOC
  while (i + 3 < b.size() && !(b[i] == 0xFF && b[i + 1] == 0x90)) {
    const size_t length = static_cast<size_t>(b[i + 2]) << 8 | b[i + 3];
    if (b[i] == 0xFF && b[i + 1] == 0x64) b.erase(b.begin() + static_cast<ptrdiff_t>(i), b.begin() + static_cast<ptrdiff_t>(i + 2 + length));
    else i += 2 + length;
  }
  return b;
}

// The image as a PPM (3 components) or PGM (1) file of its precision, for opj_compress.
void write_pnm(const j2kfront::Image& img, const std::string& file) {
  std::ofstream out(file, std::ios::binary);
  const size_t n = img.components.size();
  const int top = (1 << img.components[0].precision) - 1;
  out << (n == 3 ? "P6" : "P5") << "\n" << img.width << " " << img.height << "\n" << top << "\n";
  for (uint32_t y = 0; y < img.height; ++y)
    for (uint32_t x = 0; x < img.width; ++x)
      for (size_t c = 0; c < n; ++c) {
        const j2kfront::Image::Component& k = img.components[c];
        const unsigned v = k.sample_size() == 2 ? k.row<uint16_t>(y)[x] : k.row<uint8_t>(y)[x];
        if (top > 255) out.put(static_cast<char>(v >> 8));
        out.put(static_cast<char>(v & 0xFF));
      }
}

std::vector<uint8_t> encode(const j2kfront::Image& img, const j2kfront::Coding& coding, int levels = 5, uint32_t tile = 0) {
  j2kfront::Settings s;
  s.levels = levels;
  s.tile_w = s.tile_h = tile;
  j2kfront::Encoder e(s, coding, img.view());
  return e.encode(img.view());
}

// Each component's packet bytes, from the tile-parts (one per component, in component order
// within each progression change, as the profiles write them).
std::vector<uint64_t> component_bytes(const std::vector<uint8_t>& stream) {
  const j2k::codec::Codestream cs = j2k::codec::read_codestream(stream.data(), stream.size());
  std::vector<uint64_t> out(3, 0);
  for (size_t k = 0; k < cs.parts.size(); ++k) out[k % 3] += cs.parts[k].length;
  return out;
}

int violations(const std::vector<uint8_t>& stream, j2k_profile profile, int fps, std::string* report = nullptr) {
  int n = -1;
  std::vector<char> text(1 << 16);
  EXPECT_EQ(j2k_check_profile(stream.data(), stream.size(), profile, fps, &n, text.data(), text.size()), J2K_OK) << j2k_last_error();
  if (report) *report = text.data();
  return n;
}

class Cinema : public test_support::TempDirTest {
 protected:
  std::string write(const std::string& name, const std::vector<uint8_t>& bytes) {
    std::ofstream(path(name), std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path(name);
  }
};

// Each profile's stream as opj_dump reads it, and decoded by opj_decompress and grk_decompress
// to the samples we decode (12-bit PPM files, compared past their headers, which name their
// writer).
TEST_F(Cinema, EachProfileAsOpenJpegReadsIt) {
  struct Case {
    j2k_profile profile;
    int fps, levels;
    const char* rsiz;  // SIZ's first bytes after Lsiz
  };
  const Case cases[] = {{J2K_PROFILE_CINEMA_2K, 24, 5, "0003"}, {J2K_PROFILE_CINEMA_2K, 48, 3, "0003"}, {J2K_PROFILE_CINEMA_4K, 24, 6, "0004"}};
  const j2kfront::Image img = xyz_image(640, 360, 40);
  for (const Case& k : cases) {
    SCOPED_TRACE(std::to_string(k.profile) + " at " + std::to_string(k.fps) + " fps, " + std::to_string(k.levels) + " levels");
    const std::vector<uint8_t> stream = encode(img, cinema(k.profile, k.fps), k.levels);
    char rsiz[5];
    std::snprintf(rsiz, sizeof rsiz, "%02x%02x", stream.at(6), stream.at(7));
    EXPECT_EQ(std::string(rsiz), k.rsiz);
    std::string report;
    EXPECT_EQ(violations(stream, k.profile, k.fps, &report), 0) << report;
    const std::string file = write("c.j2k", stream);
    if (!test_support::on_path("opj_dump") || !test_support::on_path("opj_decompress")) continue;
    const auto dump = run_command("opj_dump -i " + quote(file));
    ASSERT_EQ(dump.exit_code, 0) << dump.output;
    std::string precincts = "preccintsize (w,h)=(7,7) ";
    for (int r = 0; r < k.levels; ++r) precincts += "(8,8) ";
    for (const std::string& want : {std::string("prg=0x4"), std::string("mct=1"), std::string("cblkw=2^5"), std::string("cblkh=2^5"),
                                    std::string("cblksty=0"), std::string("qmfbid=0"), std::string("qntsty=2"), precincts,
                                    "numresolutions=" + std::to_string(k.levels + 1), std::string("tw=1, th=1")})
      EXPECT_NE(dump.output.find(want), std::string::npos) << want << "\n" << dump.output;
    ASSERT_EQ(run_command("opj_decompress -i " + quote(file) + " -o " + quote(path("opj.ppm"))).exit_code, 0);
    const auto ours = run_command(quote(kCli) + " decompress -i " + quote(file) + " -o " + quote(path("ours.ppm")) + " --force --quiet");
    ASSERT_EQ(ours.exit_code, 0) << ours.output;
    const std::vector<uint8_t> a = test_support::file_bytes(path("opj.ppm")), b = test_support::file_bytes(path("ours.ppm"));
    const size_t samples = size_t{640} * 360 * 3 * 2;
    ASSERT_GE(a.size(), samples);
    ASSERT_GE(b.size(), samples);
    EXPECT_TRUE(std::equal(a.end() - static_cast<ptrdiff_t>(samples), a.end(), b.end() - static_cast<ptrdiff_t>(samples)));
    // Grok too, where installed.
    if (!test_support::on_path("grk_decompress")) continue;
    ASSERT_EQ(run_command("grk_decompress -i " + quote(file) + " -o " + quote(path("grk.ppm"))).exit_code, 0);
    const std::vector<uint8_t> g = test_support::file_bytes(path("grk.ppm"));
    ASSERT_GE(g.size(), samples);
    EXPECT_TRUE(std::equal(g.end() - static_cast<ptrdiff_t>(samples), g.end(), b.end() - static_cast<ptrdiff_t>(samples)))
        << "grk_decompress decodes it otherwise";
  }
}

// Noisy 2K frames at 48 fps: with the noise in every component the frame's limit binds; with
// it in one component after the ICT (grey), that component's limit binds. Without the
// component limit (the same settings and frame budget, no profile), that component takes
// more than DCI allows: the limit, not the content, keeps it within.
TEST_F(Cinema, ByteLimitsHoldWhereTheyBind) {
  const std::vector<uint8_t> colour = encode(xyz_image(2048, 1080, 600), cinema(J2K_PROFILE_CINEMA_2K, 48));
  EXPECT_LE(colour.size(), 651041u);
  EXPECT_GE(colour.size(), 640000u) << "the frame's limit should bind on noise";
  for (uint64_t b : component_bytes(colour)) EXPECT_LE(b, 520833u);
  std::string report;
  EXPECT_EQ(violations(colour, J2K_PROFILE_CINEMA_2K, 48, &report), 0) << report;

  const j2kfront::Image img = xyz_image(2048, 1080, 600, /*grey=*/true);
  const std::vector<uint8_t> stream = encode(img, cinema(J2K_PROFILE_CINEMA_2K, 48));
  EXPECT_LE(stream.size(), 651041u);
  const std::vector<uint64_t> bytes = component_bytes(stream);
  EXPECT_LE(bytes[0], 520833u);
  EXPECT_GE(bytes[0], 510000u) << "component 0 should be near its limit";
  EXPECT_EQ(violations(stream, J2K_PROFILE_CINEMA_2K, 48, &report), 0) << report;

  j2kfront::Coding free;
  free.rates = {static_cast<double>(2048 * 1080 * 3) * 12 / 8 / 651041};
  free.block_w = free.block_h = 32;
  free.precincts = {{256, 256}, {256, 256}, {256, 256}, {256, 256}, {256, 256}, {128, 128}};
  free.progression = J2K_CPRL;
  free.tile_parts = 'C';
  j2kfront::Settings s;
  s.wavelet = J2K_WAVELET_97;
  j2kfront::Encoder e(s, free, img.view());
  const std::vector<uint8_t> unlimited = e.encode(img.view());
  EXPECT_GT(component_bytes(unlimited)[0], 520833u) << "the content alone keeps the component within: the test shows nothing";
}

TEST_F(Cinema, RefusesWhatTheProfileCannotCode) {
  struct Case {
    const char* what;
    j2kfront::Image img;
    j2kfront::Coding coding;
    int levels;
    const char* message;
  };
  std::vector<Case> cases;
  const j2kfront::Image ok = xyz_image(64, 64, 0);
  {
    j2kfront::Image eight;
    eight.width = eight.height = 64;
    for (int c = 0; c < 3; ++c) eight.add_component(J2K_SAMPLE_U8, 8);
    cases.push_back({"8-bit", eight, cinema(J2K_PROFILE_CINEMA_2K, 24), 5, "unsigned 12-bit"});
  }
  {
    j2kfront::Image four = xyz_image(64, 64, 0);
    four.add_component(J2K_SAMPLE_U16, 12);
    cases.push_back({"4 components", four, cinema(J2K_PROFILE_CINEMA_2K, 24), 5, "3 components"});
  }
  cases.push_back({"too wide", xyz_image(2050, 32, 0), cinema(J2K_PROFILE_CINEMA_2K, 24), 5, "at most 2048 x 1080"});
  {
    j2kfront::Image moved = xyz_image(64, 64, 0);
    moved.x0 = 8;
    cases.push_back({"origin", moved, cinema(J2K_PROFILE_CINEMA_2K, 24), 5, "origin"});
  }
  cases.push_back({"fps", ok, cinema(J2K_PROFILE_CINEMA_2K, 30), 5, "24 or 48"});
  cases.push_back({"4K fps", ok, cinema(J2K_PROFILE_CINEMA_4K, 48), 5, "24 frames"});
  cases.push_back({"levels", ok, cinema(J2K_PROFILE_CINEMA_2K, 24), 6, "at most 5 decomposition levels"});
  {
    j2kfront::Coding ht = cinema(J2K_PROFILE_CINEMA_2K, 24);
    ht.modes = J2K_MODE_HT;
    cases.push_back({"HT", ok, ht, 5, "EBCOT"});
  }
  {
    j2kfront::Coding q = cinema(J2K_PROFILE_CINEMA_2K, 24);
    q.psnr = {40};
    cases.push_back({"PSNR", ok, q, 5, "not PSNR"});
  }
  {
    j2kfront::Coding bad = cinema(static_cast<j2k_profile>(7), 24);
    cases.push_back({"profile 7", ok, bad, 5, "not a j2k_profile"});
  }
  for (const Case& k : cases) {
    try {
      encode(k.img, k.coding, k.levels);
      ADD_FAILURE() << k.what << ": coded";
    } catch (const j2kfront::Error& e) {
      EXPECT_NE(std::string(e.what()).find(k.message), std::string::npos) << k.what << ": " << e.what();
    }
  }
}

// A stream made without the profile breaks it in every field the profile fixes, each named;
// opj_compress's own -cinema2K stream keeps to it, and `j2kfront check` says so (exit 0; 1 for
// the other, with each constraint on a line).
TEST_F(Cinema, CheckNamesEveryBrokenConstraint) {
  const j2kfront::Image img = xyz_image(256, 128, 20);
  j2kfront::Settings s;
  const std::vector<uint8_t> plain = j2kfront::Encoder(s, j2kfront::Coding(), img.view()).encode(img.view());
  std::string report;
  violations(plain, J2K_PROFILE_CINEMA_2K, 24, &report);
  for (const char* want : {"Rsiz is 0", "not CPRL", "not 32 x 32", "the 5/3 wavelet", "not 2^7", "no TLM", "1 tile-parts, not 3",
                           "not scalar expounded"})
    EXPECT_NE(report.find(want), std::string::npos) << want << "\n" << report;
  // Each of those is about the fields alone: the same image coded with the profile has none.
  EXPECT_EQ(violations(encode(img, cinema(J2K_PROFILE_CINEMA_2K, 24)), J2K_PROFILE_CINEMA_2K, 24), 0);
  const std::string plain_file = write("plain.j2k", plain);
  auto r = run_command(quote(kCli) + " check --profile cinema2k " + quote(plain_file));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("breaks the cinema2k profile"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  the main header has no TLM"), std::string::npos) << r.output;
  r = run_command(quote(kCli) + " check --profile cinema4k --fps 48 " + quote(plain_file));
  EXPECT_EQ(r.exit_code, 2) << "48 fps is not the 4K profile's:\n" << r.output;

  if (!test_support::on_path("opj_compress")) GTEST_SKIP() << "opj_compress not found (Debian: apt install libopenjp2-tools)";
  // A 12-bit PPM for opj_compress (maxval 4095, big-endian samples).
  std::ofstream ppm(path("in.ppm"), std::ios::binary);
  ppm << "P6\n256 128\n4095\n";
  for (uint32_t y = 0; y < 128; ++y)
    for (uint32_t x = 0; x < 256; ++x)
      for (int c = 0; c < 3; ++c) {
        const uint16_t v = img.components[static_cast<size_t>(c)].row<uint16_t>(y)[x];
        ppm.put(static_cast<char>(v >> 8)).put(static_cast<char>(v & 0xFF));
      }
  ppm.close();
  ASSERT_EQ(run_command("opj_compress -i " + quote(path("in.ppm")) + " -o " + quote(path("opj.j2k")) + " -cinema2K 24").exit_code, 0);
  r = run_command(quote(kCli) + " check --profile cinema2k " + quote(path("opj.j2k")));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("keeps to the cinema2k profile at 24 fps"), std::string::npos) << r.output;
}

j2kfront::Coding imf(j2k_profile profile, int mainlevel = 0, int sublevel = 0, double fps = 0) {
  j2kfront::Coding c;
  c.profile = profile;
  c.imf_mainlevel = mainlevel;
  c.imf_sublevel = sublevel;
  c.frame_rate = fps;
  return c;
}

// The reversible IMF profiles are lossless: our streams are opj_compress -IMF's byte for byte,
// less its comment (12-bit RGB one tile, 8-bit grey, 16-bit RGB on 1024-sample tiles), and
// decode to the image; they keep to the profile by our check.
TEST_F(Cinema, ImfReversibleIsOpenJpegsStream) {
  if (!test_support::on_path("opj_compress")) GTEST_SKIP() << "opj_compress not found (Debian: apt install libopenjp2-tools)";
  struct Case {
    const char* opj;  // -IMF's argument
    j2k_profile profile;
    j2kfront::Image img;
    uint32_t tile;
  };
  j2kfront::Image grey;
  grey.width = 300, grey.height = 200;
  grey.add_component(J2K_SAMPLE_U8, 8);
  for (size_t i = 0; i < grey.components[0].bytes.size(); ++i) grey.components[0].bytes[i] = static_cast<uint8_t>(i * 7 % 251);
  j2kfront::Image wide = xyz_image(1100, 64, 900, false, 3);
  for (auto& c : wide.components) c.precision = 16;
  const Case cases[] = {{"2K_R", J2K_PROFILE_IMF_2K_R, xyz_image(640, 360, 30), 0},
                        {"2K_R", J2K_PROFILE_IMF_2K_R, grey, 0},
                        {"4K_R", J2K_PROFILE_IMF_4K_R, wide, 1024}};
  for (const Case& k : cases) {
    SCOPED_TRACE(std::string(k.opj) + ", " + std::to_string(k.img.components.size()) + " components, tiles " + std::to_string(k.tile));
    const std::vector<uint8_t> ours = encode(k.img, imf(k.profile), 4, k.tile);
    write("ours.j2k", ours);  // kept with J2K_KEEP_TEMP, to compare with opj.j2k
    write_pnm(k.img, path(k.img.components.size() == 3 ? "in.ppm" : "in.pgm"));
    const std::string opj = "opj_compress -i " + quote(path(k.img.components.size() == 3 ? "in.ppm" : "in.pgm")) + " -o " +
                            quote(path("opj.j2k")) + " -IMF " + k.opj + " -n 5" + (k.tile ? " -t 1024,1024" : "");
    const auto r = run_command(opj);
    ASSERT_EQ(r.exit_code, 0) << opj << "\n" << r.output;
    EXPECT_EQ(r.output.find("Non-IMF"), std::string::npos) << r.output;
    EXPECT_TRUE(without_comment(ours) == without_comment(test_support::file_bytes(path("opj.j2k"))));
    std::string report;
    EXPECT_EQ(violations(ours, k.profile, 0, &report), 0) << report;
  }
}

// The irreversible IMF profiles as opj_dump reads them, with a sub level's cap on the frame's
// bytes where a frame rate is given (200 Mbit/s at 24 fps: 1,041,666 bytes) holding on noise.
TEST_F(Cinema, ImfIrreversibleWithItsLevels) {
  const j2kfront::Image img = xyz_image(2048, 1080, 600);
  const std::vector<uint8_t> stream = encode(img, imf(J2K_PROFILE_IMF_2K, 3, 1, 24));
  EXPECT_LE(stream.size(), 1041666u);
  EXPECT_GE(stream.size(), 1000000u) << "the sub level's cap should bind on noise";
  EXPECT_EQ(stream.at(6) << 8 | stream.at(7), 0x0400 | 1 << 4 | 3) << "Rsiz: the profile, sub level 1, main level 3";
  std::string report;
  EXPECT_EQ(violations(stream, J2K_PROFILE_IMF_2K, 24, &report), 0) << report;
  // At 30 fps the same stream is over the sub level's bytes and main level 3's samples a second.
  EXPECT_EQ(violations(stream, J2K_PROFILE_IMF_2K, 30, &report), 2) << report;
  if (!test_support::on_path("opj_dump")) return;
  const auto dump = run_command("opj_dump -i " + quote(write("imf.j2k", stream)));
  for (const char* want : {"prg=0x4", "cblkw=2^5", "cblksty=0", "qmfbid=0", "qntsty=2", "numlayers=1", "tw=1, th=1"})
    EXPECT_NE(dump.output.find(want), std::string::npos) << want << "\n" << dump.output;
}

// --IMF as opj_compress spells it, its levels and frame rate in Rsiz and the stream; what it
// refuses before any work (exit 2).
TEST_F(Cinema, ImfOnTheCommandLine) {
  write_pnm(xyz_image(256, 128, 20), path("in.ppm"));
  auto r = run_command(quote(kCli) + " compress -i " + quote(path("in.ppm")) + " -o " + quote(path("a.j2k")) +
                       " -IMF 2K_R,mainlevel=3,sublevel=1,framerate=24 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<uint8_t> a = test_support::file_bytes(path("a.j2k"));
  EXPECT_EQ(a.at(6) << 8 | a.at(7), 0x0713);
  r = run_command(quote(kCli) + " check --profile imf2k_r --fps 24 " + quote(path("a.j2k")));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* bad : {"3K", "2K,mainlevel=12", "2K,sublevel=x", "2K,framerate=0", "2K,colour=1"}) {
    r = run_command(quote(kCli) + " compress -i " + quote(path("in.ppm")) + " -o " + quote(path("b.j2k")) + " -IMF " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("--IMF"), std::string::npos) << bad << "\n" << r.output;
  }
  r = run_command(quote(kCli) + " compress -i " + quote(path("in.ppm")) + " -o " + quote(path("b.j2k")) + " -IMF 2K -cinema4K");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_FALSE(std::ifstream(path("b.j2k")).good());
}

TEST_F(Cinema, ImfRefusesWhatItCannotCode) {
  struct Case {
    const char* what;
    j2kfront::Image img;
    j2kfront::Coding coding;
    int levels;
    uint32_t tile;
    const char* message;
  };
  const j2kfront::Image ok = xyz_image(256, 128, 0);
  std::vector<Case> cases;
  {
    j2kfront::Image four = xyz_image(64, 64, 0);
    four.add_component(J2K_SAMPLE_U16, 12);
    cases.push_back({"4 components", four, imf(J2K_PROFILE_IMF_2K), 5, 0, "1 to 3 components"});
  }
  {
    j2kfront::Image low;
    low.width = low.height = 64;
    low.add_component(J2K_SAMPLE_U8, 7);
    cases.push_back({"7-bit", low, imf(J2K_PROFILE_IMF_2K), 5, 0, "8 to 16 bits"});
  }
  cases.push_back({"too tall", xyz_image(64, 1600, 0), imf(J2K_PROFILE_IMF_2K), 5, 0, "at most 2048 x 1556"});
  {
    j2kfront::Coding two = imf(J2K_PROFILE_IMF_2K);
    two.rates = {40, 20};
    cases.push_back({"layers", ok, two, 5, 0, "one quality layer"});
  }
  cases.push_back({"tiles of 9/7", ok, imf(J2K_PROFILE_IMF_2K), 5, 64, "codes one tile"});
  cases.push_back({"tiles of 512", xyz_image(1100, 64, 0), imf(J2K_PROFILE_IMF_4K_R), 5, 512, "tiles of 1024 or 2048"});
  cases.push_back({"levels", ok, imf(J2K_PROFILE_IMF_2K), 6, 0, "at most 5 decomposition levels"});
  cases.push_back({"levels on 1024 tiles", xyz_image(1100, 64, 0), imf(J2K_PROFILE_IMF_4K_R), 5, 1024, "at most 4 decomposition levels"});
  cases.push_back({"sub level", ok, imf(J2K_PROFILE_IMF_2K, 1, 2), 5, 0, "sub level is 0 to 1 at main level 1"});
  cases.push_back({"main level", ok, imf(J2K_PROFILE_IMF_2K, 12), 5, 0, "main level is 0 to 11"});
  cases.push_back({"samples a second", xyz_image(2048, 1080, 0), imf(J2K_PROFILE_IMF_2K, 1, 0, 24), 5, 0, "65 million samples a second"});
  {
    j2kfront::Coding levels_alone = imf(J2K_PROFILE_NONE, 3);
    cases.push_back({"levels without IMF", ok, levels_alone, 5, 0, "need an IMF profile"});
  }
  for (const Case& k : cases) {
    try {
      encode(k.img, k.coding, k.levels, k.tile);
      ADD_FAILURE() << k.what << ": coded";
    } catch (const j2kfront::Error& e) {
      EXPECT_NE(std::string(e.what()).find(k.message), std::string::npos) << k.what << ": " << e.what();
    }
  }
}

// --xyz's conversion: black is 0; sRGB's white is DCI's 48 cd/m^2 white, Y' = 3960 (4095 x
// (48 / 52.37)^(1 / 2.6)); every grey has D65's chromaticity (x 0.3127, y 0.3290) once the
// codes are taken back to linear light; brighter RGB is never a lower code.
TEST(DciXyz, WhiteBlackAndGreysChromaticity) {
  j2kfront::Image rgb;
  rgb.width = 256, rgb.height = 1;
  for (int c = 0; c < 3; ++c) {
    j2kfront::Image::Component& k = rgb.add_component(J2K_SAMPLE_U8, 8);
    for (int x = 0; x < 256; ++x) k.bytes[static_cast<size_t>(x)] = static_cast<uint8_t>(x);
  }
  for (j2k::codec::RgbTransfer t : {j2k::codec::RgbTransfer::Srgb, j2k::codec::RgbTransfer::Bt709}) {
    std::vector<uint16_t> out[3];
    j2k::codec::rgb_to_dci_xyz(*rgb.view().get(), t, out);
    EXPECT_EQ(out[0][0] + out[1][0] + out[2][0], 0);
    EXPECT_EQ(out[1][255], 3960);
    for (int x = 16; x < 256; ++x) {
      double linear[3];
      for (int c = 0; c < 3; ++c) linear[c] = std::pow(out[c][static_cast<size_t>(x)] / 4095.0, 2.6);
      const double sum = linear[0] + linear[1] + linear[2];
      EXPECT_NEAR(linear[0] / sum, 0.3127, 0.004) << x;
      EXPECT_NEAR(linear[1] / sum, 0.3290, 0.004) << x;
      for (int c = 0; c < 3; ++c) EXPECT_GE(out[c][static_cast<size_t>(x)], out[c][static_cast<size_t>(x - 1)]);
    }
  }
  j2kfront::Image grey;
  grey.width = grey.height = 4;
  grey.add_component(J2K_SAMPLE_U8, 8);
  std::vector<uint16_t> out[3];
  EXPECT_THROW(j2k::codec::rgb_to_dci_xyz(*grey.view().get(), j2k::codec::RgbTransfer::Srgb, out), j2k::Error);
}

}  // namespace
