// SPDX-License-Identifier: BSD-2-Clause
// The j2kfront command line as a user meets it: outputs, exit codes, messages, and the rules
// about existing files.
#include <gtest/gtest.h>

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>
#include <utility>

#include <nlohmann/json.hpp>

#include "tests/support/forged_files.hpp"
#include "tests/support/npy_reader.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"
#include "tests/support/under_asan.hpp"


namespace fs = std::filesystem;
using test_support::quote;
using test_support::run_command;

namespace {

const std::string kCli = J2K_CLI_PATH;
const std::string kData = J2K_TEST_DATA_DIR;

class Cli : public test_support::TempDirTest {
 protected:
  test_support::CommandResult cli(const std::string& args) { return run_command(quote(kCli) + " " + args); }
  std::string out(const std::string& sub = "out") const { return path(sub); }
};

std::string file_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

TEST_F(Cli, TransformWritesLayoutAndOneArrayPerTileComponent) {
  auto r = cli("transform " + quote(kData + "/coffee.ppm") + " " + quote(out()) +
               " --tile-size 256,256 --tile-origin 10,0 --image-origin 30,7 --levels 3 --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The one-line summary names every stage with its time.
  for (const char* word : {"read", "tiling", "shift+MCT", "DWT", "write", "MCT on"})
    EXPECT_NE(r.output.find(word), std::string::npos) << word << " missing from: " << r.output;
  std::ifstream f(out() + "/layout.json");
  const auto j = nlohmann::json::parse(f);
  EXPECT_EQ(j["wavelet"], "5/3");
  EXPECT_EQ(j["canvas"]["tiles_x"], 3);  // ceil((630 - 10) / 256)
  EXPECT_EQ(j["canvas"]["tiles_y"], 2);  // ceil(407 / 256)
  ASSERT_EQ(j["tile_components"].size(), 18u);
  for (const auto& tc : j["tile_components"]) {
    const auto npy = test_support::read_npy(out() + "/" + tc["file"].get<std::string>());
    EXPECT_EQ(npy.descr, "<i4");
    EXPECT_EQ(npy.rows, tc["rect"]["height"].get<int64_t>());
    EXPECT_EQ(npy.cols, tc["rect"]["width"].get<int64_t>());
    EXPECT_EQ(tc["bands"].size(), 1u + 3u * 3u);
  }
  EXPECT_EQ(j["tile_components"][4]["file"], "tile1_comp1.npy");
}

TEST_F(Cli, NineSevenWritesFloat32) {
  auto r = cli("transform " + quote(kData + "/camera.pgm") + " " + quote(out()) + " --wavelet 9/7 --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(test_support::read_npy(out() + "/tile0_comp0.npy").descr, "<f4");
}

TEST_F(Cli, BadArgumentsExitWithUsageAndCode2) {
  const std::string in = quote(kData + "/camera.pgm") + " " + quote(out());
  const std::vector<std::string> bad_args = {
       std::string("transform"), "transform " + in + " --wavelet 5/5", "transform " + in + " --levels 33",
        "transform " + in + " --levels -1", "transform " + in + " --tile-size 0,8",
        "transform " + in + " --tile-size 8", "transform " + in + " --tile-size a,b",
        "transform " + in + " --tile-origin 5,5", "transform " + in + " --image-origin 1,2,3",
        "transform " + in + " --mct maybe", "transform " + in + " --backend gpu",
        "transform " + in + " --threads -1", "transform " + in + " --bogus", std::string("frobnicate"),
        "bench --sizes 0", "bench --sizes 12x"};
  for (const std::string& args : bad_args) {
    auto r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("sage"), std::string::npos) << "no usage for: " << args << "\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(out())) << "a refused run created the output directory";
  // Two lines: the problem, naming the flag, and where the options are; not the help page.
  auto r = cli("transform " + in + " --levels 33");
  EXPECT_NE(r.output.find("j2kfront: --levels: Value 33 not in range"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 2) << r.output;
  r = cli("frobnicate");
  EXPECT_NE(r.output.find("unknown command 'frobnicate'"), std::string::npos) << r.output;
}

// -i and -o beside the positional arguments, and --quiet: the same files, nothing printed.
TEST_F(Cli, InputAndOutputFlagsAndQuiet) {
  const std::string camera = quote(kData + "/camera.pgm"), moon = quote(kData + "/moon.pgm");
  auto r = cli("transform " + camera + " " + moon + " " + quote(out("positional")) + " --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = cli("transform -i " + camera + " " + quote(out("flags")) + " -i " + moon + " --backend cpu -q");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");
  r = cli("transform " + camera + " -o " + quote(out("mixed")) + " " + moon + " --backend cpu --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");
  for (const char* dir : {"flags", "mixed"})
    for (const char* image : {"camera.pgm", "moon.pgm"})
      EXPECT_EQ(file_text(out(dir) + "/" + image + "/tile0_comp0.npy"),
                file_text(out("positional") + "/" + image + "/tile0_comp0.npy"))
          << dir << " " << image;
  r = cli("transform " + camera);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no input: '" + kData + "/camera.pgm' is the output directory"), std::string::npos)
      << r.output;
}

TEST_F(Cli, VersionNamesTheLibraryAndEachBackend) {
  auto r = cli("--version");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("j2kfront 0.", 0), 0u) << r.output;
  for (const char* backend : {"\n  cpu: cpu (", "\n  cuda: ", "\n  opencl: "})
    EXPECT_NE(r.output.find(backend), std::string::npos) << backend << " missing from: " << r.output;
  r = cli("help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("transform"), std::string::npos) << r.output;
}

TEST_F(Cli, BadInputFilesFailCleanlyNamingTheFile) {
  const std::string bad = (dir_ / "broken.pgm").string();
  std::ofstream(bad) << "P5\n512 512\n255\n" << std::string(100, 'x');  // truncated
  auto r = cli("transform " + quote(bad) + " " + quote(out()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(bad), std::string::npos) << r.output;
  // A missing input is a failed run (1), in every subcommand, naming the file.
  for (const std::string& args : {"transform " + quote(out("none.tif")) + " " + quote(out()),
                                  "compress -i " + quote(out("none.tif")) + " -o " + quote(out("none.j2k")),
                                  "compress -i " + quote(out("none_dir/")) + " -o " + quote(out("outdir")),
                                  "decompress -i " + quote(out("none.j2k")) + " -o " + quote(out("none.png"))}) {
    auto missing = cli(args);
    EXPECT_EQ(missing.exit_code, 1) << args << "\n" << missing.output;
    EXPECT_NE(missing.output.find("none"), std::string::npos) << args << "\n" << missing.output;
  }
}

// Several inputs, or a directory: each image in OUTDIR/<file name>/, the same files as when it
// runs alone; a bad image among good ones is reported by name and the others are written.
TEST_F(Cli, SeveralImagesAndDirectoriesGoThroughOnePipeline) {
  const std::string common = " --tile-size 200,136 --levels 4 --backend cpu";
  ASSERT_EQ(cli("transform " + quote(kData + "/coffee.ppm") + " " + quote(out("alone")) + common).exit_code, 0);
  const fs::path images = dir_ / "images";
  fs::create_directories(images);
  for (const char* f : {"coffee.ppm", "camera.pgm", "moon.pgm"}) fs::copy_file(kData + "/" + f, images / f);
  std::ofstream(images / "notes.txt") << "not an image";
  std::ofstream(images / "broken.pgm") << "P5\n64 64\n255\n" << std::string(10, 'x');
  auto r = cli("transform " + quote(images.string()) + " " + quote(out()) + common);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find((images / "broken.pgm").string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 of 4 images failed"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out() + "/notes.txt")) << "a file without an image extension was taken";
  EXPECT_FALSE(fs::exists(out() + "/broken.pgm/layout.json"));
  for (const char* f : {"camera.pgm", "moon.pgm"})
    EXPECT_TRUE(fs::exists(out() + "/" + f + "/tile0_comp0.npy")) << f;
  // Image by image, the same arrays as the image transformed alone (moon.pgm follows camera.pgm
  // through the same plan, into the second set of outputs).
  ASSERT_EQ(cli("transform " + quote(kData + "/moon.pgm") + " " + quote(out("moon")) + common).exit_code, 0);
  for (const auto& [alone, in_batch] : {std::pair<std::string, std::string>{out("alone"), out() + "/coffee.ppm"},
                                        {out("moon"), out() + "/moon.pgm"}}) {
    std::ifstream layout(alone + "/layout.json");
    const auto j = nlohmann::json::parse(layout);
    for (const auto& tc : j["tile_components"]) {
      const std::string file = tc["file"].get<std::string>();
      const auto a = test_support::read_npy(alone + "/" + file);
      const auto b = test_support::read_npy(in_batch + "/" + file);
      EXPECT_TRUE(a.words == b.words && a.rows == b.rows && a.cols == b.cols) << in_batch << "/" << file;
    }
  }
  // Listed files work too; two inputs with one output name are refused before any work.
  auto two = cli("transform " + quote(kData + "/camera.pgm") + " " + quote(kData + "/moon.pgm") + " " +
                 quote(out("two")) + common);
  EXPECT_EQ(two.exit_code, 0) << two.output;
  EXPECT_TRUE(fs::exists(out("two") + "/moon.pgm/layout.json"));
  auto clash = cli("transform " + quote(kData + "/camera.pgm") + " " + quote((images / "camera.pgm").string()) + " " +
                   quote(out("clash")) + common);
  EXPECT_EQ(clash.exit_code, 2) << clash.output;
  EXPECT_NE(clash.output.find("would both write"), std::string::npos) << clash.output;
  EXPECT_FALSE(fs::exists(out("clash")));
}

// Hostile headers: ~150-byte files declaring 46340 x 46340 images (4-13 GB of samples) are
// refused from their headers, in well under a second of CPU time and 100 MB of memory, with a
// message naming the cause; nothing is written.
TEST_F(Cli, HugeDeclaredSizesAreRefusedInLittleTimeAndMemory) {
  struct Case {
    const char* name;
    std::string bytes;
    const char* words;
  };
  const std::string filler(100, '\x55');
  const Case cases[] = {
      {"deflate.tif", test_support::forged_tiff(46340, 46340, 8, 0, filler), "which decode to at most"},
      {"zstd.tif", test_support::forged_tiff(46340, 46340, 50000, 0, filler), "strip 0"},
      {"big.ppm", "P6\n46340 46340\n65535\n" + filler, "pixel data is truncated"},
      {"big.pgx", "PG ML + 16 46340 46340\n" + filler, "sample data is truncated"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = (dir_ / c.name).string();
    std::ofstream(path, std::ios::binary) << c.bytes;
    // A budget far over the machine's memory: each file must fail on what it holds, not on
    // the size of the machine it runs on.
    const auto r = test_support::run_measured(quote(kCli) + " transform --backend cpu --max-memory 1T " +
                                                  quote(path) + " " +
                                                  quote(out(c.name + std::string(".out"))),
                                              (dir_ / "log.txt").string());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    const bool no_tiff = r.output.find("TIFF support was not built in") != std::string::npos;
    EXPECT_TRUE(r.output.find(c.words) != std::string::npos || no_tiff) << r.output;
    EXPECT_LT(r.peak_rss_kb, 100 * 1024) << r.output;
    EXPECT_LT(r.cpu_seconds, 1.0) << r.output;
    EXPECT_FALSE(fs::exists(out(c.name + std::string(".out")) + "/layout.json"));
  }
}

// --max-memory: camera.pgm (512 x 512 8-bit: 256 KiB of samples, 1 MiB of int32 coefficients
// and the CPU queue's buffers) is refused in 1M before anything is written, naming the figures,
// and transformed in 2M. A malformed size is a usage error.
TEST_F(Cli, MaxMemoryIsCheckedBeforeAnyWork) {
  const std::string in = quote(kData + "/camera.pgm") + " " + quote(out()) + " --backend cpu --threads 1";
  auto r = cli("transform " + in + " --max-memory 1M");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("its samples and coefficients need at least 1310720 bytes, more than the 1048576 that "
                          "--max-memory allows; give a --tile-size"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out() + "/layout.json"));
  // Within the budget by the first estimate, the plan's own buffers then refuse it.
  r = cli("transform " + in + " --max-memory 1310720");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("bytes of host memory"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("its samples take 262144 bytes of the 1310720 that --max-memory allows"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out() + "/layout.json"));
  r = cli("transform " + in + " --max-memory 2M");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out() + "/layout.json"));
  for (const char* bad : {"12x", "0", "100K", "-5M", "-5", "+9G"}) {
    r = cli("transform " + in + " --max-memory " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("--max-memory"), std::string::npos) << r.output;
  }
}

// Whether two output directories hold the same files, byte for byte.
void expect_same_files(const fs::path& a, const fs::path& b) {
  std::vector<std::string> names_a, names_b;
  for (const auto& e : fs::directory_iterator(a)) names_a.push_back(e.path().filename().string());
  for (const auto& e : fs::directory_iterator(b)) names_b.push_back(e.path().filename().string());
  std::sort(names_a.begin(), names_a.end());
  std::sort(names_b.begin(), names_b.end());
  ASSERT_EQ(names_a, names_b);
  for (const std::string& name : names_a) {
    std::ifstream fa(a / name, std::ios::binary), fb(b / name, std::ios::binary);
    std::vector<char> ba(1 << 20), bb(1 << 20);
    for (int64_t at = 0;; at += static_cast<int64_t>(ba.size())) {
      fa.read(ba.data(), static_cast<std::streamsize>(ba.size()));
      fb.read(bb.data(), static_cast<std::streamsize>(bb.size()));
      ASSERT_EQ(fa.gcount(), fb.gcount()) << name << " differs in size";
      const auto n = static_cast<size_t>(fa.gcount());
      const auto diff = std::mismatch(ba.begin(), ba.begin() + static_cast<std::ptrdiff_t>(n), bb.begin());
      ASSERT_TRUE(diff.first == ba.begin() + static_cast<std::ptrdiff_t>(n))
          << name << " differs at byte " << at + (diff.first - ba.begin());
      if (n < ba.size()) break;
    }
  }
}

// Over --max-memory, a tiled image goes a row of tiles at a time and writes the very files of
// a whole-image run: every array and layout.json, byte for byte. Odd tile sizes and origins,
// both wavelets, every reader; TIFF strips that straddle rows of tiles.
TEST_F(Cli, ImagesOverTheBudgetGoARowOfTilesAtATimeWithTheSameFiles) {
  for (const char* image : {"coffee.ppm", "coffee.tif", "camera.pgm", "camera.tif"})
    for (const char* wavelet : {"5/3", "9/7"}) {
      SCOPED_TRACE(std::string(image) + " " + wavelet);
      // Two threads: the plan's scratch grows with them, and 1M must hold a row of tiles on a
      // machine of any size.
      const std::string args = " --backend cpu --threads 2 --wavelet " + std::string(wavelet) +
                               " --tile-size 97,61 --tile-origin 3,5 --image-origin 17,29 --levels 4";
      auto r = cli("transform " + quote(kData + "/" + image) + " " + quote(out("whole")) + args);
      if (r.output.find("TIFF support was not built in") != std::string::npos) continue;  // the PNM twins still run
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_EQ(r.output.find("rows of tiles"), std::string::npos) << r.output;
      r = cli("transform " + quote(kData + "/" + image) + " " + quote(out("rows")) + args + " --max-memory 1M");
      ASSERT_EQ(r.exit_code, 0) << r.output;
      // Rows of 61 from canvas row 5 down to 29 + the image's height (400 or 512).
      const std::string rows = std::string(image).find("coffee") == 0 ? "7" : "9";
      EXPECT_NE(r.output.find("in " + rows + " rows of tiles"), std::string::npos) << r.output;
      expect_same_files(out("whole"), out("rows"));
    }
}

// A row of tiles that does not fit the budget either is refused before anything is written,
// naming the row and the figures.
TEST_F(Cli, ARowOfTilesOverTheBudgetIsRefused) {
  const std::string in = quote(kData + "/coffee.ppm") + " " + quote(out()) + " --backend cpu";
  auto r = cli("transform " + in + " --tile-size 600,300 --max-memory 1M");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("the row of tiles at canvas rows 0..299"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("use smaller tiles"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out() + "/layout.json"));
  EXPECT_FALSE(fs::exists(out() + "/tile0_comp0.npy"));
}

// The issue's yardstick, scaled to CI: an 8192 x 8192 image (64 MiB of samples; a whole-image
// run takes 320 MiB and more) transformed within 40 MiB, then checked against the
// whole-image run, file by file.
TEST_F(Cli, LargeImageWithinASmallBudgetMatchesTheWholeImageRun) {
  const int n = 8192;
  const std::string pgm = (dir_ / "large.pgm").string();
  {
    std::ofstream f(pgm, std::ios::binary);
    f << "P5\n" << n << " " << n << "\n255\n";
    std::vector<char> row(n);
    for (int y = 0; y < n; ++y) {
      for (int x = 0; x < n; ++x)
        row[static_cast<size_t>(x)] = static_cast<char>((x * 7 + y * 13 + (x * y >> 9)) & 0xff);
      f.write(row.data(), n);
    }
  }
  const std::string args = " --backend cpu --tile-size 1024,512 --levels 5";
  const auto rows = test_support::run_measured(
      quote(kCli) + " transform " + quote(pgm) + " " + quote(out("rows")) + args + " --max-memory 40M",
      (dir_ / "rows.txt").string());
  ASSERT_EQ(rows.exit_code, 0) << rows.output;
  EXPECT_NE(rows.output.find("in 16 rows of tiles"), std::string::npos) << rows.output;
  // 40 MiB of budget and the program itself (its code, libraries and runtime); under
  // AddressSanitizer, whose shadow memory and quarantine take more than the program, only the
  // files are compared.
#if !J2K_TEST_UNDER_ASAN
  EXPECT_LT(rows.peak_rss_kb, 64 * 1024) << rows.output;
#endif
  const auto whole = test_support::run_measured(
      quote(kCli) + " transform " + quote(pgm) + " " + quote(out("whole")) + args, (dir_ / "whole.txt").string());
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
#if !J2K_TEST_UNDER_ASAN
  EXPECT_GT(whole.peak_rss_kb, 320 * 1024) << whole.output;  // the yardstick: what rows save
#endif
  expect_same_files(out("whole"), out("rows"));
}

TEST_F(Cli, NeverOverwritesForeignFilesWithoutForce) {
  fs::create_directories(out());
  std::ofstream(out() + "/tile0_comp0.npy") << "precious";
  auto r = cli("transform " + quote(kData + "/camera.pgm") + " " + quote(out()));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--force"), std::string::npos) << r.output;
  std::ifstream f(out() + "/tile0_comp0.npy");
  std::string s;
  f >> s;
  EXPECT_EQ(s, "precious");
  EXPECT_FALSE(fs::exists(out() + "/layout.json")) << "a refused run wrote some outputs";
  r = cli("transform " + quote(kData + "/camera.pgm") + " " + quote(out()) + " --force");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(Cli, RerunReplacesItsOwnOutputsAndRemovesStaleOnes) {
  const std::string in = quote(kData + "/camera.pgm") + " " + quote(out());
  ASSERT_EQ(cli("transform " + in + " --tile-size 256,256").exit_code, 0);
  EXPECT_TRUE(fs::exists(out() + "/tile3_comp0.npy"));
  auto r = cli("transform " + in);  // one tile now; no --force needed for its own files
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out() + "/tile0_comp0.npy"));
  EXPECT_FALSE(fs::exists(out() + "/tile3_comp0.npy"));
}


// --force on an output that exists: the new file takes its name (OutputDir::write exchanges
// the two, then removes the old one), the old file's data is untouched where another name
// still links it, and no temporary file is left beside the output.
TEST_F(Cli, ForceReplacesAnOutputWithoutWritingIntoTheOldFile) {
  fs::create_directories(out());
  const std::string target = out() + "/camera.j2k", other = out("other.j2k");
  std::ofstream(target) << "the old output";
  fs::create_hard_link(target, other);
  auto r = cli("compress -i " + quote(kData + "/camera.pgm") + " -o " + quote(target) + " --force --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string written = file_text(target);
  ASSERT_GE(written.size(), 4u);
  EXPECT_EQ(written.substr(0, 2), std::string("\xFF\x4F")) << "not a codestream at the output's name";
  EXPECT_EQ(file_text(other), "the old output");
  for (const fs::directory_entry& e : fs::directory_iterator(out()))
    EXPECT_EQ(e.path().filename().string(), "camera.j2k") << "left beside the output";
  r = cli("compress -i " + quote(kData + "/camera.pgm") + " -o " + quote(target) + " --force --quiet");  // over our own
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(file_text(target), written);
}

// A link planted under an output's name is never followed: without --force it is refused as
// a file j2kfront did not write (even when a forged layout.json lists it), with --force the
// link itself is replaced. The file it points to is untouched either way.
// "-": one image from standard input, the same files as from its path; at most --max-memory
// bytes of it; messages say "standard input"; and no temporary file is left behind.
TEST_F(Cli, StandardInputIsOneImageReadWithASizeLimit) {
  const std::string camera = quote(kData + "/camera.pgm");
  auto r = cli("transform - " + quote(out("stdin")) + " --backend cpu < " + camera);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = cli("transform " + camera + " " + quote(out("file")) + " --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(file_text(out("stdin") + "/tile0_comp0.npy"), file_text(out("file") + "/tile0_comp0.npy"));
  std::ifstream f(out("stdin") + "/layout.json");
  EXPECT_EQ(nlohmann::json::parse(f)["input"], "-");

  const std::string tmp = (dir_ / "tmp").string();
  fs::create_directories(tmp);
  const std::string big = (dir_ / "big.bin").string();
  std::ofstream(big, std::ios::binary) << std::string(2 << 20, 'P');
  r = cli("transform - " + quote(out("big")) + " --max-memory 1M < " + quote(big));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("standard input holds more than 1048576 bytes, the most --max-memory allows"),
            std::string::npos)
      << r.output;
  r = run_command("printf 'not an image' | TMPDIR=" + quote(tmp) + " " + quote(kCli) + " transform - " +
                  quote(out("bad")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error: standard input: unrecognised file signature"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(tmp));
  r = cli("transform - " + camera + " " + quote(out("two")) + " < /dev/null");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("- (standard input) must be the only input"), std::string::npos) << r.output;
}

TEST_F(Cli, PlantedLinksAreNeverFollowed) {
  const std::string victim = (dir_ / "victim.txt").string();
  std::ofstream(victim) << "precious";
  fs::create_directories(out());
  std::ofstream(out() + "/layout.json") << R"({"generator": "j2kfront 0", "files": ["tile0_comp0.npy"]})";
  fs::create_symlink(victim, out() + "/tile0_comp0.npy");
  auto r = cli("transform " + quote(kData + "/camera.pgm") + " " + quote(out()) + " --backend cpu");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("tile0_comp0.npy: exists and was not written by j2kfront"), std::string::npos) << r.output;
  EXPECT_EQ(file_text(victim), "precious");
  fs::remove(out() + "/layout.json");
  fs::create_symlink(victim, out() + "/layout.json");
  r = cli("transform " + quote(kData + "/camera.pgm") + " " + quote(out()) + " --backend cpu --force");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(file_text(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(out() + "/tile0_comp0.npy"));
  EXPECT_FALSE(fs::is_symlink(out() + "/layout.json"));
  EXPECT_EQ(test_support::read_npy(out() + "/tile0_comp0.npy").rows, 512);
}

// The cleanup of a previous run's files removes only names j2kfront generates: a forged
// layout.json listing other files (or paths outside the directory) cannot make it delete them.
TEST_F(Cli, ForgedManifestCannotMakeItDeleteOtherFiles) {
  fs::create_directories(out());
  std::ofstream(out() + "/notes.txt") << "mine";
  std::ofstream((dir_ / "outside.txt").string()) << "mine";
  std::ofstream(out() + "/tile7_comp0.npy") << "an old output";
  std::ofstream(out() + "/layout.json")
      << R"({"generator": "j2kfront 0", "files": ["notes.txt", "../outside.txt", "tile7_comp0.npy", "tile07_comp0.npy"]})";
  std::ofstream(out() + "/tile07_comp0.npy") << "not a name j2kfront writes";
  auto r = cli("transform " + quote(kData + "/camera.pgm") + " " + quote(out()) + " --backend cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(file_text(out() + "/notes.txt"), "mine");
  EXPECT_EQ(file_text((dir_ / "outside.txt").string()), "mine");
  EXPECT_TRUE(fs::exists(out() + "/tile07_comp0.npy"));
  EXPECT_FALSE(fs::exists(out() + "/tile7_comp0.npy")) << "a stale output of a generated name stays";
}

// A run that fails half-way (here: a file size limit, as a full disk would) leaves no
// layout.json, so the mixed directory cannot pass for a complete set, and a marker naming
// every file of both runs; the next run completes the set and removes what is stale.
TEST_F(Cli, FailedRunLeavesAMarkerAndTheNextRunCleansUp) {
  const std::string in = quote(kData + "/camera.pgm") + " " + quote(out()) + " --backend cpu";
  ASSERT_EQ(cli("transform " + in + " --tile-size 64,64").exit_code, 0);  // 64 tiles
  // Then 7 x 6 tiles: tile 0 is 10 columns wide (about 20 KB), tile 1 100 x 100 int32 (40 KB): the limit of 30 KB
  // lets the first file through and stops the second.
  const std::string args = " --image-origin 90,0 --tile-size 100,100";
  auto r = run_command("trap '' XFSZ; ulimit -f 30; exec " + quote(kCli) + " transform " + in + args);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("incomplete set of outputs, marked by layout.json.incomplete"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out() + "/layout.json"));
  ASSERT_TRUE(fs::exists(out() + "/layout.json.incomplete"));
  const auto marker = nlohmann::json::parse(file_text(out() + "/layout.json.incomplete"));
  const auto listed = marker["files"].get<std::vector<std::string>>();
  for (const char* name : {"tile0_comp0.npy", "tile41_comp0.npy", "tile63_comp0.npy"})
    EXPECT_NE(std::find(listed.begin(), listed.end(), name), listed.end()) << name;
  for (const auto& e : fs::directory_iterator(out()))
    EXPECT_EQ(e.path().filename().string().find(".partial"), std::string::npos) << e.path();
  r = cli("transform " + in + args);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out() + "/layout.json"));
  EXPECT_FALSE(fs::exists(out() + "/layout.json.incomplete"));
  EXPECT_FALSE(fs::exists(out() + "/tile63_comp0.npy")) << "the first run's last tile is stale";
  EXPECT_TRUE(fs::exists(out() + "/tile41_comp0.npy"));
}

TEST_F(Cli, NeverOverwritesTheInputEvenWithForce) {
  fs::create_directories(out());
  const std::string input = out() + "/tile0_comp0.npy";  // an input named like an output
  fs::copy_file(kData + "/camera.pgm", input);
  const auto before = fs::file_size(input);
  auto r = cli("transform " + quote(input) + " " + quote(out()) + " --force");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("input"), std::string::npos) << r.output;
  EXPECT_EQ(fs::file_size(input), before);
}

TEST_F(Cli, MissingBackendIsReportedBeforeWritingAnything) {
  auto r = cli("transform " + quote(kData + "/camera.pgm") + " " + quote(out()) + " --backend cuda");
  if (r.exit_code == 0) GTEST_SKIP() << "this machine has a CUDA device";
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cuda"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out() + "/layout.json"));
}

// The library reads no environment; the CLI maps J2KFRONT_DEVICE itself when --device is not
// given: a value that is not a device index is a usage error naming the variable.
TEST_F(Cli, BadDeviceVariableIsRefusedNamingIt) {
  const std::string in = quote(kData + "/camera.pgm") + " " + quote(out());
  for (const std::string& args : {"transform " + in + " --backend cuda",
                                  "transform " + in + " --backend opencl",
                                  std::string("bench --backend opencl --sizes 16")}) {
    auto r = run_command("J2KFRONT_DEVICE=gpu0 " + quote(kCli) + " " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("J2KFRONT_DEVICE='gpu0'"), std::string::npos) << args << "\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(out() + "/layout.json"));
  // No device to choose on the CPU: the variable is not read.
  auto r = run_command("J2KFRONT_DEVICE=-2 " + quote(kCli) + " transform " + in + " --backend cpu");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// `-` for compress and decompress: an image through two pipes comes back whole (lossless), the
// format of -o - from --OutFor, what is said of the run on standard error; a failed run writes
// nothing to standard output; PGX (a file per component) is no format for it.
TEST_F(Cli, StandardInputAndOutput) {
  const std::string k = quote(kCli), pgm = quote(kData + "/camera.pgm");
  // In a subshell: run_command adds 2>&1 after the whole command (errors come back in
  // r.output), which must not undo the redirections inside.
  auto shell = [](const std::string& command) { return run_command("(" + command + ")"); };
  auto r = shell("cat " + pgm + " | " + k + " compress -i - -o - 2>" + quote(out("c.err")) + " | " + k +
                       " decompress -i - -o - > " + quote(out("back.pgm")) + " 2>" + quote(out("d.err")));
  ASSERT_EQ(r.exit_code, 0) << r.output << file_text(out("c.err")) << file_text(out("d.err"));
  EXPECT_EQ(file_text(out("back.pgm")), file_text(kData + "/camera.pgm"));
  EXPECT_NE(file_text(out("c.err")).find("standard input 512x512 x1 -> standard output"), std::string::npos) << file_text(out("c.err"));
  EXPECT_NE(file_text(out("d.err")).find("standard input -> standard output"), std::string::npos) << file_text(out("d.err"));
  r = shell(k + " compress -i " + pgm + " -o - --OutFor jp2 --quiet > " + quote(out("c.jp2")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(file_text(out("c.jp2")).substr(4, 8), std::string("jP  \r\n\x87\n", 8)) << "a JP2 signature box";
  r = shell(k + " decompress -i " + quote(out("c.jp2")) + " -o - --OutFor png > " + quote(out("c.png")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(file_text(out("c.png")).substr(1, 3), "PNG");
  // Failures: nothing on standard output.
  r = shell("echo not-an-image | " + k + " compress -i - -o - > " + quote(out("none.j2k")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("standard input"), std::string::npos) << r.output;
  EXPECT_EQ(file_text(out("none.j2k")), "");
  r = shell("echo not-a-codestream | " + k + " decompress -i - -o - > " + quote(out("none.pgm")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("standard input: not a JPEG 2000"), std::string::npos) << r.output;
  EXPECT_EQ(file_text(out("none.pgm")), "");
  r = shell(k + " decompress -i " + quote(out("c.jp2")) + " -o - --OutFor pgx > " + quote(out("none.pgx")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("PGX is a file per component"), std::string::npos) << r.output;
  r = shell(k + " compress -i " + pgm + " -o - --OutFor jph > " + quote(out("none.jph")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("add --ht"), std::string::npos) << r.output;
}

// opj_compress's and opj_decompress's spellings: those that mean what ours mean are taken
// (-POC, -ROI and -s among them), the others (-jpip, -x) refused by name as not supported (not
// misread: -IMF is no -I -M F).
TEST_F(Cli, OpenJpegSpellingsAreTakenOrRefusedByName) {
  fs::create_directories(out("in"));
  fs::copy_file(kData + "/camera.pgm", out("in/camera.pgm"));
  auto r = cli("compress -ImgDir " + quote(out("in")) + " -o " + quote(out("j2k")) +
               " -OutFor jp2 -GuardBits 3 -threads 1 -quiet -force");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out("j2k/camera.jp2")));
  EXPECT_EQ(r.output, "") << "-quiet prints nothing";
  r = cli("decompress -ImgDir " + quote(out("j2k")) + " -o " + quote(out("png")) + " -OutFor pgm -allow-partial -quiet -force");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out("png/camera.pgm")));
  for (const char* flag : {"-POC T1=0,0,1,5,1,CPRL", "-ROI c=0,U=1", "-s 2,2"}) {
    r = cli("compress -i " + quote(kData + "/camera.pgm") + " -o " + quote(out("x.j2k")) + " " + std::string(flag) + " --force --quiet");
    EXPECT_EQ(r.exit_code, 0) << flag << "\n" << r.output;
    EXPECT_TRUE(fs::exists(out("x.j2k"))) << flag;
  }
  fs::remove(out("x.j2k"));
  for (const char* flag : {"-jpip", "-x index.txt"}) {
    r = cli("compress -i " + quote(kData + "/camera.pgm") + " -o " + quote(out("x.j2k")) + " " + std::string(flag));
    EXPECT_EQ(r.exit_code, 2) << flag << "\n" << r.output;
    EXPECT_NE(r.output.find("not supported"), std::string::npos) << flag << "\n" << r.output;
    EXPECT_FALSE(fs::exists(out("x.j2k"))) << flag;
  }
}

// -s, -POC and -ROI: a value that is wrong, or that does not fit the image, is refused before
// any work (exit 2), naming the flag and what is wrong.
TEST_F(Cli, SubsamplingPocAndRoiBadValuesAreNamed) {
  const std::string coffee = quote(kData + "/coffee.ppm");
  for (const auto& [flags, want] : std::vector<std::pair<std::string, std::string>>{
           {"-s 2", "-s: expected two numbers as X,Y"},
           {"-s 0,2", "-s: values must be in 1..255"},
           {"-s 2,2 -d 1,0", "-s: at the image origin 1,0 (-d), component 0 subsampled 2 x 2 would hold 599 x 400 of its 600 x 400 samples"},
           {"-POC T1=0,0,1,6", "-POC: each change is T<tile>=resStart,compStart,layerEnd,resEnd,compEnd,PROG"},
           {"-POC 0,0,1,6,3,CPRL", "-POC: each change is T<tile>"},
           {"-POC T0=0,0,1,6,3,CPRL", "-POC: T0=0,0,1,6,3,CPRL: the tile (T1 the first) is a whole number 1 to 65535, not '0'"},
           {"-POC T1=33,0,1,34,3,CPRL", "-POC: T1=33,0,1,34,3,CPRL: resStart is a whole number 0 to 32, not '33'"},
           {"-POC T1=3,0,1,3,3,CPRL", "resEnd (above resStart) is a whole number 4 to 33, not '3'"},
           {"-POC T1=0,0,0,6,3,CPRL", "layerEnd is a whole number 1 to 65535, not '0'"},
           {"-POC T1=0,2,1,6,2,CPRL", "compEnd (above compStart) is a whole number 3 to 16384, not '2'"},
           {"-POC T1=0,0,1,6,3,CPRX", "-POC: T1=0,0,1,6,3,CPRX: the progression is LRCP, RLCP, RPCL, PCRL or CPRL, not 'CPRX'"},
           {"-POC T1=0,0,1,6,3,CPRL/", "-POC: expected T<tile>=resStart"},
           {"-POC T1=0,3,1,6,4,CPRL", "-POC: T1: compStart 3, but the image has 3 components (0 to 2)"},
           {"-POC T5=0,0,1,6,3,CPRL -t 300,200", "-POC: T5: the image has 4 tiles (T1 to T4)"},
           {"-POC T1=0,0,1,6,3,CPRL --xyz srgb --cinema2K 24", "the cinema2k profile sets its own progression: no progression order changes (-POC)"},
           {"-ROI c=0", "-ROI: expected c=<component>,U=<shift>"},
           {"-ROI U=2,c=0", "-ROI: expected c=<component>,U=<shift>"},
           {"-ROI c=x,U=2", "-ROI: c is a component, 0 the first, not 'x'"},
           {"-ROI c=0,U=30", "-ROI: U is the shift in bit planes, 0 to 29"},
           {"-ROI c=0,U=-1", "-ROI: U is the shift in bit planes, 0 to 29"},
           {"-ROI c=3,U=2", "-ROI: c=3, but the image has 3 components (0 to 2)"},
           {"-ROI c=0,U=2 --ht", "-ROI: a region of interest with HT code-blocks (--ht)"},
           {"-ROI c=0,U=2 --xyz srgb --cinema4K", "the cinema4k profile forbids a region of interest (RGN, -ROI)"}}) {
    const auto r = cli("compress -i " + coffee + " -o " + quote(out("x.j2k")) + " " + flags);
    EXPECT_EQ(r.exit_code, 2) << flags << "\n" << r.output;
    EXPECT_NE(r.output.find(want), std::string::npos) << flags << "\n" << r.output;
    EXPECT_FALSE(fs::exists(out("x.j2k"))) << flags;
  }
}

// bench --pipeline measures CUDA alone: without --backend it asks for CUDA, and where there is
// none it says why, not that the CPU was picked.
TEST_F(Cli, BenchPipelineWithoutCudaSaysWhy) {
  auto r = cli("bench --pipeline --sizes 64 --tiles 0 --outputs i32 --repeats 1");
  if (r.exit_code == 0) GTEST_SKIP() << "this machine has CUDA: the pipeline bench ran";
  EXPECT_NE(r.output.find("backend 'cuda' is not available"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("got backend"), std::string::npos) << r.output;
}

TEST_F(Cli, BenchRunsOnTheCpu) {
  auto r = cli("bench --backend cpu --sizes 64,33 --levels 3 --repeats 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("memcpy"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("9/7 inverse"), std::string::npos) << r.output;
}

// A JPEG 2000 file of camera.pgm in `dir`.
std::string camera_j2k(const std::string& dir) {
  const std::string j2k = dir + "/camera.j2k";
  auto r = run_command(quote(kCli) + " compress -i " + quote(kData + "/camera.pgm") + " -o " + quote(j2k) + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return j2k;
}

// A single output's directory must be there, as opj_compress and opj_decompress want it: a
// missing one (or a file where it should be) is refused by name before any work, and nothing
// is created; OUTDIR of a directory of inputs, or of transform, is still created.
TEST_F(Cli, OutputsInMissingDirectoriesAreRefused) {
  const std::string j2k = camera_j2k(dir_.string()), missing = path("a/b");
  auto r = cli("decompress -i " + quote(j2k) + " -o " + quote(missing + "/out.pgm"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("the directory " + missing + " does not exist"), std::string::npos) << r.output;
  r = cli("compress -i " + quote(kData + "/camera.pgm") + " -o " + quote(missing + "/out.j2k"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("the directory " + missing + " does not exist"), std::string::npos) << r.output;
  r = cli("transform " + quote(kData + "/camera.pgm") + " --mosaic " + quote(missing + "/m.png"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("the directory " + missing + " does not exist"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("a")));
  r = cli("decompress -i " + quote(j2k) + " -o " + quote(j2k + "/out.pgm"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(j2k + " is not a directory"), std::string::npos) << r.output;
  // Directories of outputs are made.
  fs::create_directories(path("in"));
  fs::copy_file(j2k, path("in/camera.j2k"));
  r = cli("decompress -i " + quote(path("in")) + " -o " + quote(path("made/here")) + " -OutFor pgm --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(path("made/here/camera.pgm")));
}

// --threads takes what the library takes, 0 (one per core) to 8 per core and at least 64, in
// every command, with the library's message: decompress took up to 4096, compress and
// transform refused over 64 only once the library saw it, and 0 was refused by all.
TEST_F(Cli, ThreadCountsAreTheLibrarysRange) {
  const int top = std::max(64, 8 * static_cast<int>(std::thread::hardware_concurrency()));
  const std::string j2k = camera_j2k(dir_.string()), camera = quote(kData + "/camera.pgm");
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"decompress", "-i " + quote(j2k) + " -o " + quote(path("d.pgm"))},
      {"compress", "-i " + camera + " -o " + quote(path("c.j2k"))},
      {"transform", camera + " " + quote(path("t"))},
  };
  for (const auto& [command, args] : commands) {
    auto r = cli(command + " " + args + " --threads " + std::to_string(top + 1));
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.output;
    EXPECT_NE(r.output.find("--threads: threads must be 0 (one per core) to " + std::to_string(top) + " (8 per core, at least 64), got " +
                            std::to_string(top + 1)),
              std::string::npos)
        << command << ": " << r.output;
    for (const int ok : {0, top}) {
      r = cli(command + " " + args + " --threads " + std::to_string(ok) + " --force --quiet");
      EXPECT_EQ(r.exit_code, 0) << command << " --threads " << ok << ": " << r.output;
    }
  }
}

// Inputs are regular files: a FIFO (never waited on: no writer ever comes here) and a device
// are refused as "not a regular file" by every command; decompress said "Operation not
// supported" for both.
TEST_F(Cli, FifosAndDevicesAreRefusedAsNotRegularFiles) {
  const std::string fifo = path("in.fifo");
  ASSERT_EQ(run_command("mkfifo " + quote(fifo)).exit_code, 0);
  for (const std::string& input : {fifo, std::string("/dev/zero")}) {
    for (const std::string& command : {"decompress -i " + quote(input) + " -o " + quote(path("d.pgm")),
                                       "compress -i " + quote(input) + " -o " + quote(path("c.j2k")),
                                       "transform " + quote(input) + " " + quote(path("t"))}) {
      const auto r = run_command("timeout 20 " + quote(kCli) + " " + command);
      EXPECT_EQ(r.exit_code, 1) << command << ": " << r.output;
      EXPECT_NE(r.output.find(input + ": not a regular file"), std::string::npos) << command << ": " << r.output;
    }
  }
}

}  // namespace
