// SPDX-License-Identifier: BSD-2-Clause
// Tests of the image readers and the NPY writer. Every input file is generated here, in a
// temporary folder, so the tests carry no binary fixtures; TIFFs are written with libtiff.
// The tests describe what they write as a RefImage (int32 samples, easy to generate and to
// serialise) and compare the readers' j2kfront::Image with it sample by sample, each sample
// read through its native type (U8/I8/U16/I16).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#ifdef J2K_HAVE_TIFF
#include <tiffio.h>
#endif

#include "common/error.hpp"
#include "common/parallel/worker_pool.hpp"
#include "io/image_io.hpp"
#include "io/image_writers.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tests/support/forged_files.hpp"

namespace fs = std::filesystem;
using j2k::Error;
using j2k::ErrorCode;
using j2k::io::read_image;
using ReadComponent = j2kfront::Image::Component;
using namespace std::string_literals;
using test_support::forged_tiff;

namespace {

// ---------------------------------------------------------------------------------------
// Helpers: a temporary folder, file contents, synthetic images.

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("j2kfront_io_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Deterministic samples that cover the whole range of `bits`, extremes included.
int32_t pattern(int64_t x, int64_t y, int c, int bits, bool is_signed) {
  uint32_t h = static_cast<uint32_t>(x) * 73856093u ^ static_cast<uint32_t>(y) * 19349663u ^
               static_cast<uint32_t>(c + 1) * 83492791u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  const uint32_t range = uint32_t{1} << bits;
  uint32_t v = h % range;
  if ((x + y + c) % 7 == 0) v = range - 1;
  if ((x + y + c) % 7 == 1) v = 0;
  return is_signed ? static_cast<int32_t>(v) - static_cast<int32_t>(range / 2)
                   : static_cast<int32_t>(v);
}

// An image as the tests write it and expect it back: one row-major plane of int32 samples
// per component, at canvas origin (0,0), no subsampling.
struct RefComponent {
  int64_t width = 0, height = 0;
  int precision = 8;
  bool is_signed = false;
  std::vector<int32_t> samples;
};

struct RefImage {
  int64_t width = 0, height = 0;
  std::vector<RefComponent> components;
};

RefImage make_image(int64_t w, int64_t h, int comps, int bits, bool is_signed) {
  RefImage im;
  im.width = w;
  im.height = h;
  for (int c = 0; c < comps; ++c) {
    RefComponent k;
    k.width = w;
    k.height = h;
    k.precision = bits;
    k.is_signed = is_signed;
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) k.samples.push_back(pattern(x, y, c, bits, is_signed));
    im.components.push_back(std::move(k));
  }
  return im;
}

// The type a reader must give a component of `precision` bits: its own width.
j2k_sample_type expected_type(int precision, bool is_signed) {
  if (precision <= 8) return is_signed ? J2K_SAMPLE_I8 : J2K_SAMPLE_U8;
  return is_signed ? J2K_SAMPLE_I16 : J2K_SAMPLE_U16;
}

bool is_signed_type(j2k_sample_type t) {
  return t == J2K_SAMPLE_I8 || t == J2K_SAMPLE_I16 || t == J2K_SAMPLE_I32;
}

// The samples of `k` in row order, read as T (which must be k's type) through Image's rows.
template <class T>
std::vector<T> samples_as(const ReadComponent& k) {
  std::vector<T> out;
  if (sizeof(T) != k.sample_size() ||
      k.bytes.size() != static_cast<size_t>(k.width * k.height) * sizeof(T)) {
    ADD_FAILURE() << "component of type " << k.type << " holds " << k.bytes.size()
                  << " bytes for " << k.width << "x" << k.height << " samples of "
                  << sizeof(T) << " byte(s)";
    return out;
  }
  for (int64_t y = 0; y < k.height; ++y) {
    const T* row = k.row<T>(y);
    out.insert(out.end(), row, row + k.width);
  }
  return out;
}

template <class T>
std::vector<int32_t> widen(const std::vector<T>& v) {
  return std::vector<int32_t>(v.begin(), v.end());
}

// The samples of `k` read through its native type, then widened here for comparison.
std::vector<int32_t> samples_of(const ReadComponent& k) {
  switch (k.type) {
    case J2K_SAMPLE_U8: return widen(samples_as<uint8_t>(k));
    case J2K_SAMPLE_I8: return widen(samples_as<int8_t>(k));
    case J2K_SAMPLE_U16: return widen(samples_as<uint16_t>(k));
    case J2K_SAMPLE_I16: return widen(samples_as<int16_t>(k));
    default: break;
  }
  ADD_FAILURE() << "a reader returned sample type " << k.type;
  return {};
}

// A read image as a RefImage (to compare two read images).
RefImage to_ref(const j2kfront::Image& im) {
  RefImage r;
  r.width = im.width;
  r.height = im.height;
  for (const ReadComponent& k : im.components)
    r.components.push_back({k.width, k.height, k.precision, is_signed_type(k.type), samples_of(k)});
  return r;
}

// What every read image must be: origin (0,0), 1 to 4 components of the image's size, no
// subsampling, packed rows of U8/I8/U16/I16 samples that fit the precision.
void expect_valid(const j2kfront::Image& im) {
  EXPECT_EQ(im.x0, 0u);
  EXPECT_EQ(im.y0, 0u);
  EXPECT_GT(im.width, 0u);
  EXPECT_GT(im.height, 0u);
  EXPECT_GE(im.components.size(), 1u);
  EXPECT_LE(im.components.size(), 4u);
  for (size_t c = 0; c < im.components.size(); ++c) {
    SCOPED_TRACE("component " + std::to_string(c));
    const ReadComponent& k = im.components[c];
    EXPECT_EQ(k.width, int64_t{im.width});
    EXPECT_EQ(k.height, int64_t{im.height});
    EXPECT_EQ(k.dx, 1);
    EXPECT_EQ(k.dy, 1);
    ASSERT_TRUE(k.type == J2K_SAMPLE_U8 || k.type == J2K_SAMPLE_I8 || k.type == J2K_SAMPLE_U16 ||
                k.type == J2K_SAMPLE_I16)
        << "type " << k.type;
    ASSERT_GE(k.precision, 1);
    ASSERT_LE(static_cast<size_t>(k.precision), 8 * k.sample_size());
    EXPECT_EQ(k.type, expected_type(k.precision, is_signed_type(k.type)))
        << "precision " << k.precision << " is stored wider than it needs";
    EXPECT_EQ(k.row_stride(),
              static_cast<ptrdiff_t>(k.width * static_cast<int64_t>(k.sample_size())));
    const bool is_signed = is_signed_type(k.type);
    const int32_t lo = is_signed ? -(int32_t{1} << (k.precision - 1)) : 0;
    const int32_t hi = is_signed ? (int32_t{1} << (k.precision - 1)) - 1
                                 : (int32_t{1} << k.precision) - 1;
    const std::vector<int32_t> v = samples_of(k);
    ASSERT_EQ(v.size(), static_cast<size_t>(k.width * k.height));
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] < lo || v[i] > hi) {
        ADD_FAILURE() << "sample " << i << " = " << v[i] << " is outside " << lo << ".." << hi;
        break;
      }
  }
}

void expect_same(const j2kfront::Image& got, const RefImage& want) {
  EXPECT_EQ(got.x0, 0u);
  EXPECT_EQ(got.y0, 0u);
  EXPECT_EQ(int64_t{got.width}, want.width);
  EXPECT_EQ(int64_t{got.height}, want.height);
  ASSERT_EQ(got.components.size(), want.components.size());
  for (size_t c = 0; c < want.components.size(); ++c) {
    const ReadComponent& g = got.components[c];
    const RefComponent& w = want.components[c];
    EXPECT_EQ(g.width, w.width) << "component " << c;
    EXPECT_EQ(g.height, w.height) << "component " << c;
    EXPECT_EQ(g.precision, w.precision) << "component " << c;
    EXPECT_EQ(g.type, expected_type(w.precision, w.is_signed)) << "component " << c;
    EXPECT_EQ(g.dx, 1);
    EXPECT_EQ(g.dy, 1);
    const std::vector<int32_t> gs = samples_of(g);
    ASSERT_EQ(gs.size(), w.samples.size()) << "component " << c;
    const auto diff = std::mismatch(gs.begin(), gs.end(), w.samples.begin());
    if (diff.first != gs.end())
      ADD_FAILURE() << "component " << c << " sample " << (diff.first - gs.begin())
                    << ": got " << *diff.first << ", want " << *diff.second;
  }
  expect_valid(got);
}

// Reads `path` through ImageReader in bands of the given heights (cycled, the last one cut
// to what is left) and stacks the bands back into one image.
j2kfront::Image read_in_bands(const std::string& path, const std::vector<uint32_t>& heights) {
  j2k::io::ImageReader reader(path);
  j2kfront::Image whole = reader.shape();
  for (size_t i = 0; reader.next_row() < whole.height; ++i) {
    const uint32_t first = reader.next_row();
    const uint32_t rows = std::min(heights[i % heights.size()], whole.height - first);
    const j2kfront::Image band = reader.read_rows(rows);
    EXPECT_EQ(band.height, rows);
    EXPECT_EQ(reader.next_row(), first + rows);
    for (size_t c = 0; c < whole.components.size(); ++c) {
      EXPECT_EQ(band.components[c].height, int64_t{rows});
      whole.components[c].bytes.insert(whole.components[c].bytes.end(), band.components[c].bytes.begin(),
                                       band.components[c].bytes.end());
    }
  }
  return whole;
}

// Band heights that start and end bands inside strips and tiles of every size the tests
// write (1, 5, 16 and 23 rows), and at their edges.
const std::vector<uint32_t> kBandHeights = {1, 7, 2, 16, 5, 9};

// Reads `path`, which must fail; returns the error after checking that it names the file.
Error read_error(const std::string& path) {
  try {
    read_image(path);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << "message: " << e.what();
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << path << ": threw a non-j2k exception: " << e.what();
    return Error(ErrorCode::InvalidArgument, "unexpected exception");
  }
  ADD_FAILURE() << path << ": read without an error";
  return Error(ErrorCode::InvalidArgument, "no exception");
}

void expect_error(const std::string& path, ErrorCode code, const std::string& words) {
  const Error e = read_error(path);
  EXPECT_EQ(static_cast<int>(e.code()), static_cast<int>(code)) << e.what();
  EXPECT_NE(std::string(e.what()).find(words), std::string::npos)
      << "message '" << e.what() << "' lacks '" << words << "'";
}

