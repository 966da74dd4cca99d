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

// Two lift_pair sweeps in one: A then B from the sources into the destinations (as
// lift_pair), then A again and B again in place there (the forward 9/7's alpha, beta, gamma
// and delta), each step's element computed as soon as its neighbours from the step before
// are. With offA + offB = -1: step 1's A[k] at iteration k; step 2's B[m] at k = m + offB + 1
// (as lift_pair); step 3's A[i] at k = i + 1, when step 2's B[i + offA + 1] is there; step
// 4's B[m] at k = m + offB + 2, when step 3's A[m + offB + 1] is. In one iteration the steps
// run in order 1..4, so no step reads an element after a later step has rewritten it in
// place: step 2 reads A[j] last at k = j + 1, when step 3 rewrites it after; step 3 reads
// B[j] last at k = j + offB + 2, when step 4 rewrites it after; the neighbours clamped at
// either end are read no later (at the end na <= nb + offB + 1 and nb <= na - offB, both
// directions' counts). Every value comes from the same operations on the same operands as
// two lift_pair sweeps give it, so the same bits, and the strip passes through the cache
// once less.
template <size_t kLanes, class T, class SrcA, class SrcB, class DstA, class DstB, class OpA1, class OpB1, class OpA2,
          class OpB2>
inline void lift_two_pairs(SrcA srcA, DstA dstA, ptrdiff_t na, ptrdiff_t offA, SrcB srcB, DstB dstB, ptrdiff_t nb,
                           ptrdiff_t offB, OpA1 opA1, OpB1 opB1, OpA2 opA2, OpB2 opB2, size_t lanes_at_run_time) {
  const size_t lanes = kLanes ? kLanes : lanes_at_run_time;
  auto cb = [&](ptrdiff_t i) { return std::min(std::max(i, ptrdiff_t{0}), nb - 1); };
  auto ca = [&](ptrdiff_t i) { return std::min(std::max(i, ptrdiff_t{0}), na - 1); };
  auto step = [&](const T* s, const T* l, const T* r, T* d, auto op) {
#pragma omp simd  // d may equal s (in place), element by element: no loop-carried dependence
    for (size_t x = 0; x < lanes; ++x) d[x] = op(s[x], l[x], r[x]);
  };
  auto prefetch = [&](const T* p) { prefetch_row(p, lanes); };
  // The iteration of each step's first element (steps 2..4 lag behind step 1), and the last.
  const ptrdiff_t lag2 = offB + 1, lag3 = 1, lag4 = offB + 2;
  const ptrdiff_t last = std::max(std::max(na - 1, nb - 1 + lag2), std::max(na - 1 + lag3, nb - 1 + lag4));
  for (ptrdiff_t k = 0; k <= last; ++k) {
    if (k < na) {
      if (k + kAhead < na) {
        prefetch(srcA(k + kAhead));
        prefetch(srcB(cb(k + kAhead + offA + 1)));
      }
      step(srcA(k), srcB(cb(k + offA)), srcB(cb(k + offA + 1)), dstA(k), opA1);
    }
    const ptrdiff_t m2 = k - lag2;
    if (m2 >= 0 && m2 < nb) step(srcB(m2), dstA(ca(m2 + offB)), dstA(ca(m2 + offB + 1)), dstB(m2), opB1);
    const ptrdiff_t i3 = k - lag3;
    if (i3 >= 0 && i3 < na) step(dstA(i3), dstB(cb(i3 + offA)), dstB(cb(i3 + offA + 1)), dstA(i3), opA2);
    const ptrdiff_t m4 = k - lag4;
    if (m4 >= 0 && m4 < nb) step(dstB(m4), dstA(ca(m4 + offB)), dstA(ca(m4 + offB + 1)), dstB(m4), opB2);
  }
}

}  // namespace j2k::cpu
