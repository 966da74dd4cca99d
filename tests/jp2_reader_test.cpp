// SPDX-License-Identifier: BSD-2-Clause
// The JP2 reader (codec/codestream/jp2_reader): our writer's files and opj_compress's read back;
// a file built here box by box with a palette, component mapping, channel definitions, an ICC
// profile, a resolution box and a 64-bit box length; cut or flipped files are errors, never
// crashes (CI runs this under ASan/UBSan).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "codec/codestream/codestream_reader.hpp"
#include "codec/codestream/jp2_reader.hpp"
#include "codec/codestream/jp2_writer.hpp"
#include "common/error.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

namespace {

using namespace j2k::codec;

void put(std::vector<uint8_t>& o, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) o.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_type(std::vector<uint8_t>& o, const char* t) { o.insert(o.end(), t, t + 4); }
std::vector<uint8_t> box(const char* type, const std::vector<uint8_t>& contents) {
  std::vector<uint8_t> b;
  put(b, 8 + contents.size(), 4);
  put_type(b, type);
  b.insert(b.end(), contents.begin(), contents.end());
  return b;
}
void append(std::vector<uint8_t>& o, const std::vector<uint8_t>& b) { o.insert(o.end(), b.begin(), b.end()); }

// Any small codestream: a JP2 reader only carries it.
const std::vector<uint8_t> kCodestream = {0xFF, 0x4F, 0xFF, 0x51, 0, 0, 1, 2, 3, 0xFF, 0xD9};

TEST(Jp2Reader, OurFilesReadBack) {
  for (const auto& [components, colour, enum_cs] : std::vector<std::tuple<std::vector<Jp2Component>, Jp2Colour, int>>{
           {{{8, false}, {8, false}, {8, false}}, Jp2Colour::Srgb, 16},
           {{{12, false}}, Jp2Colour::Greyscale, 17},
           {{{8, false}, {5, true}, {16, false}, {1, false}}, Jp2Colour::Sycc, 18}}) {
    Jp2Info info;
    info.width = 83, info.height = 61;
    info.components = components;
    info.colour = colour;
    const std::vector<uint8_t> file = write_jp2(info, kCodestream);
    ASSERT_TRUE(is_jp2(file.data(), file.size()));
    const Jp2File f = read_jp2(file.data(), file.size());
    EXPECT_EQ(f.width, 83u);
    EXPECT_EQ(f.height, 61u);
    ASSERT_EQ(f.components.size(), components.size());
    for (size_t c = 0; c < components.size(); ++c) {
      EXPECT_EQ(f.components[c].precision, components[c].precision);
      EXPECT_EQ(f.components[c].is_signed, components[c].is_signed);
    }
    EXPECT_EQ(f.enum_cs, enum_cs);
    EXPECT_TRUE(f.icc.empty());
    EXPECT_TRUE(f.palette.columns.empty());
    EXPECT_EQ(std::vector<uint8_t>(file.begin() + static_cast<ptrdiff_t>(f.codestream),
                                   file.begin() + static_cast<ptrdiff_t>(f.codestream + f.codestream_length)),
              kCodestream);
    // Every cut is an error (the boxes say their lengths); flips are errors or files.
    for (size_t n = 0; n < file.size(); ++n) EXPECT_THROW(read_jp2(file.data(), n), j2k::Error) << "cut at " << n;
    std::mt19937 rng(1);
    for (int trial = 0; trial < 2000; ++trial) {
      std::vector<uint8_t> b = file;
      b[rng() % b.size()] = static_cast<uint8_t>(rng());
      try {
        read_jp2(b.data(), b.size());
      } catch (const j2k::Error& e) {
        EXPECT_TRUE(e.code() == j2k::ErrorCode::CorruptInput || e.code() == j2k::ErrorCode::UnsupportedInput) << e.what();
      }
    }
  }
}

// Palette (pclr), component mapping (cmap), channels (cdef), an ICC profile after an unknown
// colour method, a resolution box, and the codestream in a box with a 64-bit length.
TEST(Jp2Reader, PaletteMappingChannelsIccAndLongBoxes) {
  std::vector<uint8_t> file = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
  std::vector<uint8_t> ftyp;
  put_type(ftyp, "jpx ");
  put(ftyp, 0, 4);
  put_type(ftyp, "jpx ");
  put_type(ftyp, "jp2 ");
  append(file, box("ftyp", ftyp));
  std::vector<uint8_t> header;
  std::vector<uint8_t> ihdr;
  put(ihdr, 20, 4), put(ihdr, 30, 4), put(ihdr, 2, 2), put(ihdr, 255, 1), put(ihdr, 7, 1), put(ihdr, 0, 1), put(ihdr, 0, 1);
  append(header, box("ihdr", ihdr));
  append(header, box("bpcc", {7, 0x80 | 9}));  // 8-bit unsigned, 10-bit signed
  append(header, box("colr", {3, 0, 0, 1, 2, 3}));  // method 3: not Part 1, skipped
  append(header, box("colr", {2, 0, 0, 'I', 'C', 'C'}));
  std::vector<uint8_t> pclr;
  put(pclr, 3, 2), put(pclr, 2, 1), put(pclr, 7, 1), put(pclr, 0x80 | 11, 1);  // 8-bit, 12-bit signed
  for (auto [a, b] : {std::pair{10, -5}, {200, 2047}, {255, -2048}}) put(pclr, static_cast<uint64_t>(a), 1), put(pclr, static_cast<uint64_t>(b) & 0xFFFF, 2);
  append(header, box("pclr", pclr));
  append(header, box("cmap", {0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0}));  // palette column 1, column 0; component 1 direct
  std::vector<uint8_t> cdef;
  put(cdef, 2, 2), put(cdef, 0, 2), put(cdef, 0, 2), put(cdef, 1, 2), put(cdef, 1, 2), put(cdef, 1, 2), put(cdef, 0, 2);
  append(header, box("cdef", cdef));
  append(header, box("res ", box("resc", {0, 1, 0, 1, 0, 1, 0, 1, 0, 0})));
  append(file, box("jp2h", header));
  append(file, box("xml ", {'<', 'a', '/', '>'}));
  put(file, 1, 4);
  put_type(file, "jp2c");
  put(file, 16 + kCodestream.size(), 8);
  append(file, kCodestream);

  const Jp2File f = read_jp2(file.data(), file.size());
  EXPECT_EQ(f.width, 30u);
  EXPECT_EQ(f.height, 20u);
  ASSERT_EQ(f.components.size(), 2u);
  EXPECT_EQ(f.components[0].precision, 8);
  EXPECT_FALSE(f.components[0].is_signed);
  EXPECT_EQ(f.components[1].precision, 10);
  EXPECT_TRUE(f.components[1].is_signed);
  EXPECT_EQ(f.enum_cs, 0);
  EXPECT_EQ(f.icc, (std::vector<uint8_t>{'I', 'C', 'C'}));
  ASSERT_EQ(f.palette.columns.size(), 2u);
  EXPECT_EQ(f.palette.columns[1].precision, 12);
  EXPECT_TRUE(f.palette.columns[1].is_signed);
  EXPECT_EQ(f.palette.entries, (std::vector<std::vector<int32_t>>{{10, -5}, {200, 2047}, {255, -2048}}));
  ASSERT_EQ(f.mapping.size(), 3u);
  EXPECT_TRUE(f.mapping[0].palette);
  EXPECT_EQ(f.mapping[0].column, 1);
  EXPECT_EQ(f.mapping[1].column, 0);
  EXPECT_FALSE(f.mapping[2].palette);
  EXPECT_EQ(f.mapping[2].component, 1);
  ASSERT_EQ(f.channels.size(), 2u);
  EXPECT_EQ(f.channels[1].type, 1);
  EXPECT_EQ(f.channels[1].association, 0);
  EXPECT_EQ(f.codestream_length, kCodestream.size());
  EXPECT_EQ(file[f.codestream], 0xFF);
  EXPECT_EQ(file[f.codestream + 1], 0x4F);
  EXPECT_DOUBLE_EQ(f.capture.x, 1.0);  // resc: 1/1 x 10^0 both ways
  EXPECT_DOUBLE_EQ(f.capture.y, 1.0);
  EXPECT_FALSE(f.display.given());
  ASSERT_EQ(f.boxes.size(), 1u);
  EXPECT_EQ(f.boxes[0].type, jp2_fourcc("xml "));
  EXPECT_EQ(f.boxes[0].length, 4u);
  EXPECT_EQ(file[f.boxes[0].contents], '<');
  EXPECT_TRUE(f.warnings.empty());

  // Not JP2-compatible, a mapping to a missing component, a box longer than the file.
  std::vector<uint8_t> jpx = file;
  jpx[12 + 8 + 12 + 3] = 'x';  // the second compatibility entry 'jp2 ' -> 'jp2x'
  try {
    read_jp2(jpx.data(), jpx.size());
    ADD_FAILURE() << "a file without 'jp2 ' compatibility was read";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::UnsupportedInput) << e.what();
  }
  EXPECT_THROW(read_jp2(file.data(), file.size() - 1), j2k::Error);
}

