// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier2/progression_changes.hpp"

#include <algorithm>

namespace j2k::codec {

int64_t change_packet_count(const std::vector<PocEntry>& changes, int layers, const std::vector<ComponentGrid>& components,
                            uint64_t& steps) {
  // Layers sent so far per component-resolution: a change sends layers [sent, its end).
  std::vector<std::vector<int>> sent(components.size());
  for (size_t i = 0; i < components.size(); ++i) sent[i].assign(components[i].resolutions.size(), 0);
  int64_t packets = 0;
  for (const PocEntry& e : changes) {
    const int end = std::min(e.layer_end, layers);
    const int c1 = std::min(e.comp_end, static_cast<int>(components.size()));
    for (int i = e.comp_start; i < c1; ++i) {
      const ComponentGrid& g = components[static_cast<size_t>(i)];
      const int r1 = std::min(e.res_end, static_cast<int>(g.resolutions.size()));
      for (int r = e.res_start; r < r1; ++r) {
        ++steps;
        int& s = sent[static_cast<size_t>(i)][static_cast<size_t>(r)];
        if (s >= end) continue;
        const ResolutionGrid& rg = g.resolutions[static_cast<size_t>(r)];
        // Below 2^55 in all (read_tile_packets' bound on the tile's precincts, times its
        // layers): each component-resolution's packets count once.
        packets += rg.precincts_x * rg.precincts_y * (end - s);
        s = end;
      }
    }
  }
  return packets;
}

uint64_t change_coverage(const std::vector<PocEntry>& changes, const std::vector<ComponentGrid>& components) {
  size_t resolutions = 0;
  for (const ComponentGrid& c : components) resolutions = std::max(resolutions, c.resolutions.size());
  const auto count = static_cast<int64_t>(components.size()), most = static_cast<int64_t>(resolutions);
  uint64_t pairs = 0;
  for (const PocEntry& e : changes) {
    const int64_t c = std::min<int64_t>(e.comp_end, count) - e.comp_start, r = std::min<int64_t>(e.res_end, most) - e.res_start;
    // c <= 16,384 and r <= 33 an entry, and the entries fewer than the tile's header bytes.
    if (c > 0 && r > 0) pairs += static_cast<uint64_t>(c * r);
  }
  return pairs;
}

void change_packet_order(const std::vector<PocEntry>& changes, int layers, const std::vector<ComponentGrid>& components,
                         int64_t tx0, int64_t ty0, int64_t tx1, int64_t ty1, std::vector<PacketId>& out, uint64_t& steps,
                         std::vector<size_t>* starts) {
  // Layers sent so far per component-resolution: a change sends layers [sent, its end).
  std::vector<std::vector<int>> sent(components.size());
  for (size_t i = 0; i < components.size(); ++i) sent[i].assign(components[i].resolutions.size(), 0);
  std::vector<StreamLayers> sending;
  for (const PocEntry& e : changes) {
    if (starts) starts->push_back(out.size());
    const int end = std::min(e.layer_end, layers);
    const int c1 = std::min(e.comp_end, static_cast<int>(components.size()));
    sending.clear();
    for (int i = e.comp_start; i < c1; ++i) {
      const int r1 = std::min(e.res_end, static_cast<int>(components[static_cast<size_t>(i)].resolutions.size()));
      for (int r = e.res_start; r < r1; ++r) {
        ++steps;
        int& s = sent[static_cast<size_t>(i)][static_cast<size_t>(r)];
        if (s >= end) continue;
        sending.push_back({i, r, s, end});
        s = end;
      }
    }
    packet_order_of(e.order, components, sending, tx0, ty0, tx1, ty1, out, steps);
  }
}

}  // namespace j2k::codec
