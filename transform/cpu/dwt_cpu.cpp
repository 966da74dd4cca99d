// SPDX-License-Identifier: BSD-2-Clause
// 2-D multi-level DWT on the CPU. One level = vertical pass over every column, then
// horizontal pass over every row (OpenJPEG's order; for the integer 5/3 the order changes
// the result). Each pass deinterleaves into a scratch buffer, lifts there, and writes the
// low half first, which yields the pyramid layout.
#include "transform/cpu/dwt_cpu.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "transform/dwt.hpp"
#include "transform/cpu/lifting.hpp"
#include "transform/cpu/row_interleave.hpp"
#include "transform/cpu/strip_lifting.hpp"
#include "common/parallel/parallel_for.hpp"

namespace j2k::cpu {
namespace {

// Columns per vertical strip. Each row of a strip is a separate page once rows are longer
// than 4 KB, so a strip pays a TLB miss per row: 64 columns (256 bytes, 4 cache lines) per
// miss measured 1.5x faster than 16 at 4096^2; the scratch (height x 64 values) still fits L2.
constexpr size_t kStripLanes = 64;
constexpr ptrdiff_t kStrip = static_cast<ptrdiff_t>(kStripLanes);

// Below this many samples a pass runs on one thread: waking a team costs more than it saves.
constexpr ptrdiff_t kParallelMin = 32 * 1024;

// Horizontal rows use the step-by-step lifting of lifting.hpp (a row sits in L1).
template <class T>
struct RowLifting;

// inverse_into() takes a row whose low and high halves lie apart from `out` and leaves it
// inverse lifted and interleaved in `out`, L (then H) the scratch; inverse_in_place() the same
// with the row as it lies (L then H, pyramid order) and as its own output. Each ends with the
// last lifting step and the interleave in one sweep (row_interleave.hpp).
template <>
struct RowLifting<int32_t> {
  static void forward(int32_t* L, ptrdiff_t sn, int32_t* H, ptrdiff_t dn, int cas) { forward53(L, sn, H, dn, cas, 1); }
  // The last step reads H where it lies.
  static void inverse_into(const int32_t* low, const int32_t* high, int32_t* out, ptrdiff_t sn, ptrdiff_t dn, int cas,
                           int32_t* L, const Inverse97Scale&) {
    lift_into(L, low, sn, high, dn, cas - 1, 1, UnUpdate53{});
    lift_last_interleaved(L, sn, high, dn, cas, out);
  }
  // The high half copied to the scratch first: the interleave overwrites it in the row.
  static void inverse_in_place(int32_t* row, ptrdiff_t sn, ptrdiff_t dn, int cas, int32_t* L, const Inverse97Scale& k) {
    int32_t* H = L + sn;
    std::memcpy(H, row + sn, static_cast<size_t>(dn) * sizeof(int32_t));
    inverse_into(row, H, row, sn, dn, cas, L, k);
  }
};

template <>
struct RowLifting<float> {
  static void forward(float* L, ptrdiff_t sn, float* H, ptrdiff_t dn, int cas) { forward97(L, sn, H, dn, cas, 1); }
  // inverse97's scaling folded into the first two steps: L's and its neighbours' in the first
  // (ScaledBothLift97, from the high half as it lies), H's in the second on its way into the
  // scratch (ScaledLift97), each value scaled as it would be alone (a sweep of H's scaling
  // saved); every value of the row read before `out` is written.
  static void inverse_into(const float* low, const float* high, float* out, ptrdiff_t sn, ptrdiff_t dn, int cas, float* L,
                           const Inverse97Scale& k) {
    float* H = L + sn;
    lift_into(L, low, sn, high, dn, cas - 1, 1, ScaledBothLift97{kK, k.high, -kDelta});
    lift_into(H, high, dn, L, sn, -cas, 1, ScaledLift97{k.high, -kGamma});
    lift(L, sn, H, dn, cas - 1, 1, Lift97{-kBeta});
    lift_last_interleaved(L, sn, H, dn, cas, out);
  }
  static void inverse_in_place(float* row, ptrdiff_t sn, ptrdiff_t dn, int cas, float* L, const Inverse97Scale& k) {
    inverse_into(row, row + sn, row, sn, dn, cas, L, k);
  }
};

// One column strip of the vertical pass. The image rows of the strip are addressed in their
// interleaved order (imgL(j) = row 2j+cas, imgH(i) = row 2i+1-cas) or their pyramid order
// (row j, row sn+i); scratch holds the strip's L rows then its H rows, which is exactly the
// pyramid order, so moving between scratch and image is one copy per row.
template <class T, size_t kLanes>
struct Strip {
  T* data;
  ptrdiff_t stride, x0;
  size_t lanes;
  ptrdiff_t h, sn, dn;
  int cas;
  T* scratch;
  Inverse97Scale scale;  // the inverse 9/7's

