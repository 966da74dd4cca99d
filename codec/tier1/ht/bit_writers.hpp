// SPDX-License-Identifier: BSD-2-Clause
// The bit writers of the HT passes (ISO/IEC 15444-15 Annex C), the mirrors of
// bit_readers.hpp: MagSgn and SigProp forward from each byte's LSB, MEL from each byte's MSB,
// all with a stuffed 0 after 0xFF; VLC and MagRef from each byte's LSB, laid out backward
// from the segment's end, with a stuffed 0 in a byte whose low 7 bits are all 1 after one
// above 0x8F. Then the terminations: MagSgn padded with 1s (which the decoder reads past its
// end anyway), SigProp with 0s (its fill), MEL and VLC closed and, where their bits allow,
// fused into one byte; MagRef's last byte padded with 0s. Host and device code
// (host_device.hpp): the GPU.s cleanup coder (gpu/cuda/warp_cleanup.cuh) writes with them.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/ht/host_device.hpp"

namespace j2k::codec::ht {

// The worst case of any stream of a block of n samples: 32 bits a sample (MagSgn: a
// magnitude's bits and its sign), one more bit in 7 for the stuffing, and a margin. The
// writers write into buffers of this size unchecked: what they hold is bounded by the block,
// not by anything a caller could get wrong.
// (The writers also store 4 bytes past their end before they know whether they are whole.)
J2K_HD constexpr size_t stream_capacity(size_t samples) { return samples * 5 + 64; }

// The worst case of a block's MEL stream, n samples: an event a quad (at most one a sample)
// and one more a pair of quads, each at most 6 bits (a one: "0" and a run of up to 5 bits),
// so at most 9 bits a sample and the closing run's bit; with one bit in 8 stuffed at worst,
// within 2 bytes a sample and a margin (the last byte, fused or not, included).
J2K_HD constexpr size_t mel_capacity(size_t samples) { return samples * 2 + 16; }

// MagSgn (the cleanup segment's first stream) and SigProp (the refinement segment's), into
// `out` (stream_capacity of the block's samples).
class ForwardWriter {
 public:
  J2K_HD explicit ForwardWriter(uint8_t* out) : begin_(out), end_(out) {}

  // The low n bits of v (n <= 32), bit 0 first. Bytes leave the accumulator 4 at once when
  // 32 bits are there and none of the first three is 0xFF (nor the byte before them), else
  // one at a time, each 8 bits, or 7 after a 0xFF. The common case takes no branch on the
  // count: the word is stored always and the end moves only when it is whole.
  J2K_HD void put(uint32_t v, int n) {
    acc_ |= (static_cast<uint64_t>(v) & ((uint64_t{1} << n) - 1)) << count_;
    count_ += n;
    const auto word = static_cast<uint32_t>(acc_);
    store_le32(end_, word);
    const int full = count_ >= 32 ? 1 : 0;
    const uint32_t inv = ~word | 0xFF000000u;  // the 4th byte may be 0xFF: room_ says so next
    const bool ff = ((inv - 0x01010101u) & ~inv & 0x80808080u) != 0;
    if (full & (ff | (room_ != 8))) {
      drain();
      return;
    }
    end_ += 4 * full;
    acc_ >>= 32 * full;
    count_ -= 32 * full;
    room_ -= full & ((word >> 24) == 0xFF ? 1 : 0);
  }
  // MagSgn's bytes: the last byte padded with 1s, and dropped when that makes it 0xFF
  // (as is a last 0xFF): the decoder reads 1s past the end.
  J2K_HD size_t finish_magsgn() {
    drain();
    if (count_ > 0) {
      const auto byte = static_cast<uint8_t>((acc_ | (0xFFu << count_)) & ((1u << room_) - 1));
      if (byte != 0xFF) *end_++ = byte;
    } else if (end_ != begin_ && end_[-1] == 0xFF) {
      --end_;
    }
    return size();
  }
  // SigProp's bytes: the last byte padded with 0s and kept, so that a MagRef stream may follow
  // (the SigProp decoder then reads MagRef's bytes, not its fill, past the end); a last 0xFF
  // gets a 0 byte after it, so that the segment never ends in 0xFF nor makes a marker code
  // with the MagRef byte after it.
  J2K_HD size_t finish_sigprop() {
    drain();
    if (count_ > 0) *end_++ = static_cast<uint8_t>(acc_ & ((1u << room_) - 1));
    else if (end_ != begin_ && end_[-1] == 0xFF) *end_++ = 0;
    count_ = 0;
    acc_ = 0;
    return size();
  }
  J2K_HD size_t size() const { return static_cast<size_t>(end_ - begin_); }
  J2K_HD const uint8_t* data() const { return begin_; }

