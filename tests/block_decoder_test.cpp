// SPDX-License-Identifier: BSD-2-Clause
// The Tier-1 block decoder (codec/tier1/block_decoder) against the encoder (block_encoder,
// itself checked against hand-worked passes and OpenJPEG's bytes): random blocks of every
// shape, band and mode-switch combination, encoded, then decoded from every truncation point
// a layer could end at. The expected coefficients come from the originals, not from the
// decoder: a block decoded through the cleanup pass of plane p holds each coefficient's bits
// from p up, at twice the scale, plus half the interval left open (2^p); one decoded within
// plane p holds that or the plane above's. Corrupt bytes and segment lists decode to
// something, never a crash (CI runs this under ASan/UBSan).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ebcot/block_decoder.hpp"
#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier1/ebcot/stripe_flags.hpp"
#include "codec/tier2/packet_reader.hpp"
#include "common/error.hpp"
#include "tests/support/coded_blocks.hpp"

namespace {

using namespace j2k::codec;

// The value the decoder must hold for `v` once every plane from p up is decoded.
int32_t known_down_to(int32_t v, int p) {
  const uint32_t m = static_cast<uint32_t>(std::abs(static_cast<int64_t>(v)));
  if ((m >> p) == 0) return 0;
  const int32_t r = static_cast<int32_t>(((m >> p) << (p + 1)) | (1u << p));
  return v < 0 ? -r : r;
}

using test_support::deliver;
using test_support::random_coefficients;
using test_support::Delivered;

struct Block {
  int width, height;
  j2k_band_type band;
  uint8_t modes;
  std::vector<int32_t> data;
};

// What Tier-2 would hand the decoder for block b coded as cb, with d's segments.
BlockCode code_of(const Block& b, const CodedBlock& cb, const Delivered& d) {
  BlockCode code;
  code.bytes = cb.bytes.data();
  code.size = cb.bytes.size();
  code.segment_bytes = d.bytes.data();
  code.segment_passes = d.passes.data();
  code.segments = d.bytes.size();
  code.width = b.width;
  code.height = b.height;
  code.band = b.band;
  code.modes = b.modes;
  code.bitplanes = cb.bitplanes;
  return code;
}

std::vector<int32_t> decode(const Block& b, const CodedBlock& cb, const Delivered& d, BlockDecodeReport* report = nullptr) {
  std::vector<int32_t> out(static_cast<size_t>(b.width * b.height), 12345);
  const BlockDecodeReport r = decode_block(code_of(b, cb, d), out.data(), b.width);
  if (report) *report = r;
  return out;
}

BlockView view_of(const Block& b) {
  BlockView view;
  view.data = b.data.data();
  view.stride = b.width;
  view.width = b.width;
  view.height = b.height;
  view.band = b.band;
  view.modes = b.modes;
  view.estimate_distortion = false;
  return view;
}

CodedBlock encode(const Block& b) { return encode_block(view_of(b)); }

// Decodes the block from every truncation point and checks each against the original.
void check_every_truncation(const Block& b, const std::string& what) {
  const CodedBlock cb = encode(b);
  const int total = static_cast<int>(cb.passes.size());
  for (int k = 0; k < total; ++k)
    ASSERT_EQ(cb.passes[static_cast<size_t>(k)].terminated, pass_ends_segment(k, b.modes) || k == total - 1)
        << what << ", pass " << k << ": the encoder and Tier-2 disagree on segment ends";
  for (int passes = 0; passes <= total; ++passes) {
    BlockDecodeReport report;
    const std::vector<int32_t> got = decode(b, cb, deliver(cb, passes), &report);
    ASSERT_EQ(report.passes, passes) << what;
    ASSERT_FALSE(report.segmark_error) << what << ", " << passes << " passes";
    // The plane of the last pass: pass 0 is the top plane's cleanup, then three a plane.
    const int last = passes - 1;
    const int done_plane = passes == 0 ? cb.bitplanes : last == 0 ? cb.bitplanes - 1 : cb.bitplanes - 2 - (last - 1) / 3;
    const bool whole_plane = passes == 0 || (passes - 1) % 3 == 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const int32_t v = b.data[i];
      const int32_t upper = passes == 0 ? 0 : known_down_to(v, whole_plane ? done_plane : done_plane + 1);
      if (whole_plane) {
        ASSERT_EQ(got[i], upper) << what << ", " << passes << " passes, coefficient " << i << " = " << v;
      } else {
        const int32_t lower = known_down_to(v, done_plane);
        ASSERT_TRUE(got[i] == upper || got[i] == lower)
            << what << ", " << passes << " passes (within plane " << done_plane << "), coefficient " << i << " = " << v
            << ": got " << got[i] << ", expected " << upper << " or " << lower;
      }
    }
    if (passes == total) {
      for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i] / 2, b.data[i]) << what << ": not lossless";
    }
  }
}

