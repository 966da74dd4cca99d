// SPDX-License-Identifier: BSD-2-Clause
// The HT block decoder (codec/tier1/ht/block_decoder.cpp, quad rows in two sub-passes over word
// readers), each of its builds (portable, and AVX2 where the CPU has it), against the reference
// decoder (reference_block_decoder.cpp, the standard's steps one bit at a time), bit for bit:
// the coefficients, the passes reported and the corrupt verdict, and nothing written outside
// the block; the same for the dequantised forms that it writes straight into a band. First the word readers against the byte readers on
// bytes full of stuffing candidates (0xFF, 0x7F, bytes above 0x8F), read past their ends;
// then random blocks of every size 1x1..64x64 and the long shapes, every depth 1..30, the
// cleanup at every plane with its SigProp and MagRef, placeholder passes, the stripe-causal
// mode; then the same segments cut, flipped and replaced by noise.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ht/bit_readers.hpp"
#include "codec/tier1/ht/block_decoder.hpp"
#include "codec/tier1/ht/block_encoder.hpp"
#include "codec/tier1/ht/mel_runs.hpp"
#include "codec/tier1/ht/reference_block_decoder.hpp"
#include "codec/tier1/ht/unstuffed_bits.hpp"
#include "codec/tier1/ht/word_readers.hpp"
#include "tests/support/random_block.hpp"

namespace {

using namespace j2k::codec;

// Every build of the cleanup pass, each compared with the reference decoder where the CPU runs it.
constexpr ht::HtDecoderPath kBuilds[] = {ht::HtDecoderPath::Portable, ht::HtDecoderPath::Avx2, ht::HtDecoderPath::Avx512};
std::string name_of_build(ht::HtDecoderPath path) {
  switch (path) {
    case ht::HtDecoderPath::Portable: return " (portable)";
    case ht::HtDecoderPath::Avx2: return " (AVX2)";
    case ht::HtDecoderPath::Avx512: return " (AVX-512)";
  }
  return "";
}

// Bytes where the stuffing rules matter: a third of them 0xFF, 0x7F or 0x8F..0x91.
std::vector<uint8_t> stuffing_bytes(std::mt19937& rng, size_t n) {
  static const uint8_t kSpecial[] = {0xFF, 0x7F, 0x8F, 0x90, 0x91, 0xFE};
  std::vector<uint8_t> b(n);
  for (auto& x : b) x = (rng() % 3 == 0) ? kSpecial[rng() % 6] : static_cast<uint8_t>(rng());
  return b;
}

// --- the readers ----------------------------------------------------------------------------

TEST(HtWordReaders, ForwardAsTheByteReader) {
  std::mt19937 rng(1);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::vector<uint8_t> bytes = stuffing_bytes(rng, rng() % 40);
    const bool ones = trial & 1;
    ht::ForwardBits reference(bytes.data(), bytes.size(), ones ? 0xFF : 0x00);
    ht::ForwardWordReader reader(bytes.data(), bytes.size(), ones);
    for (int i = 0; i < 60; ++i) {
      const int n = static_cast<int>(rng() % 33);
      ASSERT_EQ(reader.take(n), reference.take(n)) << "trial " << trial << ", field " << i << " of " << n << " bits";
    }
  }
}

// The AVX2 cleanup's MagSgn buffer: its 8-byte copies (bytes with few 0xFF) and its byte
// path, every field read up to the limit it was made for, and past the stream's end its 1s.
TEST(HtWordReaders, UnstuffedAsTheByteReader) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bytes = stuffing_bytes(rng, rng() % 200);
    if (trial % 3 != 0)  // mostly plain bytes, a 0xFF now and then
      for (auto& b : bytes) b = rng() % 40 == 0 ? 0xFF : static_cast<uint8_t>(rng() % 255);
    const size_t limit = rng() % 2400;
    ht::ForwardBits reference(bytes.data(), bytes.size(), 0xFF);
    const auto unstuffed = std::make_unique<ht::UnstuffedBits>(bytes.data(), bytes.size(), limit);
    size_t position = 0;
    for (int i = 0;; ++i) {
      const int n = static_cast<int>(rng() % 32);
      if (position + static_cast<size_t>(n) > limit) break;
      const uint32_t got = static_cast<uint32_t>(unstuffed->at(position) & ((uint64_t{1} << n) - 1));
      ASSERT_EQ(got, reference.take(n)) << "trial " << trial << ", field " << i << " of " << n << " bits at " << position;
      position += static_cast<size_t>(n);
    }
  }
}

