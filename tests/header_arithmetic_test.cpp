// SPDX-License-Identifier: BSD-2-Clause
// Arithmetic on header fields at the edges of what a header may say (issue 45: no undefined
// behaviour, no sum that wraps past a limit): images of 2^32 - 1 a side whose sizes in bytes
// overflow 64 bits, sums over components that wrap, and the colour conversions at every
// precision a codestream (1..38 bits, 31 decoded) or a JP2 palette (1..38) may give them.
// Under the Sanitize build UBSan makes any undefined shift or overflow here fatal.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "codec/decoder.hpp"
#include "codec/jp2_channels.hpp"
#include "codec/opj_colour.hpp"
#include "common/error.hpp"
#include "tests/support/forged_codestream.hpp"

namespace {

using namespace j2k::codec;
using test_support::ForgedCodestream;
using test_support::ForgedComponent;

// The decode's error, or "" where it decodes. Anything but a j2k::Error (std::bad_alloc from a
// size that passed a check it should not have) fails the test.
j2k::Error decode_error(const std::vector<uint8_t>& stream, uint64_t max_bytes) {
  DecodeSettings s;
  s.backend.backend = j2k::Backend::Cpu;
  s.backend.threads = 1;
  s.max_bytes = max_bytes;
  try {
    decode(stream.data(), stream.size(), s);
  } catch (const j2k::Error& e) {
    return e;
  }
  return j2k::Error(j2k::ErrorCode::Internal, "");
}

// 4 components of 2^31 x (2^30 - 2^18) samples in tiles of 2^24: the output's samples and a
// tile's coefficients, 2 x 2^63 + 4 x (2^62 + ...) bytes, sum to 2^64 + 512 MiB, which wrapped
// to 512 MiB and passed a 1 GiB limit; the allocation of 2^63 bytes after it failed with no
// cause named.
TEST(HeaderArithmetic, MemoryLimitRefusesSizesWhoseSumWrapsPast64Bits) {
  ForgedCodestream f;
  f.x1 = 1u << 31, f.y1 = (1u << 30) - (1u << 18);
  f.tile_w = f.tile_h = 1u << 24;
  f.components.assign(4, ForgedComponent{});
  const j2k::Error e = decode_error(f.bytes(), uint64_t{1} << 30);
  EXPECT_EQ(e.code(), j2k::ErrorCode::OutOfMemory) << e.what();
  EXPECT_NE(std::string(e.what()).find("MiB of memory allowed"), std::string::npos) << e.what();
}

// Without a memory limit: (2^32 - 1) x (2^31 + 1) 16-bit samples are 2^64 + 2^32 - 2 bytes,
// which wrapped to 4 GiB - 2, allocated and then written in full (a tile without data is
// filled): a heap overflow from a 94-byte header.
TEST(HeaderArithmetic, ImageOfMoreBytesThanMemoryAddressesIsRefused) {
  ForgedCodestream f;
  f.x1 = 0xFFFFFFFFu, f.y1 = (1u << 31) + 1;
  f.tile_w = f.tile_h = 1u << 24;
  f.components = {ForgedComponent{16, false, 1, 1}};
  const j2k::Error e = decode_error(f.bytes(), 0);
  EXPECT_EQ(e.code(), j2k::ErrorCode::OutOfMemory) << e.what();
  EXPECT_NE(std::string(e.what()).find("4294967295 x 2147483649 samples"), std::string::npos) << e.what();
}

// The largest image each field allows, many components: refused with the limit, whatever the
// sums come to.
TEST(HeaderArithmetic, LargestImageOfManyComponentsIsRefusedByTheLimit) {
  ForgedCodestream f;
  f.x1 = f.y1 = 0xFFFFFFFFu;
  f.tile_w = f.tile_h = 0xFFFFFFFFu;
  f.components.assign(16384, ForgedComponent{});
  const j2k::Error e = decode_error(f.bytes(), uint64_t{1} << 30);
  EXPECT_EQ(e.code(), j2k::ErrorCode::OutOfMemory) << e.what();
}

// Component 0 of `precision` bits holding `v0`, components 1 and 2 holding `v12`, each
// `w` x `h` after subsampling dx, dy (for the chroma).
DecodedImage three_components(int precision, bool is_signed, int64_t w, int64_t h, int dx, int dy, int64_t v0, int64_t v12) {
  DecodedImage image;
  image.width = w, image.height = h;
  for (int c = 0; c < 3; ++c) {
    DecodedComponent k;
    k.precision = precision;
    k.is_signed = is_signed;
    k.dx = c == 0 ? 1 : dx, k.dy = c == 0 ? 1 : dy;
    k.width = (w + k.dx - 1) / k.dx, k.height = (h + k.dy - 1) / k.dy;
    k.type = decoded_type(precision <= kMaxDecodedPrecision ? precision : 32, is_signed);
    k.bytes.resize(static_cast<size_t>(k.width * k.height) * j2k_sample_size(k.type));
    for (size_t i = 0; i < static_cast<size_t>(k.width * k.height); ++i) k.set(i, static_cast<int32_t>(c == 0 ? v0 : v12));
    image.components.push_back(std::move(k));
  }
  return image;
}

// sYCC (4:4:4, 4:2:2, 4:2:0) and e-sYCC to RGB at each precision 1..38 with the extreme
// samples: each converts into [0, 2^p - 1] or, past the 31 bits decoded, is refused saying so.
TEST(HeaderArithmetic, ColourConversionsAreDefinedAtEveryPrecisionOrRefused) {
  struct Case {
    int enum_cs, dx, dy;
  };
  for (const Case& k : {Case{18, 1, 1}, Case{18, 2, 1}, Case{18, 2, 2}, Case{24, 1, 1}}) {
    for (int p = 1; p <= 38; ++p) {
      const int64_t top = p <= 31 ? (int64_t{1} << p) - 1 : INT32_MAX;
      for (const auto& [v0, v12] : {std::pair<int64_t, int64_t>{0, 0}, {top, top}, {top, 0}, {0, top}}) {
        SCOPED_TRACE("EnumCS " + std::to_string(k.enum_cs) + " " + std::to_string(k.dx) + "x" + std::to_string(k.dy) + ", " +
                     std::to_string(p) + " bits, Y " + std::to_string(v0) + ", Cb Cr " + std::to_string(v12));
        DecodedImage image = three_components(p, false, 5, 3, k.dx, k.dy, v0, v12);
        try {
          EXPECT_TRUE(apply_opj_colour(image, k.enum_cs, 1, 1));
        } catch (const j2k::Error& e) {
          EXPECT_GT(p, kMaxDecodedPrecision);
          EXPECT_EQ(e.code(), j2k::ErrorCode::UnsupportedInput);
          EXPECT_NE(std::string(e.what()).find(std::to_string(p) + "-bit samples"), std::string::npos) << e.what();
          continue;
        }
        ASSERT_LE(p, kMaxDecodedPrecision);
        for (const DecodedComponent& c : image.components) {
          ASSERT_EQ(c.width * c.height, 15);
          for (size_t i = 0; i < 15; ++i) {
            EXPECT_GE(c.at(i), 0);
            EXPECT_LE(c.at(i), top);
          }
        }
      }
    }
  }
}

// CMYK to RGB at each precision 1..38 (a palette's columns may have 38 bits): 8-bit samples
// out, 0 for full ink, 255 for none.
TEST(HeaderArithmetic, CmykIsDefinedAtEveryPrecision) {
  for (int p = 1; p <= 38; ++p) {
    SCOPED_TRACE(std::to_string(p) + " bits");
    const int64_t top = p <= 31 ? (int64_t{1} << p) - 1 : INT32_MAX;
    for (const int64_t ink : {int64_t{0}, top}) {
      DecodedImage image = three_components(p, false, 4, 2, 1, 1, ink, ink);
      image.components.push_back(image.components[0]);  // K
      for (size_t i = 0; i < 8; ++i) image.components[3].set(i, 0);
      ASSERT_TRUE(apply_opj_colour(image, 12, 0, 0));
      ASSERT_EQ(image.components.size(), 3u);
      for (const DecodedComponent& c : image.components) {
        EXPECT_EQ(c.precision, 8);
        for (size_t i = 0; i < 8; ++i) {
          EXPECT_GE(c.at(i), 0);
          EXPECT_LE(c.at(i), 255);
        }
        // No ink: white. Full ink at p <= 31 bits: black (past 31 the samples hold less than
        // the full 2^p - 1).
        if (ink == 0) {
          EXPECT_EQ(c.at(0), 255);
        } else if (p <= 31) {
          EXPECT_EQ(c.at(0), 0);
        }
      }
    }
  }
}

// A JP2 palette of 1..38-bit columns (I.5.3.4): each output channel takes its column's
// precision and the entries' values as they are, the extreme ones included.
TEST(HeaderArithmetic, PaletteColumnsOfEveryPrecisionMapTheirEntries) {
  for (int p = 1; p <= 38; ++p) {
    for (const bool is_signed : {false, true}) {
      SCOPED_TRACE(std::to_string(p) + (is_signed ? "-bit signed" : "-bit unsigned"));
      // The column's extreme values that fit the int32 entries (the reader refuses others).
      const int64_t lo = is_signed ? -(int64_t{1} << std::min(p - 1, 31)) : 0;
      const int64_t hi = is_signed ? (int64_t{1} << std::min(p - 1, 31)) - 1 : std::min<int64_t>((int64_t{1} << p) - 1, INT32_MAX);
      Jp2File file;
      file.palette.columns = {Jp2Component{p, is_signed}};
      file.palette.entries = {{static_cast<int32_t>(lo)}, {static_cast<int32_t>(hi)}};
      Jp2Mapping m;
      m.component = 0, m.palette = true, m.column = 0;
      file.mapping = {m};
      DecodedImage image;
      DecodedComponent index;
      index.width = 2, index.height = 1, index.precision = 1;
      index.bytes.resize(2);
      index.set(0, 0), index.set(1, 1);
      image.components = {index};
      apply_jp2_channels(file, image);
      ASSERT_EQ(image.components.size(), 1u);
      const DecodedComponent& out = image.components[0];
      EXPECT_EQ(out.precision, p);
      EXPECT_EQ(out.at(0), lo);
      EXPECT_EQ(out.at(1), hi);
    }
  }
}

}  // namespace
