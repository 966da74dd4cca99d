// SPDX-License-Identifier: BSD-2-Clause
// The MEL coder's bits for a run of zero events and the one after it, worked out once for
// every state: the AVX2 cleanup coder (block_encoder_avx2.cpp) codes a line-pair's MEL events
// from bit masks, a one at a time, with a load and one put instead of put_zeros' walk through
// the states. ht_block_coder_test holds every entry to MelEncoder's own put_zeros and put.
#pragma once
#include <cstdint>

#include "codec/tier1/ht/bit_writers.hpp"

namespace j2k::codec::ht {

// A run of n zero events (n < 64: within a mask of 64 quads) and the one after it, from each
// state of the coder (k and the run's zeros so far: 85 states): the bits that put_zeros(n)
// and put(true) send and the k they leave (the run is then 0). An entry: the bits from bit 0
// (at most 18: 12 runs completed on the way to the last state, then "0" and its 5 bits of run),
// their count << 18, k << 23.
// zeros[state][n]: n <= 64 zeros and no one after them (a line-pair's last events), what
// put_zeros(n) does: the full runs it completes (each a "1") | the k << 4 and the run << 8
// it leaves.
struct MelRunTable {
  static constexpr int kStates = 85;
  uint8_t first[13];  // each k's first state
  uint32_t entry[kStates][64];
  uint16_t zeros[kStates][65];
  constexpr MelRunTable() : first(), entry(), zeros() {
    int state = 0;
    for (int k = 0; k < 13; ++k) {
      first[k] = static_cast<uint8_t>(state);
      state += 1 << MelEncoder::exponent(k);
    }
    for (int k = 0; k < 13; ++k)
      for (int r = 0; r < (1 << MelEncoder::exponent(k)); ++r)
        for (int n = 0; n <= 64; ++n) {
          int at = k, run = r, count = 0;
          uint32_t v = 0;
          for (int i = 0; i < n; ++i) {
            if (++run < (1 << MelEncoder::exponent(at))) continue;
            v = (v << 1) | 1;  // a full run
            ++count;
            run = 0;
            at = at < 12 ? at + 1 : 12;
          }
          zeros[first[k] + r][n] = static_cast<uint16_t>(count | at << 4 | run << 8);
          if (n == 64) continue;
          const int e = MelEncoder::exponent(at);
          v = (v << (e + 1)) | static_cast<uint32_t>(run);  // "0", then the run's length in e bits
          count += e + 1;
          entry[first[k] + r][n] = v | static_cast<uint32_t>(count) << 18 | static_cast<uint32_t>(at > 0 ? at - 1 : 0) << 23;
        }
  }
};
constexpr MelRunTable kMelRuns;
static_assert(MelRunTable::kStates == 3 * (1 + 2 + 4) + 8 + 8 + 16 + 32, "MEL's states: 2^E zeros of each k's run");

}  // namespace j2k::codec::ht
