// SPDX-License-Identifier: BSD-2-Clause
#include "pipeline/row_back_stage.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include "common/error.hpp"
#include "common/parallel/parallel_for.hpp"
#include "common/parallel/worker_pool.hpp"
#include "pipeline/aligned_buffer.hpp"
#include "pipeline/row_geometry.hpp"
#include "tiling/canvas.hpp"
#include "transform/host_rows.hpp"

namespace j2k {
namespace {

// Output rows one window makes at most: a stripe's 2S rows go in parts of this many, each on a
// window of its own with the margins (row_geometry.hpp). A 4096-wide window of 32 rows and its
// margins is about 0.6 MiB a component, which stays in a core's L2 from the horizontal pass
// through to the samples (one of 2S = 128 rows, 2.1 MiB, did not: 1 thread, 4096^2, user +
// system 324 to 313 ms RGB lossless, 392 to 382 lossy).
constexpr int64_t kPartRows = 32;

constexpr const char* kWhat = "the decoder's rows";

using row_geometry::floor_div;
using row_geometry::Geometry;
using row_geometry::low_count;

// Where a stripe's parts are cut across into column ranges as well, so that a stripe has about
// half as many items as there are workers (Split): ranges of `width` columns on the canvas's
// grid of that width (so each starts on an even column, an L column, as a window's first row
// is an L row), each made whole by one worker (its horizontal lifting on the range and
// `margin` columns more each side, left out as the window's edge rows are), at least
// kMinColumns wide. Narrow ranges cost more a sample (a window row's passes are short): the
// items of a 16-bit grey 4096^2 stripe took 14 ms in all in parts of 32 rows by whole rows,
// 17.5 in ranges of 1024 columns, 23 of 256, 30 of 128 (development machine, two threads).
struct ColumnRanges {
  static constexpr int64_t kMinColumns = 512;
  int64_t width = 0, first = 0, count = 0;  // count 0: no ranges (whole rows)

