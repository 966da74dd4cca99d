// SPDX-License-Identifier: BSD-2-Clause
// HTJ2K (ISO/IEC 15444-15) streams between us and the outside coders: OpenJPH's ojph_compress
// streams (lossless and lossy, code-blocks of 16x16, 64x64, 32x8 and 4x1024, tiles,
// progressions, odd image sizes, PGM and PPM, 8 and 16 bits) decoded by `j2kfront
// decompress`: lossless ones to exactly the original image and what ojph_expand gives; lossy
// ones to exactly what opj_decompress (OpenJPEG 2.5, whose dequantisation and 9/7 ours
// follows bit for bit) gives, and within 1 of ojph_expand's (its own float 9/7 rounds a few
// samples the other way). Where the CLI has a CUDA device, `decompress --backend cuda` (HT
// code-blocks decoded on the GPU) gives the CPU backend's samples exactly. Then our `compress
// --ht` streams in those decoders and Grok's. Each case skips, saying why, where its tools are
// missing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/pnm_files.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

using test_support::quote;
using test_support::Pnm;
using test_support::read_pnm;
using test_support::run_command;
using test_support::write_pnm;

namespace {

const std::string kCli = J2K_CLI_PATH;

// Whether the CLI runs --backend cuda here (its --version lists the backends it can run).
bool cli_has_cuda() {
  static const bool has = [] {
    const auto r = run_command(quote(kCli) + " --version");
    return r.exit_code == 0 && r.output.find("cuda: ") != std::string::npos && r.output.find("cuda: unavailable") == std::string::npos;
  }();
  return has;
}

struct Case {
  const char* name;
  int width, height, channels, maxval;
  const char* ojph_flags;
  bool lossless;
};

class HtInterop : public test_support::TempDirTest, public ::testing::WithParamInterface<Case> {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    if (!test_support::on_path("ojph_compress") || !test_support::on_path("ojph_expand"))
      GTEST_SKIP() << "ojph_compress / ojph_expand not found (Debian: apt install openjph-tools)";
  }
};

TEST_P(HtInterop, OpenJphStreamsDecode) {
  const Case& c = GetParam();
  const std::string ext = c.channels == 3 ? ".ppm" : ".pgm";
  const std::string original = path("in" + ext), stream = path("ht.j2c");
  write_pnm(original, c.width, c.height, c.channels, c.maxval, 17u + static_cast<uint32_t>(c.width));
  auto r = run_command("ojph_compress -i " + quote(original) + " -o " + quote(stream) + " " + c.ojph_flags);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command("ojph_expand -i " + quote(stream) + " -o " + quote(path("ojph" + ext)));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(quote(kCli) + " decompress --quiet -i " + quote(stream) + " -o " + quote(path("ours" + ext)));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Pnm in = read_pnm(original), theirs = read_pnm(path("ojph" + ext)), ours = read_pnm(path("ours" + ext));
  if (cli_has_cuda()) {  // HT blocks decoded on the GPU: the CPU's samples
    r = run_command(quote(kCli) + " decompress --quiet --backend cuda -i " + quote(stream) + " -o " + quote(path("cuda" + ext)));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_pnm(path("cuda" + ext)).samples, ours.samples) << "--backend cuda: not the CPU backend's samples";
  }
  ASSERT_EQ(ours.width, c.width);
  ASSERT_EQ(ours.height, c.height);
  ASSERT_EQ(ours.samples.size(), theirs.samples.size());
  ASSERT_FALSE(ours.samples.empty());
  if (c.lossless) {
    EXPECT_EQ(ours.samples, in.samples) << "lossless: not the original image";
    EXPECT_EQ(ours.samples, theirs.samples) << "lossless: not what ojph_expand gives";
    return;
  }
  // OpenJPH's float 9/7 rounds some samples the other way: by 1 at 8 bits (a few of them), by
  // a little more at 16 (many: float32 keeps 24 bits).
  const int tolerance = c.maxval > 255 ? 4 : 1;
  size_t differ = 0;
  for (size_t i = 0; i < ours.samples.size(); ++i) {
    ASSERT_LE(std::abs(ours.samples[i] - theirs.samples[i]), tolerance) << "sample " << i << " of ojph_expand's";
    differ += ours.samples[i] != theirs.samples[i];
  }
  if (c.maxval <= 255) {
    EXPECT_LT(differ * 100, ours.samples.size()) << differ << " samples differ from ojph_expand's (at most 1% may)";
  }
  if (!test_support::on_path("opj_decompress")) {
    std::cout << "[ note ] opj_decompress not found: lossy samples checked against ojph_expand's only\n";
    return;
  }
  r = run_command("opj_decompress -i " + quote(stream) + " -o " + quote(path("opj" + ext)));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Pnm opj = read_pnm(path("opj" + ext));
  EXPECT_EQ(ours.samples, opj.samples) << "lossy: not what opj_decompress gives";
}

