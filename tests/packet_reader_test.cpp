// SPDX-License-Identifier: BSD-2-Clause
// Reading packets (codec/tier2/packet_reader) against writing them (packet_writer): random
// precincts of one to three bands, blocks with random passes, segment ends under every mode
// switch, missing bit planes and layer shares, written layer by layer and read back to the
// same inclusion, passes, missing bit planes, bytes and codeword segments; the header bits'
// stuffing after 0xFF; and cut or flipped packets are errors, never crashes (CI runs this
// under ASan/UBSan).
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier2/packet_reader.hpp"
#include "codec/tier2/packet_writer.hpp"
#include "common/error.hpp"

namespace {

using namespace j2k::codec;

TEST(BitReader, StuffedBitAfter0xFFAndTheByteAfterAFinal0xFF) {
  const uint8_t data[] = {0xFF, 0x7F, 0x80, 0xFF, 0x00, 0x12};
  BitReader in(data, sizeof data);
  EXPECT_EQ(in.bits(8), 0xFFu);
  EXPECT_EQ(in.bits(7), 0x7Fu);  // 7 bits after 0xFF
  EXPECT_EQ(in.bits(8), 0x80u);
  EXPECT_EQ(in.bits(8), 0xFFu);
  EXPECT_EQ(in.finish(), 5u);  // the header ends in 0xFF: the byte after it is the header's too
  BitReader cut(data, 1);
  cut.bits(8);
  EXPECT_THROW(cut.finish(), j2k::Error);
  EXPECT_THROW(cut.bit(), j2k::Error);
}

// Where codeword segments end, from D.4 and D.6 as read here (not from the code under test):
// RESTART ends one after every pass; BYPASS after the 10th pass (index 9), then after each raw
// pair (indices 11, 14, ...) and each cleanup pass (12, 15, ...); otherwise only the block's
// last pass ends its one segment.
bool ends_segment(int k, uint8_t modes) {
  if (modes & kModeTermAll) return true;
  if (!(modes & kModeBypass) || k < 9) return false;
  return k == 9 || (k - 10) % 3 == 1 || (k - 10) % 3 == 2;
}

TEST(PacketReader, SegmentEndsFollowTheModes) {
  for (int modes = 0; modes < 64; ++modes)
    for (int k = 0; k < 164; ++k)
      EXPECT_EQ(pass_ends_segment(k, static_cast<uint8_t>(modes)), ends_segment(k, static_cast<uint8_t>(modes)))
          << "modes " << modes << ", pass " << k;
}

// HT code-blocks (ISO/IEC 15444-15): segments and length fields follow Part 15's rules, the
// header bits worked by hand for one block in a 1x1 grid.
TEST(PacketReader, HtSegmentsFollowPart15) {
  // Layer 0: included (1), 2 missing planes (0 0 1), 4 passes (11 01: 3 placeholder passes
  // and the cleanup pass, one segment), Lblock 3 + 2 (1 1 0), a length of 7 bits
  // (Lblock + log2 4): 100. Layer 1: included (1), 2 passes (1 0: SigProp and MagRef),
  // Lblock unchanged (0), a length of Lblock + 1 bits: 20.
  // 1 1 001 1101 110 1100100 -> CE EC 80; 1 1 10 0 010100 -> E2 80.
  {
    PrecinctReader r({{1, 1}}, kModeHt);
    std::vector<uint8_t> p0 = {0xCE, 0xEC, 0x80};
    p0.resize(3 + 100, 0x11);
    ASSERT_EQ(r.read_header(p0.data(), p0.size(), false), 3u);
    ASSERT_EQ(r.read_body(p0.data() + 3, 100), 100u);
    std::vector<uint8_t> p1 = {0xE2, 0x80};
    p1.resize(2 + 20, 0x22);
    ASSERT_EQ(r.read_header(p1.data(), p1.size(), false), 2u);
    ASSERT_EQ(r.read_body(p1.data() + 2, 20), 20u);
    const BlockData& b = r.block(0, 0);
    EXPECT_EQ(b.missing_bitplanes, 2u);
    EXPECT_EQ(b.passes, 6);
    EXPECT_EQ(b.segments, (std::vector<uint32_t>{100, 20}));
    EXPECT_EQ(b.segment_passes, (std::vector<int>{4, 2}));
  }
  // Placeholder passes alone: layer 0 says 3 passes (11 00) with a length of 0 in Lblock +
  // log2 1 bits (000) and one more bit, to Lblock + log2 3 (0); layer 1 the cleanup pass (0),
  // 5 bytes in Lblock bits (101).
  // 1 1 1 1100 0 000 0 -> F8 00; 1 1 0 0 101 -> CA.
  {
    PrecinctReader r({{1, 1}}, kModeHt);
    const std::vector<uint8_t> p0 = {0xF8, 0x00};
    ASSERT_EQ(r.read_header(p0.data(), p0.size(), false), 2u);
    ASSERT_EQ(r.read_body(p0.data() + 2, 0), 0u);
    std::vector<uint8_t> p1 = {0xCA};
    p1.resize(1 + 5, 0x33);
    ASSERT_EQ(r.read_header(p1.data(), p1.size(), false), 1u);
    ASSERT_EQ(r.read_body(p1.data() + 1, 5), 5u);
    const BlockData& b = r.block(0, 0);
    EXPECT_EQ(b.passes, 4);
    EXPECT_EQ(b.segments, (std::vector<uint32_t>{0, 5}));
    EXPECT_EQ(b.segment_passes, (std::vector<int>{3, 1}));
  }
  // Placeholder passes that claim bytes are an error.
  {
    PrecinctReader r({{1, 1}}, kModeHt);
    const std::vector<uint8_t> p0 = {0xF8, 0x10};  // the extra length bit set
    EXPECT_THROW(r.read_header(p0.data(), p0.size(), false), j2k::Error);
  }
}

// HTMIXED (Part 15): a block's first contribution with bytes says whether it is HT or Part 1.
// Its length read as an HT cleanup segment's counts as one only with Lblock above 3, 2 bytes
// or more and a top bit of 0; otherwise the block is a Part 1 block, its length as wide as
// all the contribution's passes need. The header bits worked by hand.
TEST(PacketReader, HtMixedBlocksAreToldByTheirFirstLength) {
  const uint8_t mixed = kModeHt | kModeHtMixed;
  // Two blocks (2 x 1). Packet: 1. Block A: included (root 1, leaf 1), 0 missing planes
  // (root 1, leaf 1), 1 pass (0), Lblock 4 (1 0), a 4-bit length 0101: top bit 0, HT, 5 bytes.
  // Block B: included (1), 0 missing planes (1), 3 passes (1100), Lblock 3 (0), the cleanup
  // pass's 3 bits 110: top bit 1, so Part 1, and one more bit to Lblock + log2 3: 1, 13 bytes.
  // 1 11 11 0 10 0101 1 1 1100 0 110 1 -> FA 5F 1A.
  {
    PrecinctReader r({{2, 1}}, mixed);
    std::vector<uint8_t> p0 = {0xFA, 0x5F, 0x1A};
    p0.resize(3 + 18, 0x44);
    ASSERT_EQ(r.read_header(p0.data(), p0.size(), false), 3u);
    ASSERT_EQ(r.read_body(p0.data() + 3, 18), 18u);
    const BlockData& a = r.block(0, 0);
    EXPECT_FALSE(a.part1);
    EXPECT_EQ(a.modes(mixed), mixed);
    EXPECT_EQ(a.segments, (std::vector<uint32_t>{5}));
    const BlockData& b = r.block(0, 1);
    EXPECT_TRUE(b.part1);
    EXPECT_EQ(b.modes(mixed), 0);
    EXPECT_EQ(b.passes, 3);
    EXPECT_EQ(b.segments, (std::vector<uint32_t>{13}));
    EXPECT_EQ(b.segment_passes, (std::vector<int>{3}));
  }
  // One block, Lblock 3: a length of 3 (011) has its top bit 0 but Lblock is not above 3, so
  // the block is Part 1. 1 1 1 0 0 011 -> E3.
  {
    PrecinctReader r({{1, 1}}, mixed);
    std::vector<uint8_t> p0 = {0xE3};
    p0.resize(1 + 3, 0x55);
    ASSERT_EQ(r.read_header(p0.data(), p0.size(), false), 1u);
    ASSERT_EQ(r.read_body(p0.data() + 1, 3), 3u);
    EXPECT_TRUE(r.block(0, 0).part1);
    EXPECT_EQ(r.block(0, 0).segments, (std::vector<uint32_t>{3}));
    // Without HTMIXED the same bits are an HT cleanup segment of 3 bytes.
    PrecinctReader ht({{1, 1}}, kModeHt);
    ASSERT_EQ(ht.read_header(p0.data(), p0.size(), false), 1u);
    EXPECT_FALSE(ht.block(0, 0).part1);
  }
  // A Part 1 block with RESTART (a segment a pass) whose first contribution holds 2 passes:
  // one segment cannot hold them, refused. 1 1 1 10 0 100 0 -> F2 00.
  {
    PrecinctReader r({{1, 1}}, mixed | kModeTermAll);
    const std::vector<uint8_t> p0 = {0xF2, 0x00};
    EXPECT_THROW(r.read_header(p0.data(), p0.size(), false), j2k::Error);
  }
}

struct Precinct {
  uint8_t modes = 0;
  int layers = 1;
  std::vector<std::unique_ptr<CodedBlock>> coded;
  std::vector<std::unique_ptr<BlockContribution>> blocks;
  std::vector<PrecinctBand> bands;
};

Precinct random_precinct(std::mt19937& rng) {
  Precinct p;
  p.modes = static_cast<uint8_t>(rng() % 64);
  p.layers = 1 + static_cast<int>(rng() % 5);
  const int nbands = rng() % 2 ? 1 : 3;
  for (int b = 0; b < nbands; ++b) {
    PrecinctBand band;
    const bool empty = rng() % 6 == 0;
    band.blocks_x = empty ? 0 : 1 + static_cast<int>(rng() % 5);
    band.blocks_y = empty ? 0 : 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < band.blocks_x * band.blocks_y; ++i) {
      auto c = std::make_unique<CodedBlock>();
      const int passes = rng() % 5 == 0 ? 0 : 1 + static_cast<int>(rng() % 40);
      uint32_t end = 0;
      for (int k = 0; k < passes; ++k) {
        end += rng() % 4 == 0 ? 0 : static_cast<uint32_t>(rng() % 300);
        c->passes.push_back({end, 0, ends_segment(k, p.modes) || k == passes - 1});
      }
      for (uint32_t k = 0; k < end; ++k) c->bytes.push_back(static_cast<uint8_t>(rng()));
      auto contribution = std::make_unique<BlockContribution>();
      contribution->coded = c.get();
      contribution->missing_bitplanes = static_cast<uint32_t>(rng() % 20);
      int now = 0;
      for (int l = 0; l < p.layers; ++l) {
        if (rng() % 2) now = std::min(passes, now + static_cast<int>(rng() % 20));
        if (l == p.layers - 1 && rng() % 2) now = passes;
        contribution->passes.push_back(now);
      }
      band.blocks.push_back(contribution.get());
      p.coded.push_back(std::move(c));
      p.blocks.push_back(std::move(contribution));
    }
    p.bands.push_back(band);
  }
  return p;
}

