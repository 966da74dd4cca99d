// SPDX-License-Identifier: BSD-2-Clause
// The EBCOT (Part 1) block coder of the GPU (ebcot/encode_passes.hpp, one code-block a CUDA
// thread) against the CPU's encode_block(), bit for bit: every block's bytes, bit planes,
// energy and passes (ends, terminations, distortions compared as bits, not within a
// tolerance). The blocks lie side by side in one plane (strided sub-views), random values
// between them, so that a read outside a block changes its output: random blocks of every
// code-block size the standard allows (4 to 1024 each way, at most 4096 samples, 4 x 1024
// and 1024 x 4 included) and partial sizes 1..64, 1 to 30 bit planes, 0 and 6 fraction bits
// (the 9/7's, reversible or not), each band, with and without distortion estimates, under
// every one of the 64 combinations of the six mode switches.
//
//   EbcotEncodePasses.* (label unit): the coder on the host (what the host emulation of the
//       batch runs), in every build; also a slot too small: the coder stops inside it, and
//       the emulation codes that block on the CPU.
//   EbcotGpuEncoder.* (label cuda): the CUDA batch; skipped, naming why, without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "codec/params/block_modes.hpp"
#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/block_encode_batch.hpp"
#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier1/ebcot/encode_passes.hpp"
#include "codec/tier1/gpu/gpu_ebcot_encode_batch.hpp"
#include "codec/tier1/gpu/host_ebcot_image_encoder.hpp"
#include "common/error.hpp"
#include "transform/backend.hpp"
#include "tests/support/cuda_plane.hpp"
#include "tests/support/random_block.hpp"
#if J2KFRONT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

using namespace j2k::codec;

// A block of a test plane: its place and how it is coded.
struct Block {
  int x = 0, y = 0, width = 0, height = 0;
  int fraction_bits = 0;
  j2k_band_type band = J2K_BAND_LL;
  uint8_t modes = 0;
  bool reversible = true, estimate = true;
  std::string what;
};

// Int32 coefficients, `stride` a row, holding blocks on shelves with random values around them.
class TestPlane {
 public:
  TestPlane(int stride, uint32_t seed) : stride_(stride), rng_(seed) {}

  Block& add(Block b, const std::vector<int32_t>& values) {
    constexpr int kGap = 3;
    if (x_ + b.width + kGap > stride_) {
      x_ = kGap;
      y_ += shelf_ + kGap;
      shelf_ = 0;
    }
    grow(y_ + b.height + kGap);
    b.x = x_;
    b.y = y_;
    for (int y = 0; y < b.height; ++y)
      for (int x = 0; x < b.width; ++x)
        values_[static_cast<size_t>(b.y + y) * static_cast<size_t>(stride_) + static_cast<size_t>(b.x + x)] =
            values[static_cast<size_t>(y) * static_cast<size_t>(b.width) + static_cast<size_t>(x)];
    x_ += b.width + kGap;
    shelf_ = std::max(shelf_, b.height);
    blocks_.push_back(b);
    return blocks_.back();
  }

  int stride() const { return stride_; }
  const std::vector<int32_t>& values() const { return values_; }
  const std::vector<Block>& blocks() const { return blocks_; }
  size_t offset(const Block& b) const { return static_cast<size_t>(b.y) * static_cast<size_t>(stride_) + static_cast<size_t>(b.x); }

 private:
  void grow(int rows) {
    const size_t n = static_cast<size_t>(rows) * static_cast<size_t>(stride_);
    while (values_.size() < n) values_.push_back(static_cast<int32_t>(rng_()));
  }

  int stride_;
  std::mt19937 rng_;
  std::vector<int32_t> values_;
  std::vector<Block> blocks_;
  int x_ = 3, y_ = 3, shelf_ = 0;
};