// Lengths to cut a file of `size` bytes to: every length in the first and the last 64
// bytes (the headers; libtiff writes the TIFF directory last), and a spread in between.
std::vector<size_t> cut_lengths(size_t size) {
  std::vector<size_t> cuts;
  for (size_t n = 0; n < size && n < 64; ++n) cuts.push_back(n);
  for (size_t n = 64; n < size; n += std::max<size_t>(1, size / 64)) cuts.push_back(n);
  for (size_t n = size > 64 ? size - 64 : 0; n < size; ++n) cuts.push_back(n);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

// Every cut of `bytes` must throw j2k::Error (never crash, never return an image).
void expect_truncations_throw(const TempDir& dir, const std::string& name,
                              const std::string& bytes) {
  const std::string path = dir.file(name);
  for (size_t n : cut_lengths(bytes.size())) {
    write_file(path, bytes.substr(0, n));
    SCOPED_TRACE(name + " cut to " + std::to_string(n) + " of " + std::to_string(bytes.size()) +
                 " bytes");
    read_error(path);
  }
}

// ---------------------------------------------------------------------------------------
// PNM

// A binary PGM (1 component) or PPM (3) of `im`, with comments where netpbm allows them.
std::string pnm_bytes(const RefImage& im, uint32_t maxval, bool comments = false) {
  const bool rgb = im.components.size() == 3;
  std::string s = rgb ? "P6" : "P5";
  if (comments)
    s += " # made by io_test\n# another comment\n" + std::to_string(im.width) + "#c\n " +
         std::to_string(im.height) + "\n# before maxval\n" + std::to_string(maxval) + "\n";
  else
    s += "\n" + std::to_string(im.width) + " " + std::to_string(im.height) + "\n" +
         std::to_string(maxval) + "\n";
  for (int64_t i = 0; i < im.width * im.height; ++i)
    for (const RefComponent& k : im.components) {
      const uint32_t v = static_cast<uint32_t>(k.samples[static_cast<size_t>(i)]);
      if (maxval > 255) s += static_cast<char>(v >> 8);
      s += static_cast<char>(v & 0xff);
    }
  return s;
}

struct PnmCase {
  const char* name;
  int comps;
  uint32_t maxval;
  int precision;
};

class PnmRoundTrip : public ::testing::TestWithParam<PnmCase> {};

TEST_P(PnmRoundTrip, ReadsWhatWasWritten) {
  const PnmCase& p = GetParam();
  TempDir dir;
  // 77 wide: rows through the readers' vector loops and their tails.
  for (const auto& [w, h] : {std::pair{13, 7}, std::pair{77, 5}}) {
    RefImage want = make_image(w, h, p.comps, p.precision, false);
    for (RefComponent& k : want.components)
      for (int32_t& v : k.samples) v = std::min<int32_t>(v, static_cast<int32_t>(p.maxval));
    for (bool comments : {false, true}) {
      SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + (comments ? ", comments" : ""));
      const std::string path = dir.file(comments ? "commented.pnm" : "plain.pnm");
      write_file(path, pnm_bytes(want, p.maxval, comments));
      expect_same(read_image(path), want);
      expect_same(read_in_bands(path, kBandHeights), want);
    }
  }
}

