// SPDX-License-Identifier: BSD-2-Clause
// Frames in flight through the public API (Plan::submit / Plan::wait) on every backend: each
// frame writes its own outputs and equals the reference; a problem stays with its frame; the
// limits (frames in flight, the plan's own buffer) are errors, not silent overwrites; a plan
// destroyed with frames in flight finishes them first.
#include <gtest/gtest.h>

#include <cstring>
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "j2kfront/j2kfront.hpp"
#include "tests/support/plan_reference.hpp"

namespace {

using namespace plan_reference;
using FramesTest = BackendTest;

// One frame's outputs: a buffer per tile-component, rows packed.
struct Outputs {
  std::vector<std::vector<unsigned char>> planes;

  explicit Outputs(const j2kfront::Plan& plan) {
    for (size_t i = 0; i < plan.tile_components(); ++i) {
      const j2k_coefficients c = plan.tile_component(i).coefficients;
      planes.emplace_back(static_cast<size_t>(c.width * c.height * 4), 0);
    }
  }
  void point(j2kfront::Plan& plan) {
    for (size_t i = 0; i < planes.size(); ++i) {
      const j2k_coefficients c = plan.tile_component(i).coefficients;
      plan.set_output(i, planes[i].data(), planes[i].size(), c.width * 4);
    }
  }
  // Tile-components that differ from the reference.
  size_t mismatches(const Expected& e) const {
    size_t bad = 0;
    for (size_t i = 0; i < planes.size(); ++i) {
      const void* want = e.i32.empty() ? static_cast<const void*>(e.f32[i].data()) : e.i32[i].data();
      if (std::memcmp(planes[i].data(), want, planes[i].size()) != 0) ++bad;
    }
    return bad;
  }
};

j2kfront::Settings tiled(j2k_backend backend, j2k_wavelet wavelet) {
  j2kfront::Settings st = settings_for(backend);
  st.wavelet = wavelet;
  st.levels = 4;
  st.tile_w = 40;
  st.tile_h = 32;
  return st;
}

// Tiled, frames follow each other round the queues; untiled, consecutive frames alternate.
TEST_P(FramesTest, EachFrameWritesItsOwnOutputs) {
  for (bool untiled : {false, true})
  for (j2k_wavelet w : {J2K_WAVELET_53, J2K_WAVELET_97}) {
    j2kfront::Settings st = tiled(GetParam(), w);
    if (untiled) st.tile_w = st.tile_h = 0;
    constexpr int kFrames = 6;
    std::vector<Samples> images;
    std::vector<Packed> packed;
    for (int f = 0; f < kFrames; ++f) {
      images.push_back(random_samples(3, 1, 130, 70, 3, 8, false, 1, 1, 100 + static_cast<uint32_t>(f)));
      packed.push_back(pack(images.back(), J2K_SAMPLE_U8, f % 2 == 0, f % 3));
    }
    j2kfront::Plan plan(st, packed[0].view);
    std::vector<Outputs> outs;
    for (int f = 0; f < kFrames; ++f) outs.emplace_back(plan);
    std::vector<j2k_ticket> tickets;
    for (int f = 0; f < kFrames; ++f) {
      outs[static_cast<size_t>(f)].point(plan);
      tickets.push_back(plan.submit(packed[static_cast<size_t>(f)].view));
    }
    // Waited for out of order: each ticket is its own frame.
    for (int f : {2, 0, 5, 1, 4, 3}) plan.wait(tickets[static_cast<size_t>(f)]);
    for (int f = 0; f < kFrames; ++f)
      EXPECT_EQ(outs[static_cast<size_t>(f)].mismatches(reference(images[static_cast<size_t>(f)], st, true)), 0u)
          << "frame " << f << (w ? " 9/7" : " 5/3") << (untiled ? " untiled" : " tiled");
  }
}

TEST_P(FramesTest, AProblemStaysWithItsFrame) {
  const j2kfront::Settings st = tiled(GetParam(), J2K_WAVELET_53);
  std::vector<Samples> images;
  for (uint32_t f = 0; f < 3; ++f) images.push_back(random_samples(0, 0, 90, 60, 1, 6, false, 1, 1, 7 + f));
  images[1].comps[0].v[4000] = 64;  // a 6-bit component holding 64
  std::vector<Packed> packed;
  for (const Samples& s : images) packed.push_back(pack(s, J2K_SAMPLE_U8, false, 0));
  j2kfront::Plan plan(st, packed[0].view);
  std::vector<Outputs> outs;
  std::vector<j2k_ticket> tickets;
  for (size_t f = 0; f < 3; ++f) outs.emplace_back(plan);
  for (size_t f = 0; f < 3; ++f) {
    outs[f].point(plan);
    tickets.push_back(plan.submit(packed[f].view));
  }
  EXPECT_NO_THROW(plan.wait(tickets[0]));
  try {
    plan.wait(tickets[1]);
    ADD_FAILURE() << "frame 2's out-of-range sample was not reported";
  } catch (const j2kfront::Error& e) {
    EXPECT_EQ(e.status(), J2K_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("precision"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(plan.wait(tickets[2]));
  EXPECT_EQ(outs[0].mismatches(reference(images[0], st, false)), 0u);
  EXPECT_EQ(outs[2].mismatches(reference(images[2], st, false)), 0u);
  // The plan goes on: a run after the failed frame is right.
  outs[1].point(plan);
  plan.run(packed[2].view);
  EXPECT_EQ(outs[1].mismatches(reference(images[2], st, false)), 0u);
}

TEST_P(FramesTest, LimitsAreErrorsNotOverwrites) {
  const j2kfront::Settings st = tiled(GetParam(), J2K_WAVELET_97);
  const Samples s = random_samples(0, 0, 64, 48, 3, 8, false);
  const Packed p = pack(s, J2K_SAMPLE_U8, true, 0);
  j2kfront::Plan plan(st, p.view);
  const auto expect_refused = [&](const char* what, const char* says) {
    try {
      (void)plan.submit(p.view);
      ADD_FAILURE() << what << ": accepted";
    } catch (const j2kfront::Error& e) {
      EXPECT_EQ(e.status(), J2K_INVALID_ARGUMENT) << what;
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << what << ": " << e.what();
    }
  };
  // Two frames into the plan's own buffer at once.
  const j2k_ticket own = plan.submit(p.view);
  expect_refused("a second frame into the plan's own buffer", "own coefficient buffer");
  plan.wait(own);
  expect_matches(plan, reference(s, st, true), "the plan's own buffer");
  // More frames than may be in flight.
  std::vector<Outputs> outs;
  for (int f = 0; f < J2K_MAX_FRAMES_IN_FLIGHT; ++f) outs.emplace_back(plan);
  std::vector<j2k_ticket> tickets;
  for (Outputs& o : outs) {
    o.point(plan);
    tickets.push_back(plan.submit(p.view));
  }
  expect_refused("one frame more than J2K_MAX_FRAMES_IN_FLIGHT", "in flight already");
  plan.wait(tickets[3]);
  outs[3].point(plan);
  tickets[3] = plan.submit(p.view);  // a slot is free again
  for (j2k_ticket t : tickets) plan.wait(t);
  for (const Outputs& o : outs) EXPECT_EQ(o.mismatches(reference(s, st, true)), 0u);
  // Tickets are waited for once; unknown ones are refused.
  for (j2k_ticket t : {tickets[0], j2k_ticket{0}, j2k_ticket{123456}}) {
    EXPECT_EQ(j2k_plan_wait(plan.get(), t), J2K_INVALID_ARGUMENT) << t;
    EXPECT_NE(std::string(j2k_last_error()).find("not in flight"), std::string::npos) << j2k_last_error();
  }
}

// Destroying a plan with frames in flight waits for them: nothing is lost, nothing runs on.
TEST_P(FramesTest, DestroyingAPlanFinishesItsFrames) {
  const j2kfront::Settings st = tiled(GetParam(), J2K_WAVELET_53);
  std::vector<Samples> images;
  std::vector<Packed> packed;
  for (uint32_t f = 0; f < 4; ++f) {
    images.push_back(random_samples(1, 2, 150, 90, 3, 12, false, 1, 1, 50 + f));
    packed.push_back(pack(images.back(), J2K_SAMPLE_U16, false, 2));
  }
  std::vector<Outputs> outs;
  {
    j2kfront::Plan plan(st, packed[0].view);
    for (size_t f = 0; f < 4; ++f) outs.emplace_back(plan);
    for (size_t f = 0; f < 4; ++f) {
      outs[f].point(plan);
      (void)plan.submit(packed[f].view);
    }
  }
  for (size_t f = 0; f < 4; ++f) EXPECT_EQ(outs[f].mismatches(reference(images[f], st, true)), 0u) << "frame " << f;
}

// Tracing on CUDA times every tile's upload, transform and download, one after the other on
// each stream; the other backends record nothing. Read before a wait, it is an error.
TEST_P(FramesTest, TimelineHasEveryTileAndStage) {
  const j2kfront::Settings st = tiled(GetParam(), J2K_WAVELET_97);
  const Samples s = random_samples(0, 0, 130, 70, 3, 8, false);
  const Packed p = pack(s, J2K_SAMPLE_U8, true, 0);
  j2kfront::Plan plan(st, p.view);
  plan.trace(true);
  std::vector<Outputs> outs;
  std::vector<j2k_ticket> tickets;
  for (int f = 0; f < 2; ++f) outs.emplace_back(plan);
  for (Outputs& o : outs) {
    o.point(plan);
    tickets.push_back(plan.submit(p.view));
  }
  EXPECT_THROW((void)plan.timeline(), j2kfront::Error);
  for (j2k_ticket t : tickets) plan.wait(t);
  const std::vector<j2k_span> spans = plan.timeline();
  const j2k_plan_info info = plan.info();
  const auto tiles = static_cast<size_t>(info.tiles_x * info.tiles_y);
  if (GetParam() != J2K_BACKEND_CUDA) {
    EXPECT_TRUE(spans.empty());
    return;
  }
  ASSERT_EQ(spans.size(), 2 * tiles * 3);
  std::vector<double> lane_end(static_cast<size_t>(info.streams), 0.0);
  size_t per_stage[3] = {0, 0, 0};
  for (const j2k_span& x : spans) {
    ASSERT_GE(x.queue, 0);
    ASSERT_LT(x.queue, info.streams);
    EXPECT_TRUE(x.frame == tickets[0] || x.frame == tickets[1]) << x.frame;
    EXPECT_LE(x.begin_ms, x.end_ms);
    EXPECT_GE(x.begin_ms, lane_end[static_cast<size_t>(x.queue)] - 1e-3) << "spans of one stream overlap";
    lane_end[static_cast<size_t>(x.queue)] = x.end_ms;
    ++per_stage[x.stage];
  }
  for (size_t n : per_stage) EXPECT_EQ(n, 2 * tiles);
  plan.trace(false);
  EXPECT_TRUE(plan.timeline().empty());
  for (Outputs& o : outs) EXPECT_EQ(o.mismatches(reference(s, st, true)), 0u);
}

// Random image and tile sizes, origins, queue and frame counts (more tiles than queues, more
// frames than the ring of outputs), each frame equal to the reference. Under compute-sanitizer
// on the GPU machine (bench/device_run.sh sanitize).
TEST_P(FramesTest, RandomSizesTilesAndFrameCounts) {
  std::mt19937 rng(20261123);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int round = 0; round < 6; ++round) {
    const auto w = static_cast<uint32_t>(pick(1, 150)), h = static_cast<uint32_t>(pick(1, 110));
    const auto x0 = static_cast<uint32_t>(pick(0, 9)), y0 = static_cast<uint32_t>(pick(0, 9));
    const int nc = pick(1, 4), prec = pick(1, 12);
    j2kfront::Settings st = tiled(GetParam(), pick(0, 1) ? J2K_WAVELET_97 : J2K_WAVELET_53);
    st.levels = pick(0, 7);
    st.tile_w = static_cast<uint32_t>(pick(0, 1) ? 0 : pick(1, 64));
    st.tile_h = st.tile_w ? static_cast<uint32_t>(pick(1, 64)) : 0;
    // The first tile must overlap the image: origin + size beyond the image origin.
    const int tx = static_cast<int>(x0), ty = static_cast<int>(y0);
    st.tile_x0 = static_cast<uint32_t>(st.tile_w ? pick(std::max(0, tx - static_cast<int>(st.tile_w) + 1), tx) : pick(0, tx));
    st.tile_y0 = static_cast<uint32_t>(st.tile_h ? pick(std::max(0, ty - static_cast<int>(st.tile_h) + 1), ty) : pick(0, ty));
    st.streams = pick(0, 4);
    const int frames = pick(1, 11), ring = pick(1, 4);
    std::vector<Samples> images;
    std::vector<Packed> packed;
    for (int f = 0; f < frames; ++f) {
      images.push_back(random_samples(x0, y0, w, h, nc, prec, false, 1, 1, static_cast<uint32_t>(round * 100 + f)));
      packed.push_back(pack(images.back(), prec > 8 ? J2K_SAMPLE_U16 : J2K_SAMPLE_U8, nc > 1 && f % 2 == 1, f % 3));
    }
    const std::string what = std::to_string(w) + "x" + std::to_string(h) + " at " + std::to_string(x0) + "," +
                             std::to_string(y0) + ", " + std::to_string(nc) + " x " + std::to_string(prec) +
                             "-bit, tiles " + std::to_string(st.tile_w) + "x" + std::to_string(st.tile_h) + ", " +
                             std::to_string(st.levels) + " levels, " + std::to_string(frames) + " frames, ring " +
                             std::to_string(ring);
    j2kfront::Plan plan(st, packed[0].view);
    std::vector<Outputs> outs;
    for (int r = 0; r < ring; ++r) outs.emplace_back(plan);
    std::vector<j2k_ticket> tickets;
    size_t bad = 0;
    for (int f = 0; f < frames; ++f) {
      const auto i = static_cast<size_t>(f), r = i % static_cast<size_t>(ring);
      if (i >= static_cast<size_t>(ring)) {  // the ring's set is free once its frame is done
        plan.wait(tickets[i - static_cast<size_t>(ring)]);
        bad += outs[r].mismatches(reference(images[i - static_cast<size_t>(ring)], st, nc >= 3));
      }
      outs[r].point(plan);
      tickets.push_back(plan.submit(packed[i].view));
    }
    for (int f = std::max(0, frames - ring); f < frames; ++f) {
      plan.wait(tickets[static_cast<size_t>(f)]);
      bad += outs[static_cast<size_t>(f % ring)].mismatches(reference(images[static_cast<size_t>(f)], st, nc >= 3));
    }
    EXPECT_EQ(bad, 0u) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, FramesTest,
                         ::testing::Values(J2K_BACKEND_CPU, J2K_BACKEND_OPENCL, J2K_BACKEND_CUDA),
                         backend_param_name);

}  // namespace
