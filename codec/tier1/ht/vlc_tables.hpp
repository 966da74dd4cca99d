// SPDX-License-Identifier: BSD-2-Clause
// The variable-length codes of the HT cleanup pass (ISO/IEC 15444-15 | ITU-T T.814, Annex C):
// the CxtVLC codewords that say which samples of a quad are significant (rho), whether the
// quad's exponent bound exceeds its prediction (u_off), and which samples' top magnitude bit
// is already known (the EMB patterns e_k, e_1), each in a context of the quad's neighbours;
// and the U-VLC code of the exponent offsets u. The decoder and the encoder read the same
// tables (vlc_tables.cpp), each through a lookup built once from them.
#pragma once
#include <cstdint>

namespace j2k::codec::ht {

// One CxtVLC codeword, decoded: the four sample masks have bit j for sample j of the quad,
// samples in column order (0: top left, 1: bottom left, 2: top right, 3: bottom right).
struct CxtVlcEntry {
  uint8_t rho = 0;     // significant samples
  uint8_t u_off = 0;   // 1: the quad's u is coded in the U-VLC
  uint8_t e_k = 0;     // samples whose top magnitude bit the codeword gives ...
  uint8_t e_1 = 0;     // ... and its value
  uint8_t length = 0;  // bits of the codeword; 0: no codeword starts with those bits
};

// The codeword at the head of the VLC stream: `bits` holds its next 7 bits, the first read in
// bit 0. `initial_row`: quads of the block's first two rows (their own table and contexts).
const CxtVlcEntry& decode_cxt_vlc(bool initial_row, int context, unsigned bits);
// The same lookup as one table of 8 x 128 entries, [context * 128 + bits], for a decoder's
// inner loop.
const CxtVlcEntry* cxt_vlc_table(bool initial_row);

// The codeword for a quad with significance `rho` in `context`: with `u_off` 0 the quad's
// EMB patterns are empty; with `u_off` 1 `top` holds the samples whose exponent reaches the
// quad's bound U, and the codeword chosen is the one that leaves the fewest magnitude bits to
// send. Returns the entry with `codeword` (first bit in bit 0) and its length.
struct CxtVlcCodeword {
  uint8_t codeword = 0, length = 0, e_k = 0, e_1 = 0;
};
const CxtVlcCodeword& encode_cxt_vlc(bool initial_row, int context, unsigned rho, unsigned u_off, unsigned top);
// The same lookup as one table of 8 x 16 x 17 entries, [(context * 16 + rho) * 17 + (u_off ?
// 1 + top : 0)], for an encoder's inner loop.
const CxtVlcCodeword* cxt_vlc_encode_table(bool initial_row);

}  // namespace j2k::codec::ht