TEST(HtWordReaders, BackwardAsTheByteReader) {
  std::mt19937 rng(2);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::vector<uint8_t> bytes = stuffing_bytes(rng, rng() % 40);
    const bool nibble = trial & 1;
    ht::BackwardBits reference(bytes.data(), bytes.size(), nibble);
    ht::BackwardWordReader reader(bytes.data(), bytes.size(), nibble);
    for (int i = 0; i < 60; ++i) {
      const int n = static_cast<int>(rng() % 33);
      ASSERT_EQ(reader.take(n), reference.take(n)) << "trial " << trial << ", field " << i << " of " << n << " bits";
    }
  }
}

TEST(HtWordReaders, MelAsTheByteReader) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::vector<uint8_t> bytes = stuffing_bytes(rng, rng() % 20);
    ht::MelDecoder reference(bytes.data(), bytes.size());
    ht::MelStream stream(bytes.data(), bytes.size());
    ht::MelRunDecoder reader(stream);
    for (int i = 0; i < 400; ++i) ASSERT_EQ(reader.event(), reference.event()) << "trial " << trial << ", event " << i;
  }
}

TEST(HtWordReaders, MelRunQueueAsTheByteReader) {
  std::mt19937 rng(4);
  for (int trial = 0; trial < 3000; ++trial) {
    const std::vector<uint8_t> bytes = stuffing_bytes(rng, rng() % 20);
    ht::MelDecoder reference(bytes.data(), bytes.size());
    ht::MelRunQueue runs(bytes.data(), bytes.size());
    ht::MelEvents reader(runs);
    for (int i = 0; i < 400; ++i) ASSERT_EQ(reader.event(), reference.event()) << "trial " << trial << ", event " << i;
  }
}

// A MEL stream written by hand: each state's runs of both kinds, the state going up to 7 and
// back, and past its end (0xFF). The last byte's low nibble reads as 1s (shared with VLC).
TEST(HtWordReaders, MelRunQueueHandMadeRuns) {
  // 1 1 1 1 | 0 1 | 0 0 | 1 1 1 1 1 | 0 11 | 0 00 | 0 1 | 1 1 1 (then 0xFF: 1 1 ...)
  const std::vector<uint8_t> bytes = {0xF4, 0xFB, 0x00};
  struct Run {
    int zeros;
    bool one;
  };
  const Run runs[] = {{1, false}, {1, false}, {1, false}, {2, false}, {1, true}, {0, true}, {1, false},
                      {2, false}, {2, false}, {2, false}, {4, false}, {3, true}, {0, true}, {1, true},
                      {2, false}, {2, false}, {4, false}, {4, false}, {4, false}, {8, false}};
  std::vector<int> expected;
  for (const Run& r : runs) {
    expected.insert(expected.end(), static_cast<size_t>(r.zeros), 0);
    if (r.one) expected.push_back(1);
  }
  ht::MelRunQueue queue(bytes.data(), bytes.size());
  ht::MelEvents events(queue);
  for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(events.event(), expected[i]) << "event " << i;
  ht::MelDecoder reference(bytes.data(), bytes.size());
  for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(reference.event(), expected[i]) << "reference, event " << i;
}

// --- blocks ---------------------------------------------------------------------------------

// A block's segments as Tier-2 hands them over.
struct Segments {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> sizes;
  std::vector<int> passes;
  int width = 0, height = 0, bitplanes = 0;
  uint8_t modes = kModeHt;
};