// What our writer puts beside the image reads back: the ICC profile, the capture resolution
// (resc), the carried boxes in order, where they are in the file.
TEST(Jp2Reader, MetadataReadsBack) {
  Jp2Info info;
  info.width = 9, info.height = 7;
  info.components = {{8, false}, {8, false}, {8, false}};
  info.icc.assign(160, 0);
  info.icc[3] = 160;
  for (size_t i = 0; i < 4; ++i) info.icc[16 + i] = static_cast<uint8_t>("RGB "[i]), info.icc[36 + i] = static_cast<uint8_t>("acsp"[i]);
  info.capture = {11811, 300 / 0.0254};
  std::vector<uint8_t> uuid(kGeoJp2Uuid, kGeoJp2Uuid + 16);
  uuid.insert(uuid.end(), {'I', 'I', 42, 0});
  info.boxes = {{jp2_fourcc("uuid"), uuid}, {jp2_fourcc("xml "), {'<', 'b', '/', '>'}}};
  const std::vector<uint8_t> file = write_jp2(info, kCodestream);
  const Jp2File f = read_jp2(file.data(), file.size());
  EXPECT_EQ(f.enum_cs, 0);
  EXPECT_EQ(f.icc, info.icc);
  EXPECT_DOUBLE_EQ(f.capture.x, 11811);
  EXPECT_NEAR(f.capture.y * 0.0254, 300, 1e-9);
  ASSERT_EQ(f.boxes.size(), 2u);
  EXPECT_EQ(f.boxes[0].type, jp2_fourcc("uuid"));
  EXPECT_EQ(std::vector<uint8_t>(file.begin() + static_cast<ptrdiff_t>(f.boxes[0].contents),
                                 file.begin() + static_cast<ptrdiff_t>(f.boxes[0].contents + f.boxes[0].length)),
            uuid);
  EXPECT_EQ(jp2_uuid_name(file.data() + f.boxes[0].contents, f.boxes[0].length), "GeoJP2");
  EXPECT_EQ(f.boxes[1].type, jp2_fourcc("xml "));
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_EQ(jp2_uuid_name(kXmpUuid, 16), "XMP");
  EXPECT_EQ(jp2_uuid_name(kExifUuid, 16), "EXIF");
  const uint8_t other[16] = {0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0, 1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(jp2_uuid_name(other, 16), "12345678-9ABC-DEF0-0102-030405060708");
  EXPECT_EQ(jp2_uuid_name(other, 15), "");
}

// A Resolution box or a UUID box that is malformed is skipped with a warning naming it: the
// image does not need it. A UUID box shorter than its UUID; a resc of 9 bytes; a resd with a
// zero; a res whose inner box runs past it.
TEST(Jp2Reader, MalformedMetadataBoxesAreSkippedWithWarnings) {
  for (const auto& [res, uuid, said] : std::vector<std::tuple<std::vector<uint8_t>, std::vector<uint8_t>, std::string>>{
           {box("resc", {0, 1, 0, 1, 0, 1, 0, 1, 0}), {}, "the 'resc' box has 9 bytes (10); it is skipped"},
           {box("resd", {0, 0, 0, 1, 0, 1, 0, 1, 0, 0}), {}, "the 'resd' box says 1/1 by 0/1 (no zero allowed)"},
           {{0, 0, 0, 40, 'r', 'e', 's', 'c', 1, 2}, {}, "inside the Resolution box, which is skipped"},
           {{}, std::vector<uint8_t>(15, 7), "a UUID box of 15 bytes (fewer than its 16-byte UUID) is skipped"}}) {
    SCOPED_TRACE(said);
    Jp2Info info;
    info.width = 4, info.height = 4;
    info.components = {{8, false}};
    const std::vector<uint8_t> plain = write_jp2(info, kCodestream);
    // The JP2 Header box (at byte 32) gets the res box at its end; the UUID box follows it.
    std::vector<uint8_t> file(plain.begin(), plain.begin() + 32);
    const size_t header_length = (size_t{plain[32]} << 24 | size_t{plain[33]} << 16 | size_t{plain[34]} << 8 | plain[35]);
    std::vector<uint8_t> header(plain.begin() + 40, plain.begin() + 32 + static_cast<ptrdiff_t>(header_length));
    if (!res.empty()) append(header, box("res ", res));
    append(file, box("jp2h", header));
    if (!uuid.empty()) append(file, box("uuid", uuid));
    file.insert(file.end(), plain.begin() + 32 + static_cast<ptrdiff_t>(header_length), plain.end());
    const Jp2File f = read_jp2(file.data(), file.size());
    ASSERT_EQ(f.warnings.size(), 1u);
    EXPECT_NE(f.warnings[0].find(said), std::string::npos) << f.warnings[0];
    EXPECT_FALSE(f.capture.given());
    EXPECT_FALSE(f.display.given());
    EXPECT_TRUE(f.boxes.empty());
    EXPECT_EQ(f.codestream_length, kCodestream.size());
  }
}

class Jp2ReaderFiles : public test_support::TempDirTest {};

TEST_F(Jp2ReaderFiles, OpenJpegsFilesRead) {
  if (!test_support::on_path("opj_compress")) GTEST_SKIP() << "opj_compress is not installed (Debian: libopenjp2-tools)";
  const std::string out = path("opj.jp2");
  const auto r = test_support::run_command("opj_compress -i " + test_support::quote(std::string(J2K_TEST_DATA_DIR) + "/coffee.ppm") +
                                           " -o " + test_support::quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<uint8_t> file = test_support::file_bytes(out);
  const Jp2File f = read_jp2(file.data(), file.size());
  ASSERT_EQ(f.components.size(), 3u);
  EXPECT_EQ(f.enum_cs, 16);
  const Codestream cs = read_codestream(file.data() + f.codestream, f.codestream_length);
  EXPECT_EQ(cs.info.x1 - cs.info.x0, f.width);
  EXPECT_EQ(cs.info.y1 - cs.info.y0, f.height);
  EXPECT_EQ(cs.info.components.size(), f.components.size());
}

}  // namespace
