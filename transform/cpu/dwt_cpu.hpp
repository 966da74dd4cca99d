// SPDX-License-Identifier: BSD-2-Clause
// The CPU reference DWT (column strips and rows dealt to the worker pool). Results do not depend on the
// thread count: every output value is computed by exactly one thread in a fixed order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "j2kfront/j2kfront.h"
#include "transform/common/constants.hpp"
#include "tiling/canvas.hpp"

namespace j2k::cpu {

using constants::Inverse97Scale;
using constants::kInverse97Standard;
using constants::kInverse97OpenJpeg;

// "cpu (4 threads)": what the CPU backend runs with.
std::string describe(int threads);

// Scratch for the passes: worker_count(threads) slices of `per_thread` elements, one for each
// worker of a pass (slice i for worker i of run_on_workers).
template <class T>
struct Scratch {
  T* data;
  size_t per_thread;
};
size_t scratch_per_thread(const Rect& tc);  // elements, for any level count

// The levels as dwt_levels() gives them (largest first); in place; allocates nothing.
void dwt(j2k_direction direction, int32_t* data, ptrdiff_t stride, const DwtLevel* levels,
         int count, int threads, const Scratch<int32_t>& scratch);
void dwt(j2k_direction direction, float* data, ptrdiff_t stride, const DwtLevel* levels,
         int count, int threads, const Scratch<float>& scratch,
         const Inverse97Scale& scale = kInverse97Standard);

// One inverse level split in its two passes, for a decoder that holds the level's bands apart
// (pipeline/row_back_stage.hpp): inverse_row() is the horizontal pass on one row whose low half
// (low_count(w, cas) values) lies at `low` and high half at `high`, interleaved into `out` (w
// values; scratch: w values); inverse_vertical() the vertical pass on the top-left w x h block
// (scratch as for dwt()). Every row through inverse_row(), then the block through
// inverse_vertical(), is dwt()'s inverse of that level, bit for bit.
void inverse_row(const int32_t* low, const int32_t* high, int32_t* out, ptrdiff_t w, int cas, int32_t* scratch);
void inverse_row(const float* low, const float* high, float* out, ptrdiff_t w, int cas, float* scratch,
                 const Inverse97Scale& scale);
void inverse_vertical(int32_t* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads,
                      const Scratch<int32_t>& scratch);
void inverse_vertical(float* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads,
                      const Scratch<float>& scratch, const Inverse97Scale& scale);

// One forward level split in its two passes, for an encoder that transforms the level a band
// of rows at a time (pipeline/row_front_stage.hpp): forward_vertical() is the vertical pass
// on the top-left w x h block (rows left in pyramid order; scratch as for dwt()),
// forward_row() the horizontal pass on one row of w values at `in`, its low half
// (low_count(w, cas) values) written to `low` and its high half to `high` (apart from `in`).
// The block through forward_vertical(), then each of its rows through
// forward_row(), is dwt()'s forward level, bit for bit.
void forward_vertical(int32_t* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads,
                      const Scratch<int32_t>& scratch);
void forward_vertical(float* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads,
                      const Scratch<float>& scratch);
void forward_row(const int32_t* in, int32_t* low, int32_t* high, ptrdiff_t w, int cas);
void forward_row(const float* in, float* low, float* high, ptrdiff_t w, int cas);

// The same with scratch allocated for the call. threads <= 0: one per core. Buffers as in
// j2k::Dwt.
void forward53(int32_t* data, size_t stride, const Rect& tc, int levels, int threads);
void inverse53(int32_t* data, size_t stride, const Rect& tc, int levels, int threads);
void forward97(float* data, size_t stride, const Rect& tc, int levels, int threads);
// `scale`: the standard's inverse, or OpenJPEG's decoder's (transform/common/constants.hpp).
void inverse97(float* data, size_t stride, const Rect& tc, int levels, int threads,
               const Inverse97Scale& scale = kInverse97Standard);

}  // namespace j2k::cpu