  ColumnRanges() = default;
  // About `wanted` ranges of `r` (none where that is 1 or fewer, or `r` too narrow for two).
  ColumnRanges(const Rect& r, int64_t wanted) {
    if (wanted < 2 || r.empty()) return;
    const int64_t w = std::max(kMinColumns, ((r.width() + wanted - 1) / wanted + 15) / 16 * 16);
    const int64_t n = floor_div(r.x1 - 1, w) - floor_div(r.x0, w) + 1;
    if (n < 2) return;
    width = w;
    first = floor_div(r.x0, w);
    count = n;
  }
  // Range q's columns [x0, x1) of `r` (the one it was made for).
  int64_t x0(const Rect& r, int64_t q) const { return std::max(r.x0, (first + q) * width); }
  int64_t x1(const Rect& r, int64_t q) const { return std::min(r.x1, (first + q + 1) * width); }
  // Values a window row holds for a range and its margins: a multiple of 16, so that each
  // window row starts on a cache line (at most the rect's width).
  int64_t stride(int64_t w, int64_t margin) const { return std::min(w, (width + 2 * margin + 15) / 16 * 16); }
};

// How a stripe's output rows [2kS, 2(k+1)S) are shared among the workers.
// - One worker: parts of `part` rows one after another.
// - Several: the stripe's items (its parts, each cut into column ranges where that makes
//   about half as many items as workers, ColumnRanges) in one run of the workers with the
//   Tier-1 of the stripes beside it (RowBackStage::emit), the items first: each item made whole
//   by one worker in a window set of its own, so that its rows stay in that worker's L2 from
//   the horizontal pass to the samples, and the blocks' decodes fill in behind the items.
//   Before, on more than four workers, parts of 128 rows had gone in 128-column ranges (32 on
//   16 workers) in a run of their own: 4096^2 16-bit grey on the H200's 16 threads, their
//   items took 53 ms in all against 16 on four workers (experiments.md, "HT decode, round 9").
struct Split {
  int64_t part = 0;
  bool apart = false;  // several workers: the items side by side
  ColumnRanges columns;
  int64_t items = 1;  // a stripe's: parts x ranges
  int64_t sets = 1;   // window sets: an item's (items <= workers), else a worker's
  int64_t held = 0;   // the output rows a component's band holds (with rows_out)
  int64_t ranges() const { return columns.count > 0 ? columns.count : 1; }
  // The window set of item i on `worker`.
  int64_t set_of(int64_t i, int worker) const { return sets == items ? i : worker; }
};
Split split_of(const Rect& r, int stripe_rows, int threads) {
  Split s;
  const int64_t workers = worker_count(threads), stripe_out = 2 * int64_t{stripe_rows};
  s.part = std::min(stripe_out, kPartRows);
  s.held = s.part;
  if (workers < 2) return s;
  s.apart = true;
  const int64_t parts = (stripe_out + s.part - 1) / s.part;
  s.columns = ColumnRanges(r, (workers / 2 + parts - 1) / parts);
  s.items = parts * s.ranges();
  s.sets = std::min(s.items, workers);
  s.held = stripe_out;
  return s;
}

int64_t window_rows(const Split& s, int64_t margin) { return s.part + 2 * margin; }
// Values a window's row holds: the whole row, or a column range and its margins.
int64_t window_stride(const Split& s, int64_t w, int64_t margin) { return s.columns.count > 0 ? s.columns.stride(w, margin) : w; }

size_t scratch_values(const Geometry& g, const Split& s) {
  return std::max(host_rows_scratch(g.coarse), host_rows_scratch(Rect{0, 0, g.w, window_rows(s, g.margin)}));
}

// Stripes of rows a band's ring holds: level l's emit(k) reads its stripes k - 1 .. k + 1, and
// on several workers Tier-1 fills stripe k + 2 in the same run (Step::beside); on one, after
// the emit, into stripe k - 1's rows.
int64_t band_slots(const Split& s) { return s.apart ? 4 : 3; }

// Stripes of rows an LL ring holds: level l's emit(k) reads its LL stripes k - 1 .. k + 1, and
// the coarser level's emit before it writes two stripes, up to k + 2 (schedule()).
constexpr int64_t kLlSlots = 4;

// Whether level `levels` of a tile-component of `rect` (its finest) goes by rows: the LL of
// that level is the next resolution, as the whole-plane DWT lays it out.
bool level_fits(const Rect& rect, int levels, bool reversible) {
  if (rect.empty() || levels < 1) return false;
  const Geometry g(rect, levels, reversible);
  DwtLevel lv[kMaxLevels];
  if (dwt_levels(rect, levels, lv) < 1 || lv[0].cas_x != g.cas_x || lv[0].cas_y != g.cas_y) return false;
  return g.coarse.width() == g.sn_x && g.coarse.height() == low_count(g.h, g.cas_y) && g.coarse.y0 == g.l_y0;
}

// Level l's rect: the tile-component's resolution l below the full one.
Rect level_rect(const BackStage::Component& c, int l) { return resolution_rect(c.rect, c.levels, c.levels - l); }

int depth_of(const std::vector<BackStage::Component>& comps, int threads, int levels_by_rows) {
  int depth = levels_by_rows > 0 ? levels_by_rows : worker_count(threads) == 1 ? RowBackStage::kDefaultRowLevels : 1;
  for (const BackStage::Component& c : comps) depth = std::min(depth, c.levels);
  for (int l = 1; l < depth; ++l)
    for (const BackStage::Component& c : comps)
      if (!level_fits(level_rect(c, l), c.levels - l, c.reversible)) return l;
  return std::max(depth, 1);
}

// A level made by rows: its rect (every component's), each component's geometry there (the
// margin the largest component's: one window for all, since the MCT takes rows of all three
// at once), how its stripes are shared and the values a window row holds.
struct LevelLayout {
  Rect rect;
  std::vector<Geometry> geometry;
  int64_t margin = 0;
  Split split;
  int64_t stride = 0;
};

std::vector<LevelLayout> layout_of(const std::vector<BackStage::Component>& comps, int stripe_rows, int threads, int depth) {
  std::vector<LevelLayout> levels(static_cast<size_t>(depth));
  for (int l = 0; l < depth; ++l) {
    LevelLayout& v = levels[static_cast<size_t>(l)];
    v.rect = level_rect(comps[0], l);
    for (const BackStage::Component& c : comps) {
      v.geometry.emplace_back(v.rect, c.levels - l, c.reversible);
      v.margin = std::max(v.margin, v.geometry.back().margin);
    }
    for (Geometry& g : v.geometry) g.margin = v.margin;
    v.split = split_of(v.rect, stripe_rows, threads);
    v.stride = window_stride(v.split, v.rect.width(), v.margin);
  }
  return levels;
}

// The bytes of each buffer the constructor allocates, in its order.
struct BufferSizes {
  std::vector<size_t> coarse;                           // a component's
  std::vector<std::vector<size_t>> bands, windows, ll;  // a level's: 3 a component; a set's components; a ring a component
  std::vector<size_t> out_rows;                         // with rows_out: a component's
  size_t scratch = 0;                                   // values a worker's scratch holds
};

BufferSizes sizes_of(const std::vector<LevelLayout>& levels, const std::vector<BackStage::Component>& comps, int64_t stripe,
                     bool rows_out) {
  BufferSizes b;
  const size_t depth = levels.size();
  b.bands.resize(depth);
  b.windows.resize(depth);
  b.ll.resize(depth);
  for (size_t l = 0; l < depth; ++l) {
    const LevelLayout& v = levels[l];
    for (const Geometry& g : v.geometry) {
      for (int band = 0; band < 3; ++band)
        b.bands[l].push_back(static_cast<size_t>(band_slots(v.split) * stripe * g.band_width(band)) * 4);
      if (l + 1 < depth) b.ll[l].push_back(static_cast<size_t>(kLlSlots * stripe * g.sn_x) * 4);
      if (l + 1 == depth) b.coarse.push_back(static_cast<size_t>(g.coarse.width() * g.coarse.height()) * 4);
      b.scratch = std::max(b.scratch, scratch_values(g, v.split));
    }
    for (int64_t set = 0; set < v.split.sets; ++set)  // windows[l][set * components + c]
      for (size_t c = 0; c < comps.size(); ++c)
        b.windows[l].push_back(static_cast<size_t>(window_rows(v.split, v.margin) * v.stride) * 4);
  }
  if (rows_out)
    for (size_t c = 0; c < comps.size(); ++c)
      b.out_rows.push_back(static_cast<size_t>(levels[0].split.held * levels[0].geometry[c].w) * j2k_sample_size(comps[c].home.type));
  return b;
}

// The buffers in two slabs, in the order the constructor takes them: those that Tier-1 and the
// coarser levels fill (the coarse planes, every level's bands, every level's LL rings), which
// map_pages() maps ahead, on huge pages; and those each worker touches first itself (the
// windows, the output rows, the scratch), on pages of their own (on 16 threads the windows on
// huge pages were 2% to 4% slower: a worker's first touch cleared 2 MiB, its neighbours'
// windows too, out of its L2).
struct SlabSizes {
  std::vector<size_t> mapped, touched;
};
SlabSizes slab_sizes(const BufferSizes& b, int threads) {
  SlabSizes s;
  s.mapped = b.coarse;
  for (const auto* per_level : {&b.bands, &b.ll})
    for (const std::vector<size_t>& level : *per_level) s.mapped.insert(s.mapped.end(), level.begin(), level.end());
  for (const std::vector<size_t>& level : b.windows) s.touched.insert(s.touched.end(), level.begin(), level.end());
  s.touched.insert(s.touched.end(), b.out_rows.begin(), b.out_rows.end());
  s.touched.push_back(b.scratch * static_cast<size_t>(worker_count(threads)) * 4);
  return s;
}

// The steps of RowBackStage::steps() for levels of these stripes (first, last).
std::vector<RowBackStage::Step> schedule(const std::vector<std::pair<int64_t, int64_t>>& stripes) {
  using Step = RowBackStage::Step;
  const int depth = static_cast<int>(stripes.size());
  std::vector<int64_t> decoded(stripes.size()), emitted(stripes.size());
  for (size_t l = 0; l < stripes.size(); ++l) decoded[l] = emitted[l] = stripes[l].first - 1;
  std::vector<Step> steps;
  auto decode_to = [&](int l, int64_t k) {
    const auto i = static_cast<size_t>(l);
    for (k = std::min(k, stripes[i].second); decoded[i] < k;) steps.push_back(Step{l, ++decoded[i], false});
  };
  // Level l's stripes through k: each once its bands' next stripe is decoded and the coarser
  // level has made its LL rows through stripe k + 1 (its stripe (k + 1) / 2 makes LL stripes
  // k + 1 and, for an even k + 1, k + 2: the ring's fourth).
  std::function<void(int, int64_t)> emit_to = [&](int l, int64_t k) {
    const auto i = static_cast<size_t>(l);
    for (k = std::min(k, stripes[i].second); emitted[i] < k;) {
      const int64_t next = emitted[i] + 1;
      decode_to(l, next + 1);
      if (l + 1 < depth) emit_to(l + 1, floor_div(next + 1, 2));
      steps.push_back(Step{l, next, true});
      emitted[i] = next;
    }
  };
  emit_to(0, stripes[0].second);
  // The decode steps right after an emit step that overwrite nothing it reads go beside it:
  // another level's stripe, or its own level's stripe k + 2 (the band ring's fourth slot). One
  // that may not holds back those after it as well.
  for (size_t i = 0, e = steps.size(); i < steps.size(); ++i) {
    if (steps[i].emit) {
      e = i;
    } else if (e < steps.size()) {
      steps[i].beside = steps[i].level != steps[e].level || steps[i].stripe <= steps[e].stripe + 2;
      if (!steps[i].beside) e = steps.size();
    }
  }
  return steps;
}

}  // namespace

struct RowBackStage::Impl {
  std::vector<BackStage::Component> comps;
  bool mct = false;
  int64_t stripe = 0;  // S
  int threads = 1;
  std::vector<LevelLayout> layout;  // the levels made by rows, [0] the finest
  // Per level: the bands (3 a component), the windows (a set a worker side by side) and, but
  // at the coarsest, the LL ring (a component's) that the next coarser level fills.
  // All of them are pieces of two slabs (slab_sizes).
  using Piece = BufferSlab::Piece;
  std::unique_ptr<BufferSlab> mapped, touched;
  struct LevelBuffers {
    std::vector<Piece> bands, windows, ll;
  };
  std::vector<LevelBuffers> buffers;
  std::vector<Piece> coarse;  // a component's: the coarsest level's LL, pyramid layout
  RowsOut rows_out;
  std::vector<Piece> out_rows;  // with rows_out: a part's samples per component (side by side: a stripe's)
  Piece scratch{};
  size_t scratch_per_thread = 0;
  std::vector<Step> steps;

