// SPDX-License-Identifier: BSD-2-Clause
// EBCOT (Part 1) Tier-1 on the GPU end to end (issue 46): on the cuda backend the encoder leaves
// the coefficients in device memory and codes every code-block's passes there
// (codec/tier1/block_encode_batch.hpp), lossless, lossy, with rate and PSNR targets (rate
// control on the host from the GPU's pass lengths and distortions) and every mode switch; its
// codestream must be the CPU backend's byte for byte, through the C API (j2k_encoder) and
// through `j2kfront compress`, and the report must say where Tier-1 ran.
//   EbcotTier1Choice.* (label unit): the factory's choice, in every build; without CUDA it must
//                  leave Tier-1 on the CPU.
//   EbcotBatchEmulation.* (label unit): the encoder's batch path with the GPU batch's work
//                  emulated on the host (host_ebcot_image_encoder.hpp), against the CPU's coder,
//                  in every build: the block addresses, modes, steps, distortions and packaging
//                  checked without a device.
//   EbcotGpuCompress.* (label cuda): the byte comparisons; skipped, saying why, without a
//                  CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "codec/encoder.hpp"
#include "codec/tier1/block_encode_batch.hpp"
#include "codec/tier1/gpu/host_ebcot_image_encoder.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tests/support/gpu_compress_support.hpp"
#include "tests/support/image_rows.hpp"
#include "tests/support/pattern_images.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

using test_support::first_difference;
using test_support::log2_of;
using test_support::pattern_image;
using test_support::quote;
using test_support::run_command;

