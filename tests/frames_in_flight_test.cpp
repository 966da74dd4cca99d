// SPDX-License-Identifier: BSD-2-Clause
// The CLI's frames in flight for a directory (tools/frames_in_flight): every image handed on
// in the order submitted, with the file j2k_encoder_run gives for it, whatever the window; a
// frame that cannot be coded is reported by itself while the frames around it are written; the
// frames still in flight when it goes (an error on the way out) are waited for, not left to
// read freed samples (ASan/TSan runs of this test say so).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "j2kfront/j2kfront.hpp"
#include "tests/support/pattern_images.hpp"
#include "tools/frames_in_flight.hpp"

namespace {

using j2k::tools::FramesInFlight;
using test_support::pattern_image;

// n grey 10-bit images of one shape; `bad` gets a sample above 10 bits (it cannot be coded).
std::vector<j2kfront::Image> images(int n, int bad = -1) {
  std::vector<j2kfront::Image> out;
  for (int i = 0; i < n; ++i) out.push_back(pattern_image(1, 2, 45, 33, 1, J2K_SAMPLE_U16, 10, i % 2, 40u + static_cast<unsigned>(i)));
  if (bad >= 0) {
    const uint16_t big = 4000;
    std::memcpy(out[static_cast<size_t>(bad)].components[0].bytes.data() + 2 * 19, &big, 2);
  }
  return out;
}

j2kfront::Settings settings() {
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 3;
  s.threads = 2;
  return s;
}

struct Handed {
  std::vector<size_t> jobs;  // in the order handed on
  std::vector<std::vector<uint8_t>> files;
  std::vector<std::string> errors;  // "" where it was written
};

TEST(FramesInFlight, EveryFrameInOrderWithRunsFileWhateverTheWindow) {
  for (int lanes : {1, 2, 3, 8})
    for (size_t window : {size_t{1}, size_t{2}, size_t{4}, size_t{8}}) {
      SCOPED_TRACE(std::to_string(lanes) + " lanes, window " + std::to_string(window));
      std::vector<j2kfront::Image> in = images(11, 6);
      j2kfront::Coding coding;
      coding.frames_in_flight = lanes;
      j2kfront::Encoder oracle(settings(), j2kfront::Coding(), in[0].view());
      std::vector<std::vector<uint8_t>> expected;
      std::string bad_error;
      for (const j2kfront::Image& im : in) {
        try {
          expected.push_back(oracle.encode(im.view()));
        } catch (const j2kfront::Error& e) {
          expected.emplace_back();
          bad_error = e.what();
        }
      }
      ASSERT_NE(bad_error, "") << "image 6 must fail";
      Handed h;
      j2kfront::Encoder encoder(settings(), coding, in[0].view());
      {
        FramesInFlight frames(
            [&](const FramesInFlight::Frame& f, const uint8_t* data, size_t size, const j2kfront::Encoder& e) {
              EXPECT_EQ(&e, &encoder);
              h.jobs.push_back(f.job);
              h.files.emplace_back(data, data + size);
              h.errors.emplace_back();
            },
            [&](FramesInFlight::Frame& f, const std::exception& e) {
              h.jobs.push_back(f.job);
              h.files.emplace_back();
              h.errors.emplace_back(e.what());
            });
        frames.set_window(window);
        for (size_t k = 0; k < in.size(); ++k) {
          frames.make_room();
          FramesInFlight::Frame f;
          f.job = k;
          f.image = std::move(in[k]);  // its samples now held by the queue
          frames.submit(encoder, std::move(f));
        }
        frames.finish();
        EXPECT_TRUE(frames.empty());
      }
      ASSERT_EQ(h.jobs.size(), expected.size());
      for (size_t k = 0; k < expected.size(); ++k) {
        EXPECT_EQ(h.jobs[k], k);
        EXPECT_TRUE(h.files[k] == expected[k]) << "image " << k;
        EXPECT_EQ(h.errors[k], k == 6 ? bad_error : std::string()) << "image " << k;
      }
    }
}

// A write that fails (done throws) is that frame's failure; the next frames are written.
TEST(FramesInFlight, AFailedWriteIsThatFramesOwn) {
  std::vector<j2kfront::Image> in = images(5);
  j2kfront::Coding coding;
  coding.frames_in_flight = 2;
  j2kfront::Encoder encoder(settings(), coding, in[0].view());
  std::vector<size_t> written, failed;
  FramesInFlight frames(
      [&](const FramesInFlight::Frame& f, const uint8_t*, size_t, const j2kfront::Encoder&) {
        if (f.job == 1) throw std::runtime_error("disk full");
        written.push_back(f.job);
      },
      [&](FramesInFlight::Frame& f, const std::exception& e) {
        EXPECT_STREQ(e.what(), "disk full");
        failed.push_back(f.job);
      });
  frames.set_window(3);
  for (size_t k = 0; k < in.size(); ++k) {
    FramesInFlight::Frame f;
    f.job = k;
    f.image = std::move(in[k]);
    frames.submit(encoder, std::move(f));
  }
  frames.finish();
  EXPECT_EQ(written, (std::vector<size_t>{0, 2, 3, 4}));
  EXPECT_EQ(failed, (std::vector<size_t>{1}));
}

// Left with frames in flight (the caller's exception on the way out): they are waited for and
// dropped, nothing handed on; the encoder outlives the queue, as in the CLI.
TEST(FramesInFlight, GoneWithFramesInFlightWaitsForThem) {
  std::vector<j2kfront::Image> in = images(6, 3);
  j2kfront::Coding coding;
  coding.frames_in_flight = 3;
  j2kfront::Encoder encoder(settings(), coding, in[0].view());
  int handed = 0;
  {
    FramesInFlight frames([&](const FramesInFlight::Frame&, const uint8_t*, size_t, const j2kfront::Encoder&) { ++handed; },
                          [&](FramesInFlight::Frame&, const std::exception&) { ++handed; });
    frames.set_window(8);
    for (size_t k = 0; k < in.size(); ++k) {
      FramesInFlight::Frame f;
      f.job = k;
      f.image = std::move(in[k]);
      frames.submit(encoder, std::move(f));
    }
    EXPECT_FALSE(frames.empty());
  }
  EXPECT_EQ(handed, 0);
  // The encoder takes frames again afterwards.
  const j2kfront::Image next = images(1)[0];
  EXPECT_FALSE(encoder.encode(next.view()).empty());
}

// Frames for another encoder while some are in flight: refused, not mixed up.
TEST(FramesInFlight, AnotherEncoderBeforeFinishIsRefused) {
  std::vector<j2kfront::Image> in = images(2);
  j2kfront::Coding coding;
  coding.frames_in_flight = 2;
  j2kfront::Encoder a(settings(), coding, in[0].view()), b(settings(), coding, in[0].view());
  FramesInFlight frames([](const FramesInFlight::Frame&, const uint8_t*, size_t, const j2kfront::Encoder&) {},
                        [](FramesInFlight::Frame&, const std::exception&) {});
  frames.set_window(4);
  FramesInFlight::Frame f;
  f.image = in[0];
  frames.submit(a, std::move(f));
  FramesInFlight::Frame g;
  g.image = in[1];
  EXPECT_THROW(frames.submit(b, std::move(g)), std::exception);
  frames.finish();
  FramesInFlight::Frame h;
  h.image = in[1];
  frames.submit(b, std::move(h));  // after finish(), another encoder is fine
  frames.finish();
}

}  // namespace
