// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench --compress --ht` and `--decompress --ht` on the benchmark's images at 256^2:
// a row per coder (decoder) and mode, every lossless decoding the input, the CSV with the same
// rows; skipped, saying so, without OpenJPH's tools. And the flags refused where they mean
// nothing.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

using test_support::quote;
using test_support::run_command;

namespace {

const std::string kCli = J2K_CLI_PATH;
const std::string kData = J2K_TEST_DATA_DIR;

bool have_openjph() { return test_support::on_path("ojph_compress") && test_support::on_path("ojph_expand"); }

// The table's row of `image`, `mode` and `tool`, its runs of spaces made one ("" if none).
std::string row(const std::string& output, const std::string& image, const std::string& mode, const std::string& tool) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::string flat;
    for (char c : line)
      if (c != ' ' || flat.empty() || flat.back() != ' ') flat += c;
    if (flat.rfind(image + " " + mode + " " + tool + " ", 0) == 0) return flat;
  }
  return "";
}

class BenchHt : public test_support::TempDirTest {
 protected:
  // The CSV's header and rows.
  std::vector<std::string> csv_lines() {
    std::ifstream in(path("bench.csv"));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  std::string bench(const std::string& what) {
    return quote(kCli) + " bench " + what + " --ht --size 256 --repeats 1 --threads 2 --samples " + quote(kData) + " --csv " +
           quote(path("bench.csv"));
  }
};

const char* const kImages[] = {"astronaut-256.ppm", "moon16-256.pgm"};

TEST_F(BenchHt, CompressAgainstOpenJphAndOurEbcot) {
  if (!have_openjph()) GTEST_SKIP() << "ojph_compress / ojph_expand not found (Debian: openjph-tools)";
  const auto r = run_command(bench("--compress"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* image : kImages) {
    for (const char* tool : {"ojph_compress 1", "j2kfront --ht 2", "j2kfront EBCOT 2"})
      EXPECT_NE(row(r.output, image, "lossless", tool), "") << image << " lossless " << tool << "\n" << r.output;
    for (const char* tool : {"ojph_compress 1", "j2kfront --qstep 2", "j2kfront --ht -r 2", "j2kfront EBCOT 2"})
      EXPECT_NE(row(r.output, image, "lossy", tool), "") << image << " lossy " << tool << "\n" << r.output;
    // Every lossless stream decodes to the input; ours is read by OpenJPH alike, OpenJPH's by us.
    const std::string ht = row(r.output, image, "lossless", "j2kfront --ht");
    EXPECT_NE(ht.find("= input; ojph_expand = ours"), std::string::npos) << ht;
    const std::string ojph = row(r.output, image, "lossless", "ojph_compress");
    EXPECT_NE(ojph.find("= input; j2kfront = ojph_expand's"), std::string::npos) << ojph;
    const std::string ebcot = row(r.output, image, "lossless", "j2kfront EBCOT");
    EXPECT_NE(ebcot.find("= input"), std::string::npos) << ebcot;
  }
  EXPECT_NE(r.output.find("ojph_compress on one"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ours at ojph_compress's size: --ht -r "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("DIFFERS"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("cannot"), std::string::npos) << r.output;
  const std::vector<std::string> lines = csv_lines();
  ASSERT_EQ(lines.size(), 15u) << "a header and 2 images x (3 lossless + 4 lossy coders)";
  EXPECT_EQ(lines[0].rfind("image,mode,tool,threads,ms,speed_vs_ojph,speed_vs_ebcot,bytes,bytes_vs_ojph,psnr_db,exact,", 0), 0u)
      << lines[0];
  EXPECT_EQ(lines[0].substr(lines[0].size() - 17), "write_ms,peak_mib") << lines[0];
  int exact = 0;
  for (const std::string& line : lines) {
    if (line.find(",lossless,") == std::string::npos) continue;
    // exact is the 11th field.
    size_t at = 0;
    for (int field = 0; field < 10; ++field) at = line.find(',', at) + 1;
    EXPECT_EQ(line.substr(at, 2), "1,") << "not exact: " << line;
    exact += line.substr(at, 2) == "1,";
  }
  EXPECT_EQ(exact, 6);
}

TEST_F(BenchHt, DecompressOpenJphStreams) {
  if (!have_openjph()) GTEST_SKIP() << "ojph_compress / ojph_expand not found (Debian: openjph-tools)";
  const auto r = run_command(bench("--decompress"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* image : kImages) {
    for (const char* mode : {"lossless", "lossy"})
      for (const char* tool : {"ojph_expand 1", "j2kfront 2"})
        EXPECT_NE(row(r.output, image, mode, tool), "") << image << " " << mode << " " << tool << "\n" << r.output;
    // Ours: lossless the input, and ojph_expand's samples either way (its 9/7 may round 1 apart).
    const std::string ours = row(r.output, image, "lossless", "j2kfront");
    EXPECT_NE(ours.find("= input, = ojph_expand's"), std::string::npos) << ours;
    EXPECT_NE(row(r.output, image, "lossy", "j2kfront").find("ojph_expand's"), std::string::npos) << r.output;
  }
  EXPECT_EQ(r.output.find("DIFFERS"), std::string::npos) << r.output;
  const std::vector<std::string> lines = csv_lines();
  ASSERT_GE(lines.size(), 9u) << "a header and 2 images x 2 modes x 2 decoders at least";
  EXPECT_EQ(lines[0], "image,mode,tool,threads,ms,speed_vs_ojph,stream_bytes,decodes,max_diff_vs_reference,exact,peak_mib");
  int ours = 0;
  for (const std::string& line : lines) {
    if (line.find(",lossless,j2kfront,") == std::string::npos) continue;
    // decodes, max_diff_vs_reference, exact, then peak_mib (a process's resident set, MiB).
    const size_t peak = line.rfind(',');
    EXPECT_EQ(line.substr(peak - 6, 6), ",1,0,1") << line;
    EXPECT_GT(std::stod(line.substr(peak + 1)), 1.0) << line;
    ++ours;
  }
  EXPECT_EQ(ours, 2);
}

// bench --compress --frames in this process: a row per coder, mode, depth and backend, each
// backend's codestream the CPU's, lossy ones smaller than lossless ones, the CSV alike.
TEST_F(BenchHt, FramesInThisProcess) {
  const auto r = run_command(quote(kCli) + " bench --compress --frames 2 --size 256 --threads 2 --samples " + quote(kData) +
                             " --csv " + quote(path("bench.csv")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* bits : {"8", "12"})
    for (const char* coder : {"HT", "EBCOT"})
      for (const char* mode : {"lossless", "lossy"}) {
        const std::string line = row(r.output, coder, mode, std::string(bits) + " cpu");
        EXPECT_NE(line, "") << coder << " " << mode << " " << bits << "\n" << r.output;
        EXPECT_NE(line.find(", same"), std::string::npos) << line;
      }
  const std::vector<std::string> lines = csv_lines();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("frame_w,frame_h,bits,coder,mode,backend,threads,frames,", 0), 0u) << lines[0];
  size_t cpu_rows = 0;
  std::map<std::string, double> bytes;  // "bits coder mode" of the CPU rows
  for (size_t k = 1; k < lines.size(); ++k) {
    std::vector<std::string> f;
    std::stringstream ss(lines[k]);
    for (std::string field; std::getline(ss, field, ',');) f.push_back(field);
    ASSERT_EQ(f.size(), 20u) << lines[k];
    EXPECT_EQ(f[0] + "x" + f[1], "256x135") << lines[k];
    EXPECT_EQ(f.back(), "1") << "not the CPU's codestream: " << lines[k];
    if (f[5] == "cpu") {
      ++cpu_rows;
      bytes[f[2] + " " + f[3] + " " + f[4]] = std::stod(f[13]);
    }
  }
  EXPECT_EQ(cpu_rows, 8u);
  for (const char* bits : {"8", "12"})
    for (const char* coder : {"HT", "EBCOT"}) {
      const std::string key = std::string(bits) + " " + coder + " ";
      EXPECT_LT(bytes[key + "lossy"], bytes[key + "lossless"]) << key;
    }
  // DCI's 250 Mbit/s at 24 fps is 0.392 bits a sample: EBCOT's lossy frames keep within it.
  const double samples = 256.0 * 135 * 3;
  EXPECT_LE(bytes["8 EBCOT lossy"], samples * 0.3925 / 8) << "bytes a frame";
}

// Frames in flight drawn: a picture per in-flight row, a lane per encoder, each frame's four
// stages; --timeline needs --in-flight and a folder.
TEST_F(BenchHt, FramesInFlightOnATimeline) {
  const std::string dir = path("timelines");
  ASSERT_EQ(run_command("mkdir -p " + quote(dir)).exit_code, 0);
  const auto r = run_command(quote(kCli) + " bench --compress --frames 4 --in-flight 2 --ht --size 128 --threads 2 --samples " +
                             quote(kData) + " --timeline " + quote(dir));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* bits : {"8", "12"})
    for (const char* mode : {"lossless", "lossy"}) {
      const std::string file = dir + "/frames-" + bits + "bit-ht-" + mode + "-cpu-2fl.svg";
      std::ifstream in(file);
      ASSERT_TRUE(in) << file << "\n" << r.output;
      const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      EXPECT_NE(svg.find("encoder 1"), std::string::npos) << file;
      size_t boxes = 0;
      for (size_t at = svg.find("<title>frame "); at != std::string::npos; at = svg.find("<title>frame ", at + 1)) ++boxes;
      EXPECT_EQ(boxes, 4u * 4u) << file;  // the 4 timed frames, 4 stages each
      for (const char* stage : {"front stage", "Tier-1", "rate control", "Tier-2"})
        EXPECT_NE(svg.find(std::string(", ") + stage), std::string::npos) << file << ": " << stage;
    }
  for (const std::string& args : {std::string(" --timeline ") + quote(dir), std::string(" --in-flight 2 --timeline ") + quote(path("none"))}) {
    const auto bad = run_command(quote(kCli) + " bench --compress --frames 2 --ht --size 64 --samples " + quote(kData) + args);
    EXPECT_EQ(bad.exit_code, 2) << args << "\n" << bad.output;
    EXPECT_NE(bad.output.find("--timeline"), std::string::npos) << bad.output;
  }
}

// The frames folder to folder: a row per coder, mode and depth on the CPU (and each GPU row
// where there is one), every file the CPU backend's, the CSV alike; --folder only with --frames
// and without the in-memory rows' --in-flight.
TEST_F(BenchHt, FramesFolderToFolder) {
  const auto r = run_command(quote(kCli) + " bench --compress --frames 3 --folder --size 128 --threads 2 --repeats 1 --samples " +
                             quote(kData) + " --csv " + quote(path("bench.csv")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* bits : {"8", "12"})
    for (const char* coder : {"HT", "EBCOT"})
      for (const char* mode : {"lossless", "lossy"}) {
        const std::string line = row(r.output, coder, mode, std::string(bits) + " cpu");
        EXPECT_NE(line, "") << coder << " " << mode << " " << bits << "\n" << r.output;
      }
  EXPECT_EQ(r.output.find("DIFFERENT"), std::string::npos) << r.output;
  const std::vector<std::string> lines = csv_lines();
  ASSERT_GE(lines.size(), 9u);
  EXPECT_EQ(lines[0].rfind("frame_w,frame_h,bits,coder,mode,backend,threads,frames,ms,fps,", 0), 0u) << lines[0];
  for (size_t k = 1; k < lines.size(); ++k) {
    EXPECT_EQ(lines[k].rfind("128,67,", 0), 0u) << lines[k];
    EXPECT_EQ(lines[k].back(), '1') << "not the CPU's files: " << lines[k];
  }
  for (const char* args : {" --folder", " --frames 2 --folder --in-flight 2"}) {
    const auto bad = run_command(quote(kCli) + " bench --compress" + args + " --size 64 --samples " + quote(kData));
    EXPECT_EQ(bad.exit_code, 2) << args << "\n" << bad.output;
    EXPECT_NE(bad.output.find("--folder"), std::string::npos) << bad.output;
  }
}

TEST_F(BenchHt, FlagsWhereTheyMeanNothingAreRefused) {
  for (const char* args : {"--compress --qstep 0.02", "--ht", "--decompress --ht --directory 2", "--compress --ht --tile-size 128",
                           "--compress --ht --qstep 0.9"}) {
    const auto r = run_command(quote(kCli) + " bench " + args + " --size 64 --samples " + quote(kData));
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  }
}

}  // namespace
