// SPDX-License-Identifier: BSD-2-Clause
// The JP2 file format writer (codec/codestream/jp2_writer) read back with a box walker written
// here from ISO/IEC 15444-1 I.4 (LBox, TBox, XLBox): the boxes and their order, every field of
// ihdr and colr, bpcc exactly where the components differ, the codestream byte for byte, box
// lengths that add up to the file, the errors; then OpenJPEG's opj_dump reading the .jp2 of a
// real codestream, ours and opj_compress's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "codec/codestream/jp2_reader.hpp"
#include "codec/codestream/jp2_writer.hpp"
#include "common/error.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

namespace {

using j2k::codec::default_colour;
using j2k::codec::Jp2Colour;
using j2k::codec::Jp2Component;
using j2k::codec::Jp2Info;
using j2k::codec::write_jp2;
using Bytes = std::vector<uint8_t>;
using test_support::quote;
using test_support::run_command;

uint64_t be(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | p[i];
  return v;
}

// A box as the walker found it.
struct Box {
  std::string type;      // TBox as its four characters
  uint64_t length = 0;   // the whole box, from LBox or XLBox
  size_t header = 0;     // 8, or 16 with XLBox
  size_t offset = 0;     // where the box starts, in the bytes walked
  Bytes content;
};

// The boxes that fill `n` bytes at `p` exactly. Throws std::runtime_error for a header cut
// short, a reserved LBox (2..7), a box shorter than its header or running past the end, and
// LBox = 0 ("up to the end of the file"): write_jp2 gives every length.
std::vector<Box> walk(const uint8_t* p, size_t n) {
  std::vector<Box> boxes;
  size_t at = 0;
  while (at < n) {
    const std::string where = "box at byte " + std::to_string(at);
    if (n - at < 8) throw std::runtime_error(where + ": header cut short");
    Box b;
    b.offset = at;
    b.type.assign(reinterpret_cast<const char*>(p + at + 4), 4);
    b.length = be(p + at, 4);
    b.header = 8;
    if (b.length == 1) {
      if (n - at < 16) throw std::runtime_error(where + " '" + b.type + "': XLBox cut short");
      b.length = be(p + at + 8, 8);
      b.header = 16;
    } else if (b.length == 0) {
      throw std::runtime_error(where + " '" + b.type + "': LBox 0 (to the end of the file)");
    }
    if (b.length < b.header)
      throw std::runtime_error(where + " '" + b.type + "': length " + std::to_string(b.length) + " is shorter than its header");
    if (b.length > n - at)
      throw std::runtime_error(where + " '" + b.type + "': length " + std::to_string(b.length) + " runs past the end (" +
                               std::to_string(n - at) + " bytes left)");
    b.content.assign(p + at + b.header, p + at + b.length);
    at += static_cast<size_t>(b.length);
    boxes.push_back(std::move(b));
  }
  return boxes;
}

std::vector<std::string> types(const std::vector<Box>& boxes) {
  std::vector<std::string> t;
  for (const Box& b : boxes) t.push_back(b.type);
  return t;
}

uint64_t total_length(const std::vector<Box>& boxes) {
  uint64_t sum = 0;
  for (const Box& b : boxes) sum += b.length;
  return sum;
}

// A file as write_jp2 lays it out, its fields read.
struct Jp2File {
  std::vector<Box> boxes;   // the file's
  std::vector<Box> header;  // the JP2 Header box's
  // ihdr
  uint32_t height = 0, width = 0;
  uint32_t nc = 0, bpc = 0, c = 0, unkc = 0, ipr = 0;
  bool has_bpcc = false;
  Bytes bpcc;
  // colr
  uint32_t meth = 0, prec = 0, approx = 0, enumcs = 0;
  Bytes codestream;
  size_t codestream_offset = 0;  // of the codestream's first byte in the file
};

// Reads `file` into `f`, checking what every file must have: the boxes jP, ftyp, jp2h, jp2c
// in that order, the signature, ftyp's brand, version and list, ihdr then perhaps bpcc then
// colr in jp2h, each of the size its fields take, and lengths that add up to the file and to
// the JP2 Header box. Call through ASSERT_NO_FATAL_FAILURE.
void read_jp2(const Bytes& file, Jp2File& f) {
  try {
    f.boxes = walk(file.data(), file.size());
  } catch (const std::runtime_error& e) {
    FAIL() << "file: " << e.what();
  }
  ASSERT_EQ(types(f.boxes), (std::vector<std::string>{"jP  ", "ftyp", "jp2h", "jp2c"}));
  EXPECT_EQ(total_length(f.boxes), file.size());

  const Box& signature = f.boxes[0];
  EXPECT_EQ(signature.header, 8u);
  EXPECT_EQ(signature.length, 12u);
  EXPECT_EQ(signature.content, (Bytes{0x0D, 0x0A, 0x87, 0x0A}));

  const Box& ftyp = f.boxes[1];
  EXPECT_EQ(ftyp.header, 8u);
  EXPECT_EQ(ftyp.content, (Bytes{'j', 'p', '2', ' ', 0, 0, 0, 0, 'j', 'p', '2', ' '}))
      << "brand 'jp2 ', minor version 0, compatibility list 'jp2 '";

  const Box& jp2h = f.boxes[2];
  EXPECT_EQ(jp2h.header, 8u);
  try {
    f.header = walk(jp2h.content.data(), jp2h.content.size());
  } catch (const std::runtime_error& e) {
    FAIL() << "jp2h: " << e.what();
  }
  EXPECT_EQ(total_length(f.header), jp2h.content.size());
  const std::vector<std::string> header_types = types(f.header);
  f.has_bpcc = header_types == std::vector<std::string>{"ihdr", "bpcc", "colr"};
  ASSERT_TRUE(f.has_bpcc || header_types == (std::vector<std::string>{"ihdr", "colr"}))
      << "jp2h holds " << ::testing::PrintToString(header_types);

  const Box& ihdr = f.header.front();
  ASSERT_EQ(ihdr.content.size(), 14u);
  const uint8_t* p = ihdr.content.data();
  f.height = static_cast<uint32_t>(be(p, 4));
  f.width = static_cast<uint32_t>(be(p + 4, 4));
  f.nc = static_cast<uint32_t>(be(p + 8, 2));
  f.bpc = p[10], f.c = p[11], f.unkc = p[12], f.ipr = p[13];
  EXPECT_EQ(f.c, 7u) << "C: 7, a Part 1 codestream";
  EXPECT_EQ(f.unkc, 0u) << "UnkC: the colour space is known";
  EXPECT_EQ(f.ipr, 0u) << "IPR: no Intellectual Property box";
  if (f.has_bpcc) {
    f.bpcc = f.header[1].content;
    EXPECT_EQ(f.bpcc.size(), f.nc) << "bpcc: one byte per component";
  }

  const Box& colr = f.header.back();
  ASSERT_EQ(colr.content.size(), 7u);
  f.meth = colr.content[0], f.prec = colr.content[1], f.approx = colr.content[2];
  f.enumcs = static_cast<uint32_t>(be(colr.content.data() + 3, 4));
  EXPECT_EQ(f.meth, 1u) << "METH: an enumerated colour space";
  EXPECT_EQ(f.prec, 0u);
  EXPECT_EQ(f.approx, 0u);

  const Box& jp2c = f.boxes[3];
  f.codestream = jp2c.content;
  f.codestream_offset = jp2c.offset + jp2c.header;
}

Jp2Info info_of(uint32_t width, uint32_t height, std::vector<Jp2Component> components,
                Jp2Colour colour = Jp2Colour::Srgb) {
  Jp2Info info;
  info.width = width;
  info.height = height;
  info.components = std::move(components);
  info.colour = colour;
  return info;
}

// Bytes standing in for a codestream: SOC, SIZ's marker, every byte value, EOC. write_jp2
// carries them without reading them.
Bytes fake_codestream(size_t n) {
  Bytes b{0xFF, 0x4F, 0xFF, 0x51};
  uint32_t seed = static_cast<uint32_t>(n) * 2654435761u + 1;
  while (b.size() + 2 < n) {
    seed = seed * 1103515245u + 12345u;
    b.push_back(static_cast<uint8_t>(seed >> 23));
  }
  b.push_back(0xFF), b.push_back(0xD9);
  return b;
}

// --- the layout ----------------------------------------------------------------------------

TEST(Jp2Writer, BoxesAndFieldsOfAnRgbImage) {
  const Bytes cs = fake_codestream(300);
  const Bytes file = write_jp2(info_of(70000, 3, {{8, false}, {8, false}, {8, false}}), cs);
  // The first 32 bytes are the same in every JP2 file of ours: the signature box, the File
  // Type box, the JP2 Header box's type.
  const Bytes prefix{0x00, 0x00, 0x00, 0x0C, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A, 0x00, 0x00, 0x00, 0x14,
                     'f',  't',  'y',  'p',  'j', 'p', '2', ' ', 0x00, 0x00, 0x00, 0x00, 'j',  'p',  '2',  ' '};
  ASSERT_GE(file.size(), prefix.size());
  EXPECT_EQ(Bytes(file.begin(), file.begin() + 32), prefix);

  Jp2File f;
  ASSERT_NO_FATAL_FAILURE(read_jp2(file, f));
  EXPECT_EQ(f.boxes[2].length, 8u + (8 + 14) + (8 + 7)) << "jp2h: ihdr and colr";
  EXPECT_EQ(f.boxes[3].length, 8u + cs.size());
  EXPECT_EQ(f.boxes[3].header, 8u);
  EXPECT_EQ(file.size(), 12u + 20 + 45 + 8 + 300);
  EXPECT_EQ(f.width, 70000u) << "WIDTH takes 4 bytes";
  EXPECT_EQ(f.height, 3u);
  EXPECT_EQ(f.nc, 3u);
  EXPECT_EQ(f.bpc, 7u) << "8 bits unsigned: 8 - 1";
  EXPECT_FALSE(f.has_bpcc);
  EXPECT_EQ(f.enumcs, 16u) << "sRGB";
  EXPECT_EQ(f.codestream, cs);
  EXPECT_EQ(f.codestream_offset, file.size() - cs.size());
}

TEST(Jp2Writer, EnumeratedColourSpaces) {
  const struct {
    Jp2Colour colour;
    size_t ncomp;
    uint32_t enumcs;
  } cases[] = {{Jp2Colour::Srgb, 3, 16}, {Jp2Colour::Greyscale, 1, 17}, {Jp2Colour::Sycc, 3, 18},
               {Jp2Colour::Srgb, 4, 16}, {Jp2Colour::Greyscale, 2, 17}};
  for (const auto& c : cases) {
    SCOPED_TRACE("EnumCS " + std::to_string(c.enumcs) + ", " + std::to_string(c.ncomp) + " components");
    Jp2File f;
    ASSERT_NO_FATAL_FAILURE(
        read_jp2(write_jp2(info_of(5, 4, std::vector<Jp2Component>(c.ncomp, {8, false}), c.colour), fake_codestream(20)), f));
    EXPECT_EQ(f.enumcs, c.enumcs);
    EXPECT_EQ(f.nc, c.ncomp);
    EXPECT_EQ(f.width, 5u);
    EXPECT_EQ(f.height, 4u);
  }
}

// One depth and sign for every component: BPC says it, and there is no bpcc.
TEST(Jp2Writer, OneDepthForAllIsInBpc) {
  const struct {
    Jp2Component component;
    size_t ncomp;
    uint32_t bpc;
  } cases[] = {{{8, false}, 1, 0x07},  {{12, true}, 3, 0x8B}, {{1, false}, 1, 0x00},
               {{38, true}, 2, 0xA5},  {{38, false}, 1, 0x25}, {{16, false}, 4, 0x0F}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.ncomp) + " x " + std::to_string(c.component.precision) +
                 (c.component.is_signed ? " bits signed" : " bits unsigned"));
    Jp2File f;
    ASSERT_NO_FATAL_FAILURE(
        read_jp2(write_jp2(info_of(9, 9, std::vector<Jp2Component>(c.ncomp, c.component)), fake_codestream(40)), f));
    EXPECT_EQ(f.bpc, c.bpc);
    EXPECT_FALSE(f.has_bpcc);
    EXPECT_EQ(f.boxes[2].length, 8u + 22 + 15);
  }
}

