// SPDX-License-Identifier: BSD-2-Clause
// An image file's metadata through JP2 and back, with the CLI: a TIFF's ICC profile,
// resolution, XMP packet and Exif directory and a PNG's iCCP, pHYs, iTXt XMP and eXIf chunks go
// into a JP2 file (colr method 2, res/resc, the XMP and Exif UUID boxes) and come back out of
// `decompress` byte for byte; opj_dump sees the profile and opj_decompress decodes the files
// exactly; a bare codestream says what it drops; a GeoJP2 box built here survives `transcode`
// and shows in `info`; damaged metadata (a cut iCCP, a profile that declares more than it
// holds, a UUID box shorter than its UUID) gives a warning and never stops the image. The
// inputs are made here: TIFFs byte by byte (tags, an Exif directory), PNGs with libpng.
#include <gtest/gtest.h>
#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/image_io.hpp"
#include "tests/support/jp2_boxes.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

#if J2K_TESTS_HAVE_LCMS2
#include <lcms2.h>
#endif

namespace {

// Whether this build reads and writes TIFF (libtiff found at configure time).
constexpr bool kHaveTiff = J2K_TESTS_HAVE_TIFF != 0;

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;
using test_support::file_bytes;
using test_support::quote;
using test_support::run_command;

const std::string kCli = J2K_CLI_PATH;

const uint8_t kXmpUuid[16] = {0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC};
const uint8_t kExifUuid[16] = {'J', 'p', 'g', 'T', 'i', 'f', 'f', 'E', 'x', 'i', 'f', '-', '>', 'J', 'P', '2'};
const uint8_t kGeoJp2Uuid[16] = {0xB1, 0x4B, 0xF8, 0xBD, 0x08, 0x3D, 0x4B, 0x43, 0xA5, 0xAE, 0x8C, 0xD7, 0xD5, 0xA6, 0xCE, 0x03};

void write_file(const std::string& path, const Bytes& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void put_be(Bytes& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_le(Bytes& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
uint64_t get_be(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | p[i];
  return v;
}

// An ICC profile of ICC.1's header, no tags, and 96 bytes after the tag count that follow from
// `seed` (so that the bytes are this test's own, and do not compress to next to nothing: Debian's
// libpng 1.6.39 refuses an iCCP chunk of a few dozen bytes as "too short"): a 'mntr' profile of
// `space` ("RGB " or "GRAY") to XYZ, D50, 'acsp'. Little CMS opens it but makes no transform from
// it (it has no tags), so a decoder leaves the samples as they are. `declared`: the size its
// header says (0: its own, 228); `tail_bytes`: other than 96 bytes after the tag count.
Bytes tagless_profile(const char* space, const std::string& seed, uint32_t declared = 0, size_t tail_bytes = 96) {
  std::string tail;
  uint32_t x = 2166136261u;
  for (char c : seed) x = (x ^ static_cast<uint8_t>(c)) * 16777619u;
  for (size_t i = 0; i < tail_bytes; ++i) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    tail += static_cast<char>(x);
  }
  Bytes p(128, 0);
  const uint32_t size = static_cast<uint32_t>(132 + tail.size());
  const uint32_t said = declared ? declared : size;
  for (int i = 0; i < 4; ++i) p[static_cast<size_t>(i)] = static_cast<uint8_t>(said >> (24 - 8 * i));
  const uint8_t version[4] = {4, 0x30, 0, 0};
  std::memcpy(p.data() + 8, version, 4);
  std::memcpy(p.data() + 12, "mntr", 4);
  std::memcpy(p.data() + 16, space, 4);
  std::memcpy(p.data() + 20, "XYZ ", 4);
  std::memcpy(p.data() + 36, "acsp", 4);
  const uint8_t d50[12] = {0, 0, 0xF6, 0xD6, 0, 1, 0, 0, 0, 0, 0xD3, 0x2D};
  std::memcpy(p.data() + 68, d50, 12);
  put_be(p, 0, 4);  // no tags
  p.insert(p.end(), tail.begin(), tail.end());
  return p;
}

// ---------------------------------------------------------------- TIFF files, byte by byte

// A TIFF directory entry: tag, type (1 BYTE, 2 ASCII, 3 SHORT, 4 LONG, 5 RATIONAL, 7
// UNDEFINED), count, and its value's bytes (little-endian).
struct TiffEntry {
  uint16_t tag, type;
  uint32_t count;
  Bytes value;
  uint32_t at = 0;  // not 0: the value is already in the file there (value is not written)
};
TiffEntry tiff_short(uint16_t tag, std::vector<uint16_t> v) {
  TiffEntry e{tag, 3, static_cast<uint32_t>(v.size()), {}};
  for (uint16_t x : v) put_le(e.value, x, 2);
  return e;
}
TiffEntry tiff_long(uint16_t tag, uint32_t v) {
  TiffEntry e{tag, 4, 1, {}};
  put_le(e.value, v, 4);
  return e;
}
TiffEntry tiff_rational(uint16_t tag, uint32_t n, uint32_t d) {
  TiffEntry e{tag, 5, 1, {}};
  put_le(e.value, n, 4), put_le(e.value, d, 4);
  return e;
}
TiffEntry tiff_bytes(uint16_t tag, uint16_t type, const Bytes& v) { return {tag, type, static_cast<uint32_t>(v.size()), v}; }
TiffEntry tiff_ascii(uint16_t tag, const std::string& s) {
  Bytes v(s.begin(), s.end());
  v.push_back(0);
  return {tag, 2, static_cast<uint32_t>(v.size()), v};
}

// A directory at file offset `at`: its entries (sorted by tag), no next directory, then the
// values longer than 4 bytes, each on an even offset.
Bytes tiff_ifd(std::vector<TiffEntry> entries, uint32_t at) {
  std::sort(entries.begin(), entries.end(), [](const TiffEntry& a, const TiffEntry& b) { return a.tag < b.tag; });
  Bytes out, data;
  const uint32_t data_at = at + 2 + 12 * static_cast<uint32_t>(entries.size()) + 4;
  put_le(out, entries.size(), 2);
  for (const TiffEntry& e : entries) {
    put_le(out, e.tag, 2), put_le(out, e.type, 2), put_le(out, e.count, 4);
    if (e.at != 0) {
      put_le(out, e.at, 4);
    } else if (e.value.size() <= 4) {
      Bytes v = e.value;
      v.resize(4, 0);
      out.insert(out.end(), v.begin(), v.end());
    } else {
      put_le(out, data_at + data.size(), 4);
      data.insert(data.end(), e.value.begin(), e.value.end());
      if (data.size() % 2) data.push_back(0);
    }
  }
  put_le(out, 0, 4);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// A little-endian 8-bit TIFF of `channels` (1 grey, 3 RGB) of `pixels` (interleaved), one
// strip, with `extra` tags in its directory and, where given, an Exif directory of `exif`.
Bytes tiff_file(uint32_t w, uint32_t h, int channels, const Bytes& pixels, const std::vector<TiffEntry>& extra,
                const std::vector<TiffEntry>& exif = {}) {
  Bytes file = {'I', 'I', 42, 0};
  const uint32_t ifd_at = 8 + static_cast<uint32_t>(pixels.size() + pixels.size() % 2);
  std::vector<TiffEntry> tags = {tiff_long(256, w),
                                 tiff_long(257, h),
                                 tiff_short(258, std::vector<uint16_t>(static_cast<size_t>(channels), 8)),
                                 tiff_short(259, {1}),
                                 tiff_short(262, {static_cast<uint16_t>(channels == 3 ? 2 : 1)}),
                                 tiff_long(273, 8),
                                 tiff_short(277, {static_cast<uint16_t>(channels)}),
                                 tiff_long(278, h),
                                 tiff_long(279, static_cast<uint32_t>(pixels.size())),
                                 tiff_short(284, {1})};
  tags.insert(tags.end(), extra.begin(), extra.end());
  if (!exif.empty()) tags.push_back(tiff_long(34665, 0));
  Bytes ifd = tiff_ifd(tags, ifd_at);
  if (!exif.empty()) {  // the Exif directory after the first: its offset known once that is laid out
    tags.back() = tiff_long(34665, ifd_at + static_cast<uint32_t>(ifd.size()));
    ifd = tiff_ifd(tags, ifd_at);
  }
  put_le(file, ifd_at, 4);
  file.insert(file.end(), pixels.begin(), pixels.end());
  if (pixels.size() % 2) file.push_back(0);
  file.insert(file.end(), ifd.begin(), ifd.end());
  if (!exif.empty()) {
    const Bytes e = tiff_ifd(exif, static_cast<uint32_t>(file.size()));
    file.insert(file.end(), e.begin(), e.end());
  }
  return file;
}

Bytes gradient(uint32_t w, uint32_t h, int channels) {
  Bytes p(size_t{w} * h * static_cast<size_t>(channels));
  for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<uint8_t>(i * 7 + i / 5);
  return p;
}

// The tags read back with libtiff's own reader through our io::read_image (the TIFF reader)
// would be circular; the TIFF outputs are read with this walker instead: the first directory's
// entries, each with its value's bytes.
struct TiffTags {
  bool little = true;
  std::vector<TiffEntry> entries;
  const TiffEntry* find(uint16_t tag) const {
    for (const TiffEntry& e : entries)
      if (e.tag == tag) return &e;
    return nullptr;
  }
};
TiffTags read_tiff_tags(const Bytes& f, size_t ifd = 0) {
  static const uint32_t kTypeBytes[14] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4};
  TiffTags t;
  if (f.size() < 8) return t;
  t.little = f[0] == 'I';
  auto get = [&](size_t at, int n) {
    uint64_t v = 0;
    if (at + static_cast<size_t>(n) > f.size()) return v;
    for (int i = 0; i < n; ++i) v |= uint64_t{f[at + static_cast<size_t>(t.little ? i : n - 1 - i)]} << (8 * i);
    return v;
  };
  if (ifd == 0) ifd = get(4, 4);
  const size_t n = get(ifd, 2);
  for (size_t k = 0; k < n; ++k) {
    const size_t at = ifd + 2 + 12 * k;
    TiffEntry e{static_cast<uint16_t>(get(at, 2)), static_cast<uint16_t>(get(at + 2, 2)), static_cast<uint32_t>(get(at + 4, 4)), {}};
    const size_t bytes = e.type < 14 ? size_t{kTypeBytes[e.type]} * e.count : 0;
    const size_t from = bytes <= 4 ? at + 8 : get(at + 8, 4);
    if (from + bytes <= f.size()) e.value.assign(f.begin() + static_cast<ptrdiff_t>(from), f.begin() + static_cast<ptrdiff_t>(from + bytes));
    t.entries.push_back(e);
  }
  return t;
}
double tiff_rational_of(const TiffEntry* e, bool little) {
  if (e == nullptr || e->value.size() < 8) return -1;
  auto u = [&](size_t at) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{e->value[at + static_cast<size_t>(little ? i : 3 - i)]} << (8 * i);
    return v;
  };
  return static_cast<double>(u(0)) / u(4);
}

// ---------------------------------------------------------------- PNG files through libpng

struct PngMetadata {
  Bytes icc;
  bool has_phys = false;
  uint32_t phys_x = 0, phys_y = 0;
  int phys_unit = -1;
  std::string xmp;
  Bytes exif;
  bool text_after_data = false;  // the XMP's iTXt chunk after IDAT
  std::vector<std::pair<std::string, Bytes>> raw_chunks;  // written as they are, before IDAT
};

// An 8-bit PNG of `channels` of `pixels` with `m`'s chunks. Returns "" or libpng's error.
std::string write_png(const std::string& path, uint32_t w, uint32_t h, int channels, const Bytes& pixels, const PngMetadata& m) {
  static const int kColor[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return "cannot open " + path;
  std::vector<png_bytep> rows;
  for (uint32_t y = 0; y < h; ++y) rows.push_back(const_cast<png_bytep>(pixels.data()) + size_t{y} * w * static_cast<size_t>(channels));
  png_text text{};
  text.compression = PNG_ITXT_COMPRESSION_NONE;
  text.key = const_cast<char*>("XML:com.adobe.xmp");
  text.text = const_cast<char*>(m.xmp.c_str());
  text.lang = const_cast<char*>("");
  text.lang_key = const_cast<char*>("");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_infop end = png_create_info_struct(png);  // the chunks after IDAT (its own: libpng 1.6.39
                                                // writes eXIf again at the end from `info`)
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_info_struct(png, &end);
    png_destroy_write_struct(&png, &info);
    std::fclose(f);
    return "libpng could not write " + path;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, w, h, 8, kColor[channels - 1], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (!m.icc.empty()) png_set_iCCP(png, info, "test", PNG_COMPRESSION_TYPE_BASE, m.icc.data(), static_cast<png_uint_32>(m.icc.size()));
  if (m.has_phys) png_set_pHYs(png, info, m.phys_x, m.phys_y, m.phys_unit);
  if (!m.xmp.empty() && !m.text_after_data) png_set_text(png, info, &text, 1);
  if (!m.exif.empty()) png_set_eXIf_1(png, info, static_cast<png_uint_32>(m.exif.size()), const_cast<png_bytep>(m.exif.data()));
  png_write_info(png, info);
  for (const auto& [name, data] : m.raw_chunks)
    png_write_chunk(png, reinterpret_cast<png_const_bytep>(name.c_str()), data.data(), data.size());
  png_write_image(png, rows.data());
  if (!m.xmp.empty() && m.text_after_data) png_set_text(png, end, &text, 1);
  png_write_end(png, end);
  png_destroy_info_struct(png, &end);
  png_destroy_write_struct(&png, &info);
  std::fclose(f);
  return "";
}

// The chunks of `path` that carry metadata, as libpng reads them (all of the file, the chunks
// after IDAT too). Returns "" or libpng's error.
std::string read_png(const std::string& path, PngMetadata& m) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return "cannot open " + path;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    std::fclose(f);
    return "libpng could not read " + path;
  }
  png_init_io(png, f);
  png_read_png(png, info, PNG_TRANSFORM_IDENTITY, nullptr);
  png_charp name = nullptr;
  int compression = 0;
  png_bytep profile = nullptr;
  png_uint_32 length = 0;
  if (png_get_iCCP(png, info, &name, &compression, &profile, &length)) m.icc.assign(profile, profile + length);
  m.has_phys = png_get_pHYs(png, info, &m.phys_x, &m.phys_y, &m.phys_unit) != 0;
  png_textp text = nullptr;
  int count = 0;
  png_get_text(png, info, &text, &count);
  for (int k = 0; k < count; ++k)
    if (std::strcmp(text[k].key, "XML:com.adobe.xmp") == 0) m.xmp = text[k].text;
  png_bytep exif = nullptr;
  png_uint_32 exif_length = 0;
  if (png_get_eXIf_1(png, info, &exif_length, &exif)) m.exif.assign(exif, exif + exif_length);
  png_destroy_read_struct(&png, &info, nullptr);
  std::fclose(f);
  return "";
}

// An iCCP chunk's contents: the name, compression method 0, then `zlib` (a zlib stream).
Bytes iccp_chunk(const Bytes& zlib) {
  static const uint8_t kHead[9] = {'p', 'r', 'o', 'f', 'i', 'l', 'e', 0, 0};
  Bytes c(9 + zlib.size());  // sized once: GCC 12 misreads an insert after a short vector
  std::copy(kHead, kHead + 9, c.begin());
  std::copy(zlib.begin(), zlib.end(), c.begin() + 9);
  return c;
}
Bytes deflated(const Bytes& data) {
  uLongf n = compressBound(static_cast<uLong>(data.size()));
  Bytes out(n);
  compress2(out.data(), &n, data.data(), static_cast<uLong>(data.size()), 9);
  out.resize(n);
  return out;
}

// ---------------------------------------------------------------- JP2 boxes

struct TopBox {
  std::string type;
  size_t offset = 0, header = 8, length = 0;  // where it starts, its header's and its whole length
};
std::vector<TopBox> top_boxes(const Bytes& f) {
  std::vector<TopBox> out;
  for (size_t at = 0; at + 8 <= f.size();) {
    TopBox b;
    b.offset = at;
    b.type.assign(reinterpret_cast<const char*>(f.data() + at + 4), 4);
    b.length = get_be(f.data() + at, 4);
    if (b.length == 1) b.length = get_be(f.data() + at + 8, 8), b.header = 16;
    if (b.length == 0) b.length = f.size() - at;
    if (b.length < b.header || b.length > f.size() - at) break;
    out.push_back(b);
    at += b.length;
  }
  return out;
}
// The contents of the first top-level box of `type` whose contents start with `prefix`.
Bytes box_contents(const Bytes& f, const std::string& type, const uint8_t* prefix = nullptr, size_t prefix_bytes = 0) {
  for (const TopBox& b : top_boxes(f)) {
    const uint8_t* c = f.data() + b.offset + b.header;
    const size_t n = b.length - b.header;
    if (b.type == type && n >= prefix_bytes && (prefix_bytes == 0 || std::memcmp(c, prefix, prefix_bytes) == 0)) return Bytes(c, c + n);
  }
  return {};
}
// `file` with `box` inserted right after its JP2 Header box.
Bytes with_box_after_header(const Bytes& file, const Bytes& box) {
  for (const TopBox& b : top_boxes(file))
    if (b.type == "jp2h") {
      Bytes out(file.begin(), file.begin() + static_cast<ptrdiff_t>(b.offset + b.length));
      out.insert(out.end(), box.begin(), box.end());
      out.insert(out.end(), file.begin() + static_cast<ptrdiff_t>(b.offset + b.length), file.end());
      return out;
    }
  return {};
}
// The colr box's contents inside the JP2 Header box.
Bytes colr_of(const Bytes& f) {
  const Bytes h = box_contents(f, "jp2h");
  for (const TopBox& b : top_boxes(h))
    if (b.type == "colr") return Bytes(h.begin() + static_cast<ptrdiff_t>(b.offset + b.header), h.begin() + static_cast<ptrdiff_t>(b.offset + b.length));
  return {};
}

// The samples of two image files, component by component.
void expect_same_samples(const std::string& a, const std::string& b) {
  const j2kfront::Image x = j2k::io::read_image(a), y = j2k::io::read_image(b);
  ASSERT_EQ(x.components.size(), y.components.size()) << a << " vs " << b;
  for (size_t c = 0; c < x.components.size(); ++c) EXPECT_TRUE(x.components[c].bytes == y.components[c].bytes) << a << " vs " << b << ": component " << c;
}

// The entries of the Exif directory of an Exif TIFF structure (what eXIf or the Exif UUID box
// holds): tag -> value bytes.
std::vector<TiffEntry> exif_entries(const Bytes& exif) {
  const TiffTags first = read_tiff_tags(exif);
  const TiffEntry* pointer = first.find(34665);
  if (pointer == nullptr || pointer->value.size() != 4) return {};
  uint32_t at = 0;
  for (int i = 0; i < 4; ++i) at |= uint32_t{pointer->value[static_cast<size_t>(i)]} << (8 * i);  // little-endian files here
  return read_tiff_tags(exif, at).entries;
}

class Metadata : public test_support::TempDirTest {
 protected:
  test_support::CommandResult cli(const std::string& args) { return run_command(quote(kCli) + " " + args); }
};

const std::string kXmp =
    "<?xpacket begin=\"\xEF\xBB\xBF\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?><x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF "
    "xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about=\"\" "
    "xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:creator>j2kfront metadata test</dc:creator></rdf:Description>"
    "</rdf:RDF></x:xmpmeta><?xpacket end=\"w\"?>";

// A TIFF's ICC profile, 300 dpi, XMP and Exif into a JP2 file: the profile in colr (method 2),
// the resolution in res/resc, the XMP and Exif UUID boxes; then back to a TIFF (the profile,
// resolution and XMP tags byte for byte, the Exif directory's entries) and a PNG (all four).
TEST_F(Metadata, TiffRoundTripKeepsIccResolutionXmpAndExif) {
  if (!kHaveTiff) GTEST_SKIP() << "this build has no TIFF support (libtiff not found; Debian: libtiff-dev)";
  const Bytes icc = tagless_profile("RGB ", "j2kfront tiff test profile..");
  const Bytes xmp(kXmp.begin(), kXmp.end());
  // ExposureTime, ISOSpeedRatings, ExifVersion, DateTimeOriginal: in tag order, as a directory has them.
  const std::vector<TiffEntry> exif = {tiff_rational(33434, 1, 125), tiff_short(34855, {400}), tiff_bytes(36864, 7, {'0', '2', '3', '2'}),
                                       tiff_ascii(36867, "2024:05:06 07:08:09")};
  const std::string in = path("in.tif"), jp2 = path("out.jp2"), tif = path("back.tif"), png = path("back.png");
  write_file(in, tiff_file(16, 12, 3, gradient(16, 12, 3),
                           {tiff_rational(282, 300, 1), tiff_rational(283, 300, 1), tiff_short(296, {2}), tiff_bytes(700, 1, xmp),
                            tiff_bytes(34675, 7, icc)},
                           exif));
  auto r = cli("compress -i " + quote(in) + " -o " + quote(jp2));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  const Bytes file = file_bytes(jp2);
  const Bytes colr = colr_of(file);
  ASSERT_GE(colr.size(), 3u);
  EXPECT_EQ(colr[0], 2) << "METH 2: restricted ICC";
  EXPECT_TRUE(Bytes(colr.begin() + 3, colr.end()) == icc);
  const Bytes xmp_box = box_contents(file, "uuid", kXmpUuid, 16);
  ASSERT_EQ(xmp_box.size(), 16 + xmp.size());
  EXPECT_TRUE(Bytes(xmp_box.begin() + 16, xmp_box.end()) == xmp);
  const Bytes exif_box = box_contents(file, "uuid", kExifUuid, 16);
  ASSERT_GT(exif_box.size(), 16u);
  const std::vector<TiffEntry> carried = exif_entries(Bytes(exif_box.begin() + 16, exif_box.end()));
  ASSERT_EQ(carried.size(), exif.size());
  for (size_t k = 0; k < exif.size(); ++k) {
    EXPECT_EQ(carried[k].tag, exif[k].tag);
    EXPECT_EQ(carried[k].type, exif[k].type);
    EXPECT_TRUE(carried[k].value == exif[k].value) << "Exif tag " << exif[k].tag;
  }

  // Back to TIFF: the samples (lossless), the profile and XMP byte for byte, 300 dpi, and an
  // Exif directory (tag 34665) with the same entries: the rational by its value (libtiff holds it
  // as a float and writes it back as a fraction of its own), the others byte for byte.
  r = cli("decompress -i " + quote(jp2) + " -o " + quote(tif) + " --keep-icc");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  expect_same_samples(in, tif);
  const Bytes tif_bytes = file_bytes(tif);
  const TiffTags tags = read_tiff_tags(tif_bytes);
  const TiffEntry* exif_pointer = tags.find(34665);
  ASSERT_NE(exif_pointer, nullptr) << "an Exif directory";
  ASSERT_EQ(exif_pointer->value.size(), 4u);
  const TiffTags written = read_tiff_tags(tif_bytes, get_le(exif_pointer->value.data(), 4));
  ASSERT_EQ(written.entries.size(), exif.size());
  for (size_t k = 0; k < exif.size(); ++k) {
    SCOPED_TRACE("Exif tag " + std::to_string(exif[k].tag));
    EXPECT_EQ(written.entries[k].tag, exif[k].tag);
    EXPECT_EQ(written.entries[k].type, exif[k].type);
    EXPECT_EQ(written.entries[k].count, exif[k].count);
    if (exif[k].type == 5)  // libtiff holds this rational as a float: 1/125 comes back to 7 digits
      EXPECT_NEAR(tiff_rational_of(&written.entries[k], written.little) / tiff_rational_of(&exif[k], true), 1.0, 1e-7);
    else EXPECT_TRUE(written.entries[k].value == exif[k].value);
  }
  ASSERT_NE(tags.find(34675), nullptr);
  EXPECT_TRUE(tags.find(34675)->value == icc);
  ASSERT_NE(tags.find(700), nullptr);
  EXPECT_TRUE(tags.find(700)->value == xmp);
  EXPECT_DOUBLE_EQ(tiff_rational_of(tags.find(282), tags.little), 300);
  EXPECT_DOUBLE_EQ(tiff_rational_of(tags.find(283), tags.little), 300);
  ASSERT_NE(tags.find(296), nullptr);
  EXPECT_EQ(tags.find(296)->value[0], 2) << "inches";

  // To PNG: iCCP, pHYs (300 dpi is 11811 pixels per metre), the XMP, the Exif as it is in the box.
  r = cli("decompress -i " + quote(jp2) + " -o " + quote(png) + " --keep-icc");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  PngMetadata m;
  ASSERT_EQ(read_png(png, m), "");
  EXPECT_TRUE(m.icc == icc);
  EXPECT_TRUE(m.has_phys);
  EXPECT_EQ(m.phys_x, 11811u);
  EXPECT_EQ(m.phys_y, 11811u);
  EXPECT_EQ(m.phys_unit, PNG_RESOLUTION_METER);
  EXPECT_EQ(m.xmp, kXmp);
  EXPECT_TRUE(m.exif == Bytes(exif_box.begin() + 16, exif_box.end()));
}

// A PNG's iCCP, pHYs, iTXt XMP (after IDAT: the reader takes it at the end) and eXIf into a JP2 file and back into a PNG byte for byte; a TIFF of it has the resolution in
// centimetres where they are whole.
TEST_F(Metadata, PngRoundTripKeepsIccResolutionXmpAndExif) {
  PngMetadata m;
  m.icc = tagless_profile("GRAY", "j2kfront png test profile", 0, 700);  // its iCCP chunk past byte 512
  m.has_phys = true, m.phys_x = 4000, m.phys_y = 2000, m.phys_unit = PNG_RESOLUTION_METER;  // 40 x 20 per cm
  m.xmp = kXmp;
  m.text_after_data = true;
  m.exif = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0};  // big-endian, an empty directory
  const std::string in = path("in.png"), jp2 = path("out.jp2"), png = path("back.png"), tif = path("back.tif");
  ASSERT_EQ(write_png(in, 9, 7, 2, gradient(9, 7, 2), m), "");
  auto r = cli("compress -i " + quote(in) + " -o " + quote(jp2));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  r = cli("decompress -i " + quote(jp2) + " -o " + quote(png) + " --keep-icc");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  expect_same_samples(in, png);
  PngMetadata back;
  ASSERT_EQ(read_png(png, back), "");
  EXPECT_TRUE(back.icc == m.icc);
  EXPECT_EQ(back.phys_x, 4000u);
  EXPECT_EQ(back.phys_y, 2000u);
  EXPECT_EQ(back.phys_unit, PNG_RESOLUTION_METER);
  EXPECT_EQ(back.xmp, m.xmp);
  EXPECT_TRUE(back.exif == m.exif);
  // The PNG is still known as ours (its Software chunk after the profile, past the first 512
  // bytes): a directory's decompress may replace it.
  EXPECT_TRUE(j2k::io::written_by_j2kfront(png));

