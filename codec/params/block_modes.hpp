// SPDX-License-Identifier: BSD-2-Clause
// How code-blocks are coded: Part 1's EBCOT or Part 15's HT block coder, and the bits of
// COD's code-block style byte (Table A.19: EBCOT's mode switches; Part 15 adds bits 6 and 7,
// HT and HT mixed with Part 1).
#pragma once
#include <cstdint>

namespace j2k::codec {

// The block coder a codestream uses (COD's code-block style and, for HT, the CAP marker).
enum class BlockCoding { Ebcot, HighThroughput };

enum BlockMode : uint8_t {
  kModeBypass = 0x01,      // raw significance and refinement passes below the 4th bit plane
  kModeReset = 0x02,       // contexts back to their initial states after each pass
  kModeTermAll = 0x04,     // a codeword terminated after each pass (RESTART)
  kModeCausal = 0x08,      // contexts ignore the stripe below (VSC)
  kModePredictable = 0x10, // predictable termination (ERTERM)
  kModeSegmark = 0x20,     // 1010 in the uniform context after each cleanup pass (SEGMARK)
  kModeHt = 0x40,          // HT code-blocks (ISO/IEC 15444-15): Part 15's coder, not EBCOT
  // With kModeHt (HTMIXED, Part 15 A.4): each code-block is HT or Part 1, as its first
  // packet contribution with bytes says (packet_reader.hpp); a Part 1 block uses the mode
  // switches of bits 0 to 5.
  kModeHtMixed = 0x80,
};

}  // namespace j2k::codec
