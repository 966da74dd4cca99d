// SPDX-License-Identifier: BSD-2-Clause
// The decoder's back-stage steps on host rows, for a caller that holds a DWT level's bands
// apart and makes its output a band of rows at a time (pipeline/row_back_stage.hpp): the
// inverse DWT of whole levels, one level split into its horizontal pass (a row whose low and
// high halves lie apart) and its vertical pass, and the conversion to samples. The CPU
// backend's code (transform/cpu/), so the same arithmetic as its queue, bit for bit; scratch
// as cpu::dwt takes it: worker_count(threads) slices of host_rows_scratch() values, slice i for
// worker i (run_on_workers).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tiling/canvas.hpp"
#include "transform/common/constants.hpp"
#include "transform/queue.hpp"

namespace j2k {

// Values of scratch one worker needs for any level of a tile-component `tc` (and for
// host_inverse_row() on its rows).
size_t host_rows_scratch(const Rect& tc);

// The inverse of levels[0..count) (dwt_levels()' order, largest first) in place: the 5/3 on
// int32, the 9/7 (OpenJPEG's decoder's scaling) on float.
void host_inverse_levels(int32_t* data, ptrdiff_t stride, const DwtLevel* levels, int count, int threads, int32_t* scratch,
                         size_t per_thread);
void host_inverse_levels(float* data, ptrdiff_t stride, const DwtLevel* levels, int count, int threads, float* scratch,
                         size_t per_thread);

// One level's horizontal pass on one row: `low` (low_count(w, cas) values) and `high` (the
// rest), interleaved into `out` (w values); `scratch`: w values of the calling worker's.
void host_inverse_row(const int32_t* low, const int32_t* high, int32_t* out, ptrdiff_t w, int cas, int32_t* scratch);
void host_inverse_row(const float* low, const float* high, float* out, ptrdiff_t w, int cas, float* scratch);
// The same level's vertical pass on the top-left w x h block (rows in pyramid order).
void host_inverse_vertical(int32_t* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads, int32_t* scratch,
                           size_t per_thread);
void host_inverse_vertical(float* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads, float* scratch,
                           size_t per_thread);

// The inverse RCT / ICT, DC shift and clamp of Queue::to_samples, host planes to host planes.
void host_to_samples(const std::vector<Plane>& in, const TileOutput& out, int threads);

// The encoder's mirror (pipeline/row_front_stage.hpp), the CPU queue's arithmetic likewise:
// the DC shift and RCT / ICT of Queue::shift_mct from host samples into host planes (false
// when a sample lies outside its range); one forward level's vertical pass on the top-left
// w x h block and its horizontal pass on one row of w values into its low and high halves
// (apart from the row); the forward DWT of whole levels in place.
bool host_shift_mct(const TileSamples& tile, bool reversible, const std::vector<Plane>& out, int threads);
void host_forward_vertical(int32_t* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads, int32_t* scratch,
                           size_t per_thread);
void host_forward_vertical(float* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads, float* scratch,
                           size_t per_thread);
void host_forward_row(const int32_t* in, int32_t* low, int32_t* high, ptrdiff_t w, int cas);
void host_forward_row(const float* in, float* low, float* high, ptrdiff_t w, int cas);
void host_forward_levels(int32_t* data, ptrdiff_t stride, const DwtLevel* levels, int count, int threads, int32_t* scratch,
                         size_t per_thread);
void host_forward_levels(float* data, ptrdiff_t stride, const DwtLevel* levels, int count, int threads, float* scratch,
                         size_t per_thread);
// "cpu (4 threads)": the CPU queue's description.
std::string host_description(int threads);

}  // namespace j2k