  if (!kHaveTiff) return;  // (the TIFF output needs libtiff: the PNG's checks above are the test then)
  r = cli("decompress -i " + quote(jp2) + " -o " + quote(tif) + " --keep-icc");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const TiffTags tags = read_tiff_tags(file_bytes(tif));
  EXPECT_DOUBLE_EQ(tiff_rational_of(tags.find(282), tags.little), 40);
  EXPECT_DOUBLE_EQ(tiff_rational_of(tags.find(283), tags.little), 20);
  ASSERT_NE(tags.find(296), nullptr);
  EXPECT_EQ(tags.find(296)->value[0], 3) << "centimetres";
  ASSERT_NE(tags.find(34675), nullptr);
  EXPECT_TRUE(tags.find(34675)->value == m.icc);
}

// By rows of tiles (a tiled image over --max-memory): the metadata before the image data goes
// into the JP2 file as a whole-image run writes it, byte for byte; an XMP packet after the
// image data (read with the last rows, after the encoder is made) is said and left out.
TEST_F(Metadata, ByRowsOfTilesCarriesWhatComesBeforeTheImageData) {
  PngMetadata m;
  m.icc = tagless_profile("RGB ", "j2kfront rows test profile..");
  m.has_phys = true, m.phys_x = 4000, m.phys_y = 2000, m.phys_unit = PNG_RESOLUTION_METER;
  m.xmp = kXmp;
  m.exif = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0};
  const std::string before = path("before.png"), after = path("after.png");
  ASSERT_EQ(write_png(before, 512, 512, 3, gradient(512, 512, 3), m), "");
  m.text_after_data = true;
  ASSERT_EQ(write_png(after, 512, 512, 3, gradient(512, 512, 3), m), "");
  // 0.75 MiB of samples and 3 MiB of coefficients whole: within 3M, 4 rows of 128 x 512 tiles.
  auto compress = [&](const std::string& in, const std::string& out, const std::string& limit) {
    return cli("compress -i " + quote(in) + " -o " + quote(out) + " -t 128,128 --threads 2 --max-memory " + limit);
  };
  auto r = compress(before, path("whole.jp2"), "1G");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = compress(before, path("rows.jp2"), "3M");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("by 4 rows of tiles"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  EXPECT_TRUE(file_bytes(path("rows.jp2")) == file_bytes(path("whole.jp2"))) << "the same file by rows as whole";
  EXPECT_FALSE(colr_of(file_bytes(path("rows.jp2"))).empty());
  EXPECT_FALSE(box_contents(file_bytes(path("rows.jp2")), "uuid", kXmpUuid, 16).empty()) << "the XMP box";

  r = compress(after, path("late.jp2"), "3M");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("by 4 rows of tiles"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("its XMP packet is not written: it comes after the image data"), std::string::npos) << r.output;
  const Bytes late = file_bytes(path("late.jp2"));
  EXPECT_TRUE(box_contents(late, "uuid", kXmpUuid, 16).empty()) << "no XMP box";
  EXPECT_TRUE(colr_of(late) == colr_of(file_bytes(path("whole.jp2")))) << "the profile, from before the image data, is there";
}