  T* row(ptrdiff_t y) const { return data + y * stride + x0; }
  auto imgL() const { return [this](ptrdiff_t j) { return row(2 * j + cas); }; }
  auto imgH() const { return [this](ptrdiff_t i) { return row(2 * i + 1 - cas); }; }
  auto sL() const { return [this](ptrdiff_t j) { return scratch + j * static_cast<ptrdiff_t>(lanes); }; }
  auto sH() const { return [this](ptrdiff_t i) { return scratch + (sn + i) * static_cast<ptrdiff_t>(lanes); }; }

  // Forward steps "H from L, then L from H" and inverse steps "L from H, then H from L".
  template <class SA, class DA, class SB, class DB, class OpH, class OpL>
  void forward_pair(SA sh, DA dh, SB sl, DB dl, OpH op_h, OpL op_l) const {
    lift_pair<kLanes, T>(sh, dh, dn, -cas, op_h, sl, dl, sn, cas - 1, op_l, lanes);
  }
  // The forward 9/7's four steps (H, L, H, L) from the image into scratch in one sweep.
  template <class OpH1, class OpL1, class OpH2, class OpL2>
  void forward_two_pairs(OpH1 h1, OpL1 l1, OpH2 h2, OpL2 l2) const {
    lift_two_pairs<kLanes, T>(imgH(), sH(), dn, -cas, imgL(), sL(), sn, cas - 1, h1, l1, h2, l2, lanes);
  }
  template <class SA, class DA, class SB, class DB, class OpL, class OpH>
  void inverse_pair(SA sl, DA dl, SB sh, DB dh, OpL op_l, OpH op_h) const {
    lift_pair<kLanes, T>(sl, dl, sn, cas - 1, op_l, sh, dh, dn, -cas, op_h, lanes);
  }