const std::pair<int, int> kShapes[] = {{1, 1}, {1, 7}, {7, 1}, {3, 5}, {4, 4}, {5, 9}, {17, 13},
                                       {32, 32}, {64, 64}, {1024, 4}, {4, 1024}, {2, 1024}, {64, 63}};

TEST(BlockDecoder, EveryModeBandAndShapeFromEveryTruncationPoint) {
  std::mt19937 rng(7);
  for (int modes = 0; modes < 64; ++modes)
    for (int band = 0; band < 4; ++band)
      for (const auto& [w, h] : kShapes) {
        if (w * h > 1100 && (modes + band) % 8 != 0) continue;  // the big shapes on a sample of modes
        Block b{w, h, static_cast<j2k_band_type>(band), static_cast<uint8_t>(modes), {}};
        const int bits = std::uniform_int_distribution<int>(1, 16)(rng);
        const double zeros = std::uniform_real_distribution<double>(0, 0.95)(rng);
        b.data = random_coefficients(rng, w * h, bits, zeros);
        check_every_truncation(b, "modes " + std::to_string(modes) + ", band " + std::to_string(band) + ", " +
                                      std::to_string(w) + "x" + std::to_string(h) + ", " + std::to_string(bits) + " bits");
        if (HasFatalFailure()) return;
      }
}

TEST(BlockDecoder, ThirtyBitPlanesSparseAndAllZero) {
  std::mt19937 rng(11);
  for (uint8_t modes : {uint8_t{0}, uint8_t{kModeBypass | kModeTermAll}, uint8_t{0x3F}}) {
    Block b{16, 16, J2K_BAND_HH, modes, random_coefficients(rng, 256, 30, 0.5)};
    b.data[3] = (1 << 29) + 5;  // 30 planes for sure
    check_every_truncation(b, "30 planes, modes " + std::to_string(modes));
    Block lone{64, 64, J2K_BAND_LH, modes, std::vector<int32_t>(4096, 0)};
    lone.data[4095] = -1;  // one coefficient at the very end: runs across the whole block
    check_every_truncation(lone, "one -1, modes " + std::to_string(modes));
    Block zero{8, 8, J2K_BAND_LL, modes, std::vector<int32_t>(64, 0)};
    const CodedBlock cb = encode(zero);
    EXPECT_EQ(cb.bitplanes, 0);
    EXPECT_EQ(decode(zero, cb, deliver(cb, 0)), std::vector<int32_t>(64, 0));
  }
}