// Without --keep-icc, a profile the decoder cannot apply (Little CMS makes no transform from
// this one) stays with the samples it describes; one it applies (sRGB's own, where the build has
// Little CMS) is not written, the samples being sRGB now. A PGM/PPM output says what it drops.
TEST_F(Metadata, UnappliedProfilesAreKeptAndDroppedOnesSaid) {
  PngMetadata m;
  m.icc = tagless_profile("RGB ", "cannot be applied...........");
  const std::string in = path("in.png"), jp2 = path("out.jp2"), png = path("back.png"), ppm = path("back.ppm");
  ASSERT_EQ(write_png(in, 8, 8, 3, gradient(8, 8, 3), m), "");
  ASSERT_EQ(cli("compress -i " + quote(in) + " -o " + quote(jp2)).exit_code, 0);
  auto r = cli("decompress -i " + quote(jp2) + " -o " + quote(png));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  PngMetadata back;
  ASSERT_EQ(read_png(png, back), "");
  EXPECT_TRUE(back.icc == m.icc) << r.output;
  expect_same_samples(in, png);
  r = cli("decompress -i " + quote(jp2) + " -o " + quote(ppm));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("its ICC profile (the samples are in its colour space, not sRGB) is not written"), std::string::npos) << r.output;
#if J2K_TESTS_HAVE_LCMS2
  cmsHPROFILE srgb = cmsCreate_sRGBProfile();
  cmsUInt32Number n = 0;
  cmsSaveProfileToMem(srgb, nullptr, &n);
  PngMetadata s;
  s.icc.resize(n);
  cmsSaveProfileToMem(srgb, s.icc.data(), &n);
  cmsCloseProfile(srgb);
  const std::string in2 = path("srgb.png"), jp2b = path("srgb.jp2"), png2 = path("srgb_back.png"), kept = path("srgb_kept.png");
  ASSERT_EQ(write_png(in2, 8, 8, 3, gradient(8, 8, 3), s), "");
  ASSERT_EQ(cli("compress -i " + quote(in2) + " -o " + quote(jp2b)).exit_code, 0);
  r = cli("decompress -i " + quote(jp2b) + " -o " + quote(png2));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;
  PngMetadata applied;
  ASSERT_EQ(read_png(png2, applied), "");
  EXPECT_TRUE(applied.icc.empty()) << "the samples are sRGB: the profile they were converted from is not theirs";
  r = cli("decompress -i " + quote(jp2b) + " -o " + quote(kept) + " --keep-icc");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  PngMetadata with;
  ASSERT_EQ(read_png(kept, with), "");
  EXPECT_TRUE(with.icc == s.icc);
  expect_same_samples(in2, kept);