// Depths or signs that differ: BPC 255 and a bpcc box, between ihdr and colr, with each
// component's depth byte.
TEST(Jp2Writer, DifferentDepthsOrSignsGoInBpcc) {
  const struct {
    std::vector<Jp2Component> components;
    Bytes bpcc;
  } cases[] = {{{{8, false}, {10, false}, {8, false}}, {0x07, 0x09, 0x07}},
               {{{8, false}, {8, true}}, {0x07, 0x87}},
               {{{16, true}, {16, false}, {16, true}}, {0x8F, 0x0F, 0x8F}},
               {{{1, false}, {38, true}}, {0x00, 0xA5}},
               {{{12, false}, {12, false}, {12, false}, {5, false}}, {0x0B, 0x0B, 0x0B, 0x04}}};
  for (const auto& c : cases) {
    SCOPED_TRACE("bpcc " + ::testing::PrintToString(c.bpcc));
    const Bytes cs = fake_codestream(64);
    Jp2File f;
    ASSERT_NO_FATAL_FAILURE(read_jp2(write_jp2(info_of(3, 2, c.components, Jp2Colour::Sycc), cs), f));
    EXPECT_EQ(f.bpc, 255u);
    ASSERT_TRUE(f.has_bpcc);
    EXPECT_EQ(f.bpcc, c.bpcc);
    EXPECT_EQ(f.header[1].length, 8u + c.components.size());
    EXPECT_EQ(f.boxes[2].length, 8u + 22 + (8 + c.components.size()) + 15);
    EXPECT_EQ(f.nc, c.components.size());
    EXPECT_EQ(f.enumcs, 18u);
    EXPECT_EQ(f.codestream, cs);
  }
}

