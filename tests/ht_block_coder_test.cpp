// SPDX-License-Identifier: BSD-2-Clause
// The HT block coder (codec/tier1/ht/, ISO/IEC 15444-15): hand-worked cleanup segments whose
// bytes were derived on paper from Annex C's rules (MEL runs, the CxtVLC codeword of the
// standard's table, the U-VLC, MagSgn bits, the stuffing and the Scup field), a hand-worked
// SigProp and MagRef segment, then random blocks of every size and depth encoded and decoded
// (the expected coefficients from the originals, in the EBCOT decoder's form: sign and
// 2 * magnitude + 1), all-zero blocks, and cut and flipped segments, which must decode to
// something or report corruption, never crash (CI runs this under ASan/UBSan).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ht/bit_readers.hpp"
#include "codec/tier1/ht/bit_writers.hpp"
#include "codec/tier1/ht/block_decoder.hpp"
#include "codec/tier1/ht/block_encoder.hpp"
#include "codec/tier1/ht/mel_run_table.hpp"
#include "codec/tier1/ht/vlc_tables.hpp"
#include "common/error.hpp"
#include "tests/support/random_block.hpp"

namespace {

using namespace j2k::codec;

// A block's bytes as Tier-2 hands them over: segments of (bytes, passes).
struct Segments {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> sizes;
  std::vector<int> passes;
};

BlockCode code_for(const Segments& s, int width, int height, int bitplanes) {
  BlockCode c;
  c.bytes = s.bytes.data();
  c.size = s.bytes.size();
  c.segment_bytes = s.sizes.data();
  c.segment_passes = s.passes.data();
  c.segments = s.sizes.size();
  c.width = width;
  c.height = height;
  c.bitplanes = bitplanes;
  return c;
}

std::vector<int32_t> decode(const Segments& s, int width, int height, int bitplanes, BlockDecodeReport* report = nullptr) {
  std::vector<int32_t> out(static_cast<size_t>(width) * static_cast<size_t>(height), 12345);
  const BlockDecodeReport r = ht::decode_block(code_for(s, width, height, bitplanes), out.data(), width);
  if (report) *report = r;
  return out;
}

CodedBlock encode(const std::vector<int32_t>& data, int width, int height, int fraction_bits = 0) {
  BlockView v;
  v.data = data.data();
  v.stride = width;
  v.width = width;
  v.height = height;
  v.fraction_bits = fraction_bits;
  return ht::encode_block(v);
}

// The EBCOT decoder's form of a coefficient decoded down to plane 0.
int32_t decoded_form(int32_t v, int fraction_bits = 0) {
  const int64_t m = std::llabs(static_cast<long long>(v)) >> fraction_bits;
  if (m == 0) return 0;
  return static_cast<int32_t>(v < 0 ? -(2 * m + 1) : 2 * m + 1);
}

// --- MEL -------------------------------------------------------------------------------------

// Events 0 0 0 0 1 1 1 1 from state 0: the exponents of states 0, 1, 2 are 0, so each of the
// first three zeros is a full run, "1" (k goes to 3, exponent 1); the fourth zero and the
// first one are "0" and the 1-bit run 1 (k back to 2); each further one is "0" with no run
// bits (k 2 -> 1 -> 0 -> 0). Bits 1110 1 0 0 0: the byte 0xE8.
TEST(HtMel, HandWorkedRunsEncode) {
  uint8_t bytes[ht::mel_capacity(8)] = {};
  ht::MelEncoder mel(bytes);
  for (const bool e : {false, false, false, false, true, true, true, true}) mel.put(e);
  ASSERT_EQ(mel.size(), 1u);
  EXPECT_EQ(bytes[0], 0xE8);
}

TEST(HtMel, HandWorkedRunsDecode) {
  const uint8_t bytes[] = {0xE8, 0x00};
  ht::MelDecoder mel(bytes, 2);
  const int expected[] = {0, 0, 0, 0, 1, 1, 1, 1};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(mel.event(), expected[i]) << "event " << i;
}

// A 0xFF byte leaves 7 bits in the next: after 0xFF (eight "1"s from state 0: runs of 1, 1,
// 1, 2, 2, 2, 4, 4 zeros = 17 zeros, k = 8, exponent 2) the byte 0x20 holds only its low 7
// bits, 0100000: "0" with the 2-bit run 10 (two zeros, then a one).
TEST(HtMel, StuffedBitAfterFF) {
  const uint8_t bytes[] = {0xFF, 0x20, 0x00};
  ht::MelDecoder mel(bytes, 3);
  for (int i = 0; i < 17 + 2; ++i) ASSERT_EQ(mel.event(), 0) << "event " << i;
  EXPECT_EQ(mel.event(), 1);
}

// The MEL coder bit by bit as Part 15's Annex C describes it, the reference for MelEncoder
// (which puts a run's bits at once): states k = 0..12, run exponents E[k]; a 0 event adds to
// the run, a full run of 2^E zeros is "1" (k up); a 1 is "0" and the run's length in E bits,
// the highest first (k down); bytes from the MSB, 7 bits after a 0xFF.
struct MelReference {
  std::vector<uint8_t> bytes;
  unsigned tmp = 0;
  int left = 8, k = 0, run = 0;
  void bit(int b) {
    tmp = (tmp << 1) | static_cast<unsigned>(b);
    if (--left == 0) {
      bytes.push_back(static_cast<uint8_t>(tmp));
      left = tmp == 0xFF ? 7 : 8;
      tmp = 0;
    }
  }
  void put(bool one) {
    static const int kE[13] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5};
    const int e = kE[k];
    if (!one) {
      if (++run < (1 << e)) return;
      bit(1);
      run = 0;
      k = std::min(k + 1, 12);
      return;
    }
    bit(0);
    for (int t = e - 1; t >= 0; --t) bit((run >> t) & 1);
    run = 0;
    k = std::max(k - 1, 0);
  }
};