// n coefficients of quantisation indices of at most `depth` bits (a share `zeros` of them 0),
// with `fraction_bits` random bits below each index.
std::vector<int32_t> coefficients(std::mt19937& rng, size_t n, int depth, double zeros, int fraction_bits) {
  std::vector<int32_t> v = test_support::random_block(rng, n, depth, zeros);
  if (fraction_bits == 0) return v;
  for (int32_t& c : v) {
    const uint32_t m = static_cast<uint32_t>(std::llabs(static_cast<long long>(c)));
    const uint32_t below = static_cast<uint32_t>(rng()) & ((1u << fraction_bits) - 1);
    const auto with = static_cast<int32_t>((m << fraction_bits) | below);
    c = c < 0 || (c == 0 && (rng() & 1)) ? -with : with;
  }
  return v;
}

BlockView view_of(const int32_t* plane, int stride, size_t offset, const Block& b) {
  BlockView v;
  v.data = plane + offset;
  v.stride = stride;
  v.width = b.width;
  v.height = b.height;
  v.band = b.band;
  v.fraction_bits = b.fraction_bits;
  v.modes = b.modes;
  v.reversible = b.reversible;
  v.estimate_distortion = b.estimate;
  return v;
}
BlockView view_of(const TestPlane& p, const Block& b) { return view_of(p.values().data(), p.stride(), p.offset(b), b); }

std::string mode_names(uint8_t m) {
  std::string s;
  const char* names[] = {"BYPASS", "RESET", "TERMALL", "VCAUSAL", "PTERM", "SEGMARK"};
  for (int k = 0; k < 6; ++k)
    if (m & (1 << k)) s += std::string(s.empty() ? "" : "|") + names[k];
  return s.empty() ? "none" : s;
}

std::string describe(size_t i, const Block& b) {
  return "block " + std::to_string(i) + " (" + b.what + ": " + std::to_string(b.width) + " x " + std::to_string(b.height) +
         ", band " + std::to_string(static_cast<int>(b.band)) + ", modes " + mode_names(b.modes) + ", " +
         std::to_string(b.fraction_bits) + " fraction bits, " + (b.reversible ? "reversible" : "irreversible") +
         (b.estimate ? ", distortion" : "") + ")";
}

bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// "" where `got` equals the CPU's block `want` in every figure, else what differs.
std::string difference(const CodedBlock& want, const CodedBlock& got) {
  std::string d;
  if (got.bitplanes != want.bitplanes) d += " bitplanes " + std::to_string(got.bitplanes) + " (CPU " + std::to_string(want.bitplanes) + ")";
  if (got.magnitude_bitplanes != want.magnitude_bitplanes)
    d += " magnitude_bitplanes " + std::to_string(got.magnitude_bitplanes) + " (CPU " + std::to_string(want.magnitude_bitplanes) + ")";
  if (!same_double(got.energy, want.energy)) d += " energy " + std::to_string(got.energy) + " (CPU " + std::to_string(want.energy) + ")";
  if (got.passes.size() != want.passes.size())
    return d + " " + std::to_string(got.passes.size()) + " passes (CPU " + std::to_string(want.passes.size()) + ")";
  for (size_t k = 0; k < want.passes.size(); ++k) {
    const CodedPass &g = got.passes[k], &w = want.passes[k];
    if (g.end != w.end || g.terminated != w.terminated || !same_double(g.distortion, w.distortion)) {
      char s[200];
      std::snprintf(s, sizeof s, " pass %zu: end %u terminated %d distortion %.17g (CPU %u %d %.17g)", k, g.end, g.terminated ? 1 : 0,
                    g.distortion, w.end, w.terminated ? 1 : 0, w.distortion);
      d += s;
      break;
    }
  }
  const size_t want_size = want.passes.empty() ? 0 : want.passes.back().end;
  const size_t got_size = got.passes.empty() ? 0 : got.passes.back().end;
  if (want_size != got_size) return d + " " + std::to_string(got_size) + " bytes (CPU " + std::to_string(want_size) + ")";
  if (want_size > 0 && std::memcmp(want.data(), got.data(), want_size) != 0) {
    size_t k = 0;
    while (want.data()[k] == got.data()[k]) ++k;
    d += " first different byte " + std::to_string(k);
  }
  return d;
}

