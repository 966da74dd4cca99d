// SPDX-License-Identifier: BSD-2-Clause
// The encoder's front stage on the CPU for a tile whose finest DWT level is made a band of
// rows at a time, so that Tier-1 codes its code-blocks while their coefficients are in cache
// and the level's coefficients (3/4 of the tile's) never fill whole-tile planes: the mirror
// of row_back_stage.hpp. run(k) makes the finest level's band rows [kS, (k+1)S) (a stripe:
// S the code-blocks' nominal height on the band grid, whose multiples no code-block crosses)
// from the tile-component's rows [2kS, 2(k+1)S) and `margin` more on each side: the DC shift
// and RCT / ICT of that window, the level's vertical pass on it, then the horizontal pass of
// its exact rows, whose HL, LH and HH halves go to one stripe of rows per band and whose LL
// half to a plane of the next resolution's size (pyramid layout). After the last stripe,
// finish_coarse() transforms the coarser levels there whole. The same arithmetic on every
// value as the CPU queue's whole-plane path (shift_mct, then the DWT level by level), in the
// same order, so the same coefficients bit for bit: the vertical lifting is exact in the
// window but for `margin` rows at an edge that is not the tile-component's own (symmetric
// extension there differs), which are left out (tests/row_front_stage_test.cpp compares the
// two).
//
//   RowFrontStage rows(comps, mct, S, threads);
//   for k = first_stripe() .. last_stripe(): rows.run(samples, k); Tier-1 of stripe k's
//     finest-level blocks from band_row();
//   rows.finish_coarse(); Tier-1 of the coarser levels' blocks from coarse(c).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tiling/canvas.hpp"
#include "transform/queue.hpp"

namespace j2k {

class RowFrontStage {
 public:
  struct Component {
    Rect rect;               // the tile-component on its grid
    int levels = 0;          // forward DWT levels
    bool reversible = true;  // 5/3 on int32, else 9/7 on float
  };

  // Whether components can go this way: each with one level or more, all of one rect;
  // stripe_rows (S) at least 4.
  static bool fits(const std::vector<Component>& comps, int stripe_rows);
  // The bytes the constructor allocates, to reserve in a memory budget first.
  static uint64_t bytes(const std::vector<Component>& comps, int stripe_rows, int threads);

  RowFrontStage(const std::vector<Component>& comps, bool mct, int stripe_rows, int threads);
  ~RowFrontStage();
  RowFrontStage(const RowFrontStage&) = delete;
  RowFrontStage& operator=(const RowFrontStage&) = delete;

  // Stripes k (band rows [kS, (k+1)S), tile-component rows [2kS, 2(k+1)S)) the tile spans.
  int64_t first_stripe() const;
  int64_t last_stripe() const;
  // Stripe k from the tile's samples (TileSamples as Queue::shift_mct takes them: host
  // planes of the tile-components' rects, none fused). Returns false when a sample of its
  // window lies outside its component's range (the stripe is made all the same).
  bool run(const TileSamples& samples, int64_t k);

  // Row `by` (on the band's grid) of the finest level's band `band` (0: HL, 1: LH, 2: HH) of
  // component c, at the band's first column, int32 (5/3) or float (9/7); rows
  // band_stride(c, band) values apart. Valid for the rows of the last stripe run.
  const void* band_row(size_t c, int band, int64_t by) const;
  ptrdiff_t band_stride(size_t c, int band) const;

  // Component c's next resolution (the finest level's LL, then, after finish_coarse(), the
  // coarser levels' forward DWT in pyramid layout), rows coarse_stride(c) values apart.
  void finish_coarse();
  const void* coarse(size_t c) const;
  ptrdiff_t coarse_stride(size_t c) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k
