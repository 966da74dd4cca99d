// SPDX-License-Identifier: BSD-2-Clause
// The bit writers of the HT passes (ISO/IEC 15444-15 Annex C), the mirrors of
// bit_readers.hpp: MagSgn and SigProp forward from each byte's LSB, MEL from each byte's MSB,
// all with a stuffed 0 after 0xFF; VLC and MagRef from each byte's LSB, laid out backward
// from the segment's end, with a stuffed 0 in a byte whose low 7 bits are all 1 after one
// above 0x8F. Then the terminations: MagSgn padded with 1s (which the decoder reads past its
// end anyway), SigProp with 0s (its fill), MEL and VLC closed and, where their bits allow,
// fused into one byte; MagRef's last byte padded with 0s.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace j2k::codec::ht {

// MagSgn (the cleanup segment's first stream) and SigProp (the refinement segment's).
class ForwardWriter {
 public:
  // The low n bits of v (n <= 32), bit 0 first. Whole bytes leave the accumulator as soon as
  // they are there, each 8 bits, or 7 after a 0xFF.
  void put(uint32_t v, int n) {
    acc_ |= static_cast<uint64_t>(v & static_cast<uint32_t>((uint64_t{1} << n) - 1)) << count_;
    count_ += n;
    while (count_ >= room_) {
      const auto byte = static_cast<uint8_t>(acc_ & ((1u << room_) - 1));
      bytes_.push_back(byte);
      acc_ >>= room_;
      count_ -= room_;
      room_ = byte == 0xFF ? 7 : 8;
    }
  }
  // MagSgn's bytes: the last byte padded with 1s, and dropped when that makes it 0xFF
  // (as is a last 0xFF): the decoder reads 1s past the end.
  std::vector<uint8_t>& finish_magsgn() {
    if (count_ > 0) {
      const auto byte = static_cast<uint8_t>((acc_ | (0xFFu << count_)) & ((1u << room_) - 1));
      if (byte != 0xFF) bytes_.push_back(byte);
    } else if (!bytes_.empty() && bytes_.back() == 0xFF) {
      bytes_.pop_back();
    }
    return bytes_;
  }
  // SigProp's bytes: the last byte padded with 0s and kept, so that a MagRef stream may follow
  // (the SigProp decoder then reads MagRef's bytes, not its fill, past the end); a last 0xFF
  // gets a 0 byte after it, so that the segment never ends in 0xFF nor makes a marker code
  // with the MagRef byte after it.
  std::vector<uint8_t>& finish_sigprop() {
    if (count_ > 0) bytes_.push_back(static_cast<uint8_t>(acc_ & ((1u << room_) - 1)));
    else if (!bytes_.empty() && bytes_.back() == 0xFF) bytes_.push_back(0);
    count_ = 0;
    acc_ = 0;
    return bytes_;
  }
  void reserve(size_t n) { bytes_.reserve(n); }

 private:
  std::vector<uint8_t> bytes_;
  uint64_t acc_ = 0;
  int count_ = 0, room_ = 8;
};

// The MEL coder: runs of zero events in states k = 0..12 (see MelDecoder).
class MelEncoder {
 public:
  void put(bool one) {
    static constexpr int kExponent[13] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5};
    const int e = kExponent[k_];
    if (!one) {
      if (++run_ < (1 << e)) return;
      bit(1);  // a full run of 2^E zeros
      run_ = 0;
      k_ = std::min(k_ + 1, 12);
      return;
    }
    bit(0);  // a short run, its length in E bits, then the one
    for (int t = e - 1; t >= 0; --t) bit((run_ >> t) & 1);
    run_ = 0;
    k_ = std::max(k_ - 1, 0);
  }
  void bit(int b) {
    tmp_ = (tmp_ << 1) | static_cast<unsigned>(b);
    if (--left_ == 0) {
      bytes_.push_back(static_cast<uint8_t>(tmp_));
      left_ = tmp_ == 0xFF ? 7 : 8;
      tmp_ = 0;
    }
  }
  // A run cut short by the end of the block is sent as a full one (the decoder makes up
  // events nobody asks for).
  void close_run() {
    if (run_ > 0) bit(1);
    run_ = 0;
  }

  std::vector<uint8_t> bytes_;
  unsigned tmp_ = 0;
  int left_ = 8;  // bits the byte being filled has room for

 private:
  int k_ = 0, run_ = 0;
};

