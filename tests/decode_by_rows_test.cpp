// SPDX-License-Identifier: BSD-2-Clause
// The decoder's by-rows path (an HT image of one tile on the CPU, its finest level, and on one
// thread the next one too, a band of rows at a time: pipeline/row_back_stage) against its whole-plane path (DecodeSettings::by_rows
// off), bit for bit, through our HT encoder's streams: RGB 8-bit and 16-bit grey, odd sizes and
// canvas origins, 2 and 3 pixels tall or wide (row_back_stage_test has 1), the 5/3 and the 9/7,
// code-blocks 4 to 64 rows tall, one level and five, one, two and sixteen threads (and Tier-2 refusing on three, four and sixteen). The same with the
// rows handed out as they are made (DecodeSettings::rows, the C interface's
// j2k_decoder_run_rows), and the images that do not stream. On three workers or more, the
// coarser levels' blocks decoded while Tier-2 reads on, in every progression, and changed
// streams ending as the whole-plane path ends them. And that the memory limit counts
// what the by-rows path allocates (less than a tile's planes, and no output planes when the
// rows stream).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "codec/codestream/codestream_reader.hpp"
#include "codec/codestream/tile_packets.hpp"
#include "codec/decoder.hpp"
#include "common/error.hpp"
#include "j2kfront/j2kfront.hpp"

