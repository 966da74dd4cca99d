// SPDX-License-Identifier: BSD-2-Clause
#include "pipeline/row_front_stage.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/memory_pages.hpp"
#include "common/parallel/parallel_for.hpp"
#include "common/parallel/worker_pool.hpp"
#include "pipeline/aligned_buffer.hpp"
#include "pipeline/row_geometry.hpp"
#include "transform/host_rows.hpp"

namespace j2k {
namespace {

constexpr const char* kWhat = "the encoder's rows";

using row_geometry::floor_div;
using row_geometry::Geometry;
using row_geometry::low_count;

// A component's geometry.
Geometry geometry_of(const RowFrontStage::Component& c) { return Geometry(c.rect, c.levels, c.reversible); }

int64_t window_rows(int stripe_rows, int64_t margin) { return 2 * int64_t{stripe_rows} + 2 * margin; }

size_t scratch_values(const Geometry& g, int stripe_rows) {
  return std::max(host_rows_scratch(g.coarse), host_rows_scratch(Rect{0, 0, g.w, window_rows(stripe_rows, g.margin)}));
}

}  // namespace

struct RowFrontStage::Impl {
  std::vector<Component> comps;
  std::vector<Geometry> geometry;
  bool mct = false;
  int64_t stripe = 0;  // S
  int threads = 1;
  int64_t margin = 0;  // the largest component's: one window for all (the MCT takes rows of all three at once)
  int64_t current = 0;  // the stripe whose band rows the bands hold
  std::vector<std::unique_ptr<AlignedBuffer>> coarse, bands, windows;  // bands: 3 per component
  std::unique_ptr<AlignedBuffer> scratch;
  size_t scratch_per_thread = 0;
  TileSamples window_samples;      // the window's rows of the tile's samples
  std::vector<Plane> window_planes;  // and where their shift and MCT go

  template <class T>
  T* scratch_of() const { return static_cast<T*>(scratch->p); }

  char* band_row(size_t c, int band, int64_t by) const {
    const int64_t bw = geometry[c].band_width(band);
    return static_cast<char*>(bands[3 * c + static_cast<size_t>(band)]->p) + (by - current * stripe) * bw * 4;
  }

  // The horizontal pass of component c's window rows (pyramid order, L rows first) whose
  // tile-component row lies in [e0, e1): an L row's halves to the coarse plane (LL) and HL,
  // an H row's to LH and HH.
  void forward_rows(size_t c, int64_t w0, int64_t hw, int casw, int64_t snw, int64_t e0, int64_t e1) {
    const Geometry& g = geometry[c];
    run_on_workers(hw, worker_count(threads), [&](ptrdiff_t y, int) {
      const int64_t row = y < snw ? w0 + casw + 2 * y : w0 + (1 - casw) + 2 * (y - snw);
      if (row < e0 || row >= e1) return;
      const int64_t by = row >> 1;
      char *low, *high;
      if (y < snw) {
        low = static_cast<char*>(coarse[c]->p) + (by - g.l_y0) * g.coarse.width() * 4;
        high = band_row(c, 0, by);
      } else {
        low = band_row(c, 1, by);
        high = band_row(c, 2, by);
      }
      const char* in = static_cast<const char*>(windows[c]->p) + y * g.w * 4;
      if (comps[c].reversible)
        host_forward_row(reinterpret_cast<const int32_t*>(in), reinterpret_cast<int32_t*>(low), reinterpret_cast<int32_t*>(high),
                         g.w, g.cas_x);
      else
        host_forward_row(reinterpret_cast<const float*>(in), reinterpret_cast<float*>(low), reinterpret_cast<float*>(high), g.w,
                         g.cas_x);
    });
  }