// Reports each block that differs (the first 20 in full), and how many did.
class Mismatches {
 public:
  explicit Mismatches(const char* coder) : coder_(coder) {}
  void check(size_t i, const Block& b, const std::string& d) {
    ++checked_;
    if (d.empty()) return;
    if (++count_ <= 20) ADD_FAILURE() << coder_ << " " << describe(i, b) << ":" << d;
  }
  ~Mismatches() {
    EXPECT_EQ(count_, 0u) << count_ << " of " << checked_ << " blocks coded by the " << coder_ << " differ from the CPU's";
    EXPECT_GT(checked_, 0u);
  }

 private:
  const char* coder_;
  size_t count_ = 0, checked_ = 0;
};

// --- the blocks ------------------------------------------------------------------------------

// Random blocks: for each of the 64 mode combinations, blocks of random shapes (every code-block
// size, and partial ones), depths, bands, fraction bits and estimates; then each standard
// shape under a few mode sets; then edge cases (all zero, one huge coefficient, 30 planes).
TestPlane random_blocks() {
  TestPlane p(2048 + 5, 1);
  std::mt19937 rng(46);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto random_shape = [&](Block& b) {
    if (pick(0, 1) == 0) {  // a code-block size: 2^a x 2^b, 4..1024 each way, at most 4096 samples
      const int a = pick(2, 10), most = std::min(10, 12 - a);
      b.width = 1 << a;
      b.height = 1 << pick(2, most);
    } else {  // a partial block at an edge
      b.width = pick(1, 64);
      b.height = pick(1, 64);
    }
  };
  for (int modes = 0; modes < 64; ++modes)
    for (int k = 0; k < 14; ++k) {
      Block b;
      b.modes = static_cast<uint8_t>(modes);
      random_shape(b);
      b.band = static_cast<j2k_band_type>(pick(0, 3));
      const bool i97 = pick(0, 1) == 1;
      b.fraction_bits = i97 ? 6 : 0;
      b.reversible = !i97 || pick(0, 3) == 0;  // a lossless last pass, with fraction bits too
      b.estimate = pick(0, 4) != 0;
      const int depth = k < 3 ? pick(12, 24 - b.fraction_bits) : pick(1, 12);
      b.what = "random, depth " + std::to_string(depth);
      p.add(b, coefficients(rng, static_cast<size_t>(b.width) * static_cast<size_t>(b.height), depth, pick(0, 9) / 10.0, b.fraction_bits));
    }
  const uint8_t mode_sets[] = {0, kModeBypass, kModeTermAll | kModePredictable, kModeBypass | kModeReset | kModeCausal | kModeSegmark,
                               0x3F};
  for (int a = 2; a <= 10; ++a)
    for (int c = 2; a + c <= 12 && c <= 10; ++c)
      for (uint8_t modes : mode_sets) {
        Block b;
        b.width = 1 << a, b.height = 1 << c, b.modes = modes, b.band = static_cast<j2k_band_type>((a + c) % 4);
        b.what = "every code-block size, depth 9";
        p.add(b, coefficients(rng, static_cast<size_t>(b.width) * static_cast<size_t>(b.height), 9, 0.3, 0));
      }
  for (uint8_t modes : mode_sets) {
    Block zero;
    zero.width = 64, zero.height = 64, zero.modes = modes, zero.what = "all zero";
    p.add(zero, std::vector<int32_t>(4096, 0));
    Block one = zero;
    one.what = "one coefficient of 30 bits";
    std::vector<int32_t> v(4096, 0);
    v[static_cast<size_t>(pick(0, 4095))] = -((1 << 30) - 1 - pick(0, 1000));
    p.add(one, v);
    Block deep = zero;
    deep.width = 16, deep.height = 16, deep.what = "30 bit planes, 1 in 2 zero";
    p.add(deep, coefficients(rng, 256, 30, 0.5, 0));
    Block fine = deep;
    fine.fraction_bits = 6, fine.reversible = false, fine.what = "24 planes of index, 6 fraction bits";
    p.add(fine, coefficients(rng, 256, 24, 0.2, 6));
    for (auto [w, h] : {std::pair{1, 1}, {1, 1024}, {1024, 1}, {3, 5}, {5, 819}}) {
      Block thin = zero;
      thin.width = w, thin.height = h, thin.what = "thin";
      p.add(thin, coefficients(rng, static_cast<size_t>(w) * static_cast<size_t>(h), 14, 0.1, 0));
    }
  }
  return p;
}