// NC takes 2 bytes: 16384 components, alike and not.
TEST(Jp2Writer, SixteenThousandComponents) {
  std::vector<Jp2Component> mixed(16384);
  Bytes want;
  for (size_t c = 0; c < mixed.size(); ++c) {
    mixed[c] = {static_cast<int>(c % 38) + 1, c % 3 == 1};
    want.push_back(static_cast<uint8_t>((c % 38) | (c % 3 == 1 ? 0x80 : 0)));
  }
  Jp2File f;
  ASSERT_NO_FATAL_FAILURE(read_jp2(write_jp2(info_of(1, 1, mixed), fake_codestream(10)), f));
  EXPECT_EQ(f.nc, 16384u);
  EXPECT_EQ(f.bpc, 255u);
  EXPECT_EQ(f.bpcc, want);

  Jp2File alike;
  ASSERT_NO_FATAL_FAILURE(
      read_jp2(write_jp2(info_of(1, 1, std::vector<Jp2Component>(16384, {9, true})), fake_codestream(10)), alike));
  EXPECT_EQ(alike.nc, 16384u);
  EXPECT_EQ(alike.bpc, 0x88u);
  EXPECT_FALSE(alike.has_bpcc);
}

TEST(Jp2Writer, CarriesTheCodestreamByteForByte) {
  for (size_t n : {size_t{2}, size_t{3}, size_t{1000}, size_t{(1u << 20) + 7}}) {
    SCOPED_TRACE(std::to_string(n) + " bytes");
    const Bytes cs = fake_codestream(n);
    const Bytes file = write_jp2(info_of(640, 480, {{8, false}, {8, false}, {8, false}}), cs);
    Jp2File f;
    ASSERT_NO_FATAL_FAILURE(read_jp2(file, f));
    EXPECT_EQ(f.codestream, cs);
    EXPECT_EQ(f.boxes[3].header, 8u) << "no XLBox below 4 GiB";
    EXPECT_EQ(Bytes(file.end() - static_cast<ptrdiff_t>(cs.size()), file.end()), cs) << "the codestream ends the file";
  }
}

