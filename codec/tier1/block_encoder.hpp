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
#include <cstddef>
#include <cstdint>
#include <vector>

#include "j2kfront/j2kfront.h"

namespace j2k::codec {

// The mode switches: the bits of COD's code-block style byte (Table A.19).
enum BlockMode : uint8_t {
  kModeBypass = 0x01,      // raw significance and refinement passes below the 4th bit plane
  kModeReset = 0x02,       // contexts back to their initial states after each pass
  kModeTermAll = 0x04,     // a codeword terminated after each pass (RESTART)
  kModeCausal = 0x08,      // contexts ignore the stripe below (VSC)
  kModePredictable = 0x10, // predictable termination (ERTERM)
  kModeSegmark = 0x20,     // 1010 in the uniform context after each cleanup pass (SEGMARK)
};

// A code-block's quantised coefficients: `height` rows of `width` int32 values, rows `stride`
// elements apart, each sign and magnitude with `fraction_bits` bits below the quantiser's
// step (0 for the 5/3; those bits are not coded, they only make the distortion estimates
// exact).
struct BlockView {
  const int32_t* data = nullptr;
  ptrdiff_t stride = 0;
  int width = 0, height = 0;  // 1..1024 each, width * height <= 4096 (A.6.1)
  j2k_band_type band = J2K_BAND_LL;  // selects the significance contexts (Table D.1)
  int fraction_bits = 0;
  uint8_t modes = 0;          // BlockMode bits
  // Whether a decoder reconstructs a fully decoded coefficient exactly (the 5/3) rather than
  // at the middle of its quantisation interval (the 9/7): what the last pass's distortion is.
  bool reversible = true;
  // Whether to estimate each pass's distortion (CodedPass::distortion), which rate control
  // needs; a lossless codestream keeps every pass and needs none.
  bool estimate_distortion = true;
};

struct CodedPass {
  uint32_t end = 0;         // bytes of the block's data a decoder needs to decode this pass
  double distortion = 0;    // what the pass removes from the block's squared error, in steps^2
                            // (0 without BlockView::estimate_distortion)
  bool terminated = false;  // the pass ends a codeword segment (its `end` is exact)
};

struct CodedBlock {
  int bitplanes = 0;             // of the largest magnitude (0: every coefficient is 0)
  std::vector<CodedPass> passes; // 3 * bitplanes - 2, or none
  std::vector<uint8_t> bytes;    // the codeword segments of every pass, back to back
  double energy = 0;             // the sum of the squared magnitudes, in steps^2: the error
                                 // with no pass decoded
};

// Codes every pass of the block.
CodedBlock encode_block(const BlockView& block);

}  // namespace j2k::codec
