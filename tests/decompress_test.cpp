// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront decompress` against Debian's opj_decompress: the streams our compress writes and
// those opj_compress writes, with every progression, precincts, code-block sizes, mode
// switches, tiles, origins, layers and both wavelets, decoded by both to PGX and compared
// sample for sample (lossless ones also against the original image); opj_decompress's -r,
// -l, -d, -t and -c the same way; its colour conversions (sYCC, e-sYCC, CMYK, ICC profiles,
// CIELab) and CMYK kept in a TIFF; the other output formats (PGM/PPM, TIFF, PNG) read back;
// `bench --decompress`; and bad requests, existing outputs and cut files refused with a
// message.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/image_io.hpp"
#include "j2kfront/j2kfront.h"
#include "j2kfront/j2kfront.hpp"
#include "tests/support/jp2_boxes.hpp"
#include "tests/support/packed_header_stream.hpp"
#include "tests/support/pgx_reader.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

#if J2K_TESTS_HAVE_LCMS2
#include <lcms2.h>
#endif
#if J2K_TESTS_HAVE_TIFF
#include <tiffio.h>
#endif

namespace fs = std::filesystem;
using test_support::quote;
using test_support::run_command;

namespace {

const std::string kCli = J2K_CLI_PATH;
const std::string kData = J2K_TEST_DATA_DIR;

class Decompress : public test_support::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    if (!test_support::on_path("opj_decompress") || !test_support::on_path("opj_compress"))
      GTEST_SKIP() << "opj_compress / opj_decompress not found (Debian: apt install libopenjp2-tools)";
  }

  // Decodes `stream` with `flags` by both decoders into PGX and expects the same components,
  // sample for sample, in the same files, byte for byte. Returns ours. `ours_only`: flags for our decoder alone (--backend).
  std::vector<test_support::Pgx> same_as_openjpeg(const std::string& stream, const std::string& flags, const std::string& tag,
                                                  const std::string& ours_only = "") {
    const std::string ours = path(tag + "_ours.pgx"), theirs = path(tag + "_opj.pgx");
    auto r = run_command(quote(kCli) + " decompress -i " + quote(stream) + " -o " + quote(ours) + " " + flags + " " +
                         ours_only + " --quiet");
    EXPECT_EQ(r.exit_code, 0) << tag << ": " << r.output;
    r = run_command("opj_decompress -i " + quote(stream) + " -o " + quote(theirs) + " " + flags);
    EXPECT_EQ(r.exit_code, 0) << tag << ": " << r.output;
    std::vector<test_support::Pgx> out;
    for (size_t c = 0;; ++c) {
      const std::string a = path(tag + "_ours_" + std::to_string(c) + ".pgx"), b = path(tag + "_opj_" + std::to_string(c) + ".pgx");
      if (!fs::exists(b)) {
        EXPECT_FALSE(fs::exists(a)) << tag << ": we wrote more components than opj_decompress";
        break;
      }
      if (!fs::exists(a)) {
        ADD_FAILURE() << tag << ": component " << c << " missing";
        break;
      }
      test_support::Pgx x = test_support::read_pgx(a), y = test_support::read_pgx(b);
      EXPECT_EQ(x.width, y.width) << tag << " component " << c;
      EXPECT_EQ(x.height, y.height) << tag << " component " << c;
      size_t differ = 0;
      for (size_t i = 0; i < std::min(x.samples.size(), y.samples.size()); ++i) differ += x.samples[i] != y.samples[i];
      EXPECT_EQ(differ, 0u) << tag << " component " << c << ": samples that differ from opj_decompress's";
      EXPECT_TRUE(test_support::file_bytes(a) == test_support::file_bytes(b)) << tag << " component " << c << ": the files differ";
      out.push_back(std::move(x));
    }
    EXPECT_FALSE(out.empty()) << tag;
    return out;
  }

  // The original image's samples against decoded components.
  static void expect_lossless(const std::string& image_path, const std::vector<test_support::Pgx>& got, const std::string& tag) {
    const j2kfront::Image image = j2k::io::read_image(image_path);
    ASSERT_EQ(image.components.size(), got.size()) << tag;
    for (size_t c = 0; c < got.size(); ++c) {
      const auto& k = image.components[c];
      const bool wide = k.sample_size() == 2;
      size_t differ = 0;
      for (size_t i = 0; i < got[c].samples.size(); ++i) {
        const int32_t v = wide ? reinterpret_cast<const uint16_t*>(k.bytes.data())[i] : k.bytes[i];
        differ += v != got[c].samples[i];
      }
      EXPECT_EQ(differ, 0u) << tag << " component " << c << ": not the original";
    }
  }
};

struct Case {
  const char* image;
  const char* flags;  // for both encoders
  bool lossless;
};

const Case kCases[] = {
    {"camera.pgm", "", true},
    {"astronaut.ppm", "", true},
    {"astronaut.ppm", "-I -r 20", false},
    {"astronaut.ppm", "-I -r 80,40,20 -n 4", false},
    {"coffee.ppm", "-r 40,10,1 -p RLCP", true},
    {"coffee.ppm", "-p RPCL -c [64,64],[32,32] -b 32,32", true},
    {"coffee.ppm", "-I -q 30,40 -p PCRL -c [128,128],[64,64]", false},
    {"camera.pgm", "-p CPRL -t 200,150 -d 7,3 -n 3", true},
    {"camera.pgm", "-M 63", true},
    {"camera.pgm", "-M 1 -I -r 10", false},
    {"camera.pgm", "-M 12 -r 8,2", false},
    {"astronaut.ppm", "-SOP -EPH -b 16,64", true},
    {"moon_u16.tif", "", true},
    {"moon_u16.tif", "-I -r 30", false},
};

TEST_F(Decompress, OurStreamsAsOpenJpegDecodesThem) {
  int k = 0;
  for (const Case& c : kCases) {
    const std::string tag = "ours" + std::to_string(k++), stream = path(tag + ".j2k"), image = kData + "/" + c.image;
    if (!J2K_TESTS_HAVE_TIFF && fs::path(image).extension() == ".tif") continue;  // this build reads no TIFF
    auto r = run_command(quote(kCli) + " compress -i " + quote(image) + " -o " + quote(stream) + " " + c.flags + " --quiet");
    ASSERT_EQ(r.exit_code, 0) << c.flags << ": " << r.output;
    const auto got = same_as_openjpeg(stream, "", tag);
    if (c.lossless) expect_lossless(image, got, tag + " (" + c.flags + ")");
  }
}

TEST_F(Decompress, OpenJpegsStreamsAsOpenJpegDecodesThem) {
  int k = 0;
  for (const Case& c : kCases) {
    const std::string tag = "opj" + std::to_string(k++), image = kData + "/" + c.image;
    if (fs::path(image).extension() == ".tif") continue;  // opj_compress's TIFF reader is not what is tested here
    const std::string stream = path(tag + ".j2k");
    auto r = run_command("opj_compress -i " + quote(image) + " -o " + quote(stream) + " " + c.flags);
    ASSERT_EQ(r.exit_code, 0) << c.flags << ": " << r.output;
    const auto got = same_as_openjpeg(stream, "", tag);
    if (c.lossless) expect_lossless(image, got, tag + " (" + c.flags + ")");
  }
}

// Issue 45: opj_compress's -POC streams were refused ("its data ends before its last packet",
// "its packets take 8799 of its 364786 bytes") where opj_decompress decodes them. Its POC
// changes go in the tile-part headers, one tile-part per change; a change whose layers start
// past its predecessor's sends nothing, and changes that overlap send packets again in the
// later tile-part. Each form decodes as opj_decompress decodes it: changes apart, overlapping,
// with more layers, in tiles (several changes per tile, other changes in another tile),
// with precincts. (Left out: changes that leave resolutions out, which OpenJPEG decodes into a
// corner of the image, and -TP with -POC, whose tile-parts opj_compress garbles.)
TEST_F(Decompress, PocStreamsAsOpenJpegDecodesThem) {
  const char* const forms[] = {
      "-POC T1=0,0,1,3,3,CPRL/T1=3,0,1,6,3,LRCP",
      "-r 20,10,1 -POC T1=0,0,3,3,3,RPCL/T1=3,0,3,6,3,PCRL",
      "-POC T1=0,0,1,3,3,CPRL/T1=0,0,1,6,3,LRCP",
      "-r 20,10,1 -POC T1=0,0,2,3,3,CPRL/T1=0,0,3,6,3,LRCP",
      "-t 256,256 -POC T1=0,0,1,6,3,CPRL/T1=0,0,1,6,3,LRCP/T2=0,0,1,6,3,PCRL",
      "-t 256,256 -r 20,10,1 -POC T1=0,0,1,6,3,RPCL/T1=0,0,3,6,3,LRCP/T2=0,0,2,6,3,CPRL/T2=0,0,3,6,3,RLCP",
      "-t 200,150 -c [64,64],[32,32] -r 20,10,1 -POC T1=0,0,2,6,3,PCRL/T1=0,0,3,6,3,CPRL",
  };
  int k = 0;
  for (const char* flags : forms) {
    const std::string tag = "poc" + std::to_string(k++), stream = path(tag + ".j2k");
    auto r = run_command("opj_compress -i " + quote(kData + "/coffee.ppm") + " -o " + quote(stream) + " " + flags);
    ASSERT_EQ(r.exit_code, 0) << flags << ": " << r.output;
    SCOPED_TRACE(flags);
    same_as_openjpeg(stream, "", tag);
  }
}