 private:
  // Every whole byte out: 4 at once where none of the first three is 0xFF (nor the byte
  // before them: then each holds 8 bits), else one at a time.
  J2K_HD void drain() {
    while (count_ >= 32 && room_ == 8) {
      const auto word = static_cast<uint32_t>(acc_);
      const uint32_t inv = ~word | 0xFF000000u;  // the 4th byte may be 0xFF: room_ says so next
      if (((inv - 0x01010101u) & ~inv & 0x80808080u) != 0) break;
      for (int i = 0; i < 4; ++i) *end_++ = static_cast<uint8_t>(word >> (8 * i));
      acc_ >>= 32;
      count_ -= 32;
      room_ = (word >> 24) == 0xFF ? 7 : 8;
    }
    while (count_ >= room_) {
      const auto byte = static_cast<uint8_t>(acc_ & ((1u << room_) - 1));
      *end_++ = byte;
      acc_ >>= room_;
      count_ -= room_;
      room_ = byte == 0xFF ? 7 : 8;
    }
  }

  uint8_t* begin_;
  uint8_t* end_;
  uint64_t acc_ = 0;
  int count_ = 0, room_ = 8;
};

// The MEL coder: runs of zero events in states k = 0..12 (see MelDecoder), into `out`
// (mel_capacity of the block's samples).
class MelEncoder {
 public:
  // The run exponent E of each state k, 4 bits each from k = 0 up: 0 0 0 1 1 1 2 2 2 3 3 4 5
  // (one word, which device code can index as it can no table in a function).
  static constexpr uint64_t kExponents = 0x5433222111000;
  J2K_HD static constexpr int exponent(int k) { return static_cast<int>((kExponents >> (4 * k)) & 0xF); }

  J2K_HD explicit MelEncoder(uint8_t* out) : begin_(out), end_(out) {}

  J2K_HD void put(bool one) {
    const int e = exponent(k_);
    if (!one) {
      if (++run_ < (1 << e)) return;
      bit(1);  // a full run of 2^E zeros
      run_ = 0;
      k_ = k_ < 12 ? k_ + 1 : 12;
      return;
    }
    bits(static_cast<unsigned>(run_), e + 1);  // "0" (a short run), then its length in E bits
    run_ = 0;
    k_ = k_ > 0 ? k_ - 1 : 0;
  }
  // n zero events, as n put(false) calls give them: each run the n complete is sent, a "1"
  // each, the rest left counting (an encoder that knows where its events' ones are spares a
  // call an event).
  J2K_HD void put_zeros(int n) {
    int full = 0;  // the runs completed
    while (n > 0) {
      const int to_full = (1 << exponent(k_)) - run_;  // the zeros that complete this run
      if (n < to_full) {
        run_ += n;
        break;
      }
      ++full;
      n -= to_full;
      run_ = 0;
      if (k_ < 12) {
        ++k_;
        continue;
      }
      full += n >> 5;  // the last state's runs: 2^5 zeros each
      run_ = n & 31;
      break;
    }
    for (; full > 0; full -= 8) bits(0xFFu, full < 8 ? full : 8);
  }
  // The coder's state: k, and the zeros of the run so far (below 2^exponent(k)).
  J2K_HD int state() const { return k_; }
  J2K_HD int run() const { return run_; }
  // Events whose bits were worked out elsewhere from state() and run() (the AVX2 coder's
  // table of a run of zeros and the one after it): those n bits (n <= 24, the highest first)
  // and the state they end in (a one's run is 0).
  J2K_HD void put_worked_out(unsigned v, int n, int k, int run = 0) {
    bits(v, n);
    k_ = k;
    run_ = run;
  }
  // The low n bits of v (n <= 24), the highest first: what n bit() calls put.
  J2K_HD void bits(unsigned v, int n) {
    while (n >= left_) {  // the byte being filled completed
      n -= left_;
      const unsigned byte = (tmp_ << left_) | ((v >> n) & ((1u << left_) - 1));
      *end_++ = static_cast<uint8_t>(byte);
      left_ = byte == 0xFF ? 7 : 8;
      tmp_ = 0;
    }
    tmp_ = (tmp_ << n) | (v & ((1u << n) - 1));
    left_ -= n;
  }
  J2K_HD void bit(int b) {
    tmp_ = (tmp_ << 1) | static_cast<unsigned>(b);
    if (--left_ == 0) {
      *end_++ = static_cast<uint8_t>(tmp_);
      left_ = tmp_ == 0xFF ? 7 : 8;
      tmp_ = 0;
    }
  }
  // A run cut short by the end of the block is sent as a full one (the decoder makes up
  // events nobody asks for).
  J2K_HD void close_run() {
    if (run_ > 0) bit(1);
    run_ = 0;
  }
  // The byte being filled: its bits so far (8 - last_room() of them, the first the highest)
  // and the room left, what finish_cleanup fuses with VLC's last byte.
  J2K_HD unsigned last_bits() const { return tmp_; }
  J2K_HD int last_room() const { return left_; }
  J2K_HD void push(uint8_t byte) { *end_++ = byte; }
  J2K_HD size_t size() const { return static_cast<size_t>(end_ - begin_); }
  J2K_HD const uint8_t* data() const { return begin_; }

