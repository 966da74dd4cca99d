// SPDX-License-Identifier: BSD-2-Clause
// `transcode` (codec/transcoder.hpp, j2k_transcoder_*, `j2kfront transcode`): EBCOT to HT and
// back without touching the coefficients. Random images at odd sizes and origins, tiles,
// several components (16-bit, signed, subsampled), the 5/3 and the 9/7, every code-block
// shape, precincts, every progression, each mode switch, several layers and quality targets:
// the transcoded stream decodes to exactly the input's image (lossless or not), and so does
// the stream transcoded back. Then the outside coders: opj_compress's and ojph_compress's
// streams as inputs, our outputs in opj_decompress, ojph_expand and grk_decompress. Then
// hostile inputs: cut, flipped and foreign bytes give errors, and the CLI never writes over
// its input or an existing file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "j2kfront/j2kfront.hpp"
#include "tests/support/conformance_data.hpp"
#include "tests/support/pnm_files.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

namespace fs = std::filesystem;
using test_support::conformance_dir;
using test_support::file_bytes;
using test_support::quote;
using test_support::Pnm;
using test_support::read_pnm;
using test_support::run_command;
using test_support::write_pnm;

namespace {

const std::string kCli = J2K_CLI_PATH;

struct ComponentSpec {
  int precision = 8;
  bool is_signed = false;
  int dx = 1, dy = 1;
};

// Smooth ramps with noise on a third of the samples, so that every band has work to do.
j2kfront::Image random_image(uint32_t w, uint32_t h, uint32_t x0, uint32_t y0, const std::vector<ComponentSpec>& specs,
                             uint32_t seed) {
  j2kfront::Image image;
  image.x0 = x0, image.y0 = y0, image.width = w, image.height = h;
  uint32_t s = seed;
  for (const ComponentSpec& k : specs) {
    const j2k_sample_type type = k.precision <= 8 ? (k.is_signed ? J2K_SAMPLE_I8 : J2K_SAMPLE_U8)
                                                  : (k.is_signed ? J2K_SAMPLE_I16 : J2K_SAMPLE_U16);
    j2kfront::Image::Component& c = image.add_component(type, k.precision, k.dx, k.dy);
    const int64_t range = int64_t{1} << k.precision, lo = k.is_signed ? -range / 2 : 0;
    for (int64_t y = 0; y < c.height; ++y)
      for (int64_t x = 0; x < c.width; ++x) {
        s = s * 1664525u + 1013904223u;
        const int64_t smooth = (x * 7 + y * 3 + (x * y) / 5) * (range / 256 + 1);
        const int64_t v = lo + ((s >> 28) < 5 ? static_cast<int64_t>(s >> 4) % range : smooth % range);
        if (c.sample_size() == 1) c.bytes[static_cast<size_t>(y * c.width + x)] = static_cast<uint8_t>(v);
        else reinterpret_cast<uint16_t*>(c.bytes.data())[y * c.width + x] = static_cast<uint16_t>(v);
      }
  }
  return image;
}

j2kfront::ImageView view_of(const j2kfront::Image& image) {
  std::vector<j2k_component_view> views;
  for (const j2kfront::Image::Component& c : image.components) {
    j2k_component_view v{};
    v.data = c.bytes.data();
    v.type = c.type;
    v.precision = c.precision;
    v.dx = c.dx, v.dy = c.dy;
    v.pixel_stride = static_cast<ptrdiff_t>(c.sample_size());
    v.row_stride = c.row_stride();
    v.bytes = c.bytes.size();
    views.push_back(v);
  }
  j2kfront::ImageView view(image.width, image.height, std::move(views));
  view.at_origin(image.x0, image.y0);
  return view;
}

std::vector<uint8_t> transcode(const std::vector<uint8_t>& in, j2k_coder target, j2k_file_format format = J2K_FORMAT_J2K,
                               int threads = 0) {
  j2kfront::TranscodeSettings s;
  s.target = target;
  s.format = format;
  s.threads = threads;
  return j2kfront::Transcoder(s).transcode(in.data(), in.size());
}

j2kfront::Image decode(const std::vector<uint8_t>& bytes) {
  j2kfront::DecodeSettings s;
  s.backend = J2K_BACKEND_CPU;
  return j2kfront::Decoder(s).decode_image(bytes.data(), bytes.size());
}

// The samples of every component equal, and the geometry.
void expect_same(const j2kfront::Image& a, const j2kfront::Image& b, const std::string& what) {
  ASSERT_EQ(a.components.size(), b.components.size()) << what;
  EXPECT_EQ(a.x0, b.x0) << what;
  EXPECT_EQ(a.y0, b.y0) << what;
  EXPECT_EQ(a.width, b.width) << what;
  EXPECT_EQ(a.height, b.height) << what;
  for (size_t c = 0; c < a.components.size(); ++c) {
    ASSERT_EQ(a.components[c].bytes.size(), b.components[c].bytes.size()) << what << ", component " << c;
    EXPECT_TRUE(a.components[c].bytes == b.components[c].bytes) << what << ": component " << c << " differs";
  }
}

// Whether the stream's code-blocks are HT's (j2k_read_info's component 0).
bool is_ht(const std::vector<uint8_t>& bytes) {
  j2k_stream_info info{};
  j2k_component_info c{};
  j2kfront::check(j2k_read_info(bytes.data(), bytes.size(), &info, &c, 1));
  return (c.modes & J2K_MODE_HT) != 0;
}

int layers_of(const std::vector<uint8_t>& bytes) {
  j2k_stream_info info{};
  j2kfront::check(j2k_read_info(bytes.data(), bytes.size(), &info, nullptr, 0));
  return info.layers;
}

struct Case {
  std::string name;
  uint32_t w, h, x0, y0;
  std::vector<ComponentSpec> components;
  bool irreversible = false;
  int levels = 5;
  uint32_t tile_w = 0, tile_h = 0, tile_x0 = 0, tile_y0 = 0;
  int block_w = 64, block_h = 64;
  std::vector<std::pair<int, int>> precincts;
  j2k_progression order = J2K_LRCP;
  unsigned modes = 0;
  std::vector<double> rates;  // empty: lossless (with the 5/3)
  bool sop = false, eph = false, plt = false, tlm = false;
  char tile_parts = 0;
};

std::vector<ComponentSpec> rgb8() { return {{8, false, 1, 1}, {8, false, 1, 1}, {8, false, 1, 1}}; }

// A case of the image's geometry, the rest as Case's defaults.
Case image_case(std::string name, uint32_t w, uint32_t h, uint32_t x0, uint32_t y0, std::vector<ComponentSpec> components) {
  Case c;
  c.name = std::move(name);
  c.w = w, c.h = h, c.x0 = x0, c.y0 = y0;
  c.components = std::move(components);
  return c;
}

Case lossy(Case c, std::vector<double> rates) {
  c.name += "Lossy";
  c.irreversible = true;
  c.rates = std::move(rates);
  return c;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back(image_case("Rgb53Lossless", 97, 61, 3, 5, rgb8()));
  Case c = image_case("Rgb97OneLayer", 97, 61, 3, 5, rgb8());
  c.irreversible = true, c.rates = {12};
  out.push_back(c);
  c = image_case("Rgb97Layers", 120, 90, 0, 0, rgb8());
  c.irreversible = true, c.levels = 4, c.block_w = c.block_h = 32, c.order = J2K_RLCP, c.rates = {60, 25, 8};
  out.push_back(c);
  c = image_case("Rgb53Layers", 77, 50, 1, 2, rgb8());
  c.levels = 3, c.block_w = c.block_h = 16, c.rates = {40, 10, 1};
  out.push_back(c);
  c = image_case("Grey16Tiles", 130, 99, 7, 11, {{16, false, 1, 1}});
  c.levels = 3, c.tile_w = 48, c.tile_h = 40, c.tile_x0 = 5, c.tile_y0 = 3;
  out.push_back(c);
  c = image_case("Signed12Tiles97", 101, 83, 0, 0, {{12, true, 1, 1}});
  c.irreversible = true, c.levels = 3, c.tile_w = 64, c.tile_h = 32, c.block_w = 32, c.block_h = 16, c.rates = {8};
  out.push_back(c);
  c = image_case("Subsampled420", 96, 64, 1, 1, {{8, false, 1, 1}, {8, false, 2, 2}, {8, false, 2, 2}});
  c.levels = 3;
  out.push_back(c);
  c = image_case("FourComponents10Bit", 70, 45, 0, 0, {{10, false, 1, 1}, {10, false, 1, 1}, {10, false, 1, 1}, {10, false, 1, 1}});
  c.irreversible = true, c.levels = 4, c.order = J2K_CPRL, c.rates = {15, 5};
  out.push_back(c);
  const std::pair<int, int> blocks[] = {{4, 4}, {8, 64}, {16, 16}, {32, 128}, {128, 32}, {4, 1024}, {1024, 4}, {64, 64}};
  for (const auto& [bw, bh] : blocks) {
    c = image_case("Blocks" + std::to_string(bw) + "x" + std::to_string(bh), 150, 70, 2, 1, rgb8());
    c.levels = 3, c.block_w = bw, c.block_h = bh;
    out.push_back(c);
    out.push_back(lossy(c, {30, 10}));
  }
  const j2k_progression orders[] = {J2K_LRCP, J2K_RLCP, J2K_RPCL, J2K_PCRL, J2K_CPRL};
  const char* order_names[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  for (int i = 0; i < 5; ++i) {
    c = image_case(std::string("Precincts") + order_names[i], 133, 77, 3, 0, rgb8());
    c.levels = 4, c.tile_w = 80, c.tile_h = 60, c.tile_x0 = 2, c.block_w = c.block_h = 16;
    c.precincts = {{32, 32}, {16, 16}}, c.order = orders[i];
    out.push_back(c);
    out.push_back(lossy(c, {20, 6}));
  }
  const unsigned modes[] = {1, 2, 4, 8, 16, 32, 63, 9};
  const char* mode_names[] = {"Bypass", "Reset", "Restart", "Causal", "Erterm", "Segmark", "All", "BypassCausal"};
  for (int i = 0; i < 8; ++i) {
    c = image_case(std::string("Mode") + mode_names[i], 91, 67, 0, 0, rgb8());
    c.levels = 4, c.block_w = c.block_h = 32, c.modes = modes[i];
    out.push_back(c);
    out.push_back(lossy(c, {40, 12, 5}));
  }
  c = image_case("Markers", 90, 90, 0, 0, rgb8());
  c.levels = 3, c.tile_w = c.tile_h = 48, c.block_w = c.block_h = 32, c.order = J2K_RPCL;
  c.sop = c.eph = c.plt = c.tlm = true, c.tile_parts = 'R';
  out.push_back(c);
  c = image_case("NoLevels", 33, 17, 0, 0, {{8, false, 1, 1}});
  c.levels = 0;
  out.push_back(c);
  c = image_case("TinyImage", 1, 1, 5, 9, {{8, false, 1, 1}});
  c.levels = 0;
  out.push_back(c);
  return out;
}

class Transcode : public ::testing::TestWithParam<Case> {};

// The stream of the case's image with EBCOT (or HT, `ht`) code-blocks.
std::vector<uint8_t> encode_case(const Case& c, const j2kfront::Image& image, bool ht) {
  j2kfront::Settings s;
  s.wavelet = c.irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
  s.levels = c.levels;
  s.tile_w = c.tile_w, s.tile_h = c.tile_h, s.tile_x0 = c.tile_x0, s.tile_y0 = c.tile_y0;
  s.backend = J2K_BACKEND_CPU;
  j2kfront::Coding coding;
  coding.block_w = c.block_w, coding.block_h = c.block_h;
  coding.precincts = c.precincts;
  coding.progression = c.order;
  coding.modes = ht ? J2K_MODE_HT : c.modes;
  coding.rates = c.rates;
  coding.sop = c.sop, coding.eph = c.eph, coding.plt = c.plt, coding.tlm = c.tlm;
  coding.tile_parts = c.tile_parts;
  const j2kfront::ImageView view = view_of(image);
  return j2kfront::Encoder(s, coding, view).encode(view);
}

// EBCOT -> HT -> EBCOT, and (where HT can code the case: no mode switches) HT -> EBCOT -> HT:
// each stream decodes to the input's image.
TEST_P(Transcode, DecodesToTheSameImage) {
  const Case& c = GetParam();
  const j2kfront::Image image = random_image(c.w, c.h, c.x0, c.y0, c.components, 7u + c.w * 31u + c.h);
  for (bool ht_input : {false, true}) {
    if (ht_input && c.modes != 0) continue;  // HT takes no mode switches
    const std::vector<uint8_t> in = encode_case(c, image, ht_input);
    const j2kfront::Image reference = decode(in);
    const bool lossless = !c.irreversible && (c.rates.empty() || c.rates.back() <= 1);
    if (lossless) expect_same(reference, image, std::string(c.name) + ": the input stream is not lossless");
    const j2k_coder there = ht_input ? J2K_CODER_EBCOT : J2K_CODER_HT, back = ht_input ? J2K_CODER_HT : J2K_CODER_EBCOT;
    const std::vector<uint8_t> out = transcode(in, there);
    EXPECT_EQ(is_ht(out), there == J2K_CODER_HT);
    EXPECT_EQ(layers_of(out), 1);
    expect_same(decode(out), reference, std::string(c.name) + (ht_input ? ": HT -> EBCOT" : ": EBCOT -> HT"));
    const std::vector<uint8_t> again = transcode(out, back, J2K_FORMAT_J2K, 1);
    EXPECT_EQ(is_ht(again), back == J2K_CODER_HT);
    expect_same(decode(again), reference, std::string(c.name) + ": transcoded there and back");
    // Once transcoded, the same stream again: the same indices, the same bytes.
    EXPECT_EQ(transcode(again, there), out) << c.name << ": transcoding is not repeatable";
  }
}

INSTANTIATE_TEST_SUITE_P(Images, Transcode, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// The same bytes whatever the thread count.
TEST(TranscodeThreads, SameBytesOnOneOrManyThreads) {
  const j2kfront::Image image = random_image(300, 200, 0, 0, rgb8(), 99);
  Case c = image_case("", 300, 200, 0, 0, rgb8());
  c.irreversible = true, c.tile_w = c.tile_h = 128, c.block_w = c.block_h = 32, c.rates = {30, 10};
  const std::vector<uint8_t> in = encode_case(c, image, false);
  EXPECT_EQ(transcode(in, J2K_CODER_HT, J2K_FORMAT_J2K, 1), transcode(in, J2K_CODER_HT, J2K_FORMAT_J2K, 7));
}

// HTMIXED streams (T.803's ds0_hm_*, where J2K_CONFORMANCE_DATA/htj2k has them): each block
// decoded by its own coder (HT or Part 1, as its packets say), the image the same after
// transcoding to either coder.
TEST(TranscodeHtMixed, ConformanceStreamsDecodeAlike) {
  int streams = 0;
  for (const char* name : {"ds0_hm_06_b11", "ds0_hm_06_b18", "ds0_hm_15_b8"}) {
    const std::string path = conformance_dir() + "/htj2k/" + name + ".j2k";
    if (!fs::exists(path)) continue;
    const std::vector<uint8_t> in = file_bytes(path);
    const j2kfront::Image reference = decode(in);
    expect_same(decode(transcode(in, J2K_CODER_HT)), reference, std::string(name) + " -> HT");
    expect_same(decode(transcode(in, J2K_CODER_EBCOT)), reference, std::string(name) + " -> EBCOT");
    ++streams;
  }
  if (streams == 0) GTEST_SKIP() << "no ds0_hm_*.j2k in " << conformance_dir() << "/htj2k (ITU-T T.803's HTJ2K codestreams)";
}

// A JP2 file becomes a JPH file with its JP2 Header box as it was (and back), a codestream a
// JPH file with default boxes; the report counts the blocks and layers.
TEST(TranscodeJp2, HeaderBoxCarriedOver) {
  const j2kfront::Image image = random_image(64, 48, 0, 0, {{8, false, 1, 1}, {8, false, 1, 1}, {8, false, 1, 1}, {8, false, 1, 1}}, 5);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  j2kfront::Coding coding;
  coding.format = J2K_FORMAT_JP2;
  coding.last_is_alpha = true;  // a cdef box
  coding.rates = {20, 5};
  const j2kfront::ImageView view = view_of(image);
  const std::vector<uint8_t> jp2 = j2kfront::Encoder(s, coding, view).encode(view);
  j2kfront::TranscodeSettings ts;
  ts.target = J2K_CODER_HT;
  ts.format = J2K_FORMAT_JP2;
  j2kfront::Transcoder t(ts);
  const std::vector<uint8_t> jph = t.transcode(jp2.data(), jp2.size());
  const j2k_transcode_report r = t.report();
  EXPECT_EQ(r.layers, 2);
  EXPECT_GT(r.blocks, 0u);
  EXPECT_STREQ(r.warnings, "");
  ASSERT_GT(jph.size(), 32u);
  EXPECT_EQ(std::string(jph.begin() + 20, jph.begin() + 24), "jph ");
  // The jp2h box, byte for byte, right after the File Type box in both.
  const auto box_len = [](const std::vector<uint8_t>& b, size_t at) {
    return static_cast<size_t>(b[at]) << 24 | static_cast<size_t>(b[at + 1]) << 16 | static_cast<size_t>(b[at + 2]) << 8 | b[at + 3];
  };
  const size_t at = 12 + box_len(jp2, 12);
  ASSERT_EQ(std::string(jp2.begin() + static_cast<ptrdiff_t>(at) + 4, jp2.begin() + static_cast<ptrdiff_t>(at) + 8), "jp2h");
  const size_t n = box_len(jp2, at);
  EXPECT_TRUE(std::equal(jp2.begin() + static_cast<ptrdiff_t>(at), jp2.begin() + static_cast<ptrdiff_t>(at + n),
                         jph.begin() + static_cast<ptrdiff_t>(12 + box_len(jph, 12))));
  expect_same(decode(jph), decode(jp2), "JP2 -> JPH");
  const std::vector<uint8_t> back = transcode(jph, J2K_CODER_EBCOT, J2K_FORMAT_JP2);
  EXPECT_EQ(std::string(back.begin() + 20, back.begin() + 24), "jp2 ");
  expect_same(decode(back), decode(jp2), "JPH -> JP2");
  // A bare codestream: the boxes' cdef is not carried (said in the report), the samples are.
  j2kfront::TranscodeSettings bare;
  bare.target = J2K_CODER_HT;
  j2kfront::Transcoder tb(bare);
  const std::vector<uint8_t> jhc = tb.transcode(jp2.data(), jp2.size());
  EXPECT_NE(std::string(tb.report().warnings), "");
  expect_same(decode(jhc), decode(jp2), "JP2 -> HT codestream");
  const std::vector<uint8_t> wrapped = transcode(jhc, J2K_CODER_EBCOT, J2K_FORMAT_JP2);
  EXPECT_EQ(std::string(wrapped.begin() + 20, wrapped.begin() + 24), "jp2 ");
  expect_same(decode(wrapped), decode(jp2), "HT codestream -> JP2");
}

// ---------------------------------------------------------------- hostile inputs

TEST(TranscodeHostile, CutFlippedAndForeignBytesAreErrors) {
  const j2kfront::Image image = random_image(80, 60, 0, 0, rgb8(), 3);
  Case c = image_case("", 80, 60, 0, 0, rgb8());
  c.levels = 3, c.block_w = c.block_h = 16;
  const std::vector<uint8_t> in = encode_case(c, image, false);
  auto status_of = [](const std::vector<uint8_t>& bytes) {
    j2kfront::TranscodeSettings s;
    j2k_transcoder* t = nullptr;
    EXPECT_EQ(j2k_transcoder_create(&s, &t), J2K_OK);
    const uint8_t* out = nullptr;
    size_t size = 0;
    const j2k_status st = j2k_transcoder_run(t, bytes.data(), bytes.size(), &out, &size);
    if (st != J2K_OK) {
      EXPECT_STRNE(j2k_last_error(), "");
      EXPECT_EQ(out, nullptr);
    }
    j2k_transcoder_destroy(t);
    return st;
  };
  // Cut anywhere from the main header to just before EOC: an error, never a guess.
  for (size_t n : {size_t{0}, size_t{2}, size_t{40}, in.size() / 3, in.size() / 2, in.size() - 3})
    EXPECT_NE(status_of(std::vector<uint8_t>(in.begin(), in.begin() + static_cast<ptrdiff_t>(n))), J2K_OK) << "cut at " << n;
  EXPECT_EQ(status_of(std::vector<uint8_t>(100, 0x5A)), J2K_CORRUPT_INPUT);
  const std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0};
  EXPECT_NE(status_of(png), J2K_OK);
  // Flipped bytes in the packets: an error or a stream that still decodes, never a crash.
  uint32_t s = 1;
  for (int k = 0; k < 200; ++k) {
    std::vector<uint8_t> bad = in;
    s = s * 1664525u + 1013904223u;
    const size_t at = 150 + (s >> 8) % (bad.size() - 152);
    bad[at] ^= static_cast<uint8_t>(1u << (s >> 29));
    j2kfront::TranscodeSettings ts;
    j2k_transcoder* t = nullptr;
    ASSERT_EQ(j2k_transcoder_create(&ts, &t), J2K_OK);
    const uint8_t* out = nullptr;
    size_t size = 0;
    if (j2k_transcoder_run(t, bad.data(), bad.size(), &out, &size) == J2K_OK) {
      const std::vector<uint8_t> o(out, out + size);
      j2kfront::DecodeSettings ds;
      j2k_decoder* d = nullptr;
      ASSERT_EQ(j2k_decoder_create(&ds, &d), J2K_OK);
      j2k_image_view v{};
      EXPECT_EQ(j2k_decoder_run(d, o.data(), o.size(), &v), J2K_OK) << "flip at " << at << ": " << j2k_last_error();
      j2k_decoder_destroy(d);
    }
    j2k_transcoder_destroy(t);
  }
}

TEST(TranscodeApi, BadArgumentsAreRefused) {
  j2kfront::TranscodeSettings s;
  j2k_transcoder* t = nullptr;
  EXPECT_EQ(j2k_transcoder_create(nullptr, &t), J2K_INVALID_ARGUMENT);
  s.target = static_cast<j2k_coder>(7);
  EXPECT_EQ(j2k_transcoder_create(&s, &t), J2K_INVALID_ARGUMENT);
  s.target = J2K_CODER_HT;
  s.format = static_cast<j2k_file_format>(9);
  EXPECT_EQ(j2k_transcoder_create(&s, &t), J2K_INVALID_ARGUMENT);
  s.format = J2K_FORMAT_J2K;
  s.threads = -3;
  EXPECT_EQ(j2k_transcoder_create(&s, &t), J2K_INVALID_ARGUMENT);
  s.threads = 0;
  ASSERT_EQ(j2k_transcoder_create(&s, &t), J2K_OK);
  const uint8_t* out = nullptr;
  size_t size = 0;
  EXPECT_EQ(j2k_transcoder_run(t, nullptr, 10, &out, &size), J2K_INVALID_ARGUMENT);
  EXPECT_EQ(j2k_transcoder_run(t, "x", 1, nullptr, &size), J2K_INVALID_ARGUMENT);
  j2k_transcode_report r{};
  EXPECT_EQ(j2k_transcoder_get_report(t, &r), J2K_OK);
  EXPECT_EQ(j2k_transcoder_get_report(nullptr, &r), J2K_INVALID_ARGUMENT);
  j2k_transcoder_destroy(t);
  j2k_transcoder_destroy(nullptr);
}

// ---------------------------------------------------------------- the CLI and outside coders

class TranscodeCli : public test_support::TempDirTest {
 protected:
  // `tool -i in -o out` (opj_decompress, ojph_expand, grk_decompress, or ours) to a PNM's samples.
  Pnm decoded_by(const std::string& tool, const std::string& in, const std::string& ext) {
    const std::string out = path(std::filesystem::path(in).filename().string() + "." + tool.substr(0, 4) + ext);
    const std::string command = tool == "ours" ? quote(kCli) + " decompress --quiet --force -i " + quote(in) + " -o " + quote(out)
                                               : tool + " -i " + quote(in) + " -o " + quote(out);
    std::filesystem::remove(out);
    const auto r = run_command(command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
    return read_pnm(out);
  }
  test_support::CommandResult transcode_cli(const std::string& in, const std::string& out, const std::string& flags = "") {
    return run_command(quote(kCli) + " transcode --quiet -i " + quote(in) + " -o " + quote(out) + " " + flags);
  }
};

// opj_compress's 5/3 stream (several layers, mode switches) to HT and back: opj_decompress,
// ojph_expand and grk_decompress give the original image from each.
TEST_F(TranscodeCli, OpenJpegLosslessThereAndBack) {
  if (!test_support::on_path("opj_compress") || !test_support::on_path("opj_decompress"))
    GTEST_SKIP() << "opj_compress / opj_decompress not found (Debian: apt install libopenjp2-tools)";
  const std::string original = path("in.ppm");
  write_pnm(original, 211, 147, 3, 255, 11);
  for (const std::string& flags : {std::string("-n 5 -b 32,32 -r 20,5,1"), std::string("-n 4 -M 41 -p RPCL -c [64,64],[32,32] -SOP -EPH"),
                                   std::string("-n 3 -t 100,64 -b 16,64 -p CPRL")}) {
    SCOPED_TRACE(flags);
    const std::string j2k = path("opj.j2k"), jph = path("ht.jph"), j2k2 = path("back.j2k");
    std::filesystem::remove(jph), std::filesystem::remove(j2k2);
    auto r = run_command("opj_compress -i " + quote(original) + " -o " + quote(j2k) + " " + flags);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = transcode_cli(j2k, jph);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = transcode_cli(jph, j2k2);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const Pnm in = read_pnm(original);
    EXPECT_EQ(decoded_by("ours", jph, ".ppm").samples, in.samples);
    EXPECT_EQ(decoded_by("opj_decompress", jph, ".ppm").samples, in.samples) << "opj_decompress of the JPH file";
    EXPECT_EQ(decoded_by("opj_decompress", j2k2, ".ppm").samples, in.samples) << "opj_decompress of the stream back";
    if (test_support::on_path("ojph_expand")) {
      // ojph_expand reads codestreams: the JPH file's own, as a .jhc.
      r = transcode_cli(j2k, path("ht.jhc"), "--force");
      ASSERT_EQ(r.exit_code, 0) << r.output;
      EXPECT_EQ(decoded_by("ojph_expand", path("ht.jhc"), ".ppm").samples, in.samples) << "ojph_expand";
    }
    if (test_support::on_path("grk_decompress")) {
      EXPECT_EQ(decoded_by("grk_decompress", jph, ".ppm").samples, in.samples) << "grk_decompress of the JPH file";
      EXPECT_EQ(decoded_by("grk_decompress", j2k2, ".ppm").samples, in.samples) << "grk_decompress of the stream back";
    }
  }
}

// opj_compress's 9/7 streams: the HT file decodes to what opj_decompress gives of the input.
TEST_F(TranscodeCli, OpenJpegLossyDecodesAlike) {
  if (!test_support::on_path("opj_compress") || !test_support::on_path("opj_decompress"))
    GTEST_SKIP() << "opj_compress / opj_decompress not found (Debian: apt install libopenjp2-tools)";
  const std::string original = path("in.pgm");
  write_pnm(original, 190, 133, 1, 65535, 5);
  for (const std::string& flags : {std::string("-I -r 40,10"), std::string("-I -q 30,45 -M 63 -b 64,16"), std::string("-I -r 8 -t 64,64")}) {
    SCOPED_TRACE(flags);
    const std::string j2k = path("opj.j2k"), jhc = path("ht.jhc"), back = path("back.j2c");
    std::filesystem::remove(jhc), std::filesystem::remove(back);
    auto r = run_command("opj_compress -i " + quote(original) + " -o " + quote(j2k) + " " + flags);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_EQ(transcode_cli(j2k, jhc).exit_code, 0);
    ASSERT_EQ(transcode_cli(jhc, back).exit_code, 0);
    const Pnm ref = decoded_by("opj_decompress", j2k, ".pgm");
    ASSERT_FALSE(ref.samples.empty());
    EXPECT_EQ(decoded_by("opj_decompress", jhc, ".pgm").samples, ref.samples) << "opj_decompress of the HT stream";
    EXPECT_EQ(decoded_by("ours", jhc, ".pgm").samples, ref.samples) << "ours of the HT stream";
    EXPECT_EQ(decoded_by("opj_decompress", back, ".pgm").samples, ref.samples) << "opj_decompress of the stream back";
  }
}

// ojph_compress's streams to EBCOT: opj_decompress gives what ojph_expand gave of the input
// (lossless), or what opj_decompress gave of it (lossy).
TEST_F(TranscodeCli, OpenJphStreamsToEbcot) {
  if (!test_support::on_path("ojph_compress") || !test_support::on_path("ojph_expand") || !test_support::on_path("opj_decompress"))
    GTEST_SKIP() << "ojph_compress / ojph_expand / opj_decompress not found";
  const std::string original = path("in.ppm");
  write_pnm(original, 143, 101, 3, 255, 23);
  for (const std::string& flags : {std::string("-reversible true -block_size {16,16}"), std::string("-reversible true -tile_size {64,48} -prog_order RPCL"),
                                   std::string("-qstep 0.02"), std::string("-qstep 0.005 -block_size {32,32} -num_decomps 3")}) {
    SCOPED_TRACE(flags);
    const bool lossless = flags.find("reversible") != std::string::npos;
    const std::string jhc = path("ojph.jhc"), j2k = path("ebcot.j2k"), back = path("back.jhc");
    std::filesystem::remove(j2k), std::filesystem::remove(back);
    auto r = run_command("ojph_compress -i " + quote(original) + " -o " + quote(jhc) + " " + flags);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = transcode_cli(jhc, j2k);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_EQ(transcode_cli(j2k, back).exit_code, 0);
    // (ojph_expand 0.x decodes some of its own tiled streams wrongly, e.g. 143 x 101 in tiles
    // of 64 x 48: for lossless ones the original image is the reference, and ojph_expand is
    // held to what it gives of the input.)
    const Pnm ref = lossless ? read_pnm(original) : decoded_by("opj_decompress", jhc, ".ppm");
    ASSERT_FALSE(ref.samples.empty());
    if (lossless) {
      EXPECT_EQ(decoded_by("ours", jhc, ".ppm").samples, ref.samples) << "ours of the input";
    }
    EXPECT_EQ(decoded_by("opj_decompress", j2k, ".ppm").samples, ref.samples) << "opj_decompress of the EBCOT stream";
    EXPECT_EQ(decoded_by("ours", j2k, ".ppm").samples, ref.samples) << "ours of the EBCOT stream";
    EXPECT_EQ(decoded_by("ours", back, ".ppm").samples, ref.samples) << "ours of the stream back";
    if (lossless) {
      EXPECT_EQ(decoded_by("ojph_expand", back, ".ppm").samples, decoded_by("ojph_expand", jhc, ".ppm").samples)
          << "ojph_expand of the stream back and of the input";
    }
  }
}

// Bad inputs and outputs: a clear error, a non-zero exit, nothing written, the input intact.
TEST_F(TranscodeCli, RefusesWithoutWritingOverAnything) {
  const j2kfront::Image image = random_image(40, 30, 0, 0, rgb8(), 8);
  Case c = image_case("", 40, 30, 0, 0, rgb8());
  c.levels = 2;
  const std::vector<uint8_t> in = encode_case(c, image, false);
  const std::string input = path("in.j2k");
  std::ofstream(input, std::ios::binary).write(reinterpret_cast<const char*>(in.data()), static_cast<std::streamsize>(in.size()));
  // The input as the output, even with --force.
  auto r = run_command(quote(kCli) + " transcode -i " + quote(input) + " -o " + quote(input) + " --force");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_EQ(file_bytes(input), in);
  // An existing file without --force: refused, untouched; with it, replaced.
  const std::string existing = path("there.jhc");
  std::ofstream(existing) << "keep me";
  r = run_command(quote(kCli) + " transcode -i " + quote(input) + " -o " + quote(existing));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("error"), std::string::npos) << r.output;
  std::ifstream kept(existing);
  std::string text;
  std::getline(kept, text);
  EXPECT_EQ(text, "keep me");
  r = run_command(quote(kCli) + " transcode -i " + quote(input) + " -o " + quote(existing) + " --force");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 quality layer"), std::string::npos) << r.output;
  EXPECT_TRUE(is_ht(file_bytes(existing)));
  // Unknown output extension, and an EBCOT coder for an HT name: usage errors (2).
  r = run_command(quote(kCli) + " transcode -i " + quote(input) + " -o " + quote(path("out.png")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_command(quote(kCli) + " transcode -i " + quote(input) + " -o " + quote(path("out.jph")) + " --coder ebcot");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // A cut input and a missing one: exit 1 naming the cause, no output.
  const std::string cut = path("cut.j2k");
  std::ofstream(cut, std::ios::binary).write(reinterpret_cast<const char*>(in.data()), static_cast<std::streamsize>(in.size() / 2));
  r = run_command(quote(kCli) + " transcode -i " + quote(cut) + " -o " + quote(path("cut.jhc")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("cut.jhc")));
  r = run_command(quote(kCli) + " transcode -i " + quote(path("missing.j2k")) + " -o " + quote(path("m.jhc")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("m.jhc")));
  // --coder ht into a .j2c, and standard output with --OutFor.
  r = run_command(quote(kCli) + " transcode --quiet -i " + quote(input) + " -o " + quote(path("ht.j2c")) + " --coder ht");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(is_ht(file_bytes(path("ht.j2c"))));
  r = run_command(quote(kCli) + " transcode --quiet -i " + quote(input) + " -o - --OutFor jph > " + quote(path("stdout.jph")));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  expect_same(decode(file_bytes(path("stdout.jph"))), image, "-o - --OutFor jph");
}

}  // namespace
