// SPDX-License-Identifier: BSD-2-Clause
// A directory's images through an encoder's frames in flight (j2k_encoder_submit / wait), for
// `compress -i DIR`: up to `window` images submitted and not yet written. The caller makes room
// (the oldest waited for and handed on) before it reads the next file, so that reading it and
// writing the last overlap the coding of the ones between, and the encoders always find a
// frame queued. Each image's samples are held here until its frame is handed on.
#pragma once
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>

#include "j2kfront/j2kfront.hpp"

namespace j2k::tools {

class FramesInFlight {
 public:
  struct Frame {
    size_t job = 0;                             // which input
    j2kfront::Image image;                      // its samples, read by the encoder until its wait
    std::chrono::steady_clock::time_point t0;   // when its reading began
    int resolutions = 0;                        // for what is said of it
    j2k_ticket ticket = 0;                      // (submit fills it in)
  };
  // done(frame, data, size, encoder): its file (valid during the call) and the encoder whose
  // report() is the frame's; failed(frame, error): its coding's (or done's) error, the frame
  // the callee's to keep (its samples, to code it again). The frames around a failed one go on.
  // Done may take the frame's image (its samples are read no more).
  using Done = std::function<void(Frame&, const uint8_t*, size_t, const j2kfront::Encoder&)>;
  using Failed = std::function<void(Frame&, const std::exception&)>;
  FramesInFlight(Done done, Failed failed) : done_(std::move(done)), failed_(std::move(failed)) {}
  // The frames still in flight are waited for, their files dropped (an exception on the way
  // out): their samples outlive the encoder's reading of them.
  ~FramesInFlight();
  FramesInFlight(const FramesInFlight&) = delete;
  FramesInFlight& operator=(const FramesInFlight&) = delete;

  // How many may be in flight from now on (1 to J2K_MAX_FRAMES_IN_FLIGHT).
  void set_window(size_t window) { window_ = window; }
  // Where `window` frames are in flight, the oldest handed on.
  void make_room();
  // Submits `frame`'s image to `encoder`, which must be the one every frame in flight went to
  // (finish() before another), and takes the frame; where the submit throws, the frame is
  // left to the caller as it was.
  void submit(j2kfront::Encoder& encoder, Frame&& frame);
  // Every frame in flight handed on, oldest first.
  void finish();
  bool empty() const { return frames_.empty(); }

 private:
  void finish_oldest();

  Done done_;
  Failed failed_;
  size_t window_ = 1;
  j2kfront::Encoder* encoder_ = nullptr;
  std::deque<Frame> frames_;
};

}  // namespace j2k::tools
