// The Tier-1 coder of one code-block (ISO/IEC 15444-1 Annex D): the bit planes of the
// block's coefficients, most significant first, each in up to three coding passes
// (significance propagation, magnitude refinement, cleanup with run-length coding) over
// stripes of four rows, in the 19 contexts of Tables D.1 to D.4, through one MQ codeword.
// It reads a view of the block and keeps no state between blocks, so that blocks run in
// parallel (and a GPU block coder can replace it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "j2kfront/j2kfront.h"

namespace j2k::codec {

// A code-block's coefficients: `height` rows of `width` int32 values (sign and magnitude as
// the reversible transform gives them), rows `stride` elements apart.
struct BlockView {
  const int32_t* data = nullptr;
  ptrdiff_t stride = 0;
  int width = 0, height = 0;  // 1..1024 each, width * height <= 4096 (A.6.1)
  j2k_band_type band = J2K_BAND_LL;  // selects the significance contexts (Table D.1)
};

struct CodedBlock {
  int bitplanes = 0;            // of the largest magnitude (0: every coefficient is 0)
  int passes = 0;               // 3 * bitplanes - 2, or 0
  std::vector<uint8_t> bytes;   // the MQ codeword of every pass (one segment, terminated)
};

// Codes every pass of the block.
CodedBlock encode_block(const BlockView& block);

}  // namespace j2k::codec