const Case kCases[] = {
    {"Grey8Lossless16x16", 67, 45, 1, 255, "-reversible true -block_size {16,16}", true},
    {"Grey8Lossless64x64", 131, 97, 1, 255, "-reversible true -block_size {64,64}", true},
    {"Grey8Lossless32x8", 67, 45, 1, 255, "-reversible true -block_size {32,8}", true},
    {"Grey8Lossless4x1024", 37, 300, 1, 255, "-reversible true -block_size {4,1024}", true},
    {"Rgb8Lossless16x16", 67, 45, 3, 255, "-reversible true -block_size {16,16}", true},
    {"Rgb8Lossless64x64", 131, 97, 3, 255, "-reversible true -block_size {64,64}", true},
    {"Rgb8Lossless32x8", 53, 29, 3, 255, "-reversible true -block_size {32,8}", true},
    {"Grey16Lossless", 61, 43, 1, 65535, "-reversible true -block_size {32,32}", true},
    {"Grey12Lossless", 61, 43, 1, 4095, "-reversible true -block_size {64,64} -num_decomps 3", true},
    {"Rgb8LosslessTilesRpcl", 150, 90, 3, 255, "-reversible true -tile_size {64,64} -prog_order RPCL", true},
    {"Grey8LosslessTiny", 5, 3, 1, 255, "-reversible true -num_decomps 1", true},
    {"Grey8Lossy16x16", 67, 45, 1, 255, "-qstep 0.01 -block_size {16,16}", false},
    {"Grey8Lossy64x64", 131, 97, 1, 255, "-qstep 0.01 -block_size {64,64}", false},
    {"Grey8Lossy32x8", 67, 45, 1, 255, "-qstep 0.01 -block_size {32,8}", false},
    {"Rgb8Lossy16x16", 67, 45, 3, 255, "-qstep 0.01 -block_size {16,16}", false},
    {"Rgb8Lossy64x64", 131, 97, 3, 255, "-qstep 0.01 -block_size {64,64}", false},
    {"Rgb8Lossy32x8", 53, 29, 3, 255, "-qstep 0.01 -block_size {32,8}", false},
    {"Rgb8LossyCoarse", 131, 97, 3, 255, "-qstep 0.1 -block_size {32,32}", false},
    {"Grey16Lossy", 61, 43, 1, 65535, "-qstep 0.001 -block_size {64,64}", false},
};

