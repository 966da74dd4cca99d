// SPDX-License-Identifier: BSD-2-Clause
// Lifting on a column strip, one row segment ("element") of `lanes` values at a time, with
// two lifting steps fused into one top-down sweep. Used by the vertical pass so that each
// strip is read from the image once and written back once; the separate-step form in
// lifting.hpp remains the readable statement of the same arithmetic.
//
// A sweep updates array A (na elements) from its neighbours in B, then B (nb elements) from
// the updated A:
//   A[k] = opA(A[k], B[k+offA], B[k+offA+1]),  B[m] = opB(B[m], A'[m+offB], A'[m+offB+1])
// with out-of-range neighbour indices clamped (symmetric extension, see lifting.hpp). B[m]
// needs A'[m+offB+1], so it is computed in the same loop, one step behind: at k = m+offB+1.
// This never reads a B element that is already updated, because offA + offB = -1 and
// na <= nb + offB + 1 for both the forward (A = H, offA = -cas; B = L, offB = cas-1) and
// the inverse (A = L, offA = cas-1; B = H, offB = -cas) steps.
#pragma once
#include <algorithm>
#include <cstddef>

namespace j2k::cpu {

// Rows of a strip lie a whole image row apart, so each is on its own page, where the hardware
// prefetcher stops: sweeps fetch the rows kAhead iterations ahead by hand (measured: 5/3
// forward 4096^2 from ~60 to ~50 ms on one thread).
constexpr ptrdiff_t kAhead = 6;

template <class T>
inline void prefetch_row(const T* p, size_t lanes, bool for_write = false) {
  for (size_t x = 0; x < lanes; x += 64 / sizeof(T)) {
    if (for_write) __builtin_prefetch(p + x, 1);
    else __builtin_prefetch(p + x);
  }
}

// Source and destination of each array are row accessors (index -> T*), so a sweep can read
// straight from the image and write to scratch, or work in place (src == dst).
template <size_t kLanes, class T, class SrcA, class DstA, class SrcB, class DstB, class OpA, class OpB>
inline void lift_pair(SrcA srcA, DstA dstA, ptrdiff_t na, ptrdiff_t offA, OpA opA, SrcB srcB,
                      DstB dstB, ptrdiff_t nb, ptrdiff_t offB, OpB opB, size_t lanes_at_run_time) {
  const size_t lanes = kLanes ? kLanes : lanes_at_run_time;
  auto cb = [&](ptrdiff_t i) { return std::min(std::max(i, ptrdiff_t{0}), nb - 1); };
  auto ca = [&](ptrdiff_t i) { return std::min(std::max(i, ptrdiff_t{0}), na - 1); };
  auto update_b = [&](ptrdiff_t m) {
    const T* s = srcB(m);
    const T* l = dstA(ca(m + offB));
    const T* r = dstA(ca(m + offB + 1));
    T* d = dstB(m);
#pragma omp simd  // d may equal s (in place), element by element: no loop-carried dependence
    for (size_t x = 0; x < lanes; ++x) d[x] = opB(s[x], l[x], r[x]);
  };
  auto prefetch = [&](const T* p) { prefetch_row(p, lanes); };
  for (ptrdiff_t k = 0; k < na; ++k) {
    if (k + kAhead < na) {
      prefetch(srcA(k + kAhead));
      prefetch(srcB(cb(k + kAhead + offA + 1)));
    }
    const T* s = srcA(k);
    const T* l = srcB(cb(k + offA));
    const T* r = srcB(cb(k + offA + 1));
    T* d = dstA(k);
#pragma omp simd
    for (size_t x = 0; x < lanes; ++x) d[x] = opA(s[x], l[x], r[x]);
    const ptrdiff_t m = k - offB - 1;
    if (m >= 0 && m < nb) update_b(m);
  }
  for (ptrdiff_t m = std::max(na - offB - 1, ptrdiff_t{0}); m < nb; ++m) update_b(m);
}

}  // namespace j2k::cpu