// Each layer's packet as the writer makes it: [SOP] header [EPH] body.
std::vector<std::vector<uint8_t>> packets(const Precinct& p, bool sop, bool eph) {
  PrecinctCoder coder(p.bands);
  std::vector<std::vector<uint8_t>> out;
  for (int l = 0; l < p.layers; ++l) {
    std::vector<uint8_t> bytes;
    if (sop) bytes.insert(bytes.end(), {0xFF, 0x91, 0, 4, 0, static_cast<uint8_t>(l)});
    std::vector<BodyPart> body;
    coder.write(l, eph, bytes, body);
    for (const BodyPart& b : body) bytes.insert(bytes.end(), b.coded->bytes.begin() + b.from, b.coded->bytes.begin() + b.to);
    out.push_back(std::move(bytes));
  }
  return out;
}

std::vector<std::pair<int, int>> grids(const Precinct& p) {
  std::vector<std::pair<int, int>> g;
  for (const PrecinctBand& b : p.bands) g.emplace_back(b.blocks_x, b.blocks_y);
  return g;
}

TEST(PacketReader, ReadsWhatTheWriterWrote) {
  std::mt19937 rng(2026);
  for (int trial = 0; trial < 400; ++trial) {
    const Precinct p = random_precinct(rng);
    const bool sop = rng() % 2, eph = rng() % 2;
    SCOPED_TRACE("trial " + std::to_string(trial) + ", modes " + std::to_string(p.modes));
    const auto written = packets(p, sop, eph);
    PrecinctReader reader(grids(p), p.modes);
    for (int l = 0; l < p.layers; ++l) {
      const std::vector<uint8_t>& packet = written[static_cast<size_t>(l)];
      const size_t header = reader.read_header(packet.data(), packet.size(), eph);
      const size_t body = reader.read_body(packet.data() + header, packet.size() - header);
      ASSERT_EQ(header + body, packet.size()) << "layer " << l;
      for (size_t b = 0; b < p.bands.size(); ++b)
        for (size_t i = 0; i < p.bands[b].blocks.size(); ++i) {
          const BlockContribution& want = *p.bands[b].blocks[i];
          const BlockData& got = reader.block(b, i);
          const int n = want.passes[static_cast<size_t>(l)];
          ASSERT_EQ(got.included, n > 0) << "layer " << l << ", band " << b << ", block " << i;
          ASSERT_EQ(got.passes, n);
          if (n == 0) continue;
          EXPECT_EQ(got.missing_bitplanes, want.missing_bitplanes);
          const CodedBlock& c = *want.coded;
          const uint32_t end = c.passes[static_cast<size_t>(n - 1)].end;
          ASSERT_EQ(std::vector<uint8_t>(got.data(), got.data() + got.size()), std::vector<uint8_t>(c.bytes.begin(), c.bytes.begin() + end));
          // The segments: split after each pass the modes terminate, the last one open.
          std::vector<uint32_t> lengths;
          std::vector<int> counts;
          int first = 0;
          for (int k = 0; k < n; ++k)
            if (ends_segment(k, p.modes) || k == n - 1) {
              lengths.push_back(c.passes[static_cast<size_t>(k)].end - (first > 0 ? c.passes[static_cast<size_t>(first - 1)].end : 0));
              counts.push_back(k - first + 1);
              first = k + 1;
            }
          EXPECT_EQ(got.segments, lengths);
          EXPECT_EQ(got.segment_passes, counts);
        }
    }
  }
}

