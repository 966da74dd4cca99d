// SPDX-License-Identifier: BSD-2-Clause
// The encoder of the embedding API (j2k_encoder_*, j2kfront::Encoder): images in memory to
// codestream bytes in memory. What it writes must decode in OpenJPEG's opj_decompress to
// exactly the samples given (lossless), be byte for byte what `j2kfront compress` writes with
// the same options, and every bad setting must be refused with a status and a message that
// names it. The decoding cases skip, saying why, where opj_decompress is absent.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "io/image_io.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tests/support/pattern_images.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

using test_support::quote;
using test_support::run_command;

namespace {

const std::string kCli = J2K_CLI_PATH;
const std::string kData = J2K_TEST_DATA_DIR;

// An image of random samples at their precision (signed ones centred on 0).
j2kfront::Image random_image(uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, int ncomp, j2k_sample_type type,
                             int precision, unsigned seed) {
  return test_support::pattern_image(x0, y0, w, h, ncomp, type, precision, 0, seed);
}

// Sample i of component c as a signed number.
int64_t sample_at(const j2kfront::Image& im, size_t c, size_t i) {
  const auto& k = im.components[c];
  switch (k.type) {
    case J2K_SAMPLE_U8: return k.bytes[i];
    case J2K_SAMPLE_I8: return static_cast<int8_t>(k.bytes[i]);
    case J2K_SAMPLE_U16: { uint16_t v; std::memcpy(&v, k.bytes.data() + 2 * i, 2); return v; }
    case J2K_SAMPLE_I16: { int16_t v; std::memcpy(&v, k.bytes.data() + 2 * i, 2); return v; }
    default: ADD_FAILURE() << "sample type " << k.type; return 0;
  }
}

class EncoderApi : public test_support::TempDirTest {
 protected:
  // Decodes `bytes` with opj_decompress, one PGX per component, and expects `want`'s samples.
  void expect_decodes_to(const std::vector<uint8_t>& bytes, const j2kfront::Image& want, const std::string& what) {
    const std::string j2k = path("api.j2k");
    std::ofstream(j2k, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    const auto r = run_command("opj_decompress -i " + quote(j2k) + " -o " + quote(path("api.pgx")));
    ASSERT_EQ(r.exit_code, 0) << what << ": " << r.output;
    for (size_t c = 0; c < want.components.size(); ++c) {
      const j2kfront::Image got = j2k::io::read_image(path("api_" + std::to_string(c) + ".pgx"));
      ASSERT_EQ(got.components.size(), 1u) << what;
      ASSERT_EQ(got.components[0].width, want.components[c].width) << what << " component " << c;
      ASSERT_EQ(got.components[0].height, want.components[c].height) << what << " component " << c;
      size_t wrong = 0;
      const size_t n = static_cast<size_t>(want.components[c].width * want.components[c].height);
      for (size_t i = 0; i < n; ++i) wrong += sample_at(got, 0, i) != sample_at(want, c, i);
      EXPECT_EQ(wrong, 0u) << what << ": component " << c << " differs in " << wrong << " of " << n << " samples";
    }
  }
  void SetUp() override {
    TempDirTest::SetUp();
    have_opj_ = test_support::on_path("opj_decompress");
  }
  bool have_opj_ = false;
};

TEST_F(EncoderApi, LosslessImagesDecodeToTheirSamples) {
  if (!have_opj_) GTEST_SKIP() << "opj_decompress is not installed (Debian: libopenjp2-tools)";
  struct Case {
    const char* what;
    uint32_t x0, y0, w, h;
    int ncomp;
    j2k_sample_type type;
    int precision;
    uint32_t tile_w, tile_h, tile_x0, tile_y0;
    int levels;
  };
  for (const Case& k : std::vector<Case>{
           {"RGB 8-bit, odd origin, tiles", 3, 5, 67, 45, 3, J2K_SAMPLE_U8, 8, 32, 32, 1, 2, 3},
           {"grey 12-bit in 16", 0, 0, 50, 33, 1, J2K_SAMPLE_U16, 12, 0, 0, 0, 0, 5},
           {"RGBA 8-bit", 0, 0, 40, 40, 4, J2K_SAMPLE_U8, 8, 0, 0, 0, 0, 2},
           {"signed 16-bit", 1, 1, 31, 17, 1, J2K_SAMPLE_I16, 16, 0, 0, 0, 0, 4},
           {"signed 7-bit in 8", 0, 0, 20, 20, 2, J2K_SAMPLE_I8, 7, 0, 0, 0, 0, 4},
           {"one row", 0, 0, 37, 1, 1, J2K_SAMPLE_U8, 8, 0, 0, 0, 0, 0},
           {"one column", 0, 0, 1, 29, 3, J2K_SAMPLE_U8, 8, 0, 0, 0, 0, 0}}) {
    const j2kfront::Image image = random_image(k.x0, k.y0, k.w, k.h, k.ncomp, k.type, k.precision, 7);
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    s.levels = k.levels;
    s.tile_w = k.tile_w, s.tile_h = k.tile_h, s.tile_x0 = k.tile_x0, s.tile_y0 = k.tile_y0;
    const j2kfront::ImageView view = image.view();
    j2kfront::Encoder encoder(s, j2kfront::Coding(), view);
    expect_decodes_to(encoder.encode(view), image, k.what);
  }
}

TEST_F(EncoderApi, SameBytesAsTheCommandLine) {
  for (const std::string& flags : {std::string(""), std::string("-I -r 40,20 -b 32,32 -p RPCL -c [128,128]"),
                                   std::string("-q 30,40 -I -M 9 --SOP --EPH"), std::string("-n 4 -t 100,90 --TP R --TLM --PLT"),
                                   std::string("-t 256,256 -POC T1=0,0,1,3,3,CPRL/T1=3,0,1,6,3,LRCP/T4=0,1,1,6,3,RLCP -ROI c=1,U=4 --TLM")}) {
    for (const char* ext : {".j2k", ".jp2"}) {
      const std::string file = path(std::string("cli") + ext);
      const auto r = run_command(quote(kCli) + " compress --backend cpu --quiet --force -i " + quote(kData + "/astronaut.ppm") +
                                 " -o " + quote(file) + " " + flags);
      ASSERT_EQ(r.exit_code, 0) << flags << ": " << r.output;
      const j2kfront::Image image = j2k::io::read_image(kData + "/astronaut.ppm");
      j2kfront::Settings s;
      s.backend = J2K_BACKEND_CPU;
      j2kfront::Coding c;
      c.comment = "Created by j2kfront";  // the CLI's default
      c.format = std::string(ext) == ".jp2" ? J2K_FORMAT_JP2 : J2K_FORMAT_J2K;
      if (flags.find("-I") != std::string::npos) s.wavelet = J2K_WAVELET_97;
      if (flags.find("-r 40,20") != std::string::npos) {
        c.rates = {40, 20};
        c.block_w = c.block_h = 32;
        c.progression = J2K_RPCL;
        c.precincts = {{128, 128}};
      }
      if (flags.find("-q") != std::string::npos) {
        c.psnr = {30, 40};
        c.modes = J2K_MODE_BYPASS | J2K_MODE_VSC;
        c.sop = c.eph = true;
      }
      if (flags.find("-n 4") != std::string::npos) {
        s.levels = 3;
        s.tile_w = 100, s.tile_h = 90;
        c.tile_parts = 'R';
        c.tlm = c.plt = true;
      }
      if (flags.find("-POC") != std::string::npos) {
        s.tile_w = s.tile_h = 256;
        c.pocs = {{0, 0, 0, 1, 3, 3, J2K_CPRL}, {0, 3, 0, 1, 6, 3, J2K_LRCP}, {3, 0, 1, 1, 6, 3, J2K_RLCP}};
        c.roi_component = 1;
        c.roi_shift = 4;
        c.tlm = true;
      }
      const j2kfront::ImageView view = image.view();
      j2kfront::Encoder encoder(s, c, view);
      EXPECT_TRUE(encoder.encode(view) == test_support::file_bytes(file)) << "flags '" << flags << "', " << ext;
    }
  }
}

// One encoder, several images of its shape: each file holds its own image, and the report
// describes the last run.
TEST_F(EncoderApi, RunsAgainOnNewImages) {
  if (!have_opj_) GTEST_SKIP() << "opj_decompress is not installed (Debian: libopenjp2-tools)";
  const j2kfront::Image a = random_image(0, 0, 64, 48, 3, J2K_SAMPLE_U8, 8, 1);
  const j2kfront::Image b = random_image(0, 0, 64, 48, 3, J2K_SAMPLE_U8, 8, 2);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  j2kfront::Encoder encoder(s, j2kfront::Coding(), a.view());
  const std::vector<uint8_t> first = encoder.encode(a.view());
  const std::vector<uint8_t> second = encoder.encode(b.view());
  EXPECT_NE(first, second);
  expect_decodes_to(first, a, "first image");
  expect_decodes_to(second, b, "second image");
  const j2k_encode_report r = encoder.report();
  EXPECT_EQ(r.bytes, second.size());
  EXPECT_EQ(r.layers, 1);
  EXPECT_TRUE(std::isinf(r.layer_psnr[0])) << "lossless: nothing of the image is lost";
  EXPECT_GE(r.front_ms, 0);
  EXPECT_GT(r.tier1_ms, 0);
  const j2k_plan_info info = encoder.info();
  EXPECT_EQ(info.backend, J2K_BACKEND_CPU);
  EXPECT_EQ(info.mct, 1);
  EXPECT_EQ(info.tile_components, 3u);
}

// j2k_coding.max_bytes: 2 x 2 precincts (1 x 1 code-blocks) on a 512 x 512 image are refused
// at create, before the plan, naming the code-blocks and the figures; the default precincts
// fit the same limit, and the limit holds again at run, where Tier-1's output is counted.
TEST_F(EncoderApi, MemoryLimitRefusesTinyPrecinctsBeforeTheWork) {
  const j2kfront::Image image = random_image(0, 0, 512, 512, 1, J2K_SAMPLE_U8, 8, 3);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.threads = 2;  // the plan's scratch grows with the threads: fixed, so that the limits below hold on any machine
  j2kfront::Coding c;
  c.max_bytes = uint64_t{16} << 20;
  c.precincts = {{2, 2}};
  j2k_encoder* e = nullptr;
  EXPECT_EQ(j2k_encoder_create(&s, c.get(), image.view().get(), &e), J2K_OUT_OF_MEMORY);
  const std::string why = j2k_last_error();
  for (const char* word : {"code-blocks", "MiB", "16 MiB of memory allowed"})
    EXPECT_NE(why.find(word), std::string::npos) << "'" << word << "' is not in: " << why;
  EXPECT_EQ(e, nullptr);
  c.precincts.clear();
  ASSERT_EQ(j2k_encoder_create(&s, c.get(), image.view().get(), &e), J2K_OK) << j2k_last_error();
  const uint8_t* data = nullptr;
  size_t size = 0;
  EXPECT_EQ(j2k_encoder_run(e, image.view().get(), &data, &size), J2K_OK) << j2k_last_error();
  EXPECT_GT(size, 0u);
  j2k_encoder_destroy(e);
  // Random samples code to about their bytes (256 KiB): a limit the layout and the plan's
  // 1 MiB of coefficients fit, but not Tier-1's output and the file besides, is refused at run.
  c.max_bytes = uint64_t{1300} << 10;
  ASSERT_EQ(j2k_encoder_create(&s, c.get(), image.view().get(), &e), J2K_OK) << j2k_last_error();
  EXPECT_EQ(j2k_encoder_run(e, image.view().get(), &data, &size), J2K_OUT_OF_MEMORY);
  EXPECT_NE(std::string(j2k_last_error()).find("MiB"), std::string::npos) << j2k_last_error();
  j2k_encoder_destroy(e);
}

// Lossy layers: each stays within its ratio's bytes, and the estimated quality grows.
TEST_F(EncoderApi, RatesBoundTheLayers) {
  const j2kfront::Image image = j2k::io::read_image(kData + "/camera.pgm");
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.wavelet = J2K_WAVELET_97;
  j2kfront::Coding c;
  c.rates = {50, 20, 8};
  j2kfront::Encoder encoder(s, c, image.view());
  const std::vector<uint8_t> bytes = encoder.encode(image.view());
  const double raw = static_cast<double>(image.width) * image.height;
  EXPECT_LE(static_cast<double>(bytes.size()), raw / 8);
  EXPECT_GE(static_cast<double>(bytes.size()), raw / 8 * 0.98) << "the budget is used";
  const j2k_encode_report r = encoder.report();
  ASSERT_EQ(r.layers, 3);
  EXPECT_LT(r.layer_psnr[0], r.layer_psnr[1]);
  EXPECT_LT(r.layer_psnr[1], r.layer_psnr[2]);
  EXPECT_GT(r.layer_psnr[0], 20);
}

// Tier-1 runs on the embedder's pool when the settings name one, and codes the same bytes.
TEST_F(EncoderApi, EmbeddersThreadPoolRunsTier1) {
  const j2kfront::Image image = random_image(0, 0, 300, 200, 3, J2K_SAMPLE_U8, 8, 3);
  std::atomic<size_t> items{0};
  auto parallel_for = [&](size_t count, int, auto body) {
    for (size_t i = 0; i < count; ++i) body(i, 0), ++items;
  };
  j2kfront::ThreadPool<decltype(parallel_for)> pool(parallel_for, 3);  // run serially, as the contract allows
  j2kfront::Settings own, theirs;
  own.backend = theirs.backend = J2K_BACKEND_CPU;
  theirs.thread_pool = pool.get();
  const std::vector<uint8_t> want = j2kfront::Encoder(own, j2kfront::Coding(), image.view()).encode(image.view());
  j2kfront::Encoder encoder(theirs, j2kfront::Coding(), image.view());
  items = 0;
  const std::vector<uint8_t> got = encoder.encode(image.view());
  EXPECT_EQ(got, want);
  // 300 x 200 in 64 x 64 blocks over 6 resolutions and 3 components: far more than a plan's items.
  EXPECT_GE(items.load(), size_t{3 * 20}) << "the code-blocks went through the pool";
}

// A codestream of several MB is laid out first and copied on several threads
// (codestream/assembler.cpp): the bytes of one thread, with every marker segment between the
// packets (SOP, EPH, PLT, TLM, tile-parts) and two layers; and again on a second image with
// the same encoder, whose codestream reuses the first's memory.
TEST_F(EncoderApi, LargeCodestreamsCopiedOnSeveralThreadsAreOneThreads) {
  const j2kfront::Image first = random_image(0, 0, 1280, 1152, 3, J2K_SAMPLE_U8, 8, 21);
  const j2kfront::Image second = random_image(0, 0, 1280, 1152, 3, J2K_SAMPLE_U8, 8, 22);
  j2kfront::Coding c;
  c.rates = {8, 1};
  c.sop = c.eph = c.plt = c.tlm = true;
  c.tile_parts = 'R';
  auto settings = [](int threads) {
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    s.threads = threads;
    s.tile_w = s.tile_h = 640;
    return s;
  };
  j2kfront::Encoder one(settings(1), c, first.view()), several(settings(4), c, first.view());
  for (const j2kfront::Image* im : {&first, &second}) {
    const std::vector<uint8_t> want = one.encode(im->view());
    ASSERT_GT(want.size(), size_t{4} << 20) << "the case must reach the size from which the copies are side by side";
    const std::vector<uint8_t> got = several.encode(im->view());
    EXPECT_TRUE(got == want) << (im == &first ? "first" : "second") << " image: " << got.size() << " bytes against " << want.size();
  }
}

// Every bad setting: refused at creation with the status and a message naming it.
TEST_F(EncoderApi, BadSettingsAreNamed) {
  const j2kfront::Image rgb = random_image(0, 0, 64, 64, 3, J2K_SAMPLE_U8, 8, 4);
  const j2kfront::Image grey = random_image(0, 0, 300, 300, 1, J2K_SAMPLE_U8, 8, 5);
  struct Case {
    const char* want;
    j2k_status status;
    void (*change)(j2kfront::Settings&, j2kfront::Coding&);
    bool use_grey;  // else rgb
  };
  const std::vector<Case> cases = {
      {"code-block width 48 is not a power of two", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.block_w = 48; }, false},
      {"at most 4096 samples", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.block_w = 128; }, false},
      {"code-block height must be 4 to 1024", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.block_h = 2; }, false},
      {"precinct width 48 is not a power of two", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.precincts = {{48, 64}}; }, false},
      {"at least 2 x 2", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.precincts = {{1, 64}}; }, false},
      {"must fall from layer to layer", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.rates = {10, 20}; }, false},
      {"only the last quality layer may be lossless", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.rates = {1, 20}; }, false},
      {"finite and not negative", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.rates = {-3}; }, false},
      {"grow from layer to layer", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.psnr = {40, 30}; }, false},
      {"not both", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.rates = {20}, c.psnr = {30}; }, false},
      {"modes are J2K_MODE_* bits", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.modes = 128; }, false},
      {"takes no other mode switch", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.modes = J2K_MODE_HT | J2K_MODE_VSC; }, false},
      {"tile_parts must be", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.tile_parts = 'X'; }, false},
      {"guard_bits must be", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.guard_bits = 8; }, false},
      {"qstep must be 0", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.qstep = -0.5; }, false},
      {"qstep must be 0", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.qstep = 2; }, false},
      {"a quantisation step (qstep) is the 9/7's", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.qstep = 0.01; }, false},
      {"a comment holds at most 65531 bytes", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.comment.assign(70000, 'x'); }, false},
      {"3 or more components", J2K_INVALID_ARGUMENT, [](auto& s, auto&) { s.mct = J2K_MCT_ON; }, true},
      {"300 x 300 tiles; JPEG 2000 allows at most 65535", J2K_INVALID_ARGUMENT, [](auto& s, auto&) { s.tile_w = s.tile_h = 1, s.levels = 0; }, true},
      {"narrow_output must be 0", J2K_INVALID_ARGUMENT, [](auto& s, auto&) { s.narrow_output = 1; }, false},
      {"output_memory must be HOST", J2K_INVALID_ARGUMENT, [](auto& s, auto&) { s.output_memory = J2K_MEMORY_DEVICE; }, false},
      {"this image allows 6 levels (7 resolutions)", J2K_INVALID_ARGUMENT, [](auto& s, auto&) { s.levels = 7; }, false},
      {"pocs[0]: tile must be 0 to 65534", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.pocs = {{-1, 0, 0, 1, 6, 3, J2K_LRCP}}; }, false},
      {"pocs[1]: res_end must be res_start + 1 (4) to 33", J2K_INVALID_ARGUMENT,
       [](auto&, auto& c) { c.pocs = {{0, 0, 0, 1, 3, 3, J2K_LRCP}, {0, 3, 0, 1, 3, 3, J2K_LRCP}}; }, false},
      {"pocs[0]: comp_start 3 is not a component of the image (0 to 2)", J2K_INVALID_ARGUMENT,
       [](auto&, auto& c) { c.pocs = {{0, 0, 3, 1, 6, 4, J2K_LRCP}}; }, false},
      {"pocs[0]: comp_end must be above comp_start", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.pocs = {{0, 0, 1, 1, 6, 1, J2K_LRCP}}; }, false},
      {"pocs[0]: layer_end must be 1 to 65535", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.pocs = {{0, 0, 0, 0, 6, 3, J2K_LRCP}}; }, false},
      {"progression order changes for tile 4: the image has 4 tiles (0 to 3)", J2K_INVALID_ARGUMENT,
       [](auto& s, auto& c) { s.tile_w = s.tile_h = 32, c.pocs = {{4, 0, 0, 1, 6, 3, J2K_LRCP}}; }, false},
      {"roi_shift must be 0 (none) or 1 to 29", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.roi_shift = 30; }, false},
      {"roi_component 3 is not a component of the image (0 to 2)", J2K_INVALID_ARGUMENT,
       [](auto&, auto& c) { c.roi_component = 3, c.roi_shift = 2; }, false},
      {"a region of interest (RGN) with HT code-blocks", J2K_INVALID_ARGUMENT, [](auto&, auto& c) { c.modes = J2K_MODE_HT, c.roi_shift = 2; }, false},
  };
  for (const Case& k : cases) {
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    j2kfront::Coding c;
    k.change(s, c);
    const j2kfront::Image& image = k.use_grey ? grey : rgb;
    j2k_encoder* e = nullptr;
    const j2k_status st = j2k_encoder_create(&s, c.get(), image.view().get(), &e);
    EXPECT_EQ(st, k.status) << k.want << ": " << j2k_last_error();
    EXPECT_NE(std::string(j2k_last_error()).find(k.want), std::string::npos) << "'" << j2k_last_error() << "'";
    j2k_encoder_destroy(e);
  }
  // Enum values out of range, as a C caller can pass them (written through an int: in C++ the
  // enum could not hold them).
  const j2kfront::Coding coding;
  for (const auto& [field, want] : {std::pair{offsetof(j2k_coding, progression), "progression 9 is not"},
                                    std::pair{offsetof(j2k_coding, format), "format 9 is not"}}) {
    j2k_coding raw = *coding.get();
    const int nine = 9;
    std::memcpy(reinterpret_cast<char*>(&raw) + field, &nine, sizeof nine);
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    j2k_encoder* e = nullptr;
    EXPECT_EQ(j2k_encoder_create(&s, &raw, rgb.view().get(), &e), J2K_INVALID_ARGUMENT) << want;
    EXPECT_NE(std::string(j2k_last_error()).find(want), std::string::npos) << "'" << j2k_last_error() << "'";
    j2k_encoder_destroy(e);
  }
}

