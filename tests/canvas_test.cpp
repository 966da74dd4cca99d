// SPDX-License-Identifier: BSD-2-Clause
// Annex B geometry: hand-worked examples, and properties that hold for every rectangle
// (bands partition each resolution; the pyramid layout tiles the array exactly).
#include <gtest/gtest.h>

#include <random>

#include "tiling/canvas.hpp"
#include "common/error.hpp"

namespace {

using j2k::BandType;
using j2k::Rect;

j2k::CanvasSpec spec(int64_t ix0, int64_t iy0, int64_t ix1, int64_t iy1, int64_t tx0, int64_t ty0,
                     int64_t tw, int64_t th) {
  j2k::CanvasSpec s;
  s.image_x0 = ix0; s.image_y0 = iy0; s.image_x1 = ix1; s.image_y1 = iy1;
  s.tile_x0 = tx0; s.tile_y0 = ty0; s.tile_w = tw; s.tile_h = th;
  s.components = {{1, 1}, {2, 3}};
  return s;
}

// Worked by hand from (B-5)..(B-15): image x in [3,20), tiles of 8 from x = 1.
TEST(Canvas, HandWorkedTileGrid) {
  const j2k::Canvas c(spec(3, 0, 20, 10, 1, 0, 8, 4));
  EXPECT_EQ(c.tiles_x(), 3);  // ceil((20 - 1) / 8)
  EXPECT_EQ(c.tiles_y(), 3);  // ceil(10 / 4)
  EXPECT_EQ(c.tile(0), (Rect{3, 0, 9, 4}));    // clipped on the left by the image origin
  EXPECT_EQ(c.tile(1), (Rect{9, 0, 17, 4}));
  EXPECT_EQ(c.tile(2), (Rect{17, 0, 20, 4}));  // clipped on the right
  EXPECT_EQ(c.tile(8), (Rect{17, 8, 20, 10}));
  // Component 1 is subsampled 2 x 3: ceil(3/2)=2, ceil(9/2)=5, ceil(0/3)=0, ceil(4/3)=2.
  EXPECT_EQ(c.tile_component(0, 1), (Rect{2, 0, 5, 2}));
}

TEST(Canvas, HandWorkedTileRows) {
  // Image rows 5..22 on a grid of 8-high tiles from y = 2: rows of tiles at 2, 10, 18.
  const j2k::Canvas c(spec(3, 5, 20, 23, 1, 2, 8, 8));
  ASSERT_EQ(c.tiles_y(), 3);  // ceil((23 - 2) / 8)
  const j2k::TileRow first = c.tile_row(0), middle = c.tile_row(1), last = c.tile_row(2);
  EXPECT_EQ(first.y0, 5);  // clipped by the image origin
  EXPECT_EQ(first.y1, 10);
  EXPECT_EQ(first.top, 2);
  EXPECT_EQ(first.first_tile, 0);
  EXPECT_EQ(middle.y0, 10);
  EXPECT_EQ(middle.y1, 18);
  EXPECT_EQ(middle.top, 10);
  EXPECT_EQ(middle.first_tile, 3);  // 3 tiles a row: ceil((20 - 1) / 8)
  EXPECT_EQ(last.y0, 18);
  EXPECT_EQ(last.y1, 23);  // clipped by the image's end
  EXPECT_EQ(last.top, 18);
  EXPECT_EQ(last.first_tile, 6);
  EXPECT_THROW(c.tile_row(3), j2k::Error);
  EXPECT_THROW(c.tile_row(-1), j2k::Error);
}

TEST(Canvas, HandWorkedBands) {
  const Rect tc{2, 0, 5, 2};
  EXPECT_EQ(j2k::band_rect(tc, 1, BandType::HL), (Rect{1, 0, 2, 1}));  // ceil((2-1)/2), ceil((5-1)/2)
  EXPECT_EQ(j2k::band_rect(tc, 1, BandType::LL), (Rect{1, 0, 3, 1}));
  EXPECT_EQ(j2k::band_rect(tc, 1, BandType::LH), (Rect{1, 0, 3, 1}));  // ceil((0-1)/2) = 0
  EXPECT_EQ(j2k::resolution_rect(tc, 2, 0), (Rect{1, 0, 2, 1}));       // ceil(2/4)=1, ceil(5/4)=2
  // Origins near 2^31 stay exact.
  const int64_t big = (int64_t{1} << 31) - 1;
  EXPECT_EQ(j2k::resolution_rect(Rect{big, big, big + 5, big + 1}, 3, 0),
            (Rect{int64_t{1} << 28, int64_t{1} << 28, (big + 5 + 7) / 8, (big + 1 + 7) / 8}));
}

TEST(Canvas, RejectsInvalidSpecs) {
  EXPECT_THROW(j2k::Canvas(spec(5, 5, 10, 10, 6, 0, 4, 4)), j2k::Error);  // tile origin > image origin
  EXPECT_THROW(j2k::Canvas(spec(5, 5, 10, 10, 0, 0, 4, 4)), j2k::Error);  // first tile misses image
  EXPECT_THROW(j2k::Canvas(spec(5, 5, 5, 10, 0, 0, 8, 8)), j2k::Error);   // empty image
  EXPECT_THROW(j2k::Canvas(spec(0, 0, 10, 10, 0, 0, 0, 8)), j2k::Error);  // zero tile size
  auto s = spec(0, 0, 10, 10, 0, 0, 8, 8);
  s.components[1].dx = 0;
  EXPECT_THROW(j2k::Canvas{s}, j2k::Error);
  const j2k::Canvas c(spec(0, 0, 10, 10, 0, 0, 8, 8));
  EXPECT_THROW(c.tile(4), j2k::Error);
  EXPECT_THROW(c.tile_component(0, 2), j2k::Error);
}

// For random tile-components: at each level, LL(nb-1 res) + HL widths = resolution width etc.,
// and the band layout covers the coefficient array exactly once.
TEST(Canvas, BandsPartitionResolutionsAndLayoutTilesTheArray) {
  std::mt19937 rng(9);
  std::uniform_int_distribution<int64_t> origin(0, 1 << 20), size(1, 70);
  std::uniform_int_distribution<int> lv(0, 12);
  for (int k = 0; k < 3000; ++k) {
    const int64_t x0 = origin(rng), y0 = origin(rng);
    const Rect tc{x0, y0, x0 + size(rng), y0 + size(rng)};
    const int levels = lv(rng);
    for (int nb = 1; nb <= levels; ++nb) {
      const Rect res = j2k::resolution_rect(tc, levels, levels - nb + 1);
      const Rect low = j2k::resolution_rect(tc, levels, levels - nb);
      ASSERT_EQ(low.width() + j2k::band_rect(tc, nb, BandType::HL).width(), res.width());
      ASSERT_EQ(low.height() + j2k::band_rect(tc, nb, BandType::LH).height(), res.height());
      ASSERT_EQ(j2k::band_rect(tc, nb, BandType::HH).width(), j2k::band_rect(tc, nb, BandType::HL).width());
    }
    std::vector<int> cover(static_cast<size_t>(tc.width() * tc.height()), 0);
    for (const j2k::BandInfo& b : j2k::band_layout(tc, levels))
      for (int64_t r = 0; r < b.rect.height(); ++r)
        for (int64_t c = 0; c < b.rect.width(); ++c) {
          ASSERT_LT(b.row + r, tc.height());
          ASSERT_LT(b.col + c, tc.width());
          ++cover[static_cast<size_t>((b.row + r) * tc.width() + b.col + c)];
        }
    for (int n : cover) ASSERT_EQ(n, 1);
  }
}

}  // namespace