// One sample over maxval anywhere in a wide row, in any channel, is named by its place.
TEST(Pnm, ASampleOverMaxvalIsNamedWhereItIs) {
  TempDir dir;
  for (const auto& [comps, maxval] : {std::pair{3, 4095u}, std::pair{1, 4095u}, std::pair{3, 200u}, std::pair{1, 1000u}}) {
    for (int ch = 0; ch < comps; ++ch) {
      RefImage im = make_image(77, 5, comps, 16, false);
      for (RefComponent& k : im.components)
        for (int32_t& v : k.samples) v = std::min<int32_t>(v, static_cast<int32_t>(maxval));
      im.components[static_cast<size_t>(ch)].samples[3 * 77 + 61] = static_cast<int32_t>(maxval + 1);
      const std::string path = dir.file("over.pnm");
      write_file(path, pnm_bytes(im, maxval));
      const std::string want = "sample " + std::to_string(maxval + 1) + " at x=61, y=3" +
                               (comps > 1 ? ", channel " + std::to_string(ch) : "") + " exceeds maxval " + std::to_string(maxval);
      SCOPED_TRACE(want);
      try {
        (void)read_image(path);
        ADD_FAILURE() << "read without an error";
      } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Variants, PnmRoundTrip,
    ::testing::Values(PnmCase{"gray8", 1, 255, 8}, PnmCase{"rgb8", 3, 255, 8},
                      PnmCase{"gray16", 1, 65535, 16}, PnmCase{"rgb16", 3, 65535, 16},
                      PnmCase{"gray10", 1, 1023, 10}, PnmCase{"rgb12", 3, 4095, 12},
                      PnmCase{"gray1", 1, 1, 1}, PnmCase{"gray_maxval100", 1, 100, 7},
                      PnmCase{"gray_maxval256", 1, 256, 9}, PnmCase{"rgb_maxval1000", 3, 1000, 10}),
    [](const ::testing::TestParamInfo<PnmCase>& param_info) {
      return std::string(param_info.param.name);
    });

// A band of a megabyte or more is read on several workers (the rows' chunks side by side),
// seen through an embedder's pool that records the workers each run asks for and runs the
// items itself; the samples are still the file's. Asked for one thread, it takes no worker.
TEST(Pnm, LargeBandsAreReadOnSeveralWorkers) {
  if (j2k::available_cores() < 2) GTEST_SKIP() << "one core: the reader has no second worker to use";
  struct Recorded {
    int most_workers = 0;
  } recorded;
  j2k_thread_pool pool{};
  pool.context = &recorded;
  pool.workers = 64;
  pool.run = [](void* context, size_t count, int workers, j2k_task_fn task, void* arg) {
    auto* r = static_cast<Recorded*>(context);
    r->most_workers = std::max(r->most_workers, workers);
    for (size_t i = 0; i < count; ++i) task(arg, i, static_cast<int>(i % static_cast<size_t>(workers)));
  };
  TempDir dir;
  // 1024x400 RGB: 1.2 MB in 3 chunks, planes too small to be mapped by workers first.
  RefImage want = make_image(1024, 400, 3, 8, false);
  const std::string path = dir.file("large.ppm");
  write_file(path, pnm_bytes(want, 255));
  const j2k::ScopedThreadPool scoped(pool);
  expect_same(read_image(path), want);
  EXPECT_GE(recorded.most_workers, 2) << "the band was read on one worker";
  // On one thread when asked (compress --threads 1).
  recorded.most_workers = 0;
  j2k::io::ReadOptions one;
  one.threads = 1;
  expect_same(read_image(path, one), want);
  EXPECT_EQ(recorded.most_workers, 0) << "a read asked for one thread ran on " << recorded.most_workers << " workers";
}

TEST(Pnm, SixteenBitSamplesAreBigEndian) {
  TempDir dir;
  const std::string path = dir.file("be.pgm");
  write_file(path, "P5 2 1 65535\n\x12\x34\xff\x01"s);
  const j2kfront::Image im = read_image(path);
  ASSERT_EQ(im.components.size(), 1u);
  ASSERT_EQ(im.components[0].type, J2K_SAMPLE_U16);
  EXPECT_EQ(samples_as<uint16_t>(im.components[0]), (std::vector<uint16_t>{0x1234, 0xff01}));
  EXPECT_EQ(im.components[0].precision, 16);
}

// A file written a band of rows at a time (PnmWriter, as decompress writes what the decoder
// hands out) is write_pnm's, byte for byte: grey, grey + alpha, RGB and RGBA, 8 and 16 bits.
TEST(Pnm, WrittenByBandsAsWhole) {
  auto contents = [](const std::function<void(std::FILE*)>& write) {
    std::FILE* f = std::tmpfile();
    write(f);
    std::string bytes(static_cast<size_t>(std::ftell(f)), '\0');
    std::rewind(f);
    EXPECT_EQ(std::fread(&bytes[0], 1, bytes.size(), f), bytes.size());
    std::fclose(f);
    return bytes;
  };
  for (int channels : {1, 2, 3, 4})
    for (bool wide : {false, true}) {
      const int64_t w = 37, h = 23;
      std::vector<std::vector<uint8_t>> planes(static_cast<size_t>(channels));
      j2k::io::ImageSamples whole;
      for (int c = 0; c < channels; ++c) {
        auto& p = planes[static_cast<size_t>(c)];
        p.resize(static_cast<size_t>(w * h) * (wide ? 2 : 1));
        for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<uint8_t>(i * 7 + static_cast<size_t>(c) * 31 + (i >> 5));
        if (wide)
          for (size_t i = 1; i < p.size(); i += 2) p[i] &= 0x0f;  // 12 bits
        whole.components.push_back({wide ? J2K_SAMPLE_U16 : J2K_SAMPLE_U8, wide ? 12 : 8, w, h, p.data()});
      }
      const std::string want = contents([&](std::FILE* f) { j2k::io::write_pnm(f, "whole", whole); });
      for (int64_t band : {1, 5, 23}) {
        const std::string got = contents([&](std::FILE* f) {
          std::unique_ptr<j2k::io::PnmWriter> out;  // made from the first band, as decompress makes it
          for (int64_t y = 0; y < h; y += band) {
            j2k::io::ImageSamples rows = whole;
            for (auto& k : rows.components) {
              k.data += static_cast<size_t>(y * w) * k.sample_size();
              k.height = std::min(band, h - y);
            }
            if (!out) out = std::make_unique<j2k::io::PnmWriter>(f, "bands", rows, h);
            out->rows(rows);
          }
          out->finish();
        });
        EXPECT_EQ(got, want) << channels << " channels, " << (wide ? 16 : 8) << " bits, bands of " << band;
      }
    }
}

TEST(Pnm, BadHeadersAreCorrupt) {
  TempDir dir;
  const std::string path = dir.file("bad.pgm");
  struct Bad {
    std::string bytes, words;
  };
  const std::vector<Bad> cases = {
      {"P5\n0 3\n255\n"s, "empty"},
      {"P5\n3 0\n255\n"s, "empty"},
      {"P5\n1 1\n0\n\x01"s, "maxval 0"},
      {"P5\n1 1\n65536\n\x01\x01"s, "maxval 65536"},
      {"P5\nabc\n"s, "expected the width"},
      {"P5\n3 3 255"s, "after maxval"},
      {"P5\n3 3 255#\n"s, "after maxval"},
      {"P53 3 255\n"s, "after the P5 signature"},
      {"P5\n3x3 255\n"s, "after the width"},
      {"P5\n"s, "before the width"},
      {"P6 4 4"s, "after the height"},
      {"P5\n99999999999 3\n255\n"s, "width is larger"},
      {"P5\n3 3\n255\n\x01\x02\x03"s, "truncated"},
      {"P5 2 1 100\n\x05\xc8"s, "exceeds maxval 100"},
      {"P5 1 1 1000\n\x03\xe9"s, "exceeds maxval 1000"},
  };
  for (const Bad& b : cases) {
    SCOPED_TRACE(b.bytes);
    write_file(path, b.bytes);
    expect_error(path, ErrorCode::CorruptInput, b.words);
  }
}

// A header that claims a huge image must fail on the size check, before any allocation
// (under ASan a 2^62-byte allocation would abort the test instead).
TEST(Pnm, HugeDimensionsFailBeforeAllocating) {
  TempDir dir;
  const std::string path = dir.file("huge.ppm");
  write_file(path, "P6\n2147483647 2147483647\n65535\n" + std::string(64, '\0'));
  expect_error(path, ErrorCode::CorruptInput, "truncated");
  write_file(path, "P5 100000 100000 255\n" + std::string(64, '\0'));
  expect_error(path, ErrorCode::CorruptInput, "truncated");
}

TEST(Pnm, EveryTruncationThrows) {
  TempDir dir;
  expect_truncations_throw(dir, "cut8.ppm", pnm_bytes(make_image(9, 5, 3, 8, false), 255, true));
  expect_truncations_throw(dir, "cut16.pgm", pnm_bytes(make_image(9, 5, 1, 16, false), 65535));
}

// ---------------------------------------------------------------------------------------
// PGX

std::string pgx_bytes(const RefImage& im, bool big_endian, const std::string& sign) {
  const RefComponent& k = im.components[0];
  std::string s = std::string("PG ") + (big_endian ? "ML " : "LM ") + sign +
                  std::to_string(k.precision) + " " + std::to_string(im.width) + " " +
                  std::to_string(im.height) + "\n";
  for (int32_t v : k.samples) {
    const uint32_t u = static_cast<uint32_t>(v);  // two's complement in the stored width
    if (k.precision <= 8) {
      s += static_cast<char>(u & 0xff);
    } else if (big_endian) {
      s += static_cast<char>((u >> 8) & 0xff);
      s += static_cast<char>(u & 0xff);
    } else {
      s += static_cast<char>(u & 0xff);
      s += static_cast<char>((u >> 8) & 0xff);
    }
  }
  return s;
}

TEST(Pgx, RoundTripsEveryVariant) {
  TempDir dir;
  const std::string path = dir.file("img.pgx");
  for (bool big_endian : {true, false})
    for (bool is_signed : {false, true})
      for (int prec : {1, 4, 8, 9, 12, 16}) {
        // The sign field is spelled in the ways writers use: absent, attached, apart.
        const std::vector<std::string> signs = is_signed ? std::vector<std::string>{"-", "- "}
                                                         : std::vector<std::string>{"", "+", "+ "};
        for (const std::string& sign : signs) {
          SCOPED_TRACE((big_endian ? "ML " : "LM ") + sign + std::to_string(prec));
          const RefImage want = make_image(11, 6, 1, prec, is_signed);
          write_file(path, pgx_bytes(want, big_endian, sign));
          expect_same(read_image(path), want);
          expect_same(read_in_bands(path, kBandHeights), want);
        }
      }
}

TEST(Pgx, HeaderSpellings) {
  TempDir dir;
  const std::string path = dir.file("h.pgx");
  struct Spelling {
    std::string header;
    bool is_signed;
  };
  for (const Spelling& s : std::vector<Spelling>{{"PG ML +8 2 1\n", false},
                                                 {"PG LM -8 2 1\n", true},
                                                 {"PG ML 8 2 1\n", false},
                                                 {"PG\tLM\t+\t8\t2\t1\n", false},
                                                 {"PG ML 8 2 1 \r\n", false},
                                                 {"PG  ML   -  8   2   1\n", true}}) {
    SCOPED_TRACE(s.header);
    write_file(path, s.header + "\x05\x06");
    const j2kfront::Image im = read_image(path);
    ASSERT_EQ(im.components.size(), 1u);
    EXPECT_EQ(im.width, 2u);
    EXPECT_EQ(im.height, 1u);
    EXPECT_EQ(im.components[0].type, s.is_signed ? J2K_SAMPLE_I8 : J2K_SAMPLE_U8);
    EXPECT_EQ(samples_of(im.components[0]), (std::vector<int32_t>{5, 6}));
  }
}

TEST(Pgx, ByteOrderAndSignExtension) {
  TempDir dir;
  const std::string path = dir.file("e.pgx");
  // The samples land in the machine's byte order, as int16 / int8.
  auto first = [&](j2k_sample_type type) {
    j2kfront::Image im = read_image(path);
    EXPECT_EQ(im.components.size(), 1u);
    EXPECT_EQ(im.components[0].type, type);
    return im.components.empty() ? ReadComponent{} : im.components[0];
  };
  write_file(path, std::string("PG ML -16 2 1\n\x80\x00\x12\x34", 18));
  EXPECT_EQ(samples_as<int16_t>(first(J2K_SAMPLE_I16)), (std::vector<int16_t>{-32768, 0x1234}));
  write_file(path, std::string("PG LM -16 2 1\n\x00\x80\x34\x12", 18));
  EXPECT_EQ(samples_as<int16_t>(first(J2K_SAMPLE_I16)), (std::vector<int16_t>{-32768, 0x1234}));
  write_file(path, std::string("PG LM -12 2 1\n\x00\xf8\xff\x07", 18));
  EXPECT_EQ(samples_as<int16_t>(first(J2K_SAMPLE_I16)), (std::vector<int16_t>{-2048, 2047}));
  write_file(path, std::string("PG ML -8 2 1\n\xff\x80", 15));
  EXPECT_EQ(samples_as<int8_t>(first(J2K_SAMPLE_I8)), (std::vector<int8_t>{-1, -128}));
  write_file(path, std::string("PG ML 16 2 1\n\xff\xfe\x01\x02", 18));
  EXPECT_EQ(samples_as<uint16_t>(first(J2K_SAMPLE_U16)), (std::vector<uint16_t>{0xfffe, 0x0102}));
}

TEST(Pgx, BadFilesThrow) {
  TempDir dir;
  const std::string path = dir.file("bad.pgx");
  struct Bad {
    std::string bytes;
    ErrorCode code;
    std::string words;
  };
  const std::vector<Bad> cases = {
      {"PG XY 8 2 1\n\x01\x02"s, ErrorCode::CorruptInput, "ML or LM"},
      {"PGML 8 2 1\n\x01\x02"s, ErrorCode::CorruptInput, "space after PG"},
      {"PG ML 17 2 1\n\x01\x02\x03\x04"s, ErrorCode::UnsupportedInput, "precision 17"},
      {"PG ML 32 1 1\n\x01\x02\x03\x04"s, ErrorCode::UnsupportedInput, "precision 32"},
      {"PG ML 0 2 1\n\x01\x02"s, ErrorCode::CorruptInput, "precision 0"},
      {"PG ML 8 0 1\n"s, ErrorCode::CorruptInput, "empty"},
      {"PG ML 8 2 1"s, ErrorCode::CorruptInput, "end of the header line"},
      {"PG ML 8 2 1 x\n\x01\x02"s, ErrorCode::CorruptInput, "end of the header line"},
      {"PG ML 8 2\n\x01\x02"s, ErrorCode::CorruptInput, "after the width"},
      {"PG ML * 8 2 1\n\x01\x02"s, ErrorCode::CorruptInput, "precision"},
      {"PG ML 8 99999999999 1\n"s, ErrorCode::CorruptInput, "width is larger"},
      {"PG ML 8 4 4\n\x01\x02\x03"s, ErrorCode::CorruptInput, "truncated"},
      {"PG ML 8 2147483647 2147483647\n\x01"s, ErrorCode::CorruptInput, "truncated"},
      // Samples outside the declared precision are corrupt, not masked into range.
      {"PG ML 5 2 1\n\x1f\x20"s, ErrorCode::CorruptInput, "sample 32"},
      {"PG ML 12 1 1\n\x10\x00"s, ErrorCode::CorruptInput, "sample 4096"},
      {"PG ML -12 1 1\n\x08\x00"s, ErrorCode::CorruptInput, "sample 2048"},
      {"PG LM -12 1 1\n\xff\xf7"s, ErrorCode::CorruptInput, "sample -2049"},
      {"PG ML -4 1 1\n\x08"s, ErrorCode::CorruptInput, "sample 8"},
      {"PG ML -4 1 1\n\xf7"s, ErrorCode::CorruptInput, "sample -9"},
      {"PG ML 1 2 1\n\x01\x02"s, ErrorCode::CorruptInput, "sample 2"},
  };
  for (const Bad& b : cases) {
    SCOPED_TRACE(b.bytes);
    write_file(path, b.bytes);
    expect_error(path, b.code, b.words);
  }
}

TEST(Pgx, EveryTruncationThrows) {
  TempDir dir;
  expect_truncations_throw(dir, "cut8.pgx", pgx_bytes(make_image(9, 5, 1, 8, false), true, "+"));
  expect_truncations_throw(dir, "cut12.pgx", pgx_bytes(make_image(9, 5, 1, 12, true), false, "-"));
}

// ---------------------------------------------------------------------------------------
// Dispatch and operating-system errors

TEST(ReadImage, NonexistentPathIsAnIoError) {
  TempDir dir;
  const std::string path = dir.file("no such file.tif");
  expect_error(path, ErrorCode::Io, "No such file or directory");
}

TEST(ReadImage, DirectoryIsAnIoError) {
  TempDir dir;
  const std::string path = dir.file("folder.pgm");
  fs::create_directories(path);
  expect_error(path, ErrorCode::Io, "Is a directory");
}

// A FIFO is refused at once (opening one waits for a writer: this test would hang, and time
// out, if the reader opened it before checking what it is).
TEST(ReadImage, FifoIsAnIoErrorNotAHang) {
  TempDir dir;
  const std::string path = dir.file("pipe.ppm");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0) << std::strerror(errno);
  expect_error(path, ErrorCode::Io, "not a regular file");
}

TEST(ReadImage, UnknownSignatureIsUnsupported) {
  TempDir dir;
  const std::string path = dir.file("photo.jpg");
  write_file(path, "\xff\xd8\xff\xe0 JFIF and so on");
  expect_error(path, ErrorCode::UnsupportedInput, "signature");
  write_file(path, "P3\n1 1\n255\n0 0 0\n");  // ASCII PPM is not read
  expect_error(path, ErrorCode::UnsupportedInput, "signature");
  write_file(path, "X");
  expect_error(path, ErrorCode::UnsupportedInput, "signature");
}

TEST(ReadImage, EmptyFileIsCorrupt) {
  TempDir dir;
  const std::string path = dir.file("empty.pgm");
  write_file(path, "");
  expect_error(path, ErrorCode::CorruptInput, "empty");
}

TEST(ReadImage, DispatchesOnContentNotName) {
  TempDir dir;
  const RefImage gray = make_image(5, 4, 1, 8, false);
  const std::string pgm_named_tif = dir.file("really_a_pgm.tif");
  write_file(pgm_named_tif, pnm_bytes(gray, 255));
  expect_same(read_image(pgm_named_tif), gray);
  const std::string pgx_named_ppm = dir.file("really_a_pgx.ppm");
  write_file(pgx_named_ppm, pgx_bytes(gray, true, ""));
  expect_same(read_image(pgx_named_ppm), gray);
}

// ---------------------------------------------------------------------------------------
// TIFF

#ifdef J2K_HAVE_TIFF

// libtiff writes in the tests; silence it so that the no-stderr checks see only the reader.
void quiet_libtiff() {
  TIFFSetErrorHandler(nullptr);
  TIFFSetWarningHandler(nullptr);
}

struct TiffLayout {
  bool tiled = false;
  bool planar = false;
  uint32_t rows_per_strip = 5;  // 23 rows: four full strips and a partial one
  uint32_t tile = 16;           // 37x23: partial tiles at the right and the bottom
  uint16_t compression = COMPRESSION_NONE;
  uint16_t predictor = 0;
  uint16_t photometric = 0;  // 0: MinIsBlack for 1-2 components, RGB for 3-4
  const char* mode = "w";    // "wb": big-endian, "w8": BigTIFF
};

// Writes `im` (8 or 16 bits, 1..4 components) as a TIFF; returns false after reporting.
bool write_tiff(const std::string& path, const RefImage& im, const TiffLayout& lay) {
  quiet_libtiff();
  TIFF* t = TIFFOpen(path.c_str(), lay.mode);
  if (!t) {
    ADD_FAILURE() << "libtiff cannot create " << path;
    return false;
  }
  const uint16_t spp = static_cast<uint16_t>(im.components.size());
  const int bits = im.components[0].precision;
  const size_t bytes = static_cast<size_t>(bits / 8);
  const uint32_t w = static_cast<uint32_t>(im.width), h = static_cast<uint32_t>(im.height);
  const uint16_t photometric = lay.photometric ? lay.photometric
                               : spp >= 3      ? PHOTOMETRIC_RGB
                                               : PHOTOMETRIC_MINISBLACK;
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, h);
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, spp);
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bits);
  TIFFSetField(t, TIFFTAG_SAMPLEFORMAT,
               im.components[0].is_signed ? SAMPLEFORMAT_INT : SAMPLEFORMAT_UINT);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, photometric);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, lay.planar ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_COMPRESSION, lay.compression);
  if (lay.predictor) TIFFSetField(t, TIFFTAG_PREDICTOR, lay.predictor);
  if (spp == 2 || spp == 4) {
    const uint16_t extra[] = {EXTRASAMPLE_UNASSALPHA};
    TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, extra);
  }
  if (lay.tiled) {
    TIFFSetField(t, TIFFTAG_TILEWIDTH, lay.tile);
    TIFFSetField(t, TIFFTAG_TILELENGTH, lay.tile);
  } else {
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, lay.rows_per_strip);
  }

  const int planes = lay.planar ? spp : 1;
  const size_t per_pixel = lay.planar ? 1 : spp;
  auto put = [&](std::vector<uint8_t>& buf, size_t at, int32_t v) {
    if (bytes == 1) {
      buf[at] = static_cast<uint8_t>(v);
    } else {
      const uint16_t u = static_cast<uint16_t>(v);  // host order: libtiff swaps on write
      std::memcpy(&buf[at * 2], &u, 2);
    }
  };
  // Copies the block [x0, x0+cols) x [y0, y0+rows) into a buffer `bw` pixels wide.
  auto fill = [&](std::vector<uint8_t>& buf, uint32_t bw, uint32_t x0, uint32_t y0, uint32_t cols,
                  uint32_t rows, int plane) {
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t x = 0; x < cols; ++x)
        for (size_t s = 0; s < per_pixel; ++s) {
          const size_t c = lay.planar ? static_cast<size_t>(plane) : s;
          put(buf, (size_t{r} * bw + x) * per_pixel + s,
              im.components[c].samples[size_t{y0 + r} * w + x0 + x]);
        }
  };

  bool ok = true;
  for (int plane = 0; plane < planes && ok; ++plane) {
    if (lay.tiled) {
      for (uint32_t y = 0; y < h && ok; y += lay.tile)
        for (uint32_t x = 0; x < w && ok; x += lay.tile) {
          // Padding outside the image gets a marker value the reader must not copy.
          std::vector<uint8_t> buf(size_t{lay.tile} * lay.tile * per_pixel * bytes, 0xab);
          fill(buf, lay.tile, x, y, std::min(lay.tile, w - x), std::min(lay.tile, h - y), plane);
          const uint32_t tile = TIFFComputeTile(t, x, y, 0, static_cast<uint16_t>(plane));
          ok = TIFFWriteEncodedTile(t, tile, buf.data(), static_cast<tmsize_t>(buf.size())) >= 0;
        }
    } else {
      for (uint32_t y = 0; y < h && ok; y += lay.rows_per_strip) {
        const uint32_t rows = std::min(lay.rows_per_strip, h - y);
        std::vector<uint8_t> buf(size_t{rows} * w * per_pixel * bytes);
        fill(buf, w, 0, y, w, rows, plane);
        const uint32_t strip = TIFFComputeStrip(t, y, static_cast<uint16_t>(plane));
        ok = TIFFWriteEncodedStrip(t, strip, buf.data(), static_cast<tmsize_t>(buf.size())) >= 0;
      }
    }
  }
  TIFFClose(t);
  if (!ok) ADD_FAILURE() << "libtiff failed to write " << path;
  return ok;
}