// Subsampled components (SIZ's XRsiz, YRsiz): 4:2:0 and 4:2:2 colour, odd factors, odd
// origins and tiles, where a component's grid starts at ceil(x0 / dx) (B-12). The colour cases
// carry a 4th (alpha) component: opj_decompress takes 3 components with subsampled 1 and 2
// for sYCC and converts them to RGB.
TEST_F(EncoderApi, SubsampledComponentsDecodeToTheirSamples) {
  if (!have_opj_) GTEST_SKIP() << "opj_decompress is not installed (Debian: libopenjp2-tools)";
  struct Case {
    const char* what;
    uint32_t x0, y0, w, h;
    std::vector<std::pair<int, int>> factors;  // per component
    uint32_t tile_w, tile_h;
    int levels;
  };
  for (const Case& k : std::vector<Case>{
           {"4:2:0 and alpha, odd origin, tiles", 3, 5, 67, 45, {{1, 1}, {2, 2}, {2, 2}, {1, 1}}, 32, 32, 2},
           {"4:2:2 and alpha", 0, 0, 64, 48, {{1, 1}, {2, 1}, {2, 1}, {1, 1}}, 0, 0, 3},
           {"3 x 5 beside full size, odd origin", 7, 2, 50, 41, {{1, 1}, {3, 5}}, 0, 0, 2},
           {"every component subsampled, tiles at an origin", 1, 1, 40, 40, {{2, 2}, {4, 2}}, 16, 24, 1}}) {
    j2kfront::Image image;
    image.x0 = k.x0, image.y0 = k.y0, image.width = k.w, image.height = k.h;
    std::mt19937 rng(9);
    for (auto [dx, dy] : k.factors) {
      auto& c = image.add_component(J2K_SAMPLE_U8, 8, dx, dy);
      for (auto& b : c.bytes) b = static_cast<unsigned char>(rng());
    }
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    s.levels = k.levels;
    s.tile_w = k.tile_w, s.tile_h = k.tile_h;
    const j2kfront::ImageView view = image.view();
    j2kfront::Encoder encoder(s, j2kfront::Coding(), view);
    expect_decodes_to(encoder.encode(view), image, k.what);
    // Lossy at a ratio of the subsampled samples' bytes: the file is within it (where that is
    // more than the headers and empty packets take).
    j2kfront::Settings lossy = s;
    lossy.wavelet = J2K_WAVELET_97;
    j2kfront::Coding coding;
    coding.rates = {8};
    j2kfront::Encoder small(lossy, coding, view);
    size_t samples = 0;
    for (const auto& c : image.components) samples += c.bytes.size();
    if (samples / 8 > 1000) {
      EXPECT_LE(small.encode(view).size(), samples / 8) << k.what;
    }
  }
  // The component transform needs components 0..2 of one size: auto leaves it off, on is refused.
  j2kfront::Image yuv;
  yuv.width = yuv.height = 32;
  yuv.add_component(J2K_SAMPLE_U8, 8);
  yuv.add_component(J2K_SAMPLE_U8, 8, 2, 2);
  yuv.add_component(J2K_SAMPLE_U8, 8, 2, 2);
  j2kfront::Settings s;
  s.backend = J2K_BACKEND_CPU;
  s.levels = 2;
  s.mct = J2K_MCT_ON;
  j2k_encoder* e = nullptr;
  EXPECT_EQ(j2k_encoder_create(&s, j2kfront::Coding().get(), yuv.view().get(), &e), J2K_INVALID_ARGUMENT);
  EXPECT_NE(std::string(j2k_last_error()).find("same subsampling"), std::string::npos) << j2k_last_error();
  EXPECT_EQ(e, nullptr);
}

