// SPDX-License-Identifier: BSD-2-Clause
// The encoder's row front stage (pipeline/row_front_stage: the finest DWT level a band of rows
// at a time) against the CPU queue's whole-plane front stage (shift_mct, then the forward DWT
// of every level in place), bit for bit: random samples on odd sizes and origins, 1-pixel
// tall and wide tile-components, code-block heights from 4, both wavelets, with and without
// the MCT, 8-, 12- and 16-bit samples, signed and unsigned, one and three threads.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "pipeline/row_front_stage.hpp"
#include "transform/queue.hpp"

namespace {

using j2k::Plane;
using j2k::Rect;
using j2k::RowFrontStage;

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
};

std::string describe(const Case& k) {
  return "rect [" + std::to_string(k.rect.x0) + "," + std::to_string(k.rect.x1) + ")x[" + std::to_string(k.rect.y0) + "," +
         std::to_string(k.rect.y1) + ") levels " + std::to_string(k.levels) + (k.reversible ? " 5/3" : " 9/7") + " S " +
         std::to_string(k.stripe) + " comps " + std::to_string(k.comps) + (k.mct ? " mct" : "") + " precision " +
         std::to_string(k.precision) + " threads " + std::to_string(k.threads);
}

bool is_signed(j2k_sample_type t) { return t == J2K_SAMPLE_I8 || t == J2K_SAMPLE_I16; }
size_t sample_size(j2k_sample_type t) { return t == J2K_SAMPLE_U8 || t == J2K_SAMPLE_I8 ? 1 : 2; }

// Random samples of the case's type and precision, one packed plane a component, as the
// queue's TileSamples (the planes' bytes in `bytes`).
j2k::TileSamples samples(const Case& k, uint32_t seed, std::vector<std::vector<unsigned char>>& bytes) {
  std::mt19937 rng(seed);
  const int64_t w = k.rect.width(), h = k.rect.height();
  const auto size = static_cast<ptrdiff_t>(sample_size(k.type));
  const bool sign = is_signed(k.type);
  const int64_t lo = sign ? -(int64_t{1} << (k.precision - 1)) : 0;
  const int64_t hi = sign ? (int64_t{1} << (k.precision - 1)) - 1 : (int64_t{1} << k.precision) - 1;
  std::uniform_int_distribution<int64_t> value(lo, hi);
  j2k::TileSamples t;
  bytes.assign(static_cast<size_t>(k.comps), std::vector<unsigned char>(static_cast<size_t>(w * h * size)));
  for (size_t c = 0; c < bytes.size(); ++c) {
    for (int64_t i = 0; i < w * h; ++i) {
      const int64_t v = value(rng);
      if (size == 1) bytes[c][static_cast<size_t>(i)] = static_cast<unsigned char>(v);
      else {
        const auto s = static_cast<uint16_t>(v);
        std::memcpy(&bytes[c][static_cast<size_t>(2 * i)], &s, 2);
      }
    }
    Plane p;
    p.base = bytes[c].data();
    p.type = k.type;
    p.pixel_stride = size;
    p.row_stride = size * w;
    p.width = w;
    p.height = h;
    t.in.push_back(p);
    t.offset.push_back(sign ? 0 : int32_t{1} << (k.precision - 1));
    t.lo.push_back(lo);
    t.hi.push_back(hi);
  }
  t.fused.assign(bytes.size(), 0);
  t.mct = k.mct;
  return t;
}

// The whole-plane path: the CPU queue's shift_mct and DWT, each component's coefficients in
// pyramid layout, raw 4-byte values.
std::vector<std::vector<uint32_t>> whole_planes(const Case& k, const j2k::TileSamples& t) {
  const int64_t w = k.rect.width(), h = k.rect.height();
  const j2k::Wavelet wavelet = k.reversible ? j2k::Wavelet::Reversible53 : j2k::Wavelet::Irreversible97;
  std::unique_ptr<j2k::Queue> q = j2k::make_cpu_queue(j2k::BackendOptions(j2k::Backend::Cpu, k.threads));
  j2k::QueueNeeds needs;
  needs.components = k.comps;
  needs.dwt_workspace = q->dwt_workspace_bytes(wavelet, k.rect, k.levels);
  q->reserve(needs);
  std::vector<std::vector<uint32_t>> planes(static_cast<size_t>(k.comps), std::vector<uint32_t>(static_cast<size_t>(w * h)));
  std::vector<Plane> out;
  for (auto& p : planes) {
    Plane o;
    o.base = p.data();
    o.type = k.reversible ? J2K_SAMPLE_I32 : J2K_SAMPLE_F32;
    o.pixel_stride = 4;
    o.row_stride = 4 * w;
    o.width = w;
    o.height = h;
    out.push_back(o);
  }
  q->shift_mct(t, wavelet, out);
  for (const Plane& o : out) q->dwt(J2K_FORWARD, wavelet, o, o, k.rect, k.levels, j2k::constants::kInverse97Standard);
  q->mark(0);
  q->wait(0);
  return planes;
}