struct TiffCase {
  std::string name;
  int bits;
  int comps;
  bool is_signed;
  TiffLayout layout;
};

std::vector<TiffCase> tiff_cases() {
  std::vector<TiffCase> cases;
  const char* comp_names[] = {"", "gray", "grayalpha", "rgb", "rgba"};
  for (int bits : {8, 16})
    for (int comps = 1; comps <= 4; ++comps)
      for (bool tiled : {false, true})
        for (bool planar : {false, true}) {
          TiffLayout lay;
          lay.tiled = tiled;
          lay.planar = planar;
          cases.push_back({"u" + std::to_string(bits) + "_" + comp_names[comps] +
                               (tiled ? "_tiles" : "_strips") + (planar ? "_planar" : "_contig"),
                           bits, comps, false, lay});
        }
  for (int bits : {8, 16})
    for (int comps : {1, 3})
      for (bool tiled : {false, true}) {
        TiffLayout lay;
        lay.tiled = tiled;
        cases.push_back(
            {"s" + std::to_string(bits) + "_" + comp_names[comps] + (tiled ? "_tiles" : "_strips"),
             bits, comps, true, lay});
      }
  struct Codec {
    const char* name;
    uint16_t compression, predictor;
  };
  for (const Codec& codec :
       {Codec{"lzw", COMPRESSION_LZW, 0}, Codec{"lzw_predictor", COMPRESSION_LZW, 2},
        Codec{"deflate", COMPRESSION_ADOBE_DEFLATE, 0},
        Codec{"deflate_predictor", COMPRESSION_ADOBE_DEFLATE, 2},
        Codec{"packbits", COMPRESSION_PACKBITS, 0}, Codec{"zstd", COMPRESSION_ZSTD, 0},
        Codec{"lzma", COMPRESSION_LZMA, 0}}) {
    TiffLayout strips;
    strips.compression = codec.compression;
    strips.predictor = codec.predictor;
    cases.push_back({std::string("u8_rgb_strips_") + codec.name, 8, 3, false, strips});
    TiffLayout tiles = strips;
    tiles.tiled = true;
    tiles.planar = true;
    cases.push_back({std::string("u16_rgba_tiles_planar_") + codec.name, 16, 4, false, tiles});
  }
  TiffLayout lay;
  lay.mode = "wb";
  cases.push_back({"u16_rgb_strips_bigendian", 16, 3, false, lay});
  lay.tiled = lay.planar = true;
  cases.push_back({"s16_rgb_tiles_planar_bigendian", 16, 3, true, lay});
  lay = TiffLayout{};
  lay.mode = "w8";
  cases.push_back({"u16_gray_strips_bigtiff", 16, 1, false, lay});
  lay = TiffLayout{};
  lay.rows_per_strip = 1;
  cases.push_back({"u8_rgb_one_row_strips", 8, 3, false, lay});
  lay.rows_per_strip = 23;
  cases.push_back({"u8_rgb_single_strip", 8, 3, false, lay});
  lay.rows_per_strip = 1000;  // more than the height: one strip
  cases.push_back({"u16_gray_oversized_strip", 16, 1, false, lay});
  lay = TiffLayout{};
  lay.photometric = PHOTOMETRIC_MINISWHITE;  // read as stored, not inverted
  cases.push_back({"u8_miniswhite", 8, 1, false, lay});
  lay.tiled = true;
  cases.push_back({"u16_miniswhite_tiles", 16, 1, false, lay});
  return cases;
}

class TiffRoundTrip : public ::testing::TestWithParam<TiffCase> {};

TEST_P(TiffRoundTrip, ReadsWhatWasWritten) {
  const TiffCase& p = GetParam();
  if (p.layout.compression != COMPRESSION_NONE && !TIFFIsCODECConfigured(p.layout.compression))
    GTEST_SKIP() << "this libtiff has no codec " << p.layout.compression;
  TempDir dir;
  const RefImage want = make_image(37, 23, p.comps, p.bits, p.is_signed);
  const std::string path = dir.file(p.name + ".tif");
  ASSERT_TRUE(write_tiff(path, want, p.layout));
  testing::internal::CaptureStderr();
  j2kfront::Image got;
  EXPECT_NO_THROW(got = read_image(path));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  expect_same(got, want);
  expect_same(read_in_bands(path, kBandHeights), want);
  expect_same(read_in_bands(path, {23}), want);
}

INSTANTIATE_TEST_SUITE_P(Variants, TiffRoundTrip, ::testing::ValuesIn(tiff_cases()),
                         [](const ::testing::TestParamInfo<TiffCase>& param_info) {
                           return param_info.param.name;
                         });

TEST(Tiff, TinyImages) {
  TempDir dir;
  for (int64_t w : {1, 2, 17})
    for (int64_t h : {1, 3}) {
      for (bool tiled : {false, true}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + (tiled ? " tiled" : ""));
        const RefImage want = make_image(w, h, 3, 8, false);
        TiffLayout lay;
        lay.tiled = tiled;
        const std::string path = dir.file("tiny.tif");
        ASSERT_TRUE(write_tiff(path, want, lay));
        expect_same(read_image(path), want);
      }
    }
}

// Writes a TIFF that only needs to get as far as the reader's layout checks: one strip of
// zeros, with `extra` setting whatever makes the file unsupported.
void write_unsupported_tiff(const std::string& path, uint16_t spp, uint16_t bits, uint16_t format,
                            uint16_t photometric, const std::function<void(TIFF*)>& extra = {}) {
  quiet_libtiff();
  TIFF* t = TIFFOpen(path.c_str(), "w");
  ASSERT_NE(t, nullptr);
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 16);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, 4);
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, spp);
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bits);
  TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, format);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, photometric);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 4);
  if (extra) extra(t);
  std::vector<uint8_t> zeros(static_cast<size_t>(TIFFStripSize(t)));
  EXPECT_GE(TIFFWriteEncodedStrip(t, 0, zeros.data(), static_cast<tmsize_t>(zeros.size())), 0);
  TIFFClose(t);
}

