// SPDX-License-Identifier: BSD-2-Clause
// The HT cleanup pass on the GPU (GpuHtEncodeBatch, CUDA: one code-block a warp, the
// coefficients read in place) against the CPU encoder, ht::encode_block(), byte for byte: the
// cleanup segment, `bitplanes` and `magnitude_bitplanes` of every block. The blocks lie side
// by side in one plane (strided sub-views), random values between them, so that a read outside
// a block changes its bytes: random blocks of every code-block size the standard allows (4 to
// 1024 each way, at most 4096 samples, 4 x 1024 and 1024 x 4 included) and of every partial
// size 1..64 x 1..64, sizes no code-block grid makes (5 x 819), 1 to 31 bit planes, all-zero
// blocks, blocks of one huge coefficient, 0 and 13 fraction bits, cleanup planes 0 to 5. Then
// round trips of GPU bytes through the CPU HT decoder, a block the coder must refuse, and a
// whole image: the code-blocks of a 5/3 DWT (the CPU's) of a test image. HtGpuEncoder.Sets*:
// the same blocks as HT rate control codes them (cuda::HtEncodeBatch::add_set: SigProp and
// MagRef below the cleanup pass, each pass's distortion, the block's energy), against
// ht::encode_block() with estimate_distortion on, bytes, pass ends and figures bit for bit.
//
// The HtOpenClEncoder cases run the same comparisons on the OpenCL batch (one code-block a
// work-item, gpu/opencl/ht_block_encoder.cl), and its 9/7 quantisation against the host's;
// they skip, naming why, without an OpenCL device (PoCL, the CPU's OpenCL, is one).
//
// The HtCleanupInPlace cases run the in-place coder (encode_cleanup_in_place, which the host
// emulation of the GPU batch runs) on the host, so a build without CUDA checks the in-place
// reading too; the HtGpuEncoder cases skip, naming why, without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/block_encode_batch.hpp"
#include "codec/tier1/gpu/gpu_ht_encode_batch.hpp"
#include "codec/tier1/ht/block_decoder.hpp"
#include "codec/tier1/ht/block_encoder.hpp"
#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "codec/tier1/ht/plane_estimates.hpp"
#include "common/error.hpp"
#include "tiling/canvas.hpp"
#include "transform/backend.hpp"
#include "transform/cpu/dwt_cpu.hpp"
#include "codec/tier1/gpu/batch_quantise.hpp"
#include "tests/support/gpu_memory.hpp"
#include "tests/support/cuda_plane.hpp"
#include "tests/support/random_block.hpp"
#if J2KFRONT_HAVE_OPENCL
#include "codec/tier1/gpu/opencl/ht_block_encoder.hpp"
#endif
#if J2KFRONT_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "codec/tier1/gpu/cuda/ht_block_encoder.hpp"
#endif

namespace {

using namespace j2k::codec;

// A block of a test plane: its place, how it is coded and how it was made (for messages).
struct Block {
  int x = 0, y = 0, width = 0, height = 0;
  int fraction_bits = 0, plane = 0;
  j2k_band_type band = J2K_BAND_LL;
  std::string what;
};

// Int32 coefficients, `stride` a row, holding blocks on shelves with random values (any
// int32) around them.
class TestPlane {
 public:
  TestPlane(int stride, uint32_t seed) : stride_(stride), rng_(seed) {}

