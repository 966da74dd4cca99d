// The front stage on whole images through the public API: tiles, subsampled components,
// signed samples, DC shift, MCT choice, errors. Expected values are built from the
// lower-level public pieces (Dwt, rct/ict) on tile regions cut out by this test itself.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "transform/cpu/component_transform.hpp"
#include "transform/dwt.hpp"
#include "common/error.hpp"
#include "pipeline/front_stage.hpp"

namespace {

using namespace j2k;

Image random_image(int64_t x0, int64_t y0, int64_t w, int64_t h, int comps, int prec, bool sign,
                   int dx1 = 1, int dy1 = 1) {
  Image im;
  im.x0 = x0; im.y0 = y0; im.width = w; im.height = h;
  std::mt19937 rng(static_cast<uint32_t>(w * 131 + h));
  for (int c = 0; c < comps; ++c) {
    Component k;
    k.precision = prec;
    k.is_signed = sign;
    k.dx = c == comps - 1 ? dx1 : 1;
    k.dy = c == comps - 1 ? dy1 : 1;
    auto cdiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
    k.width = cdiv(x0 + w, k.dx) - cdiv(x0, k.dx);
    k.height = cdiv(y0 + h, k.dy) - cdiv(y0, k.dy);
    const int32_t lo = sign ? -(1 << (prec - 1)) : 0, hi = sign ? (1 << (prec - 1)) - 1 : (1 << prec) - 1;
    std::uniform_int_distribution<int32_t> d(lo, hi);
    k.samples.resize(static_cast<size_t>(k.width * k.height));
    for (auto& v : k.samples) v = d(rng);
    im.components.push_back(std::move(k));
  }
  return im;
}

// Samples of component c inside tile-component rectangle r, cut out directly.
std::vector<int32_t> cut(const Image& im, int c, const Rect& r) {
  const Component& k = im.components[static_cast<size_t>(c)];
  const int64_t cx0 = (im.x0 + k.dx - 1) / k.dx, cy0 = (im.y0 + k.dy - 1) / k.dy;
  std::vector<int32_t> out;
  for (int64_t y = r.y0; y < r.y1; ++y)
    for (int64_t x = r.x0; x < r.x1; ++x)
      out.push_back(k.samples[static_cast<size_t>((y - cy0) * k.width + (x - cx0))]);
  return out;
}

TEST(Pipeline, TiledRgbReversibleMatchesPieces) {
  const Image im = random_image(5, 3, 77, 50, 3, 8, false);
  Settings s;
  s.levels = 4;
  s.tile_w = 32; s.tile_h = 20; s.tile_x0 = 2; s.tile_y0 = 1;
  s.backend.backend = Backend::Cpu;
  const Result res = FrontStage(s).run(im);
  EXPECT_TRUE(res.mct);
  EXPECT_EQ(res.tiles_x, 3);  // ceil((82 - 2) / 32)
  EXPECT_EQ(res.tiles_y, 3);  // ceil((53 - 1) / 20)
  ASSERT_EQ(res.tile_components.size(), 27u);
  Dwt dwt(BackendOptions{Backend::Cpu, 1, -1});
  for (int64_t t = 0; t < 9; ++t) {
    const TileComponent* k = &res.tile_components[static_cast<size_t>(t * 3)];
    std::vector<int32_t> p[3];
    for (int c = 0; c < 3; ++c) {
      p[c] = cut(im, c, k[c].rect);
      dc_shift_forward(p[c].data(), p[c].size(), 128);
    }
    rct_forward(p[0].data(), p[1].data(), p[2].data(), p[0].size());
    for (int c = 0; c < 3; ++c) {
      dwt.forward53(p[c].data(), static_cast<size_t>(k[c].rect.width()), k[c].rect, 4);
      EXPECT_EQ(p[c], k[c].coeffs_i32) << "tile " << t << " component " << c;
      EXPECT_TRUE(k[c].coeffs_f32.empty());
    }
  }
}

// Many small tiles run side by side on the CPU: the result must not depend on the threads.
TEST(Pipeline, ManySmallTilesIndependentOfThreadCount) {
  const Image im = random_image(3, 1, 300, 170, 3, 10, false);
  for (Wavelet w : {Wavelet::Reversible53, Wavelet::Irreversible97}) {
    Settings s;
    s.wavelet = w;
    s.tile_w = 37;
    s.tile_h = 23;
    s.backend = BackendOptions{Backend::Cpu, 1, -1};
    const Result one = FrontStage(s).run(im);
    s.backend.threads = 4;
    const Result four = FrontStage(s).run(im);
    ASSERT_EQ(one.tile_components.size(), 3u * 9u * 8u);
    for (size_t i = 0; i < one.tile_components.size(); ++i) {
      EXPECT_EQ(one.tile_components[i].coeffs_i32, four.tile_components[i].coeffs_i32) << i;
      const auto& a = one.tile_components[i].coeffs_f32;
      const auto& b = four.tile_components[i].coeffs_f32;
      ASSERT_EQ(a.size(), b.size());
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * 4), 0) << i;
    }
  }
}

