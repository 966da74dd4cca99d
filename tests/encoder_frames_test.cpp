// SPDX-License-Identifier: BSD-2-Clause
// Frames in flight through the whole encoder (j2k_encoder_submit / j2k_encoder_wait, and the
// C++ Encoder::submit / wait): every frame's file is what j2k_encoder_run gives for the same
// image, byte for byte, whatever the encoders side by side, the order of the waits and the
// frames in flight (more frames than encoders, a sliding window); a frame's error is its own
// (the frames before and after it are coded as usual); the limits are refused by name, and an
// encoder destroyed with frames in flight neither hangs nor leaks. On the CPU in every build;
// on CUDA (Tier-1 on the GPU too) where there is a device, and on two GPUs where the host
// has them, each skipped, saying why, otherwise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "j2kfront/config.h"
#include "j2kfront/j2kfront.hpp"
#include "tests/support/pattern_images.hpp"
#if J2KFRONT_HAVE_CUDA
#include "device/available.hpp"
#endif

namespace {

using test_support::pattern_image;

// n frames of one shape: 97 x 61 RGB 8-bit at (3, 5), ramps and noise in turn.
// Small frames in 64 x 64 tiles, or (`whole`) larger untiled ones, as a video's frames are
// coded (the whole frame's DWT kernels).
std::vector<j2kfront::Image> frames(int n, bool whole = false) {
  std::vector<j2kfront::Image> out;
  for (int i = 0; i < n; ++i)
    out.push_back(whole ? pattern_image(0, 0, 1024, 576, 3, J2K_SAMPLE_U8, 8, i % 2, 100u + static_cast<unsigned>(i))
                        : pattern_image(3, 5, 97, 61, 3, J2K_SAMPLE_U8, 8, i % 2, 100u + static_cast<unsigned>(i)));
  return out;
}

struct FrameSetup {
  j2k_backend backend = J2K_BACKEND_CPU;
  bool ht = false, irreversible = false;
  int lanes = 0;
  std::vector<int> devices;
  int turns = 0;  // coding.device_turns
  bool whole = false;  // frames(n, whole)
};

j2kfront::Settings settings_of(const FrameSetup& u) {
  j2kfront::Settings s;
  s.backend = u.backend;
  s.wavelet = u.irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
  s.levels = 4;
  s.tile_w = s.tile_h = u.whole ? 0 : 64;
  s.threads = 2;
  return s;
}
j2kfront::Coding coding_of(const FrameSetup& u) {
  j2kfront::Coding c;
  c.modes = u.ht ? J2K_MODE_HT : 0;
  c.block_w = c.block_h = 32;
  if (u.irreversible && !u.ht) c.rates = {12};
  if (u.irreversible && u.ht) c.qstep = 0.01;
  c.frames_in_flight = u.lanes;
  c.devices = u.devices;
  c.device_turns = u.turns;
  return c;
}

// Each image alone through j2k_encoder_run, on the CPU: the oracle.
std::vector<std::vector<uint8_t>> one_by_one(FrameSetup u, const std::vector<j2kfront::Image>& images) {
  u.backend = J2K_BACKEND_CPU;
  j2kfront::Encoder e(settings_of(u), coding_of(u), images[0].view());
  std::vector<std::vector<uint8_t>> out;
  for (const j2kfront::Image& im : images) out.push_back(e.encode(im.view()));
  return out;
}

std::string describe(const FrameSetup& u) {
  return std::string(u.ht ? "HT" : "EBCOT") + (u.irreversible ? " 9/7" : " 5/3") + ", " + std::to_string(u.lanes) + " lanes, " +
         std::to_string(u.devices.size()) + " devices" + (u.whole ? ", whole frames" : "");
}

// Every frame submitted (at most `window` in flight, the oldest waited for first), each file
// checked against the oracle's.
void check_sliding_window(const FrameSetup& u, int count, int window) {
  const std::vector<j2kfront::Image> images = frames(count, u.whole);
  const std::vector<std::vector<uint8_t>> expected = one_by_one(u, images);
  j2kfront::Encoder e(settings_of(u), coding_of(u), images[0].view());
  std::vector<j2k_ticket> tickets;
  size_t waited = 0;
  for (size_t i = 0; i <= images.size(); ++i) {
    while (waited < tickets.size() && (i == images.size() || tickets.size() - waited >= static_cast<size_t>(window))) {
      EXPECT_EQ(e.wait(tickets[waited]), expected[waited]) << describe(u) << ": frame " << waited;
      ++waited;
    }
    if (i < images.size()) tickets.push_back(e.submit(images[i].view()));
  }
  EXPECT_EQ(waited, images.size());
}

TEST(EncoderFrames, EachFrameIsWhatRunGivesOnTheCpu) {
  for (int lanes : {1, 2, 3})
    for (bool ht : {false, true})
      for (bool irreversible : {false, true}) {
        FrameSetup u;
        u.ht = ht, u.irreversible = irreversible, u.lanes = lanes;
        check_sliding_window(u, 11, 4);
      }
}

TEST(EncoderFrames, WaitsInAnyOrderAndTheReportIsTheWaitedFrames) {
  FrameSetup u;
  u.lanes = 3;
  const std::vector<j2kfront::Image> images = frames(8);
  const std::vector<std::vector<uint8_t>> expected = one_by_one(u, images);
  j2kfront::Encoder e(settings_of(u), coding_of(u), images[0].view());
  std::vector<j2k_ticket> tickets;
  for (const j2kfront::Image& im : images) tickets.push_back(e.submit(im.view()));  // 8: the most in flight
  for (size_t k = 0; k < tickets.size(); ++k) {
    const size_t i = k % 2 == 0 ? tickets.size() - 1 - k / 2 : k / 2;  // last, first, last but one, ...
    const auto [data, size] = e.wait_in_place(tickets[i]);
    ASSERT_EQ(size, expected[i].size()) << "frame " << i;
    EXPECT_EQ(std::memcmp(data, expected[i].data(), size), 0) << "frame " << i;
    EXPECT_EQ(e.report().bytes, size) << "frame " << i;
  }
  // j2k_encoder_run still works beside them, and the report is its again.
  EXPECT_EQ(e.encode(images[2].view()), expected[2]);
  EXPECT_EQ(e.report().bytes, expected[2].size());
}

// Each frame's report places its stages on one clock: in order on its lane, and the frames of
// one lane one after another (a lane codes one frame at a time); j2k_encoder_run's on lane 0.
TEST(EncoderFrames, TheReportPlacesEachFrameOnATimeline) {
  FrameSetup u;
  u.lanes = 3;
  const std::vector<j2kfront::Image> images = frames(8);
  j2kfront::Encoder e(settings_of(u), coding_of(u), images[0].view());
  std::vector<j2k_ticket> tickets;
  for (const j2kfront::Image& im : images) tickets.push_back(e.submit(im.view()));
  std::vector<std::vector<std::pair<double, double>>> lanes(3);  // each lane's frames: begin, end
  for (size_t i = 0; i < tickets.size(); ++i) {
    e.wait_in_place(tickets[i]);
    const j2k_encode_report r = e.report();
    ASSERT_GE(r.lane, 0) << "frame " << i;
    ASSERT_LT(r.lane, 3) << "frame " << i;
    const double begins[] = {r.front_begin_ms, r.tier1_begin_ms, r.rate_begin_ms, r.tier2_begin_ms};
    const double lengths[] = {r.front_ms, r.tier1_ms, r.rate_ms, r.tier2_ms};
    EXPECT_GT(begins[0], 0) << "frame " << i;
    for (int k = 0; k < 3; ++k) EXPECT_LE(begins[k] + lengths[k], begins[k + 1] + 1e-3) << "frame " << i << ", stage " << k;
    lanes[static_cast<size_t>(r.lane)].push_back({begins[0], begins[3] + lengths[3]});
  }
  for (auto& frames_of_lane : lanes) {
    std::sort(frames_of_lane.begin(), frames_of_lane.end());
    for (size_t k = 1; k < frames_of_lane.size(); ++k) EXPECT_LE(frames_of_lane[k - 1].second, frames_of_lane[k].first + 1e-3);
  }
  e.encode(images[0].view());
  const j2k_encode_report r = e.report();
  EXPECT_EQ(r.lane, 0);
  EXPECT_GT(r.front_begin_ms, 0);
  EXPECT_LE(r.front_begin_ms + r.front_ms, r.tier1_begin_ms + 1e-3);
}

TEST(EncoderFrames, AFramesErrorIsItsOwn) {
  FrameSetup u;
  u.lanes = 2;
  std::vector<j2kfront::Image> images;
  for (int i = 0; i < 5; ++i) images.push_back(pattern_image(0, 0, 40, 30, 1, J2K_SAMPLE_U16, 10, 1, 7u + static_cast<unsigned>(i)));
  uint16_t big = 4000;  // above 10 bits: frame 2 cannot be coded
  std::memcpy(images[2].components[0].bytes.data() + 2 * 17, &big, 2);
  j2kfront::Encoder e(settings_of(u), coding_of(u), images[0].view());
  std::string run_error;
  try {
    e.encode(images[2].view());
  } catch (const j2kfront::Error& x) {
    run_error = x.what();
  }
  ASSERT_NE(run_error, "") << "j2k_encoder_run took a sample above the precision";
  std::vector<std::vector<uint8_t>> expected;
  for (size_t i = 0; i < images.size(); ++i) expected.push_back(i == 2 ? std::vector<uint8_t>() : e.encode(images[i].view()));
  std::vector<j2k_ticket> tickets;
  for (const j2kfront::Image& im : images) tickets.push_back(e.submit(im.view()));
  for (size_t i = 0; i < images.size(); ++i) {
    if (i == 2) {
      try {
        e.wait(tickets[i]);
        ADD_FAILURE() << "frame 2's wait succeeded";
      } catch (const j2kfront::Error& x) {
        EXPECT_EQ(std::string(x.what()), run_error);
      }
    } else {
      EXPECT_EQ(e.wait(tickets[i]), expected[i]) << "frame " << i;
    }
  }
}

TEST(EncoderFrames, LimitsAreRefusedByName) {
  const std::vector<j2kfront::Image> images = frames(9);
  auto create_error = [&](const FrameSetup& u) -> std::string {
    try {
      j2kfront::Encoder e(settings_of(u), coding_of(u), images[0].view());
    } catch (const j2kfront::Error& x) {
      return x.what();
    }
    return "";
  };
  FrameSetup u;
  u.lanes = 9;
  EXPECT_NE(create_error(u).find("frames_in_flight"), std::string::npos) << create_error(u);
  u.lanes = -1;
  EXPECT_NE(create_error(u).find("frames_in_flight"), std::string::npos);
  u.lanes = 2;
  u.devices = {0, -3};
  EXPECT_NE(create_error(u).find("devices[1]"), std::string::npos) << create_error(u);
  // The C API: devices missing for their count, and the checks before an image.
  j2kfront::Settings s = settings_of(FrameSetup{});
  j2k_coding c;
  j2k_coding_default(&c);
  c.num_devices = 2;
  EXPECT_EQ(j2k_coding_check(&s, &c, 3), J2K_INVALID_ARGUMENT);
  c.num_devices = 0;
  c.frames_in_flight = 9;
  EXPECT_EQ(j2k_coding_check(&s, &c, 3), J2K_INVALID_ARGUMENT);
  c.frames_in_flight = 0;
  for (int turns : {-1, J2K_MAX_FRAMES_IN_FLIGHT + 1}) {
    c.device_turns = turns;
    EXPECT_EQ(j2k_coding_check(&s, &c, 3), J2K_INVALID_ARGUMENT) << turns;
    u = FrameSetup{};
    u.turns = turns;
    EXPECT_NE(create_error(u).find("device_turns"), std::string::npos) << create_error(u);
  }
  c.device_turns = 0;

  u = FrameSetup{};
  u.lanes = 2;
  j2kfront::Encoder e(settings_of(u), coding_of(u), images[0].view());
  auto error_of = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const j2kfront::Error& x) {
      return x.what();
    }
    return "";
  };
  EXPECT_NE(error_of([&] { e.wait(1); }).find("nothing was submitted"), std::string::npos);
  std::vector<j2k_ticket> tickets;
  for (int i = 0; i < 8; ++i) tickets.push_back(e.submit(images[static_cast<size_t>(i)].view()));
  const std::string ninth = error_of([&] { e.submit(images[8].view()); });
  EXPECT_NE(ninth.find("not waited for"), std::string::npos) << ninth;
  e.wait(tickets[0]);
  EXPECT_NE(error_of([&] { e.wait(tickets[0]); }).find("not in flight"), std::string::npos);
  EXPECT_NE(error_of([&] { e.wait(12345); }).find("not in flight"), std::string::npos);
  tickets.push_back(e.submit(images[8].view()));  // room again
  for (size_t i = 1; i < tickets.size(); ++i) e.wait(tickets[i]);
}