TEST(Tiff, UnsupportedLayoutsNameTheValue) {
  TempDir dir;
  const std::string path = dir.file("unsupported.tif");
  struct Case {
    std::string what;
    uint16_t spp, bits, format, photometric;
    std::function<void(TIFF*)> extra;
    std::string words;
  };
  static uint16_t colormap[3][256] = {};
  const std::vector<Case> cases = {
      {"float", 1, 32, SAMPLEFORMAT_IEEEFP, PHOTOMETRIC_MINISBLACK, {}, "32-bit floating-point"},
      {"double", 3, 64, SAMPLEFORMAT_IEEEFP, PHOTOMETRIC_RGB, {}, "64-bit floating-point"},
      {"4-bit", 1, 4, SAMPLEFORMAT_UINT, PHOTOMETRIC_MINISBLACK, {}, "4 bits per sample"},
      {"1-bit", 1, 1, SAMPLEFORMAT_UINT, PHOTOMETRIC_MINISWHITE, {}, "1 bits per sample"},
      {"32-bit int", 1, 32, SAMPLEFORMAT_UINT, PHOTOMETRIC_MINISBLACK, {}, "32 bits per sample"},
      {"12-bit", 1, 12, SAMPLEFORMAT_UINT, PHOTOMETRIC_MINISBLACK, {}, "12 bits per sample"},
      {"palette", 1, 8, SAMPLEFORMAT_UINT, PHOTOMETRIC_PALETTE,
       [](TIFF* t) { TIFFSetField(t, TIFFTAG_COLORMAP, colormap[0], colormap[1], colormap[2]); },
       "palette"},
      {"ycbcr", 3, 8, SAMPLEFORMAT_UINT, PHOTOMETRIC_YCBCR,
       [](TIFF* t) { TIFFSetField(t, TIFFTAG_YCBCRSUBSAMPLING, 2, 2); },
       "YCbCr images (subsampling 2x2)"},
      {"cmyk", 4, 8, SAMPLEFORMAT_UINT, PHOTOMETRIC_SEPARATED, {}, "photometric interpretation 5"},
      {"5 samples", 5, 8, SAMPLEFORMAT_UINT, PHOTOMETRIC_MINISBLACK,
       [](TIFF* t) {
         const uint16_t extra[] = {0, 0, 0, 0};
         TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 4, extra);
       },
       "5 samples per pixel"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    write_unsupported_tiff(path, c.spp, c.bits, c.format, c.photometric, c.extra);
    testing::internal::CaptureStderr();
    expect_error(path, ErrorCode::UnsupportedInput, c.words);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
}

// A valid TIFF cut anywhere must throw, and libtiff must leave stderr alone.
TEST(Tiff, EveryTruncationThrows) {
  TempDir dir;
  struct Variant {
    std::string name;
    int bits, comps;
    TiffLayout layout;
  };
  std::vector<Variant> variants;
  variants.push_back({"strips", 8, 3, TiffLayout{}});
  TiffLayout tiles;
  tiles.tiled = tiles.planar = true;
  variants.push_back({"tiles_planar", 16, 2, tiles});
  TiffLayout lzw;
  lzw.compression = COMPRESSION_LZW;
  variants.push_back({"lzw", 8, 1, lzw});
  TiffLayout deflate_tiles;
  deflate_tiles.compression = COMPRESSION_ADOBE_DEFLATE;
  deflate_tiles.tiled = true;
  variants.push_back({"deflate_tiles", 16, 3, deflate_tiles});
  TiffLayout big;
  big.mode = "wb";
  variants.push_back({"bigendian", 16, 4, big});

  for (const Variant& v : variants) {
    const std::string full = dir.file(v.name + "_full.tif");
    ASSERT_TRUE(write_tiff(full, make_image(37, 23, v.comps, v.bits, false), v.layout));
    testing::internal::CaptureStderr();
    expect_truncations_throw(dir, v.name + "_cut.tif", read_file(full));
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << v.name;
  }
}

// An 8-bit gray, uncompressed TIFF put together byte by byte with its directory first, as
// many writers (not libtiff) do: cutting it loses pixel data while the directory survives.
std::string directory_first_tiff(const RefImage& im, uint32_t rows_per_strip) {
  const uint32_t w = static_cast<uint32_t>(im.width), h = static_cast<uint32_t>(im.height);
  const uint32_t strips = (h + rows_per_strip - 1) / rows_per_strip;
  std::string s;
  auto u16 = [&](uint32_t v) { test_support::put_u16le(s, v); };
  auto u32 = [&](uint32_t v) { test_support::put_u32le(s, v); };
  const uint32_t entries = 9, ifd = 8, arrays = ifd + 2 + entries * 12 + 4;
  const uint32_t data = arrays + (strips > 1 ? 8 * strips : 0);  // arrays only if several
  auto entry = [&](uint32_t tag, uint32_t type, uint32_t count, uint32_t value) {
    u16(tag);
    u16(type);
    u32(count);
    if (type == 3) {  // a SHORT value sits in the first two bytes of the field
      u16(value);
      u16(0);
    } else {
      u32(value);
    }
  };
  s = "II*";
  s += '\0';
  u32(ifd);
  u16(entries);
  entry(256, 4, 1, w);                                 // ImageWidth
  entry(257, 4, 1, h);                                 // ImageLength
  entry(258, 3, 1, 8);                                 // BitsPerSample
  entry(259, 3, 1, 1);                                 // Compression: none
  entry(262, 3, 1, 1);                                 // MinIsBlack
  entry(273, 4, strips, strips == 1 ? data : arrays);  // StripOffsets
  entry(277, 3, 1, 1);                                 // SamplesPerPixel
  entry(278, 4, 1, rows_per_strip);                    // RowsPerStrip
  const uint32_t last_rows = h - (strips - 1) * rows_per_strip;
  entry(279, 4, strips, strips == 1 ? w * h : arrays + 4 * strips);  // StripByteCounts
  u32(0);                                                            // no next directory
  if (strips > 1) {
    for (uint32_t i = 0; i < strips; ++i) u32(data + i * rows_per_strip * w);
    for (uint32_t i = 0; i < strips; ++i) u32((i + 1 < strips ? rows_per_strip : last_rows) * w);
  }
  for (int32_t v : im.components[0].samples) s += static_cast<char>(v);
  return s;
}

TEST(Tiff, TruncatedPixelDataThrows) {
  TempDir dir;
  const RefImage want = make_image(37, 23, 1, 8, false);
  for (uint32_t rows_per_strip : {5u, 23u}) {
    SCOPED_TRACE("rows per strip " + std::to_string(rows_per_strip));
    const std::string bytes = directory_first_tiff(want, rows_per_strip);
    const std::string path = dir.file("directory_first.tif");
    write_file(path, bytes);
    expect_same(read_image(path), want);
    testing::internal::CaptureStderr();
    expect_truncations_throw(dir, "directory_first_cut.tif", bytes);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
}

// Strips and tiles decode on all cores (each worker with its own libtiff handle) when a band
// holds a megabyte or more: the same image as written, whole and in bands, and with two
// damaged blocks the first one in file order is the one named, every time.
TEST(Tiff, ParallelDecodeNamesTheFirstBadBlock) {
  TempDir dir;
  const RefImage want = make_image(600, 400, 3, 16, false);  // 1.4 MB
  for (bool tiled : {false, true}) {
    SCOPED_TRACE(tiled ? "tiles" : "strips");
    TiffLayout lay;
    lay.tiled = tiled;
    lay.rows_per_strip = 8;  // 50 strips
    lay.tile = 32;           // 247 tiles
    lay.compression = COMPRESSION_ADOBE_DEFLATE;
    const std::string path = dir.file(tiled ? "many_tiles.tif" : "many_strips.tif");
    ASSERT_TRUE(write_tiff(path, want, lay));
    expect_same(read_image(path), want);
    expect_same(read_in_bands(path, {300, 100}), want);  // a parallel band, then a serial one
    // The offsets of blocks 5 and 6 (on different workers), then garbage over their bytes.
    TIFF* t = TIFFOpen(path.c_str(), "r");
    ASSERT_NE(t, nullptr);
    uint64_t* offsets = nullptr;
    ASSERT_TRUE(TIFFGetField(t, tiled ? TIFFTAG_TILEOFFSETS : TIFFTAG_STRIPOFFSETS, &offsets));
    const uint64_t at5 = offsets[5], at6 = offsets[6];
    TIFFClose(t);
    std::string bytes = read_file(path);
    for (uint64_t at : {at5, at6})
      for (uint64_t i = 0; i < 16; ++i) bytes[static_cast<size_t>(at + i)] = static_cast<char>(0xff - i);
    write_file(path, bytes);
    for (int run = 0; run < 5; ++run) {
      try {
        (void)read_image(path);
        ADD_FAILURE() << "damaged blocks were accepted";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::CorruptInput);
        EXPECT_NE(std::string(e.what()).find(std::string(tiled ? "tile" : "strip") + " 5"), std::string::npos)
            << e.what();
      }
    }
  }
}

// Random damage to a valid file must end in an Error or a valid image, never a crash
// (run it under the Sanitize build type to see memory errors).
TEST(Tiff, DamagedFilesNeverCrash) {
  TempDir dir;
  std::vector<std::string> originals;
  TiffLayout strips;
  TiffLayout tiles;
  tiles.tiled = true;
  tiles.compression = COMPRESSION_LZW;
  for (const TiffLayout& lay : {strips, tiles}) {
    const std::string path = dir.file("original.tif");
    ASSERT_TRUE(write_tiff(path, make_image(37, 23, 3, 16, false), lay));
    originals.push_back(read_file(path));
  }
  std::mt19937 rng(12345);
  const std::string path = dir.file("damaged.tif");
  testing::internal::CaptureStderr();
  int errors = 0, images = 0;
  for (int round = 0; round < 400; ++round) {
    std::string bytes = originals[static_cast<size_t>(round) % originals.size()];
    const int hits = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < hits; ++i) {
      // Aim most hits at the header and the directory (at the end), where damage matters.
      const size_t at =
          rng() % 2 ? rng() % 16 : bytes.size() - 1 - rng() % std::min<size_t>(bytes.size(), 300);
      bytes[at] = static_cast<char>(rng());
    }
    write_file(path, bytes);
    try {
      const j2kfront::Image im = read_image(path);
      expect_valid(im);
      ++images;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      ++errors;
    }
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_GT(errors, 0);
  RecordProperty("errors", errors);
  RecordProperty("images", images);
}

// A ~150-byte file declaring a 46340 x 46340 16-bit strip (4 GiB) is refused from its
// header: its stored bytes cannot decode to that much with Deflate, LZW or PackBits, and
// uncompressed it would have to hold it all. The message names the codec's bound.
TEST(Tiff, ForgedStripSizeIsRefusedFromTheByteCounts) {
  TempDir dir;
  const std::string path = dir.file("bomb.tif");
  const std::string payload(100, '\x55');
  struct Case {
    uint16_t compression;
    const char* words;
  };
  for (const Case& c : {Case{COMPRESSION_ADOBE_DEFLATE, "bytes of Deflate data, which decode to at most 103200 (1032:1)"},
                        Case{COMPRESSION_LZW, "bytes of LZW data"}, Case{COMPRESSION_PACKBITS, "bytes of PackBits data"}}) {
    SCOPED_TRACE(c.words);
    write_file(path, forged_tiff(46340, 46340, c.compression, 0, payload));
    testing::internal::CaptureStderr();
    expect_error(path, ErrorCode::CorruptInput, "strip 0 must decode to 4294791200 bytes, but holds 100 "s + c.words);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
  // Uncompressed, libtiff splits the strip into rows of its own, whose byte counts then
  // point past the end of the file.
  write_file(path, forged_tiff(46340, 46340, COMPRESSION_NONE, 0, payload));
  testing::internal::CaptureStderr();
  expect_error(path, ErrorCode::CorruptInput, "stored bytes, more than the file's 222");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

// Codecs without a known bound (here ZSTD) decode a huge strip a row at a time, so the forged
// strip fails at its first row instead of costing a 4 GiB buffer first.
TEST(Tiff, ForgedStripOfAnUnboundedCodecFailsAtItsFirstRow) {
  if (!TIFFIsCODECConfigured(COMPRESSION_ZSTD)) GTEST_SKIP() << "this libtiff has no ZSTD codec";
  TempDir dir;
  const std::string path = dir.file("zstd_bomb.tif");
  write_file(path, forged_tiff(46340, 46340, COMPRESSION_ZSTD, 0, std::string(100, '\x55')));
  testing::internal::CaptureStderr();
  expect_error(path, ErrorCode::CorruptInput, "cannot decode row 0 of strip 0");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

// Tiles are decoded whole, so their size is capped; and a forged tile size meets the same
// byte-count check as a strip.
// A width no row of memory should be taken for, in a codec with no known bound (ZSTD) or an
// invalid one (0): refused from the header. (The read_image fuzzer found the second: a
// 203-byte file asking for a 1.7 GB row.)
TEST(Tiff, ForgedRowWidthIsRefusedFromTheHeader) {
  TempDir dir;
  for (uint16_t compression : {uint16_t{50000}, uint16_t{0}}) {
    SCOPED_TRACE(compression);
    const std::string path = dir.file("wide.tif");
    write_file(path, forged_tiff(200000000, 88, compression, 0, std::string(64, '\x55')));
    expect_error(path, ErrorCode::UnsupportedInput, "(400000000 bytes) exceed the reader's limit of 256 MiB a row");
  }
}

// A 7x5 Deflate TIFF whose last strip is damaged so that libtiff (through libdeflate) reports
// it decoded while it wrote 3 of its 7 bytes (found by the read_image fuzzer). Whatever stands
// in the rest, it must not depend on what was decoded before: the image reads the same whole
// and in bands of every height, and its undecoded samples are 0, not the previous strip's.
TEST(Tiff, APartlyDecodedBlockDoesNotShowAnEarlierOne) {
  static const char kFile[] =
      "\x49\x49\x2a\x00\x5c\x00\x00\x00\x78\x9c\x63\x50\xf5\xca\x9f\xb2\xf3\x1e\xb7\x41\x68\xd5\xfc\x23"
      "\x2f\x01\x26\xb1\x06\x60\x78\x9c\x13\xb3\x4e\x68\x5d\x75\xfe\x8b\xa2\x5b\xf6\x84\xad\xb7\xfe\x03"
      "\x00\x2f\xb7\x07\x94\x78\x9c\xd3\x09\x2c\x1b\x7d\xe0\x29\x17\x00\x0b\xef\x03\x3e\x08\x00\x00\x00"
      "\x1e\x00\x00\x00\x35\x00\x00\x00\x16\x00\x00\x00\x17\x00\x00\x00\x0f\x00\x00\x00\x0a\x00\x00\x01"
      "\x04\x00\x01\x00\x00\x00\x07\x00\x00\x00\x01\x01\x04\x00\x01\x00\x00\x00\x05\x00\x00\x00\x02\x01"
      "\x03\x00\x01\x00\x00\x00\x08\x00\x00\x00\x03\x01\x03\x00\x01\x00\x00\x00\x08\x00\x00\x00\x06\x01"
      "\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x11\x01\x04\x00\x03\x00\x00\x00\x44\x00\x00\x00\x15\x01"
      "\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x16\x01\x04\x00\x01\x00\x00\x00\x02\x00\x00\x00\x17\x01"
      "\x04\x00\x03\x00\x00\x00\x50\x00\x00\x00\x1c\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x00\x00"
      "\x00\x00";
  TempDir dir;
  const std::string path = dir.file("partly.tif");
  write_file(path, std::string(kFile, sizeof kFile - 1));
  j2kfront::Image whole;
  try {
    whole = read_image(path);
  } catch (const Error& e) {
    GTEST_SKIP() << "this libtiff refuses the damaged strip: " << e.what();
  }
  ASSERT_EQ(whole.components.size(), 1u);
  const std::vector<unsigned char>& got = whole.components[0].bytes;
  ASSERT_EQ(got.size(), 35u);
  EXPECT_EQ(std::vector<unsigned char>(got.end() - 4, got.end()), std::vector<unsigned char>(4, 0));
  for (uint32_t band = 1; band <= 5; ++band) {
    SCOPED_TRACE(band);
    EXPECT_EQ(read_in_bands(path, {band}).components[0].bytes, got);
  }
}

TEST(Tiff, ForgedTileSizesAreRefused) {
  TempDir dir;
  const std::string path = dir.file("tile_bomb.tif");
  write_file(path, forged_tiff(40000, 40000, COMPRESSION_ZSTD, 32768, std::string(100, '\x55')));
  expect_error(path, ErrorCode::UnsupportedInput, "exceed the reader's limit of 256 MiB a tile");
  write_file(path, forged_tiff(46340, 46340, COMPRESSION_ADOBE_DEFLATE, 8192, std::string(100, '\x55')));
  expect_error(path, ErrorCode::CorruptInput, "tile 0 must decode to 134217728 bytes, but holds 100 bytes of Deflate");
}

// A valid strip larger than the reader's buffer limit (64 MiB) is decoded row by row: an
// 8200 x 8200 8-bit image in one Deflate strip reads back sample for sample.
// Two planes, each one strip of 67 MB: over the reader's 64 MiB a buffer, so decoded a row
// at a time, here in bands that end inside the strips.
TEST(Tiff, OneLargeStripIsReadRowByRow) {
  TempDir dir;
  const std::string path = dir.file("one_strip.tif");
  const uint32_t n = 8200;
  auto sample = [](uint32_t x, uint32_t y, uint32_t plane) {
    return static_cast<uint8_t>((x * 7 + y * 13 + (x * y >> 9) + plane * 101) & 0xff);
  };
  quiet_libtiff();
  TIFF* t = TIFFOpen(path.c_str(), "w");
  ASSERT_NE(t, nullptr);
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, n);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, n);
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 2);
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_SEPARATE);
  const uint16_t extra[] = {EXTRASAMPLE_UNASSALPHA};
  TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, extra);
  TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, n);
  std::vector<uint8_t> row(n);
  bool ok = true;
  for (uint16_t plane = 0; plane < 2; ++plane)
    for (uint32_t y = 0; y < n && ok; ++y) {
      for (uint32_t x = 0; x < n; ++x) row[x] = sample(x, y, plane);
      ok = TIFFWriteScanline(t, row.data(), y, plane) == 1;
    }
  TIFFClose(t);
  ASSERT_TRUE(ok);
  const j2kfront::Image im = read_in_bands(path, {3000, 1, 2999});
  ASSERT_EQ(im.components.size(), 2u);
  for (uint32_t plane = 0; plane < 2; ++plane) {
    const ReadComponent& k = im.components[plane];
    ASSERT_EQ(k.width, n);
    ASSERT_EQ(k.height, n);
    ASSERT_EQ(k.bytes.size(), size_t{n} * n);
    size_t wrong = 0;
    for (uint32_t y = 0; y < n; ++y)
      for (uint32_t x = 0; x < n; ++x) wrong += k.bytes[size_t{y} * n + x] != sample(x, y, plane);
    EXPECT_EQ(wrong, 0u) << "plane " << plane;
  }
}