  // Places a width x height block of `values` (row by row) and returns it.
  Block& add(int width, int height, const std::vector<int32_t>& values, int fraction_bits, int plane, const std::string& what) {
    constexpr int kGap = 3;
    if (x_ + width + kGap > stride_) {
      x_ = kGap;
      y_ += shelf_ + kGap;
      shelf_ = 0;
    }
    grow(y_ + height + kGap);
    Block b;
    b.x = x_;
    b.y = y_;
    b.width = width;
    b.height = height;
    b.fraction_bits = fraction_bits;
    b.plane = plane;
    b.band = static_cast<j2k_band_type>(blocks_.size() % 4);
    b.what = what;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x)
        values_[static_cast<size_t>(b.y + y) * static_cast<size_t>(stride_) + static_cast<size_t>(b.x + x)] =
            values[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)];
    x_ += width + kGap;
    shelf_ = std::max(shelf_, height);
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
// with `fraction_bits` random bits below each index (an index 0 may have some).
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

BlockView view_of(const TestPlane& p, const Block& b) {
  BlockView v;
  v.data = p.values().data() + p.offset(b);
  v.stride = p.stride();
  v.width = b.width;
  v.height = b.height;
  v.band = b.band;
  v.fraction_bits = b.fraction_bits;
  v.reversible = b.fraction_bits == 0;
  v.estimate_distortion = false;
  v.cleanup_plane = b.plane;
  return v;
}

// What the CPU's encoder makes of a block: its cleanup pass alone.
struct Cleanup {
  int bitplanes = 0, magnitude_bitplanes = 0;
  std::vector<uint8_t> bytes;
};
Cleanup cpu_cleanup(const TestPlane& p, const Block& b) {
  const CodedBlock c = ht::encode_block(view_of(p, b));
  Cleanup out;
  out.bitplanes = c.bitplanes;
  out.magnitude_bitplanes = c.magnitude_bitplanes;
  if (!c.passes.empty()) out.bytes.assign(c.bytes.begin(), c.bytes.begin() + c.passes[0].end);
  return out;
}

std::string describe(size_t i, const Block& b) {
  return "block " + std::to_string(i) + " (" + b.what + ": " + std::to_string(b.width) + " x " + std::to_string(b.height) +
         " at (" + std::to_string(b.x) + ", " + std::to_string(b.y) + "), plane " + std::to_string(b.plane) + ", " +
         std::to_string(b.fraction_bits) + " fraction bits)";
}

std::string hex(uint8_t v) {
  char s[8];
  std::snprintf(s, sizeof s, "0x%02X", v);
  return s;
}

// "" where the other coder's block equals the CPU's, else what differs.
std::string difference(const Cleanup& cpu, int bitplanes, int magnitude_bitplanes, const uint8_t* bytes, size_t size) {
  std::string d;
  if (bitplanes != cpu.bitplanes)
    d += " bitplanes " + std::to_string(bitplanes) + " (CPU " + std::to_string(cpu.bitplanes) + ")";
  if (magnitude_bitplanes != cpu.magnitude_bitplanes)
    d += " magnitude_bitplanes " + std::to_string(magnitude_bitplanes) + " (CPU " + std::to_string(cpu.magnitude_bitplanes) + ")";
  if (size != cpu.bytes.size()) d += " " + std::to_string(size) + " bytes (CPU " + std::to_string(cpu.bytes.size()) + ")";
  for (size_t k = 0; k < std::min(size, cpu.bytes.size()); ++k)
    if (bytes[k] != cpu.bytes[k]) {
      d += " first different byte " + std::to_string(k) + ": " + hex(bytes[k]) + " (CPU " + hex(cpu.bytes[k]) + ")";
      break;
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

// The blocks of the random cases (see the top of the file), each described in Block::what.
TestPlane random_blocks() {
  TestPlane p(2048 + 5, 1);
  std::mt19937 rng(46);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const double kZeros[] = {0.0, 0.3, 0.8, 0.97};
  // Every nominal code-block size, four blocks each: 0 and 13 fraction bits, random depths,
  // planes, shares of zeros.
  for (int w = 4; w <= 1024; w *= 2)
    for (int h = 4; h <= 1024 && w * h <= 4096; h *= 2)
      for (int k = 0; k < 4; ++k) {
        const int fraction = k % 2 == 0 ? 0 : 13;
        const int depth = pick(1, fraction == 0 ? 31 : 18);
        const double zeros = kZeros[pick(0, 3)];
        p.add(w, h, coefficients(rng, static_cast<size_t>(w * h), depth, zeros, fraction), fraction, pick(0, 5),
              "nominal, depth " + std::to_string(depth) + ", zeros " + std::to_string(zeros));
      }
  // Every partial size 1..64 x 1..64 (blocks at a band's edges).
  for (int w = 1; w <= 64; ++w)
    for (int h = 1; h <= 64; ++h) {
      const int fraction = (w + h) % 3 == 0 ? 13 : 0;
      const int depth = 1 + (w * 64 + h) % (fraction == 0 ? 30 : 18);
      p.add(w, h, coefficients(rng, static_cast<size_t>(w * h), depth, kZeros[(w + h) % 4], fraction), fraction, (w * 7 + h) % 6,
            "partial, depth " + std::to_string(depth));
    }
  // Sizes within BlockView's limits that no code-block grid makes.
  const int kOdd[][2] = {{1, 1024}, {1024, 1}, {3, 1024}, {1024, 3}, {5, 819}, {819, 5}, {63, 65}, {65, 63}, {33, 124}, {7, 585}};
  for (const auto& s : kOdd)
    for (int plane = 0; plane < 6; plane += 5)
      p.add(s[0], s[1], coefficients(rng, static_cast<size_t>(s[0] * s[1]), 12, 0.3, 0), 0, plane, "odd size");
  // 1 to 31 bit planes at every cleanup plane 0..5, 64 x 64.
  for (int depth = 1; depth <= 31; ++depth)
    for (int plane = 0; plane <= 5; ++plane)
      p.add(64, 64, coefficients(rng, 4096, depth, 0.2, 0), 0, plane, "depth " + std::to_string(depth));
  // Every coefficient of the largest magnitude, signs alternating: MagSgn at its longest.
  for (int plane = 0; plane <= 5; ++plane) {
    std::vector<int32_t> v(4096);
    for (size_t i = 0; i < v.size(); ++i) v[i] = (i & 1) ? -2147483647 : 2147483647;
    p.add(64, 64, v, 0, plane, "every magnitude 2^31 - 1");
  }
  // All zeros; and indices all 0 under fraction bits.
  for (const auto& s : {std::pair{64, 64}, std::pair{4, 1024}, std::pair{1024, 4}, std::pair{1, 1}, std::pair{17, 3}})
    for (int plane : {0, 3}) {
      p.add(s.first, s.second, std::vector<int32_t>(static_cast<size_t>(s.first * s.second), 0), 0, plane, "all zero");
      std::vector<int32_t> v(static_cast<size_t>(s.first * s.second));
      for (int32_t& c : v) c = static_cast<int32_t>(rng() & 0x1FFF) * ((rng() & 1) ? -1 : 1);
      p.add(s.first, s.second, v, 13, plane, "indices 0, fraction bits random");
    }
  // One huge coefficient (at a random place), the rest 0: 2^31 - 1 of either sign at fraction 0;
  // -2^31 (magnitude 2^31) above plane 0; the largest index under 13 fraction bits; and 1.
  for (int plane = 0; plane <= 5; ++plane) {
    const int32_t kHuge[] = {2147483647, -2147483647, plane > 0 ? INT32_MIN : 1, 1, -1};
    for (int32_t huge : kHuge) {
      std::vector<int32_t> v(4096, 0);
      v[static_cast<size_t>(pick(0, 4095))] = huge;
      p.add(64, 64, v, 0, plane, "one coefficient " + std::to_string(huge));
    }
    std::vector<int32_t> v(1024, 0);
    v[static_cast<size_t>(pick(0, 1023))] = -static_cast<int32_t>(((1u << 18) - 1) << 13 | 0x1ABC);
    p.add(32, 32, v, 13, plane, "one coefficient, the largest index of 13 fraction bits");
  }
  return p;
}



// The blocks of `values` (int32, rows `stride` apart) coded by the CUDA batch in one launch,
// as CodedBlocks; bytes() and coded_in_place() checked against coded() on the way.
std::vector<CodedBlock> gpu_code(const std::vector<int32_t>& values, int stride, const std::vector<Block>& blocks) {
  std::vector<CodedBlock> out;
#if J2KFRONT_HAVE_CUDA
  test_support::DevicePlane d(values);
  std::unique_ptr<GpuHtEncodeBatch> batch = make_gpu_ht_encode_batch(j2k::BackendOptions(j2k::Backend::Cuda));
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    const size_t at = static_cast<size_t>(b.y) * static_cast<size_t>(stride) + static_cast<size_t>(b.x);
    EXPECT_EQ(batch->add(d.data() + at, stride, b.width, b.height, b.band, b.fraction_bits, b.plane), i);
  }
  EXPECT_EQ(batch->size(), blocks.size());
  batch->encode(d.stream());
  batch->wait();
  for (size_t i = 0; i < blocks.size(); ++i) {
    out.push_back(batch->coded(i));
    size_t size = 0;
    const uint8_t* p = batch->bytes(i, size);
    const CodedBlock& c = out.back();
    EXPECT_TRUE(size == c.bytes.size() && std::equal(c.bytes.begin(), c.bytes.end(), p)) << "bytes() and coded() of " << describe(i, blocks[i]);
    const CodedBlock in_place = batch->coded_in_place(i);
    EXPECT_TRUE(in_place.bytes.empty() && in_place.passes.size() == c.passes.size() &&
                (c.passes.empty() ? true : in_place.external == p && in_place.data() == p))
        << "coded_in_place() of " << describe(i, blocks[i]);
    EXPECT_EQ(c.passes.size(), c.bitplanes > 0 ? 1u : 0u) << describe(i, blocks[i]);
    if (!c.passes.empty()) {
      EXPECT_TRUE(c.passes[0].end == c.bytes.size() && c.passes[0].terminated) << describe(i, blocks[i]);
    }
  }
#else
  (void)values, (void)stride, (void)blocks;
#endif
  return out;
}

// --- the kernel's function on the host -------------------------------------------------------

// encode_cleanup_in_place(), what each GPU thread runs, on the host against encode_block().
TEST(HtCleanupInPlace, EqualsTheCpuEncoderOnEveryBlock) {
  const TestPlane p = random_blocks();
  const ht::CleanupTables tables = ht::host_cleanup_tables();
  Mismatches m("host run of the kernel's function");
  for (size_t i = 0; i < p.blocks().size(); ++i) {
    const Block& b = p.blocks()[i];
    const size_t capacity = ht::cleanup_output_capacity(b.width, b.height);
    std::vector<uint8_t> out(capacity + 64, 0xA5);
    std::vector<uint32_t> scratch(ht::cleanup_scratch_bytes(b.width, b.height) / 4 + 1, 0xA5A5A5A5u);
    const ht::CleanupResult r = ht::encode_cleanup_in_place(p.values().data() + p.offset(b), p.stride(), b.width, b.height, b.fraction_bits,
                                                            b.plane, tables, out.data(), reinterpret_cast<uint8_t*>(scratch.data()));
    ASSERT_EQ(r.status, ht::kCleanupCoded) << describe(i, b);
    m.check(i, b, difference(cpu_cleanup(p, b), r.bitplanes, r.magnitude_bitplanes, out.data(), r.bytes));
    for (size_t k = capacity; k < out.size(); ++k) ASSERT_EQ(out[k], 0xA5) << describe(i, b) << ": a byte written past its capacity";
  }
}

// The plan of a block with a magnitude of 2^31 at plane 0: refused, as encode_block refuses it.
TEST(HtCleanupInPlace, RefusesAMagnitudeOf2To31AtPlane0) {
  std::vector<int32_t> v(16, 3);
  v[5] = INT32_MIN;
  std::vector<uint8_t> out(ht::cleanup_output_capacity(4, 4));
  std::vector<uint32_t> scratch(ht::cleanup_scratch_bytes(4, 4) / 4 + 1);
  const ht::CleanupResult r = ht::encode_cleanup_in_place(v.data(), 4, 4, 4, 0, 0, ht::host_cleanup_tables(), out.data(),
                                                          reinterpret_cast<uint8_t*>(scratch.data()));
  EXPECT_EQ(r.status, ht::kCleanupTooLarge);
  BlockView view;
  view.data = v.data();
  view.stride = 4;
  view.width = view.height = 4;
  EXPECT_THROW(ht::encode_block(view), j2k::Error);
}

// HT rate control's plane model one plane at a time (ht::estimate_plane, what each lane of
// the GPU's model sums) against the whole model (ht::estimate_planes, the CPU's): every
// plane's figures bit for bit, on every random block, 0 and 13 fraction bits, 5/3 and 9/7.
TEST(HtPlaneModel, OnePlaneAtATimeIsTheWholeModel) {
  const TestPlane p = random_blocks();
  size_t planes_checked = 0, differ = 0;
  for (size_t i = 0; i < p.blocks().size(); ++i) {
    const Block& b = p.blocks()[i];
    const int32_t* data = p.values().data() + p.offset(b);
    for (bool reversible : {false, true}) {
      ht::PlaneEstimate whole[ht::kMaxEstimatedPlanes];
      const int planes = ht::estimate_planes(data, p.stride(), b.width, b.height, b.fraction_bits, reversible, whole);
      for (int k = 0; k < planes; ++k) {
        const ht::PlaneEstimate one = ht::estimate_plane(data, p.stride(), b.width, b.height, b.fraction_bits, reversible, k);
        ++planes_checked;
        if (std::memcmp(&one.bytes, &whole[k].bytes, sizeof(double)) != 0 || std::memcmp(&one.removed, &whole[k].removed, sizeof(double)) != 0)
          if (++differ <= 10)
            ADD_FAILURE() << describe(i, b) << ", plane " << k << (reversible ? " (5/3)" : " (9/7)") << ": bytes " << one.bytes << " and "
                          << whole[k].bytes << ", removed " << one.removed << " and " << whole[k].removed;
      }
    }
  }
  EXPECT_EQ(differ, 0u);
  EXPECT_GT(planes_checked, 20000u);
}

// --- the CUDA batch --------------------------------------------------------------------------

TEST(HtGpuEncoder, EqualsTheCpuEncoderOnEveryBlock) {
  std::string why;
  if (!test_support::cuda_batches_usable(why)) GTEST_SKIP() << "no CUDA batch to test: " << why;
  const TestPlane p = random_blocks();
  const std::vector<CodedBlock> gpu = gpu_code(p.values(), p.stride(), p.blocks());
  ASSERT_EQ(gpu.size(), p.blocks().size());
  Mismatches m("GPU");
  for (size_t i = 0; i < gpu.size(); ++i) {
    const Block& b = p.blocks()[i];
    m.check(i, b, difference(cpu_cleanup(p, b), gpu[i].bitplanes, gpu[i].magnitude_bitplanes, gpu[i].bytes.data(), gpu[i].bytes.size()));
  }
}

// GPU bytes decoded by the CPU's HT decoder: every coefficient's index at the cleanup plane.
TEST(HtGpuEncoder, RoundTripsThroughTheCpuDecoder) {
  std::string why;
  if (!test_support::cuda_batches_usable(why)) GTEST_SKIP() << "no CUDA batch to test: " << why;
  const TestPlane p = random_blocks();
  const std::vector<CodedBlock> gpu = gpu_code(p.values(), p.stride(), p.blocks());
  ASSERT_EQ(gpu.size(), p.blocks().size());
  int decoded = 0;
  for (size_t i = 0; i < gpu.size() && decoded < 60; i += 7) {
    const Block& b = p.blocks()[i];
    const CodedBlock& c = gpu[i];
    // Within the decoder's kMaxDecodedBitplanes, with room for its form (twice the magnitude).
    if (c.bitplanes == 0 || c.magnitude_bitplanes > 28) continue;
    ++decoded;
    const std::vector<uint32_t> sizes{static_cast<uint32_t>(c.bytes.size())};
    const std::vector<int> passes{1};
    BlockCode code;
    code.bytes = c.bytes.data();
    code.size = c.bytes.size();
    code.segment_bytes = sizes.data();
    code.segment_passes = passes.data();
    code.segments = 1;
    code.width = b.width;
    code.height = b.height;
    code.band = b.band;
    code.bitplanes = c.bitplanes;
    std::vector<int32_t> out(static_cast<size_t>(b.width * b.height), 777);
    const BlockDecodeReport r = ht::decode_block(code, out.data(), b.width);
    ASSERT_FALSE(r.corrupt) << describe(i, b);
    ASSERT_EQ(r.passes, 1) << describe(i, b);
    for (int y = 0; y < b.height; ++y)
      for (int x = 0; x < b.width; ++x) {
        const int32_t v = p.values()[p.offset(b) + static_cast<size_t>(y) * static_cast<size_t>(p.stride()) + static_cast<size_t>(x)];
        const uint32_t mu = (ht::magnitude_of(v) >> b.fraction_bits) >> b.plane;
        const int32_t expected = mu == 0 ? 0 : (v < 0 ? -1 : 1) * static_cast<int32_t>((2 * mu + 1) << b.plane);
        ASSERT_EQ(out[static_cast<size_t>(y * b.width + x)], expected) << describe(i, b) << ", sample (" << x << ", " << y << ")";
      }
  }
  EXPECT_GE(decoded, 30);
}

// A block the coder must refuse (a magnitude of 2^31 at plane 0, as encode_block refuses it)
// among others: wait() names it; out-of-range arguments are refused by add().
TEST(HtGpuEncoder, RefusesWhatTheCpuEncoderRefuses) {
  std::string why;
  if (!test_support::cuda_batches_usable(why)) GTEST_SKIP() << "no CUDA batch to test: " << why;
#if J2KFRONT_HAVE_CUDA
  std::vector<int32_t> v(3 * 64, 5);
  v[64 + 9] = INT32_MIN;
  test_support::DevicePlane d(v);
  std::unique_ptr<GpuHtEncodeBatch> batch = make_gpu_ht_encode_batch(j2k::BackendOptions(j2k::Backend::Cuda));
  for (int k = 0; k < 3; ++k) batch->add(d.data() + 64 * k, 8, 8, 8, J2K_BAND_LL, 0, 0);
  batch->encode(d.stream());
  try {
    batch->wait();
    ADD_FAILURE() << "a coefficient of 2^31 steps at plane 0 was coded";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("block 1 "), std::string::npos) << e.what();
  }
  // The same block above plane 0 codes.
  batch->clear();
  batch->add(d.data() + 64, 8, 8, 8, J2K_BAND_LL, 0, 1);
  batch->encode(d.stream());
  EXPECT_NO_THROW(batch->wait());
  EXPECT_EQ(batch->coded(0).bitplanes, 2);
  EXPECT_EQ(batch->coded(0).magnitude_bitplanes, 32);
  EXPECT_THROW(batch->coded(1), j2k::Error);
  for (const auto& [w, h] : {std::pair{0, 4}, std::pair{4, 0}, std::pair{1025, 1}, std::pair{128, 64}})
    EXPECT_THROW(batch->add(d.data(), 2048, w, h, J2K_BAND_LL, 0, 0), j2k::Error) << w << " x " << h;
  EXPECT_THROW(batch->add(d.data(), 8, 8, 8, J2K_BAND_LL, 0, 31), j2k::Error);
  EXPECT_THROW(batch->add(d.data(), 8, 8, 8, J2K_BAND_LL, 13, 19), j2k::Error);
  EXPECT_THROW(batch->add(d.data(), 4, 8, 8, J2K_BAND_LL, 0, 0), j2k::Error);
  EXPECT_THROW(batch->add(nullptr, 8, 8, 8, J2K_BAND_LL, 0, 0), j2k::Error);
#endif
}

// A batch without blocks; and one used twice: the second batch's results are its own.
TEST(HtGpuEncoder, EmptyAndReusedBatches) {
  std::string why;
  if (!test_support::cuda_batches_usable(why)) GTEST_SKIP() << "no CUDA batch to test: " << why;
#if J2KFRONT_HAVE_CUDA
  std::mt19937 rng(7);
  TestPlane p(300, 2);
  for (int k = 0; k < 40; ++k) p.add(64, 64, coefficients(rng, 4096, 10, 0.5, 0), 0, k % 3, "reused batch");
  test_support::DevicePlane d(p.values());
  std::unique_ptr<GpuHtEncodeBatch> batch = make_gpu_ht_encode_batch(j2k::BackendOptions(j2k::Backend::Cuda));
  batch->encode(d.stream());
  batch->wait();
  EXPECT_EQ(batch->size(), 0u);
  for (size_t first : {size_t{0}, size_t{20}}) {  // blocks 0..39, then 20..39
    batch->clear();
    for (size_t i = first; i < p.blocks().size(); ++i) {
      const Block& b = p.blocks()[i];
      batch->add(d.data() + p.offset(b), p.stride(), b.width, b.height, b.band, b.fraction_bits, b.plane);
    }
    batch->encode(d.stream());
    batch->wait();
    Mismatches m("GPU (a batch used again)");
    for (size_t i = first; i < p.blocks().size(); ++i) {
      const CodedBlock c = batch->coded(i - first);
      m.check(i, p.blocks()[i], difference(cpu_cleanup(p, p.blocks()[i]), c.bitplanes, c.magnitude_bitplanes, c.bytes.data(), c.bytes.size()));
    }
  }
#endif
}

// The random blocks as HT rate control codes them (encode_block() with estimate_distortion):
// the stripe-causal mode on every third block, the 5/3's reconstruction where there are no
// fraction bits (as the encoder pairs them).
std::vector<BlockView> set_views(const TestPlane& p) {
  std::vector<BlockView> views;
  for (size_t i = 0; i < p.blocks().size(); ++i) {
    BlockView v = view_of(p, p.blocks()[i]);
    v.estimate_distortion = true;
    v.modes = i % 3 == 0 ? kModeCausal : 0;
    views.push_back(v);
  }
  return views;
}

// A batch's sets (coded(i) of block i) against encode_block(): the bytes, each pass's end and
// termination, each distortion and the energy as bits.
void expect_sets_equal_the_cpus(const TestPlane& p, const std::vector<BlockView>& views, const std::function<CodedBlock(size_t)>& coded,
                                const char* coder) {
  auto same_bits = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  size_t differ = 0, refined = 0;
  for (size_t i = 0; i < views.size(); ++i) {
    const Block& b = p.blocks()[i];
    const CodedBlock cpu = ht::encode_block(views[i]);
    const CodedBlock gpu = coded(i);
    std::string what;
    if (gpu.bitplanes != cpu.bitplanes || gpu.magnitude_bitplanes != cpu.magnitude_bitplanes) what += " bit planes";
    if (gpu.bytes != cpu.bytes) what += " bytes (" + std::to_string(gpu.bytes.size()) + ", CPU " + std::to_string(cpu.bytes.size()) + ")";
    if (!same_bits(gpu.energy, cpu.energy)) what += " energy " + std::to_string(gpu.energy) + " (CPU " + std::to_string(cpu.energy) + ")";
    if (gpu.passes.size() != cpu.passes.size()) {
      what += " " + std::to_string(gpu.passes.size()) + " passes (CPU " + std::to_string(cpu.passes.size()) + ")";
    } else {
      for (size_t k = 0; k < cpu.passes.size(); ++k) {
        const CodedPass &g = gpu.passes[k], &c = cpu.passes[k];
        if (g.end != c.end || g.terminated != c.terminated) what += " pass " + std::to_string(k) + "'s end";
        if (!same_bits(g.distortion, c.distortion))
          what += " pass " + std::to_string(k) + "'s distortion " + std::to_string(g.distortion) + " (CPU " + std::to_string(c.distortion) + ")";
      }
    }
    refined += cpu.passes.size() == 3 ? 1 : 0;
    if (!what.empty() && ++differ <= 20) ADD_FAILURE() << coder << " set of " << describe(i, b) << ":" << what;
  }
  EXPECT_EQ(differ, 0u) << differ << " of " << views.size() << " sets of the " << coder << " differ from the CPU's";
  EXPECT_GT(refined, 500u) << "too few blocks with SigProp and MagRef to mean anything";
}

// Every random block coded as a set (add_set) against encode_block() with its figures.
TEST(HtGpuEncoder, SetsEqualTheCpuEncoderWithTheirFigures) {
  std::string why;
  if (!test_support::cuda_batches_usable(why)) GTEST_SKIP() << "no CUDA batch to test: " << why;
#if J2KFRONT_HAVE_CUDA
  const TestPlane p = random_blocks();
  test_support::DevicePlane d(p.values());
  cuda::HtEncodeBatch batch;
  const std::vector<BlockView> views = set_views(p);
  for (size_t i = 0; i < views.size(); ++i) {
    const Block& b = p.blocks()[i];
    batch.add_set(d.data() + p.offset(b), p.stride(), b.width, b.height, b.band, b.fraction_bits, b.plane, views[i].reversible,
                  views[i].modes != 0);
  }
  batch.encode(d.stream());
  batch.wait();
  expect_sets_equal_the_cpus(p, views, [&](size_t i) { return batch.coded(i); }, "CUDA batch");
#endif
}

// --- a whole image ---------------------------------------------------------------------------

// tests/data/camera.pgm (8-bit, P5), DC-shifted.
std::vector<int32_t> camera(int& width, int& height) {
  const std::string path = std::string(J2K_TEST_DATA_DIR) + "/camera.pgm";
  std::ifstream f(path, std::ios::binary);
  std::string magic;
  int max = 0;
  f >> magic >> width >> height >> max;
  f.get();
  if (!f || magic != "P5" || max != 255) throw std::runtime_error(path + ": not an 8-bit P5 PGM");
  std::vector<unsigned char> bytes(static_cast<size_t>(width) * static_cast<size_t>(height));
  f.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error(path + ": cut short");
  std::vector<int32_t> v(bytes.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(bytes[i]) - 128;
  return v;
}

// The code-blocks (cb_w x cb_h, on each band's own grid) of a tile-component's coefficients
// laid out as band_layout() says, rows `stride` apart.
std::vector<Block> code_blocks(const j2k::Rect& tc, int levels, int cb_w, int cb_h) {
  std::vector<Block> blocks;
  for (const j2k::BandInfo& band : j2k::band_layout(tc, levels)) {
    const j2k::Rect& r = band.rect;
    if (r.empty()) continue;
    for (int64_t by = r.y0 / cb_h * cb_h; by < r.y1; by += cb_h)
      for (int64_t bx = r.x0 / cb_w * cb_w; bx < r.x1; bx += cb_w) {
        const int64_t x0 = std::max(bx, r.x0), y0 = std::max(by, r.y0);
        const int64_t x1 = std::min(bx + cb_w, r.x1), y1 = std::min(by + cb_h, r.y1);
        Block b;
        b.x = static_cast<int>(band.col + (x0 - r.x0));
        b.y = static_cast<int>(band.row + (y0 - r.y0));
        b.width = static_cast<int>(x1 - x0);
        b.height = static_cast<int>(y1 - y0);
        b.band = static_cast<j2k_band_type>(band.type);
        b.what = "band " + std::to_string(static_cast<int>(band.type)) + " of level " + std::to_string(band.level);
        blocks.push_back(b);
      }
  }
  return blocks;
}

// Codes a plane's blocks: the CUDA batch (gpu_code) or the kernel's function on the host
// (host_code).
using Coder = std::vector<CodedBlock> (*)(const std::vector<int32_t>& values, int stride, const std::vector<Block>& blocks);

// The 5/3 DWT (the CPU's, 5 levels) of camera.pgm cut to 509 x 317 at an odd origin, its
// code-blocks coded by `coder` from the coefficients as the DWT left them (rows the image's
// width apart): 64 x 64 blocks losslessly (plane 0), then 32 x 32 and 128 x 32 blocks at
// planes 0..3 as rate control might choose them. Each against the CPU encoder.
void check_dwt_of_an_image(Coder coder, const char* name) {
  int width = 0, height = 0;
  const std::vector<int32_t> image = camera(width, height);
  const int w = std::min(width, 509), h = std::min(height, 317);
  std::vector<int32_t> c(static_cast<size_t>(w) * static_cast<size_t>(h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) c[static_cast<size_t>(y * w + x)] = image[static_cast<size_t>(y * width + x)];
  const j2k::Rect tc{3, 1, 3 + w, 1 + h};
  j2k::cpu::forward53(c.data(), static_cast<size_t>(w), tc, 5, 1);
  struct Run {
    int cb_w, cb_h;
    bool planes;
  };
  for (const Run& run : {Run{64, 64, false}, Run{32, 32, true}, Run{128, 32, true}}) {
    std::vector<Block> blocks = code_blocks(tc, 5, run.cb_w, run.cb_h);
    for (size_t i = 0; i < blocks.size(); ++i) blocks[i].plane = run.planes ? static_cast<int>(i % 4) : 0;
    const std::vector<CodedBlock> coded = coder(c, w, blocks);
    ASSERT_EQ(coded.size(), blocks.size());
    const std::string what = std::string(name) + (run.planes ? " (DWT, planes 0..3, " : " (DWT, lossless, ") +
                             std::to_string(run.cb_w) + " x " + std::to_string(run.cb_h) + " blocks)";
    Mismatches m(what.c_str());
    size_t bytes = 0;
    for (size_t i = 0; i < blocks.size(); ++i) {
      const Block& b = blocks[i];
      BlockView v;
      v.data = c.data() + static_cast<size_t>(b.y) * static_cast<size_t>(w) + static_cast<size_t>(b.x);
      v.stride = w;
      v.width = b.width;
      v.height = b.height;
      v.band = b.band;
      v.estimate_distortion = false;
      v.cleanup_plane = b.plane;
      const CodedBlock cpu = ht::encode_block(v);
      Cleanup expected;
      expected.bitplanes = cpu.bitplanes;
      expected.magnitude_bitplanes = cpu.magnitude_bitplanes;
      if (!cpu.passes.empty()) expected.bytes.assign(cpu.bytes.begin(), cpu.bytes.begin() + cpu.passes[0].end);
      m.check(i, b, difference(expected, coded[i].bitplanes, coded[i].magnitude_bitplanes, coded[i].bytes.data(), coded[i].bytes.size()));
      bytes += coded[i].bytes.size();
    }
    EXPECT_GT(bytes, static_cast<size_t>(w * h / 8)) << what << ": the image coded to almost nothing";
  }
}

// encode_cleanup_in_place() on the host, block by block, as CodedBlocks (gpu_code's form).
std::vector<CodedBlock> host_code(const std::vector<int32_t>& values, int stride, const std::vector<Block>& blocks) {
  const ht::CleanupTables tables = ht::host_cleanup_tables();
  std::vector<CodedBlock> out;
  for (const Block& b : blocks) {
    std::vector<uint8_t> bytes(ht::cleanup_output_capacity(b.width, b.height));
    std::vector<uint32_t> scratch(ht::cleanup_scratch_bytes(b.width, b.height) / 4 + 1);
    const ht::CleanupResult r =
        ht::encode_cleanup_in_place(values.data() + static_cast<size_t>(b.y) * static_cast<size_t>(stride) + static_cast<size_t>(b.x), stride,
                                    b.width, b.height, b.fraction_bits, b.plane, tables, bytes.data(), reinterpret_cast<uint8_t*>(scratch.data()));
    EXPECT_EQ(r.status, ht::kCleanupCoded);
    CodedBlock c;
    c.bitplanes = r.bitplanes;
    c.magnitude_bitplanes = r.magnitude_bitplanes;
    c.bytes.assign(bytes.begin(), bytes.begin() + r.bytes);
    out.push_back(c);
  }
  return out;
}

TEST(HtCleanupInPlace, DwtOfAnImageEqualsTheCpuEncoder) { check_dwt_of_an_image(host_code, "host run of the kernel's function"); }

TEST(HtGpuEncoder, DwtOfAnImageEqualsTheCpuEncoder) {
  std::string why;
  if (!test_support::cuda_batches_usable(why)) GTEST_SKIP() << "no CUDA batch to test: " << why;
  check_dwt_of_an_image(gpu_code, "GPU");
}

// --- the OpenCL batch ------------------------------------------------------------------------

// The blocks of `values` coded by the OpenCL batch in one encode(), the plane in one device
// buffer (add_at: the buffer and each block's offset in bytes), as CodedBlocks; bytes() and
// coded_in_place() checked against coded() on the way. Empty, with `why`, without a device.
std::vector<CodedBlock> opencl_code(const std::vector<int32_t>& values, int stride, const std::vector<Block>& blocks) {
  std::vector<CodedBlock> out;
  std::string why;
  const std::unique_ptr<test_support::GpuMemory> g = test_support::make_gpu_memory(j2k::Backend::OpenCL, why);
  if (!g) return out;
  const j2k::Plane plane = g->filled(values.size() * sizeof(int32_t), 0);
  g->write(plane, values.data(), values.size() * sizeof(int32_t));
  std::unique_ptr<GpuHtEncodeBatch> batch = make_gpu_ht_encode_batch(j2k::BackendOptions(j2k::Backend::OpenCL));
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    const size_t at = static_cast<size_t>(b.y) * static_cast<size_t>(stride) + static_cast<size_t>(b.x);
    EXPECT_EQ(batch->add_at(plane.base, at * 4, stride, b.width, b.height, b.band, b.fraction_bits, b.plane), i);
  }
  EXPECT_EQ(batch->size(), blocks.size());
  batch->encode(g->stream());
  batch->wait();
  for (size_t i = 0; i < blocks.size(); ++i) {
    out.push_back(batch->coded(i));
    size_t size = 0;
    const uint8_t* p = batch->bytes(i, size);
    const CodedBlock& c = out.back();
    EXPECT_TRUE(size == c.bytes.size() && std::equal(c.bytes.begin(), c.bytes.end(), p)) << "bytes() and coded() of " << describe(i, blocks[i]);
    const CodedBlock in_place = batch->coded_in_place(i);
    EXPECT_TRUE(in_place.bytes.empty() && in_place.passes.size() == c.passes.size() && (c.passes.empty() || in_place.external == p))
        << "coded_in_place() of " << describe(i, blocks[i]);
    EXPECT_EQ(c.passes.size(), c.bitplanes > 0 ? 1u : 0u) << describe(i, blocks[i]);
    if (!c.passes.empty()) {
      EXPECT_TRUE(c.passes[0].end == c.bytes.size() && c.passes[0].terminated) << describe(i, blocks[i]);
    }
  }
  return out;
}

#define REQUIRE_OPENCL_DEVICE()                                                                          \
  do {                                                                                                   \
    std::string why_;                                                                                    \
    if (!j2k::backend_available(j2k::Backend::OpenCL, &why_)) GTEST_SKIP() << "no OpenCL device: " << why_; \
  } while (0)

// Every block of random_blocks(): every code-block size (4 x 4 .. 64 x 64, 4 x 1024, 1024 x 4),
// every partial size 1..64 x 1..64, odd sizes, 1 to 31 bit planes (8-, 12- and 16-bit
// magnitudes among them), planes 0..5, 0 and 13 fraction bits, all-zero and one-huge blocks.
TEST(HtOpenClEncoder, EqualsTheCpuEncoderOnEveryBlock) {
  REQUIRE_OPENCL_DEVICE();
  const TestPlane p = random_blocks();
  const std::vector<CodedBlock> coded = opencl_code(p.values(), p.stride(), p.blocks());
  ASSERT_EQ(coded.size(), p.blocks().size());
  Mismatches m("OpenCL batch");
  for (size_t i = 0; i < coded.size(); ++i) {
    const Block& b = p.blocks()[i];
    m.check(i, b, difference(cpu_cleanup(p, b), coded[i].bitplanes, coded[i].magnitude_bitplanes, coded[i].bytes.data(), coded[i].bytes.size()));
  }
}

// A test plane's values in an OpenCL buffer of the first device (memory null, with `why`,
// without one).
struct OpenClCopy {
  std::string why;
  std::unique_ptr<test_support::GpuMemory> memory;
  j2k::Plane plane;
  explicit OpenClCopy(const TestPlane& p) : memory(test_support::make_gpu_memory(j2k::Backend::OpenCL, why)) {
    if (!memory) return;
    plane = memory->filled(p.values().size() * 4, 0);
    memory->write(plane, p.values().data(), p.values().size() * 4);
  }
};

// The same sets on the OpenCL batch (add_set_at, finish_sets one work-item a block).
TEST(HtOpenClEncoder, SetsEqualTheCpuEncoderWithTheirFigures) {
  REQUIRE_OPENCL_DEVICE();
#if J2KFRONT_HAVE_OPENCL
  const TestPlane p = random_blocks();
  const OpenClCopy d(p);
  ASSERT_TRUE(d.memory) << d.why;
  opencl::HtEncodeBatch batch;
  const std::vector<BlockView> views = set_views(p);
  for (size_t i = 0; i < views.size(); ++i) {
    const Block& b = p.blocks()[i];
    batch.add_set_at(d.plane.base, p.offset(b) * 4, p.stride(), b.width, b.height, b.band, b.fraction_bits, b.plane, views[i].reversible,
                     views[i].modes != 0);
  }
  batch.encode(d.memory->stream());
  batch.wait();
  expect_sets_equal_the_cpus(p, views, [&](size_t i) { return batch.coded(i); }, "OpenCL batch");
#endif
}

// HT rate control's plane model on the OpenCL batch against the CPU's, bit for bit.
TEST(HtOpenClEncoder, PlaneModelIsTheCpus) {
  REQUIRE_OPENCL_DEVICE();
#if J2KFRONT_HAVE_OPENCL
  const TestPlane p = random_blocks();
  const OpenClCopy d(p);
  ASSERT_TRUE(d.memory) << d.why;
  std::vector<opencl::HtEncodeBatch::ModelBlock> blocks;
  for (size_t i = 0; i < p.blocks().size(); ++i) {
    const Block& b = p.blocks()[i];
    opencl::HtEncodeBatch::ModelBlock k;
    k.base = d.plane.base;
    k.offset = p.offset(b) * 4;
    k.stride = p.stride();
    k.width = b.width, k.height = b.height, k.fraction_bits = b.fraction_bits, k.reversible = i % 2 == 0;
    blocks.push_back(k);
  }
  opencl::HtEncodeBatch batch;
  const std::vector<BlockEncodeBatch::HtModel> got = batch.model(blocks, d.memory->stream());
  ASSERT_EQ(got.size(), blocks.size());
  size_t differ = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = p.blocks()[i];
    const int32_t* data = p.values().data() + p.offset(b);
    ht::PlaneEstimate want[ht::kMaxEstimatedPlanes];
    const int planes = ht::estimate_planes(data, p.stride(), b.width, b.height, b.fraction_bits, blocks[i].reversible, want);
    const double energy = ht::block_energy(data, p.stride(), b.width, b.height, b.fraction_bits);
    bool same = got[i].estimates.size() == static_cast<size_t>(planes) && std::memcmp(&got[i].energy, &energy, sizeof energy) == 0;
    for (int k = 0; same && k < planes; ++k)
      same = std::memcmp(&got[i].estimates[static_cast<size_t>(k)].bytes, &want[k].bytes, sizeof(double)) == 0 &&
             std::memcmp(&got[i].estimates[static_cast<size_t>(k)].removed, &want[k].removed, sizeof(double)) == 0;
    if (!same && ++differ <= 10) ADD_FAILURE() << "OpenCL model of " << describe(i, b) << " differs from the CPU's";
  }
  EXPECT_EQ(differ, 0u);
#endif
}

TEST(HtOpenClEncoder, DwtOfAnImageEqualsTheCpuEncoder) {
  REQUIRE_OPENCL_DEVICE();
  check_dwt_of_an_image(opencl_code, "OpenCL batch");
}

// A block the coder must refuse among others: wait() names it; add() by address, an offset
// that is no whole int32 and out-of-range figures are refused.
TEST(HtOpenClEncoder, RefusesWhatTheCpuEncoderRefuses) {
  REQUIRE_OPENCL_DEVICE();
  std::string why;
  const std::unique_ptr<test_support::GpuMemory> g = test_support::make_gpu_memory(j2k::Backend::OpenCL, why);
  ASSERT_NE(g, nullptr) << why;
  std::vector<int32_t> v(3 * 64, 5);
  v[64 + 9] = INT32_MIN;
  const j2k::Plane plane = g->filled(v.size() * 4, 0);
  g->write(plane, v.data(), v.size() * 4);
  std::unique_ptr<GpuHtEncodeBatch> batch = make_gpu_ht_encode_batch(j2k::BackendOptions(j2k::Backend::OpenCL));
  for (size_t k = 0; k < 3; ++k) batch->add_at(plane.base, 64 * 4 * k, 8, 8, 8, J2K_BAND_LL, 0, 0);
  batch->encode(g->stream());
  try {
    batch->wait();
    ADD_FAILURE() << "a coefficient of 2^31 steps at plane 0 was coded";
  } catch (const j2k::Error& e) {
    EXPECT_EQ(e.code(), j2k::ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("block 1 "), std::string::npos) << e.what();
  }
  batch->clear();
  batch->add_at(plane.base, 64 * 4, 8, 8, 8, J2K_BAND_LL, 0, 1);  // the same block above plane 0 codes
  batch->encode(g->stream());
  EXPECT_NO_THROW(batch->wait());
  EXPECT_EQ(batch->coded(0).bitplanes, 2);
  EXPECT_EQ(batch->coded(0).magnitude_bitplanes, 32);
  EXPECT_THROW(batch->coded(1), j2k::Error);
  int32_t dummy = 0;
  EXPECT_THROW(batch->add(&dummy, 8, 8, 8, J2K_BAND_LL, 0, 0), j2k::Error) << "add() by address on OpenCL";
  EXPECT_THROW(batch->add_at(plane.base, 2, 8, 8, 8, J2K_BAND_LL, 0, 0), j2k::Error) << "an offset of 2 bytes";
  for (const auto& [w, h] : {std::pair{0, 4}, std::pair{4, 0}, std::pair{1025, 1}, std::pair{128, 64}})
    EXPECT_THROW(batch->add_at(plane.base, 0, 2048, w, h, J2K_BAND_LL, 0, 0), j2k::Error) << w << " x " << h;
  EXPECT_THROW(batch->add_at(plane.base, 0, 8, 8, 8, J2K_BAND_LL, 0, 31), j2k::Error);
  EXPECT_THROW(batch->add_at(plane.base, 0, 8, 8, 8, J2K_BAND_LL, 13, 19), j2k::Error);
  EXPECT_THROW(batch->add_at(plane.base, 0, 4, 8, 8, J2K_BAND_LL, 0, 0), j2k::Error);
  EXPECT_THROW(batch->add_at(nullptr, 0, 8, 8, 8, J2K_BAND_LL, 0, 0), j2k::Error);
}

// A batch without blocks; and one used twice: the second batch's results are its own.
TEST(HtOpenClEncoder, EmptyAndReusedBatches) {
  REQUIRE_OPENCL_DEVICE();
  std::string why;
  const std::unique_ptr<test_support::GpuMemory> g = test_support::make_gpu_memory(j2k::Backend::OpenCL, why);
  ASSERT_NE(g, nullptr) << why;
  std::mt19937 rng(7);
  TestPlane p(300, 2);
  for (int k = 0; k < 40; ++k) p.add(64, 64, coefficients(rng, 4096, 10, 0.5, 0), 0, k % 3, "reused batch");
  const j2k::Plane plane = g->filled(p.values().size() * 4, 0);
  g->write(plane, p.values().data(), p.values().size() * 4);
  std::unique_ptr<GpuHtEncodeBatch> batch = make_gpu_ht_encode_batch(j2k::BackendOptions(j2k::Backend::OpenCL));
  batch->encode(g->stream());
  batch->wait();
  EXPECT_EQ(batch->size(), 0u);
  for (size_t first : {size_t{0}, size_t{20}}) {  // blocks 0..39, then 20..39
    batch->clear();
    for (size_t i = first; i < p.blocks().size(); ++i) {
      const Block& b = p.blocks()[i];
      batch->add_at(plane.base, p.offset(b) * 4, p.stride(), b.width, b.height, b.band, b.fraction_bits, b.plane);
    }
    batch->encode(g->stream());
    batch->wait();
    Mismatches m("OpenCL batch (used again)");
    for (size_t i = first; i < p.blocks().size(); ++i) {
      const CodedBlock c = batch->coded(i - first);
      m.check(i, p.blocks()[i], difference(cpu_cleanup(p, p.blocks()[i]), c.bitplanes, c.magnitude_bitplanes, c.bytes.data(), c.bytes.size()));
    }
  }
}

// The 9/7's quantisation on the device: every float's int32 as quantise_value() gives it on
// the host (quantise_block's arithmetic), at steps of every scale; a float too large for its
// step raises the flag.
TEST(HtOpenClEncoder, QuantisesAsTheHost) {
  REQUIRE_OPENCL_DEVICE();
#if J2KFRONT_HAVE_OPENCL
  std::string why;
  const std::unique_ptr<test_support::GpuMemory> g = test_support::make_gpu_memory(j2k::Backend::OpenCL, why);
  ASSERT_NE(g, nullptr) << why;
  std::mt19937 rng(97);
  const int kStride = 70;
  std::vector<float> in(static_cast<size_t>(kStride) * 200);
  for (float& f : in) {
    const double mag = std::ldexp(std::uniform_real_distribution<double>(0, 1)(rng), std::uniform_int_distribution<int>(-8, 10)(rng));
    f = static_cast<float>((rng() & 1) ? -mag : mag);
  }
  in[5] = 0.0f, in[6] = -0.0f;
  std::vector<opencl::HtEncodeBatch::QuantiseJob> jobs;
  std::vector<int32_t> want;
  const double kDeltas[] = {1.0, 0.5, 1.0 / 3, 0.0123, 7.25, 0.0625};  // indices below 2^31
  uint64_t at = 0;
  for (int k = 0; k < 6; ++k) {
    opencl::HtEncodeBatch::QuantiseJob j{};
    j.width = 1 + 13 * k % 64, j.height = 5 + 30 * k % 31;
    j.src = static_cast<uint64_t>(k * 31 * kStride + k);
    j.stride = kStride;
    j.dst = at;
    j.scale = std::ldexp(1.0, 13) / kDeltas[k];
    for (int y = 0; y < j.height; ++y)
      for (int x = 0; x < j.width; ++x) {
        int32_t q = 0;
        ASSERT_TRUE(quantise_value(in[j.src + static_cast<size_t>(y * kStride + x)], j.scale, q));
        want.push_back(q);
      }
    at += static_cast<uint64_t>(j.width * j.height);
    jobs.push_back(j);
  }
  const j2k::Plane src = g->filled(in.size() * 4, 0), dst = g->filled(want.size() * 4 + 4, 0xEE), flag = g->filled(4, 0);
  g->write(src, in.data(), in.size() * 4);
  opencl::HtEncodeBatch batch;
  batch.quantise(jobs, src.base, dst.base, flag.base, g->stream());
  std::vector<int32_t> got(want.size() + 1);
  uint32_t raised = 7;
  g->read(dst, got.data(), got.size() * 4);
  g->read(flag, &raised, 4);
  EXPECT_EQ(raised, 0u);
  size_t differ = 0;
  for (size_t i = 0; i < want.size(); ++i) differ += got[i] != want[i];
  EXPECT_EQ(differ, 0u) << "of " << want.size() << " coefficients";
  EXPECT_EQ(static_cast<uint32_t>(got.back()), 0xEEEEEEEEu) << "a value written past the jobs";
  // A magnitude of 2^31 steps: refused.
  in[0] = 3e9f;
  g->write(src, in.data(), 4);
  jobs.resize(1);
  jobs[0].src = 0, jobs[0].scale = 1.0, jobs[0].width = 2, jobs[0].height = 1;
  batch.quantise(jobs, src.base, dst.base, flag.base, g->stream());
  g->read(flag, &raised, 4);
  EXPECT_NE(raised, 0u);
#endif
}

}  // namespace