// An opj_compress stream of one tile with its POC changes moved out of the first tile-part's
// header: into the main header as one segment a change (`spread` false), or one change into
// each tile-part's header (true; the changes of a tile add up over its tile-parts, A.6.6).
// The other markers stay; each Psot follows its tile-part's new length.
std::vector<uint8_t> move_poc(const std::vector<uint8_t>& in, bool spread) {
  auto u16 = [&](size_t at) { return static_cast<size_t>(in[at] << 8 | in[at + 1]); };
  size_t at = 2;
  while (u16(at) != 0xFF90) at += 2 + u16(at + 2);  // the main header, up to the first SOT
  std::vector<uint8_t> main(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(at));
  std::vector<std::vector<uint8_t>> parts, changes;
  while (u16(at) == 0xFF90) {
    const size_t end = at + (static_cast<size_t>(in[at + 6]) << 24 | in[at + 7] << 16 | in[at + 8] << 8 | in[at + 9]);
    std::vector<uint8_t> part(in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(at + 12));
    for (at += 12; u16(at) != 0xFF93; at += 2 + u16(at + 2)) {
      const auto from = in.begin() + static_cast<std::ptrdiff_t>(at);
      if (u16(at) != 0xFF5F) part.insert(part.end(), from, from + 2 + static_cast<std::ptrdiff_t>(u16(at + 2)));
      for (size_t e = at + 4; u16(at) == 0xFF5F && e < at + 2 + u16(at + 2); e += 7)
        changes.emplace_back(in.begin() + static_cast<std::ptrdiff_t>(e), in.begin() + static_cast<std::ptrdiff_t>(e + 7));
    }
    part.insert(part.end(), in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(end));
    parts.push_back(std::move(part));
    at = end;
  }
  auto poc = [](std::vector<uint8_t>& out, size_t where, const std::vector<uint8_t>& change) {
    const std::vector<uint8_t> segment = {0xFF, 0x5F, 0, 9};
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(where), segment.begin(), segment.end());
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(where + 4), change.begin(), change.end());
  };
  std::vector<uint8_t> out = main;
  for (size_t k = 0; k < changes.size() && !spread; ++k) poc(out, out.size(), changes[k]);
  for (size_t j = 0; j < parts.size(); ++j) {
    std::vector<uint8_t>& part = parts[j];
    if (spread && j < changes.size()) poc(part, 12, changes[j]);
    const auto psot = static_cast<uint32_t>(part.size());
    for (int k = 0; k < 4; ++k) part[6 + static_cast<size_t>(k)] = static_cast<uint8_t>(psot >> (24 - 8 * k));
    out.insert(out.end(), part.begin(), part.end());
  }
  out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(at), in.end());  // EOC
  return out;
}

// The same changes elsewhere: in the main header as several POC segments, and spread over the
// tile-parts' headers (opj_compress writes them all in the first tile-part's header).
TEST_F(Decompress, PocSegmentsInTheMainHeaderAndOverTilePartsAsOpenJpeg) {
  int k = 0;
  for (const char* flags : {"-POC T1=0,0,1,3,3,CPRL/T1=0,0,1,6,3,LRCP", "-r 20,10,1 -POC T1=0,0,2,3,3,CPRL/T1=0,0,3,6,3,LRCP",
                            "-r 20,10,1 -POC T1=0,0,3,3,3,RPCL/T1=3,0,3,6,3,PCRL"}) {
    SCOPED_TRACE(flags);
    const std::string stream = path("pocs" + std::to_string(k) + ".j2k");
    auto r = run_command("opj_compress -i " + quote(kData + "/coffee.ppm") + " -o " + quote(stream) + " " + flags);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::vector<uint8_t> bytes = test_support::file_bytes(stream);
    for (bool spread : {false, true}) {
      const std::string tag = "pocs" + std::to_string(k) + (spread ? "_spread" : "_main"), moved = path(tag + ".j2k");
      const std::vector<uint8_t> out = move_poc(bytes, spread);
      ASSERT_TRUE(std::ofstream(moved, std::ios::binary).write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size())));
      same_as_openjpeg(moved, "", tag);
    }
    ++k;
  }
}

// opj_compress's streams with SOP and EPH (tiles, tile-parts per resolution, layers,
// precincts), their packet headers moved into PPM or PPT segments (issue 43).
const char* const kPackedHeaderFlags[] = {"-SOP -EPH -t 128,128 -TP R -n 3", "-SOP -EPH -r 20,5,1 -p RPCL -c [64,64],[32,32]"};
const char* const kPackedHeaderImages[] = {"camera.pgm", "coffee.ppm"};

// Writes `bytes` to the file `out`; returns its path.
std::string write_stream(const std::string& out, const std::vector<uint8_t>& bytes) {
  std::ofstream(out, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return out;
}

// Issue 43, item 1: the packed headers are put together in Zppm (Zppt) order, not the order the
// segments come in, and an Nppm run goes on from one PPM segment into the next (A.7.4, A.7.5).
TEST_F(Decompress, PackedHeadersOutOfOrderAsOpenJpeg) {
  for (size_t i = 0; i < 2; ++i) {
    const std::string stream = path("packed" + std::to_string(i) + ".j2k");
    auto r = run_command("opj_compress -i " + quote(kData + "/" + kPackedHeaderImages[i]) + " -o " + quote(stream) + " " + kPackedHeaderFlags[i]);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (bool ppt : {false, true})
      for (unsigned seed : {1u, 7u}) {
        test_support::PackedHeaderOptions o;
        o.ppt = ppt, o.shuffle_seed = seed;
        const std::string tag = "packed" + std::to_string(i) + (ppt ? "_ppt" : "_ppm") + std::to_string(seed);
        same_as_openjpeg(write_stream(path(tag + ".j2k"), test_support::packed_header_stream(test_support::file_bytes(stream), o)), "", tag);
      }
  }
}

// Issue 43, item 2: with packed headers and EPH signalled in COD, the EPH markers follow the
// headers in PPT or PPM (A.8.2). Out of Zppt order, they were looked for in the wrong bytes:
// "no EPH marker after a packet header", the failure first seen. Small segments here, so that
// a tile's tile-parts (-TP R) each have several and Zppt runs on over them.
TEST_F(Decompress, PackedHeadersWithEphAsOpenJpeg) {
  for (size_t i = 0; i < 2; ++i) {
    const std::string stream = path("eph" + std::to_string(i) + ".j2k");
    auto r = run_command("opj_compress -i " + quote(kData + "/" + kPackedHeaderImages[i]) + " -o " + quote(stream) + " " + kPackedHeaderFlags[i]);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (bool ppt : {false, true}) {
      test_support::PackedHeaderOptions o;
      o.ppt = ppt, o.keep_eph = true, o.segment_bytes = 8, o.shuffle_seed = 3;
      const std::string tag = "eph" + std::to_string(i) + (ppt ? "_ppt" : "_ppm");
      same_as_openjpeg(write_stream(path(tag + ".j2k"), test_support::packed_header_stream(test_support::file_bytes(stream), o)), "", tag);
    }
  }
}

// `in` without the tile-parts of the tiles in `dropped`.
std::vector<uint8_t> without_tiles(const std::vector<uint8_t>& in, const std::vector<int>& dropped) {
  auto be = [&](size_t at, int n) {
    uint32_t v = 0;
    for (int k = 0; k < n; ++k) v = v << 8 | in.at(at + static_cast<size_t>(k));
    return v;
  };
  size_t at = 2;
  while (be(at, 2) != 0xFF90) at += 2 + be(at + 2, 2);
  std::vector<uint8_t> out(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(at));
  while (be(at, 2) == 0xFF90) {
    const size_t end = at + be(at + 6, 4);
    if (std::find(dropped.begin(), dropped.end(), static_cast<int>(be(at + 4, 2))) == dropped.end())
      out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(end));
    at = end;
  }
  out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(at), in.end());
  return out;
}