// A decoder that stops early must reach the same coefficients from the bytes up to the
// truncation point as from the whole segment.
TEST(BlockDecoder, TruncationPointsHoldEnoughBytes) {
  std::mt19937 rng(3);
  for (int modes = 0; modes < 64; modes += 3) {
    Block b{32, 32, J2K_BAND_HL, static_cast<uint8_t>(modes), random_coefficients(rng, 1024, 12, 0.3)};
    const CodedBlock cb = encode(b);
    for (int passes = 1; passes < static_cast<int>(cb.passes.size()); ++passes) {
      Delivered cut = deliver(cb, passes), whole = deliver(cb, static_cast<int>(cb.passes.size()));
      // The whole segments, but only `passes` passes of them.
      Delivered full;
      int left = passes;
      for (size_t s = 0; s < whole.bytes.size() && left > 0; ++s) {
        full.bytes.push_back(whole.bytes[s]);
        full.passes.push_back(std::min(left, whole.passes[s]));
        left -= whole.passes[s];
      }
      ASSERT_EQ(decode(b, cb, cut), decode(b, cb, full)) << "modes " << modes << ", " << passes << " passes";
    }
  }
}

TEST(BlockDecoder, SegmarkErrorsAreReported) {
  std::mt19937 rng(5);
  Block b{32, 32, J2K_BAND_LL, kModeSegmark, random_coefficients(rng, 1024, 10, 0.2)};
  const CodedBlock cb = encode(b);
  int errors = 0;
  for (int trial = 0; trial < 50; ++trial) {
    CodedBlock bad = cb;
    bad.bytes[rng() % bad.bytes.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    BlockDecodeReport report;
    decode(b, bad, deliver(bad, static_cast<int>(bad.passes.size())), &report);
    errors += report.segmark_error;
  }
  EXPECT_GT(errors, 25) << "flipped bytes in a SEGMARK block are seen in most cases";
}

TEST(BlockDecoder, RefusesWhatItCannotDecode) {
  const uint8_t bytes[4] = {};
  const uint32_t seg[1] = {5};
  const int passes[1] = {1};
  BlockCode code;
  code.bytes = bytes;
  code.size = 4;
  code.segment_bytes = seg;
  code.segment_passes = passes;
  code.segments = 1;
  code.width = code.height = 4;
  code.bitplanes = 3;
  std::vector<int32_t> out(16);
  try {
    decode_block(code, out.data(), 4);
    FAIL() << "5 bytes of segments in 4";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::CorruptInput);
  }
  code.size = 5;
  code.bitplanes = kMaxDecodedBitplanes + 1;
  try {
    decode_block(code, out.data(), 4);
    FAIL() << "31 bit planes";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::UnsupportedInput);
  }
  code.bitplanes = 3;
  for (auto [w, h] : {std::pair{0, 4}, std::pair{4, 0}, std::pair{2048, 1}, std::pair{128, 64}}) {
    code.width = w;
    code.height = h;
    EXPECT_THROW(decode_block(code, out.data(), 4), j2k::Error) << w << "x" << h;
  }
}

// Random bytes under random segment lists and modes, and flipped bytes in real blocks:
// any coefficients, no crash, no read outside the bytes (ASan checks).
TEST(BlockDecoder, CorruptBytesNeverCrash) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 2000; ++trial) {
    const int w = 1 + static_cast<int>(rng() % 64), h = 1 + static_cast<int>(rng() % 64);
    const size_t size = rng() % 300;
    std::vector<uint8_t> bytes(size);
    for (uint8_t& x : bytes) x = static_cast<uint8_t>(rng() % 4 == 0 ? 0xFF : rng());
    std::vector<uint32_t> seg;
    std::vector<int> passes;
    size_t left = size;
    while (left > 0 && seg.size() < 100) {
      const uint32_t n = static_cast<uint32_t>(rng() % (left + 1));
      seg.push_back(n);
      passes.push_back(static_cast<int>(rng() % 12));
      left -= n;
    }
    BlockCode code;
    code.bytes = bytes.data();
    code.size = size;
    code.segment_bytes = seg.data();
    code.segment_passes = passes.data();
    code.segments = seg.size();
    code.width = w;
    code.height = h;
    code.band = static_cast<j2k_band_type>(rng() % 4);
    code.modes = static_cast<uint8_t>(rng() % 64);
    code.bitplanes = static_cast<int>(rng() % (kMaxDecodedBitplanes + 1));
    std::vector<int32_t> out(static_cast<size_t>(w * h));
    const BlockDecodeReport r = decode_block(code, out.data(), w);
    EXPECT_LE(r.passes, std::max(0, 3 * code.bitplanes - 2));
  }
}