namespace {

const std::string kCli = J2K_CLI_PATH;

// ------------------------------------------------------------------ the factory's choice

TEST(EbcotTier1Choice, EbcotOnCudaIsTheGpuBatchWhereBuilt) {
  j2k::codec::CodingParams lossless, rates, psnr, modes;
  rates.layer_bytes = {1000, 5000};
  psnr.layer_psnr = {40};
  modes.modes = 0x3F;
  for (const j2k::codec::CodingParams& p : {lossless, rates, psnr, modes}) {
    const auto batch = j2k::codec::make_block_encode_batch(p, j2k::BackendOptions(j2k::Backend::Cuda));
#if J2KFRONT_HAVE_CUDA
    ASSERT_NE(batch, nullptr) << "a CUDA build must code EBCOT blocks on the GPU for --backend cuda, targets or not";
    EXPECT_TRUE(batch->reads(J2K_MEMORY_DEVICE));
    EXPECT_FALSE(batch->reads(J2K_MEMORY_HOST));
    EXPECT_TRUE(batch->estimates_distortion());
    EXPECT_STREQ(batch->where(), "cuda");
#else
    EXPECT_EQ(batch, nullptr) << "a build without CUDA must leave Tier-1 to the CPU's block coder";
#endif
  }
}

TEST(EbcotTier1Choice, OtherBackendsStayOnTheCpu) {
  j2k::codec::CodingParams ebcot;
  EXPECT_EQ(j2k::codec::make_block_encode_batch(ebcot, j2k::BackendOptions(j2k::Backend::Cpu)), nullptr);
  EXPECT_EQ(j2k::codec::make_block_encode_batch(ebcot, j2k::BackendOptions(j2k::Backend::OpenCL)), nullptr);
}

// ------------------------------------------------------------------ images and encoders

struct Case {
  std::string name;
  uint32_t x0 = 0, y0 = 0, w = 64, h = 64;
  int ncomp = 1;
  j2k_sample_type type = J2K_SAMPLE_U8;
  int precision = 8;
  int pattern = 0;
  int levels = 5;
  uint32_t tile_w = 0, tile_h = 0;
  int bw = 64, bh = 64;
  j2k_progression order = J2K_LRCP;
  bool irreversible = false;
  double qstep = 0;
  unsigned modes = 0;
  std::vector<double> rates, psnr;
};

std::string describe(const Case& c) {
  std::ostringstream s;
  s << c.name << " (" << c.w << "x" << c.h << " at " << c.x0 << "," << c.y0 << ", " << c.ncomp << " x " << c.precision
    << " bits, levels " << c.levels << ", tiles " << c.tile_w << "x" << c.tile_h << ", blocks " << c.bw << "x" << c.bh
    << ", progression " << c.order << ", " << (c.irreversible ? "9/7" : "5/3") << ", modes " << c.modes;
  if (c.qstep > 0) s << ", qstep " << c.qstep;
  for (double r : c.rates) s << ", -r " << r;
  for (double q : c.psnr) s << ", -q " << q;
  s << ", pattern " << c.pattern << ")";
  return s.str();
}

struct Encoded {
  std::vector<std::vector<uint8_t>> bytes;  // one per image given
  std::vector<std::vector<double>> psnr;    // the report's, per image
  std::string tier1_on;
  std::string error;  // what create or run threw, if anything
};

// Two images of `c`'s shape, the second of another pattern (the same where it is constant).
std::vector<j2kfront::Image> two_images(const Case& c) {
  return {pattern_image(c.x0, c.y0, c.w, c.h, c.ncomp, c.type, c.precision, c.pattern, 1),
          pattern_image(c.x0, c.y0, c.w, c.h, c.ncomp, c.type, c.precision, c.pattern == 2 ? 2 : 1 - c.pattern, 2)};
}

// The same PSNR reports (NaN equal to NaN, as bits).
bool same_psnr(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// Cases the emulation and the GPU must code alike: lossless and -I, every mode switch alone
// and all six, rates and PSNR targets with layers, tiles, code-block shapes, odd sizes.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (bool i97 : {false, true}) {
    Case c;
    c.irreversible = i97;
    c.name = "509x317 RGB at an odd origin", c.x0 = 3, c.y0 = 1, c.w = 509, c.h = 317, c.ncomp = 3;
    out.push_back(c);
    for (unsigned modes : {1u, 2u, 4u, 8u, 16u, 32u, 63u, 1u | 4u | 16u}) {
      Case m = c;
      m.name = "mode switches", m.modes = modes, m.w = 211, m.h = 150, m.pattern = 1;
      out.push_back(m);
    }
    Case r = c;
    r.name = "-r 20,10,5", r.rates = {20, 10, 5};
    out.push_back(r);
    Case r1 = c;
    r1.name = "-r 30 with every mode", r1.rates = {30}, r1.modes = 63, r1.pattern = 1;
    out.push_back(r1);
    Case q = c;
    q.name = "-q 30,40", q.psnr = {30, 40};
    out.push_back(q);
    Case t = c;
    t.name = "tiles, 32x32 blocks, RPCL", t.levels = 3, t.tile_w = 128, t.tile_h = 96, t.bw = 32, t.bh = 32, t.order = J2K_RPCL;
    out.push_back(t);
    for (auto [bw, bh] : {std::pair{4, 1024}, {1024, 4}, {16, 64}, {4, 4}}) {
      Case b = c;
      b.name = "code-blocks", b.ncomp = 1, b.bw = bw, b.bh = bh, b.pattern = 1;
      out.push_back(b);
    }
    Case g;
    g.irreversible = i97;
    g.name = "16-bit grey", g.w = 333, g.h = 221, g.x0 = 7, g.y0 = 5, g.type = J2K_SAMPLE_U16, g.precision = 16;
    out.push_back(g);
    Case s = g;
    s.name = "signed 16 bits, 4 components, -r 8", s.type = J2K_SAMPLE_I16, s.ncomp = 4, s.pattern = 1, s.rates = {8};
    out.push_back(s);
    Case f = c;
    f.name = "one constant", f.pattern = 2, f.w = 100, f.h = 70;
    out.push_back(f);
    for (auto [w, h] : {std::pair<uint32_t, uint32_t>{1, 1}, {1, 300}, {300, 1}}) {
      Case thin;
      thin.irreversible = i97;
      thin.name = "thin", thin.w = w, thin.h = h, thin.x0 = 1, thin.y0 = 2, thin.levels = 0;
      out.push_back(thin);
    }
  }
  for (double qstep : {0.02, 0.0005, 1e-5, 1e-7}) {  // 1e-7: refused alike (a coefficient too large)
    Case q;
    q.name = "-I --qstep", q.irreversible = true, q.qstep = qstep, q.w = 301, q.h = 257, q.ncomp = 3, q.pattern = 1;
    out.push_back(q);
  }
  return out;
}