#endif
}

// A bare codestream has no place for the metadata: compress says what it leaves out.
TEST_F(Metadata, CodestreamOutputSaysWhatItDrops) {
  PngMetadata m;
  m.icc = tagless_profile("RGB ", "dropped.....");
  m.has_phys = true, m.phys_x = m.phys_y = 3000, m.phys_unit = PNG_RESOLUTION_METER;
  const std::string in = path("in.png");
  ASSERT_EQ(write_png(in, 8, 8, 3, gradient(8, 8, 3), m), "");
  const auto r = cli("compress -i " + quote(in) + " -o " + quote(path("out.j2k")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: " + in + ": its ICC profile and resolution are not written: a bare codestream has no place for them"),
            std::string::npos)
      << r.output;
}

// --display-resolution writes a Default Display Resolution box (resd, read here from the bytes:
// VRdN, VRdD, HRdN, HRdD, VRdE, HRdE) beside the capture resolution the input carries (resc);
// `info` prints both, `transcode` keeps them, and a PNG output without a capture resolution
// takes the display one. Values the box cannot hold, or a codestream output, are refused.
TEST_F(Metadata, DisplayResolutionOption) {
  PngMetadata m;
  m.has_phys = true, m.phys_x = 4000, m.phys_y = 2000, m.phys_unit = PNG_RESOLUTION_METER;
  const std::string in = path("in.png"), plain = path("plain.png"), jp2 = path("out.jp2"), jph = path("out.jph");
  ASSERT_EQ(write_png(in, 8, 8, 1, gradient(8, 8, 1), m), "");
  ASSERT_EQ(write_png(plain, 8, 8, 1, gradient(8, 8, 1), PngMetadata{}), "");
  auto r = cli("compress -i " + quote(in) + " -o " + quote(jp2) + " --display-resolution 72,96dpi");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The res box in the JP2 Header box: resc (the PNG's pHYs), then resd.
  const Bytes header = box_contents(file_bytes(jp2), "jp2h");
  Bytes res;
  for (const TopBox& b : top_boxes(header))
    if (b.type == "res ") res.assign(header.begin() + static_cast<ptrdiff_t>(b.offset + b.header), header.begin() + static_cast<ptrdiff_t>(b.offset + b.length));
  const std::vector<TopBox> inner = top_boxes(res);
  ASSERT_EQ(inner.size(), 2u);
  EXPECT_EQ(inner[0].type, "resc");
  ASSERT_EQ(inner[1].type, "resd");
  ASSERT_EQ(inner[1].length, 18u) << "8 bytes of header, 10 of fields";
  const uint8_t* d = res.data() + inner[1].offset + 8;
  const double down = static_cast<double>(get_be(d, 2)) / get_be(d + 2, 2) * std::pow(10.0, static_cast<int8_t>(d[8]));
  const double across = static_cast<double>(get_be(d + 4, 2)) / get_be(d + 6, 2) * std::pow(10.0, static_cast<int8_t>(d[9]));
  EXPECT_NEAR(across * 0.0254, 72, 1e-9);
  EXPECT_NEAR(down * 0.0254, 96, 1e-9);

  r = cli("info --json " + quote(jp2));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_NEAR(j["display_resolution"][0].get<double>() * 0.0254, 72, 1e-9);
  EXPECT_NEAR(j["display_resolution"][1].get<double>() * 0.0254, 96, 1e-9);
  EXPECT_DOUBLE_EQ(j["capture_resolution"][0].get<double>(), 4000);
  r = cli("info " + quote(jp2));
  EXPECT_NE(r.output.find("display resolution: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(72 x 96 dpi)"), std::string::npos) << r.output;

  r = cli("transcode -i " + quote(jp2) + " -o " + quote(jph));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = cli("info --json " + quote(jph));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  j = nlohmann::json::parse(r.output);
  EXPECT_NEAR(j["display_resolution"][0].get<double>() * 0.0254, 72, 1e-9);
  EXPECT_DOUBLE_EQ(j["capture_resolution"][1].get<double>(), 2000);

  // Without a capture resolution the decoder's resolution is the display one: 5000 x 2500 per
  // metre into pHYs.
  const std::string only = path("only.jp2"), back = path("back.png");
  r = cli("compress -i " + quote(plain) + " -o " + quote(only) + " --display-resolution 5000,2500");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = cli("decompress -i " + quote(only) + " -o " + quote(back));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  PngMetadata got;
  ASSERT_EQ(read_png(back, got), "");
  EXPECT_TRUE(got.has_phys);
  EXPECT_EQ(got.phys_x, 5000u);
  EXPECT_EQ(got.phys_y, 2500u);

  for (const auto& [value, said] : std::vector<std::pair<std::string, std::string>>{
           {"0,72", "two numbers above 0"},
           {"-72,-72", "two numbers above 0"},
           {"72", "two numbers above 0"},
           {"72,x", "two numbers above 0"},
           {"1e140,1", "beyond what a Resolution box holds"},
           {"1,1e-140", "beyond what a Resolution box holds"}}) {
    SCOPED_TRACE(value);
    r = cli("compress -i " + quote(plain) + " -o " + quote(path("bad.jp2")) + " --force --display-resolution " + quote(value));
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(said), std::string::npos) << r.output;
  }
  r = cli("compress -i " + quote(plain) + " -o " + quote(path("bad.j2k")) + " --display-resolution 72,72");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("a bare codestream has no place for it"), std::string::npos) << r.output;
}

