// SPDX-License-Identifier: BSD-2-Clause
// --max-memory holds, for decompress and compress: a stream (or settings) whose code-block and
// precinct bookkeeping dwarfs its bytes is refused before that memory is taken, with an error
// naming what for and the limit, and the run's peak resident memory (its child process's
// ru_maxrss, from wait4) stays under the limit plus a fixed allowance for the process itself.
// One case per structure class of issue 45 (tiny code-blocks, tiny precincts in a cut stream,
// thousands of components; compress with tiny precincts or code-blocks), and streams and
// images of the same size class that fit their limit still decode or compress within it.
// J2K_TEST_CLI, where set, names another build's j2kfront to run them against.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/empty_packet_stream.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"
#include "tests/support/under_asan.hpp"


namespace {

using test_support::quote;

// What the process takes besides what the limit covers: its code and libraries, the C++
// runtime, the threads' stacks, the output file's writer.
constexpr long kProcessAllowanceMiB = 64;

std::string cli_path() {
  const char* other = std::getenv("J2K_TEST_CLI");
  return other && *other ? other : J2K_CLI_PATH;
}

class MemoryLimit : public test_support::TempDirTest {
 protected:
  // Runs `j2kfront ARGS` with 2 threads, and checks that it stayed within `limit_mib` plus the
  // allowance.
  test_support::MeasuredResult run(const std::string& args, long limit_mib) {
    return run_kib(args, limit_mib * 1024);
  }
  test_support::MeasuredResult run_kib(const std::string& args, long limit_kib) {
    const test_support::MeasuredResult r =
        test_support::run_measured(quote(cli_path()) + " " + args + " --threads 2 --max-memory " + std::to_string(limit_kib) + "K",
                                   path("log.txt"));
    const long peak_mib = r.peak_rss_kb / 1024, limit_mib = limit_kib / 1024;
    std::printf("[memory] %s: exit %d, peak %ld MiB (limit %ld KiB)\n", args.c_str(), r.exit_code, peak_mib, limit_kib);
    if (!J2K_TEST_UNDER_ASAN) {
      EXPECT_LT(peak_mib, limit_mib + kProcessAllowanceMiB) << "j2kfront " << args << " took " << peak_mib << " MiB under --max-memory "
                                                            << limit_kib << "K:\n" << r.output;
    }
    return r;
  }

  // Refused for memory: exit 1, the message naming `cause`, what it needs in MiB and the limit
  // (compress gives the encoder the limit less the image's samples, and says so).
  void expect_refused(const test_support::MeasuredResult& r, const std::string& cause, long limit_mib) {
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(cause), std::string::npos) << "the error does not name " << cause << ":\n" << r.output;
    EXPECT_NE(r.output.find(" MiB of memory allowed"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(" " + std::to_string(limit_mib) + " MiB"), std::string::npos) << "the limit is not named:\n" << r.output;
    EXPECT_NE(r.output.find(" needs "), std::string::npos) << r.output;
  }

  std::string write(const std::string& name, const std::vector<uint8_t>& bytes) {
    std::ofstream(path(name), std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path(name);
  }

  // A w x h RGB PPM: smooth ramps with a little texture, which codes as photographs do.
  std::string rgb_image(const std::string& name, int w, int h) {
    std::string header = "P6\n" + std::to_string(w) + " " + std::to_string(h) + "\n255\n";
    std::vector<uint8_t> bytes(header.begin(), header.end());
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        bytes.push_back(static_cast<uint8_t>(x * 255 / w));
        bytes.push_back(static_cast<uint8_t>(y * 255 / h));
        bytes.push_back(static_cast<uint8_t>((x ^ y) + (x * 7 + y * 13) % 5));
      }
    return write(name, bytes);
  }
};

// 4 x 4 code-blocks on a 4096 x 4096 image, its packets all empty (102 bytes): a million
// blocks, each with its place in the layout and its state in a precinct's reader.
TEST_F(MemoryLimit, DecompressTinyCodeBlocks) {
  test_support::EmptyPacketStream s;
  s.tile_size = 4096, s.levels = 5, s.block_log2 = 2;
  const std::string in = write("blocks.j2k", s.bytes());
  expect_refused(run("decompress -i " + quote(in) + " -o " + quote(path("out.pgm")), 100), "code-block", 100);
  // Within a limit that holds them, the decoder's own bound on blocks for so few bytes refuses
  // it (a million blocks for 6 bytes of packets), still without taking their memory.
  const auto r = run("decompress -i " + quote(in) + " -o " + quote(path("bound.pgm")), 400);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("code-blocks for its"), std::string::npos) << r.output;
}