// `c` through the codec's encoder on the CPU backend, Tier-1 by the CPU's coder or (emulate)
// by the host emulation of the GPU batch (slots 1/slot_divisor of theirs); whole or (by_rows)
// a row of tiles at a time.
Encoded encode_internal(const Case& c, const std::vector<j2kfront::Image>& images, bool emulate, bool by_rows = false,
                        size_t slot_divisor = 1) {
  j2k::codec::EncoderSettings e;
  e.plan.wavelet = c.irreversible ? j2k::Wavelet::Irreversible97 : j2k::Wavelet::Reversible53;
  e.plan.levels = c.levels;
  e.plan.tile_w = c.tile_w, e.plan.tile_h = c.tile_h;
  e.plan.backend = j2k::BackendOptions(j2k::Backend::Cpu);
  e.coding.levels = c.levels;
  e.coding.block_w_log2 = log2_of(c.bw), e.coding.block_h_log2 = log2_of(c.bh);
  e.coding.order = static_cast<j2k::codec::Progression>(c.order);
  e.coding.relative_step = c.qstep;
  e.coding.modes = static_cast<uint8_t>(c.modes);
  e.layer_rates = c.rates;
  e.coding.layer_psnr = c.psnr;
  e.coding.layers = static_cast<int>(std::max<size_t>({1, c.rates.size(), c.psnr.size()}));
  if (emulate) e.make_tier1_batch = [slot_divisor] { return j2k::codec::make_host_ebcot_image_encoder(slot_divisor); };
  e.by_tile_rows = by_rows;
  Encoded out;
  try {
    const j2kfront::Image no_samples = by_rows ? test_support::shape_of(images[0]) : j2kfront::Image();
    const j2kfront::ImageView shape = (by_rows ? no_samples : images[0]).view();
    j2k::codec::Encoder encoder(e, *shape.get());
    for (const j2kfront::Image& im : images) {
      out.bytes.push_back(test_support::encode_image(encoder, im, by_rows));
      out.psnr.push_back(encoder.report().layer_psnr);
      out.tier1_on = encoder.report().tier1_on;
    }
  } catch (const std::exception& x) {
    out.error = x.what();
  }
  return out;
}

void expect_emulation_equals_cpu(const Case& c, bool by_rows, size_t slot_divisor) {
  SCOPED_TRACE(describe(c) + (by_rows ? ", by rows of tiles" : "") + (slot_divisor > 1 ? ", small slots" : ""));
  const std::vector<j2kfront::Image> images = two_images(c);
  const Encoded cpu = encode_internal(c, images, false);
  const Encoded emulated = encode_internal(c, images, true, by_rows, slot_divisor);
  if (!cpu.error.empty()) {  // -I --qstep 1e-7: a coefficient too large for its step
    EXPECT_EQ(emulated.error, cpu.error);
    return;
  }
  ASSERT_EQ(emulated.error, "");
  EXPECT_EQ(cpu.tier1_on, "cpu");
  EXPECT_EQ(emulated.tier1_on, "host emulation of the GPU batch");
  ASSERT_EQ(emulated.bytes.size(), cpu.bytes.size());
  for (size_t i = 0; i < cpu.bytes.size(); ++i) {
    EXPECT_TRUE(emulated.bytes[i] == cpu.bytes[i]) << "image " << i << ": " << first_difference(emulated.bytes[i], cpu.bytes[i]);
    EXPECT_TRUE(same_psnr(emulated.psnr[i], cpu.psnr[i])) << "image " << i << ": the layers' estimated PSNR differ";
  }
}

// ------------------------------------------------------------------ the host emulation

TEST(EbcotBatchEmulation, EqualsTheCpuCoder) {
  for (const Case& c : cases()) expect_emulation_equals_cpu(c, false, 1);
}

// Slots a quarter of their size (about a byte a sample): the dense blocks (16-bit lossless)
// come from the CPU's coder, the rest from the kernel's, in one codestream.
TEST(EbcotBatchEmulation, BlocksOutOfRoomFromTheCpuCoder) {
  for (const Case& c : cases())
    if (c.name == "16-bit grey" || c.name == "-r 30 with every mode" || c.name == "509x317 RGB at an odd origin")
      expect_emulation_equals_cpu(c, false, 4);
}

TEST(EbcotBatchEmulation, ByRowsOfTiles) {
  for (bool i97 : {false, true})
    for (unsigned modes : {0u, 63u}) {
      Case c;
      c.irreversible = i97, c.modes = modes;
      c.name = "tiles by rows", c.x0 = 3, c.y0 = 1, c.w = 309, c.h = 217, c.ncomp = 3, c.levels = 3, c.tile_w = 128, c.tile_h = 96;
      expect_emulation_equals_cpu(c, true, 1);
      c.rates = {12, 4};
      expect_emulation_equals_cpu(c, true, 1);
    }
}