  bool run(const TileSamples& samples, int64_t k) {
    current = k;
    const Rect& r = comps[0].rect;
    const int64_t e0 = std::max(r.y0, 2 * k * stripe), e1 = std::min(r.y1, 2 * (k + 1) * stripe);
    if (e1 <= e0) return true;
    const int64_t w0 = std::max(r.y0, e0 - margin), w1 = std::min(r.y1, e1 + margin);
    const int64_t hw = w1 - w0;
    const int casw = static_cast<int>(w0 & 1);
    const int64_t snw = low_count(hw, casw);
    // The window's rows of every component first (the MCT takes all three), then component
    // by component its vertical pass and its rows' horizontal pass.
    TileSamples& t = window_samples;
    t.in = samples.in;
    t.offset = samples.offset;
    t.lo = samples.lo;
    t.hi = samples.hi;
    t.fused.assign(comps.size(), 0);
    t.mct = mct;
    for (size_t c = 0; c < comps.size(); ++c) {
      t.in[c].offset += static_cast<size_t>((w0 - r.y0) * t.in[c].row_stride);
      t.in[c].height = hw;
      window_planes[c].height = hw;
    }
    const bool ok = host_shift_mct(t, comps[0].reversible, window_planes, threads);
    for (size_t c = 0; c < comps.size(); ++c) {
      const Geometry& g = geometry[c];
      if (comps[c].reversible)
        host_forward_vertical(static_cast<int32_t*>(windows[c]->p), g.w, g.w, hw, casw, threads, scratch_of<int32_t>(),
                              scratch_per_thread);
      else
        host_forward_vertical(static_cast<float*>(windows[c]->p), g.w, g.w, hw, casw, threads, scratch_of<float>(),
                              scratch_per_thread);
      forward_rows(c, w0, hw, casw, snw, e0, e1);
    }
    return ok;
  }

