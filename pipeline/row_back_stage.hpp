// SPDX-License-Identifier: BSD-2-Clause
// The decoder's back stage on the CPU for a tile whose finest DWT level is decoded a band of
// rows at a time, so that its coefficients (3/4 of the tile's) never fill whole-tile planes:
// the coarser levels' coefficients go to planes of the next resolution's size, inverse
// transformed whole (finish_coarse()); the finest level's HL, LH and HH code-blocks go, a row
// of code-blocks (a stripe) at a time, to three stripes' worth of rows per band; emit(k) then
// makes output rows [2kS, 2(k+1)S) of the tile-component, in parts of at most 32 rows (on more
// than four workers 32 for every four; where a stripe's parts share evenly among the workers,
// each part made whole by one worker, side by side; otherwise, on several workers, each part
// in column ranges side by side, a range and its margins a worker's window): for
// each, the finest level's inverse DWT on a window of its rows and `margin` more on each side
// (pyramid order filled from the coarse plane and the bands' rows), then the inverse RCT /
// ICT, DC shift and clamp of its exact rows into the component's home (as BackStage's
// to_samples). The same arithmetic on every value as
// BackStage's whole-plane path, in the same order, so the same samples bit for bit: the
// horizontal pass is per row; the vertical lifting is exact in the window but for `margin`
// rows at an edge that is not the tile-component's own (symmetric extension there differs),
// which are left out (tests/row_back_stage_test.cpp compares the two).
//
//   RowBackStage rows(comps, mct, S, threads);
//   Tier-1 of the coarser levels into coarse(c); rows.finish_coarse();
//   decode stripe first_stripe() into band_row(); then for k = first..last:
//     decode stripe k + 1 (if any) into band_row(); rows.emit(k);
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "pipeline/back_stage.hpp"

namespace j2k {

class RowBackStage {
 public:
  // Whether components can go this way: each with one level or more, its window its whole
  // rect (every sample goes out), all of one rect; stripe_rows (S: the code-blocks' nominal
  // height on the band grid, whose multiples no code-block crosses) at least 4.
  static bool fits(const std::vector<BackStage::Component>& comps, int stripe_rows);
  // Takes the output rows [y, y + count) of the rect (0: its first row), data[c] the first of
  // them in component c, rows packed in the type of its home.
  using RowsOut = std::function<void(int64_t y, int64_t count, const std::vector<const uint8_t*>& data)>;

  // The bytes the constructor allocates, to reserve in a memory budget first (`rows_out`: with
  // one).
  static uint64_t bytes(const std::vector<BackStage::Component>& comps, int stripe_rows, int threads, bool rows_out = false);

  // `rows_out` set: emit() makes each part's samples in a band of rows per component and
  // hands them there, instead of writing them into the components' homes (whose base is then
  // not read: only their type and size).
  // `map_now` false: the coarse planes' and the bands' pages are left to map_pages(), which
  // the caller may run on another thread while it does something else (the decoder: Tier-2).
  RowBackStage(const std::vector<BackStage::Component>& comps, bool mct, int stripe_rows, int threads, RowsOut rows_out = nullptr,
               bool map_now = true);
  ~RowBackStage();
  RowBackStage(const RowBackStage&) = delete;
  RowBackStage& operator=(const RowBackStage&) = delete;

  // Maps the pages of the buffers Tier-1 fills (the coarse planes and the band rows) on the
  // workers, 4 MiB a worker (common/memory_pages.hpp), before anything is written to them.
  void map_pages();

  // Component c's coarser resolution (the finest level's LL) in pyramid layout, int32 (5/3)
  // or float (9/7), rows coarse_stride(c) values apart: where Tier-1 writes the coarser
  // levels' blocks, and what finish_coarse() inverse transforms in place.
  void* coarse(size_t c) const;
  ptrdiff_t coarse_stride(size_t c) const;
  void finish_coarse();

  // Row `by` (on the band's grid) of the finest level's band `band` (0: HL, 1: LH, 2: HH) of
  // component c, at the band's first column; rows band_stride(c, band) values apart. Valid
  // for the rows of the stripe being decoded (by / S) and the two before it.
  void* band_row(size_t c, int band, int64_t by) const;
  ptrdiff_t band_stride(size_t c, int band) const;

  // Stripes k (band rows [kS, (k+1)S), output rows [2kS, 2(k+1)S)) the tile-component spans.
  int64_t first_stripe() const;
  int64_t last_stripe() const;
  // The output rows of stripe k, once stripes k - 1 (if any), k and k + 1 (if any) are decoded
  // and not yet overwritten (by stripe k + 2).
  void emit(int64_t k);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k