// Every entry of the AVX2 coder's MEL tables (a run of n < 64 zeros and the one after it, and
// n <= 64 zeros alone, from each of the 85 states) against MelEncoder's put_zeros(n) (and
// put(true)) from that state, at each of 8 bit alignments: the bytes, the byte being filled,
// its room, and the state after.
TEST(HtMel, RunTableAsPutZerosAndPut) {
  for (int k = 0; k < 13; ++k)
    for (int r = 0; r < (1 << ht::MelEncoder::exponent(k)); ++r)
      for (int n = 0; n <= 64; ++n) {
        for (int lead = 0; lead < 16; ++lead) {  // where the bits start in the byte being filled
          std::vector<uint8_t> a(ht::mel_capacity(4096)), b(ht::mel_capacity(4096));
          ht::MelEncoder coder(a.data()), table(b.data());
          // To state (k, r): each earlier state's run completed, then r zeros; first lead / 2
          // ones from state 0 and back (one bit each: "0" at exponent 0).
          for (ht::MelEncoder* m : {&coder, &table}) {
            for (int i = 0; i < lead / 2; ++i) m->put(true);
            int zeros = r;
            for (int j = 0; j < k; ++j) zeros += 1 << ht::MelEncoder::exponent(j);
            m->put_zeros(zeros);
            ASSERT_EQ(m->state(), k);
            ASSERT_EQ(m->run(), r);
          }
          coder.put_zeros(n);
          const bool one = n < 64 && lead % 2 == 0;  // else the zeros alone (zeros[][n])
          if (one) {
            coder.put(true);
            const uint32_t e = ht::kMelRuns.entry[ht::kMelRuns.first[k] + r][n];
            table.put_worked_out(e & 0x3FFFF, static_cast<int>((e >> 18) & 31), static_cast<int>(e >> 23));
          } else {
            const unsigned z = ht::kMelRuns.zeros[ht::kMelRuns.first[k] + r][n];
            table.put_worked_out((1u << (z & 15)) - 1, static_cast<int>(z & 15), static_cast<int>((z >> 4) & 15), static_cast<int>(z >> 8));
          }
          const std::string at = "k " + std::to_string(k) + ", run " + std::to_string(r) + ", " + std::to_string(n) + " zeros" +
                                 (one ? " and a one" : "");
          ASSERT_EQ(coder.size(), table.size()) << at;
          ASSERT_TRUE(std::equal(a.begin(), a.begin() + static_cast<ptrdiff_t>(coder.size()), b.begin())) << at;
          ASSERT_EQ(coder.last_bits(), table.last_bits()) << at;
          ASSERT_EQ(coder.last_room(), table.last_room()) << at;
          ASSERT_EQ(coder.state(), table.state()) << at;
          ASSERT_EQ(coder.run(), table.run()) << at;
        }
      }
}

