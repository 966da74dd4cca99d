// SPDX-License-Identifier: BSD-2-Clause
// The front stage through the public API (j2kfront.hpp) on every backend, against a reference
// assembled in this test from the CPU pieces that conformance/ checks against OpenJPEG: samples
// cut out of the image per tile-component, DC shift, RCT/ICT on whole planes, the CPU DWT.
// Views of every sample type, planar and interleaved, with padded strides; caller-owned outputs
// whose padding must stay untouched; thread-count independence; reuse without allocation.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "j2kfront/j2kfront.hpp"
#include "tests/support/plan_reference.hpp"

// Every operator new of this test binary is counted, so that a test can see whether a run
// allocates (the library's containers allocate through it).
namespace {
std::atomic<long> g_news{0};
}
// GCC cannot see that this operator new allocates with malloc.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(size_t n) {
  ++g_news;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
// The nothrow form too (OpenCL drivers' compilers use it), so that every delete below frees
// what malloc gave.
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  ++g_news;
  return std::malloc(n ? n : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

using j2k::Rect;

using namespace plan_reference;

using PlanTest = BackendTest;

TEST_P(PlanTest, EverySampleTypePlanarAndInterleavedWithPaddedStrides) {
  const j2k_sample_type types[] = {J2K_SAMPLE_U8, J2K_SAMPLE_I8, J2K_SAMPLE_U16,
                                   J2K_SAMPLE_I16, J2K_SAMPLE_U32, J2K_SAMPLE_I32};
  for (j2k_sample_type type : types) {
    const bool sign = type == J2K_SAMPLE_I8 || type == J2K_SAMPLE_I16 || type == J2K_SAMPLE_I32;
    const int prec = j2k_sample_size(type) == 1 ? 8 : (type == J2K_SAMPLE_U16 ? 12 : 16);
    for (int nc : {1, 3, 4})
      for (bool interleaved : {false, true})
        for (j2k_wavelet w : {J2K_WAVELET_53, J2K_WAVELET_97}) {
          const Samples s = random_samples(3, 2, 45, 30, nc, prec, sign, 1, 1, static_cast<uint32_t>(type));
          const Packed p = pack(s, type, interleaved, 3);
          const std::vector<unsigned char> before = p.bytes;
          j2kfront::Settings st = settings_for(GetParam());
          st.wavelet = w;
          st.levels = 3;
          st.tile_w = 32;
          st.tile_h = 16;
          j2kfront::Plan plan(st, p.view);
          plan.run(p.view);
          const std::string what = "type " + std::to_string(type) + " nc " + std::to_string(nc) +
                                   (interleaved ? " interleaved" : " planar") + (w ? " 9/7" : " 5/3");
          expect_matches(plan, reference(s, st, nc >= 3), what);
          EXPECT_EQ(p.bytes, before) << what << ": the input was written";
        }
  }
}

TEST_P(PlanTest, TilesOriginsSubsamplingAndTinySizes) {
  struct Case { uint32_t x0, y0, w, h; int nc, prec; bool sign; int dx, dy; uint32_t tw, th, tx0, ty0; int levels; };
  const Case cases[] = {
      {5, 3, 77, 50, 3, 8, false, 1, 1, 32, 20, 2, 1, 4},
      {1, 2, 41, 23, 2, 12, true, 2, 3, 0, 0, 0, 0, 3},
      {0, 0, 1, 1, 1, 8, false, 1, 1, 0, 0, 0, 0, 32},
      {1, 1, 1, 9, 3, 8, false, 1, 1, 0, 0, 0, 0, 32},
      {1, 0, 9, 1, 3, 10, false, 1, 1, 4, 4, 0, 0, 7},
      {7, 5, 33, 17, 4, 16, false, 3, 2, 8, 8, 3, 2, 5},
      {3, 1, 300, 170, 3, 10, false, 1, 1, 37, 23, 0, 0, 5},
  };
  for (const Case& k : cases)
    for (j2k_wavelet w : {J2K_WAVELET_53, J2K_WAVELET_97}) {
      const Samples s = random_samples(k.x0, k.y0, k.w, k.h, k.nc, k.prec, k.sign, k.dx, k.dy);
      const Packed p = pack(s, k.prec > 8 ? (k.sign ? J2K_SAMPLE_I16 : J2K_SAMPLE_U16) : (k.sign ? J2K_SAMPLE_I8 : J2K_SAMPLE_U8), false, 0);
      j2kfront::Settings st = settings_for(GetParam());
      st.wavelet = w;
      st.levels = k.levels;
      st.tile_w = k.tw; st.tile_h = k.th; st.tile_x0 = k.tx0; st.tile_y0 = k.ty0;
      j2kfront::Plan plan(st, p.view);
      plan.run(p.view);
      // The subsampled component is the last: MCT runs when components 0..2 are not it.
      const bool mct = k.nc >= 3 && (k.nc > 3 || (k.dx == 1 && k.dy == 1));
      EXPECT_EQ(plan.info().mct, mct ? 1 : 0);
      expect_matches(plan, reference(s, st, mct),
                     std::to_string(k.w) + "x" + std::to_string(k.h) + " at " + std::to_string(k.x0) + "," +
                         std::to_string(k.y0) + (w ? " 9/7" : " 5/3"));
    }
}

// Unsigned samples at the full precision of their type need no range check: on backends that
// can (CUDA), their DC shift and the RCT/ICT happen in the DWT's first read, from packed or
// interleaved planes, through the per-level kernels (odd origins, levels 1) or the fused
// levels 1 + 2 (origins on multiples of 4), or the level-0 copy. Here against the reference.
TEST_P(PlanTest, FullPrecisionSamplesThroughTheFusedReads) {
  struct Case { uint32_t x0, y0, w, h, tw, th; int levels; };
  const Case cases[] = {{0, 0, 300, 170, 0, 0, 5}, {5, 3, 300, 170, 128, 64, 5}, {4, 8, 131, 67, 0, 0, 1},
                        {1, 2, 45, 30, 0, 0, 0}, {0, 0, 1, 9, 0, 0, 3}};
  for (j2k_sample_type type : {J2K_SAMPLE_U8, J2K_SAMPLE_U16})
    for (int nc : {3, 4})
      for (bool interleaved : {false, true})
        for (j2k_mct mct : {J2K_MCT_AUTO, J2K_MCT_OFF})
          for (j2k_wavelet wv : {J2K_WAVELET_53, J2K_WAVELET_97})
            for (const Case& k : cases) {
              const int prec = type == J2K_SAMPLE_U8 ? 8 : 16;
              const Samples s = random_samples(k.x0, k.y0, k.w, k.h, nc, prec, false, 1, 1, k.w + k.levels);
              const Packed p = pack(s, type, interleaved, interleaved ? 0 : 2);
              j2kfront::Settings st = settings_for(GetParam());
              st.wavelet = wv;
              st.levels = k.levels;
              st.tile_w = k.tw;
              st.tile_h = k.th;
              st.mct = mct;
              j2kfront::Plan plan(st, p.view);
              plan.run(p.view);
              expect_matches(plan, reference(s, st, mct == J2K_MCT_AUTO),
                             std::to_string(prec) + "-bit nc " + std::to_string(nc) +
                                 (interleaved ? " interleaved" : " planar") + (mct == J2K_MCT_AUTO ? " mct" : "") +
                                 (wv ? " 9/7 " : " 5/3 ") + std::to_string(k.w) + "x" + std::to_string(k.h) + " at " +
                                 std::to_string(k.x0) + "," + std::to_string(k.y0) + " levels " +
                                 std::to_string(k.levels));
            }
}

// Coefficients written into the caller's buffers: equal to the plan's own, padding untouched.
TEST_P(PlanTest, CallerOutputsKeepTheirPadding) {
  const Samples s = random_samples(2, 1, 50, 40, 3, 8, false);
  const Packed p = pack(s, J2K_SAMPLE_U8, true, 0);
  j2kfront::Settings st = settings_for(GetParam());
  st.tile_w = 24;
  st.tile_h = 24;
  j2kfront::Plan plan(st, p.view);
  plan.run(p.view);
  const size_t n = plan.tile_components();
  std::vector<std::vector<unsigned char>> own(n), mine(n);
  std::vector<ptrdiff_t> strides(n);
  for (size_t i = 0; i < n; ++i) {
    own[i] = coefficients(plan, i);
    const j2k_tile_component tc = plan.tile_component(i);
    strides[i] = (tc.coefficients.width + 5) * 4;
    mine[i].assign(static_cast<size_t>(strides[i] * tc.coefficients.height + 16), 0x5A);
    plan.set_output(i, mine[i].data(), mine[i].size(), strides[i]);
  }
  plan.run(p.view);
  for (size_t i = 0; i < n; ++i) {
    const j2k_tile_component tc = plan.tile_component(i);
    ASSERT_EQ(tc.coefficients.data, mine[i].data());
    const auto row = static_cast<size_t>(tc.coefficients.width * 4);
    for (int64_t y = 0; y < tc.coefficients.height; ++y) {
      EXPECT_EQ(std::memcmp(mine[i].data() + y * strides[i], own[i].data() + y * row, row), 0) << i << " row " << y;
      for (size_t b = row; b < static_cast<size_t>(strides[i]); ++b)
        ASSERT_EQ(mine[i][static_cast<size_t>(y * strides[i]) + b], 0x5A) << "padding written, tile-component " << i;
    }
    for (size_t b = static_cast<size_t>(strides[i] * tc.coefficients.height); b < mine[i].size(); ++b)
      ASSERT_EQ(mine[i][b], 0x5A) << "tail written, tile-component " << i;
  }
  // The bands are views into the same coefficients.
  const j2k_band hl = plan.band(0, 1);
  EXPECT_EQ(hl.type, J2K_BAND_HL);
  EXPECT_EQ(hl.coefficients.data, static_cast<char*>(plan.tile_component(0).coefficients.data) + hl.col * 4 + hl.row * strides[0]);
}

// One plan, 100 images of its shape: the same results as fresh plans, and no allocation after
// the first run (host allocations counted through operator new, plus the plan's memory report).
TEST_P(PlanTest, ReusedForManyImagesWithoutAllocating) {
  j2kfront::Settings st = settings_for(GetParam());
  st.tile_w = 40;
  st.tile_h = 40;
  st.wavelet = J2K_WAVELET_97;
  const Samples first = random_samples(0, 0, 100, 70, 3, 8, false, 1, 1, 1);
  Packed p = pack(first, J2K_SAMPLE_U8, true, 0);
  j2kfront::Plan plan(st, p.view);
  const j2k_memory_report before = plan.memory();
  plan.run(p.view);
  long news = 0;
  for (uint32_t i = 2; i <= 100; ++i) {
    const Samples s = random_samples(0, 0, 100, 70, 3, 8, false, 1, 1, i);
    p = pack(s, J2K_SAMPLE_U8, true, 0);
    const long n0 = g_news;
    plan.run(p.view);
    news += g_news - n0;
    if (i % 33 == 0) expect_matches(plan, reference(s, st, true), "image " + std::to_string(i));
  }
  EXPECT_EQ(news, 0) << "operator new calls during 99 runs";
  const j2k_memory_report after = plan.memory();
  EXPECT_EQ(before.host, after.host);
  EXPECT_EQ(before.pinned, after.pinned);
  EXPECT_EQ(before.device, after.device);
  EXPECT_GT(after.host + after.pinned + after.device, 100u * 70u * 3u * 4u - 1) << "the coefficients are counted";
}

TEST_P(PlanTest, SamplesOutsideTheirPrecisionAreAnError) {
  Samples s = random_samples(0, 0, 16, 16, 1, 4, false);
  s.comps[0].v[37] = 16;  // a 4-bit component holding 16
  const Packed p = pack(s, J2K_SAMPLE_U8, false, 0);
  j2kfront::Plan plan(settings_for(GetParam()), p.view);
  try {
    plan.run(p.view);
    FAIL() << "out-of-range sample accepted";
  } catch (const j2kfront::Error& e) {
    EXPECT_EQ(e.status(), J2K_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("precision"), std::string::npos) << e.what();
  }
  s.comps[0].v[37] = 15;
  const Packed q = pack(s, J2K_SAMPLE_U8, false, 0);
  EXPECT_NO_THROW(plan.run(q.view));  // the next image runs
}

// Tiles in flight on several queues give the same coefficients as one queue, and as the CPU
// reference; with a memory report that grows with the queues on GPU backends.
TEST_P(PlanTest, TilesInFlightOnSeveralQueues) {
  const Samples s = random_samples(1, 3, 260, 150, 3, 12, false, 1, 1, 7);
  const Packed p = pack(s, J2K_SAMPLE_U16, true, 1);
  j2kfront::Settings st = settings_for(GetParam());
  st.tile_w = 64;
  st.tile_h = 48;
  st.wavelet = J2K_WAVELET_97;
  for (int streams : {1, 2, 5}) {
    st.streams = streams;
    j2kfront::Plan plan(st, p.view);
    EXPECT_EQ(plan.info().streams, streams);  // 20 tiles: every queue asked for is used
    for (int run = 0; run < 2; ++run) plan.run(p.view);
    expect_matches(plan, reference(s, st, true), std::to_string(streams) + " streams");
  }
  st.streams = 17;
  EXPECT_THROW(j2kfront::Plan(st, p.view), j2kfront::Error);
  // The default: 3 queues on a GPU (2 for one tile, for frames in flight); on the CPU, one
  // single-threaded queue per worker thread when there are at least twice as many tiles
  // (the 20 tiles side by side on 3 threads, equal to the reference), else 1.
  const bool gpu = GetParam() != J2K_BACKEND_CPU;
  st.streams = 0;
  st.threads = 3;
  {
    j2kfront::Plan plan(st, p.view);
    EXPECT_EQ(plan.info().streams, 3);
    plan.run(p.view);
    expect_matches(plan, reference(s, st, true), "default queues");
  }
  st.threads = 11;  // 20 tiles < 2 x 11 workers: one queue on the CPU
  EXPECT_EQ(j2kfront::Plan(st, p.view).info().streams, gpu ? 3 : 1);
  st.tile_w = st.tile_h = 0;
  EXPECT_EQ(j2kfront::Plan(st, p.view).info().streams, gpu ? 2 : 1);
}

// Layouts a GPU upload may group or not: RGB views of an RGBX buffer (the pixel holds a
// fourth byte no component covers), and an interleaved pair followed by two planes.
TEST_P(PlanTest, MixedLayoutsAcrossComponents) {
  const Samples s = random_samples(2, 3, 61, 37, 4, 8, false, 1, 1, 11);
  const int64_t w = s.comps[0].w, h = s.comps[0].h;
  auto at = [&](int c, int64_t x, int64_t y) { return static_cast<uint8_t>(s.comps[static_cast<size_t>(c)].v[static_cast<size_t>(y * w + x)]); };
  for (int layout = 0; layout < 2; ++layout) {
    std::vector<uint8_t> bytes(static_cast<size_t>(w * h * 4), 0xEE);
    std::vector<j2k_component_view> v(layout == 0 ? 3 : 4);
    for (size_t c = 0; c < v.size(); ++c) {
      v[c].type = J2K_SAMPLE_U8;
      v[c].precision = 8;
      v[c].dx = v[c].dy = 1;
    }
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        if (layout == 0) {
          for (int c = 0; c < 3; ++c) bytes[static_cast<size_t>((y * w + x) * 4 + c)] = at(c, x, y);
        } else {
          for (int c = 0; c < 2; ++c) bytes[static_cast<size_t>((y * w + x) * 2 + c)] = at(c, x, y);
          for (int c = 2; c < 4; ++c) bytes[static_cast<size_t>(w * h * c + y * w + x)] = at(c, x, y);
        }
      }
    for (size_t c = 0; c < v.size(); ++c) {
      const bool pair = layout == 1 && c < 2;
      v[c].pixel_stride = layout == 0 ? 4 : pair ? 2 : 1;
      v[c].row_stride = w * v[c].pixel_stride;
      const int64_t start = layout == 0 || pair ? static_cast<int64_t>(c) : w * h * static_cast<int64_t>(c);
      v[c].data = bytes.data() + start;
      v[c].bytes = bytes.size() - static_cast<size_t>(start);
    }
    j2kfront::ImageView view(s.width, s.height, v);
    view.at_origin(s.x0, s.y0);
    j2kfront::Settings st = settings_for(GetParam());
    st.tile_w = 24;
    st.tile_h = 20;
    j2kfront::Plan plan(st, view);
    plan.run(view);
    Samples used = s;
    used.comps.resize(v.size());
    expect_matches(plan, reference(used, st, true), layout == 0 ? "RGB of RGBX" : "pair + planes");
  }
}

