// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier2/progression.hpp"

#include <algorithm>
#include <cassert>
#include <functional>
#include <iterator>
#include <queue>
#include <utility>

namespace j2k::codec {
namespace {

// Coordinates are never negative (B.2: the reference grid starts at 0).
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t ceil_shift(int64_t a, int k) { return (a + (int64_t{1} << k) - 1) >> k; }

// XRsiz * 2^e on the reference grid. COD and SIZ keep e = PPx + NL - r <= 47 and XRsiz <= 255;
// the cap only keeps nonsense from overflowing, and changes nothing: past 2^40 a step has no
// multiple on the grid (coordinates < 2^32) but 0, whatever its exact size.
constexpr int kMaxShift = 40;
int64_t reference_step(int factor, int e) { return int64_t{factor} << std::min(e, kMaxShift); }

// One resolution r of one component i, as the position-driven progressions see it from the
// reference grid. Only resolutions with precincts get one: the others have no packets.
struct Stream {
  int component = 0, resolution = 0;
  int first_layer = 0, end_layer = 0;  // the layers it sends in this pass
  const ResolutionGrid* grid = nullptr;
  int64_t sample_x = 1, sample_y = 1;  // XRsiz * 2^(NL - r): one sample of the resolution
  int64_t step_x = 1, step_y = 1;      // XRsiz * 2^(PPx + NL - r): one precinct
  // B.12.1.3: the tile's first column (row) also starts a precinct when trx0 * 2^(NL - r) is
  // not a multiple of 2^(PPx + NL - r), i.e. when trx0 is not a multiple of 2^PPx: the tile
  // then begins inside its first precinct column, whose left edge (a multiple of step_x) lies
  // left of tx0 and is never reached by the walk.
  bool first_column = false, first_row = false;
};

Stream make_stream(const ComponentGrid& c, int i, int r) {
  const ResolutionGrid& g = c.resolutions[static_cast<size_t>(r)];
  const int below = static_cast<int>(c.resolutions.size()) - 1 - r;  // NL - r
  Stream s;
  s.component = i;
  s.resolution = r;
  s.grid = &g;
  s.sample_x = reference_step(c.dx, below);
  s.sample_y = reference_step(c.dy, below);
  s.step_x = reference_step(c.dx, g.ppx + below);
  s.step_y = reference_step(c.dy, g.ppy + below);
  s.first_column = (g.x0 & ((int64_t{1} << g.ppx) - 1)) != 0;
  s.first_row = (g.y0 & ((int64_t{1} << g.ppy) - 1)) != 0;
  return s;
}

// The precinct a stream starts at (x, y), from the position as B.12.1.3 gives it: the
// resolution's first sample at or after x, ceil(x / (XRsiz * 2^(NL - r))), lies in precinct
// column floor(. / 2^PPx) of the partition anchored at 0; counted from the resolution's first
// column floor(trx0 / 2^PPx), raster order.
int64_t precinct_at(const Stream& s, int64_t x, int64_t y) {
  const ResolutionGrid& g = *s.grid;
  const int64_t col = (ceil_div(x, s.sample_x) >> g.ppx) - (g.x0 >> g.ppx);
  const int64_t row = (ceil_div(y, s.sample_y) >> g.ppy) - (g.y0 >> g.ppy);
  assert(col >= 0 && col < g.precincts_x && row >= 0 && row < g.precincts_y);
  return col + g.precincts_x * row;
}

// The standard's loops run over every t0 <= t < t1 and test, for each stream, "t divisible by
// its step, or t = t0 with the first-row (column) case". Only the positions where some stream
// passes that test can yield packets, so this visits exactly those: the multiples of each
// member's step, merged in increasing order (plus t0 for those with the first-row case).
// visit(t, firing) gets the members that pass at t in increasing order (the heap's pair order
// breaks ties by member), which is the order of the standard's inner loop, since members are
// stream indices and the streams are indexed in that order. Each member passes once per precinct
// row (column) it has, so the work is about the number of precincts, not the tile's size.
template <class StepOf, class Visit>
void merge_positions(const std::vector<int>& members, int64_t t0, int64_t t1, StepOf step_of, Visit visit,
                     uint64_t& steps) {
  using Entry = std::pair<int64_t, int>;  // (next position, member)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
  for (int m : members) {
    const auto [step, first] = step_of(m);
    // With the first-row case t0 itself is not a multiple of the step (trx0 would then be a
    // multiple of 2^PPx), so the member passes at t0 once, then at the multiples after it.
    const int64_t t = first ? t0 : ceil_div(t0, step) * step;
    if (t < t1) heap.push({t, m});
  }
  std::vector<int> firing;
  while (!heap.empty()) {
    const int64_t t = heap.top().first;
    firing.clear();
    while (!heap.empty() && heap.top().first == t) {
      ++steps;
      const int m = heap.top().second;
      heap.pop();
      firing.push_back(m);
      const int64_t step = step_of(m).first;
      const int64_t next = (t / step + 1) * step;
      if (next < t1) heap.push({next, m});
    }
    visit(t, firing);
  }
}

// B.12.1.3 to B.12.1.5's common core: for y, for x (the reference-grid positions of the tile),
// for each stream of `group` in its order, a precinct where both tests pass. `streams` are
// indexed in the order of the progression's innermost component / resolution loops.
template <class Emit>
void walk_positions(const std::vector<Stream>& streams, const std::vector<int>& group, int64_t tx0, int64_t ty0,
                    int64_t tx1, int64_t ty1, Emit emit, uint64_t& steps) {
  const auto at = [&](int m) -> const Stream& { return streams[static_cast<size_t>(m)]; };
  const auto rows = [&](int m) { return std::make_pair(at(m).step_y, at(m).first_row); };
  const auto columns = [&](int m) { return std::make_pair(at(m).step_x, at(m).first_column); };
  merge_positions(group, ty0, ty1, rows, [&](int64_t y, const std::vector<int>& at_y) {
    // Only the streams whose row test passes at y can pass both tests on this row.
    merge_positions(at_y, tx0, tx1, columns, [&](int64_t x, const std::vector<int>& at_xy) {
      for (int m : at_xy) emit(at(m), x, y);
    }, steps);
  }, steps);
}

// LRCP's and RLCP's "for each layer" over `members` (streams, in the order of the loops inside
// the layer one): at layer l, the members whose layers hold l, each with all its precincts.
// Members join in order of their first layer and leave after their last, so that a layer
// visits only members with packets in it: the work is the packets, not layers x members.
template <class Emit>
void each_layer(const std::vector<Stream>& streams, const std::vector<int>& members, Emit emit, uint64_t& steps) {
  const auto first = [&](int rank) { return streams[static_cast<size_t>(members[static_cast<size_t>(rank)])].first_layer; };
  std::vector<int> pending(members.size());  // ranks in `members`, by first layer
  for (size_t k = 0; k < pending.size(); ++k) pending[k] = static_cast<int>(k);
  std::stable_sort(pending.begin(), pending.end(), [&](int a, int b) { return first(a) < first(b); });
  std::vector<int> active, joining, merged;  // ranks, in order
  size_t next = 0;
  int l = 0;
  while (next < pending.size() || !active.empty()) {
    if (active.empty()) l = std::max(l, first(pending[next]));
    joining.clear();
    while (next < pending.size() && first(pending[next]) <= l) joining.push_back(pending[next++]);
    std::sort(joining.begin(), joining.end());
    merged.clear();
    std::merge(active.begin(), active.end(), joining.begin(), joining.end(), std::back_inserter(merged));
    active.clear();
    for (int rank : merged) {
      ++steps;
      const Stream& s = streams[static_cast<size_t>(members[static_cast<size_t>(rank)])];
      if (l >= s.end_layer) continue;  // its last layer is behind: it leaves
      active.push_back(rank);
      emit(s, l);
    }
    ++l;
  }
}

int64_t precinct_count(const ResolutionGrid& g) { return g.precincts_x * g.precincts_y; }

}  // namespace

ResolutionGrid resolution_grid(int64_t tcx0, int64_t tcy0, int64_t tcx1, int64_t tcy1, int levels, int r, int ppx,
                               int ppy) {
  // B.5: resolution r is the LL band after NL - r levels, each halving the grid (rounding up).
  ResolutionGrid g;
  const int below = levels - r;
  g.x0 = ceil_shift(tcx0, below);
  g.y0 = ceil_shift(tcy0, below);
  g.x1 = ceil_shift(tcx1, below);
  g.y1 = ceil_shift(tcy1, below);
  g.ppx = ppx;
  g.ppy = ppy;
  // B.6: the precincts that meet the resolution. An empty one (B.6's "numprecincts = 0" when
  // trx0 = trx1 or try0 = try1) has none in either direction.
  if (g.x1 > g.x0 && g.y1 > g.y0) {
    g.precincts_x = ceil_shift(g.x1, ppx) - (g.x0 >> ppx);
    g.precincts_y = ceil_shift(g.y1, ppy) - (g.y0 >> ppy);
  }
  return g;
}

std::vector<PacketId> packet_order(Progression p, int layers, const std::vector<ComponentGrid>& components,
                                   int64_t tx0, int64_t ty0, int64_t tx1, int64_t ty1) {
  std::vector<StreamLayers> all;
  for (int i = 0; i < static_cast<int>(components.size()); ++i)
    for (int r = 0; r < static_cast<int>(components[static_cast<size_t>(i)].resolutions.size()); ++r)
      all.push_back({i, r, 0, layers});
  std::vector<PacketId> out;
  uint64_t steps = 0;
  packet_order_of(p, components, all, tx0, ty0, tx1, ty1, out, steps);
  return out;
}

void packet_order_of(Progression p, const std::vector<ComponentGrid>& components, const std::vector<StreamLayers>& sending,
                     int64_t tx0, int64_t ty0, int64_t tx1, int64_t ty1, std::vector<PacketId>& out, uint64_t& steps) {
  // The streams with packets to send, indexed component-major, resolution-minor, so that
  // increasing index is PCRL's inner "for i, for r", and, inside one resolution (RPCL) or one
  // component (CPRL), that progression's innermost loop too.
  std::vector<Stream> streams;
  int resolutions = 0;  // Nmax + 1 (B.12.1: r runs to the largest NL of the tile's components)
  int64_t packets = 0;
  for (const StreamLayers& k : sending) {
    ++steps;
    const ComponentGrid& c = components[static_cast<size_t>(k.component)];
    if (k.resolution >= static_cast<int>(c.resolutions.size())) continue;  // r > NL(i): none (B.12.1.1)
    const int64_t n = precinct_count(c.resolutions[static_cast<size_t>(k.resolution)]);
    if (n == 0 || k.end_layer <= k.first_layer) continue;
    Stream s = make_stream(c, k.component, k.resolution);
    s.first_layer = k.first_layer, s.end_layer = k.end_layer;
    streams.push_back(s);
    resolutions = std::max(resolutions, k.resolution + 1);
    packets += n * (k.end_layer - k.first_layer);  // below 2^55: read_tile_packets' bound on precincts
  }
  std::sort(streams.begin(), streams.end(), [](const Stream& a, const Stream& b) {
    return std::make_pair(a.component, a.resolution) < std::make_pair(b.component, b.resolution);
  });
  out.reserve(out.size() + static_cast<size_t>(packets));

  // Every precinct of a stream at layer l (LRCP, RLCP: precinct is the innermost loop).
  const auto emit_layer = [&](const Stream& s, int l) {
    for (int64_t k = 0; k < precinct_count(*s.grid); ++k, ++steps) out.push_back({l, s.resolution, s.component, k});
  };
  // A stream's precinct at (x, y), its layers in a row (layer is innermost in RPCL, PCRL, CPRL).
  const auto emit_position = [&](const Stream& s, int64_t x, int64_t y) {
    const int64_t k = precinct_at(s, x, y);
    for (int l = s.first_layer; l < s.end_layer; ++l, ++steps) out.push_back({l, s.resolution, s.component, k});
  };
  // The streams of each resolution, and of each component that has some (in a row, as they
  // are sorted), in index order: groups made once, in proportion to the streams sent.
  std::vector<std::vector<int>> by_resolution(static_cast<size_t>(resolutions)), by_component;
  std::vector<int> every;
  for (int m = 0; m < static_cast<int>(streams.size()); ++m) {
    const Stream& s = streams[static_cast<size_t>(m)];
    by_resolution[static_cast<size_t>(s.resolution)].push_back(m);
    if (m == 0 || streams[static_cast<size_t>(m) - 1].component != s.component) by_component.emplace_back();
    by_component.back().push_back(m);
    every.push_back(m);
  }

  switch (p) {
    case Progression::LRCP: {  // B.12.1.1: layer, resolution, component, precinct
      std::vector<int> resolution_major;
      for (const std::vector<int>& group : by_resolution) resolution_major.insert(resolution_major.end(), group.begin(), group.end());
      each_layer(streams, resolution_major, emit_layer, steps);
      return;
    }
    case Progression::RLCP:  // B.12.1.2: resolution, layer, component, precinct
      for (const std::vector<int>& group : by_resolution) each_layer(streams, group, emit_layer, steps);
      return;
    case Progression::RPCL:  // B.12.1.3: for r, for y, for x, for i (each component that has r)
      for (const std::vector<int>& group : by_resolution) walk_positions(streams, group, tx0, ty0, tx1, ty1, emit_position, steps);
      return;
    case Progression::PCRL:  // B.12.1.4: for y, for x, for i, for r
      walk_positions(streams, every, tx0, ty0, tx1, ty1, emit_position, steps);
      return;
    case Progression::CPRL:  // B.12.1.5: for i, for y, for x, for r
      for (const std::vector<int>& group : by_component) walk_positions(streams, group, tx0, ty0, tx1, ty1, emit_position, steps);
      return;
  }
}

}  // namespace j2k::codec