// decode_block_dequantised() of each build against the reference's values dequantised by `q`
// (write_dequantised, the dequantiser's arithmetic), each into a buffer like expect_same's:
// the same bits, and the same reports.
void expect_same_dequantised(const BlockCode& c, const std::vector<int32_t>& reference, const BlockDecodeReport& r,
                             ptrdiff_t stride, const Dequantisation& q, const std::string& what) {
  const size_t n = reference.size();
  // The reference's values (the canary outside the block kept) in the dequantised form.
  std::vector<int32_t> expected = reference;
  write_dequantised(reference.data(), stride, c.width, c.height, q, expected.data(), stride);
  const std::string form = q.reversible ? " dequantised (5/3)" : " dequantised (9/7)";
  for (ht::HtDecoderPath path : kBuilds) {
    if (!ht::available(path)) continue;
    const std::string build = name_of_build(path);
    std::vector<int32_t> got(n, 0x5A5A5A5A);
    const BlockDecodeReport g = ht::decode_block_dequantised(c, q, got.data(), stride, path);
    EXPECT_EQ(g.passes, r.passes) << what << form << build;
    EXPECT_EQ(g.corrupt, r.corrupt) << what << form << build;
    for (size_t i = 0; i < n; ++i)
      if (got[i] != expected[i]) {
        ADD_FAILURE() << what << form << build << ": sample (" << static_cast<ptrdiff_t>(i) % stride << ", "
                      << static_cast<ptrdiff_t>(i) / stride << ") has bits " << got[i] << ", not " << expected[i];
        break;
      }
  }
}

// The reference and each build of the decoder on `s`, each into a buffer wider and taller
// than the block filled with a canary; every value and the reports must agree, and so must
// each build's dequantised forms (expect_same_dequantised). Returns the reference's report.
// The BlockCode of `s` (pointing into it).
BlockCode code_of(const Segments& s) {
  BlockCode c;
  c.bytes = s.bytes.data();
  c.size = s.bytes.size();
  c.segment_bytes = s.sizes.data();
  c.segment_passes = s.passes.data();
  c.segments = s.sizes.size();
  c.width = s.width;
  c.height = s.height;
  c.bitplanes = s.bitplanes;
  c.modes = s.modes;
  return c;
}

BlockDecodeReport expect_same(const Segments& s, const std::string& what) {
  const BlockCode c = code_of(s);
  const ptrdiff_t stride = s.width + 3;
  const size_t n = static_cast<size_t>(stride) * static_cast<size_t>(s.height + 2);
  std::vector<int32_t> expected(n, 0x5A5A5A5A);
  const BlockDecodeReport r = ht::decode_block_reference(c, expected.data(), stride);
  for (ht::HtDecoderPath path : kBuilds) {
    if (!ht::available(path)) continue;
    const std::string build = name_of_build(path);
    std::vector<int32_t> got(n, 0x5A5A5A5A);
    const BlockDecodeReport g = ht::decode_block(c, got.data(), stride, path);
    EXPECT_EQ(g.passes, r.passes) << what << build;
    EXPECT_EQ(g.corrupt, r.corrupt) << what << build;
    EXPECT_EQ(g.segmark_error, r.segmark_error) << what << build;
    for (size_t i = 0; i < n; ++i)
      if (got[i] != expected[i]) {
        ADD_FAILURE() << what << build << ": sample (" << static_cast<ptrdiff_t>(i) % stride << ", "
                      << static_cast<ptrdiff_t>(i) / stride << ") is " << got[i] << ", not " << expected[i];
        break;
      }
  }
  expect_same_dequantised(c, expected, r, stride, Dequantisation{}, what);
  expect_same_dequantised(c, expected, r, stride, Dequantisation::of_step(0.0371f), what);
  return r;
}

// `block` coded with its cleanup at `plane`, in segments for the first `stop` passes (1:
// cleanup; 2: SigProp; 3: MagRef), with `placeholders` groups of 3 empty passes before it.
Segments coded(const std::vector<int32_t>& block, int w, int h, int plane, size_t stop, int placeholders, uint8_t modes) {
  BlockView v;
  v.data = block.data();
  v.stride = w;
  v.width = w;
  v.height = h;
  v.modes = modes;
  v.cleanup_plane = plane;
  v.estimate_distortion = false;
  const CodedBlock c = ht::encode_block(v);
  Segments s;
  s.width = w;
  s.height = h;
  s.modes = static_cast<uint8_t>(modes | kModeHt);
  if (c.passes.empty()) return s;
  placeholders = std::min(placeholders, kMaxDecodedBitplanes - c.bitplanes);
  s.bitplanes = c.bitplanes + placeholders;
  stop = std::min(stop, c.passes.size());
  s.bytes.assign(c.bytes.begin(), c.bytes.begin() + c.passes[stop - 1].end);
  s.sizes = {c.passes[0].end};
  s.passes = {1 + 3 * placeholders};
  if (stop > 1) {
    s.sizes.push_back(c.passes[stop - 1].end - c.passes[0].end);
    s.passes.push_back(static_cast<int>(stop) - 1);
  }
  return s;
}