// The backward streams, their bytes in the order written (the segment holds them reversed).
// VLC: the first byte written is the segment's last, left for the length of MEL and VLC, as
// are the low 4 bits of the second (BackwardBits's first_nibble). MagRef: from the first
// bit, as after a byte above 0x8F (so its first byte, the segment's last, is never 0xFF).
class BackwardWriter {
 public:
  enum Start { kVlc, kMagRef };
  explicit BackwardWriter(Start start = kVlc) {
    if (start == kVlc) {
      bytes_.push_back(0xFF);
      tmp_ = 0x0F;
      used_ = 4;
    }
  }

  void put(uint32_t v, int n) {
    while (n > 0) {
      int room = 8 - (above_8f_ ? 1 : 0) - used_;
      const int t = std::min(room, n);
      tmp_ |= (v & ((1u << t) - 1)) << used_;
      used_ += t;
      room -= t;
      n -= t;
      v >>= t;
      if (room == 0) {
        // After a byte above 0x8F the MSB is stuffed only where the other 7 bits are all 1.
        if (above_8f_ && tmp_ != 0x7F) {
          above_8f_ = false;
          continue;
        }
        bytes_.push_back(static_cast<uint8_t>(tmp_));
        above_8f_ = tmp_ > 0x8F;
        tmp_ = 0;
        used_ = 0;
      }
    }
  }

  // MagRef's bytes in the order written: the last one padded with 0s (the decoder's fill).
  std::vector<uint8_t>& finish_magref() {
    if (used_ > 0) bytes_.push_back(static_cast<uint8_t>(tmp_));
    used_ = 0;
    tmp_ = 0;
    return bytes_;
  }

  std::vector<uint8_t> bytes_;
  unsigned tmp_ = 0;  // VLC: the low nibble is the length's, filled in at the end
  int used_ = 0;

 private:
  bool above_8f_ = true;
};

// The cleanup segment: MagSgn, MEL, then VLC reversed, the last 12 bits the length of MEL and
// VLC (Scup). MEL's and VLC's last bytes are fused where neither's bits clash and the result
// is not 0xFF (and VLC holds more than its first byte, which the length shares). Returns
// false when MEL and VLC exceed the 4079 bytes Scup can say.
inline bool assemble_cleanup(std::vector<uint8_t>& magsgn, MelEncoder& mel, BackwardWriter& vlc, std::vector<uint8_t>& out) {
  mel.close_run();
  const unsigned mel_tmp = (mel.tmp_ << mel.left_) & 0xFF;
  const unsigned mel_mask = (0xFFu << mel.left_) & 0xFF;
  const unsigned vlc_mask = 0xFFu >> (8 - vlc.used_);
  if ((mel_mask | vlc_mask) != 0) {
    const unsigned fuse = mel_tmp | vlc.tmp_;
    if (((fuse ^ mel_tmp) & mel_mask) == 0 && ((fuse ^ vlc.tmp_) & vlc_mask) == 0 && fuse != 0xFF && vlc.bytes_.size() > 1) {
      mel.bytes_.push_back(static_cast<uint8_t>(fuse));
    } else {
      mel.bytes_.push_back(static_cast<uint8_t>(mel_tmp));
      vlc.bytes_.push_back(static_cast<uint8_t>(vlc.tmp_));
    }
  }
  const size_t scup = mel.bytes_.size() + vlc.bytes_.size();
  if (scup > 4079) return false;
  out = std::move(magsgn);
  out.insert(out.end(), mel.bytes_.begin(), mel.bytes_.end());
  out.insert(out.end(), vlc.bytes_.rbegin(), vlc.bytes_.rend());
  const size_t l = out.size();
  out[l - 1] = static_cast<uint8_t>(scup >> 4);
  out[l - 2] = static_cast<uint8_t>((out[l - 2] & 0xF0) | (scup & 0x0F));
  return true;
}

}  // namespace j2k::codec::ht