  int depth() const { return static_cast<int>(layout.size()); }
  const Geometry& geometry(int l, size_t c) const { return layout[static_cast<size_t>(l)].geometry[c]; }

  template <class T>
  T* scratch_of() const { return static_cast<T*>(scratch.p); }

  void finish_coarse() {
    for (size_t c = 0; c < comps.size(); ++c) {
      const Geometry& g = geometry(depth() - 1, c);
      DwtLevel lv[kMaxLevels];
      const int n = dwt_levels(g.coarse, comps[c].levels - depth(), lv);
      if (n == 0) continue;
      if (comps[c].reversible)
        host_inverse_levels(static_cast<int32_t*>(coarse[c].p), g.coarse.width(), lv, n, threads, scratch_of<int32_t>(),
                            scratch_per_thread);
      else
        host_inverse_levels(static_cast<float*>(coarse[c].p), g.coarse.width(), lv, n, threads, scratch_of<float>(),
                            scratch_per_thread);
    }
  }

  // Row `by` of a ring of `slots` stripes' worth of rows, `width` values each.
  char* ring_row(const Piece& ring, int64_t slots, int64_t by, int64_t width) const {
    const int64_t k = floor_div(by, stripe), slot = k % slots, row = by - k * stripe;
    return static_cast<char*>(ring.p) + ((slot < 0 ? slot + slots : slot) * stripe + row) * width * 4;
  }

