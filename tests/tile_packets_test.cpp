// SPDX-License-Identifier: BSD-2-Clause
// A tile's packets read in its progression (codec/codestream/tile_packets): every tile of every
// ISO/IEC 15444-4 conformance codestream reads to exactly its bytes (POC, PPM, PPT, SOP, EPH,
// tile-parts, precincts and mode switches among them); our streams' packets have the lengths
// their PLT segments say, in every progression, with precincts, tile-parts, layers and levels
// per component; a cut stream reads partially or is an error, never a crash. Generated streams
// of empty packets (issue 45): each tile looks at its own tile-parts alone; POC changes say the
// tile's packets, which are ordered in steps in proportion to them; a whole tile ending early
// or with bytes over reads as OpenJPEG reads it; changes and precincts out of proportion to
// the bytes are refused. PacketProgress's point: the first resolutions' blocks whole there,
// or the end where the memory limit has no room for it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "codec/codestream/codestream_reader.hpp"
#include "codec/codestream/tile_packets.hpp"
#include "common/error.hpp"
#include "common/memory_budget.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tests/support/conformance_data.hpp"
#include "tests/support/empty_packet_stream.hpp"
#include "tests/support/run_command.hpp"

namespace {

using namespace j2k::codec;
namespace fs = std::filesystem;

using test_support::conformance_dir;

TEST(TilePackets, ConformanceTilesReadToTheirLastByte) {
  const std::string dir = conformance_dir() + "/codestreams";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no conformance codestreams at " << dir << " (tests/data/conformance, or J2K_CONFORMANCE_DATA)";
  int tiles = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    SCOPED_TRACE(entry.path().filename().string());
    const std::vector<uint8_t> bytes = test_support::file_bytes(entry.path().string());
    const Codestream cs = read_codestream(bytes.data(), bytes.size());
    for (size_t t = 0; t < cs.tiles.size(); ++t) {
      try {
        const TilePackets p = read_tile_packets(cs, bytes.data(), t);
        EXPECT_FALSE(p.truncated);
        EXPECT_EQ(p.warnings, std::vector<std::string>{}) << "tile " << t;  // every packet there, every byte read
        size_t included = 0;
        for (const BlockData& b : p.blocks) included += b.included;
        EXPECT_GT(included, 0u) << "tile " << t;
        ++tiles;
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
      }
    }
  }
  EXPECT_GT(tiles, 0);
}

// Three 8-bit components of random samples, the image at (3, 5).
j2kfront::Image random_rgb(uint32_t width, uint32_t height, unsigned seed) {
  j2kfront::Image image;
  image.x0 = 3, image.y0 = 5, image.width = width, image.height = height;
  std::mt19937 rng(seed);
  for (int c = 0; c < 3; ++c) {
    auto& k = image.add_component(J2K_SAMPLE_U8, 8);
    for (auto& b : k.bytes) b = static_cast<unsigned char>(rng() % 256);
  }
  return image;
}

