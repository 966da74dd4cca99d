// SPDX-License-Identifier: BSD-2-Clause
// The DC shift of transform/cpu/shift_mct.hpp (which runs the AVX2 build of its row loop on a
// CPU that has it, the portable one elsewhere) against each sample worked out here: every
// sample type, packed and interleaved samples, widths 1..70 (a vector's worth and its tail),
// samples inside and outside the declared range (clamped, and the call then says false), into
// int32 (5/3) and float (9/7) planes. Then three components with the MCT: the ICT's pass that
// converts and decorrelates at once (its AVX2 build where the CPU has it) against each sample
// converted here and ict_forward (which mct_conformance_test holds to OpenJPEG's) on the rows,
// float for float; the RCT likewise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "transform/cpu/component_transform.hpp"
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

// Components 0..2 of width x 3 rows with the MCT, each of type S at `step` samples apart
// (1: packed, 3: interleaved as an RGB file), precisions `bits` (the same for all three, or
// not), some samples outside where `outside`. `other`: component 2 of another type (int16),
// so that the components are converted one by one and then decorrelated.
template <class S>
void check_mct(std::mt19937& rng, int width, int step, const int (&bits)[3], bool outside, bool other, Wavelet wavelet) {
  const bool is_signed = static_cast<S>(-1) < 0;
  const int height = 3;
  const size_t count = static_cast<size_t>(width * height);
  std::vector<S> samples(static_cast<size_t>(width * step * height) * 3);  // step 3: the three interleaved in samples[0..)
  std::vector<int16_t> third(count);
  TileSamples tile;
  std::vector<int64_t> values[3];
  for (int c = 0; c < 3; ++c) {
    const bool sig = c == 2 && other ? true : is_signed;
    const int b = c == 2 && other ? std::min(bits[c], 16) : bits[c];
    const int64_t lo = sig ? -(int64_t{1} << (b - 1)) : 0;
    const int64_t hi = sig ? (int64_t{1} << (b - 1)) - 1 : (int64_t{1} << b) - 1;
    const int64_t type_lo = c == 2 && other ? -32768 : static_cast<int64_t>(std::numeric_limits<S>::min());
    const int64_t type_hi = c == 2 && other ? 32767 : static_cast<int64_t>(std::numeric_limits<S>::max());
    std::uniform_int_distribution<int64_t> any(type_lo, type_hi), inside(lo, hi);
    Plane in;
    in.width = width;
    in.height = height;
    if (c == 2 && other) {
      in.base = third.data();
      in.type = J2K_SAMPLE_I16;
      in.pixel_stride = 2;
    } else {
      // Packed: one plane after another; interleaved: component c at sample c of each pixel.
      in.base = step == 1 ? static_cast<void*>(samples.data() + static_cast<size_t>(c) * count) : static_cast<void*>(samples.data() + c);
      in.type = type_of<S>();
      in.pixel_stride = step * static_cast<ptrdiff_t>(sizeof(S));
    }
    in.row_stride = width * in.pixel_stride;
    for (int i = 0; i < width * height; ++i) {
      const int64_t v = outside && rng() % 5 == 0 ? any(rng) : inside(rng);
      if (c == 2 && other) third[static_cast<size_t>(i)] = static_cast<int16_t>(v);
      else samples[step == 1 ? static_cast<size_t>(c) * count + static_cast<size_t>(i) : static_cast<size_t>(3 * i + c)] = static_cast<S>(v);
      values[c].push_back(v);
    }
    tile.in.push_back(in);
    tile.offset.push_back(sig ? 0 : static_cast<int32_t>(int64_t{1} << (b - 1)));
    tile.lo.push_back(lo);
    tile.hi.push_back(hi);
    tile.fused.push_back(0);
  }
  tile.mct = true;
  const bool floats = wavelet == Wavelet::Irreversible97;
  std::vector<int32_t> out_i(3 * count, 12345), want_i(3 * count);
  std::vector<float> out_f(3 * count, 12345.f), want_f(3 * count);
  std::vector<Plane> out(3);
  bool any_outside = false;
  for (int c = 0; c < 3; ++c) {
    Plane& p = out[static_cast<size_t>(c)];
    p.base = floats ? static_cast<void*>(out_f.data() + static_cast<size_t>(c) * count) : static_cast<void*>(out_i.data() + static_cast<size_t>(c) * count);
    p.type = floats ? J2K_SAMPLE_F32 : J2K_SAMPLE_I32;
    p.pixel_stride = 4;
    p.row_stride = width * 4;
    p.width = width;
    p.height = height;
    for (size_t i = 0; i < count; ++i) {
      const int64_t v = values[c][i], lo = tile.lo[static_cast<size_t>(c)], hi = tile.hi[static_cast<size_t>(c)];
      any_outside |= v < lo || v > hi;
      const int64_t kept = std::min(std::max(v, lo), hi);
      const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(kept) - static_cast<uint32_t>(tile.offset[static_cast<size_t>(c)]));
      want_i[static_cast<size_t>(c) * count + i] = shifted;
      want_f[static_cast<size_t>(c) * count + i] = static_cast<float>(shifted);
    }
  }
  if (floats) ict_forward(want_f.data(), want_f.data() + count, want_f.data() + 2 * count, count);
  else rct_forward(want_i.data(), want_i.data() + count, want_i.data() + 2 * count, count);
  const bool ok = cpu::shift_mct(tile, wavelet, out, 1);
  const std::string what = "width " + std::to_string(width) + ", step " + std::to_string(step) + ", " + std::to_string(bits[0]) + "/" +
                           std::to_string(bits[1]) + "/" + std::to_string(bits[2]) + " bits" + (is_signed ? " signed" : "") +
                           (other ? ", component 2 int16" : "") + (floats ? ", ICT" : ", RCT");
  ASSERT_EQ(ok, !any_outside) << what;
  for (size_t i = 0; i < 3 * count; ++i) {
    if (floats) ASSERT_EQ(std::memcmp(&out_f[i], &want_f[i], sizeof(float)), 0) << what << " at " << i << ": " << out_f[i] << " against " << want_f[i];
    else ASSERT_EQ(out_i[i], want_i[i]) << what << " at " << i;
  }
}