// OpenJPEG reads our files: opj_dump takes the boxes (it prints no colour specification: its
// JP2 dump is the codestream's), opj_decompress decodes a file with every kind of metadata to
// exactly the image (the profile here is one it cannot apply either), and, where the build has
// Little CMS, applies a profile of other primaries and gamma from our colr box (method 2) as our
// decompress applies it: the same samples, not the input's.
TEST_F(Metadata, OpenJpegReadsOurFiles) {
  if (!kHaveTiff) GTEST_SKIP() << "this build has no TIFF support (libtiff not found; Debian: libtiff-dev)";
  if (!test_support::on_path("opj_dump") || !test_support::on_path("opj_decompress"))
    GTEST_SKIP() << "opj_dump / opj_decompress not found (Debian: apt install libopenjp2-tools)";
  const Bytes icc = tagless_profile("RGB ", "for opj_decompress");
  const Bytes xmp(kXmp.begin(), kXmp.end());
  const std::string in = path("in.tif"), jp2 = path("out.jp2"), opj = path("opj.tif");
  write_file(in, tiff_file(20, 10, 3, gradient(20, 10, 3),
                           {tiff_rational(282, 72, 1), tiff_rational(283, 72, 1), tiff_short(296, {2}), tiff_bytes(700, 1, xmp),
                            tiff_bytes(34675, 7, icc)},
                           {tiff_ascii(36867, "2024:05:06 07:08:09")}));
  auto r = cli("compress -i " + quote(in) + " -o " + quote(jp2));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command("opj_dump -i " + quote(jp2));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("numcomps=3"), std::string::npos) << r.output;
  r = run_command("opj_decompress -i " + quote(jp2) + " -o " + quote(opj));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_same_samples(in, opj);