// --- box lengths ---------------------------------------------------------------------------

// LBox up to 2^32 - 1 bytes, then LBox = 1 and XLBox: a box that large cannot be built here, so
// the header's switch is checked on its own.
TEST(Jp2Writer, XLBoxOnlyPast4GiB) {
  using j2k::codec::jp2_detail::box_header;
  const uint32_t jp2c = 0x6A703263;
  EXPECT_EQ(box_header(jp2c, 0), (Bytes{0, 0, 0, 8, 'j', 'p', '2', 'c'}));
  EXPECT_EQ(box_header(jp2c, 1000), (Bytes{0, 0, 0x03, 0xF0, 'j', 'p', '2', 'c'}));
  EXPECT_EQ(box_header(jp2c, 0xFFFFFFFFull - 8), (Bytes{0xFF, 0xFF, 0xFF, 0xFF, 'j', 'p', '2', 'c'}))
      << "a box of exactly 2^32 - 1 bytes still fits LBox";
  EXPECT_EQ(box_header(jp2c, 0xFFFFFFFFull - 7),
            (Bytes{0, 0, 0, 1, 'j', 'p', '2', 'c', 0, 0, 0, 0x01, 0, 0, 0, 0x08}))
      << "2^32 - 8 bytes of contents: the box, 16 + 2^32 - 8 bytes long, needs XLBox";
  EXPECT_EQ(box_header(jp2c, 0x123456789Aull),
            (Bytes{0, 0, 0, 1, 'j', 'p', '2', 'c', 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 0xAA}));
}

// The walker itself: XLBox read as the length, and broken lengths refused.
TEST(Jp2Writer, TestWalkerReadsXLBoxAndRefusesBadLengths) {
  const Bytes xl{0, 0, 0, 1, 'j', 'p', '2', 'c', 0, 0, 0, 0, 0, 0, 0, 19, 'a', 'b', 'c', 0, 0, 0, 9, 'f', 'r', 'e', 'e', 'x'};
  const std::vector<Box> boxes = walk(xl.data(), xl.size());
  ASSERT_EQ(types(boxes), (std::vector<std::string>{"jp2c", "free"}));
  EXPECT_EQ(boxes[0].length, 19u);
  EXPECT_EQ(boxes[0].header, 16u);
  EXPECT_EQ(boxes[0].content, (Bytes{'a', 'b', 'c'}));
  EXPECT_EQ(boxes[1].offset, 19u);
  EXPECT_EQ(boxes[1].content, (Bytes{'x'}));
  for (const Bytes& bad : {Bytes{0, 0, 0, 9, 'j', 'p', '2', 'c'},             // past the end
                           Bytes{0, 0, 0, 4, 'j', 'p', '2', 'c'},             // shorter than its header
                           Bytes{0, 0, 0, 0, 'j', 'p', '2', 'c'},             // to the end of the file
                           Bytes{0, 0, 0, 1, 'j', 'p', '2', 'c', 0, 0, 0, 0}, // XLBox cut short
                           Bytes{0, 0, 0, 8, 'j', 'p', '2'}})                 // header cut short
    EXPECT_THROW(walk(bad.data(), bad.size()), std::runtime_error) << ::testing::PrintToString(bad);
}

