// SPDX-License-Identifier: BSD-2-Clause
// The decoder (codec/decoder) against the ISO/IEC 15444-4 conformance codestreams: every
// component of every Part 1 profile 0 and 1 codestream within its Class 1 limits (peak error
// and MSE against the reference decodes, Tables C.6 and C.7; see the data's README), found
// in tests/data/conformance (or J2K_CONFORMANCE_DATA) and skipped with a message when
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
#include <thread>
#include <vector>

#include "codec/codestream/codestream_reader.hpp"
#include "codec/codestream/tile_packets.hpp"
#include "codec/decoder.hpp"
#include "j2kfront/j2kfront.hpp"
#include "common/error.hpp"
#include "tests/support/conformance_data.hpp"
#include "tests/support/empty_packet_stream.hpp"
#include "tests/support/jp2_boxes.hpp"
#include "tests/support/pgx_reader.hpp"
#if J2KFRONT_HAVE_OPENCL
#include "transform/opencl/opencl_dwt.hpp"
#endif

namespace {

namespace fs = std::filesystem;
using namespace j2k::codec;
using test_support::Pgx;
using test_support::read_pgx;
using test_support::file_bytes;

using test_support::conformance_dir;

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

// Component c of `image` (of the stream `tag`) against `l`'s Class 1 reference decode, where
// the data has one: its peak error and MSE within the limits, printed.
void expect_within_limits(const DecodedImage& image, size_t c, const Limits& l, const std::string& dir,
                          const std::string& tag) {
  const std::string ref_path = dir + "/reference/c1" + l.name + "_" + std::to_string(c) + ".pgx";
  if (!fs::exists(ref_path)) return;  // a component without a reference
  const Pgx ref = read_pgx(ref_path);
  const DecodedComponent& got = image.components[c];
  ASSERT_EQ(got.width, ref.width) << tag << " component " << c;
  ASSERT_EQ(got.height, ref.height) << tag << " component " << c;
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
  EXPECT_LE(peak, max_peak) << tag << " component " << c << " (mse " << mse << ")";
  EXPECT_LE(mse, max_mse) << tag << " component " << c << " (peak " << peak << ")";
  std::printf("[conformance] %s component %zu: peak %lld (limit %d), mse %.4f (limit %g)\n", tag.c_str(), c,
              static_cast<long long>(peak), max_peak, mse, max_mse);
}

class Conformance : public ::testing::TestWithParam<Limits> {};

TEST_P(Conformance, WithinClass1Limits) {
  const Limits& l = GetParam();
  const std::string dir = conformance_dir();
  const std::string path = dir + "/codestreams/" + l.name + ".j2k";
  if (!fs::exists(path)) GTEST_SKIP() << "no conformance codestream " << path << " (tests/data/conformance, or J2K_CONFORMANCE_DATA)";
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
    expect_within_limits(image, c, l, dir, l.name);
  }
  fs::remove_all(out);
}

// The HTJ2K conformance codestreams of ITU-T T.803 (ds0_ht_NN_bB.j2k, the p0_NN images coded
// with HT code-blocks, B the magnitude bits a decoder needs; in J2K_CONFORMANCE_DATA/htj2k,
// skipped with a message where absent): those whose B leaves the image whole meet p0_NN's
// Class 1 limits against its reference; they hold placeholder passes, several HT sets and
// SigProp and MagRef passes. (The b11 variants of p0_02, 03, 05, 06, 08 and 15 drop planes
// on purpose and are only decoded, by HtConformance.EveryStreamDecodes.) Those that keep every
// plane also decode to exactly what p0_NN itself (EBCOT, decoded as OpenJPEG decodes it) gives.
struct HtLimits {
  const char* name;
  const char* reference;  // the p0 stream whose limits and reference apply
  bool same_as_part1;     // every sample as p0_NN's own decode
};
const HtLimits kHtClass1[] = {
    {"ds0_ht_01_b11", "p0_01", true},  {"ds0_ht_02_b12", "p0_02", true},  {"ds0_ht_03_b14", "p0_03", true},
    {"ds0_ht_04_b11", "p0_04", false}, {"ds0_ht_04_b12", "p0_04", true},  {"ds0_ht_05_b12", "p0_05", true},
    {"ds0_ht_06_b18", "p0_06", true},  {"ds0_ht_09_b11", "p0_09", true},  {"ds0_ht_10_b11", "p0_10", true},
    {"ds0_ht_11_b10", "p0_11", true},  {"ds0_ht_12_b11", "p0_12", true},  {"ds0_ht_13_b11", "p0_13", true},
    {"ds0_ht_14_b11", "p0_14", true},  {"ds0_ht_15_b14", "p0_15", true},  {"ds0_ht_16_b11", "p0_16", true},
    // HTMIXED: HT and Part 1 code-blocks in one component.
    {"ds0_hm_06_b18", "p0_06", true},  {"ds0_hm_15_b8", "p0_15", true},
};

class HtConformance : public ::testing::TestWithParam<HtLimits> {};