// MelEncoder against the reference: random event streams, their zeros in runs of every length
// (within a MEL run, completing it, over many runs and in the last state), put one by one and
// with put_zeros for each run of zeros; the bytes, the byte being filled and its room.
TEST(HtMel, AsTheBitByBitReference) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<int> runs;  // zeros before each one (the last run ends the stream)
    const int count = 1 + static_cast<int>(rng() % 60);
    const unsigned longest = trial % 3 == 0 ? 4u : trial % 3 == 1 ? 40u : 700u;
    for (int i = 0; i < count; ++i) runs.push_back(static_cast<int>(rng() % longest));
    size_t events = 0;
    for (int r : runs) events += static_cast<size_t>(r) + 1;
    MelReference reference;
    std::vector<uint8_t> a(ht::mel_capacity(events)), b(ht::mel_capacity(events));
    ht::MelEncoder one_by_one(a.data()), at_once(b.data());
    for (size_t i = 0; i < runs.size(); ++i) {
      for (int z = 0; z < runs[i]; ++z) {
        reference.put(false);
        one_by_one.put(false);
      }
      at_once.put_zeros(runs[i]);
      if (i + 1 < runs.size()) {
        reference.put(true);
        one_by_one.put(true);
        at_once.put(true);
      }
    }
    for (const ht::MelEncoder* m : {&one_by_one, &at_once}) {
      const std::string what = "trial " + std::to_string(trial) + (m == &at_once ? ", put_zeros" : ", one by one");
      ASSERT_EQ(m->size(), reference.bytes.size()) << what;
      ASSERT_EQ(m->last_bits(), reference.tmp) << what;
      ASSERT_EQ(m->last_room(), reference.left) << what;
      for (size_t i = 0; i < m->size(); ++i) ASSERT_EQ(m->data()[i], reference.bytes[i]) << what << ", byte " << i;
    }
  }
}

// --- bit readers ----------------------------------------------------------------------------

// MagSgn: bits from each byte's LSB; after 0xFF, 7 bits; 1s past the end.
TEST(HtBits, ForwardStuffingAndFill) {
  const uint8_t bytes[] = {0xFF, 0x55};
  ht::ForwardBits f(bytes, 2, 0xFF);
  EXPECT_EQ(f.take(8), 0xFFu);
  EXPECT_EQ(f.take(7), 0x55u);  // 1010101
  EXPECT_EQ(f.take(5), 0x1Fu);  // past the end
}

// VLC: from the last byte backward, its upper nibble first; 0x74's nibble 0111 gives 3 bits
// (the 4th is stuffed); then 0x47 all 8.
TEST(HtBits, BackwardNibbleAndStuffing) {
  const uint8_t bytes[] = {0x47, 0x74};
  ht::BackwardBits b(bytes, 2, true);
  EXPECT_EQ(b.take(3), 0x7u);
  EXPECT_EQ(b.take(8), 0x47u);
  EXPECT_EQ(b.take(4), 0u);  // past the end
}

// --- hand-worked cleanup segments -----------------------------------------------------------