// A stream our encoder wrote with 4 x 4 code-blocks (196,608 of them, with their bytes):
// refused under a limit its structures pass, decoded within one that holds them.
TEST_F(MemoryLimit, DecompressTinyCodeBlocksWithTheirData) {
  const std::string image = rgb_image("image.ppm", 1024, 1024);
  ASSERT_EQ(run("compress -i " + quote(image) + " -o " + quote(path("blocks.j2k")) + " -b 4,4", 400).exit_code, 0);
  expect_refused(run("decompress -i " + quote(path("blocks.j2k")) + " -o " + quote(path("out.ppm")), 24), "code-block", 24);
  const auto r = run("decompress -i " + quote(path("blocks.j2k")) + " -o " + quote(path("fits.ppm")), 200);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// 2 x 2 precincts (1 x 1 code-blocks) on a 2048 x 2048 image in a cut stream: its bytes say
// nothing of its packets, so the precincts are not held to them; every one has a reader.
TEST_F(MemoryLimit, DecompressTinyPrecinctsInACutStream) {
  test_support::EmptyPacketStream s;
  s.tile_size = 2048, s.levels = 5, s.precinct_log2 = 1, s.packets = 1000, s.cut_bytes = 100000;
  const std::string in = write("precincts.j2k", s.bytes());
  expect_refused(run("decompress --allow-partial -i " + quote(in) + " -o " + quote(path("out.pgm")), 100), "precincts", 100);
}

// 16384 components of 32 levels on an 8 x 8 image: half a million precincts (one a
// resolution of each component), each packet one byte.
TEST_F(MemoryLimit, DecompressThousandsOfComponents) {
  test_support::EmptyPacketStream s;
  s.tile_size = 8, s.levels = 32, s.components = 16384;
  s.packets = int64_t{16384} * 33;  // every resolution has a precinct, empty or not
  const std::string in = write("components.j2k", s.bytes());
  expect_refused(run("decompress -i " + quote(in) + " -o " + quote(path("out.pgx")), 200), "16384", 200);
}

// A stream our encoder wrote, of about the size above: decoded within a limit that holds its
// output, coefficients and structures.
TEST_F(MemoryLimit, DecompressFitsAnOrdinaryStream) {
  const std::string image = rgb_image("image.ppm", 1024, 1024);
  ASSERT_EQ(run("compress -i " + quote(image) + " -o " + quote(path("image.j2k")), 100).exit_code, 0);
  const auto r = run("decompress -i " + quote(path("image.j2k")) + " -o " + quote(path("out.ppm")), 64);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// 2 x 2 precincts on a 1000 x 1000 RGB image: 1 x 1 code-blocks, three million of them, each
// with Tier-1's passes, Tier-2's records and a precinct of its own.
TEST_F(MemoryLimit, CompressTinyPrecincts) {
  const std::string image = rgb_image("image.ppm", 1000, 1000);
  expect_refused(run("compress -i " + quote(image) + " -o " + quote(path("out.j2k")) + " -c [2,2]", 300), "code-blocks", 300);
}

// 4 x 4 code-blocks on a 1024 x 1024 RGB image, in three layers (rate control keeps each
// block's hull too).
TEST_F(MemoryLimit, CompressTinyCodeBlocks) {
  const std::string image = rgb_image("image.ppm", 1024, 1024);
  const std::string args = "compress -i " + quote(image) + " -o " + quote(path("out.j2k")) + " -b 4,4 -I -r 40,20,10";
  expect_refused(run(args, 40), "code-blocks", 40);
  // Within a limit that fits it: compressed.
  EXPECT_EQ(run(args, 200).exit_code, 0);
}

// The same image with the default code-blocks: compressed within a small limit.
TEST_F(MemoryLimit, CompressFitsOrdinarySettings) {
  const std::string image = rgb_image("image.ppm", 1024, 1024);
  const auto r = run("compress -i " + quote(image) + " -o " + quote(path("out.j2k")) + " -I -r 20", 40);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// A tiled image whose samples and coefficients are over --max-memory goes a row of tiles at a
// time (its line says so): within the limit, below the whole run's peak, into the file the
// whole run writes, lossless, with -I -r, and as a JP2 with an odd origin, TLM, PLT and
// tile-parts (5 rows of tiles there, the first and last cut by the image), and subsampled on
// the canvas (-s: 9 rows of tiles, the file's rows every other canvas row) with -ROI and -POC.
// 2048 x 2048 RGB: 12 MiB of samples and 48 MiB of coefficients whole; a row of 512 x 2048
// tiles takes 3 and 12.
TEST_F(MemoryLimit, CompressByRowsOfTiles) {
  const std::string image = rgb_image("image.ppm", 2048, 2048);
  struct Case {
    std::string flags;
    int tile_rows;
  };
  for (const Case& k : {Case{"-o {}.j2k", 4}, Case{"-o {}.j2k -I -r 20,5", 4}, Case{"-o {}.jp2 -d 5,3 --TLM --PLT --TP R -p RPCL", 5},
                        Case{"-o {}.j2k -s 2,2 -d 4,2 --ROI c=0,U=2 --POC T1=0,0,1,6,3,CPRL", 9}}) {
    const std::string& flags = k.flags;
    auto args = [&](const std::string& name) {
      std::string f = flags;
      f.replace(f.find("{}"), 2, quote(path(name)));
      return "compress -i " + quote(image) + " -t 512,512 --force " + f;
    };
    const std::string ext = flags.substr(6, 4);
    const auto whole = run(args("whole"), 400);
    ASSERT_EQ(whole.exit_code, 0) << whole.output;
    EXPECT_EQ(whole.output.find("rows of tiles"), std::string::npos) << "within 400 MiB the image goes whole:\n" << whole.output;
    const auto rows = run(args("rows"), 40);
    ASSERT_EQ(rows.exit_code, 0) << rows.output;
    EXPECT_NE(rows.output.find("by " + std::to_string(k.tile_rows) + " rows of tiles"), std::string::npos) << flags << ":\n" << rows.output;
    EXPECT_TRUE(test_support::file_bytes(path("whole" + ext)) == test_support::file_bytes(path("rows" + ext))) << flags;
    if (!J2K_TEST_UNDER_ASAN) {
      EXPECT_LT(rows.peak_rss_kb, whole.peak_rss_kb) << flags;
    }
  }
  // A limit a row of tiles does not fit: refused naming the row and what its plan needs; one
  // its samples alone do not fit: refused saying so.
  const std::string args = "compress -i " + quote(image) + " -t 512,512 -o " + quote(path("small.j2k"));
  expect_refused(run(args, 10), "a row of tiles (canvas rows 0..511", 10);
  const auto r = run(args, 3);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("for its samples alone"), std::string::npos) << r.output;
}

}  // namespace

// HT with a rate target codes several planes of each block on the way to its choice: those
// are counted too. Between the limit that the image, the plan and the layout need and the one
// that the whole run needs, some limits are refused naming the planes (each plane's bytes are
// few beside the coefficients', so the limits step by 64 KiB over that range).
TEST_F(MemoryLimit, CompressHtTargetsCountTheirPlanes) {
  const std::string image = rgb_image("image.ppm", 512, 512);
  const std::string args = "compress -i " + quote(image) + " -o " + quote(path("out.jph")) + " --ht -I -r 4 --force";
  int planes_refused = 0;
  for (long kib = 4032; kib <= 5120 && planes_refused == 0; kib += 64) {
    const auto r = run_kib(args, kib);
    if (r.exit_code == 1 && r.output.find("HT rate control's coded planes") != std::string::npos) ++planes_refused;
  }
  EXPECT_GT(planes_refused, 0) << "no limit between 4032 and 5120 KiB was refused for the HT planes";
  EXPECT_EQ(run(args, 64).exit_code, 0);
}