TEST_P(HtConformance, WithinClass1Limits) {
  const HtLimits& h = GetParam();
  const std::string dir = conformance_dir();
  const std::string path = dir + "/htj2k/" + h.name + ".j2k";
  if (!fs::exists(path))
    GTEST_SKIP() << "no HTJ2K conformance codestream " << path << " (ITU-T T.803's ds0_ht_*.j2k in J2K_CONFORMANCE_DATA/htj2k)";
  const Limits* limits = nullptr;
  for (const Limits& l : kClass1)
    if (std::string(l.name) == h.reference) limits = &l;
  ASSERT_NE(limits, nullptr);
  const std::vector<uint8_t> bytes = file_bytes(path);
  DecodeSettings s;
  s.reduce = limits->reduce;
  s.backend = j2k::BackendOptions(j2k::Backend::Cpu);
  const DecodedImage image = decode(bytes.data(), bytes.size(), s);
  EXPECT_FALSE(image.truncated);
  EXPECT_TRUE(image.warnings.empty()) << image.warnings.front();
  const std::string part1 = dir + "/codestreams/" + limits->name + ".j2k";
  if (h.same_as_part1 && fs::exists(part1)) {
    const std::vector<uint8_t> p1 = file_bytes(part1);
    const DecodedImage theirs = decode(p1.data(), p1.size(), s);
    ASSERT_EQ(theirs.components.size(), image.components.size());
    for (size_t c = 0; c < image.components.size(); ++c) {
      const DecodedComponent &a = image.components[c], &b = theirs.components[c];
      ASSERT_EQ(a.width, b.width);
      ASSERT_EQ(a.height, b.height);
      size_t differ = 0;
      for (size_t i = 0; i < static_cast<size_t>(a.width) * static_cast<size_t>(a.height); ++i) differ += a.at(i) != b.at(i);
      EXPECT_EQ(differ, 0u) << h.name << " component " << c << ": samples that differ from " << limits->name << "'s";
    }
  }
  for (size_t c = 0; c < image.components.size(); ++c) expect_within_limits(image, c, *limits, dir, h.name);
}

INSTANTIATE_TEST_SUITE_P(HtStreams, HtConformance, ::testing::ValuesIn(kHtClass1),
                         [](const ::testing::TestParamInfo<HtLimits>& i) { return std::string(i.param.name); });

// Every HTJ2K conformance codestream there (ds0_ht_*, ds1_ht_* and the HTMIXED ds0_hm_*)
// decodes without an error or a warning.
TEST(HtConformanceAll, EveryStreamDecodes) {
  const fs::path dir = conformance_dir() + "/htj2k";
  if (!fs::exists(dir)) GTEST_SKIP() << "no " << dir << " (ITU-T T.803's HTJ2K codestreams, ds0_ht_*.j2k and ds1_ht_*.j2k)";
  int decoded = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".j2k" || name.rfind("ds", 0) != 0 ||
        (name.find("_ht_") == std::string::npos && name.find("_hm_") == std::string::npos) || fs::file_size(e.path()) == 0)
      continue;
    const std::vector<uint8_t> bytes = file_bytes(e.path().string());
    DecodeSettings s;
    s.backend = j2k::BackendOptions(j2k::Backend::Cpu);
    try {
      const DecodedImage image = decode(bytes.data(), bytes.size(), s);
      EXPECT_TRUE(image.warnings.empty()) << name << ": " << image.warnings.front();
      ++decoded;
    } catch (const j2k::Error& err) {
      ADD_FAILURE() << name << ": " << err.what();
    }
  }
  if (decoded == 0) GTEST_SKIP() << "no ds*_ht_*.j2k in " << dir;
  std::printf("[conformance] %d HTJ2K codestreams decoded\n", decoded);
}

