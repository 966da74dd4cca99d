// SPDX-License-Identifier: BSD-2-Clause
// A TIFF's Exif directory and GeoTIFF tags through JP2 and back, with the CLI, read with libtiff:
// the inputs are made here with libtiff (an Exif directory written as libtiff's documentation
// shows, GeoTIFF's tags defined here as libgeotiff defines them), compressed to JP2 (the Exif
// and GeoJP2 UUID boxes), decompressed to TIFF, and the output's Exif directory and six GeoTIFF
// tags read back with libtiff (and Pillow, where a Python here has it) and compared with what
// the input holds. An Exif structure with entries libtiff does not know or cannot read is
// written without them, naming them; hostile Exif structures and broken GeoJP2 boxes are
// warnings; a GeoJP2 box in a PNG output is said to be left out. Without libtiff one case
// skips, saying why.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/image_writers.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

#if J2K_TESTS_HAVE_TIFF
#include <tiffio.h>
#endif

namespace {

using Bytes = std::vector<uint8_t>;
using test_support::file_bytes;
using test_support::quote;
using test_support::run_command;

const std::string kCli = J2K_CLI_PATH;

class TiffMetadata : public test_support::TempDirTest {
 protected:
  void SetUp() override {
#if !J2K_TESTS_HAVE_TIFF
    GTEST_SKIP() << "this build has no TIFF support (libtiff not found; Debian: libtiff-dev)";
#endif
    TempDirTest::SetUp();
  }
  test_support::CommandResult cli(const std::string& args) { return run_command(quote(kCli) + " " + args); }
};

#if J2K_TESTS_HAVE_TIFF

// A Python with Pillow, an outside reader of TIFF tags, where this machine has one ("": none).
std::string pillow_python() {
  static const std::string found = [] {
    for (const char* py : {"python3", "/usr/bin/python3"})
      if (run_command(std::string(py) + " -c 'import PIL.TiffImagePlugin'").exit_code == 0) return std::string(py);
    return std::string();
  }();
  return found;
}

// Runs `script` (Python, with the TIFF's path as sys.argv[1]) where Pillow is there; it checks
// what Pillow reads with asserts.
void check_with_pillow(const std::string& tif, const std::string& script) {
  const std::string py = pillow_python();
  if (py.empty()) return;  // (libtiff's reading above is the check then)
  const auto r = run_command(py + " -c " + quote("import sys\nfrom PIL import Image\n" + script) + " " + quote(tif));
  EXPECT_EQ(r.exit_code, 0) << "Pillow reads " << tif << " otherwise:\n" << r.output;
}

// ---------------------------------------------------------------- Exif

struct ExifValues {
  std::string date_time_original;
  double exposure_time = 0, f_number = 0;
  std::vector<uint16_t> iso;
};

// An 8 x 6 RGB TIFF with an Exif directory of `v`, written the way libtiff's documentation of
// TIFFCreateEXIFDirectory shows: the image's directory, the Exif directory after it, then the
// image's directory again with the pointer.
void write_exif_tiff(const std::string& path, const ExifValues& v) {
  TIFF* t = TIFFOpen(path.c_str(), "w");
  ASSERT_NE(t, nullptr);
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 8);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, 6);
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 3);
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 6);
  TIFFSetField(t, TIFFTAG_EXIFIFD, uint64_t{0});  // set below, once the Exif directory is written
  uint8_t row[8 * 3];
  for (uint32_t y = 0; y < 6; ++y) {
    for (uint32_t i = 0; i < sizeof row; ++i) row[i] = static_cast<uint8_t>(y * 31 + i * 7);
    ASSERT_EQ(TIFFWriteScanline(t, row, y, 0), 1);
  }
  ASSERT_EQ(TIFFWriteDirectory(t), 1);
  ASSERT_EQ(TIFFCreateEXIFDirectory(t), 0);
  TIFFSetField(t, EXIFTAG_DATETIMEORIGINAL, v.date_time_original.c_str());
  TIFFSetField(t, EXIFTAG_EXPOSURETIME, v.exposure_time);
  TIFFSetField(t, EXIFTAG_FNUMBER, v.f_number);
  TIFFSetField(t, EXIFTAG_ISOSPEEDRATINGS, static_cast<int>(v.iso.size()), v.iso.data());
  uint64_t exif_offset = 0;
  ASSERT_EQ(TIFFWriteCustomDirectory(t, &exif_offset), 1);
  ASSERT_EQ(TIFFSetDirectory(t, 0), 1);
  TIFFSetField(t, TIFFTAG_EXIFIFD, exif_offset);
  ASSERT_EQ(TIFFRewriteDirectory(t), 1);
  TIFFClose(t);
}