template <class S>
void every_mct_case(int max_bits) {
  std::mt19937 rng(47);
  for (Wavelet wavelet : {Wavelet::Reversible53, Wavelet::Irreversible97})
    for (int width = 1; width <= 70; ++width)
      for (int step : {1, 3})
        for (int pattern = 0; pattern < 8; ++pattern) {
          // Every precision the type's whole range (no clamp needed), one the same below it,
          // or each its own (with component 2 of another type, too).
          const int mode = pattern / 2;
          const bool outside = pattern & 1, other = mode == 3;
          int bits[3];
          const int some = 1 + static_cast<int>(rng() % static_cast<unsigned>(max_bits));
          for (int& b : bits) b = mode == 0 ? max_bits : mode == 1 ? some : 1 + static_cast<int>(rng() % static_cast<unsigned>(max_bits));
          check_mct<S>(rng, width, step, bits, outside, other, wavelet);
          if (::testing::Test::HasFatalFailure()) return;
        }
}

TEST(ShiftMct, Unsigned8) { every_case<uint8_t>(8); }
TEST(ShiftMct, Signed8) { every_case<int8_t>(8); }
TEST(ShiftMct, Unsigned16) { every_case<uint16_t>(16); }
TEST(ShiftMct, Signed16) { every_case<int16_t>(16); }
TEST(ShiftMct, Unsigned32) { every_case<uint32_t>(24); }
TEST(ShiftMct, Signed32) { every_case<int32_t>(24); }

TEST(ShiftMct, ComponentTransformUnsigned8) { every_mct_case<uint8_t>(8); }
TEST(ShiftMct, ComponentTransformSigned8) { every_mct_case<int8_t>(8); }
TEST(ShiftMct, ComponentTransformUnsigned16) { every_mct_case<uint16_t>(16); }
TEST(ShiftMct, ComponentTransformSigned16) { every_mct_case<int16_t>(16); }
TEST(ShiftMct, ComponentTransformUnsigned32) { every_mct_case<uint32_t>(24); }
TEST(ShiftMct, ComponentTransformSigned32) { every_mct_case<int32_t>(24); }

}  // namespace