// encode_passes.hpp's coder on the host in a slot of `capacity` bytes (0: encode_slot_bytes()),
// with guard bytes after it that it must not touch; as the batch packages it.
CodedBlock host_code(const BlockView& v, size_t capacity, t1::EncodeResult& result, std::string& overrun) {
  if (capacity == 0) capacity = t1::encode_slot_bytes(v.width, v.height);
  std::vector<uint8_t> slot(capacity + 64, 0xA5);
  std::vector<uint32_t> words(t1::encode_words(v.width, v.height), 0xA5A5A5A5u);
  std::vector<t1::EncodedPass> passes(t1::kMaxEncodedPasses);
  result = encode_passes_on_host(v, slot.data(), capacity, words.data(), passes.data());
  for (size_t k = capacity; k < slot.size(); ++k)
    if (slot[k] != 0xA5) {
      overrun = "a byte written at " + std::to_string(k) + ", past the slot's " + std::to_string(capacity);
      break;
    }
  CodedBlock c = coded_block_of(result, passes.data(), slot.data() + 1);
  c.bytes.assign(slot.data() + 1, slot.data() + 1 + result.bytes);
  c.external = nullptr;
  return c;
}

// --- the coder on the host -------------------------------------------------------------------

TEST(EbcotEncodePasses, EqualsEncodeBlockOnEveryBlock) {
  const TestPlane p = random_blocks();
  Mismatches m("host run of the kernel's coder");
  for (size_t i = 0; i < p.blocks().size(); ++i) {
    const Block& b = p.blocks()[i];
    const BlockView v = view_of(p, b);
    t1::EncodeResult r;
    std::string overrun;
    const CodedBlock got = host_code(v, 0, r, overrun);
    ASSERT_EQ(r.status, t1::kEncodeCoded) << describe(i, b);
    ASSERT_EQ(overrun, "") << describe(i, b);
    m.check(i, b, difference(encode_block(v), got));
  }
}

// A slot too small: the coder stops inside it and says so, for every block that needs more.
TEST(EbcotEncodePasses, StopsInsideASlotTooSmall) {
  const TestPlane p = random_blocks();
  size_t stopped = 0;
  for (size_t i = 0; i < p.blocks().size(); ++i) {
    const Block& b = p.blocks()[i];
    const BlockView v = view_of(p, b);
    const CodedBlock want = encode_block(v);
    const size_t need = want.passes.empty() ? 0 : want.passes.back().end;
    const size_t capacity = std::max<size_t>(need / 2, t1::kEncodeColumnRoom + 2);
    t1::EncodeResult r;
    std::string overrun;
    const CodedBlock got = host_code(v, capacity, r, overrun);
    ASSERT_EQ(overrun, "") << describe(i, b);
    if (r.status == t1::kEncodeOutOfRoom) {
      ++stopped;
      continue;
    }
    ASSERT_EQ(r.status, t1::kEncodeCoded) << describe(i, b);
    EXPECT_EQ(difference(want, got), "") << describe(i, b) << " coded in a slot of " << capacity;
  }
  EXPECT_GT(stopped, p.blocks().size() / 2) << "half a block's bytes must not fit most blocks";
}