// A rational Exif field's value (0: not there): libtiff gives it as the float or the double it
// holds it as, whichever its field table says.
double rational(TIFF* t, uint32_t tag) {
  const TIFFField* f = TIFFFindField(t, tag, TIFF_ANY);
  if (f == nullptr) return 0;
  if (TIFFFieldSetGetSize(f) == 8) {
    double v = 0;
    return TIFFGetField(t, tag, &v) ? v : 0;
  }
  float v = 0;
  return TIFFGetField(t, tag, &v) ? v : 0;
}

// The Exif directory of the TIFF at `path`, read with libtiff; `found` says whether it has one.
ExifValues read_exif_tiff(const std::string& path, bool& found) {
  ExifValues v;
  found = false;
  TIFF* t = TIFFOpen(path.c_str(), "r");
  if (t == nullptr) return v;
  uint64_t offset = 0;
  if (TIFFGetField(t, TIFFTAG_EXIFIFD, &offset) && offset != 0 && TIFFReadEXIFDirectory(t, offset)) {
    found = true;
    const char* text = nullptr;
    if (TIFFGetField(t, EXIFTAG_DATETIMEORIGINAL, &text) && text) v.date_time_original = text;
    v.exposure_time = rational(t, EXIFTAG_EXPOSURETIME);
    v.f_number = rational(t, EXIFTAG_FNUMBER);
    uint16_t count = 0;
    const uint16_t* iso = nullptr;
    if (TIFFGetField(t, EXIFTAG_ISOSPEEDRATINGS, &count, &iso) && iso) v.iso.assign(iso, iso + count);
  }
  TIFFClose(t);
  return v;
}

TEST_F(TiffMetadata, ExifDirectoryComesBackIntoTiff) {
  const ExifValues exif{"2025:01:02 03:04:05", 1.0 / 250, 2.8, {200}};
  const std::string in = path("in.tif"), jp2 = path("out.jp2"), tif = path("back.tif");
  ASSERT_NO_FATAL_FAILURE(write_exif_tiff(in, exif));
  bool found = false;
  const ExifValues input = read_exif_tiff(in, found);
  ASSERT_TRUE(found) << "the input has its Exif directory";
  ASSERT_EQ(input.date_time_original, exif.date_time_original);

  auto r = cli("compress -i " + quote(in) + " -o " + quote(jp2));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  r = cli("info " + quote(jp2));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("EXIF"), std::string::npos) << r.output;
  r = cli("decompress -i " + quote(jp2) + " -o " + quote(tif));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;

  const ExifValues back = read_exif_tiff(tif, found);
  ASSERT_TRUE(found) << "the output's directory points at an Exif directory (tag 34665)";
  EXPECT_EQ(back.date_time_original, input.date_time_original);
  // Rationals: as libtiff holds them (a float for these), written as a fraction of its own.
  EXPECT_GT(input.exposure_time, 0);
  EXPECT_NEAR(back.exposure_time / input.exposure_time, 1.0, 1e-7);
  EXPECT_NEAR(back.exposure_time, 1.0 / 250, 1e-9);
  EXPECT_NEAR(back.f_number / input.f_number, 1.0, 1e-7);
  EXPECT_NEAR(back.f_number, 2.8, 1e-6);
  EXPECT_EQ(back.iso, input.iso);
  // Pillow sees the same Exif directory.
  check_with_pillow(tif,
                    "e = Image.open(sys.argv[1]).getexif().get_ifd(0x8769)\n"
                    "assert e[36867] == '2025:01:02 03:04:05', e\n"
                    "assert abs(float(e[33434]) - 1 / 250) < 1e-9, e\n"
                    "assert abs(float(e[33437]) - 2.8) < 1e-6, e\n"
                    "assert e[34855] == 200, e\n");
  // The image itself is still the first directory's, and reads.
  TIFF* t = TIFFOpen(tif.c_str(), "r");
  ASSERT_NE(t, nullptr);
  uint32_t w = 0, h = 0;
  TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
  EXPECT_EQ(w, 8u);
  EXPECT_EQ(h, 6u);
  uint8_t row[8 * 3], expected[8 * 3];
  for (uint32_t y = 0; y < 6; ++y) {
    ASSERT_EQ(TIFFReadScanline(t, row, y, 0), 1);
    for (uint32_t i = 0; i < sizeof row; ++i) expected[i] = static_cast<uint8_t>(y * 31 + i * 7);
    EXPECT_EQ(std::memcmp(row, expected, sizeof row), 0) << "row " << y;
  }
  TIFFClose(t);
}