// A 2x2 block, one coefficient of magnitude 1 at the top left. Its quad (context 0 in the
// initial line-pair) is significant: the MEL event 1 is "0" at state 0. rho = 1000, E = 1,
// U = kappa = 1, u = 0: the codeword of (c 0, rho 1000, u_off 0) is 0110. MagSgn sends
// U = 1 bit of v = 2 (mu - 1) + sign = 0. Streams:
//   MagSgn  0 then seven 1s of padding: 0xFE
//   MEL     0, padded with 0s: 0x00, fused with VLC's empty last byte
//   VLC     written from its first byte, the segment's last (0xFF, for Scup) and the
//           nibble 0xF below the codeword: 0110 fills bits 4..7 -> 0x6F
// Scup = 1 (MEL) + 2 (VLC) = 3: the last byte 3 >> 4 = 0x00, the low nibble of 0x6F -> 0x63.
TEST(HtCleanup, HandWorkedSingleCoefficient) {
  const std::vector<int32_t> block = {1, 0, 0, 0};
  const CodedBlock c = encode(block, 2, 2);
  EXPECT_EQ(c.bytes, (std::vector<uint8_t>{0xFE, 0x00, 0x63, 0x00}));
  EXPECT_EQ(c.bitplanes, 1);
  ASSERT_EQ(c.passes.size(), 1u);
  EXPECT_EQ(c.passes[0].end, 4u);
  Segments s{{0xFE, 0x00, 0x63, 0x00}, {4}, {1}};
  EXPECT_EQ(decode(s, 2, 2, 1), (std::vector<int32_t>{3, 0, 0, 0}));
}

// Magnitude 5, negative, at the top left: E = bit_length(2 * 4 + 1) = 4 > kappa = 1, so
// U = 4, u = 3, u_off = 1 and the sample is at the bound: the table's one codeword for
// (c 0, rho 1000, u_off 1) has e_k = e_1 = 1000, 1111110. The U-VLC of 3 is the prefix 001
// and the suffix bit 0. MagSgn sends U - 1 = 3 bits of v = 2 * 4 + 1 = 1001: 1, 0, 0 (e_1
// gives the 4th).
//   VLC bits 1111110 001 0: the nibble's 3 free bits 111 make 0x7F after the 0xFF, so the
//   MSB is stuffed: byte 0x7F; then 1110 0010 (LSB first) = 0x47.
//   MagSgn 100 + 11111 padding = 0xF9; MEL "0" -> 0x00 (fused).
// Scup = 1 + 3 = 4: 0x7F's low nibble becomes 4 (0x74), the last byte 0x00.
TEST(HtCleanup, HandWorkedEmbAndUvlc) {
  const std::vector<int32_t> block = {-5, 0, 0, 0};
  const CodedBlock c = encode(block, 2, 2);
  EXPECT_EQ(c.bytes, (std::vector<uint8_t>{0xF9, 0x00, 0x47, 0x74, 0x00}));
  Segments s{{0xF9, 0x00, 0x47, 0x74, 0x00}, {5}, {1}};
  EXPECT_EQ(decode(s, 2, 2, 1), (std::vector<int32_t>{-11, 0, 0, 0}));
}

// The cleanup pass of the first example at plane 1 (2 planes, passes: cleanup, SigProp,
// MagRef), then a refinement segment of 2 bytes worked by hand:
//   SigProp (forward from 0x15 = 10101 LSB first): the candidates are the insignificant
//     samples next to a significant one, column by column: (0,1) -> 1, (1,0) -> 0,
//     (1,1) -> 1; then the signs of the new ones: (0,1) + (0), (1,1) - (1).
//   MagRef (backward from 0x01): the cleanup's coefficient gets the bit 1.
// Planes: the cleanup leaves 1 at plane 1 (2 * 2 + 2 = 6), MagRef makes it 3 at plane 0
// (2 * 3 + 1 = 7); the new ones are 1 at plane 0 (3).
TEST(HtRefinement, HandWorkedSigPropAndMagRef) {
  Segments s{{0xFE, 0x00, 0x63, 0x00, 0x15, 0x01}, {4, 2}, {1, 2}};
  BlockDecodeReport r;
  EXPECT_EQ(decode(s, 2, 2, 2, &r), (std::vector<int32_t>{7, 0, 3, -3}));
  EXPECT_EQ(r.passes, 3);
  EXPECT_FALSE(r.corrupt);
  // SigProp alone: the cleanup's coefficient stays at plane 1.
  Segments sp{{0xFE, 0x00, 0x63, 0x00, 0x15}, {4, 1}, {1, 1}};
  EXPECT_EQ(decode(sp, 2, 2, 2), (std::vector<int32_t>{6, 0, 3, -3}));
  // Cleanup alone at plane 1.
  Segments cup{{0xFE, 0x00, 0x63, 0x00}, {4}, {1}};
  EXPECT_EQ(decode(cup, 2, 2, 2), (std::vector<int32_t>{6, 0, 0, 0}));
}