TEST(TilePackets, OurPacketsHaveTheirPltLengths) {
  const j2kfront::Image image = random_rgb(83, 61, 4);
  const std::vector<int> levels = {3, 1, 2};
  for (j2k_progression order : {J2K_LRCP, J2K_RLCP, J2K_RPCL, J2K_PCRL, J2K_CPRL})
    for (int variant = 0; variant < 3; ++variant) {
      j2kfront::Settings s;
      s.backend = J2K_BACKEND_CPU;
      s.tile_w = 40, s.tile_h = 32, s.tile_x0 = 1, s.tile_y0 = 2;
      if (variant > 0) s.component_levels = levels.data();
      j2kfront::Coding c;
      c.progression = order;
      c.plt = true;
      c.sop = variant == 1;
      c.eph = variant == 2;
      c.precincts = {{16, 16}, {8, 8}};
      c.tile_parts = variant == 2 ? 'R' : 0;
      c.modes = variant == 1 ? (J2K_MODE_BYPASS | J2K_MODE_RESTART) : 0;
      if (variant > 0) s.wavelet = J2K_WAVELET_97, c.rates = {40, 10, 3};
      const j2kfront::ImageView view = image.view();
      j2kfront::Encoder encoder(s, c, view);
      const std::vector<uint8_t> bytes = encoder.encode(view);
      const Codestream cs = read_codestream(bytes.data(), bytes.size());
      for (size_t t = 0; t < cs.tiles.size(); ++t) {
        SCOPED_TRACE("progression " + std::to_string(order) + ", variant " + std::to_string(variant) + ", tile " + std::to_string(t));
        std::vector<uint32_t> plt;
        for (const TilePart& p : cs.parts)
          if (static_cast<size_t>(p.tile) == t) plt.insert(plt.end(), p.packet_lengths.begin(), p.packet_lengths.end());
        const TilePackets p = read_tile_packets(cs, bytes.data(), t);
        EXPECT_EQ(p.packet_bytes, plt);
      }
    }
}

TEST(TilePackets, CutStreamsReadPartiallyOrAreErrors) {
  j2kfront::Image image;
  image.width = 40, image.height = 30;
  std::mt19937 rng(8);
  auto& k = image.add_component(J2K_SAMPLE_U8, 8);
  for (auto& b : k.bytes) b = static_cast<unsigned char>(rng() % 256);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 2;
  j2kfront::Coding c;
  c.rates = {20, 5};
  s.wavelet = J2K_WAVELET_97;
  const j2kfront::ImageView view = image.view();
  j2kfront::Encoder encoder(s, c, view);
  const std::vector<uint8_t> bytes = encoder.encode(view);
  ReadOptions partial;
  partial.allow_partial = true;
  const TilePart whole = read_codestream(bytes.data(), bytes.size()).parts.at(0);
  for (size_t n = whole.data; n < bytes.size(); ++n) {
    const Codestream cs = read_codestream(bytes.data(), n, partial);
    const bool cut = n < whole.data + whole.length;  // else only EOC is missing
    try {
      const TilePackets p = read_tile_packets(cs, bytes.data(), 0, true);
      EXPECT_EQ(p.truncated, cut) << "cut at " << n;
    } catch (const j2k::Error& e) {
      ADD_FAILURE() << "cut at " << n << ": " << e.what();
    }
    if (cut) {
      EXPECT_THROW(read_tile_packets(cs, bytes.data(), 0, false), j2k::Error) << "cut at " << n;
    } else {
      EXPECT_NO_THROW(read_tile_packets(cs, bytes.data(), 0, false)) << "cut at " << n;
    }
  }
}