// ---- Exif structures made byte by byte, into a JP2 file through the library

void put_le(Bytes& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// A little-endian Exif structure: a header, a first directory with the Exif pointer alone, the
// Exif directory at 26 with `entries` (tag, type, count, 4-byte value or offset), then `tail`
// (values the entries point at, from byte 26 + 2 + 12 n + 4).
Bytes exif_structure(const std::vector<std::array<uint32_t, 4>>& entries, const Bytes& tail) {
  Bytes b = {'I', 'I', 42, 0, 8, 0, 0, 0};
  put_le(b, 1, 2);
  put_le(b, 34665, 2), put_le(b, 4, 2), put_le(b, 1, 4), put_le(b, 26, 4);
  put_le(b, 0, 4);
  put_le(b, entries.size(), 2);
  for (const auto& e : entries) put_le(b, e[0], 2), put_le(b, e[1], 2), put_le(b, e[2], 4), put_le(b, e[3], 4);
  put_le(b, 0, 4);
  b.insert(b.end(), tail.begin(), tail.end());
  return b;
}

// A 16 x 16 grey JP2 file with a UUID box of `uuid` around `payload`.
Bytes jp2_with_uuid_box(const char* uuid, const Bytes& payload) {
  j2kfront::Image image;
  image.width = 16, image.height = 16;
  auto& c = image.add_component(J2K_SAMPLE_U8, 8, 1, 1);
  for (int64_t y = 0; y < 16; ++y)
    for (int64_t x = 0; x < 16; ++x) c.row<uint8_t>(y)[x] = static_cast<uint8_t>(x * 16 + y);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 2;
  j2kfront::Coding coding;
  coding.format = J2K_FORMAT_JP2;
  coding.boxes.push_back(j2kfront::uuid_box(uuid, payload));
  j2kfront::Encoder encoder(s, coding, image.view());
  return encoder.encode(image.view());
}
Bytes jp2_with_exif(const Bytes& exif) { return jp2_with_uuid_box(J2K_UUID_EXIF, exif); }

// The contents after the UUID of `file`'s first top-level UUID box of `uuid` (empty: none).
Bytes uuid_box_payload(const Bytes& file, const char* uuid) {
  for (size_t at = 0; at + 8 <= file.size();) {
    const size_t length = size_t{file[at]} << 24 | size_t{file[at + 1]} << 16 | size_t{file[at + 2]} << 8 | file[at + 3];
    if (length < 8 || length > file.size() - at) break;
    if (std::memcmp(file.data() + at + 4, "uuid", 4) == 0 && length >= 24 && std::memcmp(file.data() + at + 8, uuid, 16) == 0)
      return Bytes(file.begin() + static_cast<ptrdiff_t>(at + 24), file.begin() + static_cast<ptrdiff_t>(at + length));
    at += length;
  }
  return {};
}

void write_bytes(const std::string& path, const Bytes& b) {
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(b.data(), 1, b.size(), f), b.size());
  std::fclose(f);
}

