// The decoder (codec/decoder) against the ISO/IEC 15444-4 conformance codestreams: every
// component of every Part 1 profile 0 and 1 codestream within its Class 1 limits (peak error
// and MSE against the reference decodes, Tables C.6 and C.7; see the data's README), found
// through J2K_CONFORMANCE_DATA or ../shared/conformance and skipped with a message when
// absent; and equal, sample for sample, to what Debian's opj_decompress makes of them. Streams
// cut at packet boundaries and elsewhere, and flipped ones, are errors or partial images, never
// crashes (CI runs this under ASan/UBSan).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "codec/codestream/codestream_reader.hpp"
#include "codec/codestream/tile_packets.hpp"
#include "codec/decoder.hpp"
#include "common/error.hpp"
#include "tests/support/pgx_reader.hpp"

namespace {

namespace fs = std::filesystem;
using namespace j2k::codec;
using test_support::Pgx;
using test_support::read_pgx;
using test_support::file_bytes;

std::string conformance_dir() {
  if (const char* env = std::getenv("J2K_CONFORMANCE_DATA")) return env;
  return std::string(J2K_SOURCE_DIR) + "/../shared/conformance";
}

struct Limits {
  const char* name;
  int reduce;
  std::vector<int> peak;     // per component (one value: all)
  std::vector<double> mse;
};

// The data's README (Tables C.6, C.7).
const Limits kClass1[] = {
    {"p0_01", 0, {0}, {0}},
    {"p0_02", 0, {0}, {0}},
    {"p0_03", 0, {0}, {0}},
    {"p0_04", 0, {5, 4, 6}, {0.776, 0.626, 1.070}},
    {"p0_05", 0, {2, 2, 2, 0}, {0.302, 0.307, 0.269, 0}},
    {"p0_06", 0, {635, 403, 378, 0}, {11287, 6124, 3968, 0}},
    {"p0_08", 1, {0, 0, 0}, {0, 0, 0}},
    {"p0_09", 0, {0}, {0}},
    {"p0_10", 0, {0}, {0}},
    {"p0_11", 0, {0}, {0}},
    {"p0_12", 0, {0}, {0}},
    {"p0_13", 0, {0}, {0}},
    {"p0_14", 0, {0}, {0}},
    {"p0_15", 0, {0}, {0}},
    {"p0_16", 0, {0}, {0}},
    {"p1_01", 0, {0}, {0}},
    {"p1_02", 0, {5, 4, 6}, {0.765, 0.616, 1.051}},
    {"p1_03", 0, {2, 2, 1, 0}, {0.3, 0.210, 0.200, 0}},
    {"p1_04", 0, {624}, {3080}},
    {"p1_05", 0, {40, 40, 40}, {8.458, 9.816, 10.154}},
    {"p1_06", 0, {2, 2, 2}, {0.6, 0.6, 0.6}},
    {"p1_07", 0, {0, 0}, {0, 0}},
};

class Conformance : public ::testing::TestWithParam<Limits> {};

TEST_P(Conformance, WithinClass1Limits) {
  const Limits& l = GetParam();
  const std::string dir = conformance_dir();
  const std::string path = dir + "/codestreams/" + l.name + ".j2k";
  if (!fs::exists(path)) GTEST_SKIP() << "no conformance codestream " << path << " (set J2K_CONFORMANCE_DATA)";
  const std::vector<uint8_t> bytes = file_bytes(path);
  DecodeSettings s;
  s.reduce = l.reduce;
  s.backend = j2k::BackendOptions(j2k::Backend::Cpu);
  const DecodedImage image = decode(bytes.data(), bytes.size(), s);
  EXPECT_FALSE(image.truncated);
  // Debian's opj_decompress, the second reference: its output, bit for bit.
  const bool opj = test_support::on_path("opj_decompress");
  const fs::path out = fs::temp_directory_path() / ("j2kfront_decoder_test_" + std::to_string(::getpid()) + "_" + l.name);
  if (opj) {
    fs::remove_all(out);
    fs::create_directories(out);
    const auto r = test_support::run_command("opj_decompress -i " + test_support::quote(path) + " -o " +
                                             test_support::quote((out / "opj.pgx").string()) + " -r " + std::to_string(l.reduce));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  } else {
    std::printf("[conformance] opj_decompress not found: its output is not compared\n");
  }
  for (size_t c = 0; c < image.components.size(); ++c) {
    if (opj) {
      const Pgx theirs = read_pgx((out / ("opj_" + std::to_string(c) + ".pgx")).string());
      const DecodedComponent& ours = image.components[c];
      ASSERT_EQ(ours.width, theirs.width);
      ASSERT_EQ(ours.height, theirs.height);
      size_t differ = 0;
      for (size_t i = 0; i < theirs.samples.size(); ++i) differ += ours.at(i) != theirs.samples[i];
      EXPECT_EQ(differ, 0u) << l.name << " component " << c << ": samples that differ from opj_decompress's";
    }
    const std::string ref_path = dir + "/reference/c1" + l.name + "_" + std::to_string(c) + ".pgx";
    if (!fs::exists(ref_path)) continue;  // a component without a reference
    const Pgx ref = read_pgx(ref_path);
    const DecodedComponent& got = image.components[c];
    ASSERT_EQ(got.width, ref.width) << l.name << " component " << c;
    ASSERT_EQ(got.height, ref.height) << l.name << " component " << c;
    int64_t peak = 0;
    double sq = 0;
    for (size_t i = 0; i < ref.samples.size(); ++i) {
      const int64_t d = std::llabs(int64_t{got.at(i)} - ref.samples[i]);
      peak = std::max(peak, d);
      sq += static_cast<double>(d * d);
    }
    const double mse = sq / static_cast<double>(ref.samples.size());
    const int max_peak = l.peak.size() == 1 ? l.peak[0] : l.peak[c];
    const double max_mse = l.mse.size() == 1 ? l.mse[0] : l.mse[c];
    EXPECT_LE(peak, max_peak) << l.name << " component " << c << " (mse " << mse << ")";
    EXPECT_LE(mse, max_mse) << l.name << " component " << c << " (peak " << peak << ")";
    std::printf("[conformance] %s component %zu: peak %lld (limit %d), mse %.4f (limit %g)\n", l.name, c,
                static_cast<long long>(peak), max_peak, mse, max_mse);
  }
  fs::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(Part4, Conformance, ::testing::ValuesIn(kClass1),
                         [](const auto& p) { return std::string(p.param.name); });

// Cut at many points and with bytes flipped, the conformance streams decode to a partial
// image (allow_partial) or fail with a j2k::Error; nothing else (ASan/UBSan in CI). A flipped
// size is held to max_bytes.
TEST(DecoderRobustness, CutAndFlippedStreams) {
  const std::string dir = conformance_dir() + "/codestreams";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no conformance codestreams at " << dir << " (set J2K_CONFORMANCE_DATA)";
  std::mt19937 rng(17);
  int decoded = 0, partial = 0, refused = 0;
  for (const char* name : {"p0_03", "p0_04", "p0_09", "p0_12", "p0_14", "p1_01", "p1_06"}) {
    const std::vector<uint8_t> whole = file_bytes(dir + "/" + name + ".j2k");
    ASSERT_FALSE(whole.empty()) << name;
    DecodeSettings s;
    s.backend = j2k::BackendOptions(j2k::Backend::Cpu, 1);
    s.max_bytes = uint64_t{64} << 20;
    auto attempt = [&](const std::vector<uint8_t>& bytes, bool allow_partial) {
      s.allow_partial = allow_partial;
      try {
        const DecodedImage image = decode(bytes.data(), bytes.size(), s);
        ++(image.truncated ? partial : decoded);
      } catch (const j2k::Error&) {
        ++refused;
      }
    };
    for (int k = 1; k <= 40; ++k) {
      const size_t cut = whole.size() * static_cast<size_t>(k) / 41;
      const std::vector<uint8_t> head(whole.begin(), whole.begin() + static_cast<ptrdiff_t>(cut));
      attempt(head, true);
      const int before = refused;
      attempt(head, false);
      EXPECT_EQ(refused, before + 1) << name << " cut to " << cut << " bytes decoded without allow_partial";
    }
    for (int k = 0; k < 60; ++k) {
      std::vector<uint8_t> bad = whole;
      for (int f = 0; f < 1 + k % 3; ++f) bad[rng() % bad.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
      attempt(bad, k % 2 == 0);
    }
  }
  std::printf("[robustness] %d decoded whole, %d partial, %d refused\n", decoded, partial, refused);
  EXPECT_GT(partial, 0);
  EXPECT_GT(refused, 0);
}

// Cut at packet boundaries (each tile's packets found by Tier-2 itself, their places in the
// file from the tile-parts): allow_partial decodes every cut to a partial image, a decode
// without it refuses every one.
TEST(DecoderRobustness, CutAtPacketBoundaries) {
  const std::string dir = conformance_dir() + "/codestreams";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no conformance codestreams at " << dir << " (set J2K_CONFORMANCE_DATA)";
  size_t cuts = 0;
  // The small streams (every cut decodes the rest of the image too): POC, PPT, SOP/EPH, ROI,
  // 9/7 and 5/3, one and several tiles.
  for (const char* name : {"p0_01", "p0_02", "p0_03", "p0_09", "p0_11", "p0_12", "p0_13", "p0_14", "p0_16", "p1_01", "p1_06", "p1_07"}) {
    const std::vector<uint8_t> whole = file_bytes(dir + "/" + name + ".j2k");
    ASSERT_FALSE(whole.empty()) << name;
    const Codestream cs = read_codestream(whole.data(), whole.size());
    if (!cs.ppm.empty()) continue;  // headers elsewhere: the boundaries are not in the tile data alone
    std::vector<size_t> boundaries;
    for (size_t t = 0; t < cs.tiles.size(); ++t) {
      const TilePackets tp = read_tile_packets(cs, whole.data(), t);
      std::vector<const TilePart*> parts;
      for (const TilePart& p : cs.parts)
        if (static_cast<size_t>(p.tile) == t) parts.push_back(&p);
      size_t part = 0, in_part = 0;
      for (uint32_t bytes : tp.packet_bytes) {
        while (part < parts.size() && in_part == parts[part]->length) ++part, in_part = 0;  // the next tile-part
        if (part == parts.size()) break;
        in_part += bytes;
        if (in_part < parts[part]->length) boundaries.push_back(parts[part]->data + in_part);
      }
    }
    std::sort(boundaries.begin(), boundaries.end());
    const size_t step = std::max<size_t>(1, boundaries.size() / 40);  // at most ~40 cuts a stream
    DecodeSettings s;
    s.backend = j2k::BackendOptions(j2k::Backend::Cpu, 1);
    for (size_t k = 0; k < boundaries.size(); k += step) {
      const std::vector<uint8_t> head(whole.begin(), whole.begin() + static_cast<ptrdiff_t>(boundaries[k]));
      s.allow_partial = true;
      DecodedImage image;
      ASSERT_NO_THROW(image = decode(head.data(), head.size(), s)) << name << " cut at " << boundaries[k];
      EXPECT_TRUE(image.truncated) << name << " cut at " << boundaries[k];
      s.allow_partial = false;
      EXPECT_THROW(decode(head.data(), head.size(), s), j2k::Error) << name << " cut at " << boundaries[k];
      ++cuts;
    }
  }
  std::printf("[robustness] %zu cuts at packet boundaries decoded partially\n", cuts);
  EXPECT_GT(cuts, 100u);
}

TEST(DecoderRobustness, MemoryLimitRefusesBeforeAllocating) {
  const std::string path = conformance_dir() + "/codestreams/p0_05.j2k";
  if (!fs::exists(path)) GTEST_SKIP() << "no conformance codestream " << path << " (set J2K_CONFORMANCE_DATA)";
  const std::vector<uint8_t> bytes = file_bytes(path);
  DecodeSettings s;
  s.max_bytes = uint64_t{1} << 20;  // p0_05 is 1024 x 1024, 4 components
  try {
    decode(bytes.data(), bytes.size(), s);
    FAIL() << "decoded in 1 MiB";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::OutOfMemory) << e.what();
  }
  s.reduce = 3;  // 128 x 128: fits
  EXPECT_NO_THROW(decode(bytes.data(), bytes.size(), s));
}

}  // namespace