  // scratch -> image rows 0..h-1 (pyramid order), scaling L and H rows; and back.
  void store(T scale_l, T scale_h) const {
    for (ptrdiff_t y = 0; y < h; ++y) {
      if (y + kAhead < h) prefetch_row(row(y + kAhead), lanes, /*for_write=*/true);
      const T* s = scratch + y * static_cast<ptrdiff_t>(lanes);
      T* d = row(y);
      const T f = y < sn ? scale_l : scale_h;
#pragma omp simd
      for (size_t x = 0; x < lanes; ++x) d[x] = s[x] * f;
    }
  }
  void load(T scale_l, T scale_h) const {
    for (ptrdiff_t y = 0; y < h; ++y) {
      if (y + kAhead < h) prefetch_row(row(y + kAhead), lanes);
      const T* s = row(y);
      T* d = scratch + y * static_cast<ptrdiff_t>(lanes);
      const T f = y < sn ? scale_l : scale_h;
#pragma omp simd
      for (size_t x = 0; x < lanes; ++x) d[x] = s[x] * f;
    }
  }
};

// 5/3: one fused sweep from the image into scratch, then one copy back (and the reverse).
template <size_t kLanes>
void strip_forward(const Strip<int32_t, kLanes>& s) {
  s.forward_pair(s.imgH(), s.sH(), s.imgL(), s.sL(), Predict53{}, Update53{});
  s.store(1, 1);
}
template <size_t kLanes>
void strip_inverse(const Strip<int32_t, kLanes>& s) {
  s.load(1, 1);
  s.inverse_pair(s.sL(), s.imgL(), s.sH(), s.imgH(), UnUpdate53{}, UnPredict53{});
}

// 9/7: alpha, beta, gamma and delta from the image into scratch in one sweep, scaled copy
// back (the inverse: the scaling into scratch, delta+gamma there, beta+alpha into the image).
template <size_t kLanes>
void strip_forward(const Strip<float, kLanes>& s) {
  s.forward_two_pairs(Lift97{kAlpha}, Lift97{kBeta}, Lift97{kGamma}, Lift97{kDelta});
  s.store(kInvK, kK);
}
template <size_t kLanes>
void strip_inverse(const Strip<float, kLanes>& s) {
  s.load(kK, s.scale.high);
  s.inverse_pair(s.sL(), s.sL(), s.sH(), s.sH(), Lift97{-kDelta}, Lift97{-kGamma});
  s.inverse_pair(s.sL(), s.imgL(), s.sH(), s.imgH(), Lift97{-kBeta}, Lift97{-kAlpha});
}

template <bool kForward, class T, size_t kLanes>
void run_strip(const Strip<T, kLanes>& s) {
  if (kForward) strip_forward(s);
  else strip_inverse(s);
}


// Vertical pass on the top-left w x h block, one column strip per task. forward: rows at
// parity-interleaved positions go to [0, sn) (low) and [sn, h) (high); inverse: the reverse.
// Worker `worker`'s slice of the scratch: worker_count(threads) slices of `per_thread`.
template <class T>
T* worker_scratch(const Scratch<T>& s, int worker) {
  return s.data + static_cast<size_t>(worker) * s.per_thread;
}

// One column strip of the vertical pass. The loop bodies of both passes are functions of their
// own, with the geometry as parameters: locals that the stores into the data cannot alias
// (captured by a lambda, `cas` would be reloaded after every int32 store).
template <class T, bool kForward>
void vertical_strip(T* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, ptrdiff_t sn, ptrdiff_t dn, int cas,
                    ptrdiff_t s, T* scratch, const Inverse97Scale& k) {
  const ptrdiff_t x0 = s * kStrip;
  const auto lanes = static_cast<size_t>(std::min(kStrip, w - x0));
  if (lanes == static_cast<size_t>(kStrip))
    run_strip<kForward>(Strip<T, kStripLanes>{data, stride, x0, lanes, h, sn, dn, cas, scratch, k});
  else
    run_strip<kForward>(Strip<T, 0>{data, stride, x0, lanes, h, sn, dn, cas, scratch, k});
}

// Rows [y0, y1) of the horizontal pass, L (then H) the thread's scratch.
template <class T, bool kForward>
void horizontal_rows(T* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t sn, ptrdiff_t dn, int cas, ptrdiff_t y0,
                     ptrdiff_t y1, T* L, const Inverse97Scale& k) {
  T* H = L + sn;
  for (ptrdiff_t y = y0; y < y1; ++y) {
    T* row = data + y * stride;
    if (kForward) {
      for (ptrdiff_t j = 0; j < sn; ++j) L[j] = row[2 * j + cas];
      for (ptrdiff_t i = 0; i < dn; ++i) H[i] = row[2 * i + 1 - cas];
      RowLifting<T>::forward(L, sn, H, dn, cas);
      std::memcpy(row, L, static_cast<size_t>(w) * sizeof(T));
    } else {
      RowLifting<T>::inverse_in_place(row, sn, dn, cas, L, k);
    }
  }
}

// One row of the inverse horizontal pass with its low half at `low` and its high half at
// `high` (horizontal() on a w > 1 row [low | high], and its w == 1 case), into `out`.
template <class T>
void inverse_split_row(const T* low, const T* high, T* out, ptrdiff_t w, int cas, T* L, const Inverse97Scale& k) {
  if (w == 1) {
    out[0] = inverse_single(cas == 0 ? low[0] : high[0], cas, k.lone);
    return;
  }
  const ptrdiff_t sn = low_count(w, cas), dn = w - sn;
  RowLifting<T>::inverse_into(low, high, out, sn, dn, cas, L, k);
}

// One row of the forward horizontal pass from `in` into its halves at `low` and `high`
// (horizontal() on one row, its w == 1 case included, with the halves written apart): the
// row deinterleaved straight into them and lifted there, no scratch and no copy after.
template <class T>
void forward_split_row(const T* in, T* low, T* high, ptrdiff_t w, int cas) {
  if (w == 1) {
    (cas == 0 ? low : high)[0] = forward_single(in[0], cas);
    return;
  }
  const ptrdiff_t sn = low_count(w, cas), dn = w - sn;
  for (ptrdiff_t j = 0; j < sn; ++j) low[j] = in[2 * j + cas];
  for (ptrdiff_t i = 0; i < dn; ++i) high[i] = in[2 * i + 1 - cas];
  RowLifting<T>::forward(low, sn, high, dn, cas);
}

// The two leaf functions compiled again for AVX2 (flatten: the lifting inlined into them), and
// chosen at run time on a CPU that has it: twice the lanes of the SSE2 baseline for the
// vertical pass's lifting and copies, and the horizontal pass's deinterleaving. The same
// operations on each value, in the same order (no FMA, no reassociation: -ffp-contract=off),
// so the same coefficients, bit for bit, 9/7 floats included.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define J2K_DWT_HAVE_AVX2 1
template <class T, bool kForward>
__attribute__((target("avx2"), flatten)) void vertical_strip_avx2(T* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h,
                                                                  ptrdiff_t sn, ptrdiff_t dn, int cas, ptrdiff_t s, T* scratch,
                                                                  const Inverse97Scale& k) {
  vertical_strip<T, kForward>(data, stride, w, h, sn, dn, cas, s, scratch, k);
}
template <class T, bool kForward>
__attribute__((target("avx2"), flatten)) void horizontal_rows_avx2(T* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t sn,
                                                                   ptrdiff_t dn, int cas, ptrdiff_t y0, ptrdiff_t y1, T* L,
                                                                   const Inverse97Scale& k) {
  horizontal_rows<T, kForward>(data, stride, w, sn, dn, cas, y0, y1, L, k);
}
template <class T>
__attribute__((target("avx2"), flatten)) void inverse_split_row_avx2(const T* low, const T* high, T* out, ptrdiff_t w, int cas,
                                                                     T* L, const Inverse97Scale& k) {
  inverse_split_row<T>(low, high, out, w, cas, L, k);
}
template <class T>
__attribute__((target("avx2"), flatten)) void forward_split_row_avx2(const T* in, T* low, T* high, ptrdiff_t w, int cas) {
  forward_split_row<T>(in, low, high, w, cas);
}
bool has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

// The inverse's two leaf functions once more for AVX-512 (F, VL, BW, DQ), vectors of 512 bits
// where the compiler would stay at 256: on the H200 machine's cores a one-thread HT decode was
// 2% to 7% faster with them (on the development machine's, the same time). The same
// operations on each value again, so the same coefficients.
#if defined(__clang__)
#define J2K_DWT_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2"), min_vector_width(512), flatten))
#else
#define J2K_DWT_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,prefer-vector-width=512"), flatten))
#endif
template <class T>
J2K_DWT_AVX512 void vertical_strip_inverse_avx512(T* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, ptrdiff_t sn,
                                                  ptrdiff_t dn, int cas, ptrdiff_t s, T* scratch, const Inverse97Scale& k) {
  vertical_strip<T, false>(data, stride, w, h, sn, dn, cas, s, scratch, k);
}
template <class T>
J2K_DWT_AVX512 void inverse_split_row_avx512(const T* low, const T* high, T* out, ptrdiff_t w, int cas, T* L,
                                             const Inverse97Scale& k) {
  inverse_split_row<T>(low, high, out, w, cas, L, k);
}
bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
  return yes;
}
#else
#define J2K_DWT_HAVE_AVX2 0
#endif

// The build of each leaf function this CPU runs best.
template <class T, bool kForward>
void vertical_strip_fastest(T* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, ptrdiff_t sn, ptrdiff_t dn, int cas,
                            ptrdiff_t s, T* scratch, const Inverse97Scale& k) {
#if J2K_DWT_HAVE_AVX2
  if (!kForward && has_avx512()) return vertical_strip_inverse_avx512<T>(data, stride, w, h, sn, dn, cas, s, scratch, k);
  if (has_avx2()) return vertical_strip_avx2<T, kForward>(data, stride, w, h, sn, dn, cas, s, scratch, k);
#endif
  vertical_strip<T, kForward>(data, stride, w, h, sn, dn, cas, s, scratch, k);
}
template <class T, bool kForward>
void horizontal_rows_fastest(T* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t sn, ptrdiff_t dn, int cas, ptrdiff_t y0,
                             ptrdiff_t y1, T* L, const Inverse97Scale& k) {
#if J2K_DWT_HAVE_AVX2
  if (has_avx2()) return horizontal_rows_avx2<T, kForward>(data, stride, w, sn, dn, cas, y0, y1, L, k);
#endif
  horizontal_rows<T, kForward>(data, stride, w, sn, dn, cas, y0, y1, L, k);
}

template <class T>
void inverse_split_row_fastest(const T* low, const T* high, T* out, ptrdiff_t w, int cas, T* L, const Inverse97Scale& k) {
#if J2K_DWT_HAVE_AVX2
  if (has_avx512()) return inverse_split_row_avx512<T>(low, high, out, w, cas, L, k);
  if (has_avx2()) return inverse_split_row_avx2<T>(low, high, out, w, cas, L, k);
#endif
  inverse_split_row<T>(low, high, out, w, cas, L, k);
}

template <class T>
void forward_split_row_fastest(const T* in, T* low, T* high, ptrdiff_t w, int cas) {
#if J2K_DWT_HAVE_AVX2
  if (has_avx2()) return forward_split_row_avx2<T>(in, low, high, w, cas);
#endif
  forward_split_row<T>(in, low, high, w, cas);
}

template <class T, bool kForward>
void vertical(T* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas,
              int threads, const Scratch<T>& scr, const Inverse97Scale& k) {
  if (w == 0 || h == 0) return;
  if (h == 1) {
    for (ptrdiff_t x = 0; x < w; ++x)
      data[x] = kForward ? forward_single(data[x], cas) : inverse_single(data[x], cas, k.lone);
    return;
  }
  const ptrdiff_t sn = low_count(h, cas), dn = h - sn;
  const ptrdiff_t strips = (w + kStrip - 1) / kStrip;
  // Small blocks on the calling thread, without waking a worker: that costs microseconds,
  // which dominates small tiles.
  if (strips == 1 || w * h < kParallelMin || worker_count(threads) == 1) {
    for (ptrdiff_t s = 0; s < strips; ++s) vertical_strip_fastest<T, kForward>(data, stride, w, h, sn, dn, cas, s, scr.data, k);
    return;
  }
  // One strip an item, claimed dynamically: a worker the OS delays holds up one strip only.
  run_on_workers(strips, worker_count(threads), [&](ptrdiff_t s, int worker) {
    vertical_strip_fastest<T, kForward>(data, stride, w, h, sn, dn, cas, s, worker_scratch(scr, worker), k);
  });
}

// Horizontal pass on the top-left w x h block, one row at a time.
template <class T, bool kForward>
void horizontal(T* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas,
                int threads, const Scratch<T>& scr, const Inverse97Scale& k) {
  if (w == 0 || h == 0) return;
  if (w == 1) {
    for (ptrdiff_t y = 0; y < h; ++y) {
      T& x = data[y * stride];
      x = kForward ? forward_single(x, cas) : inverse_single(x, cas, k.lone);
    }
    return;
  }
  const ptrdiff_t sn = low_count(w, cas), dn = w - sn;
  if (h == 1 || w * h < kParallelMin || worker_count(threads) == 1) {  // see vertical()
    horizontal_rows_fastest<T, kForward>(data, stride, w, sn, dn, cas, 0, h, scr.data, k);
    return;
  }
  constexpr ptrdiff_t kRows = 16;
  run_on_workers((h + kRows - 1) / kRows, worker_count(threads), [&](ptrdiff_t chunk, int worker) {
    const ptrdiff_t y = chunk * kRows;
    horizontal_rows_fastest<T, kForward>(data, stride, w, sn, dn, cas, y, std::min(h, y + kRows), worker_scratch(scr, worker), k);
  });
}

template <class T>
void forward(T* data, ptrdiff_t s, const DwtLevel* lv, int count, int threads, const Scratch<T>& scr) {
  for (int i = 0; i < count; ++i) {
    vertical<T, true>(data, s, lv[i].width, lv[i].height, lv[i].cas_y, threads, scr, kInverse97Standard);
    horizontal<T, true>(data, s, lv[i].width, lv[i].height, lv[i].cas_x, threads, scr, kInverse97Standard);
  }
}

template <class T>
void inverse(T* data, ptrdiff_t s, const DwtLevel* lv, int count, int threads, const Scratch<T>& scr,
             const Inverse97Scale& k = kInverse97Standard) {
  for (int i = count - 1; i >= 0; --i) {
    horizontal<T, false>(data, s, lv[i].width, lv[i].height, lv[i].cas_x, threads, scr, k);
    vertical<T, false>(data, s, lv[i].width, lv[i].height, lv[i].cas_y, threads, scr, k);
  }
}

// The allocating entry points: scratch for this call only.
template <class T>
void run_allocating(bool fwd, T* data, size_t stride, const Rect& tc, int levels, int threads,
                    const Inverse97Scale& k = kInverse97Standard) {
  const std::vector<DwtLevel> lvs = dwt_levels(tc, levels);
  const size_t per_thread = scratch_per_thread(tc);
  std::vector<T> buffer(per_thread * static_cast<size_t>(worker_count(threads)));
  const Scratch<T> scr{buffer.data(), per_thread};
  const auto s = static_cast<ptrdiff_t>(stride);
  if (fwd) forward(data, s, lvs.data(), static_cast<int>(lvs.size()), threads, scr);
  else inverse(data, s, lvs.data(), static_cast<int>(lvs.size()), threads, scr, k);
}

}  // namespace