// Entries libtiff's Exif table does not know (a private 0xC000) or cannot read (an
// ExposureTime whose value lies outside the structure) are named in one warning; the others
// (DateTimeOriginal, ISOSpeedRatings) are written.
TEST_F(TiffMetadata, UnknownAndMalformedExifEntriesAreNamedAndLeftOut) {
  // Values from byte 26 + 2 + 4 * 12 + 4 = 80: DateTimeOriginal's 20 characters.
  const std::string date = "2024:12:31 23:59:58";
  Bytes tail(date.begin(), date.end());
  tail.push_back(0);
  const Bytes exif = exif_structure({{33434, 5, 1, 100000},  // ExposureTime: RATIONAL far outside
                                     {34855, 3, 1, 800},     // ISOSpeedRatings: SHORT 800
                                     {36867, 2, 20, 80},     // DateTimeOriginal
                                     {0xC000, 4, 1, 7}},     // unknown
                                    tail);
  const std::string jp2 = path("exif.jp2"), tif = path("exif.tif");
  ASSERT_NO_FATAL_FAILURE(write_bytes(jp2, jp2_with_exif(exif)));
  const auto r = cli("decompress -i " + quote(jp2) + " -o " + quote(tif));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("0xC000"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0x829A (ExposureTime)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("0x8827"), std::string::npos) << r.output;  // ISOSpeedRatings went across
  size_t warnings = 0;
  for (size_t at = r.output.find("warning"); at != std::string::npos; at = r.output.find("warning", at + 1)) ++warnings;
  EXPECT_EQ(warnings, 1u) << r.output;
  bool found = false;
  const ExifValues back = read_exif_tiff(tif, found);
  ASSERT_TRUE(found);
  EXPECT_EQ(back.date_time_original, date);
  EXPECT_EQ(back.iso, std::vector<uint16_t>{800});
  EXPECT_EQ(back.exposure_time, 0);
}

// Hostile Exif structures never stop the image: each is a warning, and the TIFF is written
// without an Exif directory.
TEST_F(TiffMetadata, HostileExifStructuresAreWarnedAndLeftOut) {
  Bytes many = exif_structure({}, {});
  many[26] = 0xFF, many[27] = 0xFF;  // 65535 entries, none there
  Bytes loop = exif_structure({{34665, 4, 1, 26}}, {});  // the Exif directory pointing at itself
  Bytes cut = exif_structure({{36867, 2, 0xFFFFFFF0u, 80}}, {});  // a string of 4 GiB
  const std::vector<std::pair<Bytes, std::string>> cases = {
      {{'I', 'I', 43, 0, 8, 0, 0, 0}, "BigTIFF"},
      {{'X', 'X', 42, 0}, "does not start with a TIFF header"},
      {{'I', 'I', 42, 0, 200, 0, 0, 0}, "first directory lies outside"},
      {{'I', 'I', 42, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "no Exif pointer"},
      {many, "the Exif is not written"},
      {loop, "the Exif is not written"},
      {cut, "the Exif is not written"},
  };
  int k = 0;
  for (const auto& [exif, said] : cases) {
    SCOPED_TRACE(said);
    const std::string jp2 = path("h" + std::to_string(k) + ".jp2"), tif = path("h" + std::to_string(k) + ".tif");
    ++k;
    ASSERT_NO_FATAL_FAILURE(write_bytes(jp2, jp2_with_exif(exif)));
    const auto r = cli("decompress -i " + quote(jp2) + " -o " + quote(tif));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(said), std::string::npos) << r.output;
    bool found = false;
    read_exif_tiff(tif, found);
    EXPECT_FALSE(found);
    TIFF* t = TIFFOpen(tif.c_str(), "r");
    ASSERT_NE(t, nullptr) << "the image is written";
    TIFFClose(t);
  }
}