TEST(EncoderFrames, DestroyedWithFramesInFlight) {
  const std::vector<j2kfront::Image> images = frames(6);
  FrameSetup u;
  u.lanes = 2;
  {
    j2kfront::Encoder e(settings_of(u), coding_of(u), images[0].view());
    for (const j2kfront::Image& im : images) e.submit(im.view());
    e.wait(1);
  }  // five frames never waited for: dropped (ASan: nothing leaks)
  SUCCEED();
}

// Lanes are made as the frames need them: a caller that waits for each frame before it submits
// the next is served by the first lane alone (the others' plans never made); one that queues
// frames faster than they are coded gets more lanes, up to frames_in_flight.
TEST(EncoderFrames, LanesAreMadeAsTheFramesNeedThem) {
  const std::vector<j2kfront::Image> images = frames(8, /*whole=*/true);
  FrameSetup u;
  u.lanes = 4;
  u.whole = true;
  u.ht = true;
  const std::vector<std::vector<uint8_t>> expected = one_by_one(u, images);
  j2kfront::Encoder one_at_a_time(settings_of(u), coding_of(u), images[0].view());
  for (size_t i = 0; i < images.size(); ++i) {
    EXPECT_EQ(one_at_a_time.wait(one_at_a_time.submit(images[i].view())), expected[i]) << "frame " << i;
    EXPECT_EQ(one_at_a_time.report().lane, 0) << "frame " << i << ": a second lane for a caller that waits for each frame";
  }
  j2kfront::Encoder queued(settings_of(u), coding_of(u), images[0].view());
  std::vector<j2k_ticket> tickets;
  for (const j2kfront::Image& im : images) tickets.push_back(queued.submit(im.view()));
  int most = 0;
  for (size_t i = 0; i < images.size(); ++i) {
    EXPECT_EQ(queued.wait(tickets[i]), expected[i]) << "frame " << i;
    most = std::max(most, queued.report().lane);
  }
  EXPECT_GE(most, 1) << "eight frames queued at once were all coded by the first lane";
  EXPECT_LE(most, 3);
}