// --- errors --------------------------------------------------------------------------------

void expect_invalid(const Jp2Info& info, const std::string& cause) {
  try {
    write_jp2(info, fake_codestream(20));
    ADD_FAILURE() << "no error; expected one naming \"" << cause << "\"";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::InvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find(cause), std::string::npos) << e.what() << " does not name \"" << cause << "\"";
  }
}

TEST(Jp2Writer, RefusesImpossibleInfo) {
  expect_invalid(info_of(8, 8, {}), "0 components");
  expect_invalid(info_of(8, 8, std::vector<Jp2Component>(16385)), "16385 components");
  expect_invalid(info_of(0, 8, {{8, false}}), "0 x 8");
  expect_invalid(info_of(8, 0, {{8, false}}), "8 x 0");
  expect_invalid(info_of(0, 0, {{8, false}}), "0 x 0");
  expect_invalid(info_of(8, 8, {{8, false}, {0, false}}), "component 1 has precision 0");
  expect_invalid(info_of(8, 8, {{39, true}}), "component 0 has precision 39");
  expect_invalid(info_of(8, 8, {{8, false}, {8, false}, {-3, false}}), "component 2 has precision -3");
  expect_invalid(info_of(8, 8, {{8, false}}, static_cast<Jp2Colour>(7)), "colour space 7");
}

// --- what the file holds beside the image ---------------------------------------------------

// A profile's header as the writer checks it (size field, 'acsp', colour space), no tags.
Bytes icc_profile(const char* space, size_t tail) {
  Bytes p(132 + tail, 0);
  const auto n = static_cast<uint32_t>(p.size());
  p[0] = static_cast<uint8_t>(n >> 24), p[1] = static_cast<uint8_t>(n >> 16), p[2] = static_cast<uint8_t>(n >> 8), p[3] = static_cast<uint8_t>(n);
  std::copy(space, space + 4, p.begin() + 16);
  std::copy_n("acsp", 4, p.begin() + 36);
  for (size_t i = 132; i < p.size(); ++i) p[i] = static_cast<uint8_t>(i * 13);
  return p;
}

// The boxes of `file` and of its JP2 Header box.
void boxes_of(const Bytes& file, std::vector<Box>& top, std::vector<Box>& header) {
  try {
    top = walk(file.data(), file.size());
    ASSERT_GE(top.size(), 3u);
    ASSERT_EQ(top[2].type, "jp2h");
    header = walk(top[2].content.data(), top[2].content.size());
  } catch (const std::runtime_error& e) {
    FAIL() << e.what();
  }
}

TEST(Jp2Writer, IccProfileInColourSpecificationMethod2) {
  for (const auto& [space, ncomp] : {std::pair{"RGB ", size_t{3}}, {"RGB ", size_t{4}}, {"GRAY", size_t{1}}, {"GRAY", size_t{2}}}) {
    SCOPED_TRACE(std::string(space) + " for " + std::to_string(ncomp) + " components");
    Jp2Info info = info_of(6, 5, std::vector<Jp2Component>(ncomp, {8, false}));
    info.icc = icc_profile(space, 40);
    std::vector<Box> top, header;
    ASSERT_NO_FATAL_FAILURE(boxes_of(write_jp2(info, fake_codestream(30)), top, header));
    ASSERT_EQ(types(header), (std::vector<std::string>{"ihdr", "colr"}));
    const Bytes& colr = header[1].content;
    ASSERT_EQ(colr.size(), 3 + info.icc.size());
    EXPECT_EQ(colr[0], 2) << "METH 2: restricted ICC";
    EXPECT_EQ(colr[1], 0) << "PREC";
    EXPECT_EQ(colr[2], 0) << "APPROX";
    EXPECT_EQ(Bytes(colr.begin() + 3, colr.end()), info.icc);
  }
}