void check(const Case& k, uint32_t seed) {
  SCOPED_TRACE(describe(k));
  std::vector<std::vector<unsigned char>> bytes;
  const j2k::TileSamples t = samples(k, seed, bytes);
  const std::vector<std::vector<uint32_t>> whole = whole_planes(k, t);
  const int64_t w = k.rect.width(), h = k.rect.height();

  std::vector<RowFrontStage::Component> comps(static_cast<size_t>(k.comps), RowFrontStage::Component{k.rect, k.levels, k.reversible});
  ASSERT_TRUE(RowFrontStage::fits(comps, k.stripe));
  RowFrontStage rows(comps, k.mct, k.stripe, k.threads);
  // The rows' coefficients gathered into pyramid planes, to compare with the whole path's.
  std::vector<std::vector<uint32_t>> gathered(static_cast<size_t>(k.comps), std::vector<uint32_t>(static_cast<size_t>(w * h), 0xDEADBEEF));
  const int cas_x = static_cast<int>(k.rect.x0 & 1), cas_y = static_cast<int>(k.rect.y0 & 1);
  const int64_t sn_x = (w + (cas_x == 0 ? 1 : 0)) >> 1, sn_y = (h + (cas_y == 0 ? 1 : 0)) >> 1;
  const int64_t l_y0 = (k.rect.y0 + 1) >> 1, l_y1 = (k.rect.y1 + 1) >> 1;  // L rows on the band grid
  const int64_t h_y0 = k.rect.y0 >> 1, h_y1 = k.rect.y1 >> 1;              // H rows
  for (int64_t s = rows.first_stripe(); s <= rows.last_stripe(); ++s) {
    EXPECT_TRUE(rows.run(t, s));
    for (size_t c = 0; c < comps.size(); ++c) {
      uint32_t* p = gathered[c].data();
      for (int64_t by = s * k.stripe; by < (s + 1) * k.stripe; ++by) {
        if (by >= l_y0 && by < l_y1 && w > sn_x)
          std::memcpy(p + (by - l_y0) * w + sn_x, rows.band_row(c, 0, by), static_cast<size_t>(w - sn_x) * 4);
        if (by >= h_y0 && by < h_y1) {
          std::memcpy(p + (sn_y + by - h_y0) * w, rows.band_row(c, 1, by), static_cast<size_t>(sn_x) * 4);
          if (w > sn_x) std::memcpy(p + (sn_y + by - h_y0) * w + sn_x, rows.band_row(c, 2, by), static_cast<size_t>(w - sn_x) * 4);
        }
      }
    }
  }
  rows.finish_coarse();
  for (size_t c = 0; c < comps.size(); ++c) {
    const auto* coarse = static_cast<const uint32_t*>(rows.coarse(c));
    for (int64_t y = 0; y < sn_y; ++y)
      std::memcpy(gathered[c].data() + y * w, coarse + y * rows.coarse_stride(c), static_cast<size_t>(sn_x) * 4);
    size_t first = 0;
    while (first < whole[c].size() && gathered[c][first] == whole[c][first]) ++first;
    EXPECT_EQ(first, whole[c].size()) << "component " << c << " differs first at (" << static_cast<int64_t>(first) % w << ", "
                                      << static_cast<int64_t>(first) / w << ") of the pyramid";
  }
}

TEST(RowFrontStage, SameCoefficientsAsWholePlanes) {
  const Rect rects[] = {{0, 0, 37, 29}, {3, 5, 40, 66}, {1, 1, 2, 2}, {0, 7, 19, 8}, {2, 9, 3, 30}, {5, 0, 133, 97},
                        {0, 1, 64, 129}, {11, 13, 200, 40}, {4, 3, 9, 5}, {0, 0, 1, 1}, {7, 0, 8, 45}, {0, 3, 50, 4}};
  uint32_t seed = 1;
  for (const Rect& r : rects)
    for (bool reversible : {true, false})
      for (int stripe : {4, 8, 16, 64})
        for (int levels : {1, 3})
          check(Case{r, levels, reversible, stripe, 1, false, J2K_SAMPLE_U8, 8, 1}, seed++);
}

TEST(RowFrontStage, SameCoefficientsWithTheMctAndWideSamples) {
  const Rect rects[] = {{0, 0, 97, 131}, {1, 3, 70, 36}, {6, 1, 7, 50}, {0, 0, 256, 300}};
  uint32_t seed = 100;
  for (const Rect& r : rects)
    for (bool reversible : {true, false})
      for (int stripe : {4, 32})
        for (int threads : {1, 3}) {
          check(Case{r, 5, reversible, stripe, 3, true, J2K_SAMPLE_U8, 8, threads}, seed++);
          check(Case{r, 2, reversible, stripe, 3, false, J2K_SAMPLE_U16, 16, threads}, seed++);
          check(Case{r, 4, reversible, stripe, 1, false, J2K_SAMPLE_I16, 12, threads}, seed++);
        }
}

TEST(RowFrontStage, TakesOnlyComponentsOfOneRect) {
  std::vector<RowFrontStage::Component> comps(2, RowFrontStage::Component{{0, 0, 16, 16}, 2, true});
  EXPECT_TRUE(RowFrontStage::fits(comps, 4));
  EXPECT_FALSE(RowFrontStage::fits(comps, 2));
  comps[1].rect = Rect{0, 0, 8, 16};
  EXPECT_FALSE(RowFrontStage::fits(comps, 8));
  comps[1].rect = comps[0].rect;
  comps[1].levels = 0;
  EXPECT_FALSE(RowFrontStage::fits(comps, 8));
}

}  // namespace