TEST(Tiff, CorruptHeaderIsCorruptInputWithLibtiffWords) {
  TempDir dir;
  const std::string path = dir.file("broken.tif");
  // A TIFF signature whose first directory offset points far beyond the file.
  write_file(path, std::string("II*\0\xff\xff\xff\x7f", 8) + std::string(32, '\0'));
  testing::internal::CaptureStderr();
  expect_error(path, ErrorCode::CorruptInput, "libtiff");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

#else  // !J2K_HAVE_TIFF

TEST(Tiff, WithoutLibtiffTiffIsUnsupported) {
  TempDir dir;
  const std::string path = dir.file("any.tif");
  write_file(path, std::string("II*\0\x08\0\0\0", 8));
  expect_error(path, ErrorCode::UnsupportedInput, "TIFF support was not built in");
}

#endif  // J2K_HAVE_TIFF

// ReadOptions::max_bytes: an image whose samples need more is refused from its header
// (OutOfMemory, naming both figures); exactly that much is read. Every format.
TEST(ReadImage, MemoryBudgetIsCheckedFromTheHeader) {
  TempDir dir;
  const RefImage im = make_image(37, 23, 3, 16, false);  // 37 x 23 x 3 x 2 bytes = 5106
  std::vector<std::string> paths{dir.file("budget.ppm")};
  write_file(paths[0], pnm_bytes(im, 65535));
#ifdef J2K_HAVE_TIFF
  paths.push_back(dir.file("budget.tif"));
  ASSERT_TRUE(write_tiff(paths.back(), im, TiffLayout{}));
#endif
  const RefImage gray = make_image(37, 23, 1, 12, true);  // 37 x 23 x 2 bytes = 1702
  paths.push_back(dir.file("budget.pgx"));
  write_file(paths.back(), pgx_bytes(gray, true, "-"));
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const uint64_t need = path.find(".pgx") != std::string::npos ? 1702 : 5106;
    j2k::io::ReadOptions o;
    o.max_bytes = need;
    EXPECT_NO_THROW((void)read_image(path, o));
    o.max_bytes = need - 1;
    try {
      (void)read_image(path, o);
      ADD_FAILURE() << "an image over the budget was read";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::OutOfMemory);
      EXPECT_NE(std::string(e.what()).find("need " + std::to_string(need) + " bytes, more than the memory budget of " +
                                           std::to_string(need - 1)),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(ImageReader, EachBandIsCheckedAgainstTheBudgetAndTheRowsLeft) {
  TempDir dir;
  const RefImage im = make_image(37, 23, 3, 16, false);  // a row: 37 x 3 x 2 bytes = 222
  const std::string path = dir.file("bands.ppm");
  write_file(path, pnm_bytes(im, 65535));
  j2k::io::ImageReader reader(path);
  EXPECT_EQ(reader.sample_bytes(), 222u * 23);
  EXPECT_EQ(reader.shape().height, 23u);
  EXPECT_TRUE(reader.shape().components[0].bytes.empty());
  EXPECT_EQ(reader.read_rows(4, 888).height, 4u);
  auto expect_refused = [&](uint32_t rows, uint64_t budget, ErrorCode code, const std::string& words) {
    try {
      (void)reader.read_rows(rows, budget);
      ADD_FAILURE() << rows << " rows were read";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
    EXPECT_EQ(reader.next_row(), 4u);  // a refused band reads nothing
  };
  expect_refused(5, 1000, ErrorCode::OutOfMemory, "need 1110 bytes, more than the memory budget of 1000");
  expect_refused(0, 0, ErrorCode::InvalidArgument, "0 rows asked for at row 4 of 23");
  expect_refused(20, 0, ErrorCode::InvalidArgument, "20 rows asked for at row 4 of 23");
  EXPECT_EQ(reader.read_rows(19).height, 19u);
  EXPECT_EQ(reader.next_row(), 23u);
}

// A spare image's planes (a directory's last image) are taken by a reader that writes every
// sample, whatever they held: the samples are the file's; a plane of another size is not taken.
TEST(ImageReader, ASparesPlanesAreFilledWithTheFilesSamples) {
  TempDir dir;
  for (const auto& [comps, maxval, bits] : {std::tuple{3, 4095u, 12}, std::tuple{1, 255u, 8}, std::tuple{3, 255u, 8}}) {
    const RefImage want = make_image(77, 9, comps, bits, false);
    const std::string path = dir.file("next.pnm");
    write_file(path, pnm_bytes(want, maxval));
    j2kfront::Image spare = read_image(path);
    std::vector<const unsigned char*> planes;
    for (ReadComponent& k : spare.components) {
      std::fill(k.bytes.begin(), k.bytes.end(), 0xa5);  // another image's samples
      planes.push_back(k.bytes.data());
    }
    j2k::io::ImageReader reader(path);
    const j2kfront::Image got = reader.read_rows(9, 0, std::move(spare));
    expect_same(got, want);
    for (size_t c = 0; c < planes.size(); ++c) EXPECT_EQ(got.components[c].bytes.data(), planes[c]) << "component " << c;
  }
  // A spare of another height: fresh planes, the same samples.
  const RefImage want = make_image(77, 9, 3, 12, false);
  const std::string path = dir.file("other.ppm");
  write_file(path, pnm_bytes(want, 4095));
  j2kfront::Image spare = j2k::io::ImageReader(path).read_rows(5);
  j2k::io::ImageReader reader(path);
  expect_same(reader.read_rows(9, 0, std::move(spare)), want);
  // A reader that does not say it writes every sample (PGX) takes none.
  const RefImage grey = make_image(77, 9, 1, 8, false);
  const std::string pgx = dir.file("grey.pgx");
  write_file(pgx, pgx_bytes(grey, true, "+"));
  j2kfront::Image pgx_spare = read_image(pgx);
  const unsigned char* pgx_plane = pgx_spare.components[0].bytes.data();
  const j2kfront::Image pgx_got = j2k::io::ImageReader(pgx).read_rows(9, 0, std::move(pgx_spare));
  expect_same(pgx_got, grey);
  EXPECT_NE(pgx_got.components[0].bytes.data(), pgx_plane);
}

// ---------------------------------------------------------------------------------------
// Samples at their own width, and the view of a read image

// Checks that `k` holds packed rows of `type`: row_stride = width * sample size, nothing more.
void expect_packed(const ReadComponent& k, j2k_sample_type type, int precision, int64_t width,
                   int64_t height) {
  EXPECT_EQ(k.type, type);
  EXPECT_EQ(k.precision, precision);
  EXPECT_EQ(k.width, width);
  EXPECT_EQ(k.height, height);
  const size_t size = type == J2K_SAMPLE_U8 || type == J2K_SAMPLE_I8 ? 1 : 2;
  EXPECT_EQ(k.sample_size(), size);
  EXPECT_EQ(k.row_stride(), static_cast<ptrdiff_t>(width * static_cast<int64_t>(size)));
  EXPECT_EQ(k.bytes.size(), static_cast<size_t>(width * height) * size);
}

TEST(NativeWidth, EightBitFilesGiveU8WithRowStrideWidth) {
  TempDir dir;
  const RefImage gray = make_image(13, 7, 1, 8, false);
  const RefImage rgb = make_image(13, 7, 3, 8, false);
  std::vector<std::pair<std::string, std::string>> files = {
      {"gray.pgm", pnm_bytes(gray, 255)},
      {"rgb.ppm", pnm_bytes(rgb, 255)},
      {"gray.pgx", pgx_bytes(gray, true, "+")},
  };
  for (const auto& [name, bytes] : files) {
    SCOPED_TRACE(name);
    const std::string path = dir.file(name);
    write_file(path, bytes);
    const j2kfront::Image im = read_image(path);
    ASSERT_FALSE(im.components.empty());
    for (const ReadComponent& k : im.components) {
      expect_packed(k, J2K_SAMPLE_U8, 8, 13, 7);
      EXPECT_EQ(k.row_stride(), 13);
    }
    expect_same(im, im.components.size() == 3 ? rgb : gray);
  }
  // Fewer bits than 8 are U8 too, with the file's bit depth as the precision.
  const std::string path = dir.file("gray5.pgm");
  write_file(path, "P5 2 1 31\n\x1f\x00"s);
  const j2kfront::Image im = read_image(path);
  ASSERT_EQ(im.components.size(), 1u);
  expect_packed(im.components[0], J2K_SAMPLE_U8, 5, 2, 1);
  EXPECT_EQ(samples_as<uint8_t>(im.components[0]), (std::vector<uint8_t>{31, 0}));
#ifdef J2K_HAVE_TIFF
  const std::string tif = dir.file("rgb8.tif");
  ASSERT_TRUE(write_tiff(tif, rgb, TiffLayout{}));
  const j2kfront::Image t = read_image(tif);
  ASSERT_EQ(t.components.size(), 3u);
  for (const ReadComponent& k : t.components) expect_packed(k, J2K_SAMPLE_U8, 8, 13, 7);
  expect_same(t, rgb);
#endif
}

TEST(NativeWidth, SixteenBitFilesGiveU16) {
  TempDir dir;
  struct File {
    std::string name, bytes;
    int precision;
  };
  const RefImage gray16 = make_image(9, 5, 1, 16, false);
  const RefImage rgb10 = make_image(9, 5, 3, 10, false);
  const std::vector<File> files = {
      {"gray16.pgm", pnm_bytes(gray16, 65535), 16},
      {"rgb10.ppm", pnm_bytes(rgb10, 1023), 10},
      {"gray16.pgx", pgx_bytes(gray16, false, ""), 16},
  };
  for (const File& f : files) {
    SCOPED_TRACE(f.name);
    const std::string path = dir.file(f.name);
    write_file(path, f.bytes);
    const j2kfront::Image im = read_image(path);
    ASSERT_FALSE(im.components.empty());
    for (const ReadComponent& k : im.components)
      expect_packed(k, J2K_SAMPLE_U16, f.precision, 9, 5);
    expect_same(im, im.components.size() == 3 ? rgb10 : gray16);
  }
#ifdef J2K_HAVE_TIFF
  for (const char* mode : {"w", "wb"}) {  // either byte order in the file
    SCOPED_TRACE(mode);
    const RefImage rgba = make_image(9, 5, 4, 16, false);
    TiffLayout lay;
    lay.mode = mode;
    const std::string tif = dir.file("rgba16.tif");
    ASSERT_TRUE(write_tiff(tif, rgba, lay));
    const j2kfront::Image t = read_image(tif);
    ASSERT_EQ(t.components.size(), 4u);
    for (const ReadComponent& k : t.components) expect_packed(k, J2K_SAMPLE_U16, 16, 9, 5);
    expect_same(t, rgba);
  }
#endif
}

TEST(NativeWidth, SignedTwelveBitPgxGivesI16WithPrecision12) {
  TempDir dir;
  const RefImage want = make_image(11, 6, 1, 12, true);
  for (bool big_endian : {true, false}) {
    SCOPED_TRACE(big_endian ? "ML" : "LM");
    const std::string path = dir.file("s12.pgx");
    write_file(path, pgx_bytes(want, big_endian, "-"));
    const j2kfront::Image im = read_image(path);
    ASSERT_EQ(im.components.size(), 1u);
    expect_packed(im.components[0], J2K_SAMPLE_I16, 12, 11, 6);
    const std::vector<int16_t> got = samples_as<int16_t>(im.components[0]);
    const std::vector<int16_t> expected(want.components[0].samples.begin(),
                                        want.components[0].samples.end());
    EXPECT_EQ(got, expected);
    // Signed samples of up to 8 bits are I8.
    write_file(path, std::string("PG ML -5 3 1\n\xf0\x0f\x00", 16));
    const j2kfront::Image small = read_image(path);
    ASSERT_EQ(small.components.size(), 1u);
    expect_packed(small.components[0], J2K_SAMPLE_I8, 5, 3, 1);
    EXPECT_EQ(samples_as<int8_t>(small.components[0]), (std::vector<int8_t>{-16, 15, 0}));
  }
}

// view() of a read image must describe exactly the samples the image holds.
void expect_view_matches(const j2kfront::Image& im) {
  const j2kfront::ImageView view = im.view();
  const j2k_image_view* v = view.get();
  EXPECT_EQ(v->x0, im.x0);
  EXPECT_EQ(v->y0, im.y0);
  EXPECT_EQ(v->width, im.width);
  EXPECT_EQ(v->height, im.height);
  EXPECT_EQ(v->memory, J2K_MEMORY_HOST);
  ASSERT_EQ(static_cast<size_t>(v->num_components), im.components.size());
  for (size_t c = 0; c < im.components.size(); ++c) {
    SCOPED_TRACE("component " + std::to_string(c));
    const ReadComponent& k = im.components[c];
    const j2k_component_view& cv = v->components[c];
    EXPECT_EQ(cv.data, static_cast<const void*>(k.bytes.data()));
    EXPECT_EQ(cv.type, k.type);
    EXPECT_EQ(cv.precision, k.precision);
    EXPECT_EQ(cv.dx, k.dx);
    EXPECT_EQ(cv.dy, k.dy);
    EXPECT_EQ(cv.row_stride, k.row_stride());
    EXPECT_EQ(cv.pixel_stride, static_cast<ptrdiff_t>(j2k_sample_size(k.type)));
    // Every sample, addressed as the C interface documents, is the component's sample.
    const std::vector<int32_t> want = samples_of(k);
    std::vector<int32_t> seen;
    const char* base = static_cast<const char*>(cv.data);
    for (int64_t y = 0; y < k.height; ++y)
      for (int64_t x = 0; x < k.width; ++x) {
        const char* p = base + y * cv.row_stride + x * cv.pixel_stride;
        switch (cv.type) {
          case J2K_SAMPLE_U8: seen.push_back(*reinterpret_cast<const uint8_t*>(p)); break;
          case J2K_SAMPLE_I8: seen.push_back(*reinterpret_cast<const int8_t*>(p)); break;
          case J2K_SAMPLE_U16: seen.push_back(*reinterpret_cast<const uint16_t*>(p)); break;
          case J2K_SAMPLE_I16: seen.push_back(*reinterpret_cast<const int16_t*>(p)); break;
          default: FAIL() << "type " << cv.type;
        }
      }
    EXPECT_EQ(seen, want);
  }
}

TEST(NativeWidth, ViewDescribesTheSameSamples) {
  TempDir dir;
  struct File {
    std::string name, bytes;
  };
  const std::vector<File> files = {
      {"rgb8.ppm", pnm_bytes(make_image(13, 7, 3, 8, false), 255)},
      {"rgb16.ppm", pnm_bytes(make_image(13, 7, 3, 16, false), 65535)},
      {"s12.pgx", pgx_bytes(make_image(11, 6, 1, 12, true), true, "-")},
      {"s8.pgx", pgx_bytes(make_image(11, 6, 1, 8, true), false, "-")},
  };
  for (const File& f : files) {
    SCOPED_TRACE(f.name);
    const std::string path = dir.file(f.name);
    write_file(path, f.bytes);
    expect_view_matches(read_image(path));
  }
#ifdef J2K_HAVE_TIFF
  TiffLayout planar_tiles;
  planar_tiles.tiled = planar_tiles.planar = true;
  for (const TiffLayout& lay : {TiffLayout{}, planar_tiles}) {
    const std::string tif = dir.file("rgba16.tif");
    ASSERT_TRUE(write_tiff(tif, make_image(37, 23, 4, 16, false), lay));
    expect_view_matches(read_image(tif));
  }
#endif
}

// ---------------------------------------------------------------------------------------
// The sample images of tests/data: each TIFF must read, and must equal its PGM/PPM twin
// (camera.tif / camera.pgm). A "<name>_u16.tif" holds the twin of <name> times 257.

// The twin of `tif` with the PGM or PPM extension, or an empty path.
fs::path pnm_twin(fs::path tif) {
  for (const char* ext : {".pgm", ".ppm"})
    if (fs::exists(tif.replace_extension(ext))) return tif;
  return {};
}

TEST(SampleData, TiffMatchesItsPnmTwin) {
  const fs::path data = J2K_TEST_DATA_DIR;
  if (!fs::is_directory(data)) GTEST_SKIP() << data << " does not exist";
#ifndef J2K_HAVE_TIFF
  GTEST_SKIP() << "TIFF support was not built in";
#endif
  int tiffs = 0, pairs = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(data)) {
    const fs::path tif = entry.path();
    if (tif.extension() != ".tif" && tif.extension() != ".tiff") continue;
    SCOPED_TRACE(tif.string());
    j2kfront::Image a;
    ASSERT_NO_THROW(a = read_image(tif.string()));
    expect_valid(a);
    ++tiffs;
    if (const fs::path twin = pnm_twin(tif); !twin.empty()) {
      SCOPED_TRACE("twin " + twin.string());
      expect_same(a, to_ref(read_image(twin.string())));
      ++pairs;
    }
    const std::string stem = tif.stem().string();
    if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, "_u16") == 0) {
      const fs::path twin =
          pnm_twin(tif.parent_path() / (stem.substr(0, stem.size() - 4) + ".tif"));
      if (twin.empty()) continue;
      SCOPED_TRACE("8-bit twin " + twin.string());
      RefImage widened = to_ref(read_image(twin.string()));
      for (RefComponent& k : widened.components) {
        k.precision = 16;
        for (int32_t& v : k.samples) v *= 257;
      }
      expect_same(a, widened);
      ++pairs;
    }
  }
  if (tiffs == 0) GTEST_SKIP() << "no TIFF in " << data;
  RecordProperty("tiffs", tiffs);
  RecordProperty("pairs", pairs);
}

// ---------------------------------------------------------------------------------------
// NPY

// Checks the NPY preamble of `bytes` and returns the header dict text (padding included).
std::string npy_dict(const std::string& bytes) {
  EXPECT_GE(bytes.size(), 10u);
  if (bytes.size() < 10) return "";
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t len = static_cast<uint8_t>(bytes[8]) | size_t{static_cast<uint8_t>(bytes[9])} << 8;
  EXPECT_EQ((10 + len) % 64, 0u) << "header length " << len;
  EXPECT_LE(10 + len, bytes.size());
  const std::string dict = bytes.substr(10, len);
  EXPECT_EQ(dict.back(), '\n');
  return dict;
}

std::string expected_dict_start(const char* descr, int64_t rows, int64_t cols) {
  return std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
         std::to_string(rows) + ", " + std::to_string(cols) + "), }";
}

void expect_padding(const std::string& dict, size_t from) {
  for (size_t i = from; i + 1 < dict.size(); ++i) ASSERT_EQ(dict[i], ' ') << "byte " << i;
}

// ---------------------------------------------------------------------------------------
// Writers: what write_pnm writes, read back (it writes a band of rows at a time).

// `ref` as a decoder gives it: U8 up to 8 bits, U16 above.
j2kfront::Image image_of(const RefImage& ref) {
  j2kfront::Image im;
  im.width = static_cast<uint32_t>(ref.width);
  im.height = static_cast<uint32_t>(ref.height);
  for (const RefComponent& r : ref.components) {
    ReadComponent k;
    k.type = expected_type(r.precision, false);
    k.precision = r.precision;
    k.width = r.width;
    k.height = r.height;
    k.bytes.resize(r.samples.size() * k.sample_size());
    for (size_t i = 0; i < r.samples.size(); ++i) {
      if (k.type == J2K_SAMPLE_U8) k.bytes[i] = static_cast<unsigned char>(r.samples[i]);
      else reinterpret_cast<uint16_t*>(k.bytes.data())[i] = static_cast<uint16_t>(r.samples[i]);
    }
    im.components.push_back(std::move(k));
  }
  return im;
}

void write_pnm_file(const std::string& path, const j2kfront::Image& image) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  j2k::io::write_pnm(f, path, j2k::io::samples_of(image));
  ASSERT_EQ(std::fclose(f), 0);
}

