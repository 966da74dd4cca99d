// SPDX-License-Identifier: BSD-2-Clause
// The Tier-1 coding passes (codec/tier1/block_encoder) against examples worked by hand from
// ISO/IEC 15444-1 Annex D. For each small block below, the comments derive pass by pass which
// decisions the standard codes and in which context: zero coding by Table D.1, sign coding by
// Tables D.2 and D.3, magnitude refinement by Table D.4, run-length coding and the uniform
// context by D.3.4, the contexts' initial states by Table D.7, and the mode switches by D.4 to
// D.7. The expected codeword is those decisions put through the MQ encoder (itself checked
// against the T.88 test sequence in mq_coder_test), so a wrong decision, a missing or extra
// one, a wrong termination, or a context that groups decisions differently from the standard's
// changes the bytes (a mere renaming of contexts would not, and does not matter to a decoder). Each example is also decoded
// with the MQ decoder from every pass's truncation point: a decoder that receives only the
// bytes up to a pass's end must read every decision up to that pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier1/ebcot/mq_decoder.hpp"
#include "codec/tier1/ebcot/mq_encoder.hpp"

namespace {

using namespace j2k::codec;

// Context labels as the standard numbers them: 0..8 zero coding (Table D.1), 9..13 sign
// (Table D.3), 14..16 refinement (Table D.4), then run-length and uniform (D.3.4).
constexpr int RL = 17, UNI = 18;

struct Decision {
  int cx, d;
};
using Pass = std::vector<Decision>;  // a pass's decisions in coding order

// Table D.7: every context at index 0 with MPS 0, except zero-coding context 0 (index 4),
// run-length (3) and uniform (46).
std::array<MqContext, 19> initial_contexts() {
  std::array<MqContext, 19> cx{};
  cx[0].index = 4;
  cx[RL].index = 3;
  cx[UNI].index = 46;
  return cx;
}
std::array<MqDecoderContext, 19> initial_decoder_contexts() {
  std::array<MqDecoderContext, 19> cx{};
  cx[0] = MqDecoderContext(4);
  cx[RL] = MqDecoderContext(3);
  cx[UNI] = MqDecoderContext(46);
  return cx;
}

bool is_cleanup(size_t pass) { return pass % 3 == 0; }  // passes: C, then S, R, C per plane

// The codeword the standard asks for these passes with the MQ mode switches (no BYPASS):
// SEGMARK appends 1010 in the uniform context to each cleanup pass (D.5), RESET restores the
// initial states after each pass (D.4), RESTART terminates the codeword after each pass (D.4),
// ERTERM terminates predictably. `ends`: the byte count after each terminated pass.
std::vector<uint8_t> expected_codeword(const std::vector<Pass>& passes, uint8_t modes, std::vector<size_t>* ends) {
  std::vector<uint8_t> out;
  auto cx = initial_contexts();
  MqEncoder mq;
  auto terminate = [&] {
    if (modes & kModePredictable) mq.flush_predictable();
    else mq.flush();
    out.insert(out.end(), mq.data(), mq.data() + mq.size());
    mq.restart();
  };
  for (size_t k = 0; k < passes.size(); ++k) {
    for (const Decision& s : passes[k]) mq.encode(cx[static_cast<size_t>(s.cx)], s.d);
    if ((modes & kModeSegmark) && is_cleanup(k))
      for (int d : {1, 0, 1, 0}) mq.encode(cx[UNI], d);
    if (modes & kModeReset) cx = initial_contexts();
    if ((modes & kModeTermAll) || k + 1 == passes.size()) {
      terminate();
      if (ends) ends->push_back(out.size());
    } else if (ends) {
      ends->push_back(0);  // not terminated: its end is an estimate
    }
  }
  return out;
}

CodedBlock encode(const std::vector<int32_t>& samples, int width, int height, j2k_band_type band, uint8_t modes) {
  BlockView v;
  v.data = samples.data();
  v.stride = width;
  v.width = width;
  v.height = height;
  v.band = band;
  v.modes = modes;
  return encode_block(v);
}

// Checks the encoder's block against the hand-worked passes: the pass count, the bytes, the
// terminated passes' ends, and that the bytes up to each pass's end decode to every decision
// up to that pass (the truncation points rate control cuts at).
void expect_passes(const std::vector<int32_t>& samples, int width, int height, j2k_band_type band, uint8_t modes,
                   const std::vector<Pass>& passes) {
  SCOPED_TRACE("modes " + std::to_string(modes));
  const CodedBlock block = encode(samples, width, height, band, modes);
  ASSERT_EQ(block.passes.size(), passes.size());
  std::vector<size_t> ends;
  EXPECT_EQ(block.bytes, expected_codeword(passes, modes, &ends));
  for (size_t k = 0; k < passes.size(); ++k) {
    const bool terminated = (modes & kModeTermAll) || k + 1 == passes.size();
    EXPECT_EQ(block.passes[k].terminated, terminated) << "pass " << k;
    if (terminated) {
      EXPECT_EQ(block.passes[k].end, ends[k]) << "pass " << k;
    }
  }
  if (modes & kModeTermAll) return;  // every end is exact, checked above
  for (size_t upto = 0; upto < passes.size(); ++upto) {
    MqDecoder dec(block.bytes.data(), block.passes[upto].end);
    auto cx = initial_decoder_contexts();
    for (size_t k = 0; k <= upto; ++k) {
      for (size_t i = 0; i < passes[k].size(); ++i) {
        ASSERT_EQ(dec.decode(cx[static_cast<size_t>(passes[k][i].cx)]), passes[k][i].d)
            << "truncated after pass " << upto << ": pass " << k << ", decision " << i;
      }
      if ((modes & kModeSegmark) && is_cleanup(k)) {
        for (int d : {1, 0, 1, 0}) ASSERT_EQ(dec.decode(cx[UNI]), d) << "segmentation symbol, pass " << k;
      }
      if (modes & kModeReset) cx = initial_decoder_contexts();
    }
  }
}

const uint8_t kMqModes[] = {0, kModeReset, kModeTermAll, kModeSegmark, kModeTermAll | kModePredictable,
                            kModePredictable, kModeReset | kModeTermAll | kModeSegmark};

// One coefficient, +5 = 101b: three bit planes, 3 * 3 - 2 = 7 passes.
//   plane 2, cleanup: no significant neighbour, ZC context 0, bit 1; sign: no neighbours, H = V
//     = 0, context 9, XOR bit 0, positive: 0. (A column of one is no run: D.3.4 needs four.)
//   plane 1: significance pass codes nothing (the sample is significant); refinement: first
//     refinement, no significant neighbour, context 14, bit 0; cleanup: nothing left.
//   plane 0: refinement again, context 16, bit 1.
TEST(CodingPasses, OneCoefficient) {
  const std::vector<Pass> passes = {{{0, 1}, {9, 0}}, {}, {{14, 0}}, {}, {}, {{16, 1}}, {}};
  for (j2k_band_type band : {J2K_BAND_LL, J2K_BAND_HL, J2K_BAND_LH, J2K_BAND_HH})
    for (uint8_t modes : kMqModes) expect_passes({5}, 1, 1, band, modes, passes);
}

// A 4 x 4 block (one stripe) with two non-zero coefficients, written (x, y):
//     0  0  0  0
//     0  0  0  0
//     0 -2  0  0
//     0  0  0  1
// Two planes: cleanup(1), then significance, refinement, cleanup of plane 0.
// Plane 1 cleanup:
//   column 0: four insignificant samples without significant neighbours: a run (D.3.4), none
//     has bit 1 set: RL 0.
//   column 1: a run again; (1,2) has bit 1: RL 1, its row 2 = 10b in UNI, then its sign: no
//     significant neighbour, context 9, XOR 0, negative: 1. Then (1,3) by zero coding: its
//     vertical neighbour (1,2) is significant: LL h=0 v=1 -> 3, bit 0.
//   column 2: (2,1) and (2,3) see (1,2) diagonally, so no run; one by one: (2,0) context 0;
//     (2,1) d=1 -> 1; (2,2) h=1 -> 5; (2,3) d=1 -> 1; all 0.
//   column 3: its neighbours in column 2 are all insignificant: a run, no bit: RL 0.
// Plane 0 significance pass (insignificant samples with a significant neighbour, Table D.1):
//   (0,1) d=1 -> 1; (0,2) h=1 -> 5; (0,3) d=1 -> 1; (1,1) v=1 -> 3; (1,3) v=1 -> 3;
//   (2,1) d -> 1; (2,2) h -> 5; (2,3) d -> 1; all bits 0. (0,0), (1,0), (2,0) and column 3
//   have no significant neighbour.
// Plane 0 refinement: (1,2), first refinement, no significant neighbour: 14, bit 0.
// Plane 0 cleanup: (0,0), (1,0), (2,0) alone (their columns had samples coded in the
//   significance pass), each context 0, bit 0; column 3 a run: RL 1, row 3 = 11b in UNI, sign
//   of (3,3): no significant neighbour, context 9, positive: 0.
// In HL the zero-coding contexts swap h and v (Table D.1), in HH they count diagonals first:
// only the zero-coding contexts differ; runs, signs and refinement are the same.
const std::vector<int32_t> kStripe = {0, 0, 0, 0,  //
                                      0, 0, 0, 0,  //
                                      0, -2, 0, 0,  //
                                      0, 0, 0, 1};

std::vector<Pass> stripe_passes(int h1, int v1, int d1) {
  // h1, v1, d1: the zero-coding context of a sample whose only significant neighbour is one
  // horizontal, one vertical or one diagonal neighbour, in the band's column of Table D.1.
  return {
      {{RL, 0}, {RL, 1}, {UNI, 1}, {UNI, 0}, {9, 1}, {v1, 0}, {0, 0}, {d1, 0}, {h1, 0}, {d1, 0}, {RL, 0}},
      {{d1, 0}, {h1, 0}, {d1, 0}, {v1, 0}, {v1, 0}, {d1, 0}, {h1, 0}, {d1, 0}},
      {{14, 0}},
      {{0, 0}, {0, 0}, {0, 0}, {RL, 1}, {UNI, 1}, {UNI, 1}, {9, 0}},
  };
}

TEST(CodingPasses, StripeWithRunsLL) {
  for (uint8_t modes : kMqModes) {
    expect_passes(kStripe, 4, 4, J2K_BAND_LL, modes, stripe_passes(5, 3, 1));
    expect_passes(kStripe, 4, 4, J2K_BAND_LH, modes, stripe_passes(5, 3, 1));  // LH shares LL's table
  }
}
TEST(CodingPasses, StripeWithRunsHL) {
  for (uint8_t modes : kMqModes) expect_passes(kStripe, 4, 4, J2K_BAND_HL, modes, stripe_passes(3, 5, 1));
}
TEST(CodingPasses, StripeWithRunsHH) {
  // HH: h + v = 1, d = 0 -> 1; d = 1, h + v = 0 -> 3.
  for (uint8_t modes : kMqModes) expect_passes(kStripe, 4, 4, J2K_BAND_HH, modes, stripe_passes(1, 1, 3));
}

// A 2 x 2 block, a stripe of two rows (no runs), with signed neighbours:
//      3 -3
//     -3  1
// Plane 1 cleanup, column 0 then column 1:
//   (0,0): no neighbours, context 0, bit 1; sign: context 9, positive 0.
//   (0,1): above (0,0) significant: LL h=0 v=1 -> 3, bit 1; sign: V = +1 (above positive),
//     H = 0: context 10, XOR 0, negative: 1.
//   (1,0): left (0,0) and diagonal (0,1): h=1 v=0 d=1 -> 6, bit 1; sign: H = +1, V = 0:
//     context 12, XOR 0, negative: 1.
//   (1,1): h=1 v=1 -> 7, bit 0 (1 = 01b).
// Plane 0 significance: (1,1) has significant neighbours: context 7, bit 1; sign: H = -1
//   (left (0,1) negative), V = -1 (above (1,0) negative): context 13, XOR 1, positive: 1.
// Plane 0 refinement: (0,0), (0,1), (1,0), first refinement, each with significant
//   neighbours: context 15, bits 1, 1, 1. (1,1) became significant in this plane: not refined.
// Plane 0 cleanup: nothing left.
// HH: (0,1) d=0 h+v=1 -> 1; (1,0) d=1 h+v=1 -> 4; (1,1) d=1 h+v=2 -> 5.
TEST(CodingPasses, SignContextsAndRefinementWithNeighbours) {
  const std::vector<int32_t> block = {3, -3, -3, 1};
  for (uint8_t modes : kMqModes) {
    expect_passes(block, 2, 2, J2K_BAND_LL, modes,
                  {{{0, 1}, {9, 0}, {3, 1}, {10, 1}, {6, 1}, {12, 1}, {7, 0}}, {{7, 1}, {13, 1}}, {{15, 1}, {15, 1}, {15, 1}}, {}});
    expect_passes(block, 2, 2, J2K_BAND_HH, modes,
                  {{{0, 1}, {9, 0}, {1, 1}, {10, 1}, {4, 1}, {12, 1}, {5, 0}}, {{5, 1}, {13, 1}}, {{15, 1}, {15, 1}, {15, 1}}, {}});
  }
}

// The passes code the partition of decisions into contexts: two tables that differ by a
// renaming of contexts give the same bytes. This block makes LL's and HL's tables part ways
// (LL puts h=1 v=1 and h=1 v=2 both in 7; HL, swapping h and v, puts the second in 8):
//     0  2
//     2  0
//     0  2
// Plane 1 cleanup (a stripe of three rows: no runs), column 0 then column 1:
//   (0,0) context 0, bit 0; (0,1) context 0 (column 1 not yet coded), bit 1, sign 9: 0;
//   (0,2) v=1: LL 3, HL 5, HH (h+v=1) 1, bit 0; (1,0) d=1: 1 (HH 3), bit 1, sign 9: 0;
//   (1,1) h=1 v=1: 7 (HH d=0 h+v=2: 2), bit 0; (1,2) d=1: 1 (HH 3), bit 1, sign 9: 0.
// Plane 0 significance: (0,0) h=1 v=1: 7; (0,2) h=1 v=1: 7; (1,1) h=1 v=2: LL 7, HL 8; HH
//   2, 2, 2 (no significant diagonal); bits 0. Refinement: (0,1), (1,0), (1,2): 15, bits 0.
TEST(CodingPasses, BandTablesPartTheContexts) {
  const std::vector<int32_t> block = {0, 2, 2, 0, 0, 2};
  const Pass refine = {{15, 0}, {15, 0}, {15, 0}};
  for (uint8_t modes : kMqModes) {
    expect_passes(block, 2, 3, J2K_BAND_LL, modes,
                  {{{0, 0}, {0, 1}, {9, 0}, {3, 0}, {1, 1}, {9, 0}, {7, 0}, {1, 1}, {9, 0}}, {{7, 0}, {7, 0}, {7, 0}}, refine, {}});
    expect_passes(block, 2, 3, J2K_BAND_HL, modes,
                  {{{0, 0}, {0, 1}, {9, 0}, {5, 0}, {1, 1}, {9, 0}, {7, 0}, {1, 1}, {9, 0}}, {{7, 0}, {7, 0}, {8, 0}}, refine, {}});
    expect_passes(block, 2, 3, J2K_BAND_HH, modes,
                  {{{0, 0}, {0, 1}, {9, 0}, {1, 0}, {3, 1}, {9, 0}, {2, 0}, {3, 1}, {9, 0}}, {{2, 0}, {2, 0}, {2, 0}}, refine, {}});
  }
}

// One column of eight rows (two stripes): row 3 = 1, row 4 = 2, the rest 0. Vertically causal
// contexts (VSC, D.7) make row 3, the last row of the first stripe, ignore row 4 below it.
// Plane 1 cleanup: stripe 0 a run, no bit: RL 0. Stripe 1 a run: RL 1, row 0 = 00b in UNI,
//   sign context 9, positive 0; then rows 5, 6, 7: (5) v=1 -> 3, (6) 0, (7) 0, bits 0.
// Plane 0, without VSC:
//   significance: row 3 sees row 4: v=1 -> 3, bit 1; sign: V = +1: context 10, positive 0;
//     row 5 sees row 4: 3, bit 0.
//   refinement: row 4, first refinement, row 3 now significant: 15, bit 0.
//   cleanup: stripe 0 had row 3 coded, no run: rows 0, 1 context 0, row 2 sees row 3: 3; all
//     0; stripe 1: rows 6, 7 context 0, bits 0.
// Plane 0, with VSC:
//   significance: row 3 does not see row 4: not coded; row 5: 3, bit 0.
//   refinement: row 4's neighbours are insignificant: 14, bit 0.
//   cleanup: stripe 0 is a run (row 3 has no visible significant neighbour): RL 1, row 3 =
//     11b in UNI, sign context 9 (row 4 hidden), positive 0; stripe 1: rows 6, 7: 0, 0.
TEST(CodingPasses, VerticallyCausalContexts) {
  const std::vector<int32_t> column = {0, 0, 0, 1, 2, 0, 0, 0};
  const Pass top = {{RL, 0}, {RL, 1}, {UNI, 0}, {UNI, 0}, {9, 0}, {3, 0}, {0, 0}, {0, 0}};
  for (uint8_t modes : kMqModes) {
    expect_passes(column, 1, 8, J2K_BAND_LL, modes,
                  {top, {{3, 1}, {10, 0}, {3, 0}}, {{15, 0}}, {{0, 0}, {0, 0}, {3, 0}, {0, 0}, {0, 0}}});
    expect_passes(column, 1, 8, J2K_BAND_LL, static_cast<uint8_t>(modes | kModeCausal),
                  {top, {{3, 0}}, {{14, 0}}, {{RL, 1}, {UNI, 1}, {UNI, 1}, {9, 0}, {0, 0}, {0, 0}}});
  }
}

// BYPASS (D.6): from the 11th pass on, significance and refinement passes put their decisions
// as raw bits (a 0 stuffed after 0xFF); the MQ codeword ends after the 10th pass, each raw
// pair and each later cleanup pass is a segment of its own. One coefficient, 45 = 101101b:
// six planes, 16 passes. MQ: cleanup 0:1 9:0; refinements 14:0, 16:1, 16:1 (planes 4, 3, 2);
// raw: the refinement bits of planes 1 and 0, 0 and 1; the cleanup passes code nothing.
std::vector<int> read_raw(const uint8_t* p, size_t size, size_t bits) {
  std::vector<int> out;
  size_t k = 0;
  int left = 0;
  uint8_t cur = 0, prev = 0;
  while (out.size() < bits) {
    if (left == 0) {
      const uint8_t next = k < size ? p[k] : 0xFF;
      ++k;
      left = prev == 0xFF ? 7 : 8;
      prev = cur = next;
    }
    out.push_back((cur >> --left) & 1);
  }
  return out;
}

TEST(CodingPasses, BypassSegments) {
  for (int extra : {0, int{kModePredictable}, int{kModeReset}}) {
    const uint8_t modes = static_cast<uint8_t>(kModeBypass | extra);
    SCOPED_TRACE("modes " + std::to_string(modes));
    const CodedBlock block = encode({45}, 1, 1, J2K_BAND_LL, modes);
    ASSERT_EQ(block.passes.size(), 16u);
    const std::vector<size_t> segment_ends = {9, 11, 12, 14, 15};
    for (size_t k = 0; k < 16; ++k)
      EXPECT_EQ(block.passes[k].terminated, std::count(segment_ends.begin(), segment_ends.end(), k) == 1) << "pass " << k;
    auto at = [&](size_t pass) { return static_cast<size_t>(block.passes[pass].end); };
    // The first segment: passes 0..9 through the MQ coder.
    MqDecoder mq(block.bytes.data(), at(9));
    auto cx = initial_decoder_contexts();
    const Pass mq_passes[10] = {{{0, 1}, {9, 0}}, {}, {{14, 0}}, {}, {}, {{16, 1}}, {}, {}, {{16, 1}}, {}};
    for (const Pass& pass : mq_passes) {
      for (const Decision& s : pass) EXPECT_EQ(mq.decode(cx[static_cast<size_t>(s.cx)]), s.d);
      if (modes & kModeReset) cx = initial_decoder_contexts();
    }
    // Raw: plane 1's refinement bit (0), plane 0's (1); each segment a byte at most.
    EXPECT_EQ(read_raw(block.bytes.data() + at(9), at(11) - at(9), 1), std::vector<int>{0});
    EXPECT_EQ(read_raw(block.bytes.data() + at(12), at(14) - at(12), 1), std::vector<int>{1});
    EXPECT_LE(at(11) - at(9), 1u);
    EXPECT_LE(at(14) - at(12), 1u);
    EXPECT_EQ(at(15), block.bytes.size());
  }
}

}  // namespace