// Issue 43, item 3: a stream some of whose tiles have no tile-part, the first of them tile 0,
// decodes as OpenJPEG decodes it (those tiles' samples 0), with a warning naming the tiles.
TEST_F(Decompress, TilesWithoutTilePartsAsOpenJpeg) {
  const char* const images[] = {"camera.pgm", "coffee.ppm"};
  const char* const flags[] = {"-t 128,128 -n 3", "-t 200,160 -TP R -d 13,7 -I -r 20"};
  for (size_t i = 0; i < 2; ++i) {
    const std::string stream = path("tiles" + std::to_string(i) + ".j2k");
    auto r = run_command("opj_compress -i " + quote(kData + "/" + images[i]) + " -o " + quote(stream) + " " + flags[i]);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string tag = "tiles" + std::to_string(i) + "_dropped";
    const std::string dropped = write_stream(path(tag + ".j2k"), without_tiles(test_support::file_bytes(stream), {0, 1, 5}));
    same_as_openjpeg(dropped, "", tag);
    r = run_command(quote(kCli) + " decompress -i " + quote(dropped) + " -o " + quote(path(tag + "_warned.pgx")));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("tile 0 has no tile-part"), std::string::npos) << r.output;
  }
}

TEST_F(Decompress, ReduceLayersRegionTileAndComponentsAsOpenJpeg) {
  const std::string stream = path("s.j2k");
  auto r = run_command("opj_compress -i " + quote(kData + "/astronaut.ppm") + " -o " + quote(stream) +
                       " -I -r 60,20,5 -t 200,160 -n 5 -p RPCL");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int k = 0;
  for (const char* flags : {"-r 1", "-r 2", "-r 4", "-l 1", "-l 2", "-r 1 -l 2", "-d 10,20,300,333", "-d 199,159,201,161",
                            "-r 2 -d 33,17,400,500", "-t 0", "-t 4", "-t 8", "-r 1 -t 5"})
    same_as_openjpeg(stream, flags, "f" + std::to_string(k++));
  // -c: the components asked, in order (opj_decompress skips the inverse RCT/ICT then; we
  // apply it, so compare a stream without one).
  const std::string plain = path("plain.j2k");
  r = run_command("opj_compress -i " + quote(kData + "/astronaut.ppm") + " -o " + quote(plain) + " -mct 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  same_as_openjpeg(plain, "-c 2", "c2");
  same_as_openjpeg(plain, "-c 0,2", "c02");
}

// Samples of more than 16 bits (PGX in and out, U32 / I32 in the library): opj_compress's
// streams of 20- and 23-bit unsigned and 18-bit signed images, lossless and 9/7, decoded as
// opj_decompress decodes them on every backend this machine has; the lossless unsigned ones
// give the original samples back. (OpenJPEG reads a signed 18-bit PGX as 17 bits: the signed
// streams are compared with opj_decompress only.)
TEST_F(Decompress, SamplesWiderThan16BitsAsOpenJpeg) {
  auto write_pgx = [&](const std::string& file, int bits, bool is_signed, int64_t w, int64_t h) {
    test_support::Pgx p;
    p.width = w, p.height = h;
    std::string bytes = "PG ML " + std::string(is_signed ? "-" : "+") + std::to_string(bits) + " " + std::to_string(w) + " " +
                        std::to_string(h) + "\n";
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        // Smooth rows with noise in the low bits and the range's ends here and there.
        int64_t v = (x * 40503 + y * 7919 + ((x * 2654435761u ^ y * 97u) % 4093)) % (int64_t{1} << bits);
        if ((x + 3 * y) % 97 == 0) v = (int64_t{1} << bits) - 1;
        if ((x + 5 * y) % 89 == 0) v = 0;
        if (is_signed) v -= int64_t{1} << (bits - 1);
        p.samples.push_back(static_cast<int32_t>(v));
        for (int k = 3; k >= 0; --k) bytes.push_back(static_cast<char>(static_cast<uint32_t>(v) >> (8 * k)));
      }
    std::ofstream(file, std::ios::binary) << bytes;
    return p;
  };
  std::vector<std::string> backends = {""};
  for (auto [name, b] : {std::pair{"cuda", J2K_BACKEND_CUDA}, std::pair{"opencl", J2K_BACKEND_OPENCL}})
    if (j2k_backend_available(b, nullptr)) backends.push_back(std::string("--backend ") + name);
  const struct {
    int bits;
    bool is_signed;
    const char* encode;
  } cases[] = {{20, false, ""}, {20, false, "-I -r 10"}, {23, false, "-n 4"}, {18, true, ""}, {18, true, "-I -r 10"}};
  int k = 0;
  for (const auto& c : cases) {
    const std::string tag = "wide" + std::to_string(k++), image = path(tag + ".pgx"), stream = path(tag + ".j2k");
    const test_support::Pgx original = write_pgx(image, c.bits, c.is_signed, 131, 75);
    auto r = run_command("opj_compress -i " + quote(image) + " -o " + quote(stream) + " " + c.encode);
    ASSERT_EQ(r.exit_code, 0) << c.encode << ": " << r.output;
    for (const std::string& backend : backends) {
      const auto got = same_as_openjpeg(stream, "", tag + (backend.empty() ? "" : "_" + backend.substr(10)), backend);
      ASSERT_EQ(got.size(), 1u) << tag;
      if (!c.is_signed && *c.encode != '-') {
        EXPECT_EQ(got[0].samples, original.samples) << tag << " " << backend << ": not the original";
      }
    }
  }
}

// The GPU back stages (inverse DWT, inverse RCT/ICT, DC shift and clamp on the device) give
// opj_decompress's samples too: both wavelets, with and without the MCT, 8 and 16 bits, many
// tiles (the device's work overlapping the next tile's Tier-1), reduce and region. Where a
// backend is missing it is refused naming why, and nothing is written.
TEST_F(Decompress, GpuBackStagesAsOpenJpeg) {
  const struct {
    const char* image;
    const char* encode;  // our compress's flags
    const char* decode;  // both decoders' flags
  } cases[] = {
      {"astronaut.ppm", "", ""},
      {"astronaut.ppm", "-I -r 20", ""},
      {"camera.pgm", "-t 200,150 -d 7,3 -n 3", ""},
      {"coffee.ppm", "-I -r 40,10 -t 128,128 -d 5,9", "-r 1"},
      {"coffee.ppm", "-t 160,96", "-d 33,17,300,200"},
      {"moon_u16.tif", "-I -r 30", ""},
      {"moon_u16.tif", "", "-r 2"},
      // HT code-blocks: Tier-1 on the GPU too.
      {"astronaut.ppm", "--ht", ""},
      {"coffee.ppm", "--ht -I -t 128,128 -d 5,9", "-r 1"},
  };
  int tested = 0;
  std::string missing;
  for (const char* name : {"cuda", "opencl"}) {
    const j2k_backend b = std::string(name) == "cuda" ? J2K_BACKEND_CUDA : J2K_BACKEND_OPENCL;
    const char* why = nullptr;
    if (!j2k_backend_available(b, &why)) {
      const std::string stream = path(std::string(name) + "_none.j2k"), out = path(std::string(name) + "_none.pgm");
      auto r = run_command(quote(kCli) + " compress -i " + quote(kData + "/camera.pgm") + " -o " + quote(stream) + " --quiet");
      ASSERT_EQ(r.exit_code, 0) << r.output;
      r = run_command(quote(kCli) + " decompress -i " + quote(stream) + " -o " + quote(out) + " --backend " + name);
      EXPECT_NE(r.exit_code, 0) << name << ": " << r.output;
      EXPECT_FALSE(fs::exists(out)) << name;
      missing += std::string(" ") + name + " (" + (why ? why : "?") + ")";
      continue;
    }
    int k = 0;
    for (const auto& c : cases) {
      const std::string image = kData + "/" + c.image;
      if (!J2K_TESTS_HAVE_TIFF && fs::path(image).extension() == ".tif") continue;
      const std::string tag = std::string(name) + std::to_string(k++), stream = path(tag + ".j2k");
      auto r = run_command(quote(kCli) + " compress -i " + quote(image) + " -o " + quote(stream) + " " + c.encode + " --quiet");
      ASSERT_EQ(r.exit_code, 0) << c.encode << ": " << r.output;
      same_as_openjpeg(stream, c.decode, tag, std::string("--backend ") + name);
      ++tested;
    }
  }
  if (tested == 0) GTEST_SKIP() << "no GPU back stage here:" << missing;
}

