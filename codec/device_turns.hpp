// SPDX-License-Identifier: BSD-2-Clause
// Turns on one device for the encoders of a FrameEncoder (j2k_coding.device_turns): at most
// `at_once` of them in their device stages (the front stage, and Tier-1 where the blocks are
// coded on the device) at a time. Encoders side by side that start together stay in step (each
// frame takes them about as long), so that every frame's upload meets the others' on the copy
// engines and every Tier-2 meets the others' on the host; taking turns staggers them, one
// frame's device work beside another's Tier-2.
#pragma once
#include <condition_variable>
#include <mutex>

namespace j2k::codec {

class DeviceTurns {
 public:
  explicit DeviceTurns(int at_once) : free_(at_once) {}
  void take() {
    std::unique_lock<std::mutex> lock(mutex_);
    freed_.wait(lock, [&] { return free_ > 0; });
    --free_;
  }
  void give() {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ++free_;
    }
    freed_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  int free_;
};

// A turn held from construction until release() or destruction.
class DeviceTurn {
 public:
  explicit DeviceTurn(DeviceTurns* turns) : turns_(turns) {
    if (turns_) turns_->take();
  }
  ~DeviceTurn() { release(); }
  DeviceTurn(const DeviceTurn&) = delete;
  DeviceTurn& operator=(const DeviceTurn&) = delete;
  void release() {
    if (turns_) turns_->give();
    turns_ = nullptr;
  }

 private:
  DeviceTurns* turns_;
};

}  // namespace j2k::codec