namespace {

using j2k::codec::decode;
using j2k::codec::DecodedImage;
using j2k::codec::DecodedRows;
using j2k::codec::DecodeSettings;

// The rows DecodeSettings::rows takes, put together into whole components (each checked to
// follow the one before), and the image decode() returned.
struct Streamed {
  DecodedImage image;
  std::vector<std::vector<uint8_t>> planes;
  int bands = 0;
};
Streamed decode_streamed(const std::vector<uint8_t>& bytes, DecodeSettings d) {
  Streamed out;
  int64_t next = 0;
  d.rows = [&](const DecodedImage& shape, const DecodedRows& rows) {
    if (out.planes.empty()) out.planes.resize(shape.components.size());
    EXPECT_EQ(rows.y, next) << "band " << out.bands;
    EXPECT_GT(rows.count, 0);
    ASSERT_EQ(rows.data.size(), shape.components.size());
    for (size_t c = 0; c < shape.components.size(); ++c) {
      const auto& k = shape.components[c];
      const size_t n = static_cast<size_t>(rows.count * k.width) * j2k_sample_size(k.type);
      out.planes[c].insert(out.planes[c].end(), rows.data[c], rows.data[c] + n);
    }
    next = rows.y + rows.count;
    ++out.bands;
  };
  out.image = decode(bytes.data(), bytes.size(), d);
  return out;
}

// Smooth ramps with noise on them, so that code-blocks hold both skewed and coin-toss
// decisions: 8-bit RGB or 16-bit grey.
j2kfront::Image noisy(uint32_t x0, uint32_t y0, uint32_t width, uint32_t height, bool rgb) {
  j2kfront::Image img;
  img.x0 = x0;
  img.y0 = y0;
  img.width = width;
  img.height = height;
  for (int c = 0; c < (rgb ? 3 : 1); ++c) {
    auto& k = img.add_component(rgb ? J2K_SAMPLE_U8 : J2K_SAMPLE_U16, rgb ? 8 : 16);
    for (int64_t y = 0; y < k.height; ++y)
      for (int64_t x = 0; x < k.width; ++x) {
        const auto v = static_cast<uint32_t>(x * 3 + y * 5 + c * 70 + ((x * 2654435761u) >> 7 ^ y * 40503u) % 29);
        if (rgb) k.row<uint8_t>(y)[x] = static_cast<uint8_t>(v & 255);
        else k.row<uint16_t>(y)[x] = static_cast<uint16_t>((v * 97) & 65535);
      }
  }
  return img;
}

std::vector<uint8_t> ht_stream(const j2kfront::Image& img, bool irreversible, int levels, int block_w, int block_h) {
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.wavelet = irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
  s.levels = levels;
  j2kfront::Coding c;
  c.modes = J2K_MODE_HT;
  c.block_w = block_w;
  c.block_h = block_h;
  if (irreversible) c.rates = {6};
  return j2kfront::Encoder(s, c, img.view()).encode(img.view());
}

void expect_same(const std::vector<uint8_t>& bytes, int threads, const std::string& what) {
  DecodeSettings d;
  d.backend = j2k::BackendOptions(j2k::Backend::Cpu, threads);
  d.by_rows = false;
  const DecodedImage want = decode(bytes.data(), bytes.size(), d);
  d.by_rows = true;
  const DecodedImage got = decode(bytes.data(), bytes.size(), d);
  EXPECT_EQ(got.warnings, want.warnings) << what;
  ASSERT_EQ(got.components.size(), want.components.size()) << what;
  for (size_t k = 0; k < got.components.size(); ++k) {
    EXPECT_EQ(got.components[k].width, want.components[k].width) << what;
    EXPECT_EQ(got.components[k].height, want.components[k].height) << what;
    EXPECT_TRUE(got.components[k].bytes == want.components[k].bytes) << what << ", component " << k;
  }
  const Streamed rows = decode_streamed(bytes, d);
  EXPECT_TRUE(rows.image.streamed) << what;
  EXPECT_EQ(rows.image.warnings, want.warnings) << what;
  ASSERT_EQ(rows.planes.size(), want.components.size()) << what;
  for (size_t k = 0; k < rows.planes.size(); ++k) {
    EXPECT_TRUE(rows.image.components[k].bytes.empty()) << what;
    EXPECT_EQ(rows.image.components[k].height, want.components[k].height) << what;
    EXPECT_TRUE(std::equal(rows.planes[k].begin(), rows.planes[k].end(), want.components[k].bytes.begin(), want.components[k].bytes.end()))
        << what << ", streamed component " << k;
  }
}

TEST(DecodeByRows, SameSamplesAsWholePlanes) {
  struct Shape {
    uint32_t x0, y0, width, height;
  };
  // 150x600: five stripes of 64-row blocks (on 16 threads each in four parts of 32 rows, the
  // next stripes' blocks beside them); 1100x70 on 16 threads: each part in two column ranges.
  const Shape shapes[] = {{0, 0, 211, 97}, {3, 5, 130, 77}, {1, 0, 67, 2},     {0, 1, 2, 50},
                          {0, 3, 50, 3},   {7, 2, 64, 128}, {1, 3, 150, 600}, {5, 1, 1100, 70}};
  const int blocks[][2] = {{64, 4}, {32, 16}, {64, 64}};
  for (const Shape& sh : shapes)
    for (bool rgb : {true, false}) {
      const j2kfront::Image img = noisy(sh.x0, sh.y0, sh.width, sh.height, rgb);
      for (bool irreversible : {false, true})
        for (const auto& b : blocks)
          for (int levels : {1, 5}) {
            // Our encoder takes as many levels as the smaller side allows (a side of 2: one).
            if (levels > 1 && std::min(sh.width, sh.height) < 32) continue;
            const std::string what = std::to_string(sh.width) + "x" + std::to_string(sh.height) + " at (" + std::to_string(sh.x0) +
                                     "," + std::to_string(sh.y0) + ")" + (rgb ? " RGB" : " grey16") +
                                     (irreversible ? " 9/7" : " 5/3") + " blocks " + std::to_string(b[0]) + "x" +
                                     std::to_string(b[1]) + " levels " + std::to_string(levels);
            const std::vector<uint8_t> bytes = ht_stream(img, irreversible, levels, b[0], b[1]);
            expect_same(bytes, 1, what);
            if (b[1] == 16) expect_same(bytes, 2, what + ", 2 threads");
            if (b[1] == 64) expect_same(bytes, 16, what + ", 16 threads");
            if (::testing::Test::HasFailure()) return;
          }
    }
}

// Tier-2 refusing a stream (here: a memory limit its packets' data passes) while, on three
// workers or more, it reads on a thread of its own and the workers map the row stage's pages:
// the error reaches the caller, Tier-2's thread joined first (a thread left running would end
// the process).
TEST(DecodeByRows, TierTwoRefusingWhileThePagesAreMapped) {
  const j2kfront::Image img = noisy(1, 3, 300, 600, true);
  const std::vector<uint8_t> bytes = ht_stream(img, false, 5, 64, 64);
  for (int threads : {3, 4, 16}) {
    DecodeSettings d;
    d.backend = j2k::BackendOptions(j2k::Backend::Cpu, threads);
    d.by_rows = true;
    bool tier2_refused = false;
    for (uint64_t limit = bytes.size(); limit < bytes.size() + (uint64_t{64} << 20) && !tier2_refused; limit += 16 << 10) {
      d.max_bytes = limit;
      try {
        decode(bytes.data(), bytes.size(), d);
        break;  // enough for all of it
      } catch (const j2k::Error& e) {
        tier2_refused = std::string(e.what()).find("packet data") != std::string::npos;
      }
    }
    EXPECT_TRUE(tier2_refused) << threads << " threads: no limit refused the packets' data in Tier-2";
  }
}

// On three workers or more the coarser levels' blocks are decoded while Tier-2 reads the finest
// level's packets (PacketProgress): every progression (the point early in the resolution-first
// ones, at Tier-2's end in the others), several layers, precincts, the same samples as the
// whole-plane path. And streams with bytes changed in their second half (code-blocks decoded
// as zeros, or Tier-2 refusing a packet once the coarse blocks are decoded) end as the
// whole-plane path ends them: the same samples and warnings, or an error of the same cause.
TEST(DecodeByRows, CoarseBlocksWhileTierTwoReadsOn) {
  const j2kfront::Image img = noisy(3, 1, 300, 200, true);
  for (j2k_progression order : {J2K_LRCP, J2K_RLCP, J2K_RPCL, J2K_PCRL, J2K_CPRL})
    for (int layers : {1, 3}) {
      j2kfront::Settings s;
      s.backend = J2K_BACKEND_CPU;
      s.wavelet = J2K_WAVELET_97;
      s.levels = 5;
      j2kfront::Coding c;
      c.modes = J2K_MODE_HT;
      c.block_w = c.block_h = 32;
      c.progression = order;
      c.precincts = {{64, 64}, {32, 32}};
      c.rates = layers == 1 ? std::vector<double>{8} : std::vector<double>{40, 15, 6};
      const std::vector<uint8_t> bytes = j2kfront::Encoder(s, c, img.view()).encode(img.view());
      const std::string what = "progression " + std::to_string(order) + ", " + std::to_string(layers) + " layers";
      for (int threads : {3, 16}) expect_same(bytes, threads, what + ", " + std::to_string(threads) + " threads");
      if (::testing::Test::HasFailure()) return;
    }

  // Changed: for even seeds the first bytes of one of the last three packets (resolution 5's,
  // in LRCP: their headers), for odd ones anywhere in the second half.
  const std::vector<uint8_t> bytes = ht_stream(img, false, 5, 32, 32);
  const j2k::codec::Codestream cs = j2k::codec::read_codestream(bytes.data(), bytes.size());
  const j2k::codec::TilePackets packets = j2k::codec::read_tile_packets(cs, bytes.data(), 0);
  ASSERT_EQ(packets.packet_bytes.size(), 18u);  // 6 resolutions, 3 components, a precinct each
  // An error's cause: its figures may be another code-block's (each path meets the blocks in
  // its own order, on 16 threads).
  auto cause = [](std::string e) {
    e.erase(std::remove_if(e.begin(), e.end(), [](char ch) { return ch >= '0' && ch <= '9'; }), e.end());
    return e;
  };
  int refused = 0, decoded = 0;
  for (unsigned seed = 1; seed <= 40; ++seed) {
    std::vector<uint8_t> changed = bytes;
    std::mt19937 rng(seed);
    for (int i = 0; i < 3; ++i) {
      size_t at = changed.size() / 2 + rng() % (changed.size() / 2 - 2);
      if (seed % 2 == 0) {
        at = cs.parts.at(0).data;
        const size_t packet = 15 + rng() % 3;
        for (size_t k = 0; k < packet; ++k) at += packets.packet_bytes[k];
        at += rng() % 6;
      }
      changed[at] ^= static_cast<uint8_t>(1 + rng() % 255);
    }
    const std::string what = "seed " + std::to_string(seed);
    auto outcome = [&](bool by_rows, DecodedImage& image) -> std::string {
      DecodeSettings d;
      d.backend = j2k::BackendOptions(j2k::Backend::Cpu, 16);
      d.by_rows = by_rows;
      try {
        image = decode(changed.data(), changed.size(), d);
        return "";
      } catch (const j2k::Error& e) {
        return e.what();
      }
    };
    DecodedImage want, got;
    const std::string want_error = outcome(false, want), got_error = outcome(true, got);
    EXPECT_EQ(cause(got_error), cause(want_error)) << what << ": " << got_error << " / " << want_error;
    if (!want_error.empty()) {
      ++refused;
      continue;
    }
    ++decoded;
    EXPECT_EQ(got.warnings, want.warnings) << what;
    ASSERT_EQ(got.components.size(), want.components.size()) << what;
    for (size_t k = 0; k < got.components.size(); ++k) EXPECT_TRUE(got.components[k].bytes == want.components[k].bytes) << what;
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(decoded, 0);
}

// 2048^2 RGB: a tile's planes are 48 MiB, the by-rows path's buffers about 21 (the coarse
// planes 12, three stripes of the bands 7, a window of rows and the scratch 1.5). A limit between the two
// refuses the whole-plane path and lets the by-rows one through, which so must be the path
// taken; one below the coarse planes refuses both.
TEST(DecodeByRows, MemoryLimitCountsTheRows) {
  const j2kfront::Image img = noisy(0, 0, 2048, 2048, true);
  const std::vector<uint8_t> bytes = ht_stream(img, false, 5, 64, 64);
  DecodeSettings d;
  d.backend = j2k::BackendOptions(j2k::Backend::Cpu, 2);
  d.by_rows = false;
  const DecodedImage want = decode(bytes.data(), bytes.size(), d);
  const uint64_t base = bytes.size() + uint64_t{3} * 2048 * 2048 + (uint64_t{1} << 20);  // the stream, the output, headers
  d.max_bytes = base + (uint64_t{32} << 20);
  EXPECT_THROW(decode(bytes.data(), bytes.size(), d), j2k::Error);
  d.by_rows = true;
  const DecodedImage got = decode(bytes.data(), bytes.size(), d);
  for (size_t k = 0; k < 3; ++k) EXPECT_TRUE(got.components[k].bytes == want.components[k].bytes) << "component " << k;
  d.max_bytes = base + (uint64_t{8} << 20);
  EXPECT_THROW(decode(bytes.data(), bytes.size(), d), j2k::Error);
  // Streamed, the output's 12 MiB are not held: 28 MiB beside the stream are enough where the
  // whole-plane output and the rows (12 + about 21) are not, 9 still too few.
  d.max_bytes = bytes.size() + (uint64_t{28} << 20);
  EXPECT_THROW(decode(bytes.data(), bytes.size(), d), j2k::Error);
  const Streamed rows = decode_streamed(bytes, d);
  ASSERT_TRUE(rows.image.streamed);
  for (size_t k = 0; k < 3; ++k) EXPECT_TRUE(rows.planes[k] == std::vector<uint8_t>(want.components[k].bytes.begin(), want.components[k].bytes.end()));
  d.max_bytes = bytes.size() + (uint64_t{9} << 20);
  EXPECT_THROW(decode_streamed(bytes, d), j2k::Error);
}

// What goes whole even with DecodeSettings::rows set (no row handed out, the image returned as
// without it): a JP2 file with an ICC profile, a choice of components, the whole-plane path, a
// Part 1 stream. A JP2 file in sRGB streams.
TEST(DecodeByRows, WholeWhereRowsCannotStream) {
  const j2kfront::Image img = noisy(0, 0, 130, 77, true);
  const std::vector<uint8_t> ht = ht_stream(img, false, 3, 32, 32);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 3;
  const std::vector<uint8_t> ebcot = j2kfront::Encoder(s, j2kfront::Coding(), img.view()).encode(img.view());
  j2kfront::Coding c;
  c.format = J2K_FORMAT_JP2;
  c.modes = J2K_MODE_HT;
  c.block_w = c.block_h = 32;
  const std::vector<uint8_t> ht_jp2 = j2kfront::Encoder(s, c, img.view()).encode(img.view());
  c.icc_profile.assign(140, 0);  // a profile's header: enough to be written and read back
  c.icc_profile[3] = 140;
  std::memcpy(c.icc_profile.data() + 16, "RGB ", 4);
  std::memcpy(c.icc_profile.data() + 36, "acsp", 4);
  const std::vector<uint8_t> ht_icc = j2kfront::Encoder(s, c, img.view()).encode(img.view());
  DecodeSettings d;
  d.backend = j2k::BackendOptions(j2k::Backend::Cpu, 1);
  const DecodedImage want = decode(ht.data(), ht.size(), d);
  struct Case {
    const char* what;
    const std::vector<uint8_t>* bytes;
    bool by_rows;
    std::vector<int> components;
  };
  const Case cases[] = {{"a JP2 file with an ICC profile", &ht_icc, true, {}},
                        {"components 2,0", &ht, true, {2, 0}},
                        {"the whole-plane path", &ht, false, {}},
                        {"a Part 1 stream", &ebcot, true, {}}};
  for (const Case& k : cases) {
    d.by_rows = k.by_rows;
    d.components = k.components;
    const Streamed rows = decode_streamed(*k.bytes, d);
    EXPECT_FALSE(rows.image.streamed) << k.what;
    EXPECT_EQ(rows.bands, 0) << k.what;
    const size_t first = k.components.empty() ? 0 : static_cast<size_t>(k.components[0]);
    ASSERT_FALSE(rows.image.components.empty()) << k.what;
    EXPECT_TRUE(rows.image.components[0].bytes == want.components[first].bytes) << k.what;
  }
  d.by_rows = true;
  d.components.clear();
  const Streamed rows = decode_streamed(ht_jp2, d);
  EXPECT_TRUE(rows.image.streamed);
  ASSERT_EQ(rows.planes.size(), 3u);
  for (size_t k = 0; k < 3; ++k)
    EXPECT_TRUE(rows.planes[k] == std::vector<uint8_t>(want.components[k].bytes.begin(), want.components[k].bytes.end())) << "JP2, component " << k;
}

// The C interface: j2k_decoder_run_rows's bands make j2k_decoder_run's image; where the rows
// cannot stream, one call holds it all; what the callback throws comes out of decode_rows, and
// the decoder decodes the next image as before.
TEST(DecodeByRows, DecoderRunRows) {
  const j2kfront::Image img = noisy(3, 5, 300, 211, true);
  const std::vector<uint8_t> ht = ht_stream(img, true, 3, 64, 16);
  j2kfront::DecodeSettings s;
  s.backend = J2K_BACKEND_CPU;
  s.threads = 1;
  j2kfront::Decoder decoder(s);
  const j2kfront::Image want = decoder.decode_image(ht.data(), ht.size());
  auto collect = [&](const std::vector<uint8_t>& bytes, int* calls) {
    std::vector<std::vector<uint8_t>> planes(want.components.size());
    uint32_t next = 0;
    decoder.decode_rows(bytes.data(), bytes.size(), [&](const j2k_image_view& v, uint32_t first_row, uint32_t rows) {
      EXPECT_EQ(v.width, want.width);
      EXPECT_EQ(v.height, want.height);
      EXPECT_EQ(first_row, next);
      next = first_row + rows;
      for (int c = 0; c < v.num_components; ++c) {
        const auto* p = static_cast<const uint8_t*>(v.components[c].data);
        EXPECT_EQ(v.components[c].bytes, static_cast<size_t>(rows) * static_cast<size_t>(v.components[c].row_stride));
        planes[static_cast<size_t>(c)].insert(planes[static_cast<size_t>(c)].end(), p, p + v.components[c].bytes);
      }
      ++*calls;
    });
    EXPECT_EQ(next, want.height);
    return planes;
  };
  int calls = 0;
  std::vector<std::vector<uint8_t>> got = collect(ht, &calls);
  EXPECT_GT(calls, 1);  // 211 rows, 32 a stripe
  for (size_t c = 0; c < got.size(); ++c) EXPECT_TRUE(got[c] == want.components[c].bytes) << "component " << c;

  j2kfront::Settings e;
  e.backend = J2K_BACKEND_CPU;
  e.levels = 3;
  const std::vector<uint8_t> ebcot = j2kfront::Encoder(e, j2kfront::Coding(), img.view()).encode(img.view());
  const j2kfront::Image whole = decoder.decode_image(ebcot.data(), ebcot.size());
  calls = 0;
  got = collect(ebcot, &calls);
  EXPECT_EQ(calls, 1);
  for (size_t c = 0; c < got.size(); ++c) EXPECT_TRUE(got[c] == whole.components[c].bytes) << "component " << c;

  int bands = 0;
  EXPECT_THROW(decoder.decode_rows(ht.data(), ht.size(),
                                   [&](const j2k_image_view&, uint32_t, uint32_t) {
                                     if (++bands == 2) throw std::runtime_error("stop");
                                   }),
               std::runtime_error);
  EXPECT_EQ(bands, 2);
  calls = 0;
  got = collect(ht, &calls);
  for (size_t c = 0; c < got.size(); ++c) EXPECT_TRUE(got[c] == want.components[c].bytes) << "component " << c << ", after the stop";
}

}  // namespace