// ---------------------------------------------------------------- GeoTIFF

constexpr uint32_t kPixelScale = 33550, kTiepoint = 33922, kTransformation = 34264, kKeyDirectory = 34735,
                   kDoubleParams = 34736, kAsciiParams = 34737;

// GeoTIFF's tags as libgeotiff defines them for libtiff (counts of 16 bits), this test's own.
const TIFFFieldInfo kGeoFields[] = {
    {kPixelScale, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, const_cast<char*>("GeoPixelScale")},
    {kTiepoint, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, const_cast<char*>("GeoTiePoints")},
    {kTransformation, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, const_cast<char*>("GeoTransformationMatrix")},
    {kKeyDirectory, -1, -1, TIFF_SHORT, FIELD_CUSTOM, 1, 1, const_cast<char*>("GeoKeyDirectory")},
    {kDoubleParams, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, const_cast<char*>("GeoDoubleParams")},
    {kAsciiParams, -1, -1, TIFF_ASCII, FIELD_CUSTOM, 1, 0, const_cast<char*>("GeoASCIIParams")},
};
TIFFExtendProc g_previous = nullptr;
void extend(TIFF* t) {
  TIFFMergeFieldInfo(t, kGeoFields, 6);
  if (g_previous) g_previous(t);
}
void define_geotiff_tags() {
  static const bool once = [] {
    g_previous = TIFFSetTagExtender(extend);
    return true;
  }();
  (void)once;
}

struct Geo {
  std::vector<double> scale, tiepoints, matrix, doubles;
  std::vector<uint16_t> keys;
  std::string ascii;
  bool operator==(const Geo& o) const {
    return scale == o.scale && tiepoints == o.tiepoints && matrix == o.matrix && doubles == o.doubles && keys == o.keys &&
           ascii == o.ascii;
  }
};

template <class T>
std::vector<T> values_of(TIFF* t, uint32_t tag) {
  uint16_t count = 0;
  const T* values = nullptr;
  if (!TIFFGetField(t, tag, &count, &values) || values == nullptr) return {};
  return std::vector<T>(values, values + count);
}

Geo read_geo(TIFF* t) {
  Geo g;
  g.scale = values_of<double>(t, kPixelScale);
  g.tiepoints = values_of<double>(t, kTiepoint);
  g.matrix = values_of<double>(t, kTransformation);
  g.doubles = values_of<double>(t, kDoubleParams);
  g.keys = values_of<uint16_t>(t, kKeyDirectory);
  const char* text = nullptr;
  if (TIFFGetField(t, kAsciiParams, &text) && text) g.ascii = text;
  return g;
}
Geo read_geo(const std::string& path) {
  define_geotiff_tags();
  TIFF* t = TIFFOpen(path.c_str(), "r");
  if (t == nullptr) return {};
  Geo g = read_geo(t);
  TIFFClose(t);
  return g;
}

void write_geotiff(const std::string& path, const Geo& g) {
  define_geotiff_tags();
  TIFF* t = TIFFOpen(path.c_str(), "w");
  ASSERT_NE(t, nullptr);
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 10);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, 7);
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 16);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 7);
  auto set = [&](uint32_t tag, const auto& v) {
    if (!v.empty()) TIFFSetField(t, tag, static_cast<int>(v.size()), v.data());
  };
  set(kPixelScale, g.scale);
  set(kTiepoint, g.tiepoints);
  set(kTransformation, g.matrix);
  set(kKeyDirectory, g.keys);
  set(kDoubleParams, g.doubles);
  if (!g.ascii.empty()) TIFFSetField(t, kAsciiParams, g.ascii.c_str());
  uint16_t row[10];
  for (uint32_t y = 0; y < 7; ++y) {
    for (uint32_t x = 0; x < 10; ++x) row[x] = static_cast<uint16_t>(1000 * y + 37 * x);
    ASSERT_EQ(TIFFWriteScanline(t, row, y, 0), 1);
  }
  TIFFClose(t);
}