TEST(Jp2Writer, CaptureResolutionInResolutionBox) {
  Jp2Info info = info_of(6, 5, {{8, false}, {8, false}, {8, false}});
  info.capture = {300 / 0.0254, 11811};  // 300 dpi across, 11811 per metre down
  std::vector<Box> top, header;
  ASSERT_NO_FATAL_FAILURE(boxes_of(write_jp2(info, fake_codestream(30)), top, header));
  ASSERT_EQ(types(header), (std::vector<std::string>{"ihdr", "colr", "res "}));
  const std::vector<Box> res = walk(header[2].content.data(), header[2].content.size());
  ASSERT_EQ(types(res), (std::vector<std::string>{"resc"}));
  const Bytes& r = res[0].content;
  ASSERT_EQ(r.size(), 10u) << "VRcN, VRcD, HRcN, HRcD (2 bytes each), VRcE, HRcE (1 byte each)";
  EXPECT_EQ(be(r.data(), 2), 11811u);  // down: 11811 / 1 x 10^0
  EXPECT_EQ(be(r.data() + 2, 2), 1u);
  EXPECT_EQ(r[8], 0);
  // Across: 300 dpi is 1500000 / 127 per metre, exactly 15000 / 127 x 10^2.
  const double across = static_cast<double>(be(r.data() + 4, 2)) / static_cast<double>(be(r.data() + 6, 2)) *
                        std::pow(10.0, static_cast<int8_t>(r[9]));
  EXPECT_NEAR(across * 0.0254, 300.0, 1e-9);
  EXPECT_EQ(be(r.data() + 6, 2) % 127, 0u) << "the inch's 127 in the denominator";
}

// The Default Display Resolution box (I.5.3.7.2): VRdN, VRdD, HRdN, HRdD (2 bytes each), VRdE,
// HRdE (1 byte each, signed), alone in the Resolution box or after the Capture Resolution box.
TEST(Jp2Writer, DisplayResolutionInResolutionBox) {
  const auto value = [](const Bytes& r, size_t at, size_t e) {
    return static_cast<double>(be(r.data() + at, 2)) / static_cast<double>(be(r.data() + at + 2, 2)) *
           std::pow(10.0, static_cast<int8_t>(r[e]));
  };
  Jp2Info info = info_of(6, 5, {{8, false}});
  info.display = {72 / 0.0254, 1e-5};  // 72 dpi across; 1 per 100 km down (1 x 10^-5: a negative exponent)
  std::vector<Box> top, header;
  ASSERT_NO_FATAL_FAILURE(boxes_of(write_jp2(info, fake_codestream(30)), top, header));
  ASSERT_EQ(types(header), (std::vector<std::string>{"ihdr", "colr", "res "}));
  std::vector<Box> res = walk(header[2].content.data(), header[2].content.size());
  ASSERT_EQ(types(res), (std::vector<std::string>{"resd"}));
  ASSERT_EQ(res[0].content.size(), 10u);
  EXPECT_NEAR(value(res[0].content, 4, 9) * 0.0254, 72.0, 1e-9);
  EXPECT_NEAR(value(res[0].content, 0, 8), 1e-5, 1e-18);
  EXPECT_LT(static_cast<int8_t>(res[0].content[8]), 0) << "VRdE is signed";

  info.capture = {11811, 11811};
  ASSERT_NO_FATAL_FAILURE(boxes_of(write_jp2(info, fake_codestream(30)), top, header));
  res = walk(header[2].content.data(), header[2].content.size());
  ASSERT_EQ(types(res), (std::vector<std::string>{"resc", "resd"}));
  EXPECT_EQ(value(res[0].content, 0, 8), 11811);
  EXPECT_EQ(value(res[0].content, 4, 9), 11811);
  EXPECT_NEAR(value(res[1].content, 4, 9) * 0.0254, 72.0, 1e-9);
  // The library's own reader takes both back.
  const Bytes file = write_jp2(info, fake_codestream(30));
  const j2k::codec::Jp2File f = j2k::codec::read_jp2(file.data(), file.size());
  EXPECT_DOUBLE_EQ(f.capture.x, 11811);
  EXPECT_NEAR(f.display.x * 0.0254, 72.0, 1e-9);
  EXPECT_NEAR(f.display.y, 1e-5, 1e-18);
}

TEST(Jp2Writer, ResolutionFieldsCoverTheBoxsRange) {
  using j2k::codec::jp2_detail::resolution_fields;
  for (double v : {1.0, 2834.645669, 11811.0, 39370.07874, 65535.0, 1e6, 123456789.0, 0.5, 1e-3, 3.14159e20, 7e-30}) {
    const auto f = resolution_fields(v);
    SCOPED_TRACE(v);
    EXPECT_GE(f.n, 1u);
    EXPECT_LE(f.n, 65535u);
    EXPECT_GE(f.d, 1u);
    EXPECT_LE(f.d, 65535u);
    EXPECT_GE(f.e, -128);
    EXPECT_LE(f.e, 127);
    EXPECT_NEAR(static_cast<double>(f.n) / f.d * std::pow(10.0, f.e) / v, 1.0, 1e-6);
  }
  EXPECT_EQ(resolution_fields(11811).n, 11811u);
  EXPECT_EQ(resolution_fields(11811).d, 1u);
  EXPECT_EQ(resolution_fields(11811).e, 0);
  for (double bad : {0.0, -1.0, std::nan(""), HUGE_VAL, 1e140, 1e-140}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(resolution_fields(bad), j2k::Error);
  }
}

