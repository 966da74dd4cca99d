// SPDX-License-Identifier: BSD-2-Clause
// Row by row: each component's row converted (shift, to float for the 9/7), then the three
// rows of components 0..2 decorrelated while they are in cache; for the ICT, where the three
// have one sample type, both in one pass.
#include "transform/cpu/shift_mct.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/error.hpp"
#include "transform/cpu/component_transform.hpp"
#include "common/parallel/parallel_for.hpp"

namespace j2k::cpu {
namespace {

template <class T>
T* row_of(const Plane& p, int64_t y) {
  return reinterpret_cast<T*>(static_cast<char*>(p.base) + p.offset + y * p.row_stride);
}

// One row of n samples of type S, `step` bytes apart -> v - offset as D. True if every
// sample lies in [lo, hi]. A sample outside is clamped into it: its frame is reported as an
// error, and the transform of what was stored stays within int32 (no overflow on the way).
// kPacked: the samples are `sizeof(S)` apart (step unused), a loop the compiler vectorises.
// Samples of 8 and 16 bits are compared in int32 (their bounds clamped to it, which changes
// no comparison): vector compares of that width exist on every x86-64, of int64 not.
template <class S, class D, bool kPacked>
bool convert_samples(const char* src, ptrdiff_t step, int64_t n, int32_t offset, int64_t lo, int64_t hi, D* out) {
  using W = std::conditional_t<(sizeof(S) <= 2), int32_t, int64_t>;
  const auto lo_w = static_cast<W>(std::max<int64_t>(lo, std::numeric_limits<W>::min()));
  const auto hi_w = static_cast<W>(std::min<int64_t>(hi, std::numeric_limits<W>::max()));
  // Branch-free, in the samples' width, for the vectoriser (the comparisons' flags ORed, the
  // clamp as min and max, the shift modulo 2^32 as the int32 result takes it): with a bool
  // reduction and a chain of conditionals it stayed a scalar loop, 12% of a one-thread
  // lossless compress of 8-bit RGB.
  W outside = 0;
  for (int64_t x = 0; x < n; ++x) {
    S s;
    std::memcpy(&s, src + x * (kPacked ? static_cast<ptrdiff_t>(sizeof(S)) : step), sizeof s);  // no alignment assumed
    const auto v = static_cast<W>(s);
    outside |= static_cast<W>((v < lo_w) | (v > hi_w));
    const W kept = std::min(std::max(v, lo_w), hi_w);
    out[x] = static_cast<D>(static_cast<int32_t>(static_cast<uint32_t>(kept) - static_cast<uint32_t>(offset)));
  }
  return outside == 0;
}

template <class S, class D>
bool convert(const char* src, ptrdiff_t step, int64_t n, int32_t offset, int64_t lo, int64_t hi, D* out) {
  if (step == static_cast<ptrdiff_t>(sizeof(S))) return convert_samples<S, D, true>(src, step, n, offset, lo, hi, out);
  return convert_samples<S, D, false>(src, step, n, offset, lo, hi, out);
}

template <class D>
bool convert_row(const TileSamples& tile, size_t c, int64_t y, D* out) {
  const Plane& in = tile.in[c];
  const char* src = static_cast<const char*>(in.base) + in.offset + y * in.row_stride;
  const int32_t offset = tile.offset[c];
  const int64_t lo = tile.lo[c], hi = tile.hi[c];
  const ptrdiff_t step = in.pixel_stride;
  const int64_t n = in.width;
  switch (in.type) {
    case J2K_SAMPLE_U8: return convert<uint8_t>(src, step, n, offset, lo, hi, out);
    case J2K_SAMPLE_I8: return convert<int8_t>(src, step, n, offset, lo, hi, out);
    case J2K_SAMPLE_U16: return convert<uint16_t>(src, step, n, offset, lo, hi, out);
    case J2K_SAMPLE_I16: return convert<int16_t>(src, step, n, offset, lo, hi, out);
    case J2K_SAMPLE_U32: return convert<uint32_t>(src, step, n, offset, lo, hi, out);
    case J2K_SAMPLE_I32: return convert<int32_t>(src, step, n, offset, lo, hi, out);
    case J2K_SAMPLE_F32: break;
  }
  throw Error(ErrorCode::Internal, "shift_mct: not a sample type");
}

// Components 0..2's rows of one sample type, converted as convert_samples converts each and
// decorrelated by the ICT as ict_forward does it, in one pass: the same integers and the same
// float operations, so the same values, without the three converted rows stored and loaded
// again between the two (6% of a one-thread lossy compress of 8-bit RGB was the two passes).
// kWhole: [lo, hi] holds every value of S (8-bit samples of precision 8, say), so that no
// sample lies outside and the clamp and the check are left out.
template <class S, bool kPacked, bool kWhole>
bool convert_ict_samples(const char* __restrict src0, const char* __restrict src1, const char* __restrict src2, ptrdiff_t step,
                         int64_t n, const int32_t* offset, const int64_t* lo, const int64_t* hi, float* __restrict out0,
                         float* __restrict out1, float* __restrict out2) {
  using W = std::conditional_t<(sizeof(S) <= 2), int32_t, int64_t>;
  auto bound = [](int64_t v) {
    return static_cast<W>(std::min<int64_t>(std::max<int64_t>(v, std::numeric_limits<W>::min()), std::numeric_limits<W>::max()));
  };
  const W lo0 = bound(lo[0]), lo1 = bound(lo[1]), lo2 = bound(lo[2]);
  const W hi0 = bound(hi[0]), hi1 = bound(hi[1]), hi2 = bound(hi[2]);
  const auto off0 = static_cast<uint32_t>(offset[0]), off1 = static_cast<uint32_t>(offset[1]), off2 = static_cast<uint32_t>(offset[2]);
  const ptrdiff_t at = kPacked ? static_cast<ptrdiff_t>(sizeof(S)) : step;
  W outside = 0;
  for (int64_t x = 0; x < n; ++x) {
    S s0, s1, s2;
    std::memcpy(&s0, src0 + x * at, sizeof s0);
    std::memcpy(&s1, src1 + x * at, sizeof s1);
    std::memcpy(&s2, src2 + x * at, sizeof s2);
    W v0 = static_cast<W>(s0), v1 = static_cast<W>(s1), v2 = static_cast<W>(s2);
    if constexpr (!kWhole) {
      outside |= static_cast<W>((v0 < lo0) | (v0 > hi0) | (v1 < lo1) | (v1 > hi1) | (v2 < lo2) | (v2 > hi2));
      v0 = std::min(std::max(v0, lo0), hi0);
      v1 = std::min(std::max(v1, lo1), hi1);
      v2 = std::min(std::max(v2, lo2), hi2);
    }
    const auto r = static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(v0) - off0));
    const auto g = static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(v1) - off1));
    const auto b = static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(v2) - off2));
    const Ict t = ict_forward_sample(r, g, b);
    out0[x] = t.y;
    out1[x] = t.u;
    out2[x] = t.v;
  }
  return outside == 0;
}