// The slots' size: noise of 30 bit planes fits (every real block does), of 31 not, and the
// emulated batch then codes such a block with the CPU's coder.
TEST(EbcotEncodePasses, NoiseOf31PlanesOutgrowsItsSlot) {
  std::mt19937 rng(5);
  for (uint32_t mask : {0x3FFFFFFFu, 0x7FFFFFFFu}) {
    std::vector<int32_t> v(4096);
    for (int32_t& c : v) c = static_cast<int32_t>(rng() & mask) * ((rng() & 1) ? -1 : 1);
    Block b;
    b.width = 64, b.height = 64, b.what = mask == 0x7FFFFFFFu ? "noise of 31 planes" : "noise of 30 planes";
    const BlockView view = view_of(v.data(), 64, 0, b);
    t1::EncodeResult r;
    std::string overrun;
    const CodedBlock got = host_code(view, 0, r, overrun);
    EXPECT_EQ(overrun, "");
    const CodedBlock want = encode_block(view);
    if (mask == 0x3FFFFFFFu) {
      EXPECT_EQ(r.status, t1::kEncodeCoded) << b.what << ": " << want.passes.back().end << " bytes";
      EXPECT_EQ(difference(want, got), "") << b.what;
    } else {
      EXPECT_EQ(r.status, t1::kEncodeOutOfRoom) << b.what << ": " << want.passes.back().end << " bytes";
    }
    BatchBlock bb;
    bb.coefficients = v.data();
    bb.stride = 64;
    bb.width = 64, bb.height = 64;
    bb.estimate_distortion = true;
    const std::vector<CodedBlock> batch = make_host_ebcot_image_encoder()->encode({bb}, true);
    EXPECT_EQ(difference(want, batch.at(0)), "") << b.what << " through the emulated batch";
  }
}

// The host emulation of the batch with slots too small for many blocks: those coded by the
// CPU's coder, the others by the kernel's, the same blocks either way.
TEST(EbcotEncodePasses, TheEmulatedBatchCodesBlocksOutOfRoomOnTheCpu) {
  const TestPlane p = random_blocks();
  for (size_t divisor : {size_t{1}, size_t{6}}) {
    std::unique_ptr<BlockEncodeBatch> batch = make_host_ebcot_image_encoder(divisor);
    EXPECT_TRUE(batch->estimates_distortion());
    std::vector<BatchBlock> blocks;
    std::vector<Block> kept;
    for (const Block& b : p.blocks()) {
      if (!b.reversible || b.fraction_bits != 0) continue;  // int32 in place: the 5/3's (the 9/7's floats: below)
      BatchBlock bb;
      bb.coefficients = p.values().data() + p.offset(b);
      bb.stride = p.stride();
      bb.width = b.width, bb.height = b.height, bb.band = b.band;
      bb.modes = b.modes, bb.estimate_distortion = b.estimate;
      blocks.push_back(bb);
      kept.push_back(b);
    }
    const std::vector<CodedBlock> got = batch->encode(blocks, true);
    ASSERT_EQ(got.size(), blocks.size());
    Mismatches m(divisor == 1 ? "host emulation" : "host emulation with small slots");
    for (size_t i = 0; i < kept.size(); ++i) m.check(i, kept[i], difference(encode_block(view_of(p, kept[i])), got[i]));
  }
}