TEST(Jp2Writer, CarriedBoxesBetweenHeaderAndCodestream) {
  Jp2Info info = info_of(6, 5, {{8, false}});
  const Bytes uuid = {0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC, '<', 'x', '/', '>'};
  info.boxes = {{j2k::codec::jp2_fourcc("uuid"), uuid}, {j2k::codec::jp2_fourcc("xml "), {'<', 'a', '/', '>'}}};
  const Bytes cs = fake_codestream(40);
  std::vector<Box> top, header;
  const Bytes file = write_jp2(info, cs);
  ASSERT_NO_FATAL_FAILURE(boxes_of(file, top, header));
  ASSERT_EQ(types(top), (std::vector<std::string>{"jP  ", "ftyp", "jp2h", "uuid", "xml ", "jp2c"}));
  EXPECT_EQ(top[3].content, uuid);
  EXPECT_EQ(top[4].content, (Bytes{'<', 'a', '/', '>'}));
  EXPECT_EQ(top[5].content, cs);
  EXPECT_EQ(total_length(top), file.size());
  // write_jp2_with_header puts them in the same place.
  const Bytes again = j2k::codec::write_jp2_with_header(file.data() + top[2].offset + 8, top[2].content.size(), false, info.boxes, cs);
  EXPECT_EQ(again, file);
}

TEST(Jp2Writer, RefusesBrokenMetadata) {
  Jp2Info info = info_of(8, 8, {{8, false}, {8, false}, {8, false}});
  info.icc = icc_profile("GRAY", 8);
  expect_invalid(info, "a 'GRAY' profile, and the image has 3 components");
  info.icc = icc_profile("RGB ", 8);
  info.icc[3] ^= 1;
  expect_invalid(info, "its header says 141 bytes, and 140 are there");
  info.icc = Bytes(100, 0);
  expect_invalid(info, "less than an ICC header");
  info.icc = icc_profile("RGB ", 8);
  info.icc[36] = 'x';
  expect_invalid(info, "no ICC signature");
  info.icc.clear();
  info.capture = {300, 0};
  expect_invalid(info, "a resolution of 0.000000 grid points per metre");
  info.capture = {};
  info.display = {0, 72};
  expect_invalid(info, "a resolution of 0.000000 grid points per metre");
  info.display = {-72, -72};
  expect_invalid(info, "it is above 0");
  info.display = {1e140, 1e140};  // 65535 x 10^127 at most
  expect_invalid(info, "beyond what a Resolution box holds");
  info.display = {1e-140, 1};  // 1/65535 x 10^-128 at least
  expect_invalid(info, "beyond what a Resolution box holds");
  info.display = {};
  info.boxes = {{j2k::codec::jp2_fourcc("jp2c"), {1, 2, 3}}};
  expect_invalid(info, "a 'jp2c' box is the file's own");
  info.boxes = {{j2k::codec::jp2_fourcc("uuid"), Bytes(15, 0)}};
  expect_invalid(info, "a UUID box of 15 bytes");
}

TEST(Jp2Writer, DefaultColour) {
  EXPECT_EQ(default_colour(1), Jp2Colour::Greyscale);
  EXPECT_EQ(default_colour(2), Jp2Colour::Greyscale);
  EXPECT_EQ(default_colour(3), Jp2Colour::Srgb);
  EXPECT_EQ(default_colour(4), Jp2Colour::Srgb);
  EXPECT_EQ(default_colour(16384), Jp2Colour::Srgb);
}

// --- end to end: opj_dump reads the .jp2 of a real codestream -------------------------------

using test_support::file_bytes;
bool have(const char* tool) { return test_support::on_path(tool); }

// The images: 17 x 11, grey or RGB, 8 or 16 bits.
struct Image {
  int ncomp;
  int precision;
};
const Image kImages[] = {{1, 8}, {3, 8}, {1, 16}};
constexpr uint32_t kWidth = 17, kHeight = 11;