 private:
  uint8_t* begin_;
  uint8_t* end_;
  unsigned tmp_ = 0;
  int left_ = 8;  // bits the byte being filled has room for
  int k_ = 0, run_ = 0;
};
static_assert(MelEncoder::exponent(0) == 0 && MelEncoder::exponent(2) == 0 && MelEncoder::exponent(3) == 1 &&
                  MelEncoder::exponent(5) == 1 && MelEncoder::exponent(6) == 2 && MelEncoder::exponent(8) == 2 &&
                  MelEncoder::exponent(9) == 3 && MelEncoder::exponent(10) == 3 && MelEncoder::exponent(11) == 4 &&
                  MelEncoder::exponent(12) == 5,
              "MEL's exponents, Table C.1 of Part 15");

// The backward streams, their bytes in the order written (the segment holds them reversed),
// into `out` (stream_capacity of the block's samples). VLC: the first byte written is the
// segment's last, left for the length of MEL and VLC, as are the low 4 bits of the second
// (BackwardBits's first_nibble). MagRef: from the first bit, as after a byte above 0x8F (so
// its first byte, the segment's last, is never 0xFF).
class BackwardWriter {
 public:
  enum Start { kVlc, kMagRef };
  J2K_HD BackwardWriter(uint8_t* out, Start start) : begin_(out), end_(out) {
    if (start == kVlc) {
      *end_++ = 0xFF;
      acc_ = 0x0F;
      count_ = 4;
    }
  }

  // The low n bits of v (n <= 32), bit 0 first. Bytes leave the accumulator 4 at once when
  // 32 bits are there and none of them has its low 7 bits all 1 (then none is stuffed, after
  // whatever byte), else one at a time; the common case takes no branch on the count (see
  // ForwardWriter::put).
  J2K_HD void put(uint32_t v, int n) {
    acc_ |= (static_cast<uint64_t>(v) & ((uint64_t{1} << n) - 1)) << count_;
    count_ += n;
    const auto word = static_cast<uint32_t>(acc_);
    store_le32(end_, word);
    const int full = count_ >= 32 ? 1 : 0;
    const uint32_t t = (word & 0x7F7F7F7Fu) ^ 0x7F7F7F7Fu;  // a 0 byte where the low 7 bits are all 1
    const bool may_stuff = ((t - 0x01010101u) & ~t & 0x80808080u) != 0;
    if (full & may_stuff) {
      while (count_ >= 8) emit();
      return;
    }
    end_ += 4 * full;
    acc_ >>= 32 * full;
    count_ -= 32 * full;
    if (full) above_8f_ = (word >> 24) > 0x8F;
  }

