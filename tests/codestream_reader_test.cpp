// SPDX-License-Identifier: BSD-2-Clause
// The codestream reader (codec/codestream/codestream_reader): our own streams read back as the
// options that made them; every ISO/IEC 15444-4 conformance codestream read back as OpenJPEG's
// opj_dump reports it (image, tiles, and the main header's coding style and quantisation per
// component); and truncated or corrupted streams give errors, never crashes (CI runs this
// under ASan/UBSan).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "codec/codestream/codestream_reader.hpp"
#include "common/error.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tests/support/conformance_data.hpp"
#include "tests/support/run_command.hpp"

namespace {

using namespace j2k::codec;
namespace fs = std::filesystem;

std::vector<uint8_t> encode(const j2kfront::Settings& s, const j2kfront::Coding& coding, const j2kfront::Image& image) {
  const j2kfront::ImageView view = image.view();
  j2kfront::Encoder encoder(s, coding, view);
  return encoder.encode(view);
}

j2kfront::Image random_image(uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, int components) {
  j2kfront::Image image;
  image.x0 = x0, image.y0 = y0, image.width = w, image.height = h;
  std::mt19937 rng(5);
  for (int c = 0; c < components; ++c) {
    auto& k = image.add_component(J2K_SAMPLE_U8, 8);
    for (auto& b : k.bytes) b = static_cast<unsigned char>(rng() % 200);
  }
  return image;
}

// Every option that changes the headers, read back.
TEST(CodestreamReader, OurStreamsReadBackAsAsked) {
  const j2kfront::Image image = random_image(3, 5, 83, 61, 3);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.wavelet = J2K_WAVELET_97;
  const std::vector<int> levels = {3, 2, 2};
  s.component_levels = levels.data();
  s.tile_w = 40, s.tile_h = 24, s.tile_x0 = 1, s.tile_y0 = 2;
  j2kfront::Coding c;
  c.rates = {30, 8};
  c.block_w = 16, c.block_h = 32;
  c.precincts = {{16, 16}, {8, 8}};
  c.progression = J2K_RPCL;
  c.modes = J2K_MODE_BYPASS | J2K_MODE_VSC | J2K_MODE_SEGMARK;
  c.sop = c.eph = c.plt = c.tlm = true;
  c.tile_parts = 'R';
  c.comment = "read me back";
  const std::vector<uint8_t> bytes = encode(s, c, image);
  const Codestream cs = read_codestream(bytes.data(), bytes.size());

  EXPECT_EQ(cs.info.x0, 3u);
  EXPECT_EQ(cs.info.y0, 5u);
  EXPECT_EQ(cs.info.x1, 86u);
  EXPECT_EQ(cs.info.y1, 66u);
  EXPECT_EQ(cs.info.tile_w, 40u);
  EXPECT_EQ(cs.info.tile_h, 24u);
  EXPECT_EQ(cs.info.tile_x0, 1u);
  EXPECT_EQ(cs.info.tile_y0, 2u);
  ASSERT_EQ(cs.info.components.size(), 3u);
  EXPECT_EQ(cs.info.components[0].precision, 8);
  EXPECT_FALSE(cs.info.components[0].is_signed);
  EXPECT_EQ(cs.tiles_x, 3);  // (86 - 1) / 40 rounded up
  EXPECT_EQ(cs.tiles_y, 3);  // (66 - 2) / 24 rounded up
  ASSERT_EQ(cs.tiles.size(), 9u);
  ASSERT_EQ(cs.comments.size(), 1u);
  EXPECT_EQ(cs.comments[0], "read me back");
  for (const TileCoding& t : cs.tiles) {
    EXPECT_EQ(t.order, Progression::RPCL);
    EXPECT_EQ(t.layers, 2);
    EXPECT_FALSE(t.mct);  // auto MCT is off: components 0..2 differ in levels
    EXPECT_TRUE(t.sop);
    EXPECT_TRUE(t.eph);
    ASSERT_EQ(t.components.size(), 3u);
    for (size_t k = 0; k < 3; ++k) {
      const ComponentCoding& cc = t.components[k];
      EXPECT_EQ(cc.levels, levels[k]);
      EXPECT_EQ(cc.block_w_log2, 4);
      EXPECT_EQ(cc.block_h_log2, 5);
      EXPECT_EQ(cc.modes, J2K_MODE_BYPASS | J2K_MODE_VSC | J2K_MODE_SEGMARK);
      EXPECT_FALSE(cc.reversible);
      // 16 at the highest resolution, 8 at the next, then halved, never below 2 (1 at r = 0).
      std::vector<std::pair<int, int>> want(static_cast<size_t>(cc.levels + 1));
      for (int r = cc.levels, e = 4; r >= 0; --r, --e) want[static_cast<size_t>(r)] = {std::max(e, r == 0 ? 0 : 1), std::max(e, r == 0 ? 0 : 1)};
      EXPECT_EQ(cc.precincts, want) << "component " << k;
      EXPECT_EQ(t.quant[k].style, ComponentQuant::Expounded);
      EXPECT_EQ(t.quant[k].steps.size(), static_cast<size_t>(3 * cc.levels + 1));
      EXPECT_EQ(t.roi_shift[k], 0);
    }
  }
  // Tile-parts by resolution: as many per tile as its largest component has resolutions, each
  // with its packets' lengths (PLT) adding up to its data.
  std::vector<int> parts(9, 0);
  for (const TilePart& p : cs.parts) {
    ++parts[static_cast<size_t>(p.tile)];
    EXPECT_EQ(p.parts, 4) << "tile " << p.tile;
    ASSERT_FALSE(p.packet_lengths.empty());
    size_t sum = 0;
    for (uint32_t n : p.packet_lengths) sum += n;
    EXPECT_EQ(sum, p.length) << "tile " << p.tile << " part " << p.part;
    EXPECT_LE(p.data + p.length, bytes.size());
  }
  for (int n : parts) EXPECT_EQ(n, 4);
  EXPECT_FALSE(cs.truncated);

  // Lossless: the 5/3 with no quantisation.
  const Codestream lossless = read_codestream(encode(j2kfront::Settings{}, j2kfront::Coding{}, image).data(),
                                              encode(j2kfront::Settings{}, j2kfront::Coding{}, image).size());
  EXPECT_TRUE(lossless.defaults.components[0].reversible);
  EXPECT_EQ(lossless.defaults.quant[0].style, ComponentQuant::None);
  EXPECT_TRUE(lossless.defaults.mct);
  EXPECT_EQ(lossless.parts.size(), 1u);
}

using test_support::conformance_dir;

// opj_dump's "name=value" fields (decimal, or hexadecimal with 0x), in order.
std::vector<long> numbers_after(const std::string& text, const std::string& name) {
  std::vector<long> out;
  const std::regex re("\\b" + name + "=(-?0x[0-9a-fA-F]+|-?[0-9]+)");
  for (std::sregex_iterator i(text.begin(), text.end(), re), end; i != end; ++i) out.push_back(std::stol((*i)[1], nullptr, 0));
  return out;
}

TEST(CodestreamReader, ConformanceStreamsReadAsOpjDumpReportsThem) {
  const std::string dir = conformance_dir() + "/codestreams";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no conformance codestreams at " << dir << " (tests/data/conformance, or J2K_CONFORMANCE_DATA)";
  const bool have_dump = test_support::on_path("opj_dump");
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string path = entry.path().string();
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    const std::vector<uint8_t> bytes = test_support::file_bytes(path);
    Codestream cs;
    try {
      cs = read_codestream(bytes.data(), bytes.size());
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    ++files;
    // Every tile has its tile-parts, their data inside the stream.
    std::vector<int> parts(cs.tiles.size(), 0);
    for (const TilePart& p : cs.parts) {
      ++parts[static_cast<size_t>(p.tile)];
      EXPECT_LE(p.data + p.length, bytes.size());
    }
    for (size_t t = 0; t < parts.size(); ++t) EXPECT_GT(parts[t], 0) << "tile " << t;
    if (!have_dump) continue;
    const auto dump = test_support::run_command("opj_dump -i " + test_support::quote(path));
    ASSERT_EQ(dump.exit_code, 0) << dump.output;
    const std::string& d = dump.output;
    const auto& i = cs.info;
    EXPECT_EQ(numbers_after(d, "x0")[0], i.x0);
    EXPECT_EQ(numbers_after(d, "y0")[0], i.y0);
    EXPECT_EQ(numbers_after(d, "x1")[0], i.x1);
    EXPECT_EQ(numbers_after(d, "y1")[0], i.y1);
    EXPECT_EQ(numbers_after(d, "numcomps")[0], static_cast<long>(i.components.size()));
    EXPECT_EQ(numbers_after(d, "tdx")[0], i.tile_w);
    EXPECT_EQ(numbers_after(d, "tdy")[0], i.tile_h);
    EXPECT_EQ(numbers_after(d, "tx0")[0], i.tile_x0);
    EXPECT_EQ(numbers_after(d, "ty0")[0], i.tile_y0);
    EXPECT_EQ(numbers_after(d, "tw")[0], cs.tiles_x);
    EXPECT_EQ(numbers_after(d, "th")[0], cs.tiles_y);
    const auto dx = numbers_after(d, "dx"), dy = numbers_after(d, "dy"), prec = numbers_after(d, "prec"), sgnd = numbers_after(d, "sgnd");
    for (size_t c = 0; c < i.components.size(); ++c) {
      EXPECT_EQ(dx.at(c), i.components[c].dx);
      EXPECT_EQ(dy.at(c), i.components[c].dy);
      EXPECT_EQ(prec.at(c), i.components[c].precision);
      EXPECT_EQ(sgnd.at(c), i.components[c].is_signed ? 1 : 0);
    }
    // The default tile: the main header's coding style per component.
    const size_t at = d.find("default tile");
    ASSERT_NE(at, std::string::npos);
    const std::string tile = d.substr(at);
    const TileCoding& t = cs.defaults;
    EXPECT_EQ(numbers_after(tile, "numlayers")[0], t.layers);
    EXPECT_EQ(numbers_after(tile, "mct")[0], t.mct ? 1 : 0);
    const auto res = numbers_after(tile, "numresolutions"), w = numbers_after(tile, "cblkw=2\\^"), sty = numbers_after(tile, "cblksty"),
               qmf = numbers_after(tile, "qmfbid"), qnt = numbers_after(tile, "qntsty"), gb = numbers_after(tile, "numgbits"),
               roi = numbers_after(tile, "roishift");
    for (size_t c = 0; c < t.components.size(); ++c) {
      SCOPED_TRACE("component " + std::to_string(c));
      EXPECT_EQ(res.at(c), t.components[c].levels + 1);
      EXPECT_EQ(sty.at(c), t.components[c].modes);
      EXPECT_EQ(qmf.at(c), t.components[c].reversible ? 1 : 0);
      EXPECT_EQ(qnt.at(c), static_cast<long>(t.quant[c].style));
      EXPECT_EQ(gb.at(c), t.quant[c].guard_bits);
      EXPECT_EQ(roi.at(c), t.roi_shift[c]);
    }
    // Code-block sizes and precinct sizes, as opj_dump prints them.
    const std::regex cblk("cblkw=2\\^([0-9]+)\\s+cblkh=2\\^([0-9]+)");
    size_t c = 0;
    for (std::sregex_iterator m(tile.begin(), tile.end(), cblk), end; m != end && c < t.components.size(); ++m, ++c) {
      EXPECT_EQ(std::stoi((*m)[1]), t.components[c].block_w_log2);
      EXPECT_EQ(std::stoi((*m)[2]), t.components[c].block_h_log2);
    }
    const std::regex prc("preccintsize \\(w,h\\)=((?:\\([0-9]+,[0-9]+\\) )+)");
    c = 0;
    for (std::sregex_iterator m(tile.begin(), tile.end(), prc), end; m != end && c < t.components.size(); ++m, ++c) {
      std::string want;
      for (const auto& [x, y] : t.components[c].precincts) want += "(" + std::to_string(x) + "," + std::to_string(y) + ") ";
      EXPECT_EQ((*m)[1].str(), want) << "component " << c;
    }
  }
  EXPECT_GT(files, 0);
}

// Cut short anywhere: an error without EOC, or (allow_partial) what is there once the main
// header is whole; bytes flipped anywhere: an error or a stream, never a crash.
TEST(CodestreamReader, TruncatedAndCorruptStreamsAreErrors) {
  const j2kfront::Image image = random_image(0, 0, 40, 30, 3);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 2;
  s.tile_w = s.tile_h = 16;
  j2kfront::Coding c;
  c.plt = c.tlm = c.sop = true;
  c.precincts = {{8, 8}};
  c.tile_parts = 'R';
  const std::vector<uint8_t> bytes = encode(s, c, image);
  const Codestream whole = read_codestream(bytes.data(), bytes.size());
  const size_t header_end = whole.parts.at(0).data;
  // A partial stream keeps what is there; it may be refused only where the cut leaves the main
  // header or a tile-part's header (after its SOT marker) unfinished.
  auto in_a_header = [&](size_t n) {
    if (n < whole.parts[0].sot) return true;
    for (const TilePart& p : whole.parts)
      if (n > p.sot + 1 && n < p.data) return true;
    return false;
  };
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THROW(read_codestream(bytes.data(), n), j2k::Error) << "cut at " << n;
    ReadOptions partial;
    partial.allow_partial = true;
    try {
      const Codestream cs = read_codestream(bytes.data(), n, partial);
      EXPECT_TRUE(cs.truncated) << "cut at " << n;
      for (const TilePart& p : cs.parts) EXPECT_LE(p.data + p.length, n);
    } catch (const j2k::Error& e) {
      EXPECT_EQ(e.code(), j2k::ErrorCode::CorruptInput) << e.what();
      EXPECT_TRUE(in_a_header(n)) << "a cut at " << n << " outside the headers is refused: " << e.what();
    }
  }
  std::mt19937 rng(3);
  int errors = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> b = bytes;
    const int flips = 1 + static_cast<int>(rng() % 3);
    // Mostly in the headers, where the structure is.
    for (int k = 0; k < flips; ++k) b[rng() % std::min(b.size(), header_end + 64)] = static_cast<uint8_t>(rng());
    try {
      read_codestream(b.data(), b.size());
    } catch (const j2k::Error& e) {
      ++errors;
      EXPECT_TRUE(e.code() == j2k::ErrorCode::CorruptInput || e.code() == j2k::ErrorCode::UnsupportedInput) << e.what();
      EXPECT_GT(std::string(e.what()).size(), 10u);
    }
  }
  EXPECT_GT(errors, 300);
}

