// SPDX-License-Identifier: BSD-2-Clause
#include "tools/frames_in_flight.hpp"

#include "common/error.hpp"

namespace j2k::tools {

FramesInFlight::~FramesInFlight() {
  for (Frame& f : frames_) {
    try {
      encoder_->wait_in_place(f.ticket);
    } catch (...) {  // on the way out already: the frame's own error is not news
    }
  }
}

void FramesInFlight::make_room() {
  while (!frames_.empty() && frames_.size() >= window_) finish_oldest();
}

void FramesInFlight::submit(j2kfront::Encoder& encoder, Frame&& frame) {
  if (!frames_.empty() && encoder_ != &encoder)
    throw Error(ErrorCode::Internal, "frames in flight: a frame submitted to another encoder before the last ones finished");
  encoder_ = &encoder;
  make_room();
  frame.ticket = encoder.submit(frame.image.view());  // the samples' buffers move with the image
  frames_.push_back(std::move(frame));
}

void FramesInFlight::finish() {
  while (!frames_.empty()) finish_oldest();
}

void FramesInFlight::finish_oldest() {
  Frame f = std::move(frames_.front());
  frames_.pop_front();
  try {
    const auto [data, size] = encoder_->wait_in_place(f.ticket);
    done_(f, data, size, *encoder_);
  } catch (const std::exception& e) {
    failed_(f, e);
  }
}

}  // namespace j2k::tools
