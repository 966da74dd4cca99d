// SPDX-License-Identifier: BSD-2-Clause
// The packet order of the five progressions (codec/tier2/progression) against an oracle that
// walks every reference-grid sample of small tiles exactly as ISO/IEC 15444-1 B.12.1.3 to
// B.12.1.5 write the loops, on many random tiles (odd origins, subsampled components, precincts
// smaller and larger than the resolutions); orders checked by hand; and big tiles, which the
// implementation must not walk sample by sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "codec/tier2/progression.hpp"
#include "codec/tier2/progression_changes.hpp"

namespace {

using j2k::codec::ComponentGrid;
using j2k::codec::PacketId;
using j2k::codec::packet_order;
using j2k::codec::parse_progression;
using j2k::codec::Progression;
using j2k::codec::resolution_grid;
using j2k::codec::ResolutionGrid;

using Key = std::tuple<int, int, int, int64_t>;  // layer, resolution, component, precinct

const Progression kAll[] = {Progression::LRCP, Progression::RLCP, Progression::RPCL, Progression::PCRL,
                            Progression::CPRL};
const char* const kNames[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t floor_div(int64_t a, int64_t b) { return a / b; }  // a >= 0 here
int64_t pow2(int e) { return int64_t{1} << e; }

std::vector<Key> keys(const std::vector<PacketId>& v) {
  std::vector<Key> out;
  out.reserve(v.size());
  for (const PacketId& p : v) out.emplace_back(p.layer, p.resolution, p.component, p.precinct);
  return out;
}

std::string show(const Key& k) {
  std::ostringstream s;
  s << "(l" << std::get<0>(k) << " r" << std::get<1>(k) << " c" << std::get<2>(k) << " k" << std::get<3>(k) << ")";
  return s.str();
}

// Equal sequences, or where they first differ.
testing::AssertionResult same_order(const std::vector<Key>& want, const std::vector<Key>& got) {
  const size_t n = std::min(want.size(), got.size());
  for (size_t j = 0; j < n; ++j)
    if (want[j] != got[j])
      return testing::AssertionFailure() << "packet " << j << ": want " << show(want[j]) << ", got " << show(got[j]);
  if (want.size() != got.size())
    return testing::AssertionFailure() << "want " << want.size() << " packets, got " << got.size();
  return testing::AssertionSuccess();
}

struct Tile {
  int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // on the reference grid
  int layers = 1;
  std::vector<ComponentGrid> components;
  std::string describe() const {
    std::ostringstream s;
    s << "tile [" << x0 << "," << x1 << ")x[" << y0 << "," << y1 << ") layers " << layers;
    for (const ComponentGrid& c : components) {
      s << " | dx " << c.dx << " dy " << c.dy << " NL " << c.resolutions.size() - 1 << " pp";
      for (const ResolutionGrid& g : c.resolutions) s << " " << g.ppx << "/" << g.ppy;
    }
    return s.str();
  }
};

int levels(const ComponentGrid& c) { return static_cast<int>(c.resolutions.size()) - 1; }

// A component of `t` (B.3: tcx0 = ceil(tx0 / XRsiz) and so on), precinct exponents per resolution.
ComponentGrid make_component(const Tile& t, int dx, int dy, const std::vector<std::pair<int, int>>& pp) {
  ComponentGrid c;
  c.dx = dx;
  c.dy = dy;
  const int nl = static_cast<int>(pp.size()) - 1;
  for (int r = 0; r <= nl; ++r)
    c.resolutions.push_back(resolution_grid(ceil_div(t.x0, dx), ceil_div(t.y0, dy), ceil_div(t.x1, dx),
                                            ceil_div(t.y1, dy), nl, r, pp[static_cast<size_t>(r)].first,
                                            pp[static_cast<size_t>(r)].second));
  return c;
}

std::vector<Key> order(Progression p, const Tile& t) {
  return keys(packet_order(p, t.layers, t.components, t.x0, t.y0, t.x1, t.y1));
}

// B.12.1.1 to B.12.1.5 as the standard writes them. The position-driven ones walk every
// reference-grid sample of the tile; where both divisibility tests pass, the packets of "the
// next precinct, k, if one exists, in the sequence shown in Figure B.8": a counter per
// resolution of each component, raster order. That k is checked against the standard's formula
// for k from (x, y), which the implementation uses.
class Oracle {
 public:
  explicit Oracle(const Tile& t) : t_(t) {
    for (const ComponentGrid& c : t.components) {
      next_.emplace_back(c.resolutions.size(), 0);
      nmax_ = std::max(nmax_, levels(c));
    }
  }

  std::vector<Key> run(Progression p) {
    for (auto& n : next_) std::fill(n.begin(), n.end(), 0);
    out_.clear();
    const int count = static_cast<int>(t_.components.size());
    switch (p) {
      case Progression::LRCP:  // B.12.1.1
        for (int l = 0; l < t_.layers; ++l)
          for (int r = 0; r <= nmax_; ++r)
            for (int i = 0; i < count; ++i)
              if (r <= levels(comp(i)))
                for (int64_t k = 0; k < precincts(i, r); ++k) out_.emplace_back(l, r, i, k);
        break;
      case Progression::RLCP:  // B.12.1.2
        for (int r = 0; r <= nmax_; ++r)
          for (int l = 0; l < t_.layers; ++l)
            for (int i = 0; i < count; ++i)
              if (r <= levels(comp(i)))
                for (int64_t k = 0; k < precincts(i, r); ++k) out_.emplace_back(l, r, i, k);
        break;
      case Progression::RPCL:  // B.12.1.3
        for (int r = 0; r <= nmax_; ++r)
          for (int64_t y = t_.y0; y < t_.y1; ++y)
            for (int64_t x = t_.x0; x < t_.x1; ++x)
              for (int i = 0; i < count; ++i)
                if (r <= levels(comp(i))) visit(i, r, x, y);
        break;
      case Progression::PCRL:  // B.12.1.4
        for (int64_t y = t_.y0; y < t_.y1; ++y)
          for (int64_t x = t_.x0; x < t_.x1; ++x)
            for (int i = 0; i < count; ++i)
              for (int r = 0; r <= levels(comp(i)); ++r) visit(i, r, x, y);
        break;
      case Progression::CPRL:  // B.12.1.5
        for (int i = 0; i < count; ++i)
          for (int64_t y = t_.y0; y < t_.y1; ++y)
            for (int64_t x = t_.x0; x < t_.x1; ++x)
              for (int r = 0; r <= levels(comp(i)); ++r) visit(i, r, x, y);
        break;
    }
    // The walk reaches every precinct (else its packets would be missing from the stream).
    if (p == Progression::LRCP || p == Progression::RLCP) return out_;
    for (int i = 0; i < count; ++i)
      for (int r = 0; r <= levels(comp(i)); ++r)
        EXPECT_EQ(next_[static_cast<size_t>(i)][static_cast<size_t>(r)], precincts(i, r)) << "c" << i << " r" << r;
    return out_;
  }

 private:
  const ComponentGrid& comp(int i) const { return t_.components[static_cast<size_t>(i)]; }
  const ResolutionGrid& grid(int i, int r) const { return comp(i).resolutions[static_cast<size_t>(r)]; }
  int64_t precincts(int i, int r) const { return grid(i, r).precincts_x * grid(i, r).precincts_y; }

  void visit(int i, int r, int64_t x, int64_t y) {
    const ComponentGrid& c = comp(i);
    const ResolutionGrid& g = grid(i, r);
    const int nl = levels(c);
    const bool row = y % (c.dy * pow2(g.ppy + nl - r)) == 0 ||
                     (y == t_.y0 && (g.y0 * pow2(nl - r)) % pow2(g.ppy + nl - r) != 0);
    const bool column = x % (c.dx * pow2(g.ppx + nl - r)) == 0 ||
                        (x == t_.x0 && (g.x0 * pow2(nl - r)) % pow2(g.ppx + nl - r) != 0);
    if (!row || !column) return;
    int64_t& k = next_[static_cast<size_t>(i)][static_cast<size_t>(r)];
    if (k >= precincts(i, r)) {
      // "if one exists": never the case for a resolution that has precincts.
      EXPECT_EQ(precincts(i, r), 0) << "c" << i << " r" << r << " passes at " << x << "," << y << " once too often";
      return;
    }
    const int64_t col = floor_div(ceil_div(x, c.dx * pow2(nl - r)), pow2(g.ppx)) - floor_div(g.x0, pow2(g.ppx));
    const int64_t row_index = floor_div(ceil_div(y, c.dy * pow2(nl - r)), pow2(g.ppy)) - floor_div(g.y0, pow2(g.ppy));
    const int64_t formula = col + g.precincts_x * row_index;
    EXPECT_EQ(formula, k) << "c" << i << " r" << r << " at " << x << "," << y;
    for (int l = 0; l < t_.layers; ++l) out_.emplace_back(l, r, i, k);
    ++k;
  }

  const Tile& t_;
  int nmax_ = 0;
  std::vector<std::vector<int64_t>> next_;
  std::vector<Key> out_;
};

// Every packet of the tile, sorted: each layer, component, resolution it has, precinct.
std::vector<Key> all_packets(const Tile& t) {
  std::vector<Key> out;
  for (int i = 0; i < static_cast<int>(t.components.size()); ++i) {
    const ComponentGrid& c = t.components[static_cast<size_t>(i)];
    for (int r = 0; r <= levels(c); ++r) {
      const ResolutionGrid& g = c.resolutions[static_cast<size_t>(r)];
      for (int l = 0; l < t.layers; ++l)
        for (int64_t k = 0; k < g.precincts_x * g.precincts_y; ++k) out.emplace_back(l, r, i, k);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Each packet exactly once: the sorted order is the sorted set of all packets.
testing::AssertionResult each_once(const Tile& t, std::vector<Key> got) {
  std::sort(got.begin(), got.end());
  const auto dup = std::adjacent_find(got.begin(), got.end());
  if (dup != got.end()) return testing::AssertionFailure() << "twice: " << show(*dup);
  return same_order(all_packets(t), got);
}

Tile random_tile(std::mt19937& rng) {
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  // Mostly small precincts (several per resolution), now and then the default 2^15.
  const auto exponent = [&]() { return uni(0, 8) == 8 ? 15 : uni(0, 6); };
  Tile t;
  t.x0 = uni(0, 1) ? uni(0, 100) : 4 * uni(0, 25);  // odd origins and aligned ones
  t.y0 = uni(0, 1) ? uni(0, 100) : 4 * uni(0, 25);
  t.x1 = t.x0 + uni(1, 70);
  t.y1 = t.y0 + uni(1, 70);
  t.layers = uni(1, 3);
  const int count = uni(1, 3);
  for (int i = 0; i < count; ++i) {
    const int dx = uni(1, 4), dy = uni(1, 4), nl = uni(0, 5);
    std::vector<std::pair<int, int>> pp;
    for (int r = 0; r <= nl; ++r) pp.emplace_back(exponent(), exponent());
    t.components.push_back(make_component(t, dx, dy, pp));
  }
  return t;
}

TEST(Progression, ParsesOpjCompressNames) {
  for (int j = 0; j < 5; ++j) {
    Progression p = Progression::LRCP;
    ASSERT_TRUE(parse_progression(kNames[j], p)) << kNames[j];
    EXPECT_EQ(p, kAll[j]);
    EXPECT_EQ(static_cast<int>(p), j);  // the COD code (Table A.16)
  }
  Progression p = Progression::RPCL;
  for (const char* bad : {"", "lrcp", "LRC", "LRCPX", "PLRC", " RPCL"}) {
    EXPECT_FALSE(parse_progression(bad, p)) << bad;
    EXPECT_EQ(p, Progression::RPCL);
  }
}

// B.5, B.6 by hand: the rectangle of resolution r and its precinct counts.
TEST(Progression, ResolutionGridByHand) {
  // Tile-component [3, 70) x [5, 6), NL 2, r 1: [ceil(3/2), ceil(70/2)) = [2, 35), [3, 3).
  ResolutionGrid g = resolution_grid(3, 5, 70, 6, 2, 1, 3, 0);
  EXPECT_EQ(g.x0, 2);
  EXPECT_EQ(g.x1, 35);
  EXPECT_EQ(g.y0, 3);
  EXPECT_EQ(g.y1, 3);
  EXPECT_EQ(g.precincts_x * g.precincts_y, 0);  // empty in y: no precincts
  // Same in x, rows [5, 19) at r 2 (NL 2: the component's own grid), precincts 8 x 4:
  // columns floor(3/8) = 0 .. ceil(70/8) = 9, rows floor(5/4) = 1 .. ceil(19/4) = 5.
  g = resolution_grid(3, 5, 70, 19, 2, 2, 3, 2);
  EXPECT_EQ(g.x0, 3);
  EXPECT_EQ(g.x1, 70);
  EXPECT_EQ(g.precincts_x, 9);
  EXPECT_EQ(g.precincts_y, 4);
  // A resolution smaller than its one precinct.
  g = resolution_grid(100, 100, 101, 103, 5, 0, 15, 15);
  EXPECT_EQ(g.x0, 4);
  EXPECT_EQ(g.x1, 4);  // ceil(101 / 32) = 4: no columns
  EXPECT_EQ(g.precincts_x, 0);
  g = resolution_grid(100, 100, 129, 129, 5, 0, 15, 15);  // [4, 5) x [4, 5): one sample
  EXPECT_EQ(g.x1, 5);
  EXPECT_EQ(g.precincts_x, 1);
  EXPECT_EQ(g.precincts_y, 1);
}

// resolution_grid against counting: the precincts are the distinct floor(u / 2^PPx) over the
// resolution's columns u (and rows likewise).
TEST(Progression, ResolutionGridCountsPrecincts) {
  std::mt19937 rng(7);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int run = 0; run < 2000; ++run) {
    const int64_t x0 = uni(0, 300), y0 = uni(0, 300), x1 = x0 + uni(0, 200), y1 = y0 + uni(0, 200);
    const int nl = uni(0, 6), r = uni(0, nl), ppx = uni(0, 7), ppy = uni(0, 7);
    const ResolutionGrid g = resolution_grid(x0, y0, x1, y1, nl, r, ppx, ppy);
    EXPECT_EQ(g.x0, ceil_div(x0, pow2(nl - r)));
    EXPECT_EQ(g.y1, ceil_div(y1, pow2(nl - r)));
    std::set<int64_t> cols, rows;
    for (int64_t u = g.x0; u < g.x1; ++u) cols.insert(u >> ppx);
    for (int64_t v = g.y0; v < g.y1; ++v) rows.insert(v >> ppy);
    const bool empty = cols.empty() || rows.empty();
    EXPECT_EQ(g.precincts_x, empty ? 0 : static_cast<int64_t>(cols.size()));
    EXPECT_EQ(g.precincts_y, empty ? 0 : static_cast<int64_t>(rows.size()));
  }
}

// POC's changes (B.12.2, as OpenJPEG reads them) against the standard's loops: each change
// runs its progression's loops (the oracle's, over its layers) and sends the packets in its
// resolutions and components that no change before sent. The changes' order takes each packet
// once; their count is the packets; none of it walks the packets once per change.
TEST(ProgressionChanges, SendEachPacketOnceInTheChangesOrder) {
  std::mt19937 rng(45);
  const auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int64_t packets = 0;
  for (int run = 0; run < 600; ++run) {
    const Tile t = random_tile(rng);
    std::vector<j2k::codec::PocEntry> changes;
    for (int k = uni(1, 6); k > 0; --k) {
      j2k::codec::PocEntry e{};
      e.res_start = uni(0, 5), e.res_end = uni(e.res_start + 1, 7);
      e.comp_start = uni(0, static_cast<int>(t.components.size()) - 1);
      e.comp_end = uni(e.comp_start + 1, static_cast<int>(t.components.size()));
      e.layer_end = uni(1, t.layers + 1);
      e.order = kAll[uni(0, 4)];
      changes.push_back(e);
    }
    SCOPED_TRACE(t.describe());
    std::vector<Key> want;
    std::set<Key> sent;
    for (const j2k::codec::PocEntry& e : changes) {
      Tile part = t;
      part.layers = std::min(e.layer_end, t.layers);
      for (const Key& k : Oracle(part).run(e.order)) {
        const int r = std::get<1>(k), c = std::get<2>(k);
        if (r >= e.res_start && r < e.res_end && c >= e.comp_start && c < e.comp_end && sent.insert(k).second) want.push_back(k);
      }
    }
    std::vector<PacketId> got;
    uint64_t steps = 0, count_steps = 0;
    j2k::codec::change_packet_order(changes, t.layers, t.components, t.x0, t.y0, t.x1, t.y1, got, steps);
    ASSERT_TRUE(same_order(want, keys(got)));
    EXPECT_EQ(j2k::codec::change_packet_count(changes, t.layers, t.components, count_steps), static_cast<int64_t>(want.size()));
    packets += static_cast<int64_t>(want.size());
  }
  EXPECT_GT(packets, 10000);  // the random cases are not all trivial
}

// (a) and (b): all five orders against the oracle, and each packet exactly once, on random
// small tiles.
TEST(Progression, MatchesTheStandardsLoopsOnRandomTiles) {
  std::mt19937 rng(20240515);
  int64_t packets = 0;
  for (int run = 0; run < 1500; ++run) {
    const Tile t = random_tile(rng);
    SCOPED_TRACE(t.describe());
    Oracle oracle(t);
    for (int j = 0; j < 5; ++j) {
      SCOPED_TRACE(kNames[j]);
      const std::vector<Key> got = order(kAll[j], t);
      ASSERT_TRUE(same_order(oracle.run(kAll[j]), got));
      ASSERT_TRUE(each_once(t, got));
      packets += static_cast<int64_t>(got.size());
    }
  }
  EXPECT_GT(packets, 100000);  // the random tiles are not all trivial
}

// The orders differ where they should: positions interleave components and resolutions.
TEST(Progression, PositionOrdersDifferOnRandomTiles) {
  std::mt19937 rng(99);
  int differ_pcrl_lrcp = 0, differ_rpcl_rlcp = 0;
  for (int run = 0; run < 300; ++run) {
    const Tile t = random_tile(rng);
    differ_pcrl_lrcp += order(Progression::PCRL, t) != order(Progression::LRCP, t);
    differ_rpcl_rlcp += order(Progression::RPCL, t) != order(Progression::RLCP, t);
  }
  EXPECT_GT(differ_pcrl_lrcp, 50);
  EXPECT_GT(differ_rpcl_rlcp, 50);
}

// (c) LRCP and RLCP by hand. Tile [0, 16) x [0, 8). Component 0: full size, NL 1, precincts
// 8 x 8: r 0 is 8 x 4 (one precinct), r 1 is 16 x 8 (two side by side). Component 1: XRsiz =
// YRsiz = 2 (8 x 4), NL 2, the default 2^15 precincts: one per resolution. Two layers.
Tile two_component_tile() {
  Tile t;
  t.x1 = 16;
  t.y1 = 8;
  t.layers = 2;
  t.components.push_back(make_component(t, 1, 1, {{3, 3}, {3, 3}}));
  t.components.push_back(make_component(t, 2, 2, {{15, 15}, {15, 15}, {15, 15}}));
  return t;
}

TEST(Progression, LrcpByHand) {
  const Tile t = two_component_tile();
  std::vector<Key> want;
  for (int l = 0; l < 2; ++l) {
    // r 0: both components; r 1: component 0's two precincts, then component 1; r 2:
    // component 1 alone (component 0 has no resolution 2).
    const std::vector<Key> layer = {{l, 0, 0, 0}, {l, 0, 1, 0}, {l, 1, 0, 0}, {l, 1, 0, 1}, {l, 1, 1, 0}, {l, 2, 1, 0}};
    want.insert(want.end(), layer.begin(), layer.end());
  }
  EXPECT_TRUE(same_order(want, order(Progression::LRCP, t)));
}

TEST(Progression, RlcpByHand) {
  const Tile t = two_component_tile();
  const std::vector<Key> want = {{0, 0, 0, 0}, {0, 0, 1, 0}, {1, 0, 0, 0}, {1, 0, 1, 0},  // r 0
                                 {0, 1, 0, 0}, {0, 1, 0, 1}, {0, 1, 1, 0},                // r 1, layer 0
                                 {1, 1, 0, 0}, {1, 1, 0, 1}, {1, 1, 1, 0},                // r 1, layer 1
                                 {0, 2, 1, 0}, {1, 2, 1, 0}};                             // r 2
  EXPECT_TRUE(same_order(want, order(Progression::RLCP, t)));
}

// The position-driven orders by hand, with an odd tile origin. Tile [1, 9) x [0, 1), one layer,
// NL 0. Component 0: full size [1, 9), precincts 4 wide: columns 0..2, which start (B.12.1.3)
// at x = 1 (the tile's first column: trx0 = 1 is inside precinct 0), 4 and 8. Component 1:
// XRsiz 2, [1, 5) on its grid, precincts 1 wide: 4 of them, at x = 2, 4, 6, 8 (x divisible by
// 2 * 2^0; trx0 = 1 is a multiple of 2^0, so no first-column case at x = 1).
TEST(Progression, PositionOrdersByHand) {
  Tile t;
  t.x0 = 1;
  t.x1 = 9;
  t.y1 = 1;
  t.components.push_back(make_component(t, 1, 1, {{2, 0}}));
  t.components.push_back(make_component(t, 2, 1, {{0, 0}}));
  ASSERT_EQ(t.components[0].resolutions[0].precincts_x, 3);
  ASSERT_EQ(t.components[1].resolutions[0].precincts_x, 4);
  // x = 1: c0 k0; x = 2: c1 k0; x = 4: c0 k1, c1 k1; x = 6: c1 k2; x = 8: c0 k2, c1 k3.
  const std::vector<Key> by_position = {{0, 0, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {0, 0, 1, 1},
                                        {0, 0, 1, 2}, {0, 0, 0, 2}, {0, 0, 1, 3}};
  EXPECT_TRUE(same_order(by_position, order(Progression::PCRL, t)));
  EXPECT_TRUE(same_order(by_position, order(Progression::RPCL, t)));  // one resolution: the same
  const std::vector<Key> by_component = {{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 0, 2}, {0, 0, 1, 0},
                                         {0, 0, 1, 1}, {0, 0, 1, 2}, {0, 0, 1, 3}};
  EXPECT_TRUE(same_order(by_component, order(Progression::CPRL, t)));
  EXPECT_TRUE(same_order(by_component, order(Progression::LRCP, t)));
}

// PCRL interleaves resolutions by position: NL 1, precincts 2^1 at r 0 (2 x 2 samples, which
// are 4 x 4 on the reference grid) and 2^2 at r 1 (4 x 4): both start every 4 samples, r 0 first.
TEST(Progression, PcrlInterleavesResolutionsByHand) {
  Tile t;
  t.x1 = 8;
  t.y1 = 4;
  t.components.push_back(make_component(t, 1, 1, {{1, 1}, {2, 2}}));
  const std::vector<Key> want = {{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 1}, {0, 1, 0, 1}};
  EXPECT_TRUE(same_order(want, order(Progression::PCRL, t)));
  const std::vector<Key> rpcl = {{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 1, 0, 0}, {0, 1, 0, 1}};
  EXPECT_TRUE(same_order(rpcl, order(Progression::RPCL, t)));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// (d) A 2^20 x 2^20 tile with the default 2^15 x 2^15 precincts, three components (two of them
// subsampled by 2), NL 5, three layers. Per side, component 0 has 1, 2, 4, 8, 16, 32 precincts
// at r 0..5 (1365 in all), components 1 and 2 have 1, 1, 2, 4, 8, 16 (342 each): 2049
// precincts, 6147 packets. Walking every sample would take 2^40 steps.
TEST(Progression, BigTileIsQuick) {
  Tile t;
  t.x1 = int64_t{1} << 20;
  t.y1 = int64_t{1} << 20;
  t.layers = 3;
  const std::vector<std::pair<int, int>> pp(6, {15, 15});
  t.components.push_back(make_component(t, 1, 1, pp));
  t.components.push_back(make_component(t, 2, 2, pp));
  t.components.push_back(make_component(t, 2, 2, pp));
  const auto start = std::chrono::steady_clock::now();
  for (int j = 0; j < 5; ++j) {
    SCOPED_TRACE(kNames[j]);
    const std::vector<Key> got = order(kAll[j], t);
    EXPECT_EQ(got.size(), 6147u);
    EXPECT_TRUE(each_once(t, got));
  }
  EXPECT_LT(seconds_since(start), 5.0);
}

// Tiles 2^31 wide, odd origins, subsampling, and many small precincts: the work follows the
// number of packets. The orders keep their outer loops: RPCL's resolution and CPRL's
// component never go back.
TEST(Progression, HugeTilesFollowThePacketCount) {
  Tile wide;
  wide.x0 = 5;
  wide.x1 = wide.x0 + (int64_t{1} << 31);
  wide.y0 = 3;
  wide.y1 = 19;
  wide.components.push_back(make_component(wide, 1, 1, std::vector<std::pair<int, int>>(4, {15, 15})));
  wide.components.push_back(make_component(wide, 3, 4, std::vector<std::pair<int, int>>(3, {14, 2})));

  Tile dense;
  dense.x0 = 12345;
  dense.x1 = dense.x0 + (int64_t{1} << 20);
  dense.y0 = 777;
  dense.y1 = dense.y0 + 1000;
  dense.layers = 2;
  dense.components.push_back(make_component(dense, 1, 1, std::vector<std::pair<int, int>>(4, {7, 6})));
  dense.components.push_back(make_component(dense, 3, 2, {{6, 6}, {5, 4}, {7, 7}}));

  const auto start = std::chrono::steady_clock::now();
  for (const Tile* t : {&wide, &dense}) {
    SCOPED_TRACE(t->describe());
    for (int j = 0; j < 5; ++j) {
      SCOPED_TRACE(kNames[j]);
      const std::vector<Key> got = order(kAll[j], *t);
      EXPECT_GT(got.size(), 10000u);
      EXPECT_TRUE(each_once(*t, got));
      const auto resolution = [](const Key& a, const Key& b) { return std::get<1>(a) < std::get<1>(b); };
      const auto component = [](const Key& a, const Key& b) { return std::get<2>(a) < std::get<2>(b); };
      if (kAll[j] == Progression::RPCL) {
        EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), resolution));
      } else if (kAll[j] == Progression::CPRL) {
        EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), component));
      }
    }
  }
  // A guard against a walk over the canvas's positions (hours for these tiles), not a timing:
  // generous enough for a sanitizer build on two busy cores (29 s seen there).
  EXPECT_LT(seconds_since(start), 120.0);
}

}  // namespace