// The emulation quantises the 9/7's floats as quantise_block does, then codes them.
TEST(EbcotEncodePasses, TheEmulatedBatchQuantisesAsTheCpu) {
  std::mt19937 rng(7);
  std::normal_distribution<float> g(0, 40);
  std::vector<float> plane(300 * 200);
  for (float& f : plane) f = g(rng);
  std::unique_ptr<BlockEncodeBatch> batch = make_host_ebcot_image_encoder();
  std::vector<BatchBlock> blocks;
  for (int y = 0; y + 64 <= 200; y += 64)
    for (int x = 0; x + 64 <= 300; x += 70) {
      BatchBlock b;
      b.coefficients = plane.data() + y * 300 + x;
      b.stride = 300;
      b.width = 64, b.height = 64 - x / 70;
      b.band = static_cast<j2k_band_type>(x / 70 % 4);
      b.delta = 0.37 + x / 1000.0;
      b.fraction_bits = 6;
      b.modes = static_cast<uint8_t>(y / 64 * 9);
      b.estimate_distortion = true;
      blocks.push_back(b);
    }
  const std::vector<CodedBlock> got = batch->encode(blocks, false);
  for (size_t i = 0; i < blocks.size(); ++i) {
    const BatchBlock& b = blocks[i];
    std::vector<int32_t> q(static_cast<size_t>(b.width) * static_cast<size_t>(b.height));
    const double scale = std::ldexp(1.0, b.fraction_bits) / b.delta;
    for (int y = 0; y < b.height; ++y)
      for (int x = 0; x < b.width; ++x) {
        const double v = static_cast<const float*>(b.coefficients)[y * b.stride + x];
        const auto m = static_cast<int32_t>(std::floor(std::fabs(v) * scale));
        q[static_cast<size_t>(y * b.width + x)] = v < 0 ? -m : m;
      }
    BlockView v;
    v.data = q.data();
    v.stride = b.width;
    v.width = b.width, v.height = b.height, v.band = b.band, v.fraction_bits = b.fraction_bits, v.modes = b.modes;
    v.reversible = false;
    v.estimate_distortion = true;
    EXPECT_EQ(difference(encode_block(v), got[i]), "") << "9/7 block " << i;
  }
}

TEST(EbcotEncodePasses, RefusesBlocksOutsideItsLimits) {
  std::vector<int32_t> v(4096 * 2, 1);
  BlockView b;
  b.data = v.data();
  b.stride = 64;
  b.width = 64, b.height = 64;
  EXPECT_NO_THROW(check_gpu_ebcot_block(b));
  for (auto [w, h] : {std::pair{0, 4}, {4, 0}, {2048, 2}, {128, 64}}) {
    BlockView bad = b;
    bad.width = w, bad.height = h, bad.stride = std::max(w, 1);
    EXPECT_THROW(check_gpu_ebcot_block(bad), j2k::Error) << w << " x " << h;
  }
  BlockView narrow = b;
  narrow.stride = 63;
  EXPECT_THROW(check_gpu_ebcot_block(narrow), j2k::Error);
  BlockView none = b;
  none.data = nullptr;
  EXPECT_THROW(check_gpu_ebcot_block(none), j2k::Error);
  BlockView fraction = b;
  fraction.fraction_bits = 31;
  EXPECT_THROW(check_gpu_ebcot_block(fraction), j2k::Error);
  BlockView ht = b;
  ht.modes = kModeHt;
  EXPECT_THROW(check_gpu_ebcot_block(ht), j2k::Error);
}

// --- the CUDA batch --------------------------------------------------------------------------



// The blocks of the plane coded by the CUDA batch in one launch; coded_in_place() checked
// against coded() on the way.
std::vector<CodedBlock> gpu_code(const TestPlane& p, const std::vector<Block>& blocks, size_t& on_host) {
  std::vector<CodedBlock> out;
#if J2KFRONT_HAVE_CUDA
  test_support::DevicePlane d(p.values());
  std::unique_ptr<GpuEbcotEncodeBatch> batch = make_gpu_ebcot_encode_batch(j2k::BackendOptions(j2k::Backend::Cuda));
  for (int round = 0; round < 2; ++round) {  // twice: the batch's buffers reused
    out.clear();
    batch->clear();
    for (size_t i = 0; i < blocks.size(); ++i) EXPECT_EQ(batch->add(view_of(d.data(), p.stride(), p.offset(blocks[i]), blocks[i])), i);
    EXPECT_EQ(batch->size(), blocks.size());
    batch->encode(d.stream());
    batch->wait();
    on_host = batch->coded_on_host();
    for (size_t i = 0; i < blocks.size(); ++i) {
      out.push_back(batch->coded(i));
      const CodedBlock in_place = batch->coded_in_place(i);
      EXPECT_EQ(difference(out.back(), in_place), "") << "coded_in_place() and coded() of " << describe(i, blocks[i]);
    }
  }
#else
  (void)p, (void)blocks, (void)on_host;
#endif
  return out;
}

