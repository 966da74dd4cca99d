// SPDX-License-Identifier: BSD-2-Clause
// The decoder's row back stage (pipeline/row_back_stage: the finer DWT levels a band of rows at
// a time, one to five of them) against the whole-plane back stage on the CPU (pipeline/back_stage, which
// back_stage_test checks against OpenJPEG's arithmetic), bit for bit: random coefficients
// handed to each as the decoder's Tier-1 would write them, on odd sizes and origins, 1-pixel
// tall and wide tile-components, every code-block height from 4, both wavelets, with and
// without the MCT, 8- and 16-bit output, one to four and nine threads (nine: parts of 96 rows,
// not 32; two and four: a stripe's parts side by side; three and nine: column ranges side by
// side where the rect is wide enough), the rows in the homes or handed out.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "pipeline/back_stage.hpp"
#include "pipeline/row_back_stage.hpp"
#include "tiling/canvas.hpp"

namespace {

using j2k::BackStage;
using j2k::Rect;
using j2k::RowBackStage;

struct Case {
  Rect rect;
  int levels;
  bool reversible;
  int stripe;  // S: code-block rows on the band grid
  int comps;
  bool mct;
  j2k_sample_type type;
  int precision;
  int threads;
  int row_levels = 0;  // levels_by_rows (0: the stage's choice)
};

std::string describe(const Case& k) {
  return "rect [" + std::to_string(k.rect.x0) + "," + std::to_string(k.rect.x1) + ")x[" + std::to_string(k.rect.y0) + "," +
         std::to_string(k.rect.y1) + ") levels " + std::to_string(k.levels) + (k.reversible ? " 5/3" : " 9/7") + " S " +
         std::to_string(k.stripe) + " comps " + std::to_string(k.comps) + (k.mct ? " mct" : "") + " precision " +
         std::to_string(k.precision) + " threads " + std::to_string(k.threads) + " levels by rows " + std::to_string(k.row_levels);
}

size_t sample_size(j2k_sample_type t) { return t == J2K_SAMPLE_U8 || t == J2K_SAMPLE_I8 ? 1 : 2; }

// The components' geometry, range and homes in `out` (one plane each, packed rows).
std::vector<BackStage::Component> components(const Case& k, std::vector<std::vector<unsigned char>>& out) {
  std::vector<BackStage::Component> comps(static_cast<size_t>(k.comps));
  out.assign(comps.size(), {});
  const bool is_signed = k.type == J2K_SAMPLE_I8 || k.type == J2K_SAMPLE_I16;
  const auto size = static_cast<ptrdiff_t>(sample_size(k.type));
  for (size_t c = 0; c < comps.size(); ++c) {
    BackStage::Component& m = comps[c];
    m.rect = k.rect;
    m.levels = k.levels;
    m.reversible = k.reversible;
    m.window = k.rect;
    out[c].assign(static_cast<size_t>(k.rect.width() * k.rect.height() * size), 0xA5);
    m.home.base = out[c].data();
    m.home.type = k.type;
    m.home.pixel_stride = size;
    m.home.row_stride = size * k.rect.width();
    m.home.width = k.rect.width();
    m.home.height = k.rect.height();
    m.offset = is_signed ? 0 : int32_t{1} << (k.precision - 1);
    m.lo = is_signed ? -(int32_t{1} << (k.precision - 1)) : 0;
    m.hi = is_signed ? (int32_t{1} << (k.precision - 1)) - 1 : (int32_t{1} << k.precision) - 1;
  }
  return comps;
}

// Random coefficients in pyramid layout, one plane a component, raw 4-byte values (int32 or
// float): most within the samples' range, a few beyond it (clamped).
std::vector<std::vector<uint32_t>> coefficients(const Case& k, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t n = k.rect.width() * k.rect.height();
  const int32_t range = int32_t{1} << (k.precision - 1);
  std::uniform_int_distribution<int32_t> value(-range, range);
  std::vector<std::vector<uint32_t>> planes(static_cast<size_t>(k.comps), std::vector<uint32_t>(static_cast<size_t>(n)));
  for (auto& p : planes)
    for (uint32_t& v : p) {
      const int32_t x = value(rng) + (rng() % 64 == 0 ? 3 * range : 0);
      if (k.reversible) v = static_cast<uint32_t>(x);
      else {
        const float f = static_cast<float>(x) * 0.37f;
        std::memcpy(&v, &f, 4);
      }
    }
  return planes;
}

// `handed_out`: the row stage hands its rows to a RowsOut, which copies them into the homes.
void check(const Case& k, uint32_t seed, bool handed_out = false) {
  SCOPED_TRACE(describe(k) + (handed_out ? ", rows handed out" : ""));
  const std::vector<std::vector<uint32_t>> planes = coefficients(k, seed);
  const int64_t w = k.rect.width();

  std::vector<std::vector<unsigned char>> whole_out, rows_out;
  {
    const std::vector<BackStage::Component> comps = components(k, whole_out);
    BackStage stage(j2k::BackendOptions(j2k::Backend::Cpu, k.threads));
    const std::vector<void*>& buffers = stage.begin(comps, k.mct);
    for (size_t c = 0; c < comps.size(); ++c) std::memcpy(buffers[c], planes[c].data(), planes[c].size() * 4);
    stage.end();
    stage.finish();
  }
  const std::vector<BackStage::Component> comps = components(k, rows_out);
  ASSERT_TRUE(RowBackStage::fits(comps, k.stripe));
  RowBackStage::RowsOut hand_out;
  int64_t next_row = 0;
  if (handed_out)
    hand_out = [&](int64_t y, int64_t count, const std::vector<const uint8_t*>& data) {
      EXPECT_EQ(y, next_row) << "rows handed out out of order";
      next_row = y + count;
      for (size_t c = 0; c < rows_out.size(); ++c) {
        const size_t row = static_cast<size_t>(w) * sample_size(k.type);
        std::memcpy(rows_out[c].data() + static_cast<size_t>(y) * row, data[c], static_cast<size_t>(count) * row);
      }
    };
  RowBackStage rows(comps, k.mct, k.stripe, k.threads, hand_out, true, k.row_levels);
  const int depth = rows.row_levels();
  EXPECT_EQ(depth, RowBackStage::row_levels(comps, k.threads, k.row_levels));
  EXPECT_LE(depth, k.row_levels > 0 ? k.row_levels : RowBackStage::kDefaultRowLevels);
  // Level l's geometry (its rect the resolution l below the full one), as the decoder's band
  // records give it: in the whole plane's pyramid layout its HL band lies at rows [0, sn_y),
  // columns [sn_x, w); its LH at rows [sn_y, h), columns [0, sn_x); its HH beside that.
  struct Level {
    int64_t w, sn_x, sn_y, l_y0, l_y1, h_y0, h_y1;
  };
  auto level = [&](int l) {
    const Rect r = j2k::resolution_rect(k.rect, k.levels, k.levels - l);
    const int cas_x = static_cast<int>(r.x0 & 1), cas_y = static_cast<int>(r.y0 & 1);
    return Level{r.width(), (r.width() + (cas_x == 0 ? 1 : 0)) >> 1, (r.height() + (cas_y == 0 ? 1 : 0)) >> 1,
                 (r.y0 + 1) >> 1, (r.y1 + 1) >> 1, r.y0 >> 1, r.y1 >> 1};  // L rows, then H rows, on the band grid
  };
  // The coarse planes: the top-left corner of the pyramid, the resolution below the levels made
  // by rows.
  const Rect coarse = j2k::resolution_rect(k.rect, k.levels, k.levels - depth);
  for (size_t c = 0; c < comps.size(); ++c) {
    auto* plane = static_cast<uint32_t*>(rows.coarse(c));
    for (int64_t y = 0; y < coarse.height(); ++y)
      std::memcpy(plane + y * rows.coarse_stride(c), planes[c].data() + y * w, static_cast<size_t>(coarse.width()) * 4);
  }
  rows.finish_coarse();
  auto write_stripe = [&](int l, int64_t s) {
    const Level v = level(l);
    for (size_t c = 0; c < comps.size(); ++c) {
      const uint32_t* p = planes[c].data();
      for (int64_t by = s * k.stripe; by < (s + 1) * k.stripe; ++by) {
        if (by >= v.l_y0 && by < v.l_y1 && v.w > v.sn_x)
          std::memcpy(rows.band_row(l, c, 0, by), p + (by - v.l_y0) * w + v.sn_x, static_cast<size_t>(v.w - v.sn_x) * 4);
        if (by >= v.h_y0 && by < v.h_y1) {
          std::memcpy(rows.band_row(l, c, 1, by), p + (v.sn_y + by - v.h_y0) * w, static_cast<size_t>(v.sn_x) * 4);
          if (v.w > v.sn_x)
            std::memcpy(rows.band_row(l, c, 2, by), p + (v.sn_y + by - v.h_y0) * w + v.sn_x, static_cast<size_t>(v.w - v.sn_x) * 4);
        }
      }
    }
  };
  // The decode steps beside an emit step as the decoder takes them, in the emit's run (after
  // its parts, on other workers at the same time): a stripe written there over one the emit
  // reads shows in the samples.
  const std::vector<RowBackStage::Step>& steps = rows.steps();
  for (size_t s = 0; s < steps.size(); ++s) {
    const RowBackStage::Step& step = steps[s];
    if (!step.emit) {
      write_stripe(step.level, step.stripe);
      continue;
    }
    std::vector<RowBackStage::Step> beside;
    for (; s + 1 < steps.size() && steps[s + 1].beside; ++s) beside.push_back(steps[s + 1]);
    rows.emit(step.level, step.stripe, static_cast<ptrdiff_t>(beside.size()), [&](ptrdiff_t i, int) {
      write_stripe(beside[static_cast<size_t>(i)].level, beside[static_cast<size_t>(i)].stripe);
    });
  }
  for (size_t c = 0; c < comps.size(); ++c) {
    ASSERT_EQ(rows_out[c].size(), whole_out[c].size());
    size_t first = 0;
    while (first < rows_out[c].size() && rows_out[c][first] == whole_out[c][first]) ++first;
    EXPECT_EQ(first, rows_out[c].size()) << "component " << c << " differs first at byte " << first << " (row "
                                          << static_cast<int64_t>(first / sample_size(k.type)) / w << ")";
  }
}

TEST(RowBackStage, SameSamplesAsWholePlanes) {
  const Rect rects[] = {{0, 0, 37, 29}, {3, 5, 40, 66}, {1, 1, 2, 2}, {0, 7, 19, 8}, {2, 9, 3, 30},
                        {5, 0, 133, 97}, {0, 1, 64, 129}, {11, 13, 200, 40}, {4, 3, 9, 5}};
  uint32_t seed = 1;
  for (const Rect& r : rects)
    for (bool reversible : {true, false})
      for (int stripe : {4, 8, 16, 64})
        for (int levels : {1, 3, 5})
          for (int row_levels : {1, 2, 3, 5})
            if (row_levels <= levels) check(Case{r, levels, reversible, stripe, 1, false, J2K_SAMPLE_U8, 8, 1, row_levels}, seed++);
}

TEST(RowBackStage, SameSamplesWithTheMctAndWideSamples) {
  // {5, 2, 641, 70}: column ranges side by side on three and nine threads, the last one a
  // column wide (so are the 97-wide rect's stripes of 64 on three).
  const Rect rects[] = {{0, 0, 97, 131}, {1, 3, 70, 36}, {6, 1, 7, 50}, {5, 2, 641, 70}};
  uint32_t seed = 100;
  for (const Rect& r : rects)
    for (bool reversible : {true, false})
      for (int stripe : {4, 32, 64})
        for (int threads : {1, 2, 3, 4, 9}) {  // 2 and 4: a stripe's parts side by side (32 and 64)
          check(Case{r, 5, reversible, stripe, 3, true, J2K_SAMPLE_U8, 8, threads}, seed++);
          check(Case{r, 5, reversible, stripe, 3, true, J2K_SAMPLE_U8, 8, threads, 1}, seed++, true);
          check(Case{r, 2, reversible, stripe, 3, false, J2K_SAMPLE_U16, 16, threads}, seed++);
          check(Case{r, 4, reversible, stripe, 1, false, J2K_SAMPLE_I16, 12, threads, 3}, seed++, true);
        }
}

TEST(RowBackStage, MakesTheCoarserLevelsByRowsOnOneWorker) {
  std::vector<std::vector<unsigned char>> out;
  const std::vector<BackStage::Component> comps =
      components(Case{{0, 0, 300, 200}, 5, false, 32, 3, true, J2K_SAMPLE_U8, 8, 1}, out);
  EXPECT_EQ(RowBackStage::row_levels(comps, 1), RowBackStage::kDefaultRowLevels);
  EXPECT_EQ(RowBackStage::row_levels(comps, 4), 1);
  EXPECT_EQ(RowBackStage::row_levels(comps, 4, 5), 5);
  EXPECT_EQ(RowBackStage::row_levels(comps, 1, 9), 5);  // no more than the components' levels
  // On a large image fewer bytes than the finest level alone: resolution 1's plane, a quarter
  // of the coefficients, gives way to rings of rows (sizes only: bytes() allocates nothing).
  std::vector<BackStage::Component> large = comps;
  for (BackStage::Component& c : large) {
    c.rect = c.window = Rect{0, 0, 4000, 3000};
    c.home.width = c.rect.width();
    c.home.height = c.rect.height();
  }
  EXPECT_LT(RowBackStage::bytes(large, 64, 1), RowBackStage::bytes(large, 64, 1, false, 1) * 4 / 5);
  // [1, 2) x [0, 9): resolution 1 is empty (one column at an odd x), so only the finest level
  // goes by rows.
  const std::vector<BackStage::Component> narrow = components(Case{{1, 0, 2, 9}, 3, true, 4, 1, false, J2K_SAMPLE_U8, 8, 1}, out);
  EXPECT_EQ(RowBackStage::row_levels(narrow, 1, 3), 1);
}

TEST(RowBackStage, TakesOnlyWholeWindowsOfOneRect) {
  std::vector<std::vector<unsigned char>> out;
  std::vector<BackStage::Component> comps = components(Case{{0, 0, 16, 16}, 2, true, 8, 2, false, J2K_SAMPLE_U8, 8, 1}, out);
  EXPECT_TRUE(RowBackStage::fits(comps, 4));
  EXPECT_FALSE(RowBackStage::fits(comps, 2));  // a margin would reach two stripes away
  comps[1].window = Rect{0, 0, 8, 8};
  EXPECT_FALSE(RowBackStage::fits(comps, 8));
  comps[1].window = comps[1].rect;
  comps[1].levels = 0;
  EXPECT_FALSE(RowBackStage::fits(comps, 8));
}

}  // namespace