// PPM and PPT segments (A.7.4, A.7.5) joined in Zppm (Zppt) order, whatever order they come
// in; two of one index (in the main header, or in one tile-part) are refused by name (issue 43).
TEST(CodestreamReader, PackedHeaderSegmentsJoinInIndexOrder) {
  const j2kfront::Image image = random_image(0, 0, 8, 8, 1);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 1;
  const std::vector<uint8_t> bytes = encode(s, j2kfront::Coding(), image);
  const size_t sot = read_codestream(bytes.data(), bytes.size()).parts.at(0).sot;
  // `bytes` with the segments `marker` of (index, one byte) before its first SOT (PPM) or
  // after it (PPT, its Psot grown).
  auto with = [&](uint8_t marker, const std::vector<std::pair<uint8_t, uint8_t>>& segments) {
    std::vector<uint8_t> added;
    for (const auto& [z, v] : segments) added.insert(added.end(), {0xFF, marker, 0, 4, z, v});
    std::vector<uint8_t> out = bytes;
    const size_t at = marker == 0x60 ? sot : sot + 12;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), added.begin(), added.end());
    if (marker == 0x61) {
      uint32_t psot = 0;
      for (size_t k = 6; k < 10; ++k) psot = psot << 8 | out[sot + k];
      psot += static_cast<uint32_t>(added.size());
      for (size_t k = 6; k < 10; ++k) out[sot + k] = static_cast<uint8_t>(psot >> (8 * (9 - k)));
    }
    return out;
  };
  const std::vector<uint8_t> ppm = with(0x60, {{2, 0xCC}, {0, 0xAA}, {1, 0xBB}});
  EXPECT_EQ(read_codestream(ppm.data(), ppm.size()).ppm, (std::vector<uint8_t>{0xAA, 0xBB, 0xCC}));
  const std::vector<uint8_t> ppt = with(0x61, {{1, 0xBB}, {0, 0xAA}});
  EXPECT_EQ(read_codestream(ppt.data(), ppt.size()).ppt.at(0), (std::vector<uint8_t>{0xAA, 0xBB}));
  for (uint8_t marker : {0x60, 0x61}) {
    const std::vector<uint8_t> twice = with(marker, {{0, 0xAA}, {0, 0xBB}});
    try {
      read_codestream(twice.data(), twice.size());
      ADD_FAILURE() << "two segments of index 0 read";
    } catch (const j2k::Error& e) {
      EXPECT_NE(std::string(e.what()).find("two segments of index 0"), std::string::npos) << e.what();
    }
  }
}

