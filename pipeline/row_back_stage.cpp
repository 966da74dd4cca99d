// SPDX-License-Identifier: BSD-2-Clause
#include "pipeline/row_back_stage.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

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
// window of its own with the margins (row_geometry.hpp). A 4096-wide window of 32 rows and its margins is
// about 0.6 MiB a component, which stays in a core's L2 from the horizontal pass through to
// the samples (one of 2S = 128 rows, 2.1 MiB, did not: 1 thread, 4096^2, user + system 324 to
// 313 ms RGB lossless, 392 to 382 lossy). On more than four workers, that many rows for every
// four of them (128 on 16): each of a part's passes is a short parallel loop ending in a wait
// for the slowest worker, so a worker's share of a part stays about 8 rows (experiments.md,
// "The row stages on 16 threads").
constexpr int64_t kPartRows = 32;

constexpr const char* kWhat = "the decoder's rows";

using row_geometry::floor_div;
using row_geometry::Geometry;
using row_geometry::low_count;

// A component's geometry.
Geometry geometry_of(const BackStage::Component& c) { return Geometry(c.rect, c.levels, c.reversible); }

int64_t part_rows(int stripe_rows, int threads) {
  return std::min(2 * int64_t{stripe_rows}, kPartRows * ((worker_count(threads) + 3) / 4));
}

// A window's columns where the workers take a window's rows side by side in column ranges, each
// range made whole by one worker (its horizontal lifting on the range and `margin` columns
// more each side, left out as the window's edge rows are): ranges of `width` columns on the
// canvas's grid of that width (so each starts on an even column, an L column, as a window's
// first row is an L row), two a worker, at least kMinColumns wide (narrower ones would spend
// too much on their margins). On many workers a window's rows had gone to them by rows for
// the horizontal pass and by 64 columns for the vertical, so most of its values moved from
// one core's cache to another's between passes.
struct ColumnRanges {
  static constexpr int64_t kMinColumns = 64;
  int64_t width = 0, first = 0, count = 0;  // count 0: no ranges (one worker, or too narrow a rect)

  ColumnRanges() = default;
  // Ranges of `r` for `workers`, where `items_a_range` (a stripe's parts) times their count
  // give every worker one at least.
  ColumnRanges(const Rect& r, int64_t workers, int64_t items_a_range) {
    if (workers < 2 || r.empty()) return;
    const int64_t even = (r.width() + 2 * workers - 1) / (2 * workers);
    const int64_t w = std::max(kMinColumns, (even + 15) / 16 * 16);
    const int64_t n = floor_div(r.x1 - 1, w) - floor_div(r.x0, w) + 1;
    if (n * items_a_range < workers) return;
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
// - One worker (or where neither below applies): parts of `part` rows one after another, every
//   worker on each of a part's passes (rows, then columns, then samples: seven waits a part).
// - `rows_apart`: where a stripe's parts share evenly among two workers or more (two and four
//   for 64-high blocks), each part made whole by one worker in a window set of its own, a
//   stripe's parts in one run: one wait a stripe, and a part's rows stay in its worker's L2
//   from the horizontal pass to the samples.
// - `columns` (count > 0): otherwise, where the stripe's parts cut into column ranges
//   (ColumnRanges) give every worker one, each worker makes a part's rows of one range
//   whole.
struct Split {
  int64_t part = 0;
  bool rows_apart = false;
  ColumnRanges columns;
  int64_t sets = 1;  // window sets: one a worker, side by side
  int64_t held = 0;  // the output rows a component's band holds (with rows_out)
};
Split split_of(const Rect& r, int stripe_rows, int threads) {
  Split s;
  const int64_t workers = worker_count(threads), stripe_out = 2 * int64_t{stripe_rows};
  s.part = part_rows(stripe_rows, threads);
  const int64_t parts = (stripe_out + s.part - 1) / s.part;
  s.rows_apart = workers >= 2 && parts % workers == 0;
  if (!s.rows_apart) s.columns = ColumnRanges(r, workers, parts);
  const bool apart = s.rows_apart || s.columns.count > 0;
  s.sets = apart ? workers : 1;
  s.held = apart ? stripe_out : s.part;
  return s;
}

int64_t window_rows(const Split& s, int64_t margin) { return s.part + 2 * margin; }
// Values a window's row holds: the whole row, or a column range and its margins.
int64_t window_stride(const Split& s, int64_t w, int64_t margin) { return s.columns.count > 0 ? s.columns.stride(w, margin) : w; }

size_t scratch_values(const Geometry& g, const Split& s) {
  return std::max(host_rows_scratch(g.coarse), host_rows_scratch(Rect{0, 0, g.w, window_rows(s, g.margin)}));
}

}  // namespace

struct RowBackStage::Impl {
  std::vector<BackStage::Component> comps;
  std::vector<Geometry> geometry;
  bool mct = false;
  int64_t stripe = 0;  // S
  int threads = 1;
  int64_t margin = 0;  // the largest component's: one window for all (the MCT takes rows of all three at once)
  Split split;
  int64_t stride = 0;  // values a window row holds
  std::vector<std::unique_ptr<AlignedBuffer>> coarse, bands, windows;  // bands: 3 per component; windows: a set a worker side by side
  RowsOut rows_out;
  std::vector<std::unique_ptr<AlignedBuffer>> out_rows;  // with rows_out: a part's samples per component (side by side: a stripe's)
  std::unique_ptr<AlignedBuffer> scratch;
  size_t scratch_per_thread = 0;