// Whether components 0..2 take convert_ict_row: one sample type, one pixel step.
bool one_ict_pass(const TileSamples& tile) {
  if (!tile.mct || tile.in.size() < 3) return false;
  const Plane& a = tile.in[0];
  for (size_t c = 1; c < 3; ++c) {
    const Plane& p = tile.in[c];
    if (p.type != a.type || p.pixel_stride != a.pixel_stride || p.width != a.width || p.height != a.height) return false;
  }
  return a.type != J2K_SAMPLE_F32;
}

template <class S>
bool convert_ict(const TileSamples& tile, int64_t y, float* const* out) {
  const char* src[3];
  for (size_t c = 0; c < 3; ++c) {
    const Plane& in = tile.in[c];
    src[c] = static_cast<const char*>(in.base) + in.offset + y * in.row_stride;
  }
  const Plane& in = tile.in[0];
  const int32_t* offset = tile.offset.data();
  const int64_t *lo = tile.lo.data(), *hi = tile.hi.data();
  bool whole = true;
  for (size_t c = 0; c < 3; ++c)
    whole &= lo[c] <= static_cast<int64_t>(std::numeric_limits<S>::min()) && hi[c] >= static_cast<int64_t>(std::numeric_limits<S>::max());
  const ptrdiff_t step = in.pixel_stride;
  if (step == static_cast<ptrdiff_t>(sizeof(S)))
    return whole ? convert_ict_samples<S, true, true>(src[0], src[1], src[2], step, in.width, offset, lo, hi, out[0], out[1], out[2])
                 : convert_ict_samples<S, true, false>(src[0], src[1], src[2], step, in.width, offset, lo, hi, out[0], out[1], out[2]);
  return whole ? convert_ict_samples<S, false, true>(src[0], src[1], src[2], step, in.width, offset, lo, hi, out[0], out[1], out[2])
               : convert_ict_samples<S, false, false>(src[0], src[1], src[2], step, in.width, offset, lo, hi, out[0], out[1], out[2]);
}

