// SPDX-License-Identifier: BSD-2-Clause
// How far Tier-2 has read a tile, for a caller that decodes the code-blocks of the first
// resolutions on other threads while Tier-2 reads the packets of the rest (the decoder's rows:
// the coarser levels' blocks beside the finest level's packets, which in a resolution-first
// progression are most of the tile).
#pragma once
#include <condition_variable>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace j2k::codec {

struct TilePackets;

class PacketProgress {
 public:
  // Component c's resolutions 0 .. last_resolution[c] are the ones waited for (-1: none).
  explicit PacketProgress(std::vector<int> last_resolution) : last_(std::move(last_resolution)) {}
  PacketProgress(const PacketProgress&) = delete;
  PacketProgress& operator=(const PacketProgress&) = delete;

  // Called on Tier-2's thread once the resolutions waited for are read, before wait() hears
  // of it (a test's look at the blocks at that moment).
  std::function<void(const TilePackets&)> on_read;

  // Waits until the resolutions waited for are read, or Tier-2 has ended without that (its
  // data cut short, an error, a progression whose packets of those resolutions come to the
  // end). True: the tile's layout and those resolutions' blocks, with their data, are in the
  // TilePackets being read, and stay as they are while Tier-2 reads on. False: nothing may be
  // read from it until Tier-2's call has returned.
  bool wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return read_ || ended_; });
    return read_;
  }

  // Tier-2's side (read_tile_packets).
  int last_resolution(size_t component) const { return component < last_.size() ? last_[component] : -1; }
  void read(const TilePackets& packets) {
    if (on_read) on_read(packets);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      read_ = true;
    }
    changed_.notify_all();
  }
  void end() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ended_ = true;
    }
    changed_.notify_all();
  }

 private:
  std::vector<int> last_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool read_ = false, ended_ = false;
};

}  // namespace j2k::codec