  char* band_row(int l, size_t c, int band, int64_t by) const {
    return ring_row(buffers[static_cast<size_t>(l)].bands[3 * c + static_cast<size_t>(band)],
                    band_slots(layout[static_cast<size_t>(l)].split), by, geometry(l, c).band_width(band));
  }

  // Row `by` (on level l's band grid) of level l's LL: the coarser level's ring, or at the
  // coarsest level the coarse plane (inverse transformed by finish_coarse()).
  char* ll_row(int l, size_t c, int64_t by) const {
    const Geometry& g = geometry(l, c);
    if (l + 1 < depth()) return ring_row(buffers[static_cast<size_t>(l)].ll[c], kLlSlots, by, g.sn_x);
    return static_cast<char*>(coarse[c].p) + (by - g.l_y0) * g.coarse.width() * 4;
  }

  // Component c's window of level l in window set `set` (one set a worker where the parts go
  // side by side).
  char* window(int l, size_t set, size_t c) const {
    return static_cast<char*>(buffers[static_cast<size_t>(l)].windows[set * comps.size() + c].p);
  }

  // The horizontal pass of component c's window row y (of rows [w0, w0 + hw)) at level l,
  // columns [x0, x0 + n) of the level's grid, from where its halves lie (the LL rows and the
  // bands' stripes: an L row is [LL | HL], an H row [LH | HH]) into the window, its L rows
  // first (the pyramid order the vertical pass takes).
  void inverse_row(int l, size_t c, char* into, int64_t w0, int casw, int64_t snw, int64_t y, int64_t x0, int64_t n,
                   int worker) const {
    const int64_t rx0 = layout[static_cast<size_t>(l)].rect.x0;
    const char *low, *high;
    if (y < snw) {
      const int64_t by = (w0 + casw + 2 * y) >> 1;
      low = ll_row(l, c, by);
      high = band_row(l, c, 0, by);
    } else {
      const int64_t by = (w0 + (1 - casw) + 2 * (y - snw)) >> 1;
      low = band_row(l, c, 1, by);
      high = band_row(l, c, 2, by);
    }
    // The range's first L value (even columns) and first H value (odd) in its halves.
    low += (((x0 + 1) >> 1) - ((rx0 + 1) >> 1)) * 4;
    high += ((x0 >> 1) - (rx0 >> 1)) * 4;
    char* out = into + y * layout[static_cast<size_t>(l)].stride * 4;
    const size_t at = static_cast<size_t>(worker) * scratch_per_thread;
    const int cas = static_cast<int>(x0 & 1);
    if (comps[c].reversible)
      host_inverse_row(reinterpret_cast<const int32_t*>(low), reinterpret_cast<const int32_t*>(high),
                       reinterpret_cast<int32_t*>(out), n, cas, scratch_of<int32_t>() + at);
    else
      host_inverse_row(reinterpret_cast<const float*>(low), reinterpret_cast<const float*>(high), reinterpret_cast<float*>(out),
                       n, cas, scratch_of<float>() + at);
  }

