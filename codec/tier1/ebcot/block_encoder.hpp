// SPDX-License-Identifier: BSD-2-Clause
// The Tier-1 coder of one code-block (ISO/IEC 15444-1 Annex D): the bit planes of the
// block's coefficients, most significant first, each in up to three coding passes
// (significance propagation, magnitude refinement, cleanup with run-length coding) over
// stripes of four rows, in the 19 contexts of Tables D.1 to D.4, through the MQ coder (or raw
// bytes, with BYPASS), with the six mode switches of Table A.19. For rate control it records
// where each pass ends in the bytes and how much it lowers the block's squared error.
// It reads a view of the block and keeps no state between blocks, so that blocks run in
// parallel (and a GPU block coder can replace it).
#pragma once
#include "codec/tier1/block_coder.hpp"

namespace j2k::codec {

// Codes every pass of the block.
CodedBlock encode_block(const BlockView& block);

}  // namespace j2k::codec
