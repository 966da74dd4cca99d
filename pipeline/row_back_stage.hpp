// SPDX-License-Identifier: BSD-2-Clause
// The decoder's back stage on the CPU for a tile whose finer DWT levels are decoded a band of rows
// at a time, so that their coefficients never fill whole-tile planes: the levels made by rows
// (row_levels(), D: the finest first) each hold three stripes' worth of rows per band (four on
// several workers), which Tier-1 fills a row of code-blocks (a stripe) at a time, in the same run
// as the emit of the stripe two before (Step::beside); the coarser levels' coefficients go to
// planes of resolution D's size (the coarse planes), inverse transformed whole (finish_coarse()).
// Level l's emit(l, k) makes rows [2kS, 2(k+1)S) of its output (l = 0: the tile-component's
// samples; l > 0: the next finer level's LL, into a ring of four stripes' worth of rows that level
// reads as it reads the coarse plane), in parts of at most 32 rows (on several workers side by
// side, each made whole by one worker, and cut into column ranges where a stripe has fewer than
// about half as many parts as workers): for each, the level's inverse DWT on a window of its rows
// and `margin` more on each side (pyramid order filled from the LL rows and the bands' rows), then
// at level 0 the inverse RCT / ICT, DC shift and clamp of its exact rows into the component's home
// (as BackStage's to_samples), at a coarser level its exact rows into the LL ring. The same
// arithmetic on every value as BackStage's whole-plane path, in the same order, so the same
// samples bit for bit: the horizontal pass is per row; the vertical lifting is exact in the window
// but for `margin` rows at an edge that is not the level's own (symmetric extension there
// differs), which are left out (tests/row_back_stage_test.cpp compares the two).
// On one worker the second level goes by rows too (row_levels()): that spares the pages of
// resolution 1's plane (a quarter of the tile's coefficients) and keeps the level's
// coefficients in the core's cache from Tier-1 to the finest level's rows.
//
//   RowBackStage rows(comps, mct, S, threads);
//   Tier-1 of the levels coarser than D into coarse(c); rows.finish_coarse();
//   for each step of rows.steps(): a decode step's stripe of code-blocks (of its level) into
//     band_row(); an emit step: rows.emit(level, stripe, n, fn), fn the Tier-1 of the beside
//     steps after it
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "common/parallel/worker_pool.hpp"
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

  // The levels the constructor makes by rows for `levels_by_rows` (0: its own choice,
  // kDefaultRowLevels on one worker, else 1), fewer where a component has fewer levels or a
  // level's rect is empty; at least 1. On one worker the second level by rows made a 4096^2
  // decode's peak memory a quarter smaller (RGB 82 to 59 MB) and its time 2% to 5% shorter on
  // the development machine (within the noise on the H200's); on two and sixteen it was
  // slower (up to 5% and 15%: more, shorter parallel runs), and a third level gained nothing
  // more (docs/maintainers/experiments.md, "Decoder rows: the coarser levels by rows too").
  static constexpr int kDefaultRowLevels = 2;
  static int row_levels(const std::vector<BackStage::Component>& comps, int threads, int levels_by_rows = 0);

  // The bytes the constructor allocates, to reserve in a memory budget first (`rows_out`: with
  // one).
  static uint64_t bytes(const std::vector<BackStage::Component>& comps, int stripe_rows, int threads, bool rows_out = false,
                        int levels_by_rows = 0);

  // `rows_out` set: emit() makes each part's samples in a band of rows per component and
  // hands them there, instead of writing them into the components' homes (whose base is then
  // not read: only their type and size).
  // `map_now` false: the coarse planes' and the bands' pages are left to map_pages(), which
  // the caller may run on another thread while it does something else (the decoder: Tier-2).
  RowBackStage(const std::vector<BackStage::Component>& comps, bool mct, int stripe_rows, int threads, RowsOut rows_out = nullptr,
               bool map_now = true, int levels_by_rows = 0);
  ~RowBackStage();
  RowBackStage(const RowBackStage&) = delete;
  RowBackStage& operator=(const RowBackStage&) = delete;

  // Maps the pages of the buffers Tier-1 fills (the coarse planes and the band rows) and of
  // the LL rings on the workers, 4 MiB a worker (common/memory_pages.hpp), before anything is
  // written to them.
  void map_pages();

  // D: the levels made by rows, 0 (the finest) to D - 1.
  int row_levels() const;

  // Component c's resolution below the levels made by rows (level D - 1's LL) in pyramid
  // layout, int32 (5/3) or float (9/7), rows coarse_stride(c) values apart: where Tier-1
  // writes the coarser levels' blocks, and what finish_coarse() inverse transforms in place.
  void* coarse(size_t c) const;
  ptrdiff_t coarse_stride(size_t c) const;
  void finish_coarse();

  // Row `by` (on the band's grid) of level `level`'s band `band` (0: HL, 1: LH, 2: HH) of
  // component c, at the band's first column; rows band_stride(level, c, band) values apart.
  // Valid for the rows of the stripe a decode step names (by / S) and the two before it.
  void* band_row(int level, size_t c, int band, int64_t by) const;
  ptrdiff_t band_stride(int level, size_t c, int band) const;

  // Stripes k of a level (band rows [kS, (k+1)S), its output rows [2kS, 2(k+1)S)) its rect
  // spans.
  int64_t first_stripe(int level) const;
  int64_t last_stripe(int level) const;

  // The order of the work: each level's stripes decoded (`emit` false: Tier-1 of that
  // stripe's code-blocks into band_row()) and made (`emit` true: emit(level, stripe)), each
  // stripe made once stripes k - 1 .. k + 1 of its bands are decoded and not yet overwritten,
  // and its LL rows made by the coarser level.
  // `beside` (a decode step): it may be decoded while the emit step before it runs (it
  // overwrites nothing that one reads), as may the beside steps between them: emit() takes
  // them into its run of the workers.
  struct Step {
    int level = 0;
    int64_t stripe = 0;
    bool emit = false;
    bool beside = false;
  };
  const std::vector<Step>& steps() const;
  // Makes level `level`'s stripe k (its output rows [2kS, 2(k+1)S)) and runs `count` items of
  // the caller's, fn(i, worker) for i in [0, count) (the Tier-1 of the beside steps after this
  // one; 0 for none), in the same run of the workers, so that neither waits for the other's
  // slowest worker: the stripe's parts first (the longest items), the caller's filling in
  // behind them. On one worker the caller's items run after the parts.
  void emit(int level, int64_t k, ptrdiff_t count, ItemFn fn);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k