// Colour as opj_decompress converts it before writing: three components with the second
// subsampled (4:2:0, 4:2:2; from even and odd origins, at odd sizes, with -r and a region
// from an odd column) from sYCC to RGB, and JP2 files whose colour specification says sYCC
// (4:4:4) or e-sYCC. Streams from the library's encoder (the CLI reads full-size images only).
TEST_F(Decompress, ColourConversionsAsOpenJpeg) {
  struct ColourCase {
    uint32_t x0, y0, w, h;
    int dx, dy;
    j2k_file_format format;
    int enum_cs;  // written into the JP2 file's colr box; 0: as the encoder wrote it
    const char* flags;
    int comps = 3;      // CMYK: 4, or 5 with a channel after K
    int precision = 8;
  };
  const ColourCase cases[] = {
      {0, 0, 64, 48, 2, 2, J2K_FORMAT_J2K, 0, ""},         {1, 1, 63, 47, 2, 2, J2K_FORMAT_J2K, 0, ""},
      {0, 1, 37, 29, 2, 2, J2K_FORMAT_J2K, 0, ""},         {3, 0, 50, 31, 2, 1, J2K_FORMAT_J2K, 0, ""},
      {0, 0, 64, 48, 2, 2, J2K_FORMAT_J2K, 0, "-r 1"},     {0, 0, 64, 48, 2, 2, J2K_FORMAT_J2K, 0, "-d 5,3,41,40"},
      {2, 2, 45, 33, 1, 1, J2K_FORMAT_JP2, 18, ""},       {0, 0, 40, 30, 1, 1, J2K_FORMAT_JP2, 24, ""},
      {1, 0, 40, 31, 2, 2, J2K_FORMAT_JP2, 18, ""},       {1, 1, 40, 32, 2, 2, J2K_FORMAT_J2K, 0, ""},
      {0, 0, 33, 20, 2, 1, J2K_FORMAT_J2K, 0, "-r 1"},
      // CMYK to 8-bit RGB; a fifth component moves up to the fourth place.
      {0, 0, 40, 30, 1, 1, J2K_FORMAT_JP2, 12, "", 4, 8},  {1, 1, 33, 21, 1, 1, J2K_FORMAT_JP2, 12, "-r 1", 5, 12},
      {0, 0, 17, 9, 1, 1, J2K_FORMAT_JP2, 12, "", 4, 16},
  };
  int k = 0;
  for (const ColourCase& c : cases) {
    j2kfront::Image img;
    img.x0 = c.x0, img.y0 = c.y0, img.width = c.w, img.height = c.h;
    const bool wide = c.precision > 8;
    for (int comp = 0; comp < c.comps; ++comp) {
      auto& plane = img.add_component(wide ? J2K_SAMPLE_U16 : J2K_SAMPLE_U8, c.precision, comp == 0 ? 1 : c.dx, comp == 0 ? 1 : c.dy);
      for (int64_t y = 0; y < plane.height; ++y)
        for (int64_t x = 0; x < plane.width; ++x) {
          // The range's ends too (no ink, full ink).
          const int64_t v = (x + y) % 13 == 0 ? 0 : (x + 2 * y) % 11 == 0 ? (int64_t{1} << c.precision) - 1
                                                                          : (x * 37 + y * 11 + comp * 71 + (x * y) % 23) * 257;
          const auto s = static_cast<uint32_t>(v & ((int64_t{1} << c.precision) - 1));
          if (wide) plane.row<uint16_t>(y)[x] = static_cast<uint16_t>(s);
          else plane.row<uint8_t>(y)[x] = static_cast<uint8_t>(s);
        }
    }
    j2kfront::Settings settings;
    settings.backend = J2K_BACKEND_CPU;
    settings.levels = 3;
    settings.mct = J2K_MCT_OFF;
    j2kfront::Coding coding;
    coding.format = c.format;
    j2kfront::Encoder encoder(settings, coding, img.view());
    std::vector<uint8_t> bytes = encoder.encode(img.view());
    if (c.enum_cs != 0) {  // colr, method 1: its EnumCS is the 4 bytes after METH, PREC, APPROX
      const uint8_t colr[] = {'c', 'o', 'l', 'r'};
      auto at = std::search(bytes.begin(), bytes.end(), std::begin(colr), std::end(colr));
      ASSERT_NE(at, bytes.end());
      ASSERT_EQ(at[4], 1) << "a colour specification by EnumCS";
      at[7] = at[8] = at[9] = 0;
      at[10] = static_cast<uint8_t>(c.enum_cs);
    }
    const std::string tag = "colour" + std::to_string(k++);
    const std::string stream = path(tag + (c.format == J2K_FORMAT_JP2 ? ".jp2" : ".j2k"));
    {
      std::ofstream f(stream, std::ios::binary);
      f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    const auto got = same_as_openjpeg(stream, c.flags, tag);
    ASSERT_EQ(got.size(), c.enum_cs == 12 ? static_cast<size_t>(c.comps - 1) : 3u) << tag;
    // Converted: all three planes at the first one's size.
    EXPECT_EQ(got[1].width, got[0].width) << tag;
    EXPECT_EQ(got[2].height, got[0].height) << tag;
  }
}

namespace {

// An image of `comps` components of `precision` bits whose samples cover the range and its
// ends; `scale_from`: the samples made at that many bits, then scaled to `precision` (0: made
// at `precision`).
j2kfront::Image colour_test_image(int comps, int precision, int scale_from = 0) {
  j2kfront::Image img;
  img.width = 37, img.height = 23;
  const bool wide = precision > 8;
  const int64_t top = (int64_t{1} << precision) - 1;
  for (int comp = 0; comp < comps; ++comp) {
    auto& plane = img.add_component(wide ? J2K_SAMPLE_U16 : J2K_SAMPLE_U8, precision, 1, 1);
    for (int64_t y = 0; y < plane.height; ++y)
      for (int64_t x = 0; x < plane.width; ++x) {
        const int bits = scale_from ? scale_from : precision;
        const int64_t from_top = (int64_t{1} << bits) - 1;
        int64_t v = (x + y) % 13 == 0 ? 0 : (x + 2 * y) % 11 == 0 ? from_top : (x * 37 + y * 11 + comp * 71 + (x * y) % 23) * 257 & from_top;
        if (scale_from) v = (v * top + from_top / 2) / from_top;
        if (wide) plane.row<uint16_t>(y)[x] = static_cast<uint16_t>(v);
        else plane.row<uint8_t>(y)[x] = static_cast<uint8_t>(v);
      }
  }
  return img;
}

// The image as a JP2 file by the library's encoder (lossless), its Colour Specification box
// holding `colr` instead (the JP2 Header box's length follows).
std::vector<uint8_t> jp2_with_colr(const j2kfront::Image& img, const std::vector<uint8_t>& colr) {
  j2kfront::Settings settings;
  settings.backend = J2K_BACKEND_CPU;
  settings.levels = 3;
  settings.mct = J2K_MCT_OFF;
  j2kfront::Coding coding;
  coding.format = J2K_FORMAT_JP2;
  j2kfront::Encoder encoder(settings, coding, img.view());
  std::vector<uint8_t> bytes = encoder.encode(img.view());
  auto find = [&](const char* type) {
    auto at = std::search(bytes.begin(), bytes.end(), type, type + 4);
    EXPECT_NE(at, bytes.end()) << type;
    return static_cast<size_t>(at - bytes.begin()) - 4;  // the box's start
  };
  auto be32 = [&](size_t at) { return uint32_t{bytes[at]} << 24 | uint32_t{bytes[at + 1]} << 16 | uint32_t{bytes[at + 2]} << 8 | bytes[at + 3]; };
  auto put32 = [&](size_t at, uint32_t v) {
    for (int k = 0; k < 4; ++k) bytes[at + k] = static_cast<uint8_t>(v >> (24 - 8 * k));
  };
  const size_t box = find("colr"), old_length = be32(box);
  std::vector<uint8_t> replacement(8, 0);
  replacement.insert(replacement.end(), colr.begin(), colr.end());
  replacement[4] = 'c', replacement[5] = 'o', replacement[6] = 'l', replacement[7] = 'r';
  for (int k = 0; k < 4; ++k) replacement[k] = static_cast<uint8_t>((8 + colr.size()) >> (24 - 8 * k));
  bytes.erase(bytes.begin() + static_cast<ptrdiff_t>(box), bytes.begin() + static_cast<ptrdiff_t>(box + old_length));
  bytes.insert(bytes.begin() + static_cast<ptrdiff_t>(box), replacement.begin(), replacement.end());
  const size_t header = find("jp2h");
  put32(header, be32(header) + static_cast<uint32_t>(8 + colr.size()) - static_cast<uint32_t>(old_length));
  return bytes;
}

// colr contents for CIELab (EnumCS 14): the defaults, or with ranges and offsets; for any
// other EnumCS (fields empty).
std::vector<uint8_t> enum_cs_colr(uint8_t enum_cs, const std::vector<uint32_t>& fields = {}) {
  std::vector<uint8_t> colr{1, 0, 0, 0, 0, 0, enum_cs};
  for (uint32_t v : fields)
    for (int k = 0; k < 4; ++k) colr.push_back(static_cast<uint8_t>(v >> (24 - 8 * k)));
  return colr;
}

#if J2K_TESTS_HAVE_TIFF
// A TIFF's tags that matter here and its samples in order, through libtiff.
struct TiffSamples {
  uint16_t photometric = 0, channels = 0, bits = 0;
  uint32_t width = 0, height = 0;
  std::vector<uint32_t> samples;
};
TiffSamples read_tiff_samples(const std::string& name) {
  TiffSamples t;
  TIFF* tif = TIFFOpen(name.c_str(), "r");
  EXPECT_NE(tif, nullptr) << name;
  if (tif == nullptr) return t;
  TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &t.photometric);
  TIFFGetField(tif, TIFFTAG_SAMPLESPERPIXEL, &t.channels);
  TIFFGetField(tif, TIFFTAG_BITSPERSAMPLE, &t.bits);
  TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &t.width);
  TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &t.height);
  std::vector<uint8_t> row(static_cast<size_t>(TIFFScanlineSize(tif)));
  for (uint32_t y = 0; y < t.height; ++y) {
    EXPECT_EQ(TIFFReadScanline(tif, row.data(), y, 0), 1) << name;
    for (size_t i = 0; i < static_cast<size_t>(t.width) * t.channels; ++i)
      t.samples.push_back(t.bits == 16 ? reinterpret_cast<const uint16_t*>(row.data())[i] : row[i]);
  }
  TIFFClose(tif);
  return t;
}
#endif