TEST(EbcotGpuEncoder, EqualsEncodeBlockOnEveryBlock) {
  std::string why;
  if (!test_support::cuda_batches_usable(why)) GTEST_SKIP() << "no CUDA batch to test: " << why;
  const TestPlane p = random_blocks();
  size_t on_host = 0;
  const std::vector<CodedBlock> gpu = gpu_code(p, p.blocks(), on_host);
  ASSERT_EQ(gpu.size(), p.blocks().size());
  EXPECT_EQ(on_host, 0u) << "no test block outgrows its slot";
  Mismatches m("CUDA batch");
  for (size_t i = 0; i < gpu.size(); ++i) m.check(i, p.blocks()[i], difference(encode_block(view_of(p, p.blocks()[i])), gpu[i]));
}

// Noise of 31 bit planes outgrows the slots (4 bytes a sample): those blocks are coded on the
// CPU in wait(), the same blocks.
TEST(EbcotGpuEncoder, BlocksOutOfRoomAreCodedOnTheCpu) {
  std::string why;
  if (!test_support::cuda_batches_usable(why)) GTEST_SKIP() << "no CUDA batch to test: " << why;
  TestPlane p(1024 + 5, 3);
  std::mt19937 rng(5);
  for (int k = 0; k < 6; ++k) {
    Block b;
    b.width = 64, b.height = 64, b.modes = static_cast<uint8_t>(k == 0 ? 0 : kModeTermAll), b.what = "noise of 31 planes";
    std::vector<int32_t> v(4096);
    for (int32_t& c : v) c = static_cast<int32_t>(rng() & 0x7FFFFFFF) * ((rng() & 1) ? -1 : 1);
    p.add(b, v);
    Block small = b;
    small.width = 8, small.height = 8, small.what = "small, depth 8";
    p.add(small, coefficients(rng, 64, 8, 0.2, 0));
  }
  size_t on_host = 0;
  const std::vector<CodedBlock> gpu = gpu_code(p, p.blocks(), on_host);
  ASSERT_EQ(gpu.size(), p.blocks().size());
  EXPECT_GT(on_host, 0u) << "noise of 31 planes must outgrow a slot of 4 bytes a sample";
  Mismatches m("CUDA batch");
  for (size_t i = 0; i < gpu.size(); ++i) m.check(i, p.blocks()[i], difference(encode_block(view_of(p, p.blocks()[i])), gpu[i]));
}

TEST(EbcotGpuEncoder, EmptyBatchAndRefusals) {
  std::string why;
  if (!test_support::cuda_batches_usable(why)) GTEST_SKIP() << "no CUDA batch to test: " << why;
#if J2KFRONT_HAVE_CUDA
  std::unique_ptr<GpuEbcotEncodeBatch> batch = make_gpu_ebcot_encode_batch(j2k::BackendOptions(j2k::Backend::Cuda));
  batch->clear();
  batch->encode(nullptr);
  batch->wait();
  EXPECT_EQ(batch->size(), 0u);
  EXPECT_THROW(batch->coded(0), j2k::Error);
  BlockView bad;
  bad.width = 0;
  EXPECT_THROW(batch->add(bad), j2k::Error);
#endif
}

}  // namespace