// A tile whose components are read by their DWTs (8-bit RGB at full precision, the GPU's fused
// read) beside one whose range is checked first (a 5-bit alpha), with tiles of several sizes,
// both wavelets and int16 output: equal to the reference.
TEST_P(PlanTest, FusedAndCheckedComponentsInOneTile) {
  Samples s = random_samples(5, 3, 150, 131, 4, 8, false, 1, 1, 41);
  s.comps[3].precision = 5;
  for (int32_t& v : s.comps[3].v) v &= 31;
  const Packed p = pack(s, J2K_SAMPLE_U8, true, 0);
  for (uint32_t tile : {24u, 64u, 0u})
    for (int output = 0; output < 3; ++output) {  // 5/3 int32, 5/3 int16, 9/7
      j2kfront::Settings st = settings_for(GetParam());
      st.tile_w = st.tile_h = tile;
      st.wavelet = output == 2 ? J2K_WAVELET_97 : J2K_WAVELET_53;
      st.narrow_output = output == 1;
      j2kfront::Plan plan(st, p.view);
      for (int run = 0; run < 2; ++run) {  // the second reuses the queues' buffers
        plan.run(p.view);
        expect_matches(plan, reference(s, st, true),
                       "tiles " + std::to_string(tile) + (output == 1 ? " int16" : output == 2 ? " 9/7" : " 5/3") +
                           ", run " + std::to_string(run));
      }
    }
}