// The stripe-causal mode (VSC, kModeCausal) in SigProp: a 1x5 block whose only cleanup
// coefficient is row 4, the first row of the second stripe. Without the mode row 3 (the first
// stripe's last) sees it below and is SigProp's one candidate: the bits 1 (significant) and 0
// (positive), the byte 0x01, make it 3 (1 at plane 0). With the mode the stripe below is
// unseen: no candidate, row 3 stays 0. Row 4 keeps its cleanup value, 1 at plane 1 (6).
TEST(HtRefinement, StripeCausalModeHidesTheStripeBelow) {
  const std::vector<int32_t> block = {0, 0, 0, 0, 1};
  const CodedBlock c = encode(block, 1, 5);
  Segments s{c.bytes, {static_cast<uint32_t>(c.bytes.size()), 1}, {1, 1}};
  s.bytes.push_back(0x01);
  BlockCode code = code_for(s, 1, 5, 2);
  std::vector<int32_t> out(5, 99);
  ht::decode_block(code, out.data(), 1);
  EXPECT_EQ(out, (std::vector<int32_t>{0, 0, 0, 3, 6}));
  code.modes = kModeCausal;
  ht::decode_block(code, out.data(), 1);
  EXPECT_EQ(out, (std::vector<int32_t>{0, 0, 0, 0, 6}));
}

// Placeholder passes: 3 passes of no bytes per plane skipped, in the cleanup's segment (4
// passes: the cleanup at plane bitplanes - 2).
TEST(HtCleanup, PlaceholderPassesLowerThePlane) {
  Segments s{{0xFE, 0x00, 0x63, 0x00}, {4}, {4}};
  EXPECT_EQ(decode(s, 2, 2, 3), (std::vector<int32_t>{6, 0, 0, 0}));
  // More placeholders than planes: corrupt, zeros.
  BlockDecodeReport r;
  EXPECT_EQ(decode(s, 2, 2, 1, &r), (std::vector<int32_t>{0, 0, 0, 0}));
  EXPECT_TRUE(r.corrupt);
}

// --- the CxtVLC tables ------------------------------------------------------------------------

// Every quad the encoder can meet has a codeword, and each decodes back to what it says:
// its significance, u_off and EMB bits, and its length (the code is prefix-free within a
// context, or a shorter codeword would shadow it).
TEST(HtVlcTables, EveryCodewordDecodesToWhatItEncodes) {
  int codewords = 0;
  for (const bool initial : {true, false})
    for (int cx = 0; cx < 8; ++cx)
      for (unsigned rho = 0; rho < 16; ++rho) {
        if (cx == 0 && rho == 0) continue;  // MEL says it
        for (unsigned u_off = 0; u_off < 2; ++u_off)
          for (unsigned top = 0; top < 16; ++top) {
            if (u_off == 0 && top != 0) continue;
            if (u_off == 1 && (top == 0 || (top & rho) != top)) continue;
            const ht::CxtVlcCodeword& w = ht::encode_cxt_vlc(initial, cx, rho, u_off, top);
            ASSERT_GT(w.length, 0) << "context " << cx << ", rho " << rho << ", u_off " << u_off << ", top " << top;
            // The encoder's flat table holds the same entry (it sends what it finds unchecked).
            const ht::CxtVlcCodeword& flat = ht::cxt_vlc_encode_table(initial)[(static_cast<unsigned>(cx) * 16 + rho) * 17 +
                                                                                (u_off ? 1 + top : 0)];
            ASSERT_EQ(&flat, &w);
            EXPECT_EQ(w.e_k & top, w.e_1);
            for (unsigned rest = 0; rest < (128u >> w.length); ++rest) {
              const ht::CxtVlcEntry& e = ht::decode_cxt_vlc(initial, cx, w.codeword | (rest << w.length));
              ASSERT_EQ(e.length, w.length);
              EXPECT_EQ(e.rho, rho);
              EXPECT_EQ(e.u_off, u_off);
              EXPECT_EQ(e.e_k, w.e_k);
              EXPECT_EQ(e.e_1, w.e_1);
            }
            ++codewords;
          }
      }
  EXPECT_GT(codewords, 1000);
  // The codeword of the first hand-worked example, as the standard's table gives it.
  const ht::CxtVlcCodeword& w = ht::encode_cxt_vlc(true, 0, 1, 0, 0);
  EXPECT_EQ(w.length, 4);
  EXPECT_EQ(w.codeword, 0x6);  // 0, 1, 1, 0 in reading order
}