// Row y of components 0..2 (one_ict_pass) shifted, converted to float and decorrelated.
bool convert_ict_row(const TileSamples& tile, int64_t y, float* const* out) {
  switch (tile.in[0].type) {
    case J2K_SAMPLE_U8: return convert_ict<uint8_t>(tile, y, out);
    case J2K_SAMPLE_I8: return convert_ict<int8_t>(tile, y, out);
    case J2K_SAMPLE_U16: return convert_ict<uint16_t>(tile, y, out);
    case J2K_SAMPLE_I16: return convert_ict<int16_t>(tile, y, out);
    case J2K_SAMPLE_U32: return convert_ict<uint32_t>(tile, y, out);
    case J2K_SAMPLE_I32: return convert_ict<int32_t>(tile, y, out);
    case J2K_SAMPLE_F32: break;
  }
  throw Error(ErrorCode::Internal, "shift_mct: not a sample type");
}

// convert_row compiled again for AVX2 (flatten: the sample loops inlined into it), chosen at
// run time on a CPU that has it: 8 samples a vector and the clamp as one vpminsd and vpmaxsd,
// where SSE2 has no 32-bit min and max (its compares and blends were most of the row's
// instructions in a one-thread lossy compress of 8-bit RGB). The same integers, so the same
// values.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
template <class D>
__attribute__((target("avx2"), flatten)) bool convert_row_avx2(const TileSamples& tile, size_t c, int64_t y, D* out) {
  return convert_row<D>(tile, c, y, out);
}
__attribute__((target("avx2"), flatten)) bool convert_ict_row_avx2(const TileSamples& tile, int64_t y, float* const* out) {
  return convert_ict_row(tile, y, out);
}
bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

template <class D>
bool convert_row_fastest(const TileSamples& tile, size_t c, int64_t y, D* out) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (has_avx2()) return convert_row_avx2<D>(tile, c, y, out);
#endif
  return convert_row<D>(tile, c, y, out);
}

bool convert_ict_row_fastest(const TileSamples& tile, int64_t y, float* const* out) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (has_avx2()) return convert_ict_row_avx2(tile, y, out);
#endif
  return convert_ict_row(tile, y, out);
}

template <class D>
bool run(const TileSamples& tile, const std::vector<Plane>& out, int threads) {
  const auto nc = static_cast<int>(tile.in.size());
  const int64_t h = nc ? tile.in[0].height : 0;
  std::atomic<bool> ok{true};
  // Rows in chunks: enough work per item to pay for the scheduling; a small tile on one thread
  // (waking a team costs more than converting it).
  constexpr int64_t kRows = 16;
  const int64_t samples = nc ? tile.in[0].width * h * nc : 0;
  if (samples < (int64_t{1} << 16)) threads = 1;
  const bool ict_pass = std::is_same_v<D, float> && one_ict_pass(tile);
  parallel_for(static_cast<ptrdiff_t>((h + kRows - 1) / kRows), threads, [&](ptrdiff_t chunk) {
    bool chunk_ok = true;
    for (int64_t y = chunk * kRows; y < std::min(h, (chunk + 1) * kRows); ++y) {
      for (int c = ict_pass ? 3 : 0; c < nc; ++c) {
        if (tile.in[c].height != h) continue;  // a subsampled component: its own loop below
        chunk_ok &= convert_row_fastest(tile, static_cast<size_t>(c), y, row_of<D>(out[c], y));
      }
      if constexpr (std::is_same_v<D, float>) {
        if (ict_pass) {
          float* const rows[3] = {row_of<float>(out[0], y), row_of<float>(out[1], y), row_of<float>(out[2], y)};
          chunk_ok &= convert_ict_row_fastest(tile, y, rows);
          continue;
        }
      }
      if (tile.mct) {
        if constexpr (std::is_same_v<D, int32_t>)
          rct_forward(row_of<D>(out[0], y), row_of<D>(out[1], y), row_of<D>(out[2], y), static_cast<size_t>(out[0].width));
        else
          ict_forward(row_of<D>(out[0], y), row_of<D>(out[1], y), row_of<D>(out[2], y), static_cast<size_t>(out[0].width));
      }
    }
    if (!chunk_ok) ok = false;
  });
  // Components of another height (subsampled; never part of the MCT).
  for (int c = 0; c < nc; ++c) {
    if (tile.in[c].height == h) continue;
    parallel_for(static_cast<ptrdiff_t>(tile.in[c].height), threads, [&](ptrdiff_t y) {
      if (!convert_row_fastest(tile, static_cast<size_t>(c), y, row_of<D>(out[c], y))) ok = false;
    });
  }
  return ok;
}

}  // namespace

bool shift_mct(const TileSamples& tile, Wavelet wavelet, const std::vector<Plane>& out, int threads) {
  return wavelet == Wavelet::Reversible53 ? run<int32_t>(tile, out, threads)
                                          : run<float>(tile, out, threads);
}

}  // namespace j2k::cpu