#if J2K_TESTS_HAVE_LCMS2
  const cmsCIExyY white = {0.3127, 0.3290, 1.0};
  const cmsCIExyYTRIPLE primaries = {{0.68, 0.32, 1.0}, {0.265, 0.69, 1.0}, {0.15, 0.06, 1.0}};
  cmsToneCurve* gamma = cmsBuildGamma(nullptr, 1.8);
  cmsToneCurve* curves[3] = {gamma, gamma, gamma};
  cmsHPROFILE wide = cmsCreateRGBProfile(&white, &primaries, curves);
  cmsFreeToneCurve(gamma);
  cmsUInt32Number n = 0;
  cmsSaveProfileToMem(wide, nullptr, &n);
  PngMetadata m;
  m.icc.resize(n);
  cmsSaveProfileToMem(wide, m.icc.data(), &n);
  cmsCloseProfile(wide);
  const std::string png = path("wide.png"), wide_jp2 = path("wide.jp2"), ours = path("ours.png"), theirs = path("theirs.png");
  ASSERT_EQ(write_png(png, 16, 16, 3, gradient(16, 16, 3), m), "");
  ASSERT_EQ(cli("compress -i " + quote(png) + " -o " + quote(wide_jp2)).exit_code, 0);
  EXPECT_EQ(colr_of(file_bytes(wide_jp2))[0], 2);
  r = cli("decompress -i " + quote(wide_jp2) + " -o " + quote(ours));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command("opj_decompress -i " + quote(wide_jp2) + " -o " + quote(theirs));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_same_samples(ours, theirs);
  EXPECT_FALSE(j2k::io::read_image(png).components[0].bytes == j2k::io::read_image(theirs).components[0].bytes)
      << "opj_decompress left the samples as they were: it did not apply the profile";