// UTM zone 11N on NAD27 by EPSG code, a citation in GeoAsciiParams and a semi-major axis in
// GeoDoubleParams: a tiepoint and a pixel scale; then the same by a transformation matrix.
std::vector<Geo> geotiff_cases() {
  Geo a;
  a.tiepoints = {0, 0, 0, 440720.0, 3751320.0, 0};
  a.scale = {60.0, 60.0, 0};
  // Version 1.1.0, 4 keys: GTModelType 1 (projected), GTRasterType 1 (pixel is area),
  // ProjectedCSType 26711, PCSCitation (GeoAscii, 22 characters at 0), GeogSemiMajorAxis (a double).
  a.keys = {1, 1, 0, 5, 1024, 0, 1, 1, 1025, 0, 1, 1, 2057, kDoubleParams, 1, 0, 3072, 0, 1, 26711, 3073, kAsciiParams, 22, 0};
  a.doubles = {6378206.4};
  a.ascii = "UTM Zone 11 N, NAD27 |";
  Geo b;
  b.matrix = {0.5, 0, 0, 1000.25, 0, -0.5, 0, 2000.75, 0, 0, 0, 0, 0, 0, 0, 1};
  b.keys = {1, 1, 0, 1, 1024, 0, 1, 2};  // geographic
  return {a, b};
}

TEST_F(TiffMetadata, GeoTiffTagsComeBackThroughGeoJp2) {
  int k = 0;
  for (const Geo& geo : geotiff_cases()) {
    SCOPED_TRACE("case " + std::to_string(k));
    const std::string in = path("geo" + std::to_string(k) + ".tif"), jp2 = path("geo" + std::to_string(k) + ".jp2"),
                      tif = path("back" + std::to_string(k) + ".tif"), png = path("back" + std::to_string(k) + ".png");
    ++k;
    ASSERT_NO_FATAL_FAILURE(write_geotiff(in, geo));
    ASSERT_TRUE(read_geo(in) == geo) << "the input holds the tags";
    auto r = cli("compress -i " + quote(in) + " -o " + quote(jp2));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;

    r = cli("info --json " + quote(jp2));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json j = nlohmann::json::parse(r.output);
    ASSERT_EQ(j["boxes"].size(), 1u) << r.output;
    EXPECT_EQ(j["boxes"][0]["uuid"], "GeoJP2");

    // The box's GeoTIFF itself: one pixel, the same tags (libtiff reads it as a file).
    const Bytes file = file_bytes(jp2);
    const std::string box_tif = path("box.tif");
    const Bytes payload = uuid_box_payload(file, J2K_UUID_GEOJP2);
    ASSERT_FALSE(payload.empty()) << "a GeoJP2 UUID box";
    ASSERT_NO_FATAL_FAILURE(write_bytes(box_tif, payload));
    EXPECT_TRUE(read_geo(box_tif) == geo);
    TIFF* t = TIFFOpen(box_tif.c_str(), "r");
    ASSERT_NE(t, nullptr);
    uint32_t w = 0, h = 0;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
    EXPECT_EQ(w, 1u);
    EXPECT_EQ(h, 1u);
    uint8_t pixel[8] = {};
    EXPECT_EQ(TIFFReadScanline(t, pixel, 0, 0), 1) << "its pixel reads";
    TIFFClose(t);

    r = cli("decompress -i " + quote(jp2) + " -o " + quote(tif));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
    EXPECT_TRUE(read_geo(tif) == geo) << "the six tags as the input has them";
    // And Pillow reads the same tags (a one-value tag as a number, not a tuple).
    std::string script = "t = Image.open(sys.argv[1]).tag_v2\n"
                         "def values(tag):\n"
                         "    v = t.get(tag, ())\n"
                         "    return v if isinstance(v, tuple) else (v,)\n";
    const auto expect = [&](uint32_t tag, const auto& values) {
      std::string list = "(";
      for (const auto v : values) list += std::to_string(v) + ",";
      script += "assert all(abs(a - b) <= 1e-6 * max(1, abs(b)) for a, b in zip(values(" + std::to_string(tag) + "), " + list +
                "))) and len(values(" + std::to_string(tag) + ")) == " + std::to_string(values.size()) + ", values(" +
                std::to_string(tag) + ")\n";
    };
    expect(kPixelScale, geo.scale);
    expect(kTiepoint, geo.tiepoints);
    expect(kTransformation, geo.matrix);
    expect(kKeyDirectory, geo.keys);
    expect(kDoubleParams, geo.doubles);
    script += "assert t.get(34737, '') == " + quote(geo.ascii) + ", t.get(34737)\n";
    check_with_pillow(tif, script);

    r = cli("decompress -i " + quote(jp2) + " -o " + quote(png));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("its georeferencing (GeoJP2) is not written"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("warning"), r.output.rfind("warning")) << "one warning: " << r.output;

    if (test_support::on_path("gdalinfo")) {  // an outside reader, where installed
      r = run_command("gdalinfo " + quote(jp2));
      EXPECT_NE(r.output.find("Origin"), std::string::npos) << r.output;
    }
  }
}

