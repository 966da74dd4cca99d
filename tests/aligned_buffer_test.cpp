// SPDX-License-Identifier: BSD-2-Clause
// The row stages' buffers (pipeline/aligned_buffer.hpp) and their huge pages
// (common/memory_pages.hpp): a slab's pieces lie in order, each at a page boundary, apart and
// inside the one allocation; a huge slab is 2 MiB-aligned and a whole number of huge pages;
// where the kernel offers transparent huge pages and they are wanted (not where a virtio
// balloon hands free pages back to its hypervisor, or as J2KFRONT_HUGE_PAGES says), a huge
// slab's and a populated buffer's mappings may take them (the kernel's THPeligible in
// /proc/self/smaps).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "common/memory_pages.hpp"
#include "pipeline/aligned_buffer.hpp"

namespace {

using j2k::BufferSlab;
using j2k::kHugePage;

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(BufferSlab, PiecesLieInOrderAtPageBoundariesApart) {
  const std::vector<size_t> sizes = {1, 4096, 4097, 3 << 20, 0, 100, 786432};
  for (bool huge : {false, true}) {
    const BufferSlab slab(sizes, "a test", huge);
    const j2k::PageRange all = slab.pages();
    EXPECT_EQ(all.bytes, BufferSlab::bytes(sizes, huge));
    uintptr_t end = address(all.p);
    for (size_t i = 0; i < sizes.size(); ++i) {
      const BufferSlab::Piece& piece = slab[i];
      EXPECT_EQ(piece.size, sizes[i]);
      EXPECT_EQ(address(piece.p) % BufferSlab::kAlign, 0u) << i;
      EXPECT_GE(address(piece.p), end) << i;  // after the piece before, never over it
      end = address(piece.p) + piece.size;
      std::memset(piece.p, 0xA5, piece.size);  // writable to its last byte (ASan checks the bounds)
    }
    EXPECT_LE(end, address(all.p) + all.bytes);
  }
}

TEST(BufferSlab, HugeFromTwoMiBOnIsWholeHugePages) {
  const BufferSlab small({kHugePage - 4096}, "a test", true);
  EXPECT_EQ(small.pages().bytes, kHugePage - 4096);
  EXPECT_EQ(address(small.pages().p) % BufferSlab::kAlign, 0u);
  const BufferSlab large({kHugePage, 1}, "a test", true);
  const BufferSlab plain({kHugePage, 1}, "a test", false);
  EXPECT_EQ(plain.pages().bytes, kHugePage + 4096);
  if (j2k::huge_pages_wanted()) {
    EXPECT_EQ(address(large.pages().p) % kHugePage, 0u);
    EXPECT_EQ(large.pages().bytes, 2 * kHugePage);
  } else {  // as without huge pages
    EXPECT_EQ(large.pages().bytes, kHugePage + 4096);
  }
}

// A sysfs driver directory made up: each device's `features` line, bit 0 first.
struct FakeBalloons {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("j2k_balloons_" + std::to_string(::getpid()));
  explicit FakeBalloons(const std::vector<std::pair<std::string, std::string>>& devices) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    for (const auto& [name, features] : devices) {
      std::filesystem::create_directories(dir / name);
      std::ofstream(dir / name / "features") << features << "\n";
    }
  }
  ~FakeBalloons() { std::filesystem::remove_all(dir); }
};

TEST(HugePages, BalloonsThatReportFreePagesAreFound) {
  const std::string reporting = "0110010100000000000000000000000010000000", plain = "0110000100000000000000000000000010000000";
  EXPECT_TRUE(j2k::balloon_reports_free_pages(FakeBalloons({{"virtio0", reporting}}).dir.c_str()));
  EXPECT_TRUE(j2k::balloon_reports_free_pages(FakeBalloons({{"virtio0", plain}, {"virtio3", reporting}}).dir.c_str()));
  EXPECT_FALSE(j2k::balloon_reports_free_pages(FakeBalloons({{"virtio0", plain}}).dir.c_str()));
  EXPECT_FALSE(j2k::balloon_reports_free_pages(FakeBalloons({{"module", reporting}, {"virtio1", "0110"}}).dir.c_str()));
  EXPECT_FALSE(j2k::balloon_reports_free_pages(FakeBalloons({}).dir.c_str()));
  EXPECT_FALSE(j2k::balloon_reports_free_pages("/nonexistent/virtio_balloon"));
}

// THPeligible of the mapping that holds `p` in /proc/self/smaps: 1, 0, or -1 where not found.
int thp_eligible(const void* p) {
  std::ifstream f("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(f, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = address(p) >= lo && address(p) < hi;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) return std::stoi(line.substr(12));
  }
  return -1;
}

// `j2kfront --version`'s line: which pages, and why (J2KFRONT_HUGE_PAGES where it decides).
TEST(HugePages, DescriptionSaysWhichAndWhy) {
  const std::string text = j2k::huge_pages_description();
  EXPECT_EQ(text.rfind(j2k::huge_pages_wanted() ? "huge pages asked for" : "4 KiB pages", 0), 0u) << text;
  const char* setting = std::getenv("J2KFRONT_HUGE_PAGES");
  if (setting != nullptr && (std::string(setting) == "0" || std::string(setting) == "1")) {
    EXPECT_NE(text.find(std::string("J2KFRONT_HUGE_PAGES=") + setting), std::string::npos) << text;
  }
}

// Run with J2KFRONT_HUGE_PAGES=1 and =0 too (tests/CMakeLists.txt): the advice is given, or
// not, as huge_pages_wanted() says.
TEST(HugePages, PopulatedBuffersTakeThemWhereWanted) {
  const std::string setting = j2k::transparent_huge_pages_setting();
  if (setting != "madvise")
    GTEST_SKIP() << "transparent huge pages are '" << setting << "' here (only under madvise does the advice show)";
  // A slab and a plain vector that populate_pages maps: each asks for huge pages, where wanted.
  const BufferSlab slab({6 << 20}, "a test", true);
  j2k::populate_pages(slab[0].p, slab[0].size, 1);
  std::vector<uint8_t> plane(size_t{12} << 20);
  j2k::populate_pages(plane.data(), plane.size(), 2);
  const void* inside = reinterpret_cast<const void*>((address(plane.data()) + kHugePage - 1) & ~(kHugePage - 1));
  const int slab_eligible = thp_eligible(slab[0].p), plane_eligible = thp_eligible(inside);
  if (slab_eligible < 0) GTEST_SKIP() << "this kernel's /proc/self/smaps has no THPeligible";
  const int wanted = j2k::huge_pages_wanted() ? 1 : 0;
  EXPECT_EQ(slab_eligible, wanted);
  EXPECT_EQ(plane_eligible, wanted);
  // A buffer nobody asked them for: never.
  const BufferSlab plain({size_t{8} << 20}, "a test", false);
  EXPECT_EQ(thp_eligible(plain[0].p), 0);
}

}  // namespace