// ------------------------------------------------------------------ the C API on the GPU

Encoded encode(const Case& c, j2k_backend backend, const std::vector<j2kfront::Image>& images) {
  j2kfront::Settings s;
  s.backend = backend;
  s.wavelet = c.irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
  s.levels = c.levels;
  s.tile_w = c.tile_w, s.tile_h = c.tile_h;
  j2kfront::Coding k;
  k.modes = c.modes;
  k.block_w = c.bw, k.block_h = c.bh;
  k.progression = c.order;
  k.qstep = c.qstep;
  k.rates = c.rates;
  k.psnr = c.psnr;
  Encoded out;
  try {
    j2kfront::Encoder e(s, k, images[0].view());
    for (const j2kfront::Image& im : images) {
      out.bytes.push_back(e.encode(im.view()));
      const j2k_encode_report r = e.report();
      out.tier1_on = r.tier1_on ? r.tier1_on : "(null)";
      out.psnr.emplace_back(r.layer_psnr, r.layer_psnr + r.layers);
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

class EbcotGpuCompress : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!test_support::backend_device(J2K_BACKEND_CUDA, why)) GTEST_SKIP() << "no CUDA backend/device: " << why;
  }
  void TearDown() override {
    if (!IsSkipped()) {
      EXPECT_GT(compared_, 0) << "every case was refused by both backends: nothing was compared";
    }
  }
  // Encodes `c` (two images of its shape, with one encoder) on both backends and expects the
  // same bytes and PSNR estimates, Tier-1 on cuda for the GPU run; or the same refusal.
  void expect_same_codestreams(const Case& c) {
    SCOPED_TRACE(describe(c));
    const std::vector<j2kfront::Image> images = two_images(c);
    const Encoded cpu = encode(c, J2K_BACKEND_CPU, images);
    const Encoded gpu = encode(c, J2K_BACKEND_CUDA, images);
    if (!cpu.error.empty()) {
      EXPECT_EQ(gpu.error, cpu.error) << "the CPU backend refused the case; the cuda backend must refuse it alike";
      return;
    }
    ASSERT_EQ(gpu.error, "") << "the cuda backend threw where the CPU backend did not";
    ++compared_;
    EXPECT_EQ(cpu.tier1_on, "cpu");
    EXPECT_EQ(gpu.tier1_on, "cuda") << "EBCOT on --backend cuda: Tier-1 must run on the GPU";
    ASSERT_EQ(gpu.bytes.size(), cpu.bytes.size());
    for (size_t i = 0; i < cpu.bytes.size(); ++i) {
      EXPECT_TRUE(gpu.bytes[i] == cpu.bytes[i]) << "image " << i << ": the codestreams differ: " << first_difference(gpu.bytes[i], cpu.bytes[i]);
      EXPECT_TRUE(same_psnr(gpu.psnr[i], cpu.psnr[i])) << "image " << i << ": the layers' estimated PSNR differ";
    }
  }
  int compared_ = 0;
};

TEST_F(EbcotGpuCompress, EqualsTheCpuBackend) {
  for (const Case& c : cases()) expect_same_codestreams(c);
}

TEST_F(EbcotGpuCompress, LevelsAndProgressions) {
  for (bool i97 : {false, true}) {
    for (int levels : {0, 1, 6}) {
      Case c;
      c.name = "levels", c.x0 = 1, c.y0 = 1, c.w = 200, c.h = 150, c.ncomp = 3, c.pattern = 1, c.levels = levels, c.irreversible = i97;
      expect_same_codestreams(c);
    }
    for (j2k_progression order : {J2K_RLCP, J2K_PCRL, J2K_CPRL}) {
      Case c;
      c.name = "progression", c.x0 = 3, c.y0 = 1, c.w = 301, c.h = 257, c.ncomp = 3, c.levels = 4, c.tile_w = 160, c.tile_h = 128;
      c.order = order, c.irreversible = i97, c.rates = {40, 10};
      expect_same_codestreams(c);
    }
  }
}

