// SPDX-License-Identifier: BSD-2-Clause
// The raw (bypass) coder of ISO/IEC 15444-1 D.6: with the BYPASS mode switch, the
// significance and refinement passes of the lower bit planes put their decisions straight into
// bytes, most significant bit first, with a 0 bit stuffed after each 0xFF so that no two bytes
// read as a marker.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace j2k::codec {

class RawEncoder {
 public:
  void put(int bit) {
    cur_ = static_cast<uint8_t>((cur_ << 1) | bit);
    if (++bits_ == full()) {
      buf_.push_back(cur_);
      cur_ = 0;
      bits_ = 0;
    }
  }

  // Bytes a decoder needs for the decisions so far: the complete bytes and a started one.
  size_t bytes_needed() const { return buf_.size() + (bits_ ? 1 : 0); }

  // Ends the segment. A started byte is filled with 0, 1, 0, ... (what predictable termination
  // asks, and harmless otherwise); with `predictable` also a byte that only the stuffed bit
  // started. A final 0xFF is dropped: a decoder reads 1s past a segment's end, and a segment
  // must not end in 0xFF.
  void flush(bool predictable) {
    if (bits_ > 0 || (predictable && full() == 7)) {
      for (int b = 0; bits_ < full(); ++bits_, b ^= 1) cur_ = static_cast<uint8_t>((cur_ << 1) | b);
      buf_.push_back(cur_);
      cur_ = 0;
      bits_ = 0;
    }
    if (!buf_.empty() && buf_.back() == 0xFF) buf_.pop_back();
  }

  const std::vector<uint8_t>& bytes() const { return buf_; }
  void restart() {
    buf_.clear();
    cur_ = 0;
    bits_ = 0;
  }

 private:
  // A byte after 0xFF carries 7 bits; its most significant bit is the stuffed 0.
  int full() const { return !buf_.empty() && buf_.back() == 0xFF ? 7 : 8; }

  std::vector<uint8_t> buf_;
  uint8_t cur_ = 0;
  int bits_ = 0;
};

}  // namespace j2k::codec