// SIZ with 2^32 - 1 tiles each way (1 x 1 tiles on the largest canvas): refused by count,
// before the product of the two counts, which overflows int64, is formed (UBSan in CI).
TEST(CodestreamReader, TileCountsOverflowingTheirProductAreRefused) {
  const j2kfront::Image image = random_image(0, 0, 8, 8, 1);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 1;
  std::vector<uint8_t> bytes = encode(s, j2kfront::Coding(), image);
  ASSERT_EQ(bytes[2], 0xFF);
  ASSERT_EQ(bytes[3], 0x51);  // SIZ right after SOC
  auto put32 = [&](size_t at, uint32_t v) {
    for (int k = 0; k < 4; ++k) bytes[at + static_cast<size_t>(k)] = static_cast<uint8_t>(v >> (24 - 8 * k));
  };
  put32(8, 0xFFFFFFFFu);   // Xsiz
  put32(12, 0xFFFFFFFFu);  // Ysiz
  put32(24, 1);            // XTsiz
  put32(28, 1);            // YTsiz
  try {
    read_codestream(bytes.data(), bytes.size());
    FAIL() << "2^64 tiles read";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::CorruptInput) << e.what();
    EXPECT_NE(std::string(e.what()).find("tiles (at most 65535)"), std::string::npos) << e.what();
  }
}

