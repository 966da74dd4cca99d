// SPDX-License-Identifier: BSD-2-Clause
// What an HT cleanup pass at each bit plane would cost and gain, without coding it: the
// first guess of HT rate control (rate/ht_planes.hpp), which then codes only a few planes
// around the guess. The gain is exact (the decoder's reconstruction against the
// coefficients, as ht::encode_block reports it); the bytes come from a model of the cleanup
// pass: each significant sample costs about its quad's exponent bound U in MagSgn bits (its
// magnitude and sign), each significant quad a few VLC bits (its CxtVLC codeword and U-VLC),
// each quad without a significant sample a fraction of a MEL bit.
#pragma once
#include <vector>

#include "codec/tier1/block_coder.hpp"

namespace j2k::codec::ht {

struct PlaneEstimate {
  double bytes = 0;    // of the cleanup pass at this plane, modelled
  double removed = 0;  // squared error it removes from the block's, in steps^2 (exact)
};

// [p] for the cleanup pass at plane p, 0 to the block's magnitude bit planes less 1 (empty
// for a block of zeros).
std::vector<PlaneEstimate> plane_estimates(const BlockView& block);

}  // namespace j2k::codec::ht