// The first lane is the encoder itself: a run while frames are in flight is refused by name
// (it would share that lane), and fine again once they are waited for.
TEST(EncoderFrames, ARunWhileFramesAreInFlightIsRefused) {
  const std::vector<j2kfront::Image> images = frames(3);
  FrameSetup u;
  u.lanes = 2;
  const std::vector<std::vector<uint8_t>> expected = one_by_one(u, images);
  j2kfront::Encoder e(settings_of(u), coding_of(u), images[0].view());
  const j2k_ticket t = e.submit(images[0].view());
  try {
    e.encode(images[1].view());
    ADD_FAILURE() << "a run with a frame in flight";
  } catch (const j2kfront::Error& x) {
    EXPECT_NE(std::string(x.what()).find("frames are in flight"), std::string::npos) << x.what();
  }
  EXPECT_EQ(e.wait(t), expected[0]);
  EXPECT_EQ(e.encode(images[2].view()), expected[2]);
  EXPECT_EQ(e.wait(e.submit(images[1].view())), expected[1]);
}

// A CUDA device, or why there is none.
bool cuda_device(std::string& why) {
  const char* reason = nullptr;
  if (j2k_backend_available(J2K_BACKEND_CUDA, &reason)) return true;
  why = reason ? reason : "unknown";
  return false;
}