// The GPU back stages (with CUDA, Tier-1 on the GPU as well) give the CPU's samples, bit
// for bit, on every conformance stream, whole and at each reduce its levels allow.
TEST_P(Conformance, GpuBackendsDecodeAsTheCpu) {
  const Limits& l = GetParam();
  const std::string path = conformance_dir() + "/codestreams/" + l.name + ".j2k";
  if (!fs::exists(path)) GTEST_SKIP() << "no conformance codestream " << path << " (tests/data/conformance, or J2K_CONFORMANCE_DATA)";
  std::vector<j2k::Backend> gpus;
  for (j2k::Backend b : {j2k::Backend::Cuda, j2k::Backend::OpenCL})
    if (j2k::backend_available(b)) gpus.push_back(b);
  if (gpus.empty()) GTEST_SKIP() << "no GPU backend here";
  const std::vector<uint8_t> bytes = file_bytes(path);
  for (int reduce : {0, 1, 3}) {
    DecodeSettings s;
    s.reduce = reduce;
    s.backend = j2k::BackendOptions(j2k::Backend::Cpu);
    DecodedImage want;
    try {
      want = decode(bytes.data(), bytes.size(), s);
    } catch (const j2k::Error&) {
      continue;  // more levels than the stream has
    }
    for (j2k::Backend b : gpus) {
      s.backend = j2k::BackendOptions(b);
      const DecodedImage got = decode(bytes.data(), bytes.size(), s);
      ASSERT_EQ(got.components.size(), want.components.size());
      for (size_t c = 0; c < got.components.size(); ++c)
        EXPECT_TRUE(got.components[c].bytes == want.components[c].bytes)
            << l.name << " reduce " << reduce << " component " << c << " on " << j2k::backend_name(b);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Part4, Conformance, ::testing::ValuesIn(kClass1),
                         [](const auto& p) { return std::string(p.param.name); });

// Cut at many points and with bytes flipped, the streams decode to a partial image
// (allow_partial) or fail with a j2k::Error; nothing else (ASan/UBSan in CI). A flipped size
// is held to max_bytes.
// The streams the robustness tests cut and flip: our encoder's, with tiles, layers,
// precincts, every progression and mode switch, SOP/EPH, PLT and tile-parts, both wavelets
// (always, so that CI runs them under ASan/UBSan); and the small conformance streams where the
// data is there.
std::vector<std::pair<std::string, std::vector<uint8_t>>> robustness_streams() {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
  struct Made {
    const char* name;
    int width, height, channels, precision;
    bool irreversible;
    std::vector<double> rates;
    j2k_progression order;
    unsigned modes;
    uint32_t tile;
  };
  const Made made[] = {
      {"ours RGB 9/7 3 layers RPCL SOP/EPH tiles", 96, 80, 3, 8, true, {40, 20, 10}, J2K_RPCL, 0, 48},
      {"ours grey 12-bit lossless CPRL all modes PLT tile-parts", 70, 50, 1, 12, false, {}, J2K_CPRL, 63, 0},
      {"ours RGB 2 layers LRCP BYPASS|VSC", 64, 64, 3, 8, false, {20, 1}, J2K_LRCP, J2K_MODE_BYPASS | J2K_MODE_VSC, 0},
      {"ours grey PCRL RESET|RESTART|ERTERM 4 layers", 57, 43, 1, 8, true, {60, 30, 15, 8}, J2K_PCRL, 22, 32},
      {"ours grey 12-bit lossless LRCP tiles", 150, 70, 1, 12, false, {}, J2K_LRCP, 0, 32},
  };
  for (const Made& m : made) {
    j2kfront::Image img;
    img.width = static_cast<uint32_t>(m.width), img.height = static_cast<uint32_t>(m.height);
    for (int c = 0; c < m.channels; ++c) {
      auto& k = img.add_component(m.precision > 8 ? J2K_SAMPLE_U16 : J2K_SAMPLE_U8, m.precision);
      for (int64_t y = 0; y < k.height; ++y)
        for (int64_t x = 0; x < k.width; ++x) {
          const int v = static_cast<int>((x * 5 + y * 3 + c * 50 + (x * y) % 23) % (1 << m.precision));
          if (m.precision > 8) k.row<uint16_t>(y)[x] = static_cast<uint16_t>(v);
          else k.row<uint8_t>(y)[x] = static_cast<uint8_t>(v);
        }
    }
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    s.levels = 3;
    s.wavelet = m.irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
    s.tile_w = s.tile_h = m.tile;
    j2kfront::Coding c;
    c.rates = m.rates;
    c.progression = m.order;
    c.modes = m.modes;
    c.precincts = {{32, 32}, {16, 16}};
    c.sop = c.eph = m.order == J2K_RPCL;
    c.plt = m.order == J2K_CPRL;
    if (m.order == J2K_CPRL) c.tile_parts = 'R';
    out.emplace_back(m.name, j2kfront::Encoder(s, c, img.view()).encode(img.view()));
  }
  const std::string dir = conformance_dir() + "/codestreams";
  for (const char* name : {"p0_01", "p0_02", "p0_03", "p0_09", "p0_11", "p0_12", "p0_13", "p0_14", "p0_16", "p1_01", "p1_06", "p1_07"})
    if (fs::exists(dir + "/" + name + ".j2k")) out.emplace_back(name, file_bytes(dir + "/" + name + ".j2k"));
  return out;
}

TEST(DecoderRobustness, CutAndFlippedStreams) {
  std::mt19937 rng(17);
  int decoded = 0, partial = 0, refused = 0;
  for (const auto& [name, whole] : robustness_streams()) {
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
  size_t cuts = 0;
  for (const auto& [name, whole] : robustness_streams()) {
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

// A stream cut before its later tiles' tile-parts (allow_partial): each tile that never got
// data is the middle of the sample range (what OpenJPEG gives), 8-bit and 12-bit, on one
// thread and on several; the tiles before the cut are what the whole stream gives.
TEST(DecoderRobustness, TilesWithoutDataAreTheMiddleOfTheRange) {
  size_t checked = 0;
  for (const auto& [name, whole] : robustness_streams()) {
    const Codestream cs = read_codestream(whole.data(), whole.size());
    if (cs.tiles.size() < 2 || cs.info.components[0].is_signed) continue;
    size_t cut = 0;  // the SOT of the first tile-part that is not tile 0's
    for (const TilePart& p : cs.parts)
      if (p.tile != 0) {
        cut = p.sot;
        break;
      }
    ASSERT_GT(cut, 0u) << name;
    const std::vector<uint8_t> head(whole.begin(), whole.begin() + static_cast<ptrdiff_t>(cut));
    const j2k::Canvas canvas = canvas_of(cs);
    for (int threads : {1, 3}) {
      SCOPED_TRACE(name + ", " + std::to_string(threads) + " threads");
      DecodeSettings s;
      s.backend = j2k::BackendOptions(j2k::Backend::Cpu, threads);
      const DecodedImage full = decode(whole.data(), whole.size(), s);
      s.allow_partial = true;
      const DecodedImage image = decode(head.data(), head.size(), s);
      EXPECT_TRUE(image.truncated);
      ASSERT_EQ(image.components.size(), full.components.size());
      const j2k::Rect first = canvas.tile(0);
      for (size_t c = 0; c < image.components.size(); ++c) {
        const DecodedComponent& k = image.components[c];
        const int32_t mid = 1 << (k.precision - 1);
        size_t bad = 0;
        for (int64_t y = 0; y < k.height; ++y)
          for (int64_t x = 0; x < k.width; ++x) {
            const bool in_first = (k.x0 + x) * k.dx < first.x1 && (k.y0 + y) * k.dy < first.y1;
            const size_t i = static_cast<size_t>(y * k.width + x);
            if (k.at(i) != (in_first ? full.components[c].at(i) : mid)) ++bad;
          }
        EXPECT_EQ(bad, 0u) << "component " << c << ": samples neither the whole stream's (tile 0) nor " << mid;
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 6u);
}

TEST(DecoderRobustness, MemoryLimitRefusesBeforeAllocating) {
  const std::vector<uint8_t> bytes = robustness_streams().front().second;  // 96 x 80 RGB, 48 x 40 tiles
  DecodeSettings s;
  s.max_bytes = 20000;  // the stream, the output and a tile's coefficients alone need more
  try {
    decode(bytes.data(), bytes.size(), s);
    FAIL() << "decoded in 20000 bytes";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::OutOfMemory) << e.what();
    EXPECT_NE(std::string(e.what()).find("MiB of memory allowed"), std::string::npos) << e.what();
  }
  // The least limit that a decode at 1/4 of the size (24 x 20) fits in refuses the whole
  // image, whose output and coefficients are 16 times larger.
  auto fits = [&](uint64_t limit, int reduce) {
    s.max_bytes = limit;
    s.reduce = reduce;
    try {
      decode(bytes.data(), bytes.size(), s);
      return true;
    } catch (const j2k::Error& e) {
      EXPECT_EQ(e.code(), j2k::ErrorCode::OutOfMemory) << e.what();
      return false;
    }
  };
  uint64_t lo = 20000, hi = uint64_t{64} << 20;  // fits(lo, 2) is false, fits(hi, 2) true
  ASSERT_FALSE(fits(lo, 2));
  ASSERT_TRUE(fits(hi, 2));
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (fits(mid, 2) ? hi : lo) = mid;
  }
  EXPECT_FALSE(fits(hi, 0)) << "the whole image decoded in the " << hi << " bytes its quarter needs";
  EXPECT_TRUE(fits(uint64_t{64} << 20, 0));
}

// What a decode makes after the tiles is held to the limit too: a JP2 palette's three 16-bit
// channels from one 8-bit component of indices (6 bytes a sample where the codestream's
// samples take 1) are refused, naming them, at the least limit the bare codestream decodes
// in, and decode with their 6 MiB more.
TEST(DecoderRobustness, MemoryLimitHoldsThePaletteChannels) {
  j2kfront::Image img;
  img.width = img.height = 1024;
  img.add_component(J2K_SAMPLE_U8, 8);
  for (size_t i = 0; i < img.components[0].bytes.size(); ++i) img.components[0].bytes[i] = static_cast<uint8_t>(i * 31 % 256);
  j2kfront::Settings es;
  es.backend = J2K_BACKEND_CPU;
  const std::vector<uint8_t> cs = j2kfront::Encoder(es, j2kfront::Coding{}, img.view()).encode(img.view());
  std::vector<std::vector<uint64_t>> entries;
  for (uint64_t k = 0; k < 256; ++k) entries.push_back({k * 257, 65535 - k * 257, k * 100});
  const std::vector<uint8_t> file = test_support::palette_jp2(cs, 1024, 1024, 16, 16, entries);
  DecodeSettings s;
  s.backend = j2k::BackendOptions(j2k::Backend::Cpu, 2);
  s.convert_colour = false;
  auto fits = [&](const std::vector<uint8_t>& bytes, uint64_t limit, std::string* why) {
    s.max_bytes = limit;
    try {
      decode(bytes.data(), bytes.size(), s);
      return true;
    } catch (const j2k::Error& e) {
      EXPECT_EQ(e.code(), j2k::ErrorCode::OutOfMemory) << e.what();
      if (why) *why = e.what();
      return false;
    }
  };
  uint64_t lo = 1, hi = uint64_t{256} << 20;
  ASSERT_TRUE(fits(cs, hi, nullptr));
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (fits(cs, mid, nullptr) ? hi : lo) = mid;
  }
  std::string why;
  EXPECT_FALSE(fits(file, hi + (file.size() - cs.size()), &why));
  EXPECT_NE(why.find("palette"), std::string::npos) << why;
  EXPECT_TRUE(fits(file, hi + (file.size() - cs.size()) + (uint64_t{6} << 20), nullptr));
}

// Each structure class of issue 45, refused from its header under a limit it passes by far:
// OutOfMemory, naming the cause and the limit, the budget counting the code-block and precinct
// bookkeeping and not only the output.
TEST(DecoderRobustness, MemoryLimitCountsTheBookkeeping) {
  struct Case {
    const char* name;
    test_support::EmptyPacketStream stream;
    bool partial;
    const char* cause;
  };
  std::vector<Case> cases;
  // 16 MiB of output and 64 MiB of coefficients: within the limit alone.
  cases.push_back({"4 x 4 code-blocks", {}, false, "code-blocks"});
  cases.back().stream.tile_size = 4096, cases.back().stream.levels = 5, cases.back().stream.block_log2 = 2;
  cases.push_back({"2 x 2 precincts in a cut stream", {}, true, "precincts"});
  cases.back().stream.tile_size = 2048, cases.back().stream.levels = 5, cases.back().stream.precinct_log2 = 1;
  cases.back().stream.packets = 1000, cases.back().stream.cut_bytes = 100000;
  cases.push_back({"16384 components", {}, false, "16384 tile-components"});
  cases.back().stream.tile_size = 8, cases.back().stream.levels = 32, cases.back().stream.components = 16384;
  cases.back().stream.packets = int64_t{16384} * 33;
  for (const Case& c : cases) {
    const std::vector<uint8_t> bytes = c.stream.bytes();
    DecodeSettings s;
    s.backend = j2k::BackendOptions(j2k::Backend::Cpu, 1);
    s.allow_partial = c.partial;
    s.max_bytes = uint64_t{100} << 20;
    try {
      decode(bytes.data(), bytes.size(), s);
      ADD_FAILURE() << c.name << ": decoded in 100 MiB";
    } catch (const j2k::Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.code(), j2k::ErrorCode::OutOfMemory) << c.name << ": " << what;
      EXPECT_NE(what.find(c.cause), std::string::npos) << c.name << ": " << what;
      EXPECT_NE(what.find("more than the 100 MiB of memory allowed"), std::string::npos) << c.name << ": " << what;
    }
  }
}

// An RGN shift that takes a band past the bit planes the decoder holds (int32 at twice the
// scale: 30) is refused naming the tile, the component and the RGN shift, not just a block.
TEST(DecoderRobustness, RgnShiftsPastTheDecodedPlanesAreNamed) {
  // The 12-bit lossless one: every block has data (the first, at 40:1 with SOP/EPH, has
  // none: its markers take the budget). One component: Crgn is one byte.
  std::vector<uint8_t> bytes = robustness_streams().at(1).second;
  // RGN for component 0, max-shift (Srgn 0), SPrgn 255, just before the first SOT.
  const size_t sot = read_codestream(bytes.data(), bytes.size()).parts.at(0).sot;
  const uint8_t rgn[] = {0xFF, 0x5E, 0x00, 0x05, 0x00, 0x00, 0xFF};
  bytes.insert(bytes.begin() + static_cast<ptrdiff_t>(sot), std::begin(rgn), std::end(rgn));
  try {
    decode(bytes.data(), bytes.size(), DecodeSettings{});
    FAIL() << "decoded with 255 more bit planes";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::UnsupportedInput) << e.what();
    for (const char* word : {"tile 0", "component 0", "RGN shift of 255", "at most 30"})
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << word << ": " << e.what();
  }
}

// The GPU backends that run DecoderGpu's test: CUDA, and OpenCL on a GPU (on PoCL, the CPU,
// it would take minutes; the conformance streams cover its gathered launches there).
std::vector<j2k::Backend> gathering_gpus(std::string& why) {
  std::vector<j2k::Backend> gpus;
  if (j2k::backend_available(j2k::Backend::Cuda, &why)) gpus.push_back(j2k::Backend::Cuda);
#if J2KFRONT_HAVE_OPENCL
  std::string ocl_why;
  const bool opencl = j2k::backend_available(j2k::Backend::OpenCL, &ocl_why);
  if (opencl && j2k::ocl::list_devices()[static_cast<size_t>(j2k::ocl::select_device(-1))].gpu)
    gpus.push_back(j2k::Backend::OpenCL);
  else
    why += "; OpenCL: " + (opencl ? std::string("its device is not a GPU") : ocl_why);
#endif
  return gpus;
}

// An 8-bit RGB image of smooth ramps with noise on them, so that code-blocks hold both
// skewed and coin-toss decisions.
j2kfront::Image noisy_rgb(uint32_t width, uint32_t height) {
  j2kfront::Image img;
  img.width = width;
  img.height = height;
  for (int c = 0; c < 3; ++c) {
    auto& k = img.add_component(J2K_SAMPLE_U8, 8);
    for (int64_t y = 0; y < k.height; ++y)
      for (int64_t x = 0; x < k.width; ++x)
        k.row<uint8_t>(y)[x] = static_cast<uint8_t>((x * 3 + y * 5 + c * 70 + ((x * 2654435761u) >> 7 ^ y * 40503u) % 29) & 255);
  }
  return img;
}

// With Tier-1 on a GPU the code-blocks of consecutive tiles are decoded in one launch, until
// they hold kGpuGroupBytes of coefficients. A row of 2048^2 RGB tiles (48 MiB each) one more
// than a launch takes, the last one narrower: a launch of several tiles (planes of the
// decoder's own, copied into the back stage's), then the last tile alone (into the back
// stage's planes). Both wavelets, SEGMARK on (its counters per tile), every sample the CPU's.
TEST(DecoderGpu, TilesGatheredIntoLaunchesDecodeAsTheCpu) {
  std::string why;
  const std::vector<j2k::Backend> gpus = gathering_gpus(why);
  if (gpus.empty()) GTEST_SKIP() << "CUDA: " << why;
  constexpr uint32_t kTile = 2048;
  const size_t gathered = kGpuGroupBytes / (size_t{3} * kTile * kTile * 4);
  ASSERT_GE(gathered, 2u) << "a launch should take more than one of these tiles";
  const j2kfront::Image img = noisy_rgb(static_cast<uint32_t>(kTile * gathered + 777), kTile);
  for (bool irreversible : {false, true}) {
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    s.wavelet = irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
    s.tile_w = s.tile_h = kTile;
    j2kfront::Coding c;
    c.modes = J2K_MODE_SEGMARK;
    if (irreversible) c.rates = {20};
    const std::vector<uint8_t> bytes = j2kfront::Encoder(s, c, img.view()).encode(img.view());
    DecodeSettings d;
    d.backend = j2k::BackendOptions(j2k::Backend::Cpu);
    const DecodedImage want = decode(bytes.data(), bytes.size(), d);
    for (j2k::Backend b : gpus) {
      d.backend = j2k::BackendOptions(b);
      const DecodedImage got = decode(bytes.data(), bytes.size(), d);
      EXPECT_TRUE(got.warnings.empty()) << got.warnings.front();
      ASSERT_EQ(got.components.size(), 3u);
      for (size_t k = 0; k < 3; ++k)
        EXPECT_TRUE(got.components[k].bytes == want.components[k].bytes)
            << (irreversible ? "9/7" : "5/3") << ", component " << k << " on " << j2k::backend_name(b);
    }
  }
}

// HT code-blocks (Part 15) on a GPU back stage, decoded on the GPU (CUDA's batch runs
// ht/device_block_decoder.hpp, OpenCL's its OpenCL C mirror): every sample the CPU
// backend's. Lossless and lossy HT streams (the lossy ones with SigProp and
// MagRef where rate control stops a block above plane 0), tiles gathered into one launch,
// long and small code-blocks, 12-bit grey, reduce; then streams with flipped bytes, whose
// inconsistent HT blocks must decode to zeros and be counted in the same warnings; then T.803's
// HTJ2K and HTMIXED codestreams where J2K_CONFORMANCE_DATA/htj2k has them. Small images: it
// runs on PoCL too (seconds), so CI decodes HT blocks through the OpenCL kernel.
TEST(DecoderGpu, HtStreamsDecodeAsTheCpu) {
  std::vector<j2k::Backend> gpus;
  std::string cuda_why, opencl_why;
  if (j2k::backend_available(j2k::Backend::Cuda, &cuda_why)) gpus.push_back(j2k::Backend::Cuda);
  if (j2k::backend_available(j2k::Backend::OpenCL, &opencl_why)) gpus.push_back(j2k::Backend::OpenCL);
  if (gpus.empty()) GTEST_SKIP() << "CUDA: " << cuda_why << "; OpenCL: " << opencl_why;
  auto expect_same = [&](const std::vector<uint8_t>& bytes, DecodeSettings d, const std::string& what) {
    d.backend = j2k::BackendOptions(j2k::Backend::Cpu);
    DecodedImage want;
    try {
      want = decode(bytes.data(), bytes.size(), d);
    } catch (const j2k::Error& e) {
      for (j2k::Backend b : gpus) {
        d.backend = j2k::BackendOptions(b);
        EXPECT_THROW(decode(bytes.data(), bytes.size(), d), j2k::Error) << what << " on " << j2k::backend_name(b) << ": the CPU refused it: " << e.what();
      }
      return std::vector<std::string>{};
    }
    std::vector<std::string> warnings = want.warnings;
    std::sort(warnings.begin(), warnings.end());
    for (j2k::Backend b : gpus) {
      d.backend = j2k::BackendOptions(b);
      const DecodedImage got = decode(bytes.data(), bytes.size(), d);
      EXPECT_EQ(got.truncated, want.truncated) << what << " on " << j2k::backend_name(b);
      std::vector<std::string> got_warnings = got.warnings;
      std::sort(got_warnings.begin(), got_warnings.end());
      EXPECT_EQ(got_warnings, warnings) << what << " on " << j2k::backend_name(b);
      EXPECT_EQ(got.components.size(), want.components.size()) << what;
      for (size_t k = 0; k < std::min(got.components.size(), want.components.size()); ++k)
        EXPECT_TRUE(got.components[k].bytes == want.components[k].bytes)
            << what << ", component " << k << " on " << j2k::backend_name(b);
    }
    return warnings;
  };
  j2kfront::Image grey12;
  grey12.width = 211;
  grey12.height = 97;
  auto& g = grey12.add_component(J2K_SAMPLE_U16, 12);
  for (int64_t y = 0; y < g.height; ++y)
    for (int64_t x = 0; x < g.width; ++x)
      g.row<uint16_t>(y)[x] = static_cast<uint16_t>((x * 37 + y * 11 + ((x * 2654435761u) >> 9 ^ y * 977u) % 301) & 4095);
  const j2kfront::Image rgb = noisy_rgb(300, 200);
  struct Stream {
    const char* name;
    const j2kfront::Image* image;
    bool irreversible;
    uint32_t tile;
    int block_w, block_h;
    std::vector<double> rates;
    int reduce;
  };
  const Stream streams[] = {
      {"RGB lossless, tiles of 128", &rgb, false, 128, 64, 64, {}, 0},
      {"RGB 9/7 at 20:1 and 6:1", &rgb, true, 0, 64, 64, {20, 6}, 0},
      {"RGB 9/7 at 12:1, blocks of 128x32, reduce 1", &rgb, true, 0, 128, 32, {12}, 1},
      {"RGB lossless, blocks of 1024x4", &rgb, false, 0, 1024, 4, {}, 0},
      {"12-bit grey lossless, blocks of 4x1024", &grey12, false, 0, 4, 1024, {}, 0},
      {"12-bit grey 9/7 at 8:1, blocks of 8x8, tiles of 64", &grey12, true, 64, 8, 8, {8}, 0},
  };
  std::mt19937 rng(46);
  int corrupt_warnings = 0;
  for (const Stream& k : streams) {
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    s.wavelet = k.irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
    s.tile_w = s.tile_h = k.tile;
    j2kfront::Coding c;
    c.modes = J2K_MODE_HT;
    c.block_w = k.block_w;
    c.block_h = k.block_h;
    c.rates = k.rates;
    const std::vector<uint8_t> bytes = j2kfront::Encoder(s, c, k.image->view()).encode(k.image->view());
    DecodeSettings d;
    d.reduce = k.reduce;
    expect_same(bytes, d, k.name);
    // Bytes flipped in the second half (packet data, mostly): decoded alike or refused alike.
    d.allow_partial = true;
    for (int trial = 0; trial < 6; ++trial) {
      std::vector<uint8_t> bad = bytes;
      for (int f = 0; f < 3; ++f) bad[bad.size() / 2 + rng() % (bad.size() / 2)] ^= static_cast<uint8_t>(1 + rng() % 255);
      for (const std::string& w : expect_same(bad, d, std::string(k.name) + ", flipped " + std::to_string(trial)))
        corrupt_warnings += w.find("HT code-blocks with inconsistent data") != std::string::npos;
    }
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(corrupt_warnings, 0) << "some flipped bytes should have made HT blocks inconsistent";
  // T.803's codestreams, where there.
  const fs::path dir = conformance_dir() + "/htj2k";
  int conformance = 0;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (e.path().extension() != ".j2k" || (name.rfind("ds0_ht_", 0) != 0 && name.rfind("ds0_hm_", 0) != 0)) continue;
      expect_same(file_bytes(e.path().string()), DecodeSettings{}, name);
      ++conformance;
    }
  std::printf("[ht-gpu] %d of T.803's HTJ2K codestreams compared too (%s)\n", conformance, dir.string().c_str());
}

// An OpenCL device whose largest buffer is small (the tuning's max_alloc makes any device
// one, PoCL's too): the tiles gathered into a launch stay within it (here two tiles of 64^2
// RGB, 48 KiB each, where the image's eight tiles would take 225 KiB); a tile alone whose planes
// together pass it (128 x 96 RGB, 144 KiB) is decoded in runs of planes that fit, a launch
// each; both as the CPU decodes, for both wavelets. A plane larger than the limit is a clear
// error.
TEST(DecoderOpenCL, StaysWithinTheDevicesLargestBuffer) {
#if !J2KFRONT_HAVE_OPENCL
  GTEST_SKIP() << "built without OpenCL";
#else
  std::string why;
  if (!j2k::backend_available(j2k::Backend::OpenCL, &why)) GTEST_SKIP() << "OpenCL: " << why;
  constexpr size_t kLimit = 100000;
  struct Case {
    uint32_t width, height, tile;
  };
  for (const Case& k : {Case{200, 96, 64}, Case{128, 96, 0}}) {
    const j2kfront::Image img = noisy_rgb(k.width, k.height);
    for (bool irreversible : {false, true}) {
      SCOPED_TRACE(std::string(irreversible ? "9/7" : "5/3") + ", " + std::to_string(k.width) + " x " +
                   std::to_string(k.height) + (k.tile ? " in tiles of " + std::to_string(k.tile) : " in one tile"));
      j2kfront::Settings s;
      s.backend = J2K_BACKEND_CPU;
      s.wavelet = irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
      s.tile_w = s.tile_h = k.tile;
      j2kfront::Coding c;
      if (irreversible) c.rates = {10};
      const std::vector<uint8_t> bytes = j2kfront::Encoder(s, c, img.view()).encode(img.view());
      DecodeSettings d;
      d.backend = j2k::BackendOptions(j2k::Backend::Cpu);
      const DecodedImage want = decode(bytes.data(), bytes.size(), d);
      d.backend = j2k::BackendOptions(j2k::Backend::OpenCL);
      d.backend.opencl_tuning = "max_alloc=" + std::to_string(kLimit);
      const DecodedImage got = decode(bytes.data(), bytes.size(), d);
      ASSERT_EQ(got.components.size(), 3u);
      for (size_t n = 0; n < 3; ++n) EXPECT_TRUE(got.components[n].bytes == want.components[n].bytes) << "component " << n;
    }
  }
  // 128 x 96 planes of 48 KiB against a limit of 40000 bytes.
  j2kfront::Image img;
  img.width = 128;
  img.height = 96;
  img.add_component(J2K_SAMPLE_U8, 8);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  const std::vector<uint8_t> bytes = j2kfront::Encoder(s, j2kfront::Coding{}, img.view()).encode(img.view());
  DecodeSettings d;
  d.backend = j2k::BackendOptions(j2k::Backend::OpenCL);
  d.backend.opencl_tuning = "max_alloc=40000";
  try {
    decode(bytes.data(), bytes.size(), d);
    ADD_FAILURE() << "a plane of 49152 bytes decoded on a device that allows 40000";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::OutOfMemory) << e.what();
    EXPECT_NE(std::string(e.what()).find("allows at most 40000"), std::string::npos) << e.what();
  }
#endif
}

}  // namespace