// A GeoJP2 box whose GeoTIFF libtiff cannot read, or which holds none of GeoTIFF's tags, is a
// warning; the TIFF is written without georeferencing.
TEST_F(TiffMetadata, BrokenGeoJp2BoxIsWarnedAndLeftOut) {
  const Bytes plain_tiff = {'I', 'I', 42, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0};  // an empty directory
  for (const auto& [payload, said] : std::vector<std::pair<Bytes, std::string>>{
           {{'n', 'o', 't', ' ', 'a', ' ', 't', 'i', 'f', 'f'}, "libtiff cannot read the GeoTIFF inside it"},
           {{'I', 'I', 42, 0, 0xF0, 0xFF, 0xFF, 0x7F}, "libtiff cannot read the GeoTIFF inside it"},
           {plain_tiff, "the georeferencing (GeoJP2) is not written"}}) {
    SCOPED_TRACE(said);
    const std::string jp2 = path("g.jp2"), tif = path("g.tif");
    ASSERT_NO_FATAL_FAILURE(write_bytes(jp2, jp2_with_uuid_box(J2K_UUID_GEOJP2, payload)));
    const auto r = cli("decompress -i " + quote(jp2) + " -o " + quote(tif) + " --force");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("the georeferencing (GeoJP2) is not written"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(said), std::string::npos) << r.output;
    EXPECT_TRUE(read_geo(tif) == Geo{});
  }
}

// GeoTIFF tags whose counts are not GeoTIFF's (2 pixel scales; a key directory whose header
// counts 3 keys and holds 1) are left out of the GeoJP2 box with a warning naming each; the
// tiepoint still goes across.
TEST_F(TiffMetadata, MalformedGeoTiffTagsAreWarnedAndLeftOut) {
  Geo geo;
  geo.tiepoints = {0, 0, 0, 10, 20, 0};
  geo.scale = {1, 2};
  geo.keys = {1, 1, 0, 3, 1024, 0, 1, 1};
  const std::string in = path("bad.tif"), jp2 = path("bad.jp2"), tif = path("bad_back.tif");
  ASSERT_NO_FATAL_FAILURE(write_geotiff(in, geo));
  auto r = cli("compress -i " + quote(in) + " -o " + quote(jp2));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("its ModelPixelScale tag holds 2 values, not what GeoTIFF says: it is not carried"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("its GeoKeyDirectory tag holds 8 values"), std::string::npos) << r.output;
  r = cli("decompress -i " + quote(jp2) + " -o " + quote(tif));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Geo kept;
  kept.tiepoints = geo.tiepoints;
  EXPECT_TRUE(read_geo(tif) == kept);
}