class Jp2EndToEnd : public test_support::TempDirTest {
 protected:
  // A PGM (1 component) or PPM (3) of `image`, its samples pseudo-random.
  std::string write_pnm(const Image& image) {
    const std::string name = path(std::to_string(image.ncomp) + "x" + std::to_string(image.precision) +
                                  (image.ncomp == 1 ? ".pgm" : ".ppm"));
    std::ofstream f(name, std::ios::binary);
    f << (image.ncomp == 1 ? "P5" : "P6") << "\n" << kWidth << " " << kHeight << "\n" << ((1 << image.precision) - 1) << "\n";
    const size_t bytes = size_t{kWidth} * kHeight * static_cast<size_t>(image.ncomp) * (image.precision > 8 ? 2 : 1);
    uint32_t seed = 7;
    for (size_t i = 0; i < bytes; ++i) {
      seed = seed * 1103515245u + 12345u;
      f.put(static_cast<char>(seed >> 23));
    }
    return name;
  }

  // Wraps the codestream in `j2k` (of `image`) with write_jp2 and has opj_dump read the file:
  // as a JP2 (not a bare codestream), the codestream where the jp2c box has it, and the
  // image's size and components.
  void check_with_opj_dump(const std::string& j2k, const Image& image) {
    const Bytes cs = file_bytes(j2k);
    ASSERT_GE(cs.size(), 2u) << j2k;
    ASSERT_EQ(cs[0], 0xFF);
    ASSERT_EQ(cs[1], 0x4F) << "not a codestream (no SOC)";
    Jp2Info info = info_of(kWidth, kHeight, std::vector<Jp2Component>(static_cast<size_t>(image.ncomp), {image.precision, false}),
                           default_colour(static_cast<size_t>(image.ncomp)));
    const Bytes file = write_jp2(info, cs);
    Jp2File f;
    ASSERT_NO_FATAL_FAILURE(read_jp2(file, f));
    const std::string jp2 = path("image.jp2");
    {
      std::ofstream out(jp2, std::ios::binary);
      out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
      ASSERT_TRUE(out.good()) << jp2;
    }
    const auto r = run_command("opj_dump -i " + quote(jp2));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto has = [&](const std::string& s) { return r.output.find(s) != std::string::npos; };
    EXPECT_FALSE(has("extension of this file is incorrect")) << "not read as a JP2:\n" << r.output;
    EXPECT_TRUE(has("Main header start position=" + std::to_string(f.codestream_offset) + "\n"))
        << "the codestream starts at byte " << f.codestream_offset << ":\n" << r.output;
    EXPECT_TRUE(has("x0=0, y0=0\n")) << r.output;
    EXPECT_TRUE(has("x1=" + std::to_string(kWidth) + ", y1=" + std::to_string(kHeight) + "\n")) << r.output;
    EXPECT_TRUE(has("numcomps=" + std::to_string(image.ncomp) + "\n")) << r.output;
    size_t precisions = 0;
    const std::string prec = "prec=" + std::to_string(image.precision) + "\n";
    for (size_t at = r.output.find(prec); at != std::string::npos; at = r.output.find(prec, at + 1)) ++precisions;
    EXPECT_EQ(precisions, static_cast<size_t>(image.ncomp)) << r.output;
  }
};

TEST_F(Jp2EndToEnd, OurCodestreamReadByOpjDump) {
#ifndef J2K_CLI_PATH
  GTEST_SKIP() << "built without the tools (J2K_BUILD_TOOLS=OFF): no CLI to write a codestream";
#else
  if (!have("opj_dump")) GTEST_SKIP() << "opj_dump (OpenJPEG's tools, libopenjp2-tools) is not on PATH";
  for (const Image& image : kImages) {
    SCOPED_TRACE(std::to_string(image.ncomp) + " components of " + std::to_string(image.precision) + " bits");
    const std::string j2k = path("ours.j2k");
    const auto r = run_command(quote(J2K_CLI_PATH) + " compress -i " + quote(write_pnm(image)) + " -o " + quote(j2k) +
                               " -n 2 --force --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_NO_FATAL_FAILURE(check_with_opj_dump(j2k, image));
  }
#endif
}

TEST_F(Jp2EndToEnd, OpenJpegsCodestreamReadByOpjDump) {
  for (const char* tool : {"opj_dump", "opj_compress"})
    if (!have(tool)) GTEST_SKIP() << tool << " (OpenJPEG's tools, libopenjp2-tools) is not on PATH";
  for (const Image& image : kImages) {
    SCOPED_TRACE(std::to_string(image.ncomp) + " components of " + std::to_string(image.precision) + " bits");
    const std::string j2k = path("openjpeg_" + std::to_string(image.ncomp) + "x" + std::to_string(image.precision) + ".j2k");
    const auto r = run_command("opj_compress -i " + quote(write_pnm(image)) + " -o " + quote(j2k) + " -n 2");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    ASSERT_NO_FATAL_FAILURE(check_with_opj_dump(j2k, image));
  }
}

}  // namespace
