// SPDX-License-Identifier: BSD-2-Clause
// The HT block encoder (ISO/IEC 15444-15): one code-block in one HT cleanup pass that codes
// every magnitude bit of the block's quantised coefficients down to plane 0, in quads of 2x2
// samples: their significance and exponent bounds through MEL and the CxtVLC and U-VLC codes,
// their magnitude and sign bits raw in MagSgn. No SigProp or MagRef pass yet.
//
// What the CodedBlock means for HT (block_coder.hpp): `bitplanes` is 1 for a block with a
// non-zero coefficient (0 otherwise), so that Tier-2 signals Mb - 1 missing MSBs and the
// cleanup pass, the first and only pass, falls on plane 0 while its magnitudes reach as high
// as they need (Part 15 lets a cleanup pass's magnitudes exceed its plane); `passes` holds
// that one pass, terminated, ending at the last byte; its distortion is the energy it
// removes: all of it for the 5/3, down to the error of the interval's middle for the 9/7.
// BlockView's mode bits (EBCOT's) are ignored.
#pragma once
#include "codec/tier1/block_coder.hpp"

namespace j2k::codec::ht {

// Codes the block's cleanup pass. Throws Error(Internal) where MEL and VLC outgrow the 4079
// bytes the segment's length field can say (no block of 4096 samples comes near).
CodedBlock encode_block(const BlockView& block);

}  // namespace j2k::codec::ht