// PacketProgress: the point at which the resolutions waited for are read. There every block
// of those resolutions must already hold all of its data (what a thread decoding them then
// sees), and `out.blocks` must not move after; the point comes before the last packet in the
// resolution-first progressions, and never under POC. Tiles, precincts, several layers,
// levels per component; each component waiting for a different count of resolutions.
TEST(TilePackets, ProgressSaysWhenTheFirstResolutionsAreRead) {
  const j2kfront::Image image = random_rgb(150, 97, 6);
  const std::vector<int> levels = {4, 2, 3};
  struct Case {
    j2k_progression order;
    int layers;
    bool poc, tiles, ht;
  };
  const Case cases[] = {{J2K_LRCP, 1, false, false, true},  {J2K_LRCP, 3, false, false, false}, {J2K_RLCP, 3, false, true, false},
                        {J2K_RPCL, 1, false, false, true},  {J2K_RPCL, 3, false, true, false},  {J2K_PCRL, 1, false, false, true},
                        {J2K_CPRL, 3, false, false, false}, {J2K_LRCP, 1, true, false, false}};
  for (const Case& k : cases) {
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    s.component_levels = levels.data();
    if (k.tiles) s.tile_w = 64, s.tile_h = 48;
    j2kfront::Coding c;
    c.progression = k.order;
    c.block_w = 16, c.block_h = 8;
    c.precincts = {{32, 32}, {16, 16}};
    if (k.ht) c.modes = J2K_MODE_HT;
    if (k.layers > 1) s.wavelet = J2K_WAVELET_97, c.rates = {40, 10, 3};
    if (k.poc) c.pocs = {j2k_poc{0, 0, 0, 1, 2, 3, J2K_RLCP}, j2k_poc{0, 2, 0, 1, 5, 3, J2K_LRCP}};
    const j2kfront::ImageView view = image.view();
    const std::vector<uint8_t> bytes = j2kfront::Encoder(s, c, view).encode(view);
    const Codestream cs = read_codestream(bytes.data(), bytes.size());
    for (size_t t = 0; t < cs.tiles.size(); ++t)
      for (const std::vector<int>& wanted : {std::vector<int>{3, 1, 2}, std::vector<int>{0, -1, 1}}) {
        SCOPED_TRACE("progression " + std::to_string(k.order) + ", " + std::to_string(k.layers) + " layers" + (k.poc ? ", POC" : "") +
                     ", tile " + std::to_string(t) + ", waiting for " + std::to_string(wanted[0]) + "," + std::to_string(wanted[1]) +
                     "," + std::to_string(wanted[2]));
        auto waited_for = [&](const LaidBlock& b) { return (b.band + 2) / 3 <= wanted[b.component]; };
        // Each waited-for block as it is at the point: its data's index, passes and bytes.
        struct Seen {
          uint32_t index;
          int passes;
          std::vector<uint8_t> bytes;
        };
        std::vector<Seen> seen;
        size_t packets_then = 0;
        const BlockData* blocks_then = nullptr;
        int calls = 0;
        PacketProgress progress(wanted);
        progress.on_read = [&](const TilePackets& p) {
          ++calls;
          packets_then = p.packet_bytes.size();
          blocks_then = p.blocks.data();
          for (size_t i = 0; i < p.layout.blocks.size(); ++i)
            if (waited_for(p.layout.blocks[i])) {
              const BlockData* d = p.data_of(i);
              seen.push_back({p.block_data[i], d ? d->passes : 0, d ? std::vector<uint8_t>(d->data(), d->data() + d->size()) : std::vector<uint8_t>()});
            }
        };
        TilePackets p;
        read_tile_packets(p, cs, bytes.data(), t, false, 0, nullptr, progress);
        EXPECT_EQ(progress.wait(), calls == 1);
        const TilePackets whole = read_tile_packets(cs, bytes.data(), t);
        EXPECT_EQ(p.packet_bytes, whole.packet_bytes);
        EXPECT_EQ(p.block_data, whole.block_data);
        if (k.poc) {
          EXPECT_EQ(calls, 0) << "under POC the point is the end";
          continue;
        }
        ASSERT_EQ(calls, 1);
        EXPECT_EQ(blocks_then, p.blocks.data()) << "the blocks' data moved after the point";
        const bool resolutions_first = k.order == J2K_RLCP || k.order == J2K_RPCL || (k.order == J2K_LRCP && k.layers == 1);
        if (resolutions_first) {
          EXPECT_LT(packets_then, p.packet_bytes.size());
        }
        size_t n = 0;
        for (size_t i = 0; i < p.layout.blocks.size(); ++i) {
          if (!waited_for(p.layout.blocks[i])) continue;
          ASSERT_LT(n, seen.size());
          const BlockData* d = p.data_of(i);
          EXPECT_EQ(seen[n].index, p.block_data[i]) << "block " << i;
          EXPECT_EQ(seen[n].passes, d ? d->passes : 0) << "block " << i;
          EXPECT_TRUE(seen[n].bytes == (d ? std::vector<uint8_t>(d->data(), d->data() + d->size()) : std::vector<uint8_t>())) << "block " << i;
          ++n;
        }
        EXPECT_EQ(n, seen.size());
      }
  }
}

