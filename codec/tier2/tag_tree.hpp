// SPDX-License-Identifier: BSD-2-Clause
// Tag trees (ISO/IEC 15444-1 B.10.2): a quad-tree over a grid of values in which each node
// holds the minimum of its children, coded top down against a threshold so that what the
// decoder already knows is never coded twice. Packet headers code two per precinct and band:
// the layer in which each code-block is first included, and its missing most significant bit
// planes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "codec/tier2/bit_writer.hpp"
#include "common/memory_budget.hpp"

namespace j2k::codec {

// Nodes of a tag tree over a w x h grid: every level up to a single root.
inline uint64_t tag_tree_nodes(uint64_t w, uint64_t h) {
  uint64_t n = w * h;
  while (w > 1 || h > 1) {
    w = (w + 1) / 2, h = (h + 1) / 2;
    n += w * h;
  }
  return n;
}

class TagTree {
 public:
  TagTree(int width, int height);
  void set(int x, int y, uint32_t value);  // leaves; then the minimums are computed on first use
  // Codes leaf (x, y) against `threshold`: the bits that tell the decoder whether its value is
  // below the threshold, and its value if it is.
  void encode(int x, int y, uint32_t threshold, BitWriter& out);
  // The heap a tree over w x h leaves takes.
  static uint64_t heap_for(uint64_t w, uint64_t h) { return heap_bytes(tag_tree_nodes(w, h) * sizeof(Node)); }

 private:
  struct Node {
    uint32_t value = UINT32_MAX;
    uint32_t low = 0;
    bool known = false;
    int parent = -1;
  };
  void build();
  std::vector<Node> nodes_;
  int width_;
  size_t leaves_;
  bool built_ = false;
};

}  // namespace j2k::codec
