// SPDX-License-Identifier: BSD-2-Clause
// Frames in flight through the whole encoder: a sequence of images of one shape coded by
// `lanes` encoders side by side (encoder.hpp), each on a host thread of its own with its own
// plan, buffers and, on a GPU backend, streams, so that one frame's rate control and Tier-2
// on the host overlap the next frames' front stage and block coding on the device. With a
// list of devices, the lanes are spread over them in order, lanes / count a device (lane i on
// devices[i * count / lanes]): frames spread over several GPUs, the first device's lanes made
// first.
//
//   FrameEncoder frames(settings, shape, 3, {});  // 3 lanes on settings' device
//   uint64_t t = frames.submit(image);   // the image's samples stay valid until wait(t) returns
//   std::vector<uint8_t> file;
//   EncodeReport r = frames.wait(t, file);   // throws that frame's error, if it had one
//
// Lanes are made as the frames need them: the first with the FrameEncoder, another at a submit
// that finds every lane busy and a frame waiting already, up to `lanes`. A sequence whose caller feeds
// frames no faster than one lane codes them (reading files, say) so never pays for the
// others' plans, pinned buffers and device contexts. A lane that cannot be made then (out of
// memory) is not an error: the lanes there are code the frames.
//
// Frames start in the order submitted, each on the first lane free; a frame's error (a sample
// out of range, a device out of memory) is its own: the frames before and after it are coded
// as usual. Each lane's codestream is what Encoder::encode gives for the image, byte for byte.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "codec/encoder.hpp"
#include "j2kfront/j2kfront.h"

namespace j2k::codec {

class FrameEncoder {
 public:
  // At most this many frames submitted and not yet waited for (the plan's own limit).
  static constexpr int kMaxFramesInFlight = J2K_MAX_FRAMES_IN_FLIGHT;

  // Up to `lanes` 1..kMaxFramesInFlight encoders of `settings` for `shape`, the first made here
  // (each checks the settings; its max_bytes is its own); `devices` empty: each on settings'
  // device. `first`: an encoder of these settings and shape made already (the caller's, not
  // used by it while frames are in flight), which is lane 0 where it is on lane 0's device.
  // device_turns > 0: at most that many of one device's encoders in their device stages at
  // once (device_turns.hpp). Throws Error as Encoder's constructor does, or InvalidArgument
  // for a bad lane count.
  FrameEncoder(const EncoderSettings& settings, const j2k_image_view& shape, int lanes, const std::vector<int>& devices,
               int device_turns = 0, Encoder* first = nullptr);
  ~FrameEncoder();  // waits for the frames in flight (their files are dropped)
  FrameEncoder(const FrameEncoder&) = delete;
  FrameEncoder& operator=(const FrameEncoder&) = delete;

  // Queues `image` (the shape's geometry and types; its view is copied, its samples are read
  // while it is coded) and returns its ticket (1, 2, ...). Throws InvalidArgument where
  // kMaxFramesInFlight frames wait already.
  uint64_t submit(const j2k_image_view& image);
  // Waits for frame `ticket`; its file goes into `file` (whose storage is kept for a later
  // frame), and its report comes back. Throws that frame's error, or InvalidArgument for a
  // ticket not in flight (never submitted, or waited for already).
  EncodeReport wait(uint64_t ticket, std::vector<uint8_t>& file);

  // The lanes made so far.
  int lanes() const;
  // Whether frames are submitted and not yet waited for.
  bool in_flight() const;

 private:
  struct Frame {
    j2k_image_view image{};
    std::vector<j2k_component_view> components;  // image.components points here
    bool done = false;
    std::exception_ptr error;
    std::vector<uint8_t> file;
    EncodeReport report;
  };
  void lane_loop(Encoder& encoder, int lane);
  // Makes lane lanes_.size() and starts its thread (the caller's thread, not under mutex_).
  void add_lane();

  EncoderSettings settings_;
  j2k_image_view shape_{};
  std::vector<j2k_component_view> shape_components_;  // shape_.components points here
  std::vector<int> devices_;
  int device_turns_ = 0;
  size_t most_lanes_ = 1;
  std::map<int, std::unique_ptr<DeviceTurns>> turns_;  // by device, with device_turns
  Encoder* first_ = nullptr;                          // the caller's encoder, lane 0
  std::vector<std::unique_ptr<Encoder>> lanes_;       // (grown by the submitting thread only;
                                                      // lane 0 null where it is first_)
  std::vector<std::thread> threads_;
  mutable std::mutex mutex_;
  size_t lanes_made_ = 0;                              // lanes_.size(), read under mutex_
  size_t busy_ = 0;                                    // lanes coding a frame
  std::condition_variable work_, done_;
  std::deque<Frame*> queue_;                          // submitted, not started
  std::map<uint64_t, std::unique_ptr<Frame>> frames_;  // submitted, not waited for
  std::vector<std::vector<uint8_t>> spare_files_;     // storage of files waited for, for the next frames
  uint64_t next_ticket_ = 1;
  bool stopping_ = false;
};

}  // namespace j2k::codec