  template <class T>
  T* scratch_of() const { return static_cast<T*>(scratch->p); }

  void finish_coarse() {
    for (size_t c = 0; c < comps.size(); ++c) {
      const Geometry& g = geometry[c];
      DwtLevel lv[kMaxLevels];
      const int n = dwt_levels(g.coarse, comps[c].levels - 1, lv);
      if (n == 0) continue;
      if (comps[c].reversible)
        host_inverse_levels(static_cast<int32_t*>(coarse[c]->p), g.coarse.width(), lv, n, threads, scratch_of<int32_t>(),
                            scratch_per_thread);
      else
        host_inverse_levels(static_cast<float*>(coarse[c]->p), g.coarse.width(), lv, n, threads, scratch_of<float>(),
                            scratch_per_thread);
    }
  }

  char* band_row(size_t c, int band, int64_t by) const {
    const int64_t slot = floor_div(by, stripe) % 3, row = by - floor_div(by, stripe) * stripe;
    const int64_t bw = geometry[c].band_width(band);
    return static_cast<char*>(bands[3 * c + static_cast<size_t>(band)]->p) + ((slot < 0 ? slot + 3 : slot) * stripe + row) * bw * 4;
  }

  // Component c's window in window set `set` (one set a worker where the parts go side by side).
  char* window(size_t set, size_t c) const { return static_cast<char*>(windows[set * comps.size() + c]->p); }

  // The horizontal pass of component c's window row y (of rows [w0, w0 + hw)), columns [x0,
  // x0 + n) of the canvas, from where its halves lie (the coarse plane and the bands' stripes:
  // an L row is [LL | HL], an H row [LH | HH]) into the window, its L rows first (the pyramid
  // order the vertical pass takes).
  void inverse_row(size_t c, char* into, int64_t w0, int casw, int64_t snw, int64_t y, int64_t x0, int64_t n, int worker) const {
    const Geometry& g = geometry[c];
    const int64_t rx0 = comps[c].rect.x0;
    const char *low, *high;
    if (y < snw) {
      const int64_t by = (w0 + casw + 2 * y) >> 1;
      low = static_cast<const char*>(coarse[c]->p) + (by - g.l_y0) * g.coarse.width() * 4;
      high = band_row(c, 0, by);
    } else {
      const int64_t by = (w0 + (1 - casw) + 2 * (y - snw)) >> 1;
      low = band_row(c, 1, by);
      high = band_row(c, 2, by);
    }
    // The range's first L value (even columns) and first H value (odd) in its halves.
    low += (((x0 + 1) >> 1) - ((rx0 + 1) >> 1)) * 4;
    high += ((x0 >> 1) - (rx0 >> 1)) * 4;
    char* out = into + y * stride * 4;
    const size_t at = static_cast<size_t>(worker) * scratch_per_thread;
    const int cas = static_cast<int>(x0 & 1);
    if (comps[c].reversible)
      host_inverse_row(reinterpret_cast<const int32_t*>(low), reinterpret_cast<const int32_t*>(high),
                       reinterpret_cast<int32_t*>(out), n, cas, scratch_of<int32_t>() + at);
    else
      host_inverse_row(reinterpret_cast<const float*>(low), reinterpret_cast<const float*>(high), reinterpret_cast<float*>(out),
                       n, cas, scratch_of<float>() + at);
  }

