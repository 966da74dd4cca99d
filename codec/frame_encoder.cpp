// SPDX-License-Identifier: BSD-2-Clause
// Frames in flight through the whole encoder (frame_encoder.hpp).
#include "codec/frame_encoder.hpp"

#include <new>
#include <string>
#include <utility>

#include "common/error.hpp"

namespace j2k::codec {

FrameEncoder::FrameEncoder(const EncoderSettings& settings, const j2k_image_view& shape, int lanes,
                           const std::vector<int>& devices, int device_turns, Encoder* first)
    : settings_(settings), shape_(shape), devices_(devices), device_turns_(device_turns) {
  if (lanes < 1 || lanes > kMaxFramesInFlight)
    throw Error(ErrorCode::InvalidArgument, "frames in flight: " + std::to_string(lanes) + " encoders side by side; 1 to " +
                                                std::to_string(kMaxFramesInFlight) + " are allowed");
  for (int d : devices)
    if (d < 0) throw Error(ErrorCode::InvalidArgument, "frames in flight: device " + std::to_string(d) + " (devices are 0 and up)");
  most_lanes_ = static_cast<size_t>(lanes);
  if (shape.num_components > 0 && shape.components != nullptr)
    shape_components_.assign(shape.components, shape.components + shape.num_components);
  shape_.components = shape_components_.empty() ? nullptr : shape_components_.data();
  lanes_.reserve(most_lanes_);  // add_lane's push_back never throws once its thread runs
  threads_.reserve(most_lanes_);
  // Lane 0 is the caller's encoder where it runs on lane 0's device: its plan and buffers
  // are not made twice.
  first_ = first != nullptr && (devices.empty() || devices[0] == settings.plan.backend.device) ? first : nullptr;
  add_lane();  // its errors are the FrameEncoder's
}

void FrameEncoder::add_lane() {
  const size_t i = lanes_.size();
  EncoderSettings s = settings_;
  if (!devices_.empty()) s.plan.backend.device = devices_[i * devices_.size() / most_lanes_];
  std::unique_ptr<Encoder> owned;
  Encoder* encoder = i == 0 ? first_ : nullptr;
  if (encoder == nullptr) {
    owned = std::make_unique<Encoder>(s, shape_);
    encoder = owned.get();
  }
  if (device_turns_ > 0) {
    std::unique_ptr<DeviceTurns>& turns = turns_[s.plan.backend.device];
    if (!turns) turns = std::make_unique<DeviceTurns>(device_turns_);
    encoder->share_device(turns.get());
  }
  threads_.emplace_back([this, encoder, lane = static_cast<int>(i)] { lane_loop(*encoder, lane); });
  lanes_.push_back(std::move(owned));  // (null for the caller's encoder; the thread has its pointer)
  std::unique_lock<std::mutex> lock(mutex_);
  lanes_made_ = lanes_.size();
}

bool FrameEncoder::in_flight() const {
  std::unique_lock<std::mutex> lock(mutex_);
  return !frames_.empty();
}

int FrameEncoder::lanes() const {
  std::unique_lock<std::mutex> lock(mutex_);
  return static_cast<int>(lanes_made_);
}

FrameEncoder::~FrameEncoder() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    queue_.clear();  // frames not started are dropped; those being coded finish
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void FrameEncoder::lane_loop(Encoder& encoder, int lane) {
  for (;;) {
    Frame* frame = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      frame = queue_.front();
      queue_.pop_front();
      ++busy_;
    }
    // Only this lane touches the frame until it is done.
    try {
      encoder.encode(frame->image);
      // The file changes hands (the frame's spare storage goes to the encoder): a 12-bit
      // lossless 4K frame is 25 MB, whose copy cost as much as its Tier-2.
      encoder.swap_bytes(frame->file);
      frame->report = encoder.report();
      frame->report.lane = lane;
    } catch (...) {
      frame->error = std::current_exception();
    }
    {
      std::unique_lock<std::mutex> lock(mutex_);
      frame->done = true;
      --busy_;
    }
    done_.notify_all();
  }
}

uint64_t FrameEncoder::submit(const j2k_image_view& image) {
  auto frame = std::make_unique<Frame>();
  frame->image = image;
  if (image.num_components > 0 && image.components != nullptr)
    frame->components.assign(image.components, image.components + image.num_components);
  frame->image.components = frame->components.empty() ? nullptr : frame->components.data();
  // Another lane where this frame would find none free, made before the frame is queued: a
  // lane that cannot be made for want of memory leaves the frame to those there are, and any
  // other error (a device that is not there) is this submit's, the frame not queued.
  bool another_lane = false;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (frames_.size() >= static_cast<size_t>(kMaxFramesInFlight))
      throw Error(ErrorCode::InvalidArgument, "frames in flight: " + std::to_string(frames_.size()) +
                                                  " submitted and not waited for, the most there may be: wait for one first");
    // Every lane busy and a frame waiting already: one waiting frame is not worth a lane's
    // start-up (a caller feeding frames about as fast as a lane codes them always has one).
    another_lane = queue_.size() + 1 > lanes_made_ - busy_ + 1 && lanes_made_ < most_lanes_;
  }
  if (another_lane) {
    try {
      add_lane();
    } catch (const Error& e) {
      if (e.code() != ErrorCode::OutOfMemory) throw;
      most_lanes_ = lanes_.size();
    } catch (const std::bad_alloc&) {
      most_lanes_ = lanes_.size();
    }
  }
  uint64_t ticket = 0;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!spare_files_.empty()) {
      frame->file = std::move(spare_files_.back());
      spare_files_.pop_back();
    }
    ticket = next_ticket_++;
    queue_.push_back(frame.get());
    frames_.emplace(ticket, std::move(frame));
  }
  work_.notify_one();
  return ticket;
}

EncodeReport FrameEncoder::wait(uint64_t ticket, std::vector<uint8_t>& file) {
  std::unique_ptr<Frame> frame;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto it = frames_.find(ticket);
    if (it == frames_.end())
      throw Error(ErrorCode::InvalidArgument, "frames in flight: ticket " + std::to_string(ticket) +
                                                  " is not in flight (never submitted, or waited for already)");
    Frame* f = it->second.get();
    done_.wait(lock, [&] { return f->done; });
    frame = std::move(it->second);
    frames_.erase(it);
    std::swap(file, frame->file);
    spare_files_.push_back(std::move(frame->file));  // the caller's old storage, for a later frame
  }
  if (frame->error) std::rethrow_exception(frame->error);
  return frame->report;
}

}  // namespace j2k::codec