TEST(Pipeline, IrreversibleSignedSubsampledWithoutMct) {
  const Image im = random_image(1, 2, 41, 23, 2, 12, true, 2, 3);
  Settings s;
  s.wavelet = Wavelet::Irreversible97;
  s.levels = 3;
  s.backend.backend = Backend::Cpu;
  const Result res = FrontStage(s).run(im);
  EXPECT_FALSE(res.mct);  // two components: Auto means off
  ASSERT_EQ(res.tile_components.size(), 2u);
  const TileComponent& k = res.tile_components[1];
  EXPECT_EQ(k.rect, (Rect{1, 1, 21, 9}));  // ceil(1/2), ceil(2/3), ceil(42/2), ceil(25/3)
  std::vector<int32_t> ints = cut(im, 1, k.rect);
  std::vector<float> expect(ints.size());
  dc_shift_forward(ints.data(), expect.data(), ints.size(), 0);  // signed: no shift
  Dwt(BackendOptions{Backend::Cpu, 1, -1}).forward97(expect.data(), 20, k.rect, 3);
  EXPECT_EQ(std::memcmp(expect.data(), k.coeffs_f32.data(), expect.size() * 4), 0);
}

TEST(Pipeline, MctOnNeedsThreeComponents) {
  Settings s;
  s.mct = Mct::On;
  s.backend.backend = Backend::Cpu;
  EXPECT_THROW(FrontStage(s).run(random_image(0, 0, 8, 8, 1, 8, false)), Error);
  s.mct = Mct::Off;
  EXPECT_FALSE(FrontStage(s).run(random_image(0, 0, 8, 8, 3, 8, false)).mct);
}

TEST(Pipeline, RejectsBadImagesAndSettings) {
  Settings s;
  s.backend.backend = Backend::Cpu;
  Image im = random_image(0, 0, 8, 8, 1, 8, false);
  im.components[0].samples[5] = 256;  // out of the 8-bit range
  EXPECT_THROW(FrontStage(s).run(im), Error);
  im = random_image(0, 0, 8, 8, 1, 8, false);
  im.components[0].samples.pop_back();
  EXPECT_THROW(FrontStage(s).run(im), Error);
  im = random_image(0, 0, 8, 8, 1, 8, false);
  im.components[0].precision = 17;
  EXPECT_THROW(FrontStage(s).run(im), Error);
  Settings bad = s;
  bad.levels = 33;
  EXPECT_THROW(FrontStage{bad}, Error);
  bad = s;
  bad.tile_w = 8;  // tile_h missing
  EXPECT_THROW(FrontStage{bad}, Error);
  bad = s;
  bad.tile_x0 = 3;  // beyond the image origin 0
  bad.tile_w = bad.tile_h = 8;
  EXPECT_THROW(FrontStage(bad).run(random_image(0, 0, 8, 8, 1, 8, false)), Error);
  try {
    FrontStage(s).run(random_image(0, 0, 8, 8, 5, 8, false));
    FAIL() << "5 components accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1 to 4 components"), std::string::npos) << e.what();
  }
}

TEST(Pipeline, LevelsBeyondTheSizeAndOnePixelImages) {
  Settings s;
  s.levels = 32;
  s.backend.backend = Backend::Cpu;
  for (int64_t x0 : {0, 1})
    for (auto [w, h] : {std::pair<int64_t, int64_t>{1, 1}, {1, 9}, {9, 1}, {3, 2}}) {
      const Image im = random_image(x0, x0, w, h, 1, 8, false);
      const Result res = FrontStage(s).run(im);
      ASSERT_EQ(res.tile_components.size(), 1u);
      std::vector<int32_t> back = res.tile_components[0].coeffs_i32;
      Dwt(BackendOptions{Backend::Cpu, 1, -1}).inverse53(back.data(), static_cast<size_t>(w), res.tile_components[0].rect, 32);
      for (size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i] + 128, im.components[0].samples[i]);
    }
}

TEST(Dwt, RejectsBadArguments) {
  Dwt dwt(BackendOptions{Backend::Cpu, 0, -1});
  std::vector<int32_t> a(16);
  EXPECT_THROW(dwt.forward53(a.data(), 3, Rect{0, 0, 4, 4}, 1), Error);   // stride < width
  EXPECT_THROW(dwt.forward53(a.data(), 4, Rect{0, 0, 4, 4}, 33), Error);  // too many levels
  EXPECT_THROW(dwt.forward53(nullptr, 4, Rect{0, 0, 4, 4}, 1), Error);
  EXPECT_THROW(parse_backend("gpu"), Error);
  EXPECT_NO_THROW(dwt.forward53(nullptr, 0, Rect{3, 3, 3, 3}, 5));  // empty: nothing to do
}

// The worked examples of ../shared/OPENJPEG.md, one level on one row.
TEST(Dwt, WorkedExampleFromOpenJpegNotes) {
  Dwt dwt(BackendOptions{Backend::Cpu, 0, -1});
  std::vector<int32_t> a = {10, 20, 30, 40, 50, 61};
  dwt.forward53(a.data(), 6, Rect{0, 0, 6, 1}, 1);
  EXPECT_EQ(a, (std::vector<int32_t>{10, 30, 53, 0, 0, 11}));
  a = {10, 20, 30, 40, 50, 61};
  dwt.forward53(a.data(), 6, Rect{1, 0, 7, 1}, 1);
  EXPECT_EQ(a, (std::vector<int32_t>{18, 40, 61, -10, 0, 0}));
}

}  // namespace
