// SPDX-License-Identifier: BSD-2-Clause
// The CLI's input files (tools/input_file): a regular file mapped, its bytes the file's; an
// empty file; the limit, a directory and a FIFO refused by name; a file cut short while mapped
// ends the run with status 1 and a message, its temporary outputs removed (tools/temp_files).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "tools/input_file.hpp"
#include "tools/temp_files.hpp"

namespace {

namespace fs = std::filesystem;
using j2k::tools::InputBytes;
using j2k::tools::read_input_file;

fs::path scratch_dir() {
  const fs::path dir = fs::temp_directory_path() / ("j2k_input_file_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::vector<unsigned char> write_file(const fs::path& p, size_t n) {
  std::vector<unsigned char> bytes(n);
  std::mt19937 rng(7);
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(rng());
  std::FILE* f = std::fopen(p.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  if (!bytes.empty()) {
    EXPECT_EQ(std::fwrite(bytes.data(), 1, n, f), n);
  }
  std::fclose(f);
  return bytes;
}

std::string error_of(const std::string& path, uint64_t limit) {
  try {
    read_input_file(path, limit, 2);
  } catch (const j2k::Error& e) {
    return e.what();
  }
  return "";
}

TEST(InputFile, AFileIsMappedWithItsBytes) {
  const fs::path dir = scratch_dir();
  for (size_t n : {size_t{1}, size_t{4095}, size_t{3} << 20}) {
    const std::vector<unsigned char> want = write_file(dir / "in.j2c", n);
    InputBytes got = read_input_file((dir / "in.j2c").string(), 0, 2);
    EXPECT_TRUE(got.mapped());
    ASSERT_EQ(got.size(), n);
    EXPECT_EQ(std::vector<unsigned char>(got.data(), got.data() + got.size()), want);
    InputBytes moved = std::move(got);  // the mapping moves with it, unmapped once
    EXPECT_EQ(moved.size(), n);
    EXPECT_EQ(got.size(), 0u);
    EXPECT_EQ(moved.data()[n - 1], want[n - 1]);
  }
  write_file(dir / "empty.j2c", 0);
  EXPECT_EQ(read_input_file((dir / "empty.j2c").string(), 0, 1).size(), 0u);
  fs::remove_all(dir);
}

TEST(InputFile, RefusedByName) {
  const fs::path dir = scratch_dir();
  write_file(dir / "big.j2c", 1000);
  EXPECT_NE(error_of((dir / "big.j2c").string(), 999).find("big.j2c: 1000 bytes, more than the 999 bytes"), std::string::npos);
  EXPECT_NE(error_of(dir.string(), 0).find("Is a directory"), std::string::npos);
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_NE(error_of((dir / "fifo").string(), 0).find("not a regular file"), std::string::npos);
  EXPECT_NE(error_of((dir / "none.j2c").string(), 0).find("none.j2c: cannot open"), std::string::npos);
  fs::remove_all(dir);
}

// In a child process (a death test): the file is cut short once mapped, then its last byte
// read.
TEST(InputFileDeathTest, AFileCutShortWhileMappedEndsTheRunWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const fs::path dir = scratch_dir();
  write_file(dir / "in.j2c", size_t{1} << 20);
  const fs::path temp = dir / ".out.partial";
  EXPECT_EXIT(
      {
        j2k::tools::install_temp_file_cleanup();
        std::FILE* f = std::fopen(temp.c_str(), "wb");
        if (f) std::fclose(f);
        j2k::tools::TempFileRegistration registered(AT_FDCWD, temp.string());
        const InputBytes bytes = read_input_file((dir / "in.j2c").string(), 0, 1);
        if (::truncate((dir / "in.j2c").c_str(), 0) != 0) std::_Exit(3);
        volatile unsigned char last = bytes.data()[bytes.size() - 1];
        (void)last;
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(1), "an input file was cut short while it was being read");
  EXPECT_FALSE(fs::exists(temp)) << "the run's temporary output was left";
  fs::remove_all(dir);
}

}  // namespace