// --- round trips ----------------------------------------------------------------------------

using test_support::random_block;

void expect_round_trip(const std::vector<int32_t>& block, int w, int h, const std::string& what) {
  const CodedBlock c = encode(block, w, h);
  Segments s{c.bytes, {}, {}};
  if (!c.passes.empty()) {
    s.sizes.push_back(static_cast<uint32_t>(c.bytes.size()));
    s.passes.push_back(1);
  }
  BlockDecodeReport r;
  const std::vector<int32_t> out = decode(s, w, h, c.bitplanes, &r);
  ASSERT_FALSE(r.corrupt) << what;
  for (size_t i = 0; i < block.size(); ++i)
    ASSERT_EQ(out[i], decoded_form(block[i])) << what << ": coefficient " << i << " (" << i % static_cast<size_t>(w) << ", "
                                              << i / static_cast<size_t>(w) << ")";
}

TEST(HtRoundTrip, EverySquareSizeAndDepth) {
  std::mt19937 rng(42);
  for (int side : {4, 8, 16, 32, 64})
    for (int depth = 1; depth <= 30; ++depth)
      for (double zeros : {0.0, 0.5, 0.95}) {
        const auto block = random_block(rng, static_cast<size_t>(side * side), depth, zeros);
        expect_round_trip(block, side, side, std::to_string(side) + "x" + std::to_string(side) + ", " +
                                                 std::to_string(depth) + " bits, zeros " + std::to_string(zeros));
      }
}

TEST(HtRoundTrip, NonSquareAndOddSizes) {
  std::mt19937 rng(5);
  const int sizes[][2] = {{4, 1024}, {1024, 4}, {1, 1}, {1, 7}, {7, 1}, {3, 5}, {5, 3}, {2, 2048}, {2048, 2},
                          {1, 1024}, {1024, 1}, {33, 17}, {63, 65}, {64, 64}, {128, 32}, {13, 64}};
  for (const auto& wh : sizes)
    for (int depth : {1, 2, 5, 8, 12, 16, 20, 25, 30})
      for (double zeros : {0.0, 0.7}) {
        const int w = wh[0], h = wh[1];
        if (w > 1024 || h > 1024) continue;  // A.6.1: at most 1024 a side
        const auto block = random_block(rng, static_cast<size_t>(w) * static_cast<size_t>(h), depth, zeros);
        expect_round_trip(block, w, h, std::to_string(w) + "x" + std::to_string(h) + ", " + std::to_string(depth) + " bits");
      }
}

// Every magnitude at the top of 30 bits, and runs that end the block mid-way through a MEL run.
TEST(HtRoundTrip, ExtremesAndLongZeroRuns) {
  std::vector<int32_t> full(64 * 64, (1 << 30) - 1);
  for (size_t i = 0; i < full.size(); i += 3) full[i] = -full[i];
  expect_round_trip(full, 64, 64, "all 2^30 - 1");
  for (size_t at : {size_t{0}, size_t{63}, size_t{2048}, size_t{4095}}) {
    std::vector<int32_t> one(64 * 64, 0);
    one[at] = -7;
    expect_round_trip(one, 64, 64, "one coefficient at " + std::to_string(at));
  }
  std::vector<int32_t> ones(16 * 16, 1);
  expect_round_trip(ones, 16, 16, "all 1");
}

// The fraction bits below the step are not coded; the distortion of the one pass is the
// energy it removes.
TEST(HtRoundTrip, FractionBitsAndDistortion) {
  std::mt19937 rng(9);
  const auto block = random_block(rng, 32 * 32, 12, 0.3);
  const CodedBlock c = encode(block, 32, 32, 3);
  Segments s{c.bytes, {static_cast<uint32_t>(c.bytes.size())}, {1}};
  const std::vector<int32_t> out = decode(s, 32, 32, c.bitplanes);
  double energy = 0;
  for (size_t i = 0; i < block.size(); ++i) {
    ASSERT_EQ(out[i], decoded_form(block[i], 3)) << i;
    energy += static_cast<double>(block[i]) * block[i];
  }
  EXPECT_DOUBLE_EQ(c.energy, energy / 64);
  ASSERT_EQ(c.passes.size(), 1u);
  EXPECT_GT(c.passes[0].distortion, 0);
  EXPECT_LE(c.passes[0].distortion, c.energy);
}