TEST(PnmWriter, ImagesOfManyBandsComeBackSampleForSample) {
  TempDir dir;
  // Rows of 2100 to 6000 bytes: bands of 174 to 499 rows, the last one short; one row;
  // one column.
  struct Case { int64_t w, h; int comps, bits; };
  for (const Case& k : {Case{700, 1200, 3, 8}, Case{1000, 450, 3, 16}, Case{2000, 300, 1, 12}, Case{1, 1, 3, 8},
                        Case{1, 5000, 1, 16}, Case{5000, 1, 3, 10}}) {
    SCOPED_TRACE(std::to_string(k.w) + "x" + std::to_string(k.h) + " x" + std::to_string(k.comps) + " " +
                 std::to_string(k.bits) + "-bit");
    const RefImage ref = make_image(k.w, k.h, k.comps, k.bits, false);
    const std::string path = dir.file(k.comps == 1 ? "a.pgm" : "a.ppm");
    write_pnm_file(path, image_of(ref));
    expect_same(read_image(path), ref);
  }
}

TEST(PnmWriter, NarrowComponentsBesideWideOnesAreWrittenWide) {
  TempDir dir;
  RefImage ref = make_image(900, 700, 3, 12, false);
  const RefImage narrow = make_image(900, 700, 1, 8, false);
  ref.components[1] = narrow.components[0];  // U8 between two U16 components
  const std::string path = dir.file("mixed.ppm");
  write_pnm_file(path, image_of(ref));
  ref.components[1].precision = 12;  // the file has one maxval: every sample comes back 12-bit
  expect_same(read_image(path), ref);
}

