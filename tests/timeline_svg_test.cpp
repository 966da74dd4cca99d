// SPDX-License-Identifier: BSD-2-Clause
// The timeline picture of `bench --pipeline --timeline`: one box per span, written whole or
// not at all.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "bench/timeline_svg.hpp"
#include "common/error.hpp"

namespace {

namespace fs = std::filesystem;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(TimelineSvg, OneBoxPerSpanReplacingTheFileWhole) {
  const fs::path dir = fs::temp_directory_path() / ("j2k_timeline_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "t.svg";
  std::ofstream(file) << "old";
  std::vector<j2k_span> spans;
  for (int tile = 0; tile < 6; ++tile) {
    const double t = tile * 2.0;
    spans.push_back({tile % 3, 1, tile, J2K_STAGE_UPLOAD, t, t + 1});
    spans.push_back({tile % 3, 1, tile, J2K_STAGE_TRANSFORM, t + 1, t + 1.5});
    spans.push_back({tile % 3, 1, tile, J2K_STAGE_DOWNLOAD, t + 1.5, t + 4});
  }
  j2k::bench::write_timeline_svg(file.string(), "three <streams>", spans);
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  const std::string svg = text.str();
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(count(svg, "<title>frame 1, tile"), spans.size());
  EXPECT_EQ(count(svg, ">queue "), 3u);
  EXPECT_NE(svg.find("three &lt;streams&gt;"), std::string::npos) << "the title is escaped";
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) entries += e.is_regular_file();
  EXPECT_EQ(entries, 1u) << "a temporary file was left beside the picture";

  try {
    j2k::bench::write_timeline_svg((dir / "missing" / "t.svg").string(), "x", spans);
    ADD_FAILURE() << "a picture in a missing directory was accepted";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::Io);
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
