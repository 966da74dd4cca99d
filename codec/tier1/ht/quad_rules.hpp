// SPDX-License-Identifier: BSD-2-Clause
// The rules of the HT cleanup pass that the decoder and the encoder share (ISO/IEC 15444-15
// Annex C): the context of a quad's CxtVLC codeword from the significance of its neighbours,
// and a sample's magnitude exponent. A quad is 2x2 samples at columns 2q, 2q+1 and rows 2r,
// 2r+1; its significance pattern rho has bit j for sample j in column order (0: top left,
// 1: bottom left, 2: top right, 3: bottom right). Host and device code (host_device.hpp).
#pragma once
#include <cstdint>

#include "codec/tier1/ht/host_device.hpp"

namespace j2k::codec::ht {

// Quads of the first line-pair see only the quad to their left: its left column (either
// sample), its top right and its bottom right sample, one context bit each.
J2K_HD constexpr int initial_row_context(unsigned left_rho) {
  return static_cast<int>(((left_rho | (left_rho >> 1)) & 1) | (((left_rho >> 2) & 1) << 1) | (((left_rho >> 3) & 1) << 2));
}

// Other quads: bit 0 the samples above-left and above (NW, N), bit 1 the two to the left (W,
// SW), bit 2 those above-right and two to the right above (NE, NF).
J2K_HD constexpr int other_row_context(unsigned above_left, unsigned above, unsigned above_right, unsigned left) {
  const unsigned nw = (above_left >> 3) & 1, n = (above >> 1) & 1, ne = (above >> 3) & 1, nf = (above_right >> 1) & 1;
  const unsigned w = (left >> 2) & 1, sw = (left >> 3) & 1;
  return static_cast<int>((nw | n) | ((w | sw) << 1) | ((ne | nf) << 2));
}

// The bits of x (0 for 0). A significant sample's exponent E is bit_length(2 * (mu - 1) + 1):
// the least E with mu - 1 < 2^(E - 1).
J2K_HD constexpr int bit_length(uint32_t x) {
#if defined(__CUDA_ARCH__)
  return x ? 32 - __clz(static_cast<int>(x)) : 0;
#else
  return x ? 32 - __builtin_clz(x) : 0;
#endif
}

}  // namespace j2k::codec::ht
