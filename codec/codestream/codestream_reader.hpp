// SPDX-License-Identifier: BSD-2-Clause
// Reads a JPEG 2000 Part 1 codestream's structure (ISO/IEC 15444-1 Annex A): the main header's
// marker segments (SIZ, COD, COC, QCD, QCC, RGN, POC, PPM, TLM, PLM, CRG, COM), then each
// tile-part (SOT, its header's COD, COC, QCD, QCC, RGN, POC, PPT, PLT, COM, then SOD and where
// its packet data lies), up to EOC. Every length and value is checked against the standard's
// limits and the bytes actually there before anything is sized from it, so that a corrupt or
// hostile stream gives an error naming the marker and the cause, never a crash, a hang or an
// allocation the stream does not justify. What it returns is what a decoder needs to set up
// each tile: the coding style and quantisation each tile-component resolves to (A.6: a
// tile-part's COC over its COD over the main header's COC over its COD; likewise QCC/QCD).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/codestream/codestream_writer.hpp"

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

// One POC entry (A.6.6): a progression over layers < LYEpoc, resolutions RSpoc..REpoc-1 and
// components CSpoc..CEpoc-1.
struct PocEntry {
  int res_start, comp_start, layer_end, res_end, comp_end;
  Progression order;
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

struct TilePart {
  int tile = 0;           // Isot
  int part = 0;           // TPsot
  int parts = 0;          // TNsot (0: not said here)
  size_t sot = 0;         // offset of its SOT marker in the codestream
  size_t data = 0;        // offset of its packet data (after SOD) in the codestream
  size_t length = 0;      // bytes of packet data
  std::vector<uint32_t> packet_lengths;  // from its PLT segments, in order (empty: none)
  std::vector<uint8_t> packet_headers;   // PPT's packed packet headers (empty: none)
};

struct Codestream {
  StreamInfo info;                     // SIZ
  TileCoding defaults;                 // the main header's alone (what a tile without its own
                                       // COD, COC, QCD, QCC, RGN or POC uses)
  std::vector<TileCoding> tiles;       // per tile (raster order), the main header's overridden
                                       // by its first tile-part's header
  std::vector<TilePart> parts;         // in stream order
  std::vector<uint8_t> ppm;            // PPM's packed packet headers, in Zppm order (empty: none)
  std::vector<std::string> comments;   // COM segments with Latin-1 text
  bool truncated = false;              // the stream ended before EOC (only with allow_partial)
  int64_t tiles_x = 0, tiles_y = 0;
};

struct ReadOptions {
  // A stream cut short (no EOC, a tile-part's data cut): keep what is there instead of an
  // error. Its header must still be whole.
  bool allow_partial = false;
};

// Throws j2k::Error (CorruptInput, or UnsupportedInput for valid Part 2 extensions) naming the
// marker, its offset and the cause.
Codestream read_codestream(const uint8_t* data, size_t size, const ReadOptions& options = {});

}  // namespace j2k::codec