#if J2K_TESTS_HAVE_LCMS2
// colr contents: method 2 and the profile's bytes.
std::vector<uint8_t> icc_colr(cmsHPROFILE profile) {
  cmsUInt32Number size = 0;
  cmsSaveProfileToMem(profile, nullptr, &size);
  std::vector<uint8_t> colr{2, 0, 0};
  colr.resize(3 + size);
  cmsSaveProfileToMem(profile, colr.data() + 3, &size);
  cmsCloseProfile(profile);
  return colr;
}

// An RGB profile unlike sRGB (Adobe RGB's primaries, gamma 1.8) and a grey one (gamma 1.5).
std::vector<uint8_t> rgb_profile_colr() {
  cmsCIExyY white;
  cmsWhitePointFromTemp(&white, 6504);
  const cmsCIExyYTRIPLE primaries = {{0.64, 0.33, 1}, {0.21, 0.71, 1}, {0.15, 0.06, 1}};
  cmsToneCurve* gamma = cmsBuildGamma(nullptr, 1.8);
  cmsToneCurve* curves[3] = {gamma, gamma, gamma};
  cmsHPROFILE p = cmsCreateRGBProfile(&white, &primaries, curves);
  cmsFreeToneCurve(gamma);
  return icc_colr(p);
}
std::vector<uint8_t> grey_profile_colr() {
  cmsToneCurve* gamma = cmsBuildGamma(nullptr, 1.5);
  cmsHPROFILE p = cmsCreateGrayProfile(cmsD50_xyY(), gamma);
  cmsFreeToneCurve(gamma);
  return icc_colr(p);
}

#endif

}  // namespace