TEST(HtRoundTrip, AllZeroBlocks) {
  for (int side : {4, 32, 64}) {
    const std::vector<int32_t> zero(static_cast<size_t>(side * side), 0);
    const CodedBlock c = encode(zero, side, side);
    EXPECT_EQ(c.bitplanes, 0);
    EXPECT_TRUE(c.passes.empty());
    EXPECT_TRUE(c.bytes.empty());
    Segments none;
    EXPECT_EQ(decode(none, side, side, 0), zero);
  }
  // Fractions only: nothing at plane 0.
  const std::vector<int32_t> small(16, 3);
  EXPECT_EQ(encode(small, 4, 4, 2).bitplanes, 0);
}

// --- bad input ------------------------------------------------------------------------------

TEST(HtRobustness, CutAndFlippedSegmentsNeverCrash) {
  std::mt19937 rng(77);
  int corrupt = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int w = 1 + static_cast<int>(rng() % 64), h = 1 + static_cast<int>(rng() % 64);
    const auto block = random_block(rng, static_cast<size_t>(w * h), 1 + static_cast<int>(rng() % 20), 0.5);
    CodedBlock c = encode(block, w, h);
    if (c.bytes.empty()) continue;
    std::vector<uint8_t> bytes = c.bytes;
    if (trial % 3 == 0) bytes.resize(rng() % bytes.size());
    else
      for (int f = 0; f < 1 + trial % 4; ++f) bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    const int refinement = static_cast<int>(rng() % 3);
    Segments s{bytes, {static_cast<uint32_t>(bytes.size())}, {1}};
    if (refinement) {
      for (int i = 0; i < 5; ++i) s.bytes.push_back(static_cast<uint8_t>(rng()));
      s.sizes.push_back(5);
      s.passes.push_back(refinement);
    }
    BlockDecodeReport r;
    const std::vector<int32_t> out = decode(s, w, h, 1 + static_cast<int>(rng() % 30), &r);
    if (r.corrupt) {
      ++corrupt;
      for (int32_t v : out) ASSERT_EQ(v, 0);
    }
  }
  EXPECT_GT(corrupt, 0);  // some of them must be caught
}

TEST(HtRobustness, SizesAndPlanesRefusedAsEbcotDoes) {
  Segments s{{0xFE, 0x00, 0x63, 0x00}, {4}, {1}};
  std::vector<int32_t> out(4);
  BlockCode c = code_for(s, 2, 2, 31);
  EXPECT_THROW(ht::decode_block(c, out.data(), 2), j2k::Error);
  c = code_for(s, 2, 2, 1);
  c.size = 3;
  EXPECT_THROW(ht::decode_block(c, out.data(), 2), j2k::Error);
}

// --- the interface --------------------------------------------------------------------------

TEST(HtBlockCoder, ThroughTheInterface) {
  const std::unique_ptr<BlockCoder> coder = make_block_coder(BlockCoding::HighThroughput);
  EXPECT_TRUE(coder->reads(J2K_MEMORY_HOST));
  EXPECT_FALSE(coder->reads(J2K_MEMORY_DEVICE));
  std::mt19937 rng(3);
  const auto block = random_block(rng, 17 * 13, 9, 0.3);
  BlockView v;
  v.data = block.data();
  v.stride = 17;
  v.width = 17;
  v.height = 13;
  const CodedBlock c = coder->encode(v);
  Segments s{c.bytes, {static_cast<uint32_t>(c.bytes.size())}, {1}};
  const BlockCode code = code_for(s, 17, 13, c.bitplanes);
  coder->check(code);
  std::vector<int32_t> out(block.size());
  EXPECT_EQ(coder->decode(code, out.data(), 17).passes, 1);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i], decoded_form(block[i])) << i;
}

}  // namespace