std::string describe(int w, int h, int depth, int plane, size_t stop) {
  return std::to_string(w) + "x" + std::to_string(h) + ", depth " + std::to_string(depth) + ", cleanup at plane " +
         std::to_string(plane) + ", " + std::to_string(stop) + " passes";
}

TEST(HtBlockDecoder, EverySizeAsTheReference) {
  std::mt19937 rng(4);
  for (int w = 1; w <= 64; ++w)
    for (int h = 1; h <= 64; ++h) {
      const int depth = 1 + static_cast<int>(rng() % 30);
      const double zeros = (rng() % 4) * 0.3;
      const std::vector<int32_t> block = test_support::random_block(rng, static_cast<size_t>(w * h), depth, zeros);
      const int plane = static_cast<int>(rng() % static_cast<unsigned>(depth));
      const uint8_t modes = (rng() % 4 == 0) ? kModeCausal : 0;
      for (size_t stop = 1; stop <= 3; ++stop) {
        const Segments s = coded(block, w, h, plane, stop, static_cast<int>(rng() % 2), modes);
        expect_same(s, describe(w, h, depth, plane, stop));
        if (::testing::Test::HasFailure()) return;
      }
    }
}

TEST(HtBlockDecoder, EveryDepthAndPlaneAsTheReference) {
  std::mt19937 rng(5);
  static const int kShapes[][2] = {{64, 64}, {33, 17}, {4, 1024}, {1024, 4}, {1, 1024}, {2, 1024}, {1024, 1}, {3, 5}};
  for (const auto& shape : kShapes)
    for (int depth = 1; depth <= 30; ++depth) {
      const int w = shape[0], h = shape[1];
      const std::vector<int32_t> block = test_support::random_block(rng, static_cast<size_t>(w * h), depth, 0.4);
      for (int plane = 0; plane < depth; plane += 1 + depth / 6)
        for (size_t stop = 1; stop <= 3; ++stop)
          expect_same(coded(block, w, h, plane, stop, 0, 0), describe(w, h, depth, plane, stop));
      if (::testing::Test::HasFailure()) return;
    }
}

// A random w x h block's segments, then cut, flipped or replaced by noise (by `trial`).
Segments hostile_segments(std::mt19937& rng, int w, int h, int trial) {
  const int depth = 1 + static_cast<int>(rng() % 30);
  const std::vector<int32_t> block = test_support::random_block(rng, static_cast<size_t>(w * h), depth, 0.5);
  Segments s = coded(block, w, h, static_cast<int>(rng() % static_cast<unsigned>(depth)), 1 + rng() % 3,
                     static_cast<int>(rng() % 2), (rng() & 1) ? kModeCausal : 0);
  if (s.bytes.empty()) return s;
  switch (trial % 4) {
    case 0:  // a few bits flipped
      for (int i = 0, n = 1 + static_cast<int>(rng() % 4); i < n; ++i)
        s.bytes[rng() % s.bytes.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
      break;
    case 1: {  // noise, with the cleanup segment's length field kept plausible
      s.bytes = stuffing_bytes(rng, s.bytes.size());
      const size_t lcup = s.sizes[0];
      if (lcup >= 2 && (rng() & 1)) {
        const size_t scup = 2 + rng() % (lcup - 1);
        s.bytes[lcup - 1] = static_cast<uint8_t>(scup >> 4);
        s.bytes[lcup - 2] = static_cast<uint8_t>((s.bytes[lcup - 2] & 0xF0) | (scup & 0x0F));
      }
      break;
    }
    case 2:  // the bitplanes off by a few
      s.bitplanes = std::clamp(s.bitplanes + static_cast<int>(rng() % 7) - 3, 0, kMaxDecodedBitplanes);
      break;
    default:  // the last segment cut short
      if (s.sizes.back() > 0) {
        const uint32_t cut = 1 + static_cast<uint32_t>(rng() % s.sizes.back());
        s.sizes.back() -= cut;
        s.bytes.resize(s.bytes.size() - cut);
      }
      break;
  }
  return s;
}

// Cut, flipped and noisy segments: whatever the reference makes of them, the same.
TEST(HtBlockDecoder, HostileSegmentsAsTheReference) {
  std::mt19937 rng(6);
  int corrupt = 0, decoded = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int w = 1 + static_cast<int>(rng() % 64), h = 1 + static_cast<int>(rng() % 64);
    const Segments s = hostile_segments(rng, w, h, trial);
    if (s.bytes.empty()) continue;
    const std::string what = "trial " + std::to_string(trial) + ", " + std::to_string(w) + "x" + std::to_string(h);
    (expect_same(s, what).corrupt ? corrupt : decoded) += 1;
    if (::testing::Test::HasFailure()) return;
  }
  // Both verdicts are exercised.
  EXPECT_GT(corrupt, 2000);
  EXPECT_GT(decoded, 2000);
}