// The CPU's refinement pass takes its rows from refine_masks() (SSE2 for sixteen columns on
// x86-64, plain C++ for fewer): against the flag word's bits read one row at a time
// (stripe_flags.hpp: row i significant at bit 3i + 4, visited at 24 + i, refined at 28 + i),
// on random words, for every column count.
TEST(BlockDecoder, RefinementMasksReadTheFlagWordsRowByRow) {
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round)
    for (int count = 1; count <= 16; ++count) {
      std::vector<uint32_t> words(18);
      for (uint32_t& w : words) w = static_cast<uint32_t>(rng());
      const std::vector<uint32_t> before = words;
      uint64_t todo = 0, again = 0;
      j2k::codec::t1::refine_masks(words.data() + 1, count, todo, again);
      uint64_t want_todo = 0, want_again = 0;
      for (int x = 0; x < 16; ++x) {
        uint32_t want = before[1 + x];
        for (int i = 0; i < 4 && x < count; ++i) {
          const uint32_t f = before[1 + x];
          const bool significant = (f >> (3 * i + 4)) & 1, visited = (f >> (24 + i)) & 1, refined = (f >> (28 + i)) & 1;
          if (!significant || visited) continue;
          want_todo |= uint64_t{1} << (4 * x + i);
          if (refined) want_again |= uint64_t{1} << (4 * x + i);
          want |= 1u << (28 + i);
        }
        ASSERT_EQ(words[1 + x], want) << "column " << x << " of " << count;
      }
      ASSERT_EQ(todo, want_todo) << count << " columns";
      ASSERT_EQ(again, want_again) << count << " columns";
      ASSERT_EQ(words[0], before[0]);  // the words either side untouched
      ASSERT_EQ(words[17], before[17]);
    }
}

}  // namespace

namespace {

// The block-coder interface (tier1/block_coder.hpp): EBCOT's coder encodes and decodes through
// it as encode_block() and decode_block() do, reads host memory only, and HT has its own
// coder (ht_block_coder_test checks it).
TEST(BlockCoder, EbcotThroughTheInterfaceAndHtAvailable) {
  const std::unique_ptr<BlockCoder> coder = make_block_coder(BlockCoding::Ebcot);
  EXPECT_TRUE(coder->reads(J2K_MEMORY_HOST));
  EXPECT_FALSE(coder->reads(J2K_MEMORY_DEVICE));
  std::mt19937 rng(7);
  for (const uint8_t modes : {uint8_t{0}, uint8_t{kModeBypass | kModeTermAll | kModeSegmark}}) {
    Block b{17, 13, J2K_BAND_HL, modes, random_coefficients(rng, 17 * 13, 9, 0.3)};
    const BlockView view = view_of(b);
    const CodedBlock through = coder->encode(view);
    const CodedBlock direct = encode_block(view);
    ASSERT_EQ(through.bytes, direct.bytes);
    ASSERT_EQ(through.passes.size(), direct.passes.size());
    const Delivered d = deliver(through, static_cast<int>(through.passes.size()));
    const BlockCode code = code_of(b, through, d);
    coder->check(code);
    std::vector<int32_t> out(b.data.size());
    EXPECT_EQ(coder->decode(code, out.data(), b.width).passes, static_cast<int>(through.passes.size()));
    for (size_t i = 0; i < out.size(); ++i) ASSERT_EQ(out[i] / 2, b.data[i]) << "coefficient " << i;
  }
  EXPECT_NE(make_block_coder(BlockCoding::HighThroughput), nullptr);
}

}  // namespace
