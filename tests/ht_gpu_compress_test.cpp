// SPDX-License-Identifier: BSD-2-Clause
// Tier-1 on the GPU end to end (issue 46): with HT on the cuda backend, the encoder leaves the
// coefficients in device memory and codes every code-block there (codec/tier1/
// block_encode_batch.hpp: the cleanup pass at plane 0; with a rate or PSNR target, HT rate
// control's model and sets); its codestream must be the CPU
// backend's byte for byte, through the C API (j2k_encoder) and through `j2kfront compress`,
// and the report must say where Tier-1 ran.
//   Tier1Choice.*  (label unit): the factory's choice, in every build; without CUDA it must
//                  leave Tier-1 on the CPU.
//   GpuBatchEmulation.* (label unit): the encoder's batch path with the GPU batch's work
//                  emulated on the host (host_ht_image_encoder.hpp), against the CPU's coder, in
//                  every build: the block addresses, steps and packaging checked without a device.
//   GpuCompress.*  (label cuda): the byte comparisons; skipped, saying why, without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "codec/encoder.hpp"
#include "codec/tier1/block_encode_batch.hpp"
#include "codec/tier1/gpu/host_ht_image_encoder.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tests/support/gpu_compress_support.hpp"
#include "tests/support/image_rows.hpp"
#include "tests/support/pattern_images.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir_test.hpp"

namespace fs = std::filesystem;
using test_support::quote;
using test_support::run_command;

using test_support::first_difference;
using test_support::log2_of;
using test_support::pattern_image;