// The same on blocks wider than 64 (more than 32 quads a row: the AVX2 exponent bounds' and
// their checks' later vectors of a row, past its first 32 quads).
TEST(HtBlockDecoder, HostileWideSegmentsAsTheReference) {
  std::mt19937 rng(7);
  static const int kShapes[][2] = {{1024, 4}, {1023, 3}, {512, 8}, {257, 15}, {130, 31}, {97, 42}, {65, 63}};
  int corrupt = 0, decoded = 0;
  for (int trial = 0; trial < 1400; ++trial) {
    const int w = kShapes[trial % 7][0], h = kShapes[trial % 7][1];
    const Segments s = hostile_segments(rng, w, h, trial / 7);
    if (s.bytes.empty()) continue;
    const std::string what = "trial " + std::to_string(trial) + ", " + std::to_string(w) + "x" + std::to_string(h);
    (expect_same(s, what).corrupt ? corrupt : decoded) += 1;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(corrupt, 100);
  EXPECT_GT(decoded, 100);
}

// decode_blocks_dequantised() of `group` against decode_block_dequantised() of each block
// alone, each into its own buffer wider and taller than the block filled with a canary: the
// same bits everywhere and the same reports.
void expect_together_as_alone(const std::vector<Segments>& group, const Dequantisation& q, const std::string& what) {
  const size_t n = group.size();
  std::vector<BlockCode> codes(n);
  std::vector<std::vector<int32_t>> alone(n), together(n);
  std::vector<BlockDecodeReport> reports(n);
  std::vector<DequantisedBlock> blocks(n);
  for (size_t i = 0; i < n; ++i) {
    codes[i] = code_of(group[i]);
    const ptrdiff_t stride = group[i].width + 3;
    const size_t size = static_cast<size_t>(stride) * static_cast<size_t>(group[i].height + 2);
    alone[i].assign(size, 0x5A5A5A5A);
    together[i].assign(size, 0x5A5A5A5A);
    reports[i] = ht::decode_block_dequantised(codes[i], q, alone[i].data(), stride);
    blocks[i].code = &codes[i];
    blocks[i].q = q;
    blocks[i].out = together[i].data();
    blocks[i].stride = stride;
  }
  ht::decode_blocks_dequantised(blocks.data(), n);
  for (size_t i = 0; i < n; ++i) {
    const std::string block = what + ", block " + std::to_string(i) + " of " + std::to_string(n) + " (" +
                              std::to_string(group[i].width) + "x" + std::to_string(group[i].height) + ")";
    EXPECT_EQ(blocks[i].report.passes, reports[i].passes) << block;
    EXPECT_EQ(blocks[i].report.corrupt, reports[i].corrupt) << block;
    EXPECT_EQ(blocks[i].report.segmark_error, reports[i].segmark_error) << block;
    const ptrdiff_t stride = blocks[i].stride;
    for (size_t k = 0; k < alone[i].size(); ++k)
      if (together[i][k] != alone[i][k]) {
        ADD_FAILURE() << block << ": sample (" << static_cast<ptrdiff_t>(k) % stride << ", "
                      << static_cast<ptrdiff_t>(k) / stride << ") has bits " << together[i][k] << ", not " << alone[i][k];
        break;
      }
  }
}

// Groups of 1 to 20 blocks, most of one size and some of another, most a cleanup pass alone
// and some with SigProp and MagRef, some with no data and some hostile, decoded together:
// where the CPU has AVX-512, eight blocks' VLC sub-passes in the lanes of one vector
// (vlc_lanes.hpp), which must give each block what it gives alone.
TEST(HtBlockDecoder, BlocksTogetherAsAlone) {
  std::mt19937 rng(8);
  static const int kShapes[][2] = {{64, 64}, {32, 32}, {33, 17}, {1024, 4}, {4, 1024}, {5, 819},
                                   {1, 1},   {2, 3},   {1, 1024}, {65, 63}, {512, 8},  {16, 16}};
  constexpr int kShapeCount = 12;
  int corrupt = 0, decoded = 0;
  for (int trial = 0; trial < 720; ++trial) {
    const auto& main_shape = kShapes[trial % kShapeCount];
    const auto& other_shape = kShapes[rng() % kShapeCount];
    const int n = 1 + static_cast<int>(rng() % 20);
    std::vector<Segments> group;
    for (int i = 0; i < n; ++i) {
      const auto& shape = (rng() % 6 == 0) ? other_shape : main_shape;
      const int w = shape[0], h = shape[1];
      if (rng() % 5 == 0) {
        group.push_back(hostile_segments(rng, w, h, static_cast<int>(rng() % 4)));
      } else {
        const int depth = 1 + static_cast<int>(rng() % 30);
        const std::vector<int32_t> block =
            test_support::random_block(rng, static_cast<size_t>(w * h), depth, (rng() % 4) * 0.3);
        const int plane = (rng() % 3 == 0) ? 0 : static_cast<int>(rng() % static_cast<unsigned>(depth));
        const size_t stop = (rng() % 4 == 0) ? 1 + rng() % 3 : 1;
        group.push_back(coded(block, w, h, plane, stop, static_cast<int>(rng() % 2), (rng() % 4 == 0) ? kModeCausal : 0));
      }
    }
    const Dequantisation q = (trial & 1) ? Dequantisation::of_step(0.0371f) : Dequantisation{};
    expect_together_as_alone(group, q, "trial " + std::to_string(trial));
    for (const Segments& s : group) {
      if (s.bytes.empty()) continue;
      std::vector<int32_t> values(static_cast<size_t>(s.width * s.height));
      (ht::decode_block(code_of(s), values.data(), s.width).corrupt ? corrupt : decoded) += 1;
    }
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(corrupt, 300);  // both verdicts exercised
  EXPECT_GT(decoded, 3000);
  if (!ht::available(ht::HtDecoderPath::Avx512))
    GTEST_SKIP() << "no AVX-512 (F, BW, VL, DQ, CD) here: the blocks were decoded one by one, not in lanes";
}

TEST(HtBlockDecoder, NamesItsBuilds) {
  EXPECT_TRUE(ht::available(ht::HtDecoderPath::Portable));
#if !defined(__x86_64__)
  EXPECT_FALSE(ht::available(ht::HtDecoderPath::Avx2));
  EXPECT_FALSE(ht::available(ht::HtDecoderPath::Avx512));
#endif
  if (ht::available(ht::HtDecoderPath::Avx512)) {
    EXPECT_TRUE(ht::available(ht::HtDecoderPath::Avx2));  // the AVX-512 build needs AVX2's too
  }
  if (!ht::available(ht::HtDecoderPath::Avx2)) GTEST_SKIP() << "no AVX2 and BMI2 here: only the portable build ran";
  if (!ht::available(ht::HtDecoderPath::Avx512))
    GTEST_SKIP() << "no AVX-512 (F, BW, VL, DQ, CD) here: the portable and AVX2 builds ran, not the AVX-512 one";
}

}  // namespace
