// SPDX-License-Identifier: BSD-2-Clause
// How one tile's tile-components are coded, as a codestream's markers say it (A.6: a
// tile-part's COC over its COD over the main header's COC over its COD; likewise QCC/QCD;
// RGN; POC): what the codestream reader gives the decoder, and what dequantisation and the
// block decoders read.
#pragma once
#include <utility>
#include <vector>

#include "codec/params/coding_params.hpp"

namespace j2k::codec {

// COD's or COC's SPcod/SPcoc: how one component's tile-components are coded.
struct ComponentCoding {
  int levels = 0;                            // NL, 0..32
  int block_w_log2 = 6, block_h_log2 = 6;    // xcb, ycb
  uint8_t modes = 0;                         // BlockMode bits
  bool reversible = true;                    // the 5/3 (else the 9/7)
  std::vector<std::pair<int, int>> precincts;  // (PPx, PPy) per resolution, [0] the lowest;
                                               // 15, 15 each where none are signalled
};

// QCD's or QCC's: the quantisation style, guard bits and each band's step.
struct ComponentQuant {
  enum Style { None = 0, Derived = 1, Expounded = 2 } style = None;
  int guard_bits = 2;
  // (exponent, mantissa) per band as signalled: one for Derived (LL's, the others derived
  // by E-5), else one per band, LL then HL, LH, HH from the coarsest level.
  std::vector<std::pair<int, int>> steps;
};

// What a tile (or the main header, for every tile) says: COD's tile-wide fields, and per
// component the coding style, quantisation and ROI shift.
struct TileCoding {
  Progression order = Progression::LRCP;
  int layers = 1;
  bool mct = false;
  bool sop = false, eph = false;
  std::vector<ComponentCoding> components;
  std::vector<ComponentQuant> quant;
  std::vector<int> roi_shift;       // RGN's SPrgn per component (0: none)
  std::vector<PocEntry> poc;        // empty: one progression, `order`
};

}  // namespace j2k::codec