// Int16 output: the int32 coefficients, each one narrowed (they provably fit), in the plan's
// buffers and in the caller's (with padding); refused where the range does not fit.
TEST_P(PlanTest, NarrowOutputIsTheSameCoefficientsInInt16) {
  struct Case { int nc, prec; bool sign; uint32_t tile; int levels; };
  for (const Case& k : {Case{3, 8, false, 40, 5}, Case{1, 12, false, 0, 32}, Case{3, 11, true, 24, 3}, Case{4, 10, false, 0, 7}}) {
    const Samples s = random_samples(3, 5, 101, 67, k.nc, k.prec, k.sign, 1, 1, 21);
    const Packed p = pack(s, k.prec > 8 ? (k.sign ? J2K_SAMPLE_I16 : J2K_SAMPLE_U16) : J2K_SAMPLE_U8, k.nc > 1, 1);
    j2kfront::Settings st = settings_for(GetParam());
    st.levels = k.levels;
    st.tile_w = st.tile_h = k.tile;
    st.narrow_output = 1;
    j2kfront::Plan plan(st, p.view);
    EXPECT_EQ(plan.info().coefficient_type, J2K_SAMPLE_I16);
    plan.run(p.view);
    const Expected e = reference(s, st, k.nc >= 3);
    const std::string what = std::to_string(k.nc) + " x " + std::to_string(k.prec) + "-bit";
    size_t bad = 0, padding = 0;
    for (size_t i = 0; i < plan.tile_components(); ++i) {
      const j2k_coefficients c = plan.tile_component(i).coefficients;
      ASSERT_EQ(c.type, J2K_SAMPLE_I16);
      for (int64_t y = 0; y < c.height; ++y)
        for (int64_t x = 0; x < c.width; ++x) {
          int16_t v;
          std::memcpy(&v, static_cast<const char*>(c.data) + y * c.row_stride + x * 2, 2);
          bad += v != e.i32[i][static_cast<size_t>(y * c.width + x)];
        }
    }
    EXPECT_EQ(bad, 0u) << what << ": coefficients differ from the int32 reference";
    // The caller's buffers, rows padded by 3 coefficients that must stay untouched.
    std::vector<std::vector<int16_t>> mine;
    for (size_t i = 0; i < plan.tile_components(); ++i) {
      const j2k_coefficients c = plan.tile_component(i).coefficients;
      mine.emplace_back(static_cast<size_t>((c.width + 3) * c.height), int16_t{0x5A5A});
      plan.set_output(i, mine.back().data(), mine.back().size() * 2, (c.width + 3) * 2);
    }
    plan.run(p.view);
    bad = 0;
    for (size_t i = 0; i < mine.size(); ++i) {
      const j2k_coefficients c = plan.tile_component(i).coefficients;
      for (int64_t y = 0; y < c.height; ++y)
        for (int64_t x = 0; x < c.width + 3; ++x) {
          const int16_t v = mine[i][static_cast<size_t>(y * (c.width + 3) + x)];
          if (x >= c.width) padding += v != 0x5A5A;
          else bad += v != e.i32[i][static_cast<size_t>(y * c.width + x)];
        }
    }
    EXPECT_EQ(bad, 0u) << what << ": the caller's int16 buffers";
    EXPECT_EQ(padding, 0u) << what << ": padding written";
  }
  // Where int16 cannot hold every coefficient, the plan says so.
  const auto refused = [&](int nc, int prec, j2k_wavelet w, const char* says) {
    const Samples s = random_samples(0, 0, 16, 16, nc, prec, false);
    const Packed p = pack(s, prec > 8 ? J2K_SAMPLE_U16 : J2K_SAMPLE_U8, false, 0);
    j2kfront::Settings st = settings_for(GetParam());
    st.wavelet = w;
    st.narrow_output = 1;
    try {
      j2kfront::Plan plan(st, p.view);
      ADD_FAILURE() << nc << " x " << prec << "-bit: int16 output accepted";
    } catch (const j2kfront::Error& e) {
      EXPECT_EQ(e.status(), J2K_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused(1, 13, J2K_WAVELET_53, "component 0 (13-bit");
  refused(3, 12, J2K_WAVELET_53, "component 1 (12-bit, after the RCT");
  refused(1, 8, J2K_WAVELET_97, "9/7");
}

// Device memory follows the tile, not the image: an image 16 times larger in the same tiles
// needs the same device bytes (so images larger than the GPU's memory go through tile by tile).
TEST_P(PlanTest, DeviceMemoryFollowsTheTileNotTheImage) {
  j2k_component_view c{};
  c.type = J2K_SAMPLE_U8;
  c.precision = 8;
  c.dx = c.dy = 1;
  j2kfront::Settings st = settings_for(GetParam());
  st.tile_w = st.tile_h = 128;
  const j2k_memory_report small = j2kfront::Plan(st, j2kfront::ImageView(256, 256, {c, c, c})).memory();
  const j2k_memory_report large = j2kfront::Plan(st, j2kfront::ImageView(1024, 1024, {c, c, c})).memory();
  EXPECT_EQ(small.device, large.device);
  if (GetParam() != J2K_BACKEND_CPU) {
    EXPECT_GT(small.device, 3u * 128 * 128 * 4) << "a tile's buffers are counted";
  }
  EXPECT_GE(large.host + large.pinned, 1024u * 1024 * 3 * 4) << "the coefficients live in host memory";
}

INSTANTIATE_TEST_SUITE_P(Backends, PlanTest,
                         ::testing::Values(J2K_BACKEND_CPU, J2K_BACKEND_OPENCL, J2K_BACKEND_CUDA),
                         backend_param_name);

// The CPU result does not depend on the thread count.
TEST(Plan, IndependentOfThreadCount) {
  const Samples s = random_samples(3, 1, 300, 170, 3, 10, false);
  const Packed p = pack(s, J2K_SAMPLE_U16, false, 0);
  for (j2k_wavelet w : {J2K_WAVELET_53, J2K_WAVELET_97}) {
    j2kfront::Settings st = settings_for(J2K_BACKEND_CPU);
    st.wavelet = w;
    st.threads = 1;
    j2kfront::Plan one(st, p.view);
    one.run(p.view);
    st.threads = 4;
    j2kfront::Plan four(st, p.view);
    four.run(p.view);
    for (size_t i = 0; i < one.tile_components(); ++i) EXPECT_EQ(coefficients(one, i), coefficients(four, i)) << i;
  }
}

}  // namespace