namespace {

// Auto's choice: CUDA only where the stream holds more than kAutoCudaBytesPerThread bytes a
// CPU thread, and only then is CUDA asked about.
int asked = 0;
bool cuda_there() { return ++asked, true; }
bool cuda_missing() { return ++asked, false; }

TEST(DecoderAuto, CudaWhereTheCpuWouldTakeLongerThanItsStartUp) {
  const uint64_t per = j2k::kAutoCudaBytesPerThread;
  asked = 0;
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::Decompress, per, 1, cuda_there), j2k::Backend::Cpu);
  EXPECT_EQ(asked, 0) << "a small stream does not start the CUDA driver to ask";
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::Decompress, per + 1, 1, cuda_there), j2k::Backend::Cuda);
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::Decompress, per + 1, 1, cuda_missing), j2k::Backend::Cpu);
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::Decompress, 2 * per, 2, cuda_there), j2k::Backend::Cpu);
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::Decompress, 16 * per + 1, 16, cuda_there), j2k::Backend::Cuda);
  EXPECT_EQ(asked, 3);
  // 0 threads: one per core.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::Decompress, cores * per, 0, cuda_there), j2k::Backend::Cpu);
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::Decompress, cores * per + 1, 0, cuda_there), j2k::Backend::Cuda);
}