  // MagRef's bytes in the order written: the last one padded with 0s (the decoder's fill).
  J2K_HD size_t finish_magref() {
    settle();
    if (count_ > 0) *end_++ = static_cast<uint8_t>(acc_);
    count_ = 0;
    acc_ = 0;
    return size();
  }
  // VLC's whole bytes out; its partial last byte stays in last_bits() (last_count() bits),
  // for assemble_cleanup to fuse with MEL's.
  J2K_HD void settle() {
    while (count_ >= 8 || (count_ == 7 && stuffs())) emit();
  }
  J2K_HD unsigned last_bits() const { return static_cast<unsigned>(acc_); }
  J2K_HD int last_count() const { return count_; }
  J2K_HD void push(uint8_t byte) { *end_++ = byte; }
  J2K_HD size_t size() const { return static_cast<size_t>(end_ - begin_); }
  J2K_HD const uint8_t* data() const { return begin_; }

 private:
  // After a byte above 0x8F the next byte's MSB is a stuffed 0 where its other 7 bits are
  // all 1.
  J2K_HD bool stuffs() const { return above_8f_ && (acc_ & 0x7F) == 0x7F; }
  J2K_HD void emit() {
    const int width = stuffs() ? 7 : 8;
    const auto byte = static_cast<uint8_t>(acc_ & ((1u << width) - 1));
    *end_++ = byte;
    acc_ >>= width;
    count_ -= width;
    above_8f_ = byte > 0x8F;
  }

  uint8_t* begin_;
  uint8_t* end_;
  uint64_t acc_ = 0;
  int count_ = 0;
  bool above_8f_ = true;
};

// The cleanup segment: MagSgn, MEL, then VLC reversed, the last 12 bits the length of MEL and
// VLC (Scup). finish_cleanup() ends the three streams, MEL's and VLC's last bytes fused where
// neither's bits clash and the result is not 0xFF (and VLC holds more than its first byte,
// which the length shares), and returns the segment's bytes: 0 where MEL and VLC exceed the
// 4079 bytes Scup can say. write_cleanup() then writes the segment to `out`, which may be
// where MagSgn was written: MEL and VLC then follow it.
J2K_HD inline size_t finish_cleanup(ForwardWriter& magsgn, MelEncoder& mel, BackwardWriter& vlc) {
  magsgn.finish_magsgn();
  mel.close_run();
  vlc.settle();
  const int mel_room = mel.last_room();
  const unsigned mel_tmp = (mel.last_bits() << mel_room) & 0xFF;
  const unsigned mel_mask = (0xFFu << mel_room) & 0xFF;
  const unsigned vlc_tmp = vlc.last_bits();
  const unsigned vlc_mask = 0xFFu >> (8 - vlc.last_count());
  if ((mel_mask | vlc_mask) != 0) {
    const unsigned fuse = mel_tmp | vlc_tmp;
    if (((fuse ^ mel_tmp) & mel_mask) == 0 && ((fuse ^ vlc_tmp) & vlc_mask) == 0 && fuse != 0xFF && vlc.size() > 1) {
      mel.push(static_cast<uint8_t>(fuse));
    } else {
      mel.push(static_cast<uint8_t>(mel_tmp));
      vlc.push(static_cast<uint8_t>(vlc_tmp));
    }
  }
  const size_t scup = mel.size() + vlc.size();
  return scup > 4079 ? 0 : magsgn.size() + scup;
}
J2K_HD inline void write_cleanup(const ForwardWriter& magsgn, const MelEncoder& mel, const BackwardWriter& vlc, uint8_t* out) {
  if (out != magsgn.data()) copy_bytes(out, magsgn.data(), magsgn.size());  // (MagSgn may be written in place)
  uint8_t* o = out + magsgn.size();
  copy_bytes(o, mel.data(), mel.size());
  o += mel.size();
  const uint8_t* v = vlc.data();
  for (size_t i = vlc.size(); i > 0; --i) *o++ = v[i - 1];
  const size_t scup = mel.size() + vlc.size();
  o[-1] = static_cast<uint8_t>(scup >> 4);
  o[-2] = static_cast<uint8_t>((o[-2] & 0xF0) | (scup & 0x0F));
}

}  // namespace j2k::codec::ht