// A JP2 file's ICC profile or CIELab, converted to sRGB as opj_decompress converts them with
// Little CMS: RGB profiles at 8 and 16 bits (an alpha kept), grey ones at 8 bits (with and
// without alpha: the image becomes RGB), CIELab with the default and with given ranges.
// Where opj_decompress has no colour-managed result (12-bit samples, which it hands over as
// if 16-bit), a 12-bit image comes out as the same image at 16 bits does, scaled; and a
// profile that does not fit the image is not applied, with a warning.
TEST_F(Decompress, IccProfilesAndCieLabAsOpenJpeg) {
#if !J2K_TESTS_HAVE_LCMS2
  GTEST_SKIP() << "this build has no Little CMS (Debian: liblcms2-dev): ICC profiles are not applied";
#else
  struct ProfileCase {
    const char* tag;
    int comps, precision;
    std::vector<uint8_t> colr;
    size_t comps_out;
  };
  const ProfileCase cases[] = {
      {"rgb8", 3, 8, rgb_profile_colr(), 3},
      {"rgba8", 4, 8, rgb_profile_colr(), 4},
      {"rgb16", 3, 16, rgb_profile_colr(), 3},
      {"grey8", 1, 8, grey_profile_colr(), 3},
      {"greya8", 2, 8, grey_profile_colr(), 4},
      {"lab8", 3, 8, enum_cs_colr(14), 3},
      {"lab16", 3, 16, enum_cs_colr(14, {100, 0, 255, 128, 200, 96, 0x00443530}), 3},
      {"lab12", 3, 12, enum_cs_colr(14, {100, 7, 170, 2048, 200, 1536, 0x00443635}), 3},
  };
  for (const ProfileCase& c : cases) {
    const j2kfront::Image img = colour_test_image(c.comps, c.precision);
    const std::vector<uint8_t> bytes = jp2_with_colr(img, c.colr);
    const std::string stream = path(std::string(c.tag) + ".jp2");
    std::ofstream(stream, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    const auto got = same_as_openjpeg(stream, "", c.tag);
    ASSERT_EQ(got.size(), c.comps_out) << c.tag;
    // Converted: the colour samples are not the image's (the profiles are not sRGB's), an
    // alpha is.
    const auto& first = img.components[0];
    size_t same = 0;
    for (size_t i = 0; i < got[0].samples.size(); ++i)
      same += got[0].samples[i] == (c.precision > 8 ? reinterpret_cast<const uint16_t*>(first.bytes.data())[i] : first.bytes[i]);
    EXPECT_LT(same, got[0].samples.size() / 2) << c.tag << ": the samples look unconverted";
    if (c.comps_out == 4) {
      const auto& alpha = img.components.back();
      for (size_t i = 0; i < got[3].samples.size(); ++i) ASSERT_EQ(got[3].samples[i], alpha.bytes[i]) << c.tag << ": the alpha at " << i;
    }
  }

  // 12-bit samples: as the 16-bit image of the same colours comes out, scaled back to 12 bits.
  auto ours = [&](const j2kfront::Image& img, const std::string& tag) {
    const std::vector<uint8_t> bytes = jp2_with_colr(img, rgb_profile_colr());
    const std::string stream = path(tag + ".jp2"), out = path(tag + ".pgx");
    std::ofstream(stream, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    auto r = run_command(quote(kCli) + " decompress -i " + quote(stream) + " -o " + quote(out) + " --quiet");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::vector<test_support::Pgx> planes;
    for (int k = 0; k < 3; ++k) planes.push_back(test_support::read_pgx(path(tag + "_" + std::to_string(k) + ".pgx")));
    return planes;
  };
  const auto at12 = ours(colour_test_image(3, 12), "rgb12"), at16 = ours(colour_test_image(3, 16, 12), "rgb12as16");
  for (int k = 0; k < 3; ++k) {
    ASSERT_EQ(at12[k].samples.size(), at16[k].samples.size());
    size_t differ = 0;
    for (size_t i = 0; i < at12[k].samples.size(); ++i) differ += at12[k].samples[i] != (at16[k].samples[i] * 4095 + 32767) / 65535;
    EXPECT_EQ(differ, 0u) << "component " << k << ": 12-bit samples unlike the 16-bit image's";
  }

  // A grey profile on three components: not applied, said so, the samples as decoded.
  const j2kfront::Image rgb = colour_test_image(3, 8);
  const std::vector<uint8_t> bytes = jp2_with_colr(rgb, grey_profile_colr());
  const std::string stream = path("misfit.jp2"), out = path("misfit.pgx");
  std::ofstream(stream, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  auto r = run_command(quote(kCli) + " decompress -i " + quote(stream) + " -o " + quote(out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ICC profile is not applied: a grey profile for 3 components"), std::string::npos) << r.output;
  for (int k = 0; k < 3; ++k) {
    const auto plane = test_support::read_pgx(path("misfit_" + std::to_string(k) + ".pgx"));
    for (size_t i = 0; i < plane.samples.size(); ++i) ASSERT_EQ(plane.samples[i], rgb.components[static_cast<size_t>(k)].bytes[i]) << "component " << k;
  }

  // A profile whose colour space (header bytes 16..19) is no signature Little CMS names: not
  // applied, said so (and read as a number: under UBSan an out-of-range enum fails this).
  std::vector<uint8_t> odd = rgb_profile_colr();
  const uint8_t unknown_space[4] = {0xB9, 0xAD, 0xBE, 0xA6};
  std::copy(unknown_space, unknown_space + 4, odd.begin() + 3 + 16);
  const std::vector<uint8_t> odd_bytes = jp2_with_colr(rgb, odd);
  const std::string odd_stream = path("odd_space.jp2"), odd_out = path("odd_space.pgx");
  std::ofstream(odd_stream, std::ios::binary).write(reinterpret_cast<const char*>(odd_bytes.data()), static_cast<std::streamsize>(odd_bytes.size()));
  r = run_command(quote(kCli) + " decompress -i " + quote(odd_stream) + " -o " + quote(odd_out));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ICC profile is not applied: it is not an RGB, YCbCr or grey profile"), std::string::npos) << r.output;
#endif
}

// CMYK written as TIFF stays CMYK (four separated inks; a fifth channel left out), as
// opj_decompress writes it, where every other format gets RGB.
TEST_F(Decompress, CmykStaysCmykInTiffAsOpenJpeg) {
#if !J2K_TESTS_HAVE_TIFF
  GTEST_SKIP() << "this build writes no TIFF (libtiff not found)";
#else
  for (const auto& [comps, precision] : {std::pair{4, 8}, std::pair{5, 8}, std::pair{4, 16}}) {
    const std::string tag = "cmyk" + std::to_string(comps) + "_" + std::to_string(precision);
    const j2kfront::Image img = colour_test_image(comps, precision);
    const std::vector<uint8_t> bytes = jp2_with_colr(img, enum_cs_colr(12));
    const std::string stream = path(tag + ".jp2"), ours = path(tag + "_ours.tif"), theirs = path(tag + "_opj.tif");
    std::ofstream(stream, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    auto r = run_command(quote(kCli) + " decompress -i " + quote(stream) + " -o " + quote(ours) + " --quiet");
    ASSERT_EQ(r.exit_code, 0) << tag << ": " << r.output;
    r = run_command("opj_decompress -i " + quote(stream) + " -o " + quote(theirs));
    ASSERT_EQ(r.exit_code, 0) << tag << ": " << r.output;
    const TiffSamples a = read_tiff_samples(ours), b = read_tiff_samples(theirs);
    EXPECT_EQ(a.photometric, PHOTOMETRIC_SEPARATED) << tag;
    EXPECT_EQ(a.photometric, b.photometric) << tag;
    EXPECT_EQ(a.channels, 4) << tag;
    EXPECT_EQ(a.channels, b.channels) << tag;
    EXPECT_EQ(a.bits, b.bits) << tag;
    EXPECT_EQ(a.samples, b.samples) << tag;
    // The inks as coded (lossless).
    ASSERT_EQ(a.samples.size(), static_cast<size_t>(img.width * img.height * 4)) << tag;
    for (size_t i = 0; i < a.samples.size(); ++i) {
      const auto& k = img.components[i % 4];
      const uint32_t v = precision > 8 ? reinterpret_cast<const uint16_t*>(k.bytes.data())[i / 4] : k.bytes[i / 4];
      ASSERT_EQ(a.samples[i], v) << tag << " sample " << i;
    }
  }
#endif
}

// `j2kfront bench --decompress` on a small image: a row per tool and mode, ours checked
// against opj_decompress's, the CSV with the same rows; with --cpus every tool confined to
// those CPUs and as many threads; CPUs this process may not use are refused.
TEST_F(Decompress, BenchComparesWithTheOtherDecoders) {
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  std::string cpus;  // up to two CPUs this process may use
  for (int c = 0, n = 0; c < CPU_SETSIZE && n < 2; ++c)
    if (CPU_ISSET(c, &mine)) cpus += (n++ ? "," : "") + std::to_string(c);
  const std::string csv = path("bench.csv");
  auto r = run_command(quote(kCli) + " bench --decompress --repeats 1 --inputs " + quote(kData + "/camera.pgm") + " --cpus " +
                       cpus + " --csv " + quote(csv));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string threads = std::to_string(std::count(cpus.begin(), cpus.end(), ',') + 1);
  EXPECT_NE(r.output.find("threads: " + threads + " for every tool, on CPUs " + cpus), std::string::npos) << r.output;
  for (const char* want : {"lossless  j2kfront", "lossless  opj_decompress", "-I -r 20  j2kfront", "-I -r 20  opj_decompress",
                           "= opj_decompress's", "lossless  j2kfront --ht", "= opj_decompress's of the HT stream", "peak MiB"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header, "image,mode,tool,threads,ms,speed_vs_opj,stream_bytes,same_as_opj,peak_mib");
  int rows = 0, ours = 0;
  while (std::getline(in, line)) {
    ++rows;
    // Ours on opj_compress's stream, and on our own of HT code-blocks.
    if (line.find(",j2kfront,") == std::string::npos && line.find(",j2kfront --ht,") == std::string::npos) continue;
    ++ours;
    EXPECT_NE(line.find("," + threads + ","), std::string::npos) << line;
    // same_as_opj, then peak_mib: a process's resident set, in MiB.
    const size_t peak = line.rfind(',');
    EXPECT_EQ(line.substr(peak - 2, 3), ",1,") << "ours differs from opj_decompress's: " << line;
    EXPECT_GT(std::stod(line.substr(peak + 1)), 1.0) << line;
  }
  EXPECT_GE(rows, 6) << "two modes, three tools at least";
  EXPECT_EQ(ours, 4) << "two modes, ours on EBCOT and HT streams";

  // A folder of copies of each stream, each tool over the folder in one process.
  r = run_command(quote(kCli) + " bench --decompress --repeats 1 --directory 2 --inputs " + quote(kData + "/camera.pgm") + " --cpus " +
                  cpus + " --csv " + quote(csv));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* want : {"camera.pgm x2", "lossless  j2kfront", "-I -r 20  opj_decompress", "= opj_decompress's"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
  EXPECT_EQ(r.output.find("DIFFERS"), std::string::npos) << r.output;

  // Streams in tiles (camera.pgm, 512^2: 16 of them).
  r = run_command(quote(kCli) + " bench --decompress --repeats 1 --tile-size 128 --inputs " + quote(kData + "/camera.pgm") +
                  " --cpus " + cpus);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* want : {"streams in tiles of 128 x 128", "camera.pgm t128", "= opj_decompress's"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
  EXPECT_EQ(r.output.find("DIFFERS"), std::string::npos) << r.output;

  // A CPU the machine does not have: one only outside this process's affinity (the tests run
  // under taskset) is still one the benchmark may take.
  const long unusable = sysconf(_SC_NPROCESSORS_CONF);
  r = run_command(quote(kCli) + " bench --decompress --inputs " + quote(kData + "/camera.pgm") + " --cpus " + std::to_string(unusable));
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--cpus"), std::string::npos) << r.output;
}

TEST_F(Decompress, EveryFormatHoldsTheSamples) {
  const std::string stream = path("s.jp2");
  auto r = run_command(quote(kCli) + " compress -i " + quote(kData + "/astronaut.ppm") + " -o " + quote(stream) + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const j2kfront::Image original = j2k::io::read_image(kData + "/astronaut.ppm");
  for (const char* ext : {".ppm", ".pnm", ".tif", ".png"}) {
    if (!J2K_TESTS_HAVE_TIFF && std::string(ext) == ".tif") continue;  // this build writes no TIFF
    const std::string out = path(std::string("out") + ext);
    r = run_command(quote(kCli) + " decompress -i " + quote(stream) + " -o " + quote(out) + " --quiet");
    ASSERT_EQ(r.exit_code, 0) << ext << ": " << r.output;
    const j2kfront::Image back = j2k::io::read_image(out);
    ASSERT_EQ(back.components.size(), 3u) << ext;
    for (size_t c = 0; c < 3; ++c) EXPECT_EQ(back.components[c].bytes, original.components[c].bytes) << ext << " component " << c;
  }
  // 16-bit samples through PGM, TIFF and PNG.
  if (!J2K_TESTS_HAVE_TIFF) GTEST_SKIP() << "the 16-bit sample is a TIFF, and this build reads no TIFF (libtiff not found)";
  const std::string wide = path("w.j2k");
  r = run_command(quote(kCli) + " compress -i " + quote(kData + "/moon_u16.tif") + " -o " + quote(wide) + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const j2kfront::Image moon = j2k::io::read_image(kData + "/moon_u16.tif");
  for (const char* ext : {".pgm", ".tif", ".png"}) {
    const std::string out = path(std::string("w") + ext);
    r = run_command(quote(kCli) + " decompress -i " + quote(wide) + " -o " + quote(out) + " --quiet");
    ASSERT_EQ(r.exit_code, 0) << ext << ": " << r.output;
    const j2kfront::Image back = j2k::io::read_image(out);
    ASSERT_EQ(back.components.size(), 1u) << ext;
    EXPECT_EQ(back.components[0].bytes, moon.components[0].bytes) << ext;
  }
}

// PGM/PPM outputs of 1 to 5 components hold what opj_decompress writes, byte for byte less its
// comment line: a .pgm the first component; a .ppm or .pnm P5, a PAM of grey + alpha, P6, a
// PAM of RGBA, the first three of five; with a warning where components are left out.
TEST_F(Decompress, PnmOutputsHoldWhatOpenJpegWrites) {
  for (int n = 1; n <= 5; ++n) {
    const std::string raw = path("r" + std::to_string(n) + ".raw"), stream = path("c" + std::to_string(n) + ".j2k");
    {
      std::ofstream f(raw, std::ios::binary);
      for (int i = 0; i < 7 * 5 * n; ++i) f.put(static_cast<char>(i * 53 + n));
    }
    auto r = run_command("opj_compress -i " + quote(raw) + " -F 7,5," + std::to_string(n) + ",8,u -o " + quote(stream) + " -n 2");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char* ext : {".pgm", ".ppm", ".pnm"}) {
      const std::string ours = path("ours" + std::to_string(n) + ext), theirs = path("opj" + std::to_string(n) + ext);
      r = run_command(quote(kCli) + " decompress -i " + quote(stream) + " -o " + quote(ours) + " --quiet");
      ASSERT_EQ(r.exit_code, 0) << n << ext << ": " << r.output;
      const bool dropped = std::string(ext) == ".pgm" ? n > 1 : n > 4;
      EXPECT_EQ(r.output.find("warning") != std::string::npos, dropped) << n << ext << ": " << r.output;
      r = run_command("opj_decompress -i " + quote(stream) + " -o " + quote(theirs));
      ASSERT_EQ(r.exit_code, 0) << r.output;
      std::vector<uint8_t> want = test_support::file_bytes(theirs);
      // opj_decompress's comment line ("#OpenJPEG-2.5.0" or "# OpenJPEG-2.5.0") after the magic.
      const auto comment = std::find(want.begin(), want.end(), '#');
      ASSERT_NE(comment, want.end()) << theirs;
      want.erase(comment, std::find(comment, want.end(), '\n') + 1);
      EXPECT_EQ(test_support::file_bytes(ours), want) << n << " components to " << ext;
    }
  }
}

// A JP2 file whose one component indexes a palette of 3 colour columns (cmap), with the red
// and blue channels defined in each other's places (cdef): decoded to the palette's colours in
// the colours' order, as opj_decompress decodes it, indices beyond the palette clamped.
TEST_F(Decompress, Jp2PaletteAndChannelDefinitions) {
  const int w = 40, h = 30, entries = 20;
  {
    std::ofstream pgm(path("idx.pgm"), std::ios::binary);
    pgm << "P5\n" << w << " " << h << "\n255\n";
    for (int i = 0; i < w * h; ++i) pgm.put(static_cast<char>((i * 7) % (entries + 5)));  // some beyond the palette
  }
  auto r = run_command(quote(kCli) + " compress -i " + quote(path("idx.pgm")) + " -o " + quote(path("idx.j2k")) + " -n 3 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<uint8_t> cs = test_support::file_bytes(path("idx.j2k"));
  auto put = [](std::vector<uint8_t>& o, uint64_t v, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) o.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto box = [&](const char* type, const std::vector<uint8_t>& body) {
    std::vector<uint8_t> b(8 + body.size());
    for (int i = 0; i < 4; ++i) b[static_cast<size_t>(i)] = static_cast<uint8_t>(b.size() >> (24 - 8 * i));
    std::copy(type, type + 4, b.begin() + 4);
    std::copy(body.begin(), body.end(), b.begin() + 8);
    return b;
  };
  auto palette = [](int k, int column) { return (k * 37 + column * 85) % 256; };
  std::vector<uint8_t> ihdr, colr = {1, 0, 0, 0, 0, 0, 16}, pclr, cmap, cdef;
  put(ihdr, h, 4), put(ihdr, w, 4), put(ihdr, 1, 2), put(ihdr, 7, 1), put(ihdr, 7, 1), put(ihdr, 0, 1), put(ihdr, 0, 1);
  put(pclr, entries, 2), put(pclr, 3, 1);
  for (int c = 0; c < 3; ++c) put(pclr, 7, 1);
  for (int k = 0; k < entries; ++k)
    for (int c = 0; c < 3; ++c) put(pclr, static_cast<uint64_t>(palette(k, c)), 1);
  for (int c = 0; c < 3; ++c) put(cmap, 0, 2), put(cmap, 1, 1), put(cmap, static_cast<uint64_t>(c), 1);
  put(cdef, 3, 2);
  for (auto [cn, asoc] : {std::pair{0, 3}, {1, 2}, {2, 1}}) put(cdef, static_cast<uint64_t>(cn), 2), put(cdef, 0, 2), put(cdef, static_cast<uint64_t>(asoc), 2);
  std::vector<uint8_t> header, file = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A}, ftyp = {'j', 'p', '2', ' ', 0, 0, 0, 0, 'j', 'p', '2', ' '};
  for (const auto& b : {box("ihdr", ihdr), box("colr", colr), box("pclr", pclr), box("cmap", cmap), box("cdef", cdef)})
    header.insert(header.end(), b.begin(), b.end());
  for (const auto& b : {box("ftyp", ftyp), box("jp2h", header), box("jp2c", cs)}) file.insert(file.end(), b.begin(), b.end());
  const std::string jp2 = path("palette.jp2");
  {
    std::ofstream f(jp2, std::ios::binary);
    f.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  }
  const auto got = same_as_openjpeg(jp2, "", "pal");
  ASSERT_EQ(got.size(), 3u);
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < w * h; ++i) {
      const int index = std::min((i * 7) % (entries + 5), entries - 1);
      ASSERT_EQ(got[static_cast<size_t>(c)].samples[static_cast<size_t>(i)], palette(index, 2 - c)) << "channel " << c << ", sample " << i;
    }
  // -c picks the channels.
  r = run_command(quote(kCli) + " decompress -i " + quote(jp2) + " -o " + quote(path("c.pgx")) + " -c 2 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto blue = test_support::read_pgx(path("c_0.pgx"));
  EXPECT_EQ(blue.samples, got[2].samples);
}

// sYCC and e-sYCC at 31 bits, the most a codestream's component holds here and in OpenJPEG,
// through a palette of 31-bit colours: the samples are color.c's formulas made without
// overflow (where OpenJPEG's int sums overflow, undefined behaviour, they clamp to the top),
// worked out by hand below; the colours whose sums stay in range are opj_decompress's too. At
// 38 bits (a palette's columns may have 38, the samples hold 31) the conversion is refused,
// naming the component, its precision and the conversion; it came out as 0..63 before.
TEST_F(Decompress, ColourConversionsAt31BitsAndRefusedAt38) {
  const uint32_t w = 4, h = 1;
  {
    std::ofstream pgm(path("idx4.pgm"), std::ios::binary);
    pgm << "P5\n" << w << " " << h << "\n255\n";
    for (char i = 0; i < 4; ++i) pgm.put(i);  // one pixel per palette entry
  }
  auto r = run_command(quote(kCli) + " compress -i " + quote(path("idx4.pgm")) + " -o " + quote(path("idx4.j2k")) + " -n 1 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<uint8_t> cs = test_support::file_bytes(path("idx4.j2k"));
  const uint64_t top = (uint64_t{1} << 31) - 1, half = uint64_t{1} << 30;
  const std::vector<std::vector<uint64_t>> entries = {
      {top, top, top}, {0, 0, 0}, {half, half, half}, {half / 2, half + 1000, half - 1000}};
  // Y, Cb, Cr less 2^30 for the chroma, then (sYCC) R = Y + trunc(1.402 Cr), G = Y -
  // trunc(0.344 Cb + 0.714 Cr), B = Y + trunc(1.772 Cb) in double precision from float chroma,
  // or (e-sYCC) color.c's single-precision sums plus 0.5, truncated; each clamped to
  // [0, 2^31 - 1]. Entry 0: Cb = Cr = 2^30 - 1, 2^30 as a float: R and B pass 2^31 (clamped),
  // G = 2147483647 - trunc(1.058 * 2^30). Entry 1: Cb = Cr = -2^30. Entry 3: Cb = 1000, Cr = -1000.
  const int32_t sycc[4][3] = {{2147483647, 1011464798, 2147483647},
                              {0, 1136018849, 0},
                              {1073741824, 1073741824, 1073741824},
                              {536869510, 536871282, 536872684}};
  const int32_t esycc[4][3] = {{2147483647, 1011853760, 2147483647},
                               {0, 1136274176, 0},
                               {1073741824, 1074064000, 1073551744},
                               {536869504, 537032384, 536777632}};
  for (const auto& [enum_cs, want] : {std::pair{18, sycc}, {24, esycc}}) {
    const std::string tag = "p31_" + std::to_string(enum_cs), jp2 = path(tag + ".jp2");
    const std::vector<uint8_t> file = test_support::palette_jp2(cs, w, h, 31, enum_cs, entries);
    std::ofstream(jp2, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    r = run_command(quote(kCli) + " decompress -i " + quote(jp2) + " -o " + quote(path(tag + ".pgx")) + " --quiet");
    ASSERT_EQ(r.exit_code, 0) << tag << ": " << r.output;
    r = run_command("opj_decompress -i " + quote(jp2) + " -o " + quote(path(tag + "_opj.pgx")));
    ASSERT_EQ(r.exit_code, 0) << tag << ": " << r.output;
    for (int c = 0; c < 3; ++c) {
      const auto ours = test_support::read_pgx(path(tag + "_" + std::to_string(c) + ".pgx"));
      const auto theirs = test_support::read_pgx(path(tag + "_opj_" + std::to_string(c) + ".pgx"));
      ASSERT_EQ(ours.samples.size(), 4u) << tag;
      for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(ours.samples[i], want[i][c]) << tag << ": entry " << i << ", channel " << c;
        if (i > 0) {  // entry 0's sums overflow in color.c
          EXPECT_EQ(ours.samples[i], theirs.samples[i]) << tag << ": entry " << i << ", channel " << c;
        }
      }
    }
  }
  for (const int enum_cs : {18, 24}) {
    const std::string tag = "p38_" + std::to_string(enum_cs), jp2 = path(tag + ".jp2");
    const std::vector<uint8_t> file = test_support::palette_jp2(cs, w, h, 38, enum_cs, entries);
    std::ofstream(jp2, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    r = run_command(quote(kCli) + " decompress -i " + quote(jp2) + " -o " + quote(path(tag + ".pgx")) + " --quiet");
    EXPECT_EQ(r.exit_code, 1) << tag << ": " << r.output;
    EXPECT_NE(r.output.find("component 0 has 38-bit samples"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(enum_cs == 18 ? "the sYCC to RGB conversion" : "the e-sYCC to RGB conversion"), std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(path(tag + "_0.pgx"))) << tag;
  }
}

TEST_F(Decompress, BadRequestsAndCutFilesAreRefused) {
  const std::string stream = path("s.j2k");
  auto r = run_command(quote(kCli) + " compress -i " + quote(kData + "/camera.pgm") + " -o " + quote(stream) + " -n 4 --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  struct Bad {
    std::string flags;
    int code;
    const char* says;
  };
  const std::vector<Bad> bad = {
      {"-o " + quote(path("x.bmp")), 2, "extension"},
      {"-o " + quote(path("x.pgm")) + " -r 4", 2, "reduce 4"},
      {"-o " + quote(path("x.pgm")) + " -t 1", 2, "tile 1"},
      {"-o " + quote(path("x.pgm")) + " -d 600,0,700,10", 2, "region"},
      {"-o " + quote(path("x.pgm")) + " -d 5,5,5,9", 2, "x0 < x1"},
      {"-o " + quote(path("x.pgm")) + " -c 1", 2, "component 1"},
      {"-o " + quote(path("x.pgm")) + " -l 0", 2, "-l"},
      {"-o " + quote(path("x.pgm")) + " --backend metal", 2, "metal"},
      {"-o " + quote(path("x.ppm")) + " --OutFor png", 2, "--OutFor"},
  };
  for (const Bad& b : bad) {
    r = run_command(quote(kCli) + " decompress -i " + quote(stream) + " " + b.flags);
    EXPECT_EQ(r.exit_code, b.code) << b.flags << ": " << r.output;
    EXPECT_NE(r.output.find(b.says), std::string::npos) << b.flags << ": " << r.output;
  }
  EXPECT_FALSE(fs::exists(path("x.pgm")));
  EXPECT_FALSE(fs::exists(path("x.bmp")));
  // A component subsampled 29 times, one column wide, has none at -r 2: nothing to write.
  r = run_command(quote(kCli) + " decompress -i " + quote(kData + "/../fuzz/decode/empty_component_at_reduce2.j2k") +
                  " -o " + quote(path("x.pgm")) + " -r 2 --allow-partial");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("component 0 of the image to write has no samples"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(path("x.pgm")));
  // An existing output is kept without --force.
  const std::string out = path("keep.pgm");
  { std::ofstream(out) << "mine"; }
  r = run_command(quote(kCli) + " decompress -i " + quote(stream) + " -o " + quote(out));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(test_support::file_bytes(out).size(), 4u);
  // A cut file: an error, or with --allow-partial the image and a warning.
  std::vector<uint8_t> bytes = test_support::file_bytes(stream);
  const std::string cut = path("cut.j2k");
  {
    std::ofstream f(cut, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size() * 2 / 3));
  }
  r = run_command(quote(kCli) + " decompress -i " + quote(cut) + " -o " + quote(path("cut.pgm")));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_FALSE(fs::exists(path("cut.pgm")));
  r = run_command(quote(kCli) + " decompress -i " + quote(cut) + " -o " + quote(path("cut.pgm")) + " --allow-partial");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cut short"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(path("cut.pgm")));
}

TEST_F(Decompress, DirectoryToDirectory) {
  const std::string in = path("in"), out = path("out");
  fs::create_directories(in);
  for (const char* name : {"camera.pgm", "astronaut.ppm"}) {
    auto r = run_command(quote(kCli) + " compress -i " + quote(kData + "/" + name) + " -o " +
                         quote(in + "/" + fs::path(name).stem().string() + ".jp2") + " --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  { std::ofstream(in + "/notes.txt") << "not a codestream"; }
  auto r = run_command(quote(kCli) + " decompress -i " + quote(in) + " -o " + quote(out) + " -OutFor png");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2 of 2 files decompressed"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(out + "/camera.png"));
  EXPECT_TRUE(fs::exists(out + "/astronaut.png"));
}

}  // namespace
