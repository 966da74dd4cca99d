// SPDX-License-Identifier: BSD-2-Clause
// The decoder's back stage (pipeline/back_stage) on every backend against an oracle built from
// the CPU reference pieces that the conformance suite checks against OpenJPEG: the inverse
// DWT (cpu::inverse53, cpu::inverse97 with OpenJPEG's scaling), rct_inverse / ict_inverse,
// and the DC shift and clamp written out here. Tiles of odd sizes and origins, 1-pixel rows
// and columns, more levels than the size allows, both wavelets, with and without the MCT,
// every output type, windows (regions) inside the tile, extreme and non-finite values; many
// tiles in a row, so that a GPU's two buffer sets take turns and its buffers grow.
// Bit for bit. A backend that is not built or has no device skips with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "common/error.hpp"
#include "common/sample_type.hpp"
#include "pipeline/back_stage.hpp"
#include "transform/cpu/component_transform.hpp"
#include "transform/cpu/dwt_cpu.hpp"
#include "transform/dwt_engine.hpp"

namespace j2k {
inline void PrintTo(Backend b, std::ostream* os) { *os << backend_name(b); }
}  // namespace j2k

namespace {

using j2k::Backend;
using j2k::BackStage;
using j2k::Rect;

// One tile-component to test: geometry, wavelet, output type and window.
struct Case {
  Rect rect;
  int levels;
  bool reversible;
  j2k_sample_type type;
  int precision;
  Rect window;  // inside rect, or empty
};

struct Tile {
  std::vector<Case> comps;
  bool mct = false;
};

bool is_signed(j2k_sample_type t) { return t == J2K_SAMPLE_I8 || t == J2K_SAMPLE_I16 || t == J2K_SAMPLE_I32; }

// The oracle's sample: as OpenJPEG's decoder (opj_tcd_dc_level_shift_decode).
int32_t expected_sample(double v, bool reversible, int32_t offset, int32_t lo, int32_t hi) {
  if (reversible) return static_cast<int32_t>(std::clamp<int64_t>(static_cast<int64_t>(v) + offset, lo, hi));
  const auto f = static_cast<float>(v);
  if (std::isnan(f) || f > static_cast<float>(INT_MAX)) return hi;
  if (f < static_cast<float>(INT_MIN)) return lo;
  return static_cast<int32_t>(std::clamp<int64_t>(static_cast<int64_t>(std::lrintf(f)) + offset, lo, hi));
}

class BackStageTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    std::string why;
    if (!j2k::backend_available(GetParam(), &why))
      GTEST_SKIP() << j2k::backend_name(GetParam()) << " backend unavailable: " << why;
  }

  // Random coefficients for a component: mostly within a few thousand, some far beyond the
  // range (the clamp), for the 9/7 some exact halves (ties) and, when `wild`, infinities and NaN
  // and 5/3 coefficients at the ends of int32, whose sums wrap (as a corrupt stream's can).
  void fill(std::vector<int32_t>& ints, std::vector<float>& floats, const Case& c, bool wild) {
    const auto n = static_cast<size_t>(c.rect.width() * c.rect.height());
    std::uniform_int_distribution<int32_t> small(-4000, 4000), pick(0, 99);
    ints.assign(n, 0);
    floats.assign(n, 0.0f);
    for (size_t i = 0; i < n; ++i) {
      const int p = pick(rng_);
      if (c.reversible) {
        const int32_t near_end = small(rng_) & 0xFF;
        const bool ends = wild && p == 3;
        ints[i] = p < 3 ? small(rng_) * 1000 : ends ? (near_end & 1 ? INT32_MAX - near_end : INT32_MIN + near_end) : small(rng_);
      } else if (p < 10) {
        floats[i] = static_cast<float>(small(rng_)) + 0.5f;
      } else if (p < 12) {
        floats[i] = static_cast<float>(small(rng_)) * 1.0e6f;
      } else if (wild && p == 12) {
        const float odd[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                             std::numeric_limits<float>::quiet_NaN(), 3.0e9f, -3.0e9f};
        floats[i] = odd[small(rng_) & 3];
      } else {
        floats[i] = static_cast<float>(small(rng_)) * 0.37f;
      }
    }
  }

  // Runs `tiles` through one BackStage; returns the number of differing samples (and
  // describes the first).
  long run(const std::vector<Tile>& tiles, bool wild, std::string& first) {
    j2k::BackendOptions options;
    options.backend = GetParam();
    options.threads = 0;
    BackStage stage(options);
    struct Out {
      std::vector<unsigned char> got, want;
      j2k_sample_type type;
    };
    std::vector<std::vector<Out>> outs(tiles.size());
    for (size_t t = 0; t < tiles.size(); ++t) {
      const Tile& tile = tiles[t];
      const size_t n = tile.comps.size();
      std::vector<std::vector<int32_t>> ints(n);
      std::vector<std::vector<float>> floats(n);
      std::vector<BackStage::Component> comps(n);
      outs[t].resize(n);
      for (size_t c = 0; c < n; ++c) {
        const Case& k = tile.comps[c];
        fill(ints[c], floats[c], k, wild);
        BackStage::Component& b = comps[c];
        b.rect = k.rect;
        b.levels = k.levels;
        b.reversible = k.reversible;
        b.window = k.window;
        const bool sgn = is_signed(k.type);
        b.offset = sgn ? 0 : int32_t{1} << (k.precision - 1);
        b.lo = sgn ? -(int32_t{1} << (k.precision - 1)) : 0;
        b.hi = static_cast<int32_t>(sgn ? (int64_t{1} << (k.precision - 1)) - 1 : (int64_t{1} << k.precision) - 1);
        Out& o = outs[t][c];
        o.type = k.type;
        const size_t size = j2k_sample_size(k.type);
        // The window's samples in a larger image: a row stride of its own and a margin that
        // must stay untouched (0xA5).
        const int64_t stride = k.window.width() + 3;
        o.got.assign(static_cast<size_t>(stride * (k.window.height() + 2)) * size, 0xA5);
        b.home.base = o.got.data();
        b.home.offset = static_cast<size_t>(stride + 1) * size;
        b.home.type = k.type;
        b.home.pixel_stride = static_cast<ptrdiff_t>(size);
        b.home.row_stride = static_cast<ptrdiff_t>(stride * static_cast<int64_t>(size));
        b.home.width = k.window.width();
        b.home.height = k.window.height();
        b.home.memory = J2K_MEMORY_HOST;
      }
      const std::vector<void*>& buffers = stage.begin(comps, tile.mct);
      for (size_t c = 0; c < n; ++c) {
        const size_t bytes = static_cast<size_t>(tile.comps[c].rect.width() * tile.comps[c].rect.height()) * 4;
        if (bytes == 0) continue;
        std::memcpy(buffers[c], tile.comps[c].reversible ? static_cast<const void*>(ints[c].data()) : floats[c].data(), bytes);
      }
      stage.end();
      expect(tile, comps, ints, floats, outs[t]);
    }
    stage.finish();
    long diff = 0;
    for (size_t t = 0; t < tiles.size(); ++t)
      for (size_t c = 0; c < outs[t].size(); ++c)
        if (outs[t][c].got != outs[t][c].want) {
          const Out& o = outs[t][c];
          long d = 0;
          size_t at = 0;
          for (size_t i = 0; i < o.got.size(); ++i)
            if (o.got[i] != o.want[i] && d++ == 0) at = i;
          if (diff == 0) {
            const Case& k = tiles[t].comps[c];
            std::ostringstream s;
            s << "tile " << t << " component " << c << " (" << (k.reversible ? "5/3" : "9/7") << ", rect ["
              << k.rect.x0 << "," << k.rect.x1 << ")x[" << k.rect.y0 << "," << k.rect.y1 << "), " << k.levels
              << " levels, " << j2k::sample_type_name(k.type) << ", mct " << tiles[t].mct << "): " << d
              << " bytes differ, the first at byte " << at << " (got " << int(o.got[at]) << ", want " << int(o.want[at])
              << ")";
            first = s.str();
          }
          diff += d;
        }
    return diff;
  }

  // The oracle: the CPU reference pieces, one after the other, into the same layout.
  template <class Outs>
  static void expect(const Tile& tile, const std::vector<BackStage::Component>& comps,
                     std::vector<std::vector<int32_t>> ints, std::vector<std::vector<float>> floats, Outs& outs) {
    const size_t n = comps.size();
    for (size_t c = 0; c < n; ++c) {
      const BackStage::Component& k = comps[c];
      if (k.rect.empty()) continue;
      const auto stride = static_cast<size_t>(k.rect.width());
      if (k.reversible) j2k::cpu::inverse53(ints[c].data(), stride, k.rect, k.levels, 1);
      else j2k::cpu::inverse97(floats[c].data(), stride, k.rect, k.levels, 1, j2k::cpu::kInverse97OpenJpeg);
    }
    if (tile.mct && n >= 3) {
      const auto count = static_cast<size_t>(comps[0].rect.width() * comps[0].rect.height());
      if (comps[0].reversible) j2k::rct_inverse(ints[0].data(), ints[1].data(), ints[2].data(), count);
      else j2k::ict_inverse(floats[0].data(), floats[1].data(), floats[2].data(), count);
    }
    for (size_t c = 0; c < n; ++c) {
      const BackStage::Component& k = comps[c];
      auto& o = outs[c];
      o.want = o.got;  // the margin as it was
      const size_t size = j2k_sample_size(o.type);
      for (int64_t y = 0; y < k.window.height(); ++y)
        for (int64_t x = 0; x < k.window.width(); ++x) {
          const auto i = static_cast<size_t>((y + k.window.y0 - k.rect.y0) * k.rect.width() + (x + k.window.x0 - k.rect.x0));
          const double v = k.reversible ? ints[c][i] : floats[c][i];
          const int32_t s = expected_sample(v, k.reversible, k.offset, k.lo, k.hi);
          unsigned char* at = o.want.data() + k.home.offset + static_cast<size_t>(y * k.home.row_stride) + static_cast<size_t>(x) * size;
          if (size == 1) {
            *at = static_cast<unsigned char>(s);
          } else if (size == 2) {
            const auto u = static_cast<uint16_t>(s);
            std::memcpy(at, &u, 2);
          } else {
            std::memcpy(at, &s, 4);
          }
        }
    }
  }

  std::mt19937 rng_{7};
};