INSTANTIATE_TEST_SUITE_P(Ojph, HtInterop, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// Flipped bytes in an HT stream's packet data, and streams cut short, decode to something or
// fail with a message (exit 0 or 1), never a crash (CI runs the tests under ASan/UBSan too).
TEST(HtInteropRobustness, FlippedAndCutOpenJphStreamsNeverCrash) {
  if (!test_support::on_path("ojph_compress")) GTEST_SKIP() << "ojph_compress not found (Debian: apt install openjph-tools)";
  const std::string dir = ::testing::TempDir() + "/ht_robust_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string original = dir + "/in.ppm", stream = dir + "/ht.j2c";
  write_pnm(original, 70, 50, 3, 255, 99);
  auto r = run_command("ojph_compress -i " + quote(original) + " -o " + quote(stream) + " -reversible true -block_size {16,16}");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<uint8_t> bytes = test_support::file_bytes(stream);
  size_t sod = 0;  // the packet data starts after SOD
  while (sod + 1 < bytes.size() && !(bytes[sod] == 0xFF && bytes[sod + 1] == 0x93)) ++sod;
  ASSERT_LT(sod + 2, bytes.size());
  uint32_t seed = 1;
  int decoded = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<uint8_t> bad = bytes;
    seed = seed * 1664525u + 1013904223u;
    if (trial % 4 == 3) {
      bad.resize(sod + 2 + (seed >> 8) % (bytes.size() - sod - 2));
    } else {
      for (int f = 0; f < 1 + trial % 5; ++f) {
        seed = seed * 1664525u + 1013904223u;
        bad[sod + 2 + (seed >> 8) % (bytes.size() - sod - 4)] ^= static_cast<uint8_t>(1u << (seed % 8));
      }
    }
    const std::string path = dir + "/bad.j2c";
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bad.data()), static_cast<std::streamsize>(bad.size()));
    r = run_command(quote(kCli) + " decompress --quiet --force --allow-partial -i " + quote(path) + " -o " + quote(dir + "/out.ppm"));
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << "trial " << trial << ": exit " << r.exit_code << ": " << r.output;
    decoded += r.exit_code == 0;
  }
  EXPECT_GT(decoded, 0);
  std::filesystem::remove_all(dir);
}

// `compress --ht`: our HT streams (CAP, COD's style bit 6) decoded by ojph_expand,
// opj_decompress and grk_decompress, lossless ones to exactly the original image, at several
// code-block sizes, odd sizes, 8 and 16 bits, grey and RGB; the 9/7 ones to exactly what our
// decoder gives in OpenJPEG and Grok (OpenJPEG's arithmetic), within 1 in OpenJPH.
struct OursCase {
  const char* name;
  int width, height, channels, maxval;
  const char* flags;
  bool lossless;
};

class HtCompress : public test_support::TempDirTest, public ::testing::WithParamInterface<OursCase> {};

TEST_P(HtCompress, OutsideDecodersReadOurStreams) {
  const OursCase& c = GetParam();
  const std::string ext = c.channels == 3 ? ".ppm" : ".pgm";
  const std::string original = path("in" + ext), stream = path("ours.j2k");
  write_pnm(original, c.width, c.height, c.channels, c.maxval, 7u + static_cast<uint32_t>(c.height));
  auto r = run_command(quote(kCli) + " compress --quiet --ht -i " + quote(original) + " -o " + quote(stream) + " " + c.flags);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<uint8_t> bytes = test_support::file_bytes(stream);
  // SIZ's Rsiz says CAP follows (bit 14), CAP right after SIZ with Pcap^15.
  ASSERT_GT(bytes.size(), 60u);
  EXPECT_EQ(bytes[6], 0x40);
  const size_t cap = 4 + (size_t{bytes[4]} << 8 | bytes[5]);
  EXPECT_EQ(bytes[cap], 0xFF);
  EXPECT_EQ(bytes[cap + 1], 0x50);
  EXPECT_EQ(bytes[cap + 4] << 24 | bytes[cap + 5] << 16 | bytes[cap + 6] << 8 | bytes[cap + 7], 0x00020000);
  const Pnm in = read_pnm(original);
  r = run_command(quote(kCli) + " decompress --quiet -i " + quote(stream) + " -o " + quote(path("back" + ext)));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Pnm back = read_pnm(path("back" + ext));
  if (c.lossless) {
    EXPECT_EQ(back.samples, in.samples) << "our decoder";
  }
  struct Tool {
    const char* name;
    std::string command;
    int tolerance;  // lossy: how far its samples may be from ours
  };
  const Tool tools[] = {
      {"ojph_expand", "ojph_expand -i " + quote(stream) + " -o " + quote(path("ojph" + ext)), 1},
      {"opj_decompress", "opj_decompress -i " + quote(stream) + " -o " + quote(path("opj" + ext)), 0},
      {"grk_decompress", "grk_decompress -i " + quote(stream) + " -o " + quote(path("grk" + ext)), 0},
  };
  const char* outputs[] = {"ojph", "opj", "grk"};
  int ran = 0;
  for (size_t t = 0; t < 3; ++t) {
    if (!test_support::on_path(tools[t].name)) {
      std::cout << "[ note ] " << tools[t].name << " not found: not checked\n";
      continue;
    }
    ++ran;
    r = run_command(tools[t].command);
    ASSERT_EQ(r.exit_code, 0) << tools[t].name << ": " << r.output;
    const Pnm theirs = read_pnm(path(std::string(outputs[t]) + ext));
    ASSERT_EQ(theirs.samples.size(), in.samples.size()) << tools[t].name;
    if (c.lossless) {
      EXPECT_EQ(theirs.samples, in.samples) << tools[t].name << ": not the original image";
      continue;
    }
    for (size_t i = 0; i < theirs.samples.size(); ++i)
      ASSERT_LE(std::abs(theirs.samples[i] - back.samples[i]), tools[t].tolerance) << tools[t].name << ", sample " << i;
  }
  if (ran == 0) GTEST_SKIP() << "none of ojph_expand, opj_decompress, grk_decompress found (Debian: openjph-tools, libopenjp2-tools, grokj2k-tools)";
}