// Levels per component (j2k_settings.component_levels): COD carries component 0's, a COC (and
// a QCC, whose bands differ) each other component's. opj_decompress decodes every progression
// exactly, with precincts (each component's list from the same sizes), tiles and odd origins,
// subsampled chroma with fewer levels, and the component transform where components 0..2 share
// their levels (OpenJPEG decodes no others: auto MCT is off, MCT on refused); opj_dump reads
// back each component's resolutions.
TEST_F(EncoderApi, ComponentLevelsWriteCocAndDecode) {
  if (!have_opj_) GTEST_SKIP() << "opj_decompress is not installed (Debian: libopenjp2-tools)";
  struct Case {
    const char* what;
    std::vector<std::pair<int, int>> factors;
    std::vector<int> levels;
    uint32_t tile_w, tile_h;
  };
  for (const Case& k : std::vector<Case>{
           {"RGB, levels 5, 2, 0 (auto MCT: off)", {{1, 1}, {1, 1}, {1, 1}}, {5, 2, 0}, 0, 0},
           {"RGBA, alpha fewer levels (with the RCT)", {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {4, 4, 4, 1}, 0, 0},
           {"4:2:0 and alpha, chroma one level less, tiles", {{1, 1}, {2, 2}, {2, 2}, {1, 1}}, {3, 2, 2, 1}, 40, 24},
           {"two components, the second deeper", {{1, 1}, {1, 1}}, {1, 4}, 0, 0}}) {
    j2kfront::Image image;
    image.x0 = 3, image.y0 = 5, image.width = 83, image.height = 61;
    std::mt19937 rng(11);
    for (auto [dx, dy] : k.factors) {
      auto& c = image.add_component(J2K_SAMPLE_U8, 8, dx, dy);
      for (auto& b : c.bytes) b = static_cast<unsigned char>(rng());
    }
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    s.component_levels = k.levels.data();
    s.tile_w = k.tile_w, s.tile_h = k.tile_h;
    const j2kfront::ImageView view = image.view();
    for (j2k_progression order : {J2K_LRCP, J2K_RLCP, J2K_RPCL, J2K_PCRL, J2K_CPRL}) {
      j2kfront::Coding coding;
      coding.progression = order;
      coding.precincts = {{16, 16}, {8, 8}};
      j2kfront::Encoder encoder(s, coding, view);
      const std::string what = std::string(k.what) + ", progression " + std::to_string(order);
      const std::vector<uint8_t> bytes = encoder.encode(view);
      expect_decodes_to(bytes, image, what);
      // opj_dump (where installed beside opj_decompress): each component's resolutions, as asked.
      if (!test_support::on_path("opj_dump")) continue;
      const auto dump = run_command("opj_dump -i " + quote(path("api.j2k")));
      ASSERT_EQ(dump.exit_code, 0) << dump.output;
      size_t at = 0;
      for (size_t c = 0; c < k.levels.size(); ++c) {
        at = dump.output.find("numresolutions=", at);
        ASSERT_NE(at, std::string::npos) << what << ": " << dump.output;
        at += 15;
        EXPECT_EQ(std::atoi(dump.output.c_str() + at), k.levels[c] + 1) << what << ", component " << c;
      }
    }
    // The 9/7 with its own steps per component (QCC), decoded by opj_decompress close to the image.
    j2kfront::Settings lossy = s;
    lossy.wavelet = J2K_WAVELET_97;
    j2kfront::Encoder encoder(lossy, j2kfront::Coding(), view);
    const std::vector<uint8_t> bytes = encoder.encode(view);
    const std::string j2k = path("lossy.j2k");
    std::ofstream(j2k, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    const auto r = run_command("opj_decompress -i " + quote(j2k) + " -o " + quote(path("lossy.pgx")));
    ASSERT_EQ(r.exit_code, 0) << k.what << ": " << r.output;
    for (size_t c = 0; c < image.components.size(); ++c) {
      const j2kfront::Image got = j2k::io::read_image(path("lossy_" + std::to_string(c) + ".pgx"));
      const size_t n = image.components[c].bytes.size();
      ASSERT_EQ(got.components[0].bytes.size(), n) << k.what;
      int worst = 0;
      for (size_t i = 0; i < n; ++i) worst = std::max(worst, std::abs(static_cast<int>(sample_at(got, 0, i)) - static_cast<int>(sample_at(image, c, i))));
      EXPECT_LE(worst, 2) << k.what << ", component " << c << " (lossless-rate 9/7)";
    }
  }
  // Refused: a component's levels out of range, or more than its (subsampled) size allows,
  // each naming the component.
  const j2kfront::Image image = random_image(0, 0, 64, 64, 3, J2K_SAMPLE_U8, 8, 3);
  for (const auto& [levels, message] : std::vector<std::pair<std::vector<int>, std::string>>{
           {{5, 40, 5}, "component 1's levels must be 0 to 32, got 40"},
           {{5, 5, 7}, "in component 2; this image allows 6 levels"},
           {{5, 4, 5}, "MCT needs components 0..2 with the same levels"}}) {
    j2kfront::Settings s;
    s.backend = J2K_BACKEND_CPU;
    s.mct = J2K_MCT_ON;
    s.component_levels = levels.data();
    j2k_encoder* e = nullptr;
    EXPECT_EQ(j2k_encoder_create(&s, j2kfront::Coding().get(), image.view().get(), &e), J2K_INVALID_ARGUMENT);
    EXPECT_NE(std::string(j2k_last_error()).find(message), std::string::npos) << j2k_last_error();
    EXPECT_EQ(e, nullptr);
  }
}

TEST_F(EncoderApi, NullPointersAndTheCheckBeforeAnImage) {
  const j2kfront::Image image = random_image(0, 0, 16, 16, 1, J2K_SAMPLE_U8, 8, 6);
  j2kfront::Settings s;
  s.levels = 2;
  j2kfront::Coding c;
  j2k_encoder* e = nullptr;
  EXPECT_EQ(j2k_encoder_create(nullptr, c.get(), image.view().get(), &e), J2K_INVALID_ARGUMENT);
  EXPECT_EQ(j2k_encoder_create(&s, nullptr, image.view().get(), &e), J2K_INVALID_ARGUMENT);
  EXPECT_EQ(j2k_encoder_create(&s, c.get(), nullptr, &e), J2K_INVALID_ARGUMENT);
  EXPECT_EQ(j2k_encoder_create(&s, c.get(), image.view().get(), nullptr), J2K_INVALID_ARGUMENT);
  ASSERT_EQ(j2k_encoder_create(&s, c.get(), image.view().get(), &e), J2K_OK) << j2k_last_error();
  const uint8_t* data = nullptr;
  size_t size = 1;
  EXPECT_EQ(j2k_encoder_run(e, nullptr, &data, &size), J2K_INVALID_ARGUMENT);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(j2k_encoder_run(e, image.view().get(), nullptr, &size), J2K_INVALID_ARGUMENT);
  EXPECT_EQ(j2k_encoder_run(nullptr, image.view().get(), &data, &size), J2K_INVALID_ARGUMENT);
  EXPECT_EQ(j2k_encoder_get_report(e, nullptr), J2K_INVALID_ARGUMENT);
  // A different shape is the plan's to refuse, naming what differs.
  const j2kfront::Image other = random_image(0, 0, 17, 16, 1, J2K_SAMPLE_U8, 8, 6);
  EXPECT_EQ(j2k_encoder_run(e, other.view().get(), &data, &size), J2K_INVALID_ARGUMENT);
  EXPECT_STRNE(j2k_last_error(), "");
  ASSERT_EQ(j2k_encoder_run(e, image.view().get(), &data, &size), J2K_OK) << j2k_last_error();
  EXPECT_GT(size, 0u);
  EXPECT_EQ(data[0], 0xFF);
  EXPECT_EQ(data[1], 0x4F) << "a codestream starts with SOC";
  j2k_encoder_destroy(e);
  j2k_encoder_destroy(nullptr);

  c.block_w = 3;
  EXPECT_EQ(j2k_coding_check(&s, c.get(), 3), J2K_INVALID_ARGUMENT);
  EXPECT_NE(std::string(j2k_last_error()).find("code-block width must be 4 to 1024"), std::string::npos) << j2k_last_error();
  c.block_w = 64;
  EXPECT_EQ(j2k_coding_check(&s, c.get(), 3), J2K_OK) << j2k_last_error();
  s.mct = J2K_MCT_ON;
  EXPECT_EQ(j2k_coding_check(&s, c.get(), 1), J2K_INVALID_ARGUMENT);
}

}  // namespace