// Where the memory limit has no room for what PacketProgress needs (every code-block's data
// reserved at once), the tile is read as without it: the point is the end, and nothing the
// limit lets through without it is refused. A flat image in 4x4 code-blocks: most of them
// empty, their data never allocated.
TEST(TilePackets, ProgressGivesWayToTheMemoryLimit) {
  j2kfront::Image image;
  image.width = 256, image.height = 256;
  auto& k = image.add_component(J2K_SAMPLE_U8, 8);
  std::fill(k.bytes.begin(), k.bytes.end(), static_cast<unsigned char>(200));
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 3;
  j2kfront::Coding c;
  c.block_w = c.block_h = 4;
  const j2kfront::ImageView view = image.view();
  const std::vector<uint8_t> bytes = j2kfront::Encoder(s, c, view).encode(view);
  const Codestream cs = read_codestream(bytes.data(), bytes.size());
  j2k::MemoryBudget counted;
  const TilePackets whole = read_tile_packets(cs, bytes.data(), 0, false, 0, &counted);
  j2k::MemoryBudget tight(counted.peak());
  PacketProgress progress({0});
  TilePackets p;
  EXPECT_NO_THROW(read_tile_packets(p, cs, bytes.data(), 0, false, 0, &tight, progress));
  EXPECT_FALSE(progress.wait());
  EXPECT_EQ(p.block_data, whole.block_data);
  EXPECT_EQ(p.packet_bytes, whole.packet_bytes);
  j2k::MemoryBudget roomy;
  PacketProgress roomy_progress({0});
  TilePackets q;
  read_tile_packets(q, cs, bytes.data(), 0, false, 0, &roomy, roomy_progress);
  EXPECT_TRUE(roomy_progress.wait());
  EXPECT_GT(roomy.peak(), counted.peak());  // the reservation that the tight limit left out
}

// Issue 45: a stream of 65,535 tiles in four tile-parts each took 44.7 s to decode (12.4 s with
// PPM, 13.7 s with 5 levels), for each tile looked at every tile-part of the stream (and walked
// all of PPM). Each tile must look at its own tile-parts alone, wherever they lie.
TEST(TilePackets, EachTileLooksAtItsOwnTilePartsOnly) {
  struct Shape {
    const char* name;
    bool ppm;
    int levels;
  };
  for (const Shape& shape : {Shape{"headers in the packets", false, 3}, Shape{"headers in PPM", true, 3}, Shape{"5 levels", false, 5}}) {
    SCOPED_TRACE(shape.name);
    test_support::EmptyPacketStream gen;
    gen.tiles_x = 7, gen.tiles_y = 5, gen.tile_parts = 4, gen.interleaved = true;
    gen.ppm = shape.ppm;
    gen.levels = shape.levels, gen.tile_size = 1 << shape.levels;
    const std::vector<uint8_t> bytes = gen.bytes();
    const Codestream cs = read_codestream(bytes.data(), bytes.size());
    ASSERT_EQ(cs.parts.size(), 35u * 4);
    for (size_t t = 0; t < cs.tiles.size(); ++t) {
      const TilePackets p = read_tile_packets(cs, bytes.data(), t);
      EXPECT_EQ(p.tile_parts_read, 4u) << "tile " << t;
      // Every packet read: levels + 1 resolutions, one precinct each, a byte in the data or
      // (its header) in PPM.
      EXPECT_EQ(p.packet_bytes, std::vector<uint32_t>(static_cast<size_t>(shape.levels + 1), shape.ppm ? 0u : 1u)) << "tile " << t;
    }
  }
}