j2k_sample_type type_for(int i) {
  const j2k_sample_type types[] = {J2K_SAMPLE_U8, J2K_SAMPLE_I8, J2K_SAMPLE_U16, J2K_SAMPLE_I16, J2K_SAMPLE_U32, J2K_SAMPLE_I32};
  return types[i % 6];
}

// A window of r: all of it, a part, or nothing.
Rect window_in(const Rect& r, int how) {
  if (how == 0 || r.empty()) return r;
  if (how == 2) return Rect{};
  return Rect{r.x0 + r.width() / 3, r.y0 + r.height() / 4, r.x1 - r.width() / 5, r.y1 - r.height() / 6};
}

std::vector<Tile> small_tiles() {
  std::vector<Tile> tiles;
  const int64_t sizes[][2] = {{1, 1}, {1, 17}, {23, 1}, {2, 2}, {3, 5}, {17, 13}, {33, 31}, {64, 64}, {65, 3}, {7, 129}};
  const int64_t origins[][2] = {{0, 0}, {1, 1}, {3, 2}, {6, 7}};
  int i = 0;
  for (const auto& s : sizes)
    for (const auto& o : origins) {
      ++i;
      Tile t;
      const Rect r{o[0], o[1], o[0] + s[0], o[1] + s[1]};
      const int levels = i % 9;  // up to 8: more than a small tile allows
      const bool rev = i % 2 == 0;
      t.mct = i % 3 != 0;
      const j2k_sample_type type = type_for(i / 2);
      const size_t size = j2k_sample_size(type);
      const int precision = size == 1 ? 5 + i % 4 : size == 2 ? 9 + i % 8 : 17 + i % 15;  // 32-bit: 17..31
      for (int c = 0; c < 3; ++c) t.comps.push_back({r, levels, rev, type, precision, window_in(r, i % 4 == 1 ? 1 : 0)});
      // A fourth component of its own wavelet, size, type and window.
      const Rect r4{o[1], o[0], o[1] + s[1], o[0] + s[0]};
      t.comps.push_back({r4, levels / 2, !rev, type_for(i / 2 + 1), 8, window_in(r4, i % 5 == 2 ? 2 : 1)});
      tiles.push_back(t);
    }
  return tiles;
}