  // emit(l, k) and the caller's `beside` items (RowBackStage::emit).
  void emit(int l, int64_t k, ptrdiff_t beside, const ItemFn& fn) {
    const LevelLayout& v = layout[static_cast<size_t>(l)];
    const Rect& r = v.rect;
    const int64_t s0 = 2 * k * stripe, s1 = 2 * (k + 1) * stripe;
    const int64_t part = v.split.part;
    const bool hands_out = l == 0 && rows_out;
    if (!v.split.apart) {  // one worker
      for (int64_t p = s0; p < s1; p += part) {
        const int64_t e0 = std::max(r.y0, p), e1 = std::min({r.y1, s1, p + part});
        emit_rows(l, e0, e1, r.x0, r.x1, 0, 0, 0);
        if (hands_out && e1 > e0) hand_out(e0, e1);
      }
      run_on_workers(beside, 1, fn);
      return;
    }
    // The stripe's items first, each on one worker, then the items beside them; the stripe's
    // rows handed out once all are made.
    const int64_t first = std::max(r.y0, s0), last = std::min(r.y1, s1);
    const ColumnRanges& cols = v.split.columns;
    const int64_t ranges = v.split.ranges(), items = v.split.items;
    run_on_workers(items + beside, worker_count(threads), [&](ptrdiff_t i, int worker) {
      if (i >= items) {
        fn(i - items, worker);
        return;
      }
      const int64_t p = i / ranges, q = i % ranges;
      const int64_t e0 = std::max(first, s0 + p * part), e1 = std::min(last, s0 + (p + 1) * part);
      const int64_t x0 = cols.count > 0 ? cols.x0(r, q) : r.x0, x1 = cols.count > 0 ? cols.x1(r, q) : r.x1;
      emit_rows(l, e0, e1, x0, x1, v.split.set_of(i, worker), worker, e0 - first);
    });
    if (hands_out && last > first) hand_out(first, last);
  }

  // Output rows [e0, e1) from out_rows' row 0 on.
  void hand_out(int64_t e0, int64_t e1) const {
    std::vector<const uint8_t*> data;
    for (const Piece& b : out_rows) data.push_back(static_cast<const uint8_t*>(b.p));
    rows_out(e0 - comps[0].rect.y0, e1 - e0, data);
  }

