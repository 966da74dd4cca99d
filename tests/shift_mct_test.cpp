// SPDX-License-Identifier: BSD-2-Clause
// The DC shift of transform/cpu/shift_mct.hpp (which runs the AVX2 build of its row loop on a
// CPU that has it, the portable one elsewhere) against each sample worked out here: every
// sample type, packed and interleaved samples, widths 1..70 (a vector's worth and its tail),
// samples inside and outside the declared range (clamped, and the call then says false), into
// int32 (5/3) and float (9/7) planes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "transform/cpu/shift_mct.hpp"

namespace {

using namespace j2k;

template <class S>
j2k_sample_type type_of();
template <> j2k_sample_type type_of<uint8_t>() { return J2K_SAMPLE_U8; }
template <> j2k_sample_type type_of<int8_t>() { return J2K_SAMPLE_I8; }
template <> j2k_sample_type type_of<uint16_t>() { return J2K_SAMPLE_U16; }
template <> j2k_sample_type type_of<int16_t>() { return J2K_SAMPLE_I16; }
template <> j2k_sample_type type_of<uint32_t>() { return J2K_SAMPLE_U32; }
template <> j2k_sample_type type_of<int32_t>() { return J2K_SAMPLE_I32; }

// One component of width x 3 rows, `step` samples apart (1: packed), precision `bits`
// (signed types: offset 0), some samples outside [lo, hi] where `outside`.
template <class S>
void check(std::mt19937& rng, int width, int step, int bits, bool outside, Wavelet wavelet) {
  const bool is_signed = static_cast<S>(-1) < 0;
  const int64_t lo = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  const int32_t offset = is_signed ? 0 : static_cast<int32_t>(int64_t{1} << (bits - 1));
  const int height = 3;
  std::vector<S> samples(static_cast<size_t>(width * step * height));
  std::uniform_int_distribution<int64_t> any(static_cast<int64_t>(std::numeric_limits<S>::min()),
                                             static_cast<int64_t>(std::numeric_limits<S>::max()));
  std::uniform_int_distribution<int64_t> inside(lo, hi);
  bool any_outside = false;
  for (S& v : samples) {
    const int64_t x = outside && rng() % 5 == 0 ? any(rng) : inside(rng);
    v = static_cast<S>(x);
  }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const auto v = static_cast<int64_t>(samples[static_cast<size_t>((y * width + x) * step)]);
      any_outside |= v < lo || v > hi;
    }
  TileSamples tile;
  Plane in;
  in.base = samples.data();
  in.type = type_of<S>();
  in.pixel_stride = step * static_cast<ptrdiff_t>(sizeof(S));
  in.row_stride = width * in.pixel_stride;
  in.width = width;
  in.height = height;
  tile.in = {in};
  tile.offset = {offset};
  tile.lo = {lo};
  tile.hi = {hi};
  tile.fused = {0};
  const bool floats = wavelet == Wavelet::Irreversible97;
  std::vector<int32_t> out_i(static_cast<size_t>(width * height), 12345);
  std::vector<float> out_f(static_cast<size_t>(width * height), 12345.f);
  Plane out;
  out.base = floats ? static_cast<void*>(out_f.data()) : static_cast<void*>(out_i.data());
  out.type = floats ? J2K_SAMPLE_F32 : J2K_SAMPLE_I32;
  out.pixel_stride = 4;
  out.row_stride = width * 4;
  out.width = width;
  out.height = height;
  const bool ok = cpu::shift_mct(tile, wavelet, {out}, 1);
  const std::string what = "width " + std::to_string(width) + ", step " + std::to_string(step) + ", " +
                           std::to_string(bits) + " bits" + (is_signed ? " signed" : "") + (floats ? ", float" : ", int32");
  ASSERT_EQ(ok, !any_outside) << what;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const auto v = static_cast<int64_t>(samples[static_cast<size_t>((y * width + x) * step)]);
      const int64_t kept = std::min(std::max(v, lo), hi);
      const auto expected = static_cast<int32_t>(static_cast<uint32_t>(kept) - static_cast<uint32_t>(offset));
      const size_t at = static_cast<size_t>(y * width + x);
      if (floats) ASSERT_EQ(out_f[at], static_cast<float>(expected)) << what << " at " << x << ", " << y;
      else ASSERT_EQ(out_i[at], expected) << what << " at " << x << ", " << y;
    }
}

template <class S>
void every_case(int max_bits) {
  std::mt19937 rng(31);
  for (Wavelet wavelet : {Wavelet::Reversible53, Wavelet::Irreversible97})
    for (int width = 1; width <= 70; ++width)
      for (int step : {1, 3})
        for (bool outside : {false, true}) {
          const int bits = 1 + static_cast<int>(rng() % static_cast<unsigned>(max_bits));
          check<S>(rng, width, step, bits, outside, wavelet);
          if (::testing::Test::HasFatalFailure()) return;
        }
}

TEST(ShiftMct, Unsigned8) { every_case<uint8_t>(8); }
TEST(ShiftMct, Signed8) { every_case<int8_t>(8); }
TEST(ShiftMct, Unsigned16) { every_case<uint16_t>(16); }
TEST(ShiftMct, Signed16) { every_case<int16_t>(16); }
TEST(ShiftMct, Unsigned32) { every_case<uint32_t>(24); }
TEST(ShiftMct, Signed32) { every_case<int32_t>(24); }

}  // namespace