// Exif structures and GeoJP2 boxes with bytes changed or cut at random, written into a TIFF by
// the library's TIFF writer in this process (where a sanitizer build sees any bad access): the
// image is always written and reads back with libtiff, whatever metadata comes along.
TEST_F(TiffMetadata, MutatedExifAndGeoJp2NeverStopTheImage) {
  const std::string in = path("seed.tif"), jp2 = path("seed.jp2");
  ASSERT_NO_FATAL_FAILURE(write_geotiff(in, geotiff_cases()[0]));
  ASSERT_EQ(cli("compress -i " + quote(in) + " -o " + quote(jp2)).exit_code, 0);
  const Bytes geo_seed = uuid_box_payload(file_bytes(jp2), J2K_UUID_GEOJP2);
  const std::string date = "2024:12:31 23:59:58";
  Bytes tail(date.begin(), date.end());
  tail.push_back(0);
  tail.insert(tail.end(), {1, 0, 0, 0, 60, 0, 0, 0});  // a rational, 1/60, at 100
  const Bytes exif_seed = exif_structure({{33434, 5, 1, 100}, {34855, 3, 1, 800}, {36867, 2, 20, 80}, {0xC000, 4, 1, 7}}, tail);
  ASSERT_FALSE(geo_seed.empty());

  j2kfront::Image image;
  image.width = 3, image.height = 2;
  auto& c = image.add_component(J2K_SAMPLE_U8, 8, 1, 1);
  for (int64_t y = 0; y < 2; ++y)
    for (int64_t x = 0; x < 3; ++x) c.row<uint8_t>(y)[x] = static_cast<uint8_t>(40 * y + x);
  const j2k::io::ImageSamples samples = j2k::io::samples_of(image);
  std::mt19937 rng(44);
  const std::string out = path("mutated.tif");
  for (int round = 0; round < 400; ++round) {
    j2k::io::ImageMetadata m;
    m.exif = exif_seed, m.geotiff = geo_seed;
    for (Bytes* b : {&m.exif, &m.geotiff}) {
      for (int k = 1 + static_cast<int>(rng() % 6); k > 0; --k) (*b)[rng() % b->size()] = static_cast<uint8_t>(rng());
      if (rng() % 4 == 0) b->resize(rng() % b->size());
    }
    FILE* f = std::fopen(out.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    EXPECT_NO_THROW(j2k::io::write_tiff(f, out, samples, &m)) << "round " << round;
    std::fclose(f);
    TIFF* t = TIFFOpen(out.c_str(), "r");
    ASSERT_NE(t, nullptr) << "round " << round;
    uint8_t row[3] = {};
    EXPECT_EQ(TIFFReadScanline(t, row, 1, 0), 1) << "round " << round;
    EXPECT_EQ(row[2], 42) << "round " << round;
    TIFFClose(t);
  }
}

// A codestream output has no place for the georeferencing, and says so.
TEST_F(TiffMetadata, CodestreamOutputSaysItDropsTheGeoreferencing) {
  const std::string in = path("geo.tif"), j2k = path("geo.j2k");
  ASSERT_NO_FATAL_FAILURE(write_geotiff(in, geotiff_cases()[0]));
  const auto r = cli("compress -i " + quote(in) + " -o " + quote(j2k));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("its georeferencing (GeoTIFF tags) is not written: a bare codestream"), std::string::npos) << r.output;
}

#else

// Without libtiff the cases above are not built; this one says, through SetUp's skip, why.
TEST_F(TiffMetadata, NeedsLibtiff) {}

#endif  // J2K_TESTS_HAVE_TIFF

}  // namespace