  // Level l's output rows [e0, e1), a part of one stripe's, columns [x0, x1) of its grid, in
  // window set `set` on worker `worker` (its scratch); level 0 with rows_out into out_rows from
  // row `out_row` (emit() hands them out), a coarser level into the next finer level's LL
  // ring. The window holds the rows and columns with their margins, but where they reach the
  // rect's edge.
  void emit_rows(int l, int64_t e0, int64_t e1, int64_t x0, int64_t x1, int64_t set, int worker, int64_t out_row) {
    const LevelLayout& v = layout[static_cast<size_t>(l)];
    const Rect& r = v.rect;
    if (e1 <= e0 || x1 <= x0) return;
    const int64_t margin = v.margin, stride = v.stride;
    const int64_t w0 = std::max(r.y0, e0 - margin), w1 = std::min(r.y1, e1 + margin);
    const int64_t hw = w1 - w0;
    const int64_t v0 = std::max(r.x0, x0 - margin), v1 = std::min(r.x1, x1 + margin);  // the window's columns
    const int64_t n = v1 - v0;
    const int casw = static_cast<int>(w0 & 1);
    const int64_t snw = low_count(hw, casw);
    const size_t at = static_cast<size_t>(worker) * scratch_per_thread;  // the vertical pass's scratch
    std::vector<Plane> in(comps.size());
    TileOutput out;
    out.mct = mct;
    // Component by component, its horizontal then its vertical pass: the vertical pass reads
    // the window while the horizontal pass's rows are still in the core's L2 (all the
    // components' rows first left none of the first one there, when a window was a stripe's
    // 2 MiB; see kPartRows).
    for (size_t c = 0; c < comps.size(); ++c) {
      char* into = window(l, static_cast<size_t>(set), c);
      for (int64_t y = 0; y < hw; ++y) inverse_row(l, c, into, w0, casw, snw, y, v0, n, worker);
      if (comps[c].reversible)
        host_inverse_vertical(reinterpret_cast<int32_t*>(into), stride, n, hw, casw, 1, scratch_of<int32_t>() + at,
                              scratch_per_thread);
      else
        host_inverse_vertical(reinterpret_cast<float*>(into), stride, n, hw, casw, 1, scratch_of<float>() + at,
                              scratch_per_thread);
      const char* first = into + ((e0 - w0) * stride + (x0 - v0)) * 4;
      if (l > 0) {  // the exact rows into the finer level's LL ring
        for (int64_t y = e0; y < e1; ++y)
          std::memcpy(ll_row(l - 1, c, y) + (x0 - r.x0) * 4, first + (y - e0) * stride * 4, static_cast<size_t>(x1 - x0) * 4);
        continue;
      }
      Plane& p = in[c];
      p.base = into;
      p.offset = static_cast<size_t>(first - into);
      p.type = comps[c].reversible ? J2K_SAMPLE_I32 : J2K_SAMPLE_F32;
      p.row_stride = stride * 4;
      p.pixel_stride = 4;
      p.width = x1 - x0;
      p.height = e1 - e0;
      Plane home = comps[c].home;
      if (rows_out) {
        home.base = out_rows[c].p;
        home.row_stride = geometry(0, c).w * home.pixel_stride;
        home.offset = static_cast<size_t>(out_row * home.row_stride);
      } else {
        home.offset += static_cast<size_t>((e0 - r.y0) * home.row_stride);
      }
      home.offset += static_cast<size_t>((x0 - r.x0) * home.pixel_stride);
      home.width = x1 - x0;
      home.height = e1 - e0;
      out.out.push_back(home);
      out.offset.push_back(comps[c].offset);
      out.lo.push_back(comps[c].lo);
      out.hi.push_back(comps[c].hi);
    }
    if (l == 0) host_to_samples(in, out, 1);
  }
};

bool RowBackStage::fits(const std::vector<BackStage::Component>& comps, int stripe_rows) {
  if (comps.empty() || stripe_rows < 4) return false;
  for (const BackStage::Component& c : comps) {
    if (c.levels < 1 || c.rect.empty() || !(c.window == c.rect) || !(c.rect == comps[0].rect)) return false;
    if (c.home.memory != J2K_MEMORY_HOST || c.home.width != c.rect.width() || c.home.height != c.rect.height()) return false;
    if (!level_fits(c.rect, c.levels, c.reversible)) return false;
  }
  return true;
}

int RowBackStage::row_levels(const std::vector<BackStage::Component>& comps, int threads, int levels_by_rows) {
  return depth_of(comps, threads, levels_by_rows);
}

uint64_t RowBackStage::bytes(const std::vector<BackStage::Component>& comps, int stripe_rows, int threads, bool rows_out,
                             int levels_by_rows) {
  if (!fits(comps, stripe_rows)) return 0;
  const std::vector<LevelLayout> layout = layout_of(comps, stripe_rows, threads, depth_of(comps, threads, levels_by_rows));
  const SlabSizes s = slab_sizes(sizes_of(layout, comps, stripe_rows, rows_out), threads);
  return BufferSlab::bytes(s.mapped, true) + BufferSlab::bytes(s.touched, false);
}

RowBackStage::RowBackStage(const std::vector<BackStage::Component>& comps, bool mct, int stripe_rows, int threads, RowsOut rows_out,
                           bool map_now, int levels_by_rows)
    : impl_(std::make_unique<Impl>()) {
  if (!fits(comps, stripe_rows)) throw Error(ErrorCode::Internal, "row back stage: components it does not take");
  Impl& m = *impl_;
  m.comps = comps;
  m.mct = mct && comps.size() >= 3;
  m.stripe = stripe_rows;
  m.threads = threads;
  m.layout = layout_of(comps, stripe_rows, threads, depth_of(comps, threads, levels_by_rows));
  const BufferSizes b = sizes_of(m.layout, comps, stripe_rows, static_cast<bool>(rows_out));
  const SlabSizes sizes = slab_sizes(b, threads);
  m.mapped = std::make_unique<BufferSlab>(sizes.mapped, kWhat, true);
  m.touched = std::make_unique<BufferSlab>(sizes.touched, kWhat, false);
  size_t next = 0;
  auto take = [&](const BufferSlab& slab, const std::vector<size_t>& from, std::vector<Impl::Piece>& into) {
    for (size_t i = 0; i < from.size(); ++i) into.push_back(slab[next++]);
  };
  take(*m.mapped, b.coarse, m.coarse);
  m.buffers.resize(m.layout.size());
  for (size_t l = 0; l < m.layout.size(); ++l) take(*m.mapped, b.bands[l], m.buffers[l].bands);
  for (size_t l = 0; l < m.layout.size(); ++l) take(*m.mapped, b.ll[l], m.buffers[l].ll);
  next = 0;
  for (size_t l = 0; l < m.layout.size(); ++l) take(*m.touched, b.windows[l], m.buffers[l].windows);
  if (rows_out) {
    m.rows_out = std::move(rows_out);
    take(*m.touched, b.out_rows, m.out_rows);
  }
  m.scratch_per_thread = b.scratch;
  m.scratch = (*m.touched)[sizes.touched.size() - 1];
  std::vector<std::pair<int64_t, int64_t>> stripes;
  for (int l = 0; l < m.depth(); ++l) stripes.emplace_back(first_stripe(l), last_stripe(l));
  m.steps = schedule(stripes);
  if (map_now) map_pages();
}

// The slab of the coarse planes, the bands and the LL rings in one run, every worker mapping
// 4 MiB at a time (the 12 buffers it was had been mapped a run each).
void RowBackStage::map_pages() { populate_pages({impl_->mapped->pages()}, impl_->threads); }

RowBackStage::~RowBackStage() = default;

int RowBackStage::row_levels() const { return impl_->depth(); }
void* RowBackStage::coarse(size_t c) const { return impl_->coarse[c].p; }
ptrdiff_t RowBackStage::coarse_stride(size_t c) const { return impl_->geometry(impl_->depth() - 1, c).coarse.width(); }
void RowBackStage::finish_coarse() { impl_->finish_coarse(); }
void* RowBackStage::band_row(int level, size_t c, int band, int64_t by) const { return impl_->band_row(level, c, band, by); }
ptrdiff_t RowBackStage::band_stride(int level, size_t c, int band) const { return impl_->geometry(level, c).band_width(band); }
int64_t RowBackStage::first_stripe(int level) const {
  return floor_div(impl_->layout[static_cast<size_t>(level)].rect.y0, 2 * impl_->stripe);
}
int64_t RowBackStage::last_stripe(int level) const {
  return floor_div(impl_->layout[static_cast<size_t>(level)].rect.y1 - 1, 2 * impl_->stripe);
}
const std::vector<RowBackStage::Step>& RowBackStage::steps() const { return impl_->steps; }
void RowBackStage::emit(int level, int64_t k, ptrdiff_t beside, ItemFn fn) { impl_->emit(level, k, beside, fn); }

}  // namespace j2k