// Encoders taking turns on the GPU (device_turns 1): the same files, and no two frames in
// their device stages (front stage, Tier-1 on the GPU) at once.
TEST(EncoderFramesCuda, TurnsOnTheGpuKeepTheBytesAndDoNotOverlap) {
  std::string why;
  if (!cuda_device(why)) GTEST_SKIP() << "no CUDA backend/device: " << why;
  FrameSetup u;
  u.backend = J2K_BACKEND_CUDA, u.ht = true, u.lanes = 3, u.turns = 1;
  check_sliding_window(u, 9, 6);
  const std::vector<j2kfront::Image> images = frames(8);
  j2kfront::Encoder e(settings_of(u), coding_of(u), images[0].view());
  std::vector<j2k_ticket> tickets;
  for (const j2kfront::Image& im : images) tickets.push_back(e.submit(im.view()));
  std::vector<std::pair<double, double>> device_stages;
  for (j2k_ticket t : tickets) {
    e.wait_in_place(t);
    const j2k_encode_report r = e.report();
    EXPECT_STREQ(r.tier1_on, "cuda");
    device_stages.push_back({r.front_begin_ms, r.tier1_begin_ms + r.tier1_ms});
  }
  std::sort(device_stages.begin(), device_stages.end());
  for (size_t k = 1; k < device_stages.size(); ++k)
    EXPECT_LE(device_stages[k - 1].second, device_stages[k].first + 1e-3) << "frames " << k - 1 << " and " << k << " overlap";
}