const OursCase kOurs[] = {
    {"Grey8", 67, 45, 1, 255, "", true},
    {"Grey8Blocks16x16", 131, 97, 1, 255, "-b 16,16", true},
    {"Grey8Blocks32x8", 67, 45, 1, 255, "-b 32,8", true},
    {"Grey8Blocks4x1024", 37, 300, 1, 255, "-b 4,1024 -n 3", true},
    {"Rgb8", 131, 97, 3, 255, "", true},
    {"Rgb8Blocks16x16Tiles", 150, 90, 3, 255, "-b 16,16 -t 64,64 -p RPCL", true},
    {"Grey16", 61, 43, 1, 65535, "", true},
    {"Grey8Tiny", 5, 3, 1, 255, "-n 1", true},
    {"Grey8Irreversible", 131, 97, 1, 255, "-I", false},
    {"Rgb8Irreversible", 67, 45, 3, 255, "-I -b 32,32", false},
};

INSTANTIATE_TEST_SUITE_P(Ours, HtCompress, ::testing::ValuesIn(kOurs),
                         [](const ::testing::TestParamInfo<OursCase>& i) { return std::string(i.param.name); });

// What --ht does not take, EBCOT's mode switches, is refused with a message naming HT; -M HT
// is --ht.
TEST(HtCompressRefusals, OtherModes) {
  const std::string dir = ::testing::TempDir() + "/ht_refuse_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  write_pnm(dir + "/in.pgm", 16, 16, 1, 255, 1);
  // -M HT is --ht.
  auto made = run_command(quote(kCli) + " compress --quiet --ht -n 3 -i " + quote(dir + "/in.pgm") + " -o " + quote(dir + "/a.jhc"));
  ASSERT_EQ(made.exit_code, 0) << made.output;
  made = run_command(quote(kCli) + " compress --quiet -M ht -n 3 -i " + quote(dir + "/in.pgm") + " -o " + quote(dir + "/b.jhc"));
  ASSERT_EQ(made.exit_code, 0) << made.output;
  EXPECT_EQ(test_support::file_bytes(dir + "/a.jhc"), test_support::file_bytes(dir + "/b.jhc"));
  for (const char* flags : {"-M 1", "-M 8", "-M 63"}) {
    const auto r = run_command(quote(kCli) + " compress --ht " + flags + " -i " + quote(dir + "/in.pgm") + " -o " +
                               quote(dir + "/out.j2k") + " --force");
    EXPECT_NE(r.exit_code, 0) << flags;
    EXPECT_NE(r.output.find("HT"), std::string::npos) << flags << ": " << r.output;
  }
  std::filesystem::remove_all(dir);
}