// Issue 45: opj_compress's -POC streams were refused. A tile under POC holds the packets its
// changes cover and no others (packets no change covers are not sent, B.12.2 as OpenJPEG reads
// it): here layers 0..1 of resolutions 0..2 of 5, in one main-header change, then in changes
// spread over two POC segments, then in the tile's header.
TEST(TilePackets, PocChangesAloneSayWhichPacketsTheTileHolds) {
  for (int form = 0; form < 3; ++form) {
    SCOPED_TRACE("form " + std::to_string(form));
    test_support::EmptyPacketStream gen;
    gen.levels = 4, gen.tile_size = 16, gen.layers = 2;
    if (form == 0) gen.poc = {{0, 0, 2, 3, 1, 4}};  // CPRL
    if (form == 1) gen.poc = {{0, 0, 1, 3, 1, 2}, {2, 0, 2, 3, 1, 0}, {0, 0, 2, 2, 1, 1}}, gen.poc_per_segment = 2;
    if (form == 2) gen.poc = {{0, 0, 2, 3, 1, 3}}, gen.poc_in_tiles = true;
    gen.packets = 3 * 2;
    const std::vector<uint8_t> bytes = gen.bytes();
    const Codestream cs = read_codestream(bytes.data(), bytes.size());
    const TilePackets p = read_tile_packets(cs, bytes.data(), 0);
    EXPECT_EQ(p.packet_bytes, std::vector<uint32_t>(6, 1u));
    EXPECT_EQ(p.warnings, std::vector<std::string>{});
    EXPECT_FALSE(p.truncated);
  }
}

// Whole tile data that ends before the tile's last packet: the packets after are empty, as
// OpenJPEG reads them (opj_compress's -POC streams: a change whose layers start past its
// predecessor's sends nothing), and bytes after the last packet are left unread (overlapping
// changes send packets again). Both said in a warning; a cut tile is still an error.
TEST(TilePackets, PacketsMissingFromWholeDataAreEmptyAndBytesOverAreLeft) {
  test_support::EmptyPacketStream gen;
  gen.levels = 4, gen.tile_size = 16, gen.tile_parts = 2;  // 5 packets
  gen.packets = 3, gen.sop = true;                          // in 21 bytes: not more packets than bytes
  std::vector<uint8_t> bytes = gen.bytes();
  Codestream cs = read_codestream(bytes.data(), bytes.size());
  TilePackets p = read_tile_packets(cs, bytes.data(), 0);
  EXPECT_EQ(p.packet_bytes, std::vector<uint32_t>(3, 7u));
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("after 3 of its 5 packets"), std::string::npos) << p.warnings[0];
  EXPECT_FALSE(p.truncated);

  gen.packets = 7, gen.sop = false;
  bytes = gen.bytes();
  cs = read_codestream(bytes.data(), bytes.size());
  p = read_tile_packets(cs, bytes.data(), 0);
  EXPECT_EQ(p.packet_bytes, std::vector<uint32_t>(5, 1u));
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("take 5 of its 7 bytes"), std::string::npos) << p.warnings[0];

  // The same tile cut inside its second tile-part: missing, not empty.
  gen.packets = 5;
  bytes = gen.bytes();
  bytes.resize(bytes.size() - 3);  // EOC and the last packet
  ReadOptions partial;
  partial.allow_partial = true;
  cs = read_codestream(bytes.data(), bytes.size(), partial);
  EXPECT_THROW(read_tile_packets(cs, bytes.data(), 0), j2k::Error);
  EXPECT_TRUE(read_tile_packets(cs, bytes.data(), 0, true).truncated);
}

