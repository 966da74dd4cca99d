// SPDX-License-Identifier: BSD-2-Clause
// Code-blocks for the Tier-1 decoder tests: random coefficients, and what Tier-2 delivers of a
// coded block when the layers stop after some pass.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "codec/tier1/ebcot/block_encoder.hpp"

namespace test_support {

// Random coefficients up to `bits` bits, a share `zeros` of them 0, signs random.
inline std::vector<int32_t> random_coefficients(std::mt19937& rng, int n, int bits, double zeros) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  std::uniform_real_distribution<double> u(0, 1);
  for (int32_t& x : v) {
    if (u(rng) < zeros) continue;
    const int b = std::uniform_int_distribution<int>(1, bits)(rng);  // magnitudes of every size
    x = static_cast<int32_t>(rng() & ((1u << b) - 1));
    if (rng() & 1) x = -x;
  }
  return v;
}

// The segments' bytes (the last one cut at the pass's truncation point) and passes that
// Tier-2 hands over of a coded block when the layers stop after `passes` passes.
struct Delivered {
  std::vector<uint32_t> bytes;
  std::vector<int> passes;
};
inline Delivered deliver(const j2k::codec::CodedBlock& cb, int passes) {
  Delivered d;
  uint32_t start = 0;
  int first = 0;
  for (int k = 0; k < passes; ++k) {
    const j2k::codec::CodedPass& pass = cb.passes[static_cast<size_t>(k)];
    if (!pass.terminated && k != passes - 1) continue;
    d.bytes.push_back(pass.end - start);
    d.passes.push_back(k + 1 - first);
    start = pass.end;
    first = k + 1;
  }
  return d;
}

}  // namespace test_support
