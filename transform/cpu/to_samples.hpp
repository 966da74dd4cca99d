// SPDX-License-Identifier: BSD-2-Clause
// The decoder's last step on the CPU, the reference of every backend's to_samples (queue.hpp):
// the inverse RCT / ICT of components 0..2, the DC level shift and the clamp to each
// component's range, from the inverse DWT's int32 / float planes into samples of the output's
// width, in one pass over each row. OpenJPEG 2.5's arithmetic: the RCT of G.2 in int32, the
// ICT of G.3 in float32 (each product rounded, left to right), floats rounded to nearest
// (ties to even, lrintf) before the shift, the sum clamped in 64 bits.
#pragma once
#include <vector>

#include "transform/queue.hpp"

namespace j2k::cpu {

// `in`, `out.out`: host planes. Rows in parallel on up to `threads` workers.
void to_samples(const std::vector<Plane>& in, const TileOutput& out, int threads);

}  // namespace j2k::cpu