// One image to compress: CUDA only where its input file holds more than
// kAutoCudaInputBytesPerThread bytes a CPU thread (and only then is CUDA asked about).
TEST(CompressAuto, CudaForLargeInputsOnly) {
  const uint64_t per = j2k::kAutoCudaInputBytesPerThread;
  asked = 0;
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::CompressOne, 16 * per, 16, cuda_there), j2k::Backend::Cpu);
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::CompressOne, 0, 16, cuda_there), j2k::Backend::Cpu);  // stdin: unknown
  EXPECT_EQ(asked, 0);
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::CompressOne, 16 * per + 1, 16, cuda_there), j2k::Backend::Cuda);
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::CompressOne, 16 * per + 1, 16, cuda_missing), j2k::Backend::Cpu);
  // A 4096^2 RGB PPM on 16 threads stays on the CPU, an 8192^2 one goes to the GPU.
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::CompressOne, 4096ull * 4096 * 3, 16, cuda_there), j2k::Backend::Cpu);
  EXPECT_EQ(resolve_backend(j2k::Backend::Auto, j2k::Job::CompressOne, 8192ull * 8192 * 3, 16, cuda_there), j2k::Backend::Cuda);
  EXPECT_EQ(resolve_backend(j2k::Backend::Cuda, j2k::Job::CompressOne, 0, 16, cuda_missing), j2k::Backend::Cuda);  // as asked
  EXPECT_EQ(resolve_backend(j2k::Backend::Cpu, j2k::Job::CompressOne, 8192ull * 8192 * 3, 16, cuda_there), j2k::Backend::Cpu);
}

}  // namespace