std::string describe(int threads) {
  const int n = worker_count(threads);
  return "cpu (" + std::to_string(n) + (n == 1 ? " thread)" : " threads)");
}

size_t scratch_per_thread(const Rect& tc) {
  // Level 1 is the largest: a vertical strip of height x kStrip, or one row.
  return static_cast<size_t>(std::max(tc.height() * kStrip, tc.width()));
}

void dwt(j2k_direction direction, int32_t* data, ptrdiff_t stride, const DwtLevel* levels,
         int count, int threads, const Scratch<int32_t>& scratch) {
  if (direction == J2K_FORWARD) forward(data, stride, levels, count, threads, scratch);
  else inverse(data, stride, levels, count, threads, scratch);
}
void dwt(j2k_direction direction, float* data, ptrdiff_t stride, const DwtLevel* levels,
         int count, int threads, const Scratch<float>& scratch, const Inverse97Scale& scale) {
  if (direction == J2K_FORWARD) forward(data, stride, levels, count, threads, scratch);
  else inverse(data, stride, levels, count, threads, scratch, scale);
}

void inverse_row(const int32_t* low, const int32_t* high, int32_t* out, ptrdiff_t w, int cas, int32_t* scratch) {
  if (w > 0) inverse_split_row_fastest(low, high, out, w, cas, scratch, kInverse97Standard);
}
void inverse_row(const float* low, const float* high, float* out, ptrdiff_t w, int cas, float* scratch,
                 const Inverse97Scale& scale) {
  if (w > 0) inverse_split_row_fastest(low, high, out, w, cas, scratch, scale);
}
void inverse_vertical(int32_t* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads,
                      const Scratch<int32_t>& scratch) {
  vertical<int32_t, false>(data, stride, w, h, cas, threads, scratch, kInverse97Standard);
}
void inverse_vertical(float* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads,
                      const Scratch<float>& scratch, const Inverse97Scale& scale) {
  vertical<float, false>(data, stride, w, h, cas, threads, scratch, scale);
}