// Lossless HT files within 1% of ojph_compress's at the same settings (5 levels, 64x64
// code-blocks, one layer): the cleanup pass codes the same bits, only the choice of CxtVLC
// codewords and the headers may differ.
TEST(HtCompressSize, LosslessWithinOnePercentOfOpenJph) {
  if (!test_support::on_path("ojph_compress")) GTEST_SKIP() << "ojph_compress not found (Debian: apt install openjph-tools)";
  const std::string dir = ::testing::TempDir() + "/ht_size_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  for (int channels : {1, 3}) {
    const std::string in = dir + (channels == 3 ? "/in.ppm" : "/in.pgm");
    write_pnm(in, 257, 193, channels, 255, 5);
    auto r = run_command(quote(kCli) + " compress --quiet --ht -i " + quote(in) + " -o " + quote(dir + "/ours.j2k") + " --force");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_command("ojph_compress -reversible true -i " + quote(in) + " -o " + quote(dir + "/ojph.j2c"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const double ours = static_cast<double>(std::filesystem::file_size(dir + "/ours.j2k"));
    const double theirs = static_cast<double>(std::filesystem::file_size(dir + "/ojph.j2c"));
    EXPECT_LT(std::abs(ours - theirs), 0.01 * theirs) << channels << " components: " << ours << " bytes against " << theirs;
  }
  std::filesystem::remove_all(dir);
}

// `compress --ht -o X.jph`: a JPH file (ISO/IEC 15444-15 Annex D: JP2's boxes, brand and
// compatibility 'jph '), and .jhc for the raw HTJ2K codestream; both read back by us and the
// outside decoders to the original image. .jph without --ht is refused.
TEST(HtJph, JphAndJhcFilesDecodeEverywhere) {
  const std::string dir = ::testing::TempDir() + "/ht_jph_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string in = dir + "/in.ppm";
  write_pnm(in, 67, 45, 3, 255, 21);
  const Pnm original = read_pnm(in);
  for (const char* ext : {".jph", ".jhc"}) {
    const std::string file = dir + "/ours" + ext;
    auto r = run_command(quote(kCli) + " compress --quiet --ht -i " + quote(in) + " -o " + quote(file));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::vector<uint8_t> bytes = test_support::file_bytes(file);
    ASSERT_GT(bytes.size(), 40u);
    if (std::string(ext) == ".jph") {
      EXPECT_EQ(std::string(bytes.begin() + 20, bytes.begin() + 24), "jph ") << "brand";
      EXPECT_EQ(std::string(bytes.begin() + 28, bytes.begin() + 32), "jph ") << "compatibility";
    } else {
      EXPECT_EQ(bytes[0], 0xFF);
      EXPECT_EQ(bytes[1], 0x4F);  // SOC: a bare codestream
    }
    r = run_command(quote(kCli) + " decompress --quiet -i " + quote(file) + " -o " + quote(dir + "/back.ppm") + " --force");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(read_pnm(dir + "/back.ppm").samples, original.samples) << ext << ": ours";
    const std::pair<const char*, std::string> tools[] = {
        {"ojph_expand", "ojph_expand -i " + quote(file) + " -o " + quote(dir + "/t.ppm")},
        {"grk_decompress", "grk_decompress -i " + quote(file) + " -o " + quote(dir + "/t.ppm")},
        {"opj_decompress", "opj_decompress -i " + quote(file) + " -o " + quote(dir + "/t.ppm")},
    };
    for (const auto& [tool, command] : tools) {
      if (!test_support::on_path(tool)) {
        std::cout << "[ note ] " << tool << " not found: not checked\n";
        continue;
      }
      std::filesystem::remove(dir + "/t.ppm");
      r = run_command(command);
      ASSERT_EQ(r.exit_code, 0) << tool << " on " << ext << ": " << r.output;
      EXPECT_EQ(read_pnm(dir + "/t.ppm").samples, original.samples) << tool << " on " << ext;
    }
  }
  const auto r = run_command(quote(kCli) + " compress --quiet -i " + quote(in) + " -o " + quote(dir + "/no.jph"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--ht"), std::string::npos) << r.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
