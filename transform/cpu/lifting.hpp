// SPDX-License-Identifier: BSD-2-Clause
// Lifting steps on a deinterleaved signal, the readable core of the CPU reference.
//
// A signal of n >= 2 samples whose first sample has canvas parity `cas` is held as
// L[0..sn) (samples at even canvas coordinates, low-pass) and H[0..dn) (odd, high-pass).
// Low j sits at interleaved position 2j+cas, high i at 2i+1-cas, so the neighbours are
//   of high i:  L[i - cas], L[i + 1 - cas]
//   of low j:   H[j - 1 + cas], H[j + cas]
// Whole-sample symmetric extension (x[-1] = x[1], x[n] = x[n-2]) mirrors a missing neighbour
// onto the existing one on the other side, which in these index terms is a clamp to the
// valid range. That one rule covers every parity and every length >= 2.
//
// Each "element" is a group of `lanes` consecutive values: lanes = 1 for a row, lanes = strip
// width for the vertical pass, where one element is a row segment of a column strip.
#pragma once
#include "transform/common/constants.hpp"
#include "transform/common/int_wrap.hpp"
#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace j2k::cpu {

// dst[i] = op(self[i], src[clamp(i+off)], src[clamp(i+off+1)]) for i in [0, ndst): a step
// whose output lands apart from its input (self == dst: in place). kLanes != 0 fixes the lane
// count at compile time (full vertical strips), so the lane loop becomes straight vector code;
// kLanes == 0 takes `lanes` at run time.
template <size_t kLanes = 0, class T, class Op>
inline void lift_into(T* dst, const T* self, ptrdiff_t ndst, const T* src, ptrdiff_t nsrc, ptrdiff_t off,
                      size_t lanes_at_run_time, Op op) {
  const size_t lanes = kLanes ? kLanes : lanes_at_run_time;
  const ptrdiff_t last = nsrc - 1;
  auto at = [&](ptrdiff_t k) { return std::min(std::max(k, ptrdiff_t{0}), last); };
  // Interior: both neighbours in range, no clamps, so the compiler can vectorize.
  const ptrdiff_t lo = std::min(std::max(-off, ptrdiff_t{0}), ndst);
  const ptrdiff_t hi = std::max(std::min(last - off, ndst), lo);  // i+off+1 <= last
  auto edge = [&](ptrdiff_t i) {
    const T* a = src + at(i + off) * static_cast<ptrdiff_t>(lanes);
    const T* b = src + at(i + off + 1) * static_cast<ptrdiff_t>(lanes);
    T* d = dst + i * static_cast<ptrdiff_t>(lanes);
    const T* x = self + i * static_cast<ptrdiff_t>(lanes);
    for (size_t l = 0; l < lanes; ++l) d[l] = op(x[l], a[l], b[l]);
  };
  for (ptrdiff_t i = 0; i < lo; ++i) edge(i);
  if (lanes == 1) {
    for (ptrdiff_t i = lo; i < hi; ++i) dst[i] = op(self[i], src[i + off], src[i + off + 1]);
  } else {
    for (ptrdiff_t i = lo; i < hi; ++i) {
      const T* a = src + (i + off) * static_cast<ptrdiff_t>(lanes);
      const T* b = a + lanes;
      T* d = dst + i * static_cast<ptrdiff_t>(lanes);
      const T* x = self + i * static_cast<ptrdiff_t>(lanes);
      for (size_t l = 0; l < lanes; ++l) d[l] = op(x[l], a[l], b[l]);
    }
  }
  for (ptrdiff_t i = hi; i < ndst; ++i) edge(i);
}

// The step in place: dst[i] = op(dst[i], ...).
template <size_t kLanes = 0, class T, class Op>
inline void lift(T* dst, ptrdiff_t ndst, const T* src, ptrdiff_t nsrc, ptrdiff_t off, size_t lanes_at_run_time, Op op) {
  lift_into<kLanes>(dst, dst, ndst, src, nsrc, off, lanes_at_run_time, op);
}

template <class T>
inline void scale(T* x, ptrdiff_t n, size_t lanes, T factor) {
  const ptrdiff_t total = n * static_cast<ptrdiff_t>(lanes);  // one flat loop: no lane split
  for (ptrdiff_t k = 0; k < total; ++k) x[k] = x[k] * factor;
}

// ---- reversible 5/3 (ISO/IEC 15444-1 F.3.8.2, F.4.8.2); >> is floor on int32; sums wrap
// (int_wrap.hpp) ----

struct Predict53 {
  int32_t operator()(int32_t d, int32_t a, int32_t b) const { return wrap_sub(d, wrap_add(a, b) >> 1); }
};
struct Update53 {
  int32_t operator()(int32_t s, int32_t a, int32_t b) const { return wrap_add(s, wrap_add(wrap_add(a, b), 2) >> 2); }
};
struct UnPredict53 {
  int32_t operator()(int32_t d, int32_t a, int32_t b) const { return wrap_add(d, wrap_add(a, b) >> 1); }
};
struct UnUpdate53 {
  int32_t operator()(int32_t s, int32_t a, int32_t b) const { return wrap_sub(s, wrap_add(wrap_add(a, b), 2) >> 2); }
};