// Issue 45: a 584 KB stream of many POC changes on a 16x16 image took 233 s; 4,000 changes x
// 60,000 packets 13 s: each change walked all the tile's packets. Ordering the packets must
// take steps in proportion to the packets plus, per change, the component-resolutions it
// covers, however many changes repeat the same packets; the order itself is checked against
// the progression's in ProgressionChanges.*.
TEST(TilePackets, ManyProgressionChangesTakeStepsInProportionToThePackets) {
  test_support::EmptyPacketStream gen;
  gen.levels = 3, gen.tile_size = 64, gen.precinct_log2 = 2, gen.components = 2, gen.layers = 3;
  for (int k = 0; k < 600; ++k) gen.poc.push_back({0, 0, 1 + k % 3, 4, 2, k % 5});
  const int64_t packets = gen.packets_per_tile();  // (256 + 64 + 16 + 4) x 2 x 3 = 2,040
  ASSERT_EQ(packets, 2040);
  const std::vector<uint8_t> bytes = gen.bytes();
  const Codestream cs = read_codestream(bytes.data(), bytes.size());
  const TilePackets p = read_tile_packets(cs, bytes.data(), 0);
  EXPECT_EQ(p.packet_bytes, std::vector<uint32_t>(static_cast<size_t>(packets), 1u));
  const uint64_t pairs = 600 * 4 * 2;  // component-resolutions the changes cover
  EXPECT_LE(p.order_steps, 4 * (static_cast<uint64_t>(packets) + pairs));
}

// Changes whose bookkeeping is out of proportion to the tile's bytes are refused before any
// packet is ordered, naming the cause: here 2,000 changes over 200 components x 4 resolutions
// (1.6 million steps) for 800 one-byte packets.
TEST(TilePackets, ProgressionChangesOutOfProportionToTheBytesAreRefused) {
  test_support::EmptyPacketStream gen;
  gen.components = 200;
  for (int k = 0; k < 2000; ++k) gen.poc.push_back({0, 0, 1, 4, 200, k % 5});
  const std::vector<uint8_t> bytes = gen.bytes();
  const Codestream cs = read_codestream(bytes.data(), bytes.size());
  try {
    read_tile_packets(cs, bytes.data(), 0);
    ADD_FAILURE() << "read";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::UnsupportedInput);
    EXPECT_NE(std::string(e.what()).find("2000 progression changes (POC) cover 1600000 component-resolutions"), std::string::npos)
        << e.what();
  }
  // A tenth of them is work in proportion: read.
  gen.poc.resize(200);
  const std::vector<uint8_t> fewer = gen.bytes();
  const Codestream ok = read_codestream(fewer.data(), fewer.size());
  EXPECT_EQ(read_tile_packets(ok, fewer.data(), 0).packet_bytes.size(), 800u);
}

// A tile whose POC changes cover few packets pays for them alone, but its layout has every
// precinct: past one a byte (plus 65,536) they are refused before it is laid out. Here a
// change covers the 256 precincts of resolution 0 of a 1024^2 tile with 2x2 precincts, which
// has 349,440 in all (256 x (1 + 4 + ... + 4^5)).
TEST(TilePackets, PrecinctsNoPacketReachesAreBoundedByTheBytes) {
  test_support::EmptyPacketStream gen;
  gen.levels = 5, gen.tile_size = 1024, gen.precinct_log2 = 1;
  gen.poc = {{0, 0, 1, 1, 1, 0}};
  gen.packets = 256;
  const std::vector<uint8_t> bytes = gen.bytes();
  const Codestream cs = read_codestream(bytes.data(), bytes.size());
  for (bool partial : {false, true}) {  // (partial: the tile is whole, its bytes are all it has)
    try {
      read_tile_packets(cs, bytes.data(), 0, partial);
      ADD_FAILURE() << "read";
    } catch (const j2k::Error& e) {
      EXPECT_EQ(e.code(), j2k::ErrorCode::UnsupportedInput);
      EXPECT_NE(std::string(e.what()).find("has 349440 precincts for its 256 bytes"), std::string::npos) << e.what();
    }
  }
  // With its packets all there (one a precinct), it is read.
  gen.poc.clear();
  gen.packets = -1;
  const std::vector<uint8_t> whole = gen.bytes();
  const Codestream ok = read_codestream(whole.data(), whole.size());
  EXPECT_EQ(read_tile_packets(ok, whole.data(), 0).packet_bytes.size(), 349440u);
}

}  // namespace