TEST_P(BackStageTest, SmallTilesEveryShapeWaveletTypeAndWindow) {
  std::string first;
  EXPECT_EQ(run(small_tiles(), false, first), 0) << first;
}

TEST_P(BackStageTest, InfinitiesNaNAndValuesBeyondInt32Clamp) {
  std::string first;
  EXPECT_EQ(run(small_tiles(), true, first), 0) << first;
}

// Components 0..2 of an MCT tile at different precisions (and so sample widths).
TEST_P(BackStageTest, MctComponentsOfDifferentPrecisions) {
  Tile t;
  t.mct = true;
  const Rect r{5, 3, 5 + 77, 3 + 41};
  t.comps = {{r, 3, true, J2K_SAMPLE_U8, 8, r}, {r, 3, true, J2K_SAMPLE_U16, 12, r}, {r, 3, true, J2K_SAMPLE_I16, 10, r}};
  Tile u = t;
  for (Case& c : u.comps) c.reversible = false;
  std::string first;
  EXPECT_EQ(run({t, u, t}, false, first), 0) << first;
}

// Tiles large enough to cross GPU block and grid boundaries everywhere, growing and shrinking.
TEST_P(BackStageTest, LargeTiles) {
  std::vector<Tile> tiles;
  const int64_t sizes[][2] = {{1001, 517}, {256, 256}, {2048, 1531}, {37, 2000}};
  int i = 0;
  for (const auto& s : sizes) {
    ++i;
    Tile t;
    t.mct = true;
    const Rect r{i * 3, i, i * 3 + s[0], i + s[1]};
    for (int c = 0; c < 3; ++c) t.comps.push_back({r, 5, i % 2 == 0, J2K_SAMPLE_U8, 8, window_in(r, i == 3 ? 1 : 0)});
    tiles.push_back(t);
    Tile g;  // one 16-bit grey component, the other wavelet
    g.comps.push_back({r, 6, i % 2 != 0, J2K_SAMPLE_U16, 16, r});
    tiles.push_back(g);
  }
  std::string first;
  EXPECT_EQ(run(tiles, false, first), 0) << first;
}