#endif
}

// A GeoJP2 UUID box (a GeoTIFF inside) and an XML box put into our file by hand are listed by
// `info` (text and JSON), carried by `transcode` as they are, named by a decompress to PNG
// that has no place for them, and said to be lost by a transcode to a bare codestream; a TIFF
// output takes the GeoTIFF's tags (tiff_metadata_test checks all six).
TEST_F(Metadata, GeoJp2BoxSurvivesTranscodeAndShowsInInfo) {
  const std::string in = path("in.png"), plain = path("plain.jp2"), geo = path("geo.jp2"), jph = path("geo.jph");
  ASSERT_EQ(write_png(in, 16, 16, 1, gradient(16, 16, 1), PngMetadata{}), "");
  ASSERT_EQ(cli("compress -i " + quote(in) + " -o " + quote(plain)).exit_code, 0);
  Bytes geotiff = tiff_file(1, 1, 1, {0}, {tiff_short(34735, {1, 1, 0, 1, 1024, 0, 1, 2})});  // GeoKeyDirectory: raster is area
  Bytes uuid(kGeoJp2Uuid, kGeoJp2Uuid + 16);
  uuid.insert(uuid.end(), geotiff.begin(), geotiff.end());
  Bytes boxes = test_support::jp2_box("uuid", uuid);
  const std::string xml = "<note>j2kfront</note>";
  const Bytes xml_box = test_support::jp2_box("xml ", Bytes(xml.begin(), xml.end()));
  boxes.insert(boxes.end(), xml_box.begin(), xml_box.end());
  write_file(geo, with_box_after_header(file_bytes(plain), boxes));

  auto r = cli("info " + quote(geo));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("box 'uuid' GeoJP2: " + std::to_string(uuid.size()) + " bytes"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("box 'xml ': " + std::to_string(xml.size()) + " bytes"), std::string::npos) << r.output;
  r = cli("info --json " + quote(geo));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["boxes"].size(), 2u) << r.output;
  EXPECT_EQ(j["boxes"][0]["uuid"], "GeoJP2");
  EXPECT_EQ(j["boxes"][1]["type"], "xml ");

  r = cli("transcode -i " + quote(geo) + " -o " + quote(jph));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Bytes out = file_bytes(jph);
  EXPECT_TRUE(box_contents(out, "uuid", kGeoJp2Uuid, 16) == uuid);
  EXPECT_TRUE(box_contents(out, "xml ") == Bytes(xml.begin(), xml.end()));
  r = cli("info " + quote(jph));
  EXPECT_NE(r.output.find("GeoJP2"), std::string::npos) << r.output;
  // And back to EBCOT: still there.
  r = cli("transcode -i " + quote(jph) + " -o " + quote(path("again.jp2")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(box_contents(file_bytes(path("again.jp2")), "uuid", kGeoJp2Uuid, 16) == uuid);

  r = cli("transcode -i " + quote(geo) + " -o " + quote(path("bare.jhc")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("'uuid' (GeoJP2), 'xml ' boxes are not carried into a bare codestream"), std::string::npos) << r.output;
  // A PNG has no place for either.
  r = cli("decompress -i " + quote(geo) + " -o " + quote(path("geo.png")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("its 'xml ' box and georeferencing (GeoJP2) are not written"), std::string::npos) << r.output;
  if (!kHaveTiff) return;  // (the TIFF output needs libtiff)
  // A TIFF takes the GeoTIFF's GeoKeyDirectory; the XML box stays behind.
  r = cli("decompress -i " + quote(geo) + " -o " + quote(path("geo.tif")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("its 'xml ' box is not written"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("GeoJP2"), std::string::npos) << r.output;
  const TiffTags tags = read_tiff_tags(file_bytes(path("geo.tif")));
  ASSERT_NE(tags.find(34735), nullptr);
  EXPECT_TRUE(tags.find(34735)->value == tiff_short(34735, {1, 1, 0, 1, 1024, 0, 1, 2}).value);
}

// Damaged metadata is said and left out; the image goes through. A PNG whose iCCP chunk is cut
// inside its zlib stream, one whose profile declares 100 MB (over the reader's 8 MiB for a
// chunk), a TIFF whose profile declares more than its tag holds, and a JP2 file with a UUID box
// of 10 bytes and a Resolution box with a zero denominator.
TEST_F(Metadata, DamagedMetadataIsWarnedAndLeftOut) {
  const Bytes profile = tagless_profile("RGB ", std::string(200, 'x'));
  Bytes cut = deflated(profile);
  cut.resize(cut.size() / 2);
  PngMetadata m;
  m.raw_chunks.push_back({"iCCP", iccp_chunk(cut)});
  const std::string cut_png = path("cut.png");
  ASSERT_EQ(write_png(cut_png, 8, 8, 3, gradient(8, 8, 3), m), "");
  auto r = cli("compress -i " + quote(cut_png) + " -o " + quote(path("cut.jp2")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("warning: " + cut_png + ": its iCCP chunk is not read (libpng: iCCP: "), std::string::npos) << r.output;
  EXPECT_EQ(colr_of(file_bytes(path("cut.jp2")))[0], 1) << "no profile: the enumerated colour space";

  PngMetadata huge;
  huge.raw_chunks.push_back({"iCCP", iccp_chunk(deflated(tagless_profile("RGB ", std::string(200, 'y'), 100000000)))});
  const std::string huge_png = path("huge.png");
  ASSERT_EQ(write_png(huge_png, 8, 8, 3, gradient(8, 8, 3), huge), "");
  r = cli("compress -i " + quote(huge_png) + " -o " + quote(path("huge.jp2")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("its iCCP chunk is not read"), std::string::npos) << r.output;

  if (kHaveTiff) {  // (TIFF input needs libtiff)
    const std::string bad_tif = path("bad.tif");
    write_file(bad_tif, tiff_file(8, 8, 3, gradient(8, 8, 3), {tiff_bytes(34675, 7, tagless_profile("RGB ", "short", 1u << 30))}));
    r = cli("compress -i " + quote(bad_tif) + " -o " + quote(path("bad.jp2")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("its ICC profile is not carried: its header says 1073741824 bytes, and 228 are there"), std::string::npos)
        << r.output;
  }

  // A JP2 file whose profile declares 1 GiB in its 228 bytes: decoded, the profile named and
  // left out of the PNG (and not applied).
  PngMetadata with;
  with.icc = tagless_profile("RGB ", "declares too much");
  const std::string with_png = path("with.png"), liar = path("liar.jp2");
  ASSERT_EQ(write_png(with_png, 8, 8, 3, gradient(8, 8, 3), with), "");
  ASSERT_EQ(cli("compress -i " + quote(with_png) + " -o " + quote(liar)).exit_code, 0);
  Bytes lying = file_bytes(liar);
  const Bytes colr = colr_of(lying);
  ASSERT_EQ(colr.size(), 3 + with.icc.size());
  const auto at = std::search(lying.begin(), lying.end(), with.icc.begin(), with.icc.end()) - lying.begin();
  lying[static_cast<size_t>(at)] = 0x40;  // 228 -> 0x400000E4
  write_file(liar, lying);
  r = cli("decompress -i " + quote(liar) + " -o " + quote(path("liar.png")) + " --keep-icc");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("the ICC profile is not written: its header says 1073742052 bytes, and 228 are there"), std::string::npos)
      << r.output;
  expect_same_samples(with_png, path("liar.png"));

  // An Exif directory whose 120 entries each point at 150,000 bytes of the samples: 18 MB of
  // values from a file of 200 KB, more than the 16 MiB the reader copies.
  if (kHaveTiff) {  // (TIFF input needs libtiff)
    std::vector<TiffEntry> many;
    for (uint16_t k = 0; k < 120; ++k) many.push_back(TiffEntry{static_cast<uint16_t>(40000 + k), 7, 150000, {}, 8});
    const std::string many_tif = path("many.tif");
    write_file(many_tif, tiff_file(256, 256, 3, gradient(256, 256, 3), {}, many));
    r = cli("compress -i " + quote(many_tif) + " -o " + quote(path("many.jp2")));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("its Exif directory is not carried: its values take more than 16 MiB"), std::string::npos) << r.output;
  }

  // A UUID box of 10 bytes and a Resolution box whose resc has a zero denominator.
  const std::string good = path("good.jp2"), bad = path("bad_boxes.jp2");
  ASSERT_EQ(cli("compress -i " + quote(cut_png) + " -o " + quote(good)).exit_code, 0);
  Bytes file = file_bytes(good);
  file = with_box_after_header(file, test_support::jp2_box("uuid", Bytes(10, 0xAB)));
  for (const TopBox& b : top_boxes(file))
    if (b.type == "jp2h") {  // a res box at the end of jp2h: its length grows by 26
      const Bytes res = test_support::jp2_box("res ", test_support::jp2_box("resc", {0, 1, 0, 0, 0, 1, 0, 1, 0, 0}));
      file.insert(file.begin() + static_cast<ptrdiff_t>(b.offset + b.length), res.begin(), res.end());
      const uint64_t length = b.length + res.size();
      for (int i = 0; i < 4; ++i) file[b.offset + static_cast<size_t>(i)] = static_cast<uint8_t>(length >> (24 - 8 * i));
      break;
    }
  write_file(bad, file);
  r = cli("info " + quote(bad));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("a UUID box of 10 bytes (fewer than its 16-byte UUID) is skipped"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the 'resc' box says 1/1 by 1/0 (no zero allowed); it is skipped"), std::string::npos) << r.output;
  r = cli("decompress -i " + quote(bad) + " -o " + quote(path("bad.png")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("a UUID box of 10 bytes"), std::string::npos) << r.output;
  expect_same_samples(cut_png, path("bad.png"));
  r = cli("transcode -i " + quote(bad) + " -o " + quote(path("bad.jph")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("a UUID box of 10 bytes"), std::string::npos) << r.output;
}

}  // namespace