void forward_vertical(int32_t* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads,
                      const Scratch<int32_t>& scratch) {
  vertical<int32_t, true>(data, stride, w, h, cas, threads, scratch, kInverse97Standard);
}
void forward_vertical(float* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads,
                      const Scratch<float>& scratch) {
  vertical<float, true>(data, stride, w, h, cas, threads, scratch, kInverse97Standard);
}
void forward_row(const int32_t* in, int32_t* low, int32_t* high, ptrdiff_t w, int cas) {
  if (w > 0) forward_split_row_fastest(in, low, high, w, cas);
}
void forward_row(const float* in, float* low, float* high, ptrdiff_t w, int cas) {
  if (w > 0) forward_split_row_fastest(in, low, high, w, cas);
}

void forward53(int32_t* d, size_t stride, const Rect& tc, int levels, int threads) {
  run_allocating(true, d, stride, tc, levels, threads);
}
void inverse53(int32_t* d, size_t stride, const Rect& tc, int levels, int threads) {
  run_allocating(false, d, stride, tc, levels, threads);
}
void forward97(float* d, size_t stride, const Rect& tc, int levels, int threads) {
  run_allocating(true, d, stride, tc, levels, threads);
}
void inverse97(float* d, size_t stride, const Rect& tc, int levels, int threads, const Inverse97Scale& scale) {
  run_allocating(false, d, stride, tc, levels, threads, scale);
}

}  // namespace j2k::cpu