TEST(PnmWriter, WritesADecodersViewsAndRefusesOtherLayouts) {
  TempDir dir;
  const RefImage ref = make_image(300, 200, 3, 16, false);
  const j2kfront::Image image = image_of(ref);
  // Packed planes, as j2k_decoder_run returns them.
  std::vector<j2k_component_view> views;
  for (const ReadComponent& k : image.components) {
    j2k_component_view v{};
    v.data = k.bytes.data();
    v.type = k.type;
    v.precision = k.precision;
    v.dx = v.dy = 1;
    v.pixel_stride = 2;
    v.row_stride = 2 * k.width;
    v.bytes = k.bytes.size();
    views.push_back(v);
  }
  j2k_image_view view{};
  view.width = 300;
  view.height = 200;
  view.num_components = 3;
  view.components = views.data();
  view.memory = J2K_MEMORY_HOST;
  const std::string path = dir.file("view.ppm");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  j2k::io::write_pnm(f, path, j2k::io::samples_of(view));
  ASSERT_EQ(std::fclose(f), 0);
  expect_same(read_image(path), ref);

  views[1].pixel_stride = 6;  // interleaved: not what a decoder returns
  EXPECT_THROW(j2k::io::samples_of(view), Error);
  views[1].pixel_stride = 2;
  view.memory = J2K_MEMORY_DEVICE;
  EXPECT_THROW(j2k::io::samples_of(view), Error);
}

TEST(Npy, Int32HeaderAlignmentAndData) {
  TempDir dir;
  for (auto [rows, cols] :
       {std::pair<int64_t, int64_t>{3, 5}, {1, 1}, {0, 7}, {17, 123}, {1000, 3}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    std::vector<int32_t> data(static_cast<size_t>(rows * cols));
    for (size_t i = 0; i < data.size(); ++i)
      data[i] = static_cast<int32_t>(i * 2654435761u) ^ (i % 2 ? INT32_MIN : 0);
    const std::string path = dir.file("a.npy");
    j2k::io::write_npy(path, data.data(), rows, cols);
    const std::string bytes = read_file(path);
    const std::string dict = npy_dict(bytes);
    const std::string start = expected_dict_start("<i4", rows, cols);
    ASSERT_EQ(dict.substr(0, start.size()), start);
    expect_padding(dict, start.size());
    const size_t offset = 10 + dict.size();
    ASSERT_EQ(bytes.size(), offset + 4 * data.size());
    for (size_t i = 0; i < data.size(); ++i) {
      const uint32_t u = static_cast<uint32_t>(data[i]);
      for (int b = 0; b < 4; ++b)
        ASSERT_EQ(static_cast<uint8_t>(bytes[offset + 4 * i + static_cast<size_t>(b)]),
                  (u >> (8 * b)) & 0xff)
            << "element " << i << " byte " << b;
    }
  }
}

TEST(Npy, Float32HeaderAndData) {
  TempDir dir;
  const std::vector<float> data = {0.0f, -1.5f, 3.25f, 1e-20f, -0.0f, 65504.0f};
  const std::string path = dir.file("f.npy");
  j2k::io::write_npy(path, data.data(), 2, 3);
  const std::string bytes = read_file(path);
  const std::string dict = npy_dict(bytes);
  const std::string start = expected_dict_start("<f4", 2, 3);
  ASSERT_EQ(dict.substr(0, start.size()), start);
  expect_padding(dict, start.size());
  const size_t offset = 10 + dict.size();
  ASSERT_EQ(bytes.size(), offset + 4 * data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    uint32_t u = 0;
    for (int b = 3; b >= 0; --b)
      u = u << 8 | static_cast<uint8_t>(bytes[offset + 4 * i + static_cast<size_t>(b)]);
    float f;
    std::memcpy(&f, &u, 4);
    EXPECT_EQ(std::memcmp(&f, &data[i], 4), 0) << "element " << i;
  }
}

TEST(Npy, UnwritablePathIsAnIoErrorNamingIt) {
  TempDir dir;
  const std::string path = dir.file("missing_folder/out.npy");
  const int32_t v = 1;
  try {
    j2k::io::write_npy(path, &v, 1, 1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.code()), static_cast<int>(ErrorCode::Io));
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos)
        << e.what();
  }
}

// /dev/full accepts the open and fails the writes with ENOSPC, as a full disk would.
TEST(Npy, FullDiskIsAnIoError) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "/dev/full is absent";
  std::vector<int32_t> data(100000, 7);
  try {
    j2k::io::write_npy("/dev/full", data.data(), 1000, 100);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.code()), static_cast<int>(ErrorCode::Io));
    EXPECT_NE(std::string(e.what()).find("/dev/full: "), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists("/dev/full")) << "the writer must only remove regular files";
}

TEST(Npy, NegativeShapeIsRejected) {
  TempDir dir;
  const int32_t v = 1;
  EXPECT_THROW(j2k::io::write_npy(dir.file("neg.npy"), &v, -1, 1), Error);
  EXPECT_FALSE(fs::exists(dir.file("neg.npy")));
}

}  // namespace
