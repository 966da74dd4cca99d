// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier2/tag_tree.hpp"

#include <algorithm>

namespace j2k::codec {

TagTree::TagTree(int width, int height)
    : width_(width), leaves_(static_cast<size_t>(width) * static_cast<size_t>(height)) {
  // Level by level: the leaves, then nodes over 2 x 2 of the level below, up to one root.
  std::vector<std::pair<int, int>> sizes{{width, height}};
  while (sizes.back().first * sizes.back().second > 1)
    sizes.push_back({(sizes.back().first + 1) / 2, (sizes.back().second + 1) / 2});
  int total = 0;
  for (auto [w, h] : sizes) total += w * h;
  nodes_.resize(static_cast<size_t>(total));
  int level_start = 0;
  for (size_t l = 0; l + 1 < sizes.size(); ++l) {
    const auto [w, h] = sizes[l];
    const int next_start = level_start + w * h, next_w = sizes[l + 1].first;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        nodes_[static_cast<size_t>(level_start + y * w + x)].parent = next_start + (y / 2) * next_w + x / 2;
    level_start = next_start;
  }
}

void TagTree::set(int x, int y, uint32_t value) {
  nodes_[static_cast<size_t>(y * width_ + x)].value = value;
  built_ = false;
}

void TagTree::build() {
  // Nodes are stored level by level from the leaves up: one pass in order sets every minimum.
  for (size_t i = leaves_; i < nodes_.size(); ++i) nodes_[i].value = UINT32_MAX;
  for (const Node& n : nodes_)
    if (n.parent >= 0) {
      Node& p = nodes_[static_cast<size_t>(n.parent)];
      p.value = std::min(p.value, n.value);
    }
  built_ = true;
}

void TagTree::encode(int x, int y, uint32_t threshold, BitWriter& out) {
  if (!built_) build();
  // The path from the root down to the leaf.
  int path[32], depth = 0;
  for (int n = y * width_ + x; n >= 0; n = nodes_[static_cast<size_t>(n)].parent) path[depth++] = n;
  uint32_t low = 0;
  while (depth > 0) {
    Node& node = nodes_[static_cast<size_t>(path[--depth])];
    if (low > node.low) node.low = low;
    else low = node.low;
    while (low < threshold) {
      if (low >= node.value) {
        if (!node.known) {
          out.put(1);
          node.known = true;
        }
        break;
      }
      out.put(0);
      ++low;
    }
    node.low = low;
  }
}

}  // namespace j2k::codec
