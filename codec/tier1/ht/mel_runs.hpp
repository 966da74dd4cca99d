// SPDX-License-Identifier: BSD-2-Clause
// The CPU cleanup pass's MEL decoder: the same events as word_readers.hpp's MelStream and
// MelRunDecoder (which the GPU keeps), decoded a batch of runs at a time into a queue, so that
// the VLC sub-pass takes an event with a counter and, once a run, a load from the queue. A
// lookup in a table indexed by the MEL state and the next 6 bits (a run reads at most 1 + 5)
// gives the runs those bits hold whole, their length in bits and the next state: no branch on
// the bits, no call in the VLC loop but once a batch. Consecutive "1" runs (the long zero
// stretches of lossy streams) merge into one, fewer lookups and fewer runs for the VLC
// sub-pass to reload.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/ht/word_readers.hpp"

namespace j2k::codec::ht {

// A run as the queue holds it: 2 x its events, plus 1 where the last of them is a one event
// ("0" and E bits: that many zeros, then a one) rather than a zero ("1": 2^E zeros). Every run
// has an event, so a run's code is at least 2; 0 marks the end of the queue. A lookup takes
// as many runs as its 6 bits hold whole, each "1" run's zeros added to the next run's (no one
// event between them), up to a "0" run: 6 runs of 32 zeros at most.
namespace mel_run {
constexpr int kIndexBits = 6;            // the bits a lookup reads (7 and 8 measured no faster)
constexpr int kStateShift = kIndexBits;  // the table's index: state << 6 | the next 6 bits
constexpr int kLengthShift = 16;
constexpr int kNextShift = 20;  // the next state's index base (state << 6)

struct Table {
  // Bits 0-15: the runs' code; 16-19: their length in bits; 20 on: the next state << 6.
  uint32_t entry[13 << kStateShift];
};

constexpr Table make_table() {
  Table t{};
  for (int k = 0; k < 13; ++k)
    for (unsigned bits = 0; bits < (1u << kIndexBits); ++bits) {
      uint32_t zeros = 0, one = 0;
      int length = 0, state = k;
      while (length < kIndexBits) {
        const int e = mel_exponent(state);
        if ((bits >> (kIndexBits - 1 - length)) & 1) {  // "1": 2^e zero events
          zeros += 1u << e;
          length += 1;
          state = state < 12 ? state + 1 : 12;
          continue;
        }
        if (length + 1 + e > kIndexBits) break;  // a "0" run not whole in these bits: the next lookup's
        // "0", then e bits: that many zero events and a one event
        zeros += ((bits << (length + 1)) & ((1u << kIndexBits) - 1)) >> (kIndexBits - e);
        one = 1;
        length += 1 + e;
        state = state > 0 ? state - 1 : 0;
        break;
      }
      const uint32_t code = 2 * (zeros + one) + one;
      t.entry[k << kStateShift | bits] = code | static_cast<uint32_t>(length) << kLengthShift |
                                         static_cast<uint32_t>(state << kStateShift) << kNextShift;
    }
  return t;
}
inline constexpr Table kTable = make_table();
}  // namespace mel_run

// The MEL stream and the queue of its next runs.
class MelRunQueue {
 public:
  // Lookups at a time: a block that needs fewer pays for the rest (measured: 4 slower, 16 the
  // same).
  static constexpr int kBatch = 8;

  // The MEL stream: `size` bytes at `data`, the last one shared with the VLC stream.
  MelRunQueue(const uint8_t* data, size_t size) : in_(data, size) { queue_[kBatch] = 0; }
  MelRunQueue(const MelRunQueue&) = delete;  // MelEvents points into the queue
  MelRunQueue& operator=(const MelRunQueue&) = delete;

  // The end of an empty queue: what a MelEvents starts from.
  const uint16_t* empty() const { return queue_ + kBatch; }

  // Decodes the next kBatch lookups' runs into the queue; returns its start.
  [[gnu::noinline]] const uint16_t* fill() {
    uint64_t bits = in_.bits;
    int count = in_.count;
    uint32_t state = state_;
    for (int i = 0; i < kBatch; ++i) {
      if (count < mel_run::kIndexBits) {
        in_.bits = bits;
        in_.count = count;
        in_.refill();
        bits = in_.bits;
        count = in_.count;
      }
      const uint32_t entry = mel_run::kTable.entry[state | static_cast<uint32_t>(bits >> (64 - mel_run::kIndexBits))];
      queue_[i] = static_cast<uint16_t>(entry);
      const int length = static_cast<int>((entry >> mel_run::kLengthShift) & 0xF);
      bits <<= length;
      count -= length;
      state = entry >> mel_run::kNextShift;
    }
    in_.bits = bits;
    in_.count = count;
    state_ = state;
    return queue_;
  }

 private:
  MelBits in_;          // MelStream's bits and refill (word_readers.hpp)
  uint32_t state_ = 0;  // the MEL state k, shifted as the table's index
  uint16_t queue_[kBatch + 1];
};

// The events of a MelRunQueue's runs, one at a time: a small value that a loop keeps in
// registers (the queue's address is what the rare refill takes).
class MelEvents {
 public:
  explicit MelEvents(MelRunQueue& runs) : runs_(&runs), next_(runs.empty()) {}

  // The next event: 0 (a quad of the zero context that stays insignificant) or 1.
  int event() {
    if (run_ < 2) {  // the run in hand is done
      run_ = *next_++;
      if (run_ == 0) {
        next_ = runs_->fill();
        run_ = *next_++;
      }
    }
    run_ -= 2;
    return run_ == 1;  // its last event (run_ below 2 now), and a one
  }

 private:
  MelRunQueue* runs_;
  const uint16_t* next_;
  unsigned run_ = 0;  // the run in hand: 2 x its events left, plus 1 if the last is a one
};

}  // namespace j2k::codec::ht