TEST(EncoderFramesCuda, HtFramesCodedOnTheGpuAreTheCpus) {
  std::string why;
  if (!cuda_device(why)) GTEST_SKIP() << "no CUDA backend/device: " << why;
  for (bool irreversible : {false, true})
    for (j2k_backend backend : {J2K_BACKEND_CUDA}) {
      FrameSetup u;
      u.backend = backend, u.ht = true, u.irreversible = irreversible, u.lanes = 3;
      check_sliding_window(u, 12, 5);
      // Tier-1 ran on the GPU.
      const std::vector<j2kfront::Image> images = frames(1);
      j2kfront::Encoder e(settings_of(u), coding_of(u), images[0].view());
      e.wait(e.submit(images[0].view()));
      EXPECT_STREQ(e.report().tier1_on, "cuda");
    }
  FrameSetup ebcot;
  ebcot.backend = J2K_BACKEND_CUDA, ebcot.lanes = 2;
  check_sliding_window(ebcot, 6, 3);  // EBCOT: the front stage and Tier-1 on the GPU too
}

TEST(EncoderFramesCuda, TwoGpusGiveTheBytesOfOne) {
  std::string why;
  if (!cuda_device(why)) GTEST_SKIP() << "no CUDA backend/device: " << why;
#if J2KFRONT_HAVE_CUDA
  const int count = j2k::cuda_device_count();
  if (count < 2) GTEST_SKIP() << "this host has " << count << " CUDA device: two are needed";
  for (bool irreversible : {false, true}) {
    FrameSetup u;
    u.backend = J2K_BACKEND_CUDA, u.ht = true, u.irreversible = irreversible, u.lanes = 4, u.devices = {0, 1};
    check_sliding_window(u, 16, 6);
    // Whole frames, six lanes over the two (as the frames bench's row over every GPU).
    u.whole = true, u.lanes = 6;
    check_sliding_window(u, 12, 8);
  }
#endif
}

}  // namespace
