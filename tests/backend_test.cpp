// SPDX-License-Identifier: BSD-2-Clause
// One test source for every DWT backend: each backend's forward and inverse, both wavelets,
// against the CPU reference (itself checked against OpenJPEG by conformance/), bit for bit.
// A backend that is not built or has no device skips with the reason; the CPU backend is
// checked for thread-count independence (1 thread against the default).
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <random>
#include <sstream>

#include "transform/dwt.hpp"
#include "common/error.hpp"

namespace j2k {
// gtest prints the parameter in test listings (and so in CTest's names): show its name.
inline void PrintTo(Backend b, std::ostream* os) { *os << backend_name(b); }
}  // namespace j2k

namespace {

using j2k::Backend;
using j2k::Rect;
using j2k::Wavelet;

struct Geometry {
  Rect tc;
  int levels;
};

std::string describe(Wavelet w, const Geometry& g) {
  std::ostringstream s;
  s << (w == Wavelet::Reversible53 ? "5/3" : "9/7") << " tc=[" << g.tc.x0 << "," << g.tc.x1 << ")x["
    << g.tc.y0 << "," << g.tc.y1 << ") levels=" << g.levels;
  return s.str();
}

// The geometry families of the conformance suite. `dense` = every size and level; otherwise
// a deterministic thinning for slow backends (PoCL on 2 CPU cores in CI).
std::vector<Geometry> small_geometries(bool dense) {
  std::vector<Geometry> out;
  const int64_t origins[][2] = {{0, 0}, {1, 1}, {2, 5}, {7, 2}};
  for (const auto& o : origins)
    for (int64_t h = 1; h <= 33; ++h)
      for (int64_t w = 1; w <= 33; ++w)
        for (int levels = 0; levels <= 12; ++levels) {
          if (!dense && (w * 31 + h * 17 + levels * 7 + o[0]) % 5 != 0) continue;
          out.push_back({Rect{o[0], o[1], o[0] + w, o[1] + h}, levels});
        }
  return out;
}

std::vector<Geometry> strip_geometries(bool dense) {
  std::vector<Geometry> out;
  for (int64_t n = 1; n <= 700; n += dense ? 1 : 7)
    for (int64_t origin : {int64_t{0}, int64_t{1}, int64_t{13}})
      for (int levels : {0, 1, 3, 5, 12}) {
        out.push_back({Rect{origin, 3, origin + n, 4}, levels});
        out.push_back({Rect{5, origin, 6, origin + n}, levels});
      }
  return out;
}

std::vector<Geometry> large_geometries(bool gpu) {
  std::vector<Geometry> out = {
      {{0, 0, 512, 512}, 5},        {{3, 1, 603, 401}, 6},      {{1, 0, 1001, 872}, 5},
      {{(int64_t{1} << 31) - 3000, 65537, (int64_t{1} << 31) - 3000 + 1999, 65537 + 1031}, 7},
      {{17, 33, 17 + 2049, 33 + 61}, 12}, {{0, 0, 4096, 3}, 5},   {{5, 0, 6, 4099}, 3},
  };
  if (gpu) {  // sizes where GPU block and grid boundaries fall in every possible place
    out.push_back({{0, 0, 4096, 4096}, 5});
    out.push_back({{1, 3, 1 + 8191, 3 + 4097}, 6});
    out.push_back({{0, 0, 16384, 16384}, 5});
  }
  return out;
}

class BackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    std::string why;
    if (!j2k::backend_available(GetParam(), &why))
      GTEST_SKIP() << j2k::backend_name(GetParam()) << " backend unavailable: " << why;
    if (GetParam() == Backend::Cpu) {
      // Thread-count independence: one thread is the oracle for the default count.
      reference_ = std::make_unique<j2k::Dwt>(j2k::BackendOptions{Backend::Cpu, 1, -1});
      subject_ = std::make_unique<j2k::Dwt>(j2k::BackendOptions{Backend::Cpu, 0, -1});
    } else {
      reference_ = std::make_unique<j2k::Dwt>(j2k::BackendOptions{Backend::Cpu, 0, -1});
      subject_ = std::make_unique<j2k::Dwt>(j2k::BackendOptions{GetParam(), 0, -1});
    }
    std::cout << "[backend] testing " << subject_->description() << " against "
              << reference_->description() << "\n";
  }

  bool dense() const { return GetParam() != Backend::OpenCL; }
  bool gpu() const { return GetParam() == Backend::Cuda || GetParam() == Backend::OpenCL; }

  // Forward and inverse of one geometry; returns the number of differing words.
  long check(Wavelet w, const Geometry& g) {
    const auto n = static_cast<size_t>(g.tc.width() * g.tc.height());
    const auto stride = static_cast<size_t>(g.tc.width());
    std::uniform_int_distribution<int32_t> sample(-32768, 32767);
    long diff = 0;
    if (w == Wavelet::Reversible53) {
      std::vector<int32_t> a(n), b;
      for (auto& v : a) v = sample(rng_);
      b = a;
      reference_->forward53(a.data(), stride, g.tc, g.levels);
      subject_->forward53(b.data(), stride, g.tc, g.levels);
      diff += count_diff(a, b);
      for (auto& v : a) v = sample(rng_);  // inverse on arbitrary coefficients
      b = a;
      reference_->inverse53(a.data(), stride, g.tc, g.levels);
      subject_->inverse53(b.data(), stride, g.tc, g.levels);
      diff += count_diff(a, b);
    } else {
      std::vector<float> a(n), b;
      for (auto& v : a) v = static_cast<float>(sample(rng_)) * 0.75f;
      b = a;
      reference_->forward97(a.data(), stride, g.tc, g.levels);
      subject_->forward97(b.data(), stride, g.tc, g.levels);
      diff += count_diff(a, b);
      b = a;
      reference_->inverse97(a.data(), stride, g.tc, g.levels);
      subject_->inverse97(b.data(), stride, g.tc, g.levels);
      diff += count_diff(a, b);
    }
    return diff;
  }

  void run_family(const std::string& family, const std::vector<Geometry>& geometries) {
    long cases = 0, mismatched_cases = 0;
    std::string first;
    for (Wavelet w : {Wavelet::Reversible53, Wavelet::Irreversible97})
      for (const Geometry& g : geometries) {
        ++cases;
        if (long d = check(w, g)) {
          if (mismatched_cases++ == 0) first = describe(w, g) + ": " + std::to_string(d) + " words differ";
        }
      }
    std::cout << "[backend] " << j2k::backend_name(GetParam()) << " " << family << ": " << cases
              << " cases (forward + inverse), " << mismatched_cases << " mismatching\n";
    EXPECT_EQ(mismatched_cases, 0) << "first: " << first;
  }

  template <class T>
  static long count_diff(const std::vector<T>& a, const std::vector<T>& b) {
    long n = 0;
    for (size_t i = 0; i < a.size(); ++i) n += std::memcmp(&a[i], &b[i], sizeof(T)) != 0;
    return n;
  }

  std::unique_ptr<j2k::Dwt> reference_, subject_;
  std::mt19937 rng_{42};
};

TEST_P(BackendTest, SmallSizesOriginsLevels) { run_family("sizes 1..33, 4 origins, levels 0..12", small_geometries(dense())); }
TEST_P(BackendTest, Strips) { run_family("1xN and Nx1 strips up to 700", strip_geometries(dense())); }
TEST_P(BackendTest, LargeTiles) { run_family("large tile-components", large_geometries(gpu())); }

// A buffer with a stride larger than the width: the padding must be left untouched.
TEST_P(BackendTest, StrideLargerThanWidthLeavesPaddingAlone) {
  const Rect tc{3, 2, 3 + 37, 2 + 29};
  const size_t stride = 45;
  std::vector<int32_t> a(stride * 29), b;
  std::mt19937 rng(1);
  for (auto& v : a) v = static_cast<int32_t>(rng() % 512) - 256;
  b = a;
  reference_->forward53(a.data(), stride, tc, 3);
  subject_->forward53(b.data(), stride, tc, 3);
  EXPECT_EQ(a, b);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, BackendTest,
                         ::testing::Values(Backend::Cpu, Backend::Cuda, Backend::OpenCL),
                         [](const auto& info) { return std::string(j2k::backend_name(info.param)); });

}  // namespace
