// SPDX-License-Identifier: BSD-2-Clause
// Bit arithmetic shared by the layers.
#pragma once
#include <cstdint>

namespace j2k {

// The index of the highest set bit of v; -1 for 0.
constexpr int floor_log2(uint32_t v) {
  int k = -1;
  while (v) ++k, v >>= 1;
  return k;
}

}  // namespace j2k