  void emit(int64_t k) {
    const Rect& r = comps[0].rect;
    const int64_t s0 = 2 * k * stripe, s1 = 2 * (k + 1) * stripe;
    const int64_t part = split.part;
    if (split.sets == 1) {
      for (int64_t p = s0; p < s1; p += part) {
        const int64_t e0 = std::max(r.y0, p), e1 = std::min({r.y1, s1, p + part});
        emit_rows(e0, e1, r.x0, r.x1, 0, threads, 0);
        if (rows_out && e1 > e0) hand_out(e0, e1);
      }
      return;
    }
    // Each part (of a column range) on one worker; the stripe's rows handed out once all are
    // made.
    const int64_t first = std::max(r.y0, s0), last = std::min(r.y1, s1);
    const ColumnRanges& cols = split.columns;
    const int64_t ranges = cols.count > 0 ? cols.count : 1;
    run_on_workers((s1 - s0 + part - 1) / part * ranges, worker_count(threads), [&](ptrdiff_t i, int worker) {
      const int64_t p = i / ranges, q = i % ranges;
      const int64_t e0 = std::max(first, s0 + p * part), e1 = std::min(last, s0 + (p + 1) * part);
      const int64_t x0 = cols.count > 0 ? cols.x0(r, q) : r.x0, x1 = cols.count > 0 ? cols.x1(r, q) : r.x1;
      emit_rows(e0, e1, x0, x1, worker, 1, e0 - first);
    });
    if (rows_out && last > first) hand_out(first, last);
  }

  // Output rows [e0, e1) from out_rows' row 0 on.
  void hand_out(int64_t e0, int64_t e1) const {
    std::vector<const uint8_t*> data;
    for (const std::unique_ptr<AlignedBuffer>& b : out_rows) data.push_back(static_cast<const uint8_t*>(b->p));
    rows_out(e0 - comps[0].rect.y0, e1 - e0, data);
  }