namespace {

const std::string kCli = J2K_CLI_PATH;

// ------------------------------------------------------------------ the factory's choice

j2k::codec::CodingParams ht_params() {
  j2k::codec::CodingParams p;
  p.block_coding = j2k::codec::BlockCoding::HighThroughput;
  return p;
}

TEST(Tier1Choice, HtWithoutTargetsOnCudaIsTheGpuBatchWhereBuilt) {
  const auto batch = j2k::codec::make_block_encode_batch(ht_params(), j2k::BackendOptions(j2k::Backend::Cuda));
#if J2KFRONT_HAVE_CUDA
  ASSERT_NE(batch, nullptr) << "a CUDA build must code HT blocks without targets on the GPU for --backend cuda";
  EXPECT_TRUE(batch->reads(J2K_MEMORY_DEVICE));
  EXPECT_FALSE(batch->reads(J2K_MEMORY_HOST));
  EXPECT_STREQ(batch->where(), "cuda");
#else
  EXPECT_EQ(batch, nullptr) << "a build without CUDA must leave Tier-1 to the CPU's block coder";
#endif
}

TEST(Tier1Choice, HtWithoutTargetsOnOpenClIsTheGpuBatchWhereBuilt) {
  const auto batch = j2k::codec::make_block_encode_batch(ht_params(), j2k::BackendOptions(j2k::Backend::OpenCL));
#if J2KFRONT_HAVE_OPENCL
  ASSERT_NE(batch, nullptr) << "an OpenCL build must code HT blocks without targets on the device for --backend opencl";
  EXPECT_TRUE(batch->reads(J2K_MEMORY_DEVICE));
  EXPECT_FALSE(batch->reads(J2K_MEMORY_HOST));
  EXPECT_STREQ(batch->where(), "opencl");
#else
  EXPECT_EQ(batch, nullptr) << "a build without OpenCL must leave Tier-1 to the CPU's block coder";
#endif
  j2k::codec::CodingParams ebcot;
  EXPECT_EQ(j2k::codec::make_block_encode_batch(ebcot, j2k::BackendOptions(j2k::Backend::OpenCL)), nullptr) << "EBCOT, backend opencl";
}

TEST(Tier1Choice, EverythingElseStaysOnTheCpu) {
  using j2k::Backend;
  using j2k::BackendOptions;
  EXPECT_EQ(j2k::codec::make_block_encode_batch(ht_params(), BackendOptions(Backend::Cpu)), nullptr) << "HT, backend cpu";
  // (EBCOT on cuda: ebcot_gpu_compress_test.cpp's EbcotTier1Choice; HT on opencl: above.)
  j2k::codec::CodingParams capped = ht_params();
  capped.component_bytes = 1000;
  EXPECT_EQ(j2k::codec::make_block_encode_batch(capped, BackendOptions(Backend::Cuda)), nullptr) << "HT with a component cap, backend cuda";
}

// HT with a rate or PSNR target on cuda or opencl: the batch with HT rate control's steps,
// which estimates the passes' distortion; without one, it codes no figures.
TEST(Tier1Choice, HtWithTargetsIsTheGpuBatchWithRateControlWhereBuilt) {
  using j2k::Backend;
  using j2k::BackendOptions;
  j2k::codec::CodingParams rates = ht_params();
  rates.layer_bytes = {1000};
  j2k::codec::CodingParams lossless_rate = ht_params();
  lossless_rate.layer_bytes = {2000, 0};
  j2k::codec::CodingParams psnr = ht_params();
  psnr.layer_psnr = {40};
  for (const auto* p : {&rates, &lossless_rate, &psnr}) {
    const auto batch = j2k::codec::make_block_encode_batch(*p, BackendOptions(Backend::Cuda));
#if J2KFRONT_HAVE_CUDA
    ASSERT_NE(batch, nullptr);
    EXPECT_TRUE(batch->codes_ht_sets());
    EXPECT_TRUE(batch->estimates_distortion());
#else
    EXPECT_EQ(batch, nullptr);
#endif
    const auto opencl = j2k::codec::make_block_encode_batch(*p, BackendOptions(Backend::OpenCL));
#if J2KFRONT_HAVE_OPENCL
    ASSERT_NE(opencl, nullptr);
    EXPECT_TRUE(opencl->codes_ht_sets());
    EXPECT_TRUE(opencl->estimates_distortion());
#else
    EXPECT_EQ(opencl, nullptr);
#endif
  }
#if J2KFRONT_HAVE_CUDA
  EXPECT_FALSE(j2k::codec::make_block_encode_batch(ht_params(), BackendOptions(Backend::Cuda))->estimates_distortion());
#endif
#if J2KFRONT_HAVE_OPENCL
  EXPECT_FALSE(j2k::codec::make_block_encode_batch(ht_params(), BackendOptions(Backend::OpenCL))->estimates_distortion());
#endif
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
  std::vector<std::pair<int, int>> precincts;
  bool irreversible = false;
  double qstep = 0;
  std::vector<double> rates;  // -r, a layer each (1: lossless), as compress takes them
  double psnr = 0;            // -q, one layer
};

std::string describe(const Case& c) {
  std::ostringstream s;
  s << c.name << " (" << c.w << "x" << c.h << " at " << c.x0 << "," << c.y0 << ", " << c.ncomp << " x " << c.precision
    << " bits, levels " << c.levels << ", tiles " << c.tile_w << "x" << c.tile_h << ", blocks " << c.bw << "x" << c.bh
    << ", progression " << c.order << ", " << c.precincts.size() << " precinct sizes, " << (c.irreversible ? "9/7" : "5/3");
  if (c.qstep > 0) s << " qstep " << c.qstep;
  for (double r : c.rates) s << " -r " << r;
  if (c.psnr > 0) s << " -q " << c.psnr;
  s << ", pattern " << c.pattern << ")";
  return s.str();
}

struct Encoded {
  std::vector<std::vector<uint8_t>> bytes;  // one per image given
  std::string tier1_on;
  std::string error;  // what create or run threw, if anything
};

Encoded encode(const Case& c, j2k_backend backend, const std::vector<j2kfront::Image>& images) {
  j2kfront::Settings s;
  s.backend = backend;
  s.wavelet = c.irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
  s.levels = c.levels;
  s.tile_w = c.tile_w, s.tile_h = c.tile_h;
  j2kfront::Coding k;
  k.modes = J2K_MODE_HT;
  k.block_w = c.bw, k.block_h = c.bh;
  k.progression = c.order;
  k.precincts = c.precincts;
  k.qstep = c.qstep;
  Encoded out;
  try {
    j2kfront::Encoder e(s, k, images[0].view());
    for (const j2kfront::Image& im : images) {
      out.bytes.push_back(e.encode(im.view()));
      const j2k_encode_report r = e.report();
      out.tier1_on = r.tier1_on ? r.tier1_on : "(null)";
    }
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

#define REQUIRE_OPENCL_DEVICE()                                                    \
  do {                                                                             \
    std::string why_;                                                              \
    if (!test_support::backend_device(J2K_BACKEND_OPENCL, why_)) { GTEST_SKIP() << "no OpenCL backend/device: " << why_; } \
    g_compared = 0;                                                                \
  } while (0)

#define REQUIRE_CUDA_DEVICE()                                                  \
  do {                                                                         \
    std::string why_;                                                          \
    if (!test_support::backend_device(J2K_BACKEND_CUDA, why_)) { GTEST_SKIP() << "no CUDA backend/device: " << why_; } \
    g_compared = 0;                                                            \
  } while (0)

// Two images of `c`'s shape, the second of another pattern (the same where it is constant),
// for one encoder to code in turn.
std::vector<j2kfront::Image> two_images(const Case& c) {
  return {pattern_image(c.x0, c.y0, c.w, c.h, c.ncomp, c.type, c.precision, c.pattern, 1),
          pattern_image(c.x0, c.y0, c.w, c.h, c.ncomp, c.type, c.precision, c.pattern == 2 ? 2 : 1 - c.pattern, 2)};
}

// Cases compared byte for byte (not refused by both), so that a test can tell it compared some.
int g_compared = 0;

// Encodes `c` (two images of its shape, with one encoder) on both backends and expects the
// same bytes, Tier-1 on cuda for the GPU run; or, where the CPU refuses the case, the same
// refusal.
void expect_same_codestreams(const Case& c, j2k_backend backend = J2K_BACKEND_CUDA) {
  const std::string name = backend == J2K_BACKEND_OPENCL ? "opencl" : "cuda";
  SCOPED_TRACE(describe(c) + " on " + name);
  const std::vector<j2kfront::Image> images = two_images(c);
  const Encoded cpu = encode(c, J2K_BACKEND_CPU, images);
  const Encoded gpu = encode(c, backend, images);
  if (!cpu.error.empty()) {
    EXPECT_EQ(gpu.error, cpu.error) << "the CPU backend refused the case; the " << name << " backend must refuse it alike";
    return;
  }
  ASSERT_EQ(gpu.error, "") << "the " << name << " backend threw where the CPU backend did not";
  ++g_compared;
  EXPECT_EQ(cpu.tier1_on, "cpu");
  EXPECT_EQ(gpu.tier1_on, name) << "with --ht and no target on --backend " << name << ", Tier-1 must run on the GPU";
  ASSERT_EQ(gpu.bytes.size(), cpu.bytes.size());
  for (size_t i = 0; i < cpu.bytes.size(); ++i)
    EXPECT_TRUE(gpu.bytes[i] == cpu.bytes[i]) << "image " << i << " of the encoder: the codestreams differ: "
                                              << first_difference(gpu.bytes[i], cpu.bytes[i]);
}

// ------------------------------------------------------------------ the host emulation

// The host emulation with its blocks' bytes left in one buffer of its own, as the CUDA batch
// leaves them in its page-locked copy (CodedBlock::external), overwritten by the next encode.
class ExternalBytes : public j2k::codec::BlockEncodeBatch {
 public:
  bool reads(j2k_memory memory) const override { return inner_->reads(memory); }
  const char* where() const override { return inner_->where(); }
  uint64_t host_bytes(const std::vector<j2k::codec::BatchBlock>& blocks) const override { return inner_->host_bytes(blocks); }
  std::vector<j2k::codec::CodedBlock> encode(const std::vector<j2k::codec::BatchBlock>& blocks, bool reversible) override {
    std::vector<j2k::codec::CodedBlock> coded = inner_->encode(blocks, reversible);
    buffer_.clear();  // capacity kept: a block still pointing here reads the next encode's bytes
    std::vector<size_t> at;
    for (const j2k::codec::CodedBlock& b : coded) at.push_back(buffer_.size()), buffer_.insert(buffer_.end(), b.bytes.begin(), b.bytes.end());
    if (buffer_.capacity() > kCapacity) throw std::runtime_error("ExternalBytes: more bytes than its buffer holds");
    for (size_t i = 0; i < coded.size(); ++i) {
      coded[i].bytes.clear();
      coded[i].external = buffer_.data() + at[i];
    }
    return coded;
  }

 private:
  static constexpr size_t kCapacity = size_t{16} << 20;
  std::unique_ptr<j2k::codec::BlockEncodeBatch> inner_ = j2k::codec::make_host_ht_image_encoder();
  std::vector<uint8_t> buffer_ = [] {
    std::vector<uint8_t> b;
    b.reserve(kCapacity);
    return b;
  }();
};

// The host emulation with targets, counting the HT rate control steps it is asked for, so
// that a test can tell the encoder went through them.
int g_ht_set_calls = 0;
size_t g_ht_most_sets = 0;  // the most jobs one encode_ht_sets call was given
class CountingSets : public j2k::codec::BlockEncodeBatch {
 public:
  bool reads(j2k_memory memory) const override { return inner_->reads(memory); }
  const char* where() const override { return inner_->where(); }
  bool estimates_distortion() const override { return inner_->estimates_distortion(); }
  uint64_t host_bytes(const std::vector<j2k::codec::BatchBlock>& blocks) const override { return inner_->host_bytes(blocks); }
  std::vector<j2k::codec::CodedBlock> encode(const std::vector<j2k::codec::BatchBlock>& blocks, bool reversible) override {
    return inner_->encode(blocks, reversible);
  }
  bool codes_ht_sets() const override { return true; }
  std::vector<HtModel> model_ht_planes(const std::vector<j2k::codec::BatchBlock>& blocks, bool reversible) override {
    ++g_ht_set_calls;
    return inner_->model_ht_planes(blocks, reversible);
  }
  std::vector<j2k::codec::CodedBlock> encode_ht_sets(const std::vector<j2k::codec::BatchBlock>& blocks,
                                                     const std::vector<std::pair<size_t, int>>& jobs, bool reversible) override {
    ++g_ht_set_calls;
    g_ht_most_sets = std::max(g_ht_most_sets, jobs.size());
    return inner_->encode_ht_sets(blocks, jobs, reversible);
  }

 private:
  std::unique_ptr<j2k::codec::BlockEncodeBatch> inner_ = j2k::codec::make_host_ht_image_encoder(true);
};

// `c` through the codec's encoder on the CPU backend, Tier-1 by the CPU's coder or (emulate)
// by the host emulation of the GPU batch (external: its bytes left in its buffer); whole or
// (by_rows) a row of tiles at a time.
Encoded encode_internal(const Case& c, const std::vector<j2kfront::Image>& images, bool emulate, bool by_rows = false,
                        bool external = false) {
  j2k::codec::EncoderSettings e;
  e.plan.wavelet = c.irreversible ? j2k::Wavelet::Irreversible97 : j2k::Wavelet::Reversible53;
  e.plan.levels = c.levels;
  e.plan.tile_w = c.tile_w, e.plan.tile_h = c.tile_h;
  e.plan.backend = j2k::BackendOptions(j2k::Backend::Cpu);
  e.coding.block_coding = j2k::codec::BlockCoding::HighThroughput;
  e.coding.levels = c.levels;
  e.coding.block_w_log2 = log2_of(c.bw), e.coding.block_h_log2 = log2_of(c.bh);
  e.coding.order = static_cast<j2k::codec::Progression>(c.order);
  if (!c.precincts.empty())
    for (int r = 0; r <= c.levels; ++r) e.coding.precincts.push_back(r == 0 ? std::pair{4, 5} : std::pair{6, 5});
  e.coding.relative_step = c.qstep;
  e.layer_rates = c.rates;
  if (c.psnr > 0) e.coding.layer_psnr = {c.psnr};
  e.coding.layers = c.rates.empty() ? 1 : static_cast<int>(c.rates.size());
  const bool targets = !c.rates.empty() || c.psnr > 0;
  if (emulate && !targets) e.make_tier1_batch = [] { return j2k::codec::make_host_ht_image_encoder(); };
  if (emulate && targets) e.make_tier1_batch = [] { return std::make_unique<CountingSets>(); };
  if (external) e.make_tier1_batch = [] { return std::make_unique<ExternalBytes>(); };
  e.by_tile_rows = by_rows;
  Encoded out;
  try {
    const j2kfront::Image no_samples = by_rows ? test_support::shape_of(images[0]) : j2kfront::Image();
    const j2kfront::ImageView shape = (by_rows ? no_samples : images[0]).view();
    j2k::codec::Encoder encoder(e, *shape.get());
    for (const j2kfront::Image& im : images) {
      out.bytes.push_back(test_support::encode_image(encoder, im, by_rows));
      out.tier1_on = encoder.report().tier1_on;
    }
  } catch (const std::exception& x) {
    out.error = x.what();
  }
  return out;
}

TEST(GpuBatchEmulation, EqualsTheCpuCoder) {
  std::vector<Case> cases;
  for (bool i97 : {false, true}) {
    Case c;
    c.irreversible = i97;
    c.name = "509x317 RGB at an odd origin", c.x0 = 3, c.y0 = 1, c.w = 509, c.h = 317, c.ncomp = 3;
    cases.push_back(c);
    Case t = c;
    t.name = "tiles, 32x32 blocks, RPCL, precincts", t.levels = 3, t.tile_w = 128, t.tile_h = 96, t.bw = 32, t.bh = 32;
    t.order = J2K_RPCL, t.precincts = {{64, 32}};
    cases.push_back(t);
    for (auto [bw, bh] : {std::pair{4, 1024}, {1024, 4}, {16, 64}, {4, 4}}) {
      Case b = c;
      b.name = "code-blocks", b.ncomp = 1, b.bw = bw, b.bh = bh, b.pattern = 1;
      cases.push_back(b);
    }
    Case g;
    g.irreversible = i97;
    g.name = "16-bit grey", g.w = 333, g.h = 221, g.x0 = 7, g.y0 = 5, g.type = J2K_SAMPLE_U16, g.precision = 16;
    cases.push_back(g);
    Case s = g;
    s.name = "signed 16 bits, 4 components", s.type = J2K_SAMPLE_I16, s.ncomp = 4, s.pattern = 1;
    cases.push_back(s);
    Case f = c;
    f.name = "one constant", f.pattern = 2, f.w = 100, f.h = 70;
    cases.push_back(f);
    for (auto [w, h] : {std::pair<uint32_t, uint32_t>{1, 1}, {1, 300}, {300, 1}}) {
      Case thin;
      thin.irreversible = i97;
      thin.name = "thin", thin.w = w, thin.h = h, thin.x0 = 1, thin.y0 = 2, thin.levels = 0;
      cases.push_back(thin);
    }
    for (int levels : {0, 1, 6}) {
      Case l = c;
      l.name = "levels", l.levels = levels, l.w = 200, l.h = 150, l.pattern = 1;
      cases.push_back(l);
    }
  }
  for (double qstep : {0.02, 0.0005, 1e-5, 1e-7}) {  // 1e-7: refused alike (a coefficient too large)
    Case q;
    q.name = "-I --qstep", q.irreversible = true, q.qstep = qstep, q.w = 301, q.h = 257, q.ncomp = 3, q.pattern = 1;
    cases.push_back(q);
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(describe(c));
    const std::vector<j2kfront::Image> images = two_images(c);
    const Encoded cpu = encode_internal(c, images, false);
    const Encoded emulated = encode_internal(c, images, true);
    if (!cpu.error.empty()) {  // -I --qstep 1e-7: a coefficient too large for its step
      EXPECT_EQ(emulated.error, cpu.error);
      continue;
    }
    ASSERT_EQ(emulated.error, "");
    EXPECT_EQ(cpu.tier1_on, "cpu");
    EXPECT_EQ(emulated.tier1_on, "host emulation of the GPU batch");
    ASSERT_EQ(emulated.bytes.size(), cpu.bytes.size());
    for (size_t i = 0; i < cpu.bytes.size(); ++i)
      EXPECT_TRUE(emulated.bytes[i] == cpu.bytes[i]) << "image " << i << ": " << first_difference(emulated.bytes[i], cpu.bytes[i]);
  }
}

// With a rate or PSNR target, HT rate control's model and sets through the batch (the CUDA
// batch's steps, emulated): the CPU coder's file, for the 5/3 and the 9/7, one layer and
// several, a last layer lossless (every block at plane 0 with its figures), tiles and small
// code-blocks.
TEST(GpuBatchEmulation, RateAndPsnrTargetsEqualTheCpuCoder) {
  std::vector<Case> cases;
  for (bool i97 : {false, true}) {
    Case c;
    c.irreversible = i97;
    c.name = "RGB, -r 20", c.x0 = 3, c.y0 = 1, c.w = 309, c.h = 217, c.ncomp = 3, c.pattern = 1, c.rates = {20};
    cases.push_back(c);
    Case layers = c;
    layers.name = "three layers", layers.rates = {40, 15, 6};
    cases.push_back(layers);
    Case lossless = c;
    lossless.name = "last layer lossless", lossless.rates = {30, 1};
    cases.push_back(lossless);
    Case tiles = c;
    tiles.name = "tiles, 16x64 blocks, RPCL", tiles.levels = 3, tiles.tile_w = 128, tiles.tile_h = 96, tiles.bw = 16, tiles.bh = 64,
    tiles.order = J2K_RPCL, tiles.rates = {12};
    cases.push_back(tiles);
    Case grey;
    grey.irreversible = i97;
    grey.name = "16-bit grey, -q 45", grey.w = 233, grey.h = 171, grey.type = J2K_SAMPLE_U16, grey.precision = 16, grey.psnr = 45;
    cases.push_back(grey);
  }
  // More code-blocks than one call of the batch takes (12,288 of 8 x 8): the sets in runs.
  Case many;
  many.irreversible = true;
  many.name = "RGB in 8x8 code-blocks, more sets than a call takes", many.w = 512, many.h = 512, many.ncomp = 3, many.pattern = 1;
  many.bw = many.bh = 8, many.levels = 3, many.rates = {16};
  cases.push_back(many);
  for (const Case& c : cases) {
    SCOPED_TRACE(describe(c));
    const std::vector<j2kfront::Image> images = two_images(c);
    const Encoded cpu = encode_internal(c, images, false);
    ASSERT_EQ(cpu.error, "");
    g_ht_set_calls = 0;
    g_ht_most_sets = 0;
    const Encoded emulated = encode_internal(c, images, true);
    ASSERT_EQ(emulated.error, "");
    EXPECT_LE(g_ht_most_sets, j2k::codec::BlockEncodeBatch::kMaxHtSetsPerCall) << "a call of the batch with more sets than it takes";
    if (c.bw == 8) {
      EXPECT_EQ(g_ht_most_sets, j2k::codec::BlockEncodeBatch::kMaxHtSetsPerCall) << "12,288 code-blocks: a full run";
    }
    const bool lossless_last = !c.rates.empty() && c.rates.back() <= 1;
    if (lossless_last) EXPECT_EQ(g_ht_set_calls, 0) << "a lossless last layer codes every block at plane 0, through encode()";
    else EXPECT_GE(g_ht_set_calls, 2) << "the model and the sets must come from the batch";
    EXPECT_EQ(emulated.tier1_on, "host emulation of the GPU batch");
    ASSERT_EQ(emulated.bytes.size(), cpu.bytes.size());
    for (size_t i = 0; i < cpu.bytes.size(); ++i)
      EXPECT_TRUE(emulated.bytes[i] == cpu.bytes[i]) << "image " << i << ": " << first_difference(emulated.bytes[i], cpu.bytes[i]);
  }
}

// By rows of tiles, the batch codes each row's blocks where that row's plan left them: the
// file of the CPU's coder on the whole image, also where the batch keeps the blocks' bytes in
// its own buffer until its next encode (the next row's).
TEST(GpuBatchEmulation, ByRowsOfTiles) {
  for (bool i97 : {false, true}) {
    Case c;
    c.irreversible = i97;
    c.name = "tiles by rows", c.x0 = 3, c.y0 = 1, c.w = 309, c.h = 217, c.ncomp = 3, c.levels = 3, c.tile_w = 128, c.tile_h = 96;
    for (const Case& k : {c, [&] {
                            Case t = c;
                            t.name = "tiles by rows, 32x32 blocks, RPCL", t.bw = t.bh = 32, t.order = J2K_RPCL, t.pattern = 1;
                            return t;
                          }()}) {
      SCOPED_TRACE(describe(k));
      const std::vector<j2kfront::Image> images = {pattern_image(k.x0, k.y0, k.w, k.h, k.ncomp, k.type, k.precision, k.pattern, 1),
                                                   pattern_image(k.x0, k.y0, k.w, k.h, k.ncomp, k.type, k.precision, 1 - k.pattern, 2)};
      const Encoded cpu = encode_internal(k, images, false);
      ASSERT_EQ(cpu.error, "");
      for (bool external : {false, true}) {
        const Encoded rows = encode_internal(k, images, true, true, external);
        ASSERT_EQ(rows.error, "");
        EXPECT_EQ(rows.tier1_on, "host emulation of the GPU batch");
        ASSERT_EQ(rows.bytes.size(), cpu.bytes.size());
        for (size_t i = 0; i < cpu.bytes.size(); ++i)
          EXPECT_TRUE(rows.bytes[i] == cpu.bytes[i]) << (external ? "external bytes, " : "") << "image " << i << ": "
                                                     << first_difference(rows.bytes[i], cpu.bytes[i]);
      }
      // The decorator itself, whole: its bytes read before its next encode.
      const Encoded whole_external = encode_internal(k, images, true, false, true);
      ASSERT_EQ(whole_external.error, "");
      for (size_t i = 0; i < cpu.bytes.size(); ++i) EXPECT_TRUE(whole_external.bytes[i] == cpu.bytes[i]) << "whole, external bytes";
    }
  }
}

// ------------------------------------------------------------------ the C API

class GpuCompress : public ::testing::Test {
 protected:
  void TearDown() override {
    if (!IsSkipped()) {
      EXPECT_GT(g_compared, 0) << "every case was refused by both backends: nothing was compared";
    }
  }
};

TEST_F(GpuCompress, OddSizesAndOrigins) {
  REQUIRE_CUDA_DEVICE();
  for (bool i97 : {false, true}) {
    Case c;
    c.name = "509x317 RGB at an odd origin";
    c.x0 = 3, c.y0 = 1, c.w = 509, c.h = 317, c.ncomp = 3, c.irreversible = i97;
    expect_same_codestreams(c);
    c.name = "odd sizes, 16-bit grey";
    c.x0 = 7, c.y0 = 5, c.w = 333, c.h = 221, c.ncomp = 1, c.type = J2K_SAMPLE_U16, c.precision = 16;
    expect_same_codestreams(c);
  }
}

TEST_F(GpuCompress, OnePixelRowsAndColumns) {
  REQUIRE_CUDA_DEVICE();
  for (bool i97 : {false, true})
    for (auto [w, h] : {std::pair<uint32_t, uint32_t>{1, 1}, {1, 300}, {300, 1}, {2, 77}, {77, 2}}) {
      Case c;
      c.name = "thin";
      c.w = w, c.h = h, c.x0 = 1, c.y0 = 2, c.levels = 0, c.irreversible = i97;
      expect_same_codestreams(c);
      c.levels = 1;  // refused by both where a side is 1
      expect_same_codestreams(c);
    }
}

TEST_F(GpuCompress, SeveralTiles) {
  REQUIRE_CUDA_DEVICE();
  for (bool i97 : {false, true}) {
    Case c;
    c.name = "tiles";
    c.x0 = 3, c.y0 = 1, c.w = 509, c.h = 317, c.ncomp = 3, c.levels = 3, c.tile_w = 128, c.tile_h = 96, c.irreversible = i97;
    expect_same_codestreams(c);
    c.tile_w = 200, c.tile_h = 317, c.bw = 32, c.bh = 32, c.ncomp = 1, c.pattern = 1;
    expect_same_codestreams(c);
  }
}

// By rows of tiles on the GPU (each row's plan keeps its coefficients there, its blocks coded
// there): the CPU backend's file of the whole image.
TEST_F(GpuCompress, ByRowsOfTiles) {
  REQUIRE_CUDA_DEVICE();
  for (bool i97 : {false, true}) {
    const j2kfront::Image image = pattern_image(3, 1, 509, 317, 3, J2K_SAMPLE_U8, 8, 1, 1);
    j2kfront::Settings s;
    s.wavelet = i97 ? J2K_WAVELET_97 : J2K_WAVELET_53;
    s.levels = 3;
    s.tile_w = 128, s.tile_h = 96;
    j2kfront::Coding k;
    k.modes = J2K_MODE_HT;
    s.backend = J2K_BACKEND_CPU;
    const std::vector<uint8_t> want = j2kfront::Encoder(s, k, image.view()).encode(image.view());
    s.backend = J2K_BACKEND_CUDA;
    j2kfront::Encoder rows(s, k, test_support::shape_of(image).view(), j2kfront::Encoder::by_tile_rows);
    std::vector<uint8_t> got;
    rows.encode_by_rows([&](uint32_t y0, uint32_t n) { return test_support::rows_of(image, y0, n); },
                        [&](const uint8_t* data, size_t n) { got.insert(got.end(), data, data + n); });
    EXPECT_STREQ(rows.report().tier1_on, "cuda");
    EXPECT_EQ(rows.report().tile_rows, 4);
    EXPECT_TRUE(got == want) << (i97 ? "9/7: " : "5/3: ") << first_difference(got, want);
    ++g_compared;
  }
}

TEST_F(GpuCompress, SampleTypesAndComponents) {
  REQUIRE_CUDA_DEVICE();
  for (bool i97 : {false, true}) {
    for (int n = 1; n <= 4; ++n) {
      Case c;
      c.name = std::to_string(n) + " components of 8 bits";
      c.w = 127, c.h = 93, c.ncomp = n, c.irreversible = i97;
      expect_same_codestreams(c);
    }
    for (auto [type, bits] : {std::pair{J2K_SAMPLE_U16, 16}, {J2K_SAMPLE_U16, 12}, {J2K_SAMPLE_I16, 16}, {J2K_SAMPLE_I8, 8}}) {
      Case c;
      c.name = "grey, other sample types";
      c.w = 211, c.h = 150, c.type = type, c.precision = bits, c.irreversible = i97;
      expect_same_codestreams(c);
      c.ncomp = 3;
      c.pattern = 1;
      expect_same_codestreams(c);
    }
    Case flat;
    flat.name = "one constant: blocks with nothing significant";
    flat.w = 190, flat.h = 130, flat.ncomp = 3, flat.pattern = 2, flat.irreversible = i97;
    expect_same_codestreams(flat);
  }
}

TEST_F(GpuCompress, Levels) {
  REQUIRE_CUDA_DEVICE();
  for (bool i97 : {false, true})
    for (int levels = 0; levels <= 8; ++levels) {  // 7 and 8: more than 200x150 allows (both refuse)
      Case c;
      c.name = "levels";
      c.x0 = 1, c.y0 = 1, c.w = 200, c.h = 150, c.ncomp = 3, c.pattern = 1, c.levels = levels, c.irreversible = i97;
      expect_same_codestreams(c);
    }
}

TEST_F(GpuCompress, CodeBlockSizes) {
  REQUIRE_CUDA_DEVICE();
  for (bool i97 : {false, true})
    for (auto [bw, bh] : {std::pair{64, 64}, {32, 32}, {16, 64}, {4, 1024}, {1024, 4}, {4, 4}, {8, 512}}) {
      Case c;
      c.name = "code-blocks";
      c.x0 = 3, c.y0 = 1, c.w = 509, c.h = 317, c.bw = bw, c.bh = bh, c.irreversible = i97;
      expect_same_codestreams(c);
    }
}

TEST_F(GpuCompress, ProgressionsAndPrecincts) {
  REQUIRE_CUDA_DEVICE();
  for (bool i97 : {false, true})
    for (j2k_progression order : {J2K_LRCP, J2K_RLCP, J2K_RPCL, J2K_PCRL, J2K_CPRL}) {
      Case c;
      c.name = "progression and precincts";
      c.x0 = 3, c.y0 = 1, c.w = 301, c.h = 257, c.ncomp = 3, c.levels = 4, c.tile_w = 160, c.tile_h = 128, c.bw = 32,
      c.bh = 32, c.order = order, c.irreversible = i97;
      expect_same_codestreams(c);
      c.precincts = {{128, 128}, {64, 64}, {32, 32}};
      expect_same_codestreams(c);
    }
}

TEST_F(GpuCompress, IrreversibleSteps) {
  REQUIRE_CUDA_DEVICE();
  for (double qstep : {0.0, 0.02, 0.004, 0.0005, 1e-5, 1e-7}) {  // 1e-7: refused alike (a coefficient too large)
    Case c;
    c.name = "-I with a step";
    c.x0 = 3, c.y0 = 1, c.w = 509, c.h = 317, c.ncomp = 3, c.irreversible = true, c.qstep = qstep;
    expect_same_codestreams(c);
    c.ncomp = 1, c.type = J2K_SAMPLE_U16, c.precision = 16, c.pattern = 1;
    expect_same_codestreams(c);
  }
}

// ------------------------------------------------------------------ the CLI

class GpuCompressCli : public test_support::TempDirTest {
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
  void expect_same(const std::string& input, const std::string& flags, const char* gpu = "cuda") {
    SCOPED_TRACE(std::string("compress --backend ") + gpu + " " + flags);
    std::vector<uint8_t> out[2];
    int k = 0;
    for (const char* backend : {"cpu", gpu}) {
      const std::string o = path(std::string(backend) + ".j2k");
      const auto r = run_command(quote(kCli) + " compress -i " + quote(input) + " -o " + quote(o) + " --force --ht --backend " +
                                 backend + " " + flags);
      ASSERT_EQ(r.exit_code, 0) << backend << ": " << r.output;
      EXPECT_NE(r.output.find(std::string("Tier-1 on ") + backend), std::string::npos)
          << "the summary must say Tier-1 ran on " << backend << ":\n" << r.output;
      out[k++] = read(o);
    }
    ASSERT_FALSE(out[0].empty());
    EXPECT_TRUE(out[0] == out[1]) << "the codestreams differ: " << first_difference(out[1], out[0]);
  }
  // A directory of w x h RGB images (and two 16-bit grey ones, another shape) compressed by
  // the CPU backend, then on `gpu` with each of `runs`' flags: the same files, for each mode.
  void expect_same_directory(const char* gpu, const std::vector<std::string>& modes, const std::vector<std::string>& runs,
                             uint32_t w, uint32_t h) {
    const std::string in = path("in");
    fs::create_directories(in);
    for (unsigned i = 0; i < 7; ++i) write_pnm(in + "/rgb" + std::to_string(i) + ".ppm", pattern_image(0, 0, w, h, 3, J2K_SAMPLE_U8, 8, i % 2, 20 + i));
    for (unsigned i = 0; i < 2; ++i)
      write_pnm(in + "/zgrey" + std::to_string(i) + ".pgm", pattern_image(0, 0, w / 2, h / 2, 1, J2K_SAMPLE_U16, 16, 1, 40 + i));
    for (const std::string& mode : modes) {
      const std::string cpu = path("cpu");
      auto r = run_command(quote(kCli) + " compress -i " + quote(in) + " -o " + quote(cpu) + " --force --quiet --backend cpu " + mode);
      ASSERT_EQ(r.exit_code, 0) << mode << ": " << r.output;
      for (const std::string& run : runs) {
        SCOPED_TRACE(std::string("--backend ") + gpu + " " + mode + " " + run);
        const std::string out = path("gpu");
        fs::remove_all(out);
        r = run_command(quote(kCli) + " compress -i " + quote(in) + " -o " + quote(out) + " --backend " + gpu + " " + mode + " " + run);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("9 of 9 images compressed"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find(std::string(", ") + gpu), std::string::npos) << "each line names the backend:\n" << r.output;
        for (const auto& e : fs::directory_iterator(cpu))
          EXPECT_TRUE(read(out + "/" + e.path().filename().string()) == read(e.path().string())) << e.path().filename();
      }
    }
  }
};

TEST_F(GpuCompressCli, SameCodestreamAsTheCpuBackend) {
  REQUIRE_CUDA_DEVICE();
  const std::string rgb = path("rgb.ppm"), grey16 = path("grey16.pgm");
  write_pnm(rgb, pattern_image(0, 0, 509, 317, 3, J2K_SAMPLE_U8, 8, 1, 7));
  write_pnm(grey16, pattern_image(0, 0, 333, 221, 1, J2K_SAMPLE_U16, 16, 0, 8));
  for (const std::string& input : {rgb, grey16})
    for (const char* flags : {"", "-d 3,1", "-I", "-I --qstep 0.004 -d 3,1", "-n 1", "-n 7 -b 4,1024", "-b 1024,4 -I",
                              "-b 16,64 -t 128,96 -p RPCL -c [64,64],[32,32]", "-t 200,160 -p CPRL -I", "-b 32,32 -p PCRL -n 4"})
      expect_same(input, flags);
}

// HT rate control with the blocks on the GPU (its model and sets there): the CPU backend's
// file, for rates, layers, a lossless last layer, PSNR targets, tiles and block sizes.
TEST_F(GpuCompressCli, RateAndPsnrTargetsOnTheGpu) {
  REQUIRE_CUDA_DEVICE();
  const std::string rgb = path("rgb.ppm"), grey16 = path("grey16.pgm");
  write_pnm(rgb, pattern_image(0, 0, 509, 317, 3, J2K_SAMPLE_U8, 8, 1, 9));
  write_pnm(grey16, pattern_image(0, 0, 333, 221, 1, J2K_SAMPLE_U16, 16, 0, 8));
  for (const std::string& input : {rgb, grey16})
    for (const char* flags : {"-r 20", "-I -r 20", "-I -q 42", "-I -r 40,15,6", "-r 30,1", "-I -r 12 -b 16,64 -t 128,96 -p RPCL",
                              "-I -r 25 -n 3 -b 32,32"})
      expect_same(input, flags);
}

// A directory on the GPU: its images several at once over every GPU of the host (the default
// for a directory on cuda), on GPU 0 eight at once, two at once: the CPU backend's files, HT
// and EBCOT, lossless and at a rate.
TEST_F(GpuCompressCli, DirectoryInFlightOverEveryGpuGivesTheCpusFiles) {
  REQUIRE_CUDA_DEVICE();
  expect_same_directory("cuda", {"--ht", "--ht -I -r 20", "", "-I -r 20"}, {"", "--devices 0 --frames-in-flight 8", "--frames-in-flight 2"},
                        509, 317);
}

// ------------------------------------------------------------------ OpenCL (issue 46)
// The same comparisons on --backend opencl, on images small enough for PoCL (the CPU's OpenCL,
// which runs them where there is no GPU).

TEST_F(GpuCompress, OpenClOddSizesTilesAndBlocks) {
  REQUIRE_OPENCL_DEVICE();
  for (bool i97 : {false, true}) {
    Case c;
    c.name = "odd size and origin, RGB";
    c.x0 = 3, c.y0 = 1, c.w = 157, c.h = 97, c.ncomp = 3, c.irreversible = i97;
    expect_same_codestreams(c, J2K_BACKEND_OPENCL);
    c.name = "16-bit grey, tiles";
    c.x0 = 7, c.y0 = 5, c.w = 133, c.h = 91, c.ncomp = 1, c.type = J2K_SAMPLE_U16, c.precision = 16, c.levels = 3, c.tile_w = 64,
    c.tile_h = 48, c.pattern = 1;
    expect_same_codestreams(c, J2K_BACKEND_OPENCL);
    for (auto [bw, bh] : {std::pair{4, 4}, {16, 64}, {4, 1024}, {1024, 4}, {32, 32}}) {
      Case b;
      b.name = "code-blocks";
      b.x0 = 1, b.y0 = 2, b.w = 131, b.h = 77, b.bw = bw, b.bh = bh, b.irreversible = i97, b.pattern = 1;
      expect_same_codestreams(b, J2K_BACKEND_OPENCL);
    }
    Case t;
    t.name = "tiles, RPCL, precincts, 12 bits";
    t.x0 = 3, t.y0 = 1, t.w = 141, t.h = 103, t.ncomp = 3, t.type = J2K_SAMPLE_U16, t.precision = 12, t.levels = 3, t.tile_w = 64,
    t.tile_h = 40, t.bw = 16, t.bh = 16, t.order = J2K_RPCL, t.precincts = {{64, 64}, {32, 32}}, t.irreversible = i97;
    expect_same_codestreams(t, J2K_BACKEND_OPENCL);
    Case flat;
    flat.name = "one constant: blocks with nothing significant";
    flat.w = 70, flat.h = 50, flat.ncomp = 3, flat.pattern = 2, flat.irreversible = i97;
    expect_same_codestreams(flat, J2K_BACKEND_OPENCL);
    for (auto [w, h] : {std::pair<uint32_t, uint32_t>{1, 1}, {1, 90}, {90, 1}}) {
      Case thin;
      thin.name = "thin";
      thin.w = w, thin.h = h, thin.x0 = 1, thin.y0 = 2, thin.levels = 0, thin.irreversible = i97;
      expect_same_codestreams(thin, J2K_BACKEND_OPENCL);
    }
  }
}

// By rows of tiles (each row's plan keeps its coefficients in its own cl_mem, its blocks coded
// from there): the CPU backend's file of the whole image.
TEST_F(GpuCompress, OpenClByRowsOfTiles) {
  REQUIRE_OPENCL_DEVICE();
  for (bool i97 : {false, true}) {
    const j2kfront::Image image = pattern_image(3, 1, 151, 109, 3, J2K_SAMPLE_U8, 8, 1, 1);
    j2kfront::Settings s;
    s.wavelet = i97 ? J2K_WAVELET_97 : J2K_WAVELET_53;
    s.levels = 3;
    s.tile_w = 64, s.tile_h = 48;
    j2kfront::Coding k;
    k.modes = J2K_MODE_HT;
    s.backend = J2K_BACKEND_CPU;
    const std::vector<uint8_t> want = j2kfront::Encoder(s, k, image.view()).encode(image.view());
    s.backend = J2K_BACKEND_OPENCL;
    j2kfront::Encoder rows(s, k, test_support::shape_of(image).view(), j2kfront::Encoder::by_tile_rows);
    std::vector<uint8_t> got;
    rows.encode_by_rows([&](uint32_t y0, uint32_t n) { return test_support::rows_of(image, y0, n); },
                        [&](const uint8_t* data, size_t n) { got.insert(got.end(), data, data + n); });
    EXPECT_STREQ(rows.report().tier1_on, "opencl");
    EXPECT_EQ(rows.report().tile_rows, 3);
    EXPECT_TRUE(got == want) << (i97 ? "9/7: " : "5/3: ") << first_difference(got, want);
    ++g_compared;
  }
}

TEST_F(GpuCompress, OpenClIrreversibleSteps) {
  REQUIRE_OPENCL_DEVICE();
  for (double qstep : {0.0, 0.02, 0.0005, 1e-7}) {  // 1e-7: refused alike (a coefficient too large)
    Case c;
    c.name = "-I with a step";
    c.x0 = 3, c.y0 = 1, c.w = 129, c.h = 83, c.ncomp = 3, c.irreversible = true, c.qstep = qstep;
    expect_same_codestreams(c, J2K_BACKEND_OPENCL);
  }
}

// HT rate control with the blocks on the OpenCL device (its model and sets there): the CPU
// backend's file.
TEST_F(GpuCompressCli, OpenClRateAndPsnrTargets) {
  REQUIRE_OPENCL_DEVICE();
  const std::string rgb = path("rgb.ppm"), grey16 = path("grey16.pgm");
  write_pnm(rgb, pattern_image(0, 0, 149, 93, 3, J2K_SAMPLE_U8, 8, 1, 9));
  write_pnm(grey16, pattern_image(0, 0, 101, 67, 1, J2K_SAMPLE_U16, 16, 0, 8));
  for (const std::string& input : {rgb, grey16})
    for (const char* flags : {"-r 20", "-I -r 20", "-I -q 42", "-I -r 40,15,6", "-r 30,1", "-I -r 12 -b 16,64 -t 64,48 -p RPCL"})
      expect_same(input, flags, "opencl");
}

// A directory on OpenCL: three images at once (the default) and five: the CPU backend's files.
TEST_F(GpuCompressCli, OpenClDirectoryInFlightGivesTheCpusFiles) {
  REQUIRE_OPENCL_DEVICE();
  expect_same_directory("opencl", {"--ht", "--ht -I -r 20"}, {"", "--frames-in-flight 5"}, 149, 93);
}

TEST_F(GpuCompressCli, OpenClSameCodestreamAsTheCpuBackend) {
  REQUIRE_OPENCL_DEVICE();
  const std::string rgb = path("rgb.ppm"), grey16 = path("grey16.pgm");
  write_pnm(rgb, pattern_image(0, 0, 149, 93, 3, J2K_SAMPLE_U8, 8, 1, 7));
  write_pnm(grey16, pattern_image(0, 0, 101, 67, 1, J2K_SAMPLE_U16, 16, 0, 8));
  for (const std::string& input : {rgb, grey16})
    for (const char* flags : {"", "-I", "-I --qstep 0.004 -d 3,1", "-b 16,64 -t 64,48 -p RPCL -c [64,64],[32,32]", "-n 1 -b 4,1024"})
      expect_same(input, flags, "opencl");
}

}  // namespace