// HTJ2K (ISO/IEC 15444-15): CAP's Ccap^15 kept (found after any Ccap of a lower part), and
// COD's code-block style bit 6 read as HT code-blocks rather than refused.
TEST(CodestreamReader, CapAndTheHtStyleBitRead) {
  const j2kfront::Image image = random_image(0, 0, 8, 8, 1);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 1;
  const std::vector<uint8_t> plain = encode(s, j2kfront::Coding(), image);
  const size_t siz_end = 4 + (size_t{plain[4]} << 8 | plain[5]);
  for (const bool with_part2_cap : {false, true}) {
    std::vector<uint8_t> bytes(plain.begin(), plain.begin() + static_cast<ptrdiff_t>(siz_end));
    // CAP: Lcap, Pcap (Pcap^15 is bit 17; Pcap^2 bit 30), then a Ccap per part in part order.
    const std::vector<uint8_t> cap = with_part2_cap
                                         ? std::vector<uint8_t>{0xFF, 0x50, 0x00, 0x0A, 0x40, 0x02, 0x00, 0x00, 0x12, 0x34, 0x00, 0x05}
                                         : std::vector<uint8_t>{0xFF, 0x50, 0x00, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x05};
    bytes.insert(bytes.end(), cap.begin(), cap.end());
    bytes.insert(bytes.end(), plain.begin() + static_cast<ptrdiff_t>(siz_end), plain.end());
    size_t cod = 0;
    while (!(bytes[cod] == 0xFF && bytes[cod + 1] == 0x52)) ++cod;
    bytes[cod + 12] |= 0x40;  // SPcod's code-block style, after Lcod, Scod, SGcod, levels, xcb, ycb
    const Codestream cs = read_codestream(bytes.data(), bytes.size());
    EXPECT_EQ(cs.ccap15, 5);
    EXPECT_TRUE(cs.tiles[0].components[0].modes & kModeHt);
  }
  EXPECT_EQ(read_codestream(plain.data(), plain.size()).ccap15, -1);
}

}  // namespace