template <size_t kLanes = 0>
inline void forward53(int32_t* L, ptrdiff_t sn, int32_t* H, ptrdiff_t dn, int cas,
                      size_t lanes) {
  lift<kLanes>(H, dn, L, sn, -cas, lanes, Predict53{});
  lift<kLanes>(L, sn, H, dn, cas - 1, lanes, Update53{});
}

template <size_t kLanes = 0>
inline void inverse53(int32_t* L, ptrdiff_t sn, int32_t* H, ptrdiff_t dn, int cas,
                      size_t lanes) {
  lift<kLanes>(L, sn, H, dn, cas - 1, lanes, UnUpdate53{});
  lift<kLanes>(H, dn, L, sn, -cas, lanes, UnPredict53{});
}

// The same from a signal whose halves lie elsewhere (low, high; left as they are): each step
// reads them where they lie instead of a copy of them in L and H first.
inline void inverse53_from(const int32_t* low, const int32_t* high, int32_t* L, ptrdiff_t sn, int32_t* H, ptrdiff_t dn,
                           int cas) {
  lift_into(L, low, sn, high, dn, cas - 1, 1, UnUpdate53{});
  lift_into(H, high, dn, L, sn, -cas, 1, UnPredict53{});
}

// ---- irreversible 9/7 (F.4.8.2), float32, every operation rounded separately ----
// This file must be compiled with floating-point contraction off (-ffp-contract=off):
// a fused multiply-add changes the bits that OpenJPEG produces.

struct Lift97 {
  float c;
  float operator()(float x, float a, float b) const {
    float t = a + b;
    t = t * c;
    return x + t;
  }
};

// Lift97 on a value still to be scaled (x * scale, rounded, then the step): the inverse's
// scaling and its first step in one sweep, each value as the two apart.
struct ScaledLift97 {
  float scale, c;
  float operator()(float x, float a, float b) const {
    const float s = x * scale;
    float t = a + b;
    t = t * c;
    return s + t;
  }
};

// ScaledLift97 whose neighbours are scaled too (a * scale_ab, b * scale_ab, each rounded):
// the inverse's first step read from a high half not yet scaled, as the two apart.
struct ScaledBothLift97 {
  float scale, scale_ab, c;
  float operator()(float x, float a, float b) const {
    const float s = x * scale;
    float t = a * scale_ab + b * scale_ab;
    t = t * c;
    return s + t;
  }
};

using constants::kAlpha;
using constants::kBeta;
using constants::kGamma;
using constants::kDelta;
using constants::kK;
using constants::kInvK;

template <size_t kLanes = 0>
inline void forward97(float* L, ptrdiff_t sn, float* H, ptrdiff_t dn, int cas, size_t lanes) {
  lift<kLanes>(H, dn, L, sn, -cas, lanes, Lift97{kAlpha});
  lift<kLanes>(L, sn, H, dn, cas - 1, lanes, Lift97{kBeta});
  lift<kLanes>(H, dn, L, sn, -cas, lanes, Lift97{kGamma});
  lift<kLanes>(L, sn, H, dn, cas - 1, lanes, Lift97{kDelta});
  scale(L, sn, lanes, kInvK);
  scale(H, dn, lanes, kK);
}

// The inverse's lifting steps alone, on a signal already scaled (inverse97's first two steps).
template <size_t kLanes = 0>
inline void inverse97_lifts(float* L, ptrdiff_t sn, float* H, ptrdiff_t dn, int cas, size_t lanes) {
  lift<kLanes>(L, sn, H, dn, cas - 1, lanes, Lift97{-kDelta});
  lift<kLanes>(H, dn, L, sn, -cas, lanes, Lift97{-kGamma});
  lift<kLanes>(L, sn, H, dn, cas - 1, lanes, Lift97{-kBeta});
  lift<kLanes>(H, dn, L, sn, -cas, lanes, Lift97{-kAlpha});
}

template <size_t kLanes = 0>
inline void inverse97(float* L, ptrdiff_t sn, float* H, ptrdiff_t dn, int cas, size_t lanes, float high = kInvK) {
  scale(L, sn, lanes, kK);
  scale(H, dn, lanes, high);
  inverse97_lifts<kLanes>(L, sn, H, dn, cas, lanes);
}

// A signal of one sample (Annex F, 1D_SD / 1D_SR): unchanged at an even coordinate,
// doubled at an odd one (a lone high-pass sample). The inverse halves it (the 9/7's: scales
// it by Inverse97Scale::lone); for the 5/3 with C's truncating division, as OpenJPEG's
// decoder does.
inline int32_t forward_single(int32_t x, int cas) { return cas ? x * 2 : x; }
inline float forward_single(float x, int cas) { return cas ? x * 2.0f : x; }
inline int32_t inverse_single(int32_t x, int cas, float /*lone*/) { return cas ? x / 2 : x; }
inline float inverse_single(float x, int cas, float lone) { return cas ? x * lone : x; }

// Low and high counts of a signal of n samples starting at parity cas.
inline ptrdiff_t low_count(ptrdiff_t n, int cas) { return (n + (cas == 0 ? 1 : 0)) >> 1; }

}  // namespace j2k::cpu
