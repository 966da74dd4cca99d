// SPDX-License-Identifier: BSD-2-Clause
// The compress and decompress benchmarks against OpenJPEG and Grok as bench/plot.py draws them:
// each tool's peak memory its own, measured by run_process while the benchmark itself holds
// much more; `bench --compress` / `--decompress --threads 1,2`: a row of every tool (ours with
// EBCOT and with HT code-blocks) at each count, with its peak memory, in the table and the CSV;
// plot.py's compress-vs-peers.png and decompress-vs-peers.png of them, the same bytes twice; a
// list of --threads refused where it means nothing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <utility>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

using test_support::quote;
using test_support::run_command;

namespace {

namespace fs = std::filesystem;
namespace bench = j2k::bench;

const std::string kCli = J2K_CLI_PATH;
const std::string kData = J2K_TEST_DATA_DIR;
const std::string kPlot = std::string(J2K_SOURCE_DIR) + "/bench/plot.py";

class RunProcess : public test_support::TempDirTest {};

// The benchmark holding 96 MiB of its own (anonymous pages, as its images, and a mapped file,
// as a GPU runtime's libraries) does not show in the tools' peaks: `true` takes a few MiB, dd
// with a 64 MiB buffer at least 64. Started straight from this process, `true` read part of it
// either way: forked, the anonymous pages; through posix_spawn, the mapped file.
TEST_F(RunProcess, PeakMemoryIsTheToolsOwn) {
  bench::start_launcher();  // as the benchmarks do, before they hold anything
  std::vector<char> anonymous(64u << 20);
  for (size_t i = 0; i < anonymous.size(); i += 4096) anonymous[i] = static_cast<char>(i >> 12);
  const std::string file = path("mapped.bin");
  {
    std::ofstream out(file, std::ios::binary);
    const std::vector<char> block(1u << 20, 'x');
    for (int k = 0; k < 32; ++k) out.write(block.data(), static_cast<std::streamsize>(block.size()));
  }
  const int fd = ::open(file.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  const size_t mapped_size = 32u << 20;
  void* mapped = mmap(nullptr, mapped_size, PROT_READ, MAP_PRIVATE, fd, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  unsigned sum = 0;
  for (size_t i = 0; i < mapped_size; i += 4096) sum += static_cast<const unsigned char*>(mapped)[i];
  EXPECT_EQ(sum, 'x' * (mapped_size / 4096));

  const std::string log = path("log.txt");
  const bench::Timed small = bench::run_process({"true"}, log);
  EXPECT_EQ(small.status, 0);
  EXPECT_GT(small.peak_mib, 0);
  EXPECT_LT(small.peak_mib, 16) << "`true` read this process's memory";
  const bench::Timed big = bench::run_process({"dd", "if=/dev/zero", "of=/dev/null", "bs=64M", "count=1"}, log);
  EXPECT_EQ(big.status, 0) << bench::slurp(log);
  EXPECT_GE(big.peak_mib, 64);
  EXPECT_LT(big.peak_mib, 96);
  EXPECT_GT(big.ms, 0);
  const bench::Timed missing = bench::run_process({"no-such-tool-j2kfront"}, log);
  EXPECT_EQ(missing.status, -1);
  EXPECT_TRUE(std::isnan(missing.peak_mib));
  munmap(mapped, mapped_size);
  ::close(fd);
}

// time_in_rounds: every timed round's time and peak for each command, the warm-up left out.
TEST_F(RunProcess, RoundsGiveEachRunsPeak) {
  int runs = 0;
  const std::vector<std::vector<std::string>> commands{{"true"}, {"dd", "if=/dev/zero", "of=/dev/null", "bs=32M", "count=1"}};
  const bench::Rounds rounds = bench::time_in_rounds(commands.size(), 2, [&](size_t k) {
    ++runs;
    return bench::run_process(commands[k], path("log.txt"));
  });
  EXPECT_EQ(runs, 6);
  ASSERT_EQ(rounds.ms.size(), 2u);
  ASSERT_EQ(rounds.peak_mib.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    ASSERT_EQ(rounds.ms[k].size(), 2u);
    ASSERT_EQ(rounds.peak_mib[k].size(), 2u);
  }
  for (size_t r = 0; r < 2; ++r) {
    EXPECT_LT(rounds.peak_mib[0][r], 16) << "true, round " << r;
    EXPECT_GE(rounds.peak_mib[1][r], 32) << "dd bs=32M, round " << r;
  }
}

TEST(Sweep, AListOrOneCount) {
  bench::CompressOptions o;
  o.threads = 3;
  EXPECT_EQ(bench::sweep(o), std::vector<int>{3});
  EXPECT_EQ(bench::sweep_text(o), "3");
  o.thread_counts = {1, 2, 4};
  EXPECT_EQ(bench::sweep(o), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(bench::sweep_text(o), "1,2,4");
}

// A CSV file as rows of named fields.
struct Csv {
  std::vector<std::string> columns;
  std::vector<std::map<std::string, std::string>> rows;
};
Csv read_csv(const std::string& file) {
  Csv csv;
  std::ifstream in(file);
  auto fields = [](const std::string& line) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string field; std::getline(ss, field, ',');) f.push_back(field);
    return f;
  };
  std::string line;
  if (!std::getline(in, line)) return csv;
  csv.columns = fields(line);
  while (std::getline(in, line)) {
    const std::vector<std::string> f = fields(line);
    std::map<std::string, std::string> row;
    for (size_t k = 0; k < f.size() && k < csv.columns.size(); ++k) row[csv.columns[k]] = f[k];
    if (f.size() != csv.columns.size()) row["__bad"] = line;
    csv.rows.push_back(row);
  }
  return csv;
}

class BenchPeers : public test_support::TempDirTest {
 protected:
  std::string bench(const std::string& what, const std::string& csv) {
    return quote(kCli) + " bench " + what + " --made rgb --size 128 --threads 1,2 --repeats 1 --samples " + quote(kData) +
           " --csv " + quote(csv);
  }
  // Every timed row of `tools` in both modes at threads 1 and 2, with its time and a peak
  // memory a process of this size takes (more than 1 MiB, less than 1 GiB).
  static void expect_sweep(const Csv& csv, const std::vector<std::string>& tools) {
    std::set<std::string> seen;
    for (const auto& row : csv.rows) {
      EXPECT_EQ(row.count("__bad"), 0u) << row.at("__bad");
      if (row.at("ms") == "nan") continue;  // untimed: ours at opj's size
      seen.insert(row.at("mode") + " " + row.at("tool") + " " + row.at("threads"));
      EXPECT_GT(std::stod(row.at("ms")), 0) << row.at("tool");
      const double peak = std::stod(row.at("peak_mib"));
      EXPECT_GT(peak, 1) << row.at("mode") << " " << row.at("tool") << " " << row.at("threads");
      EXPECT_LT(peak, 1024) << row.at("mode") << " " << row.at("tool") << " " << row.at("threads");
    }
    for (const char* mode : {"lossless", "r20"})
      for (const std::string& tool : tools)
        for (const char* threads : {"1", "2"})
          EXPECT_EQ(seen.count(std::string(mode) + " " + tool + " " + threads), 1u) << mode << " " << tool << " " << threads;
  }
};

bool have(const std::string& tool) { return test_support::on_path(tool); }

TEST_F(BenchPeers, CompressByThreadsWithPeakMemory) {
  const std::string csv = path("compress-peers-test.csv");
  const auto r = run_command(bench("--compress", csv));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("threads: 1,2 for every tool"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" thr "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("peak MiB"), std::string::npos) << r.output;
  const Csv table = read_csv(csv);
  EXPECT_EQ(table.columns, (std::vector<std::string>{"image", "mode", "tool", "threads", "ms", "speed_vs_opj", "bytes",
                                                       "bytes_vs_opj", "psnr_db", "read_ms", "front_ms", "tier1_ms", "rate_ms",
                                                       "tier2_ms", "write_ms", "peak_mib"}));
  std::vector<std::string> tools{"j2kfront", "j2kfront --ht"};
  if (have("opj_compress") && have("opj_decompress")) tools.push_back("opj_compress");
  if (have("grk_compress")) tools.push_back("grk_compress");
  expect_sweep(table, tools);
  int at_opj_size = 0;
  for (const auto& row : table.rows) {
    EXPECT_EQ(row.at("image"), "astronaut-128.ppm") << "--made rgb: the RGB image alone";
    at_opj_size += row.at("tool") == "j2kfront at opj's size";
    // Ours, HT too, with its time split.
    if (row.at("tool") == "j2kfront" || row.at("tool") == "j2kfront --ht") {
      EXPECT_NE(row.at("tier1_ms"), "nan") << row.at("tool");
    }
  }
  EXPECT_EQ(at_opj_size, have("opj_compress") ? 1 : 0) << "once, not at every thread count";
}

TEST_F(BenchPeers, DecompressByThreadsWithPeakMemoryAndPlots) {
  if (!have("opj_compress") || !have("opj_decompress")) GTEST_SKIP() << "opj_compress is not installed (Debian: libopenjp2-tools)";
  const std::string results = path("results");
  fs::create_directories(results);
  const std::string csv = results + "/decompress-peers-test.csv";
  auto r = run_command(bench("--decompress", csv));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("DIFFERS"), std::string::npos) << r.output;
  const Csv table = read_csv(csv);
  EXPECT_EQ(table.columns, (std::vector<std::string>{"image", "mode", "tool", "threads", "ms", "speed_vs_opj", "stream_bytes",
                                                       "same_as_opj", "peak_mib"}));
  std::vector<std::string> tools{"j2kfront", "j2kfront --ht", "opj_decompress"};
  if (have("grk_decompress")) tools.push_back("grk_decompress");
  expect_sweep(table, tools);
  for (const auto& row : table.rows)
    if (row.at("tool") == "j2kfront" || row.at("tool") == "j2kfront --ht") {  // OpenJPEG 2.5 reads HT
      EXPECT_EQ(row.at("same_as_opj"), "1") << row.at("mode") << " " << row.at("tool");
    }

  // plot.py: decompress-vs-peers.png (and with the compress file compress-vs-peers.png), the
  // same bytes from the same files; a file of one thread count has none.
  std::string python;  // as tests/bench_csv.sh: $PYTHON, the system's python3, the one on PATH
  for (const char* p : {static_cast<const char*>(std::getenv("PYTHON")), "/usr/bin/python3", "python3"})
    if (python.empty() && p && *p && run_command(quote(p) + " -c 'import matplotlib'").exit_code == 0) python = p;
  if (python.empty()) GTEST_SKIP() << "python3 with matplotlib not found (Debian: python3-matplotlib): plot.py not run";
  r = run_command(quote(kCli) + " bench --compress --made rgb --size 64 --threads 1,2 --repeats 1 --samples " + quote(kData) +
                  " --csv " + quote(results + "/compress-peers-test.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(quote(kCli) + " bench --compress --made rgb --size 64 --threads 1 --repeats 1 --samples " + quote(kData) +
                  " --csv " + quote(results + "/compress-one-thread.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* plots : {"plots", "again"}) {
    r = run_command(quote(python) + " " + quote(kPlot) + " " + quote(results) + " " + quote(path(plots)));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("compress-one-thread.csv: one thread count: no plot"), std::string::npos) << r.output;
  }
  for (const char* png : {"compress-vs-peers.png", "decompress-vs-peers.png"}) {
    const std::vector<uint8_t> bytes = test_support::file_bytes(path("plots") + "/" + png);
    ASSERT_GT(bytes.size(), 8u) << png;
    EXPECT_EQ(std::string(bytes.begin() + 1, bytes.begin() + 4), "PNG") << png;
    EXPECT_EQ(bytes, test_support::file_bytes(path("again") + "/" + png)) << png << " differs from run to run";
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(path("plots")), fs::directory_iterator()), 2) << "one picture each";
}

TEST_F(BenchPeers, ThreadListsAndMadeImagesRefusedWhereTheyMeanNothing) {
  const std::string images = " --size 64 --samples " + quote(kData);
  for (const auto& [args, why] : std::vector<std::pair<std::string, std::string>>{
           {"--backend cpu --sizes 64 --threads 1,2", "a list of thread counts is for --compress and --decompress"},
           {"--compress --ht --threads 1,2" + images, "a list of thread counts is for --compress and --decompress without --ht"},
           {"--decompress --threads 1,x" + images, "separated by commas, got '1,x'"},
           {"--compress --threads 1,9999999" + images, "threads must be 0 (one per core) to"},
           {"--compress --made rgb,blue" + images, "expected rgb or grey16"},
           {"--compress --made rgb --inputs a.ppm", "leave out --inputs"},
           {"--compress --frames 2 --threads 1,2" + images, "leave out a list of --threads"},
           {"--backend cpu --sizes 64 --made rgb", "--made"}}) {
    const auto r = run_command(quote(kCli) + " bench " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << args << "\n" << r.output;
  }
  // One count is still a number of threads for every benchmark.
  const auto r = run_command(quote(kCli) + " bench --backend cpu --sizes 64 --levels 2 --repeats 1 --threads 2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

}  // namespace