  // Output rows [e0, e1), a part of one stripe's, columns [x0, x1) of the canvas, in window
  // set `set`, on `inner` threads (1: on the calling worker, whose index `set` is); with
  // rows_out, into out_rows from row `out_row` (emit() hands them out). The window holds the
  // rows and columns with their margins, but where they reach the rect's edge.
  void emit_rows(int64_t e0, int64_t e1, int64_t x0, int64_t x1, int set, int inner, int64_t out_row) {
    const Rect& r = comps[0].rect;
    if (e1 <= e0 || x1 <= x0) return;
    const int64_t w0 = std::max(r.y0, e0 - margin), w1 = std::min(r.y1, e1 + margin);
    const int64_t hw = w1 - w0;
    const int64_t v0 = std::max(r.x0, x0 - margin), v1 = std::min(r.x1, x1 + margin);  // the window's columns
    const int64_t n = v1 - v0;
    const int casw = static_cast<int>(w0 & 1);
    const int64_t snw = low_count(hw, casw);
    const bool alone = worker_count(inner) == 1;
    const size_t at = alone ? static_cast<size_t>(set) * scratch_per_thread : 0;  // the vertical pass's scratch
    std::vector<Plane> in(comps.size());
    TileOutput out;
    out.mct = mct;
    // Component by component, its horizontal then its vertical pass: the vertical pass reads
    // the window while the horizontal pass's rows are still in the core's L2 (all the
    // components' rows first left none of the first one there, when a window was a stripe's
    // 2 MiB; see kPartRows).
    for (size_t c = 0; c < comps.size(); ++c) {
      char* into = window(static_cast<size_t>(set), c);
      if (alone)
        for (int64_t y = 0; y < hw; ++y) inverse_row(c, into, w0, casw, snw, y, v0, n, set);
      else
        run_on_workers(hw, worker_count(inner), [&](ptrdiff_t y, int worker) { inverse_row(c, into, w0, casw, snw, y, v0, n, worker); });
      const Geometry& g = geometry[c];
      if (comps[c].reversible)
        host_inverse_vertical(reinterpret_cast<int32_t*>(into), stride, n, hw, casw, inner, scratch_of<int32_t>() + at,
                              scratch_per_thread);
      else
        host_inverse_vertical(reinterpret_cast<float*>(into), stride, n, hw, casw, inner, scratch_of<float>() + at,
                              scratch_per_thread);
      Plane& p = in[c];
      p.base = into;
      p.offset = static_cast<size_t>(((e0 - w0) * stride + (x0 - v0)) * 4);
      p.type = comps[c].reversible ? J2K_SAMPLE_I32 : J2K_SAMPLE_F32;
      p.row_stride = stride * 4;
      p.pixel_stride = 4;
      p.width = x1 - x0;
      p.height = e1 - e0;
      Plane home = comps[c].home;
      if (rows_out) {
        home.base = out_rows[c]->p;
        home.row_stride = g.w * home.pixel_stride;
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
    host_to_samples(in, out, inner);
  }
};

bool RowBackStage::fits(const std::vector<BackStage::Component>& comps, int stripe_rows) {
  if (comps.empty() || stripe_rows < 4) return false;
  for (const BackStage::Component& c : comps) {
    if (c.levels < 1 || c.rect.empty() || !(c.window == c.rect) || !(c.rect == comps[0].rect)) return false;
    if (c.home.memory != J2K_MEMORY_HOST || c.home.width != c.rect.width() || c.home.height != c.rect.height()) return false;
    // The LL of the finest level is the next resolution, as the whole-plane DWT lays it out.
    const Geometry g = geometry_of(c);
    DwtLevel lv[kMaxLevels];
    if (dwt_levels(c.rect, c.levels, lv) < 1 || lv[0].cas_x != g.cas_x || lv[0].cas_y != g.cas_y) return false;
    if (g.coarse.width() != g.sn_x || g.coarse.height() != low_count(g.h, g.cas_y) || g.coarse.y0 != g.l_y0) return false;
  }
  return true;
}

uint64_t RowBackStage::bytes(const std::vector<BackStage::Component>& comps, int stripe_rows, int threads, bool rows_out) {
  uint64_t n = 0, scratch = 0;
  int64_t margin = 0;
  for (const BackStage::Component& c : comps) margin = std::max(margin, geometry_of(c).margin);
  const Split split = split_of(comps.empty() ? Rect{} : comps[0].rect, stripe_rows, threads);
  for (const BackStage::Component& c : comps) {
    const Geometry g = geometry_of(c);
    n += static_cast<uint64_t>(g.coarse.width()) * static_cast<uint64_t>(g.coarse.height()) * 4;
    n += uint64_t{3} * static_cast<uint64_t>(stripe_rows) * static_cast<uint64_t>(g.sn_x + 2 * g.dn_x) * 4;
    n += static_cast<uint64_t>(split.sets) *
         (static_cast<uint64_t>(window_rows(split, margin)) * static_cast<uint64_t>(window_stride(split, g.w, margin)) * 4 + 64);
    if (rows_out) n += static_cast<uint64_t>(split.held) * static_cast<uint64_t>(g.w) * j2k_sample_size(c.home.type) + 64;
    Geometry wide = g;
    wide.margin = margin;
    scratch = std::max<uint64_t>(scratch, scratch_values(wide, split));
  }
  return n + scratch * static_cast<uint64_t>(worker_count(threads)) * 4 + 64 * (4 * comps.size() + 1);
}

RowBackStage::RowBackStage(const std::vector<BackStage::Component>& comps, bool mct, int stripe_rows, int threads, RowsOut rows_out,
                           bool map_now)
    : impl_(std::make_unique<Impl>()) {
  if (!fits(comps, stripe_rows)) throw Error(ErrorCode::Internal, "row back stage: components it does not take");
  Impl& m = *impl_;
  m.comps = comps;
  m.mct = mct && comps.size() >= 3;
  m.stripe = stripe_rows;
  m.threads = threads;
  for (const BackStage::Component& c : comps) {
    m.geometry.push_back(geometry_of(c));
    m.margin = std::max(m.margin, m.geometry.back().margin);
  }
  m.split = split_of(comps[0].rect, stripe_rows, threads);
  m.stride = window_stride(m.split, m.geometry[0].w, m.margin);
  size_t scratch = 0;
  // The coarse planes and the band rows, which Tier-1 fills a block at a time; map_pages()
  // maps their pages.
  for (Geometry g : m.geometry) {
    g.margin = m.margin;
    m.coarse.push_back(std::make_unique<AlignedBuffer>(static_cast<size_t>(g.coarse.width() * g.coarse.height()) * 4, kWhat));
    for (int b = 0; b < 3; ++b)
      m.bands.push_back(std::make_unique<AlignedBuffer>(static_cast<size_t>(3 * m.stripe * g.band_width(b)) * 4, kWhat));
    scratch = std::max(scratch, scratch_values(g, m.split));
  }
  for (int64_t set = 0; set < m.split.sets; ++set)  // windows[set * components + c]
    for (size_t c = 0; c < comps.size(); ++c)
      m.windows.push_back(std::make_unique<AlignedBuffer>(static_cast<size_t>(window_rows(m.split, m.margin) * m.stride) * 4, kWhat));
  if (rows_out) {
    m.rows_out = std::move(rows_out);
    for (size_t c = 0; c < comps.size(); ++c)
      m.out_rows.push_back(
          std::make_unique<AlignedBuffer>(static_cast<size_t>(m.split.held * m.geometry[c].w) * j2k_sample_size(comps[c].home.type), kWhat));
  }
  m.scratch_per_thread = scratch;
  m.scratch = std::make_unique<AlignedBuffer>(scratch * static_cast<size_t>(worker_count(threads)) * 4, kWhat);
  if (map_now) map_pages();
}

// In one run, so that every worker maps a piece at a time (the planes' 12 buffers had been
// mapped a run each).
void RowBackStage::map_pages() {
  const Impl& m = *impl_;
  std::vector<PageRange> ranges;
  for (const auto* buffers : {&m.coarse, &m.bands})
    for (const std::unique_ptr<AlignedBuffer>& b : *buffers) ranges.push_back(b->pages());
  populate_pages(ranges, m.threads);
}

RowBackStage::~RowBackStage() = default;

void* RowBackStage::coarse(size_t c) const { return impl_->coarse[c]->p; }
ptrdiff_t RowBackStage::coarse_stride(size_t c) const { return impl_->geometry[c].coarse.width(); }
void RowBackStage::finish_coarse() { impl_->finish_coarse(); }
void* RowBackStage::band_row(size_t c, int band, int64_t by) const { return impl_->band_row(c, band, by); }
ptrdiff_t RowBackStage::band_stride(size_t c, int band) const { return impl_->geometry[c].band_width(band); }
int64_t RowBackStage::first_stripe() const { return floor_div(impl_->comps[0].rect.y0, 2 * impl_->stripe); }
int64_t RowBackStage::last_stripe() const { return floor_div(impl_->comps[0].rect.y1 - 1, 2 * impl_->stripe); }
void RowBackStage::emit(int64_t k) { impl_->emit(k); }

}  // namespace j2k