  void finish_coarse() {
    for (size_t c = 0; c < comps.size(); ++c) {
      const Geometry& g = geometry[c];
      DwtLevel lv[kMaxLevels];
      const int n = dwt_levels(g.coarse, comps[c].levels - 1, lv);
      if (n == 0) continue;
      if (comps[c].reversible)
        host_forward_levels(static_cast<int32_t*>(coarse[c]->p), g.coarse.width(), lv, n, threads, scratch_of<int32_t>(),
                            scratch_per_thread);
      else
        host_forward_levels(static_cast<float*>(coarse[c]->p), g.coarse.width(), lv, n, threads, scratch_of<float>(),
                            scratch_per_thread);
    }
  }
};

bool RowFrontStage::fits(const std::vector<Component>& comps, int stripe_rows) {
  if (comps.empty() || stripe_rows < 4) return false;
  for (const Component& c : comps) {
    if (c.levels < 1 || c.rect.empty() || !(c.rect == comps[0].rect) || c.reversible != comps[0].reversible) return false;
    // The LL of the finest level is the next resolution, and its levels those of the whole
    // tile-component's after the first, as the whole-plane DWT lays them out.
    const Geometry g = geometry_of(c);
    DwtLevel lv[kMaxLevels], next[kMaxLevels];
    if (dwt_levels(c.rect, c.levels, lv) < 1 || lv[0].cas_x != g.cas_x || lv[0].cas_y != g.cas_y) return false;
    if (g.coarse.width() != g.sn_x || g.coarse.height() != low_count(g.h, g.cas_y) || g.coarse.y0 != g.l_y0) return false;
    const int n = dwt_levels(g.coarse, c.levels - 1, next);
    for (int i = 0; i < n; ++i)
      if (next[i].width != lv[i + 1].width || next[i].height != lv[i + 1].height || next[i].cas_x != lv[i + 1].cas_x ||
          next[i].cas_y != lv[i + 1].cas_y)
        return false;
  }
  return true;
}

uint64_t RowFrontStage::bytes(const std::vector<Component>& comps, int stripe_rows, int threads) {
  uint64_t n = 0, scratch = 0, margin = 0;
  for (const Component& c : comps) margin = std::max<uint64_t>(margin, geometry_of(c).margin);
  for (const Component& c : comps) {
    const Geometry g = geometry_of(c);
    n += static_cast<uint64_t>(g.coarse.width()) * static_cast<uint64_t>(g.coarse.height()) * 4;
    n += static_cast<uint64_t>(stripe_rows) * static_cast<uint64_t>(g.sn_x + 2 * g.dn_x) * 4;
    n += static_cast<uint64_t>(window_rows(stripe_rows, static_cast<int64_t>(margin))) * static_cast<uint64_t>(g.w) * 4;
    Geometry wide = g;
    wide.margin = static_cast<int64_t>(margin);
    scratch = std::max<uint64_t>(scratch, scratch_values(wide, stripe_rows));
  }
  return n + scratch * static_cast<uint64_t>(worker_count(threads)) * 4 + 64 * (5 * comps.size() + 1);
}

RowFrontStage::RowFrontStage(const std::vector<Component>& comps, bool mct, int stripe_rows, int threads)
    : impl_(std::make_unique<Impl>()) {
  if (!fits(comps, stripe_rows)) throw Error(ErrorCode::Internal, "row front stage: components it does not take");
  Impl& m = *impl_;
  m.comps = comps;
  m.mct = mct && comps.size() >= 3;
  m.stripe = stripe_rows;
  m.threads = threads;
  for (const Component& c : comps) {
    m.geometry.push_back(geometry_of(c));
    m.margin = std::max(m.margin, m.geometry.back().margin);
  }
  size_t scratch = 0;
  // The coarse planes, which the rows fill in order, their pages mapped first on the threads
  // that then fill them, every buffer's in one run (common/memory_pages.hpp; the planes had
  // been mapped a run each, four workers at a time); on more than two workers the bands' and
  // the windows' too, which the passes' workers had faulted in together (on one and two, the
  // development machine measured that 2% to 5% slower).
  std::vector<PageRange> pages;
  const bool all = worker_count(threads) > 2;
  for (size_t c = 0; c < comps.size(); ++c) {
    Geometry g = m.geometry[c];
    g.margin = m.margin;
    const auto add = [&](size_t bytes, bool mapped) {
      auto b = std::make_unique<AlignedBuffer>(bytes, kWhat);
      if (mapped) pages.push_back(b->pages());
      return b;
    };
    m.coarse.push_back(add(static_cast<size_t>(g.coarse.width() * g.coarse.height()) * 4, true));
    for (int b = 0; b < 3; ++b) m.bands.push_back(add(static_cast<size_t>(m.stripe * g.band_width(b)) * 4, all));
    m.windows.push_back(add(static_cast<size_t>(window_rows(stripe_rows, m.margin) * g.w) * 4, all));
    Plane p;
    p.base = m.windows.back()->p;
    p.type = comps[c].reversible ? J2K_SAMPLE_I32 : J2K_SAMPLE_F32;
    p.row_stride = g.w * 4;
    p.pixel_stride = 4;
    p.width = g.w;
    m.window_planes.push_back(p);
    scratch = std::max(scratch, scratch_values(g, stripe_rows));
  }
  m.scratch_per_thread = scratch;
  m.scratch = std::make_unique<AlignedBuffer>(scratch * static_cast<size_t>(worker_count(threads)) * 4, kWhat);
  populate_pages(pages, threads);
}

RowFrontStage::~RowFrontStage() = default;

int64_t RowFrontStage::first_stripe() const { return floor_div(impl_->comps[0].rect.y0, 2 * impl_->stripe); }
int64_t RowFrontStage::last_stripe() const { return floor_div(impl_->comps[0].rect.y1 - 1, 2 * impl_->stripe); }
bool RowFrontStage::run(const TileSamples& samples, int64_t k) { return impl_->run(samples, k); }
const void* RowFrontStage::band_row(size_t c, int band, int64_t by) const { return impl_->band_row(c, band, by); }
ptrdiff_t RowFrontStage::band_stride(size_t c, int band) const { return impl_->geometry[c].band_width(band); }
void RowFrontStage::finish_coarse() { impl_->finish_coarse(); }
const void* RowFrontStage::coarse(size_t c) const { return impl_->coarse[c]->p; }
ptrdiff_t RowFrontStage::coarse_stride(size_t c) const { return impl_->geometry[c].coarse.width(); }

}  // namespace j2k