// By rows of tiles on the GPU: the CPU backend's file of the whole image.
TEST_F(EbcotGpuCompress, ByRowsOfTiles) {
  for (bool i97 : {false, true}) {
    const j2kfront::Image image = pattern_image(3, 1, 509, 317, 3, J2K_SAMPLE_U8, 8, 1, 1);
    j2kfront::Settings s;
    s.wavelet = i97 ? J2K_WAVELET_97 : J2K_WAVELET_53;
    s.levels = 3;
    s.tile_w = 128, s.tile_h = 96;
    j2kfront::Coding k;
    k.modes = J2K_MODE_BYPASS | J2K_MODE_SEGMARK;
    k.rates = {20};
    s.backend = J2K_BACKEND_CPU;
    const std::vector<uint8_t> want = j2kfront::Encoder(s, k, image.view()).encode(image.view());
    s.backend = J2K_BACKEND_CUDA;
    j2kfront::Encoder rows(s, k, test_support::shape_of(image).view(), j2kfront::Encoder::by_tile_rows);
    std::vector<uint8_t> got;
    rows.encode_by_rows([&](uint32_t y0, uint32_t n) { return test_support::rows_of(image, y0, n); },
                        [&](const uint8_t* data, size_t n) { got.insert(got.end(), data, data + n); });
    EXPECT_STREQ(rows.report().tier1_on, "cuda");
    EXPECT_TRUE(got == want) << (i97 ? "9/7: " : "5/3: ") << first_difference(got, want);
    ++compared_;
  }
}

// ------------------------------------------------------------------ the CLI

class EbcotGpuCompressCli : public test_support::TempDirTest {
 protected:
  // A binary PPM (3 components) or PGM (1) of `im`'s samples, 16-bit ones big-endian.
  void write_pnm(const std::string& file, const j2kfront::Image& im) {
    const int n = static_cast<int>(im.components.size());
    const int maxval = (1 << im.components[0].precision) - 1;
    std::ofstream f(file, std::ios::binary);
    f << (n == 3 ? "P6" : "P5") << "\n" << im.width << " " << im.height << "\n" << maxval << "\n";
    const size_t bytes = im.components[0].sample_size();
    for (size_t i = 0; i < static_cast<size_t>(im.width) * im.height; ++i)
      for (int c = 0; c < n; ++c) {
        const uint8_t* p = im.components[static_cast<size_t>(c)].bytes.data() + i * bytes;
        if (bytes == 1) f.put(static_cast<char>(p[0]));
        else f.put(static_cast<char>(p[1])).put(static_cast<char>(p[0]));
      }
  }
  std::vector<uint8_t> read(const std::string& file) {
    std::ifstream f(file, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
  }
  void expect_same(const std::string& input, const std::string& flags) {
    SCOPED_TRACE("compress " + flags);
    std::vector<uint8_t> out[2];
    int k = 0;
    for (const char* backend : {"cpu", "cuda"}) {
      const std::string o = path(std::string(backend) + ".j2k");
      const auto r = run_command(quote(kCli) + " compress -i " + quote(input) + " -o " + quote(o) + " --force --backend " + backend +
                                 " " + flags);
      ASSERT_EQ(r.exit_code, 0) << backend << ": " << r.output;
      EXPECT_NE(r.output.find(std::string("Tier-1 on ") + backend), std::string::npos)
          << "the summary must say Tier-1 ran on " << backend << ":\n" << r.output;
      out[k++] = read(o);
    }
    ASSERT_FALSE(out[0].empty());
    EXPECT_TRUE(out[0] == out[1]) << "the codestreams differ: " << first_difference(out[1], out[0]);
  }
};

TEST_F(EbcotGpuCompressCli, SameCodestreamAsTheCpuBackend) {
  std::string why;
  if (!test_support::backend_device(J2K_BACKEND_CUDA, why)) GTEST_SKIP() << "no CUDA backend/device: " << why;
  const std::string rgb = path("rgb.ppm"), grey16 = path("grey16.pgm");
  write_pnm(rgb, pattern_image(0, 0, 509, 317, 3, J2K_SAMPLE_U8, 8, 1, 7));
  write_pnm(grey16, pattern_image(0, 0, 333, 221, 1, J2K_SAMPLE_U16, 16, 0, 8));
  for (const std::string& input : {rgb, grey16})
    for (const char* flags : {"", "-I", "-r 20,10", "-I -r 40,20,10", "-q 35,45 -I", "-M 63", "-M 1 -r 10", "-I --qstep 0.004 -d 3,1",
                              "-n 7 -b 4,1024", "-b 1024,4 -I -M 24", "-b 16,64 -t 128,96 -p RPCL -c [64,64],[32,32] -r 30",
                              "-t 200,160 -p CPRL -I -M 5"})
      expect_same(input, flags);
}

}  // namespace