TEST_P(BackStageTest, BeginTwiceIsAnInternalError) {
  j2k::BackendOptions options;
  options.backend = GetParam();
  BackStage stage(options);
  std::vector<BackStage::Component> none;
  stage.begin(none, false);
  EXPECT_THROW(stage.begin(none, false), j2k::Error);
  stage.end();
  stage.finish();
}

// CUDA's queue starts on a thread of its own: where it cannot start, that is named at the
// first tile (by begin() or end(), whichever comes after the attempt) and at every tile after,
// and the stage still goes cleanly. Runs where CUDA is missing (CI), skips where it is there.
// (OpenCL's queue starts in the constructor, which throws as before.)
TEST(BackStageStart, AMissingCudaIsNamedAtEveryTile) {
  std::string why;
  if (j2k::backend_available(Backend::Cuda, &why)) GTEST_SKIP() << "CUDA is available here: nothing fails to start";
  j2k::BackendOptions options;
  options.backend = Backend::Cuda;
  BackStage stage(options);  // does not wait for the start
  const Rect r{0, 0, 16, 8};
  std::vector<int32_t> home(16 * 8);
  BackStage::Component c;
  c.rect = r;
  c.levels = 2;
  c.window = r;
  c.home.base = home.data();
  c.home.type = J2K_SAMPLE_I32;
  c.home.pixel_stride = 4;
  c.home.row_stride = 4 * 16;
  c.home.width = 16;
  c.home.height = 8;
  c.hi = 255;
  for (int tile = 0; tile < 2; ++tile) {
    try {
      void* coefficients = stage.begin({c}, false)[0];
      std::memset(coefficients, 0, 16 * 8 * 4);  // the stage's own host memory while it starts
      stage.end();
      ADD_FAILURE() << "tile " << tile << " ran on a backend that is not there";
    } catch (const j2k::Error& e) {
      EXPECT_EQ(e.code(), j2k::ErrorCode::BackendUnavailable) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what() << " does not say: " << why;
    }
    stage.cancel();
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, BackStageTest, ::testing::Values(Backend::Cpu, Backend::Cuda, Backend::OpenCL),
                         [](const auto& p) { return std::string(j2k::backend_name(p.param)); });

}  // namespace