TEST(PacketReader, CutAndFlippedPacketsAreErrors) {
  std::mt19937 rng(7);
  int errors = 0, runs = 0;
  for (int trial = 0; trial < 25; ++trial) {
    const Precinct p = random_precinct(rng);
    const bool eph = rng() % 2;
    const auto written = packets(p, false, eph);
    const std::vector<uint8_t>& packet = written[0];
    // Cut anywhere: the header or the body runs past the end (or, partial, the body keeps
    // what is there).
    for (size_t n = 0; n < packet.size(); ++n) {
      PrecinctReader reader(grids(p), p.modes);
      try {
        const size_t h = reader.read_header(packet.data(), n, eph);
        reader.read_body(packet.data() + h, n - h);
        // Only a packet whose body is empty reads whole from fewer bytes than it has: none here.
        ADD_FAILURE() << "a packet cut to " << n << " of " << packet.size() << " bytes was read whole";
      } catch (const j2k::Error& e) {
        EXPECT_EQ(e.code(), j2k::ErrorCode::CorruptInput) << e.what();
      }
      PrecinctReader partial(grids(p), p.modes);
      try {
        const size_t h = partial.read_header(packet.data(), n, eph);
        EXPECT_EQ(partial.read_body(packet.data() + h, n - h, true), n - h);
      } catch (const j2k::Error& e) {
        EXPECT_EQ(e.code(), j2k::ErrorCode::CorruptInput) << e.what();
      }
    }
    // Flipped bytes of the header (the body's bytes are the blocks' own): an error or some
    // reading, never a crash.
    const size_t header = PrecinctReader(grids(p), p.modes).read_header(packet.data(), packet.size(), eph);
    for (int k = 0; k < 200; ++k) {
      std::vector<uint8_t> b = packet;
      b[rng() % header] ^= static_cast<uint8_t>(1 + rng() % 255);
      PrecinctReader reader(grids(p), p.modes);
      ++runs;
      try {
        for (int l = 0; l < p.layers; ++l) {
          const std::vector<uint8_t>& next = l == 0 ? b : written[static_cast<size_t>(l)];
          const size_t h = reader.read_header(next.data(), next.size(), eph);
          reader.read_body(next.data() + h, next.size() - h);
        }
      } catch (const j2k::Error& e) {
        ++errors;
        EXPECT_EQ(e.code(), j2k::ErrorCode::CorruptInput) << e.what();
      }
    }
  }
  EXPECT_GT(errors, runs / 20) << errors << " of " << runs;
}

}  // namespace
