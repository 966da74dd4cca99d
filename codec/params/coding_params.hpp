// SPDX-License-Identifier: BSD-2-Clause
// The codec's shared vocabulary, owned by neither direction: what a codestream says about
// the canvas (SIZ) and how its tile-components are coded (COD, COC, QCD and the rate
// targets), the progression orders and the file formats. The encoder fills it from its
// settings, the codestream reader from the markers; Tier-1, rate control, Tier-2 and the
// marker writers read it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "codec/params/block_modes.hpp"

namespace j2k::codec {

// The COD / POC codes of Table A.16.
enum class Progression { LRCP = 0, RLCP = 1, RPCL = 2, PCRL = 3, CPRL = 4 };

// Parses "LRCP", "RLCP", "RPCL", "PCRL" or "CPRL" (upper case, as opj_compress's -p takes
// them) into `out`; false, `out` untouched, for anything else.
bool parse_progression(const std::string& name, Progression& out);

// What holds the codestream: a bare codestream (.j2k, .j2c) or a JP2 file (.jp2) around it.
enum class FileFormat { Codestream, Jp2 };

// The format a file name's extension says, in any case: .j2k, .j2c, .jpc and (HTJ2K) .jhc a
// bare codestream, .jp2 and (HTJ2K) .jph a JP2 file; nullopt for any other name. The one list
// of the names the codec writes and reads (the CLI and the C API ask it).
std::optional<FileFormat> file_format_from_name(const std::string& path);
// Whether the name is one of Part 15's (.jhc, .jph), which hold HT code-blocks.
bool is_ht_file_name(const std::string& path);

struct ComponentInfo {
  int precision = 8;  // bits, 1..16 (for SIZ)
  bool is_signed = false;
  int dx = 1, dy = 1;
};

// One POC entry (A.6.6): a progression over layers < LYEpoc, resolutions RSpoc..REpoc-1 and
// components CSpoc..CEpoc-1.
struct PocEntry {
  int res_start, comp_start, layer_end, res_end, comp_end;
  Progression order;
};

// One tile's progression order changes (A.6.6), as opj_compress -POC writes them: a POC
// segment in the tile's first tile-part header and a tile-part for each change (each divided
// further as `tile_parts` says). Each packet is sent once, with the first change that covers
// it (B.12.2); the packets no change covers are not in the tile.
struct TileChanges {
  int tile = 0;  // the tile's raster index
  std::vector<PocEntry> changes;
};

// What a component's tile-components are cut into: its decomposition levels, precinct sizes
// and code-blocks (COC where they differ from COD's).
struct ComponentStyle {
  int levels = 5;
  // Precinct sizes (log2, 0..15) per resolution, [0] the lowest; empty: the largest (2^15)
  // everywhere and none signalled.
  std::vector<std::pair<int, int>> precincts;
  int block_w_log2 = 6, block_h_log2 = 6;
  bool operator==(const ComponentStyle& o) const {
    return levels == o.levels && precincts == o.precincts && block_w_log2 == o.block_w_log2 && block_h_log2 == o.block_h_log2;
  }
};

// What the codestream says and how it is coded (COD, COC, QCD and the rate targets).
struct CodingParams {
  bool reversible = true;  // the 5/3, no quantisation; else the 9/7, quantised
  int levels = 5;          // COD's (component 0's)
  bool mct = false;        // the RCT or ICT on components 0..2
  int block_w_log2 = 6, block_h_log2 = 6;  // code-blocks 2^2..2^10 a side, area <= 4096
  // Precinct sizes (log2, 0..15) per resolution, [0] the lowest; empty: the largest (2^15)
  // everywhere and none signalled in COD.
  std::vector<std::pair<int, int>> precincts;
  // Per component, its levels, precincts and code-blocks; empty: every component as COD's
  // fields. Component 0's must be COD's.
  std::vector<ComponentStyle> components;
  Progression order = Progression::LRCP;
  int layers = 1;
  BlockCoding block_coding = BlockCoding::Ebcot;  // Part 1's coder, or HT (Part 15)
  uint8_t modes = 0;       // BlockMode bits (Table A.19)
  bool sop = false, eph = false, plt = false, tlm = false;
  char tile_parts = 0;     // 0: one tile-part per tile; 'R', 'L' or 'C': a new one where that index changes
  int guard_bits = -1;     // 0..7; -1: 2, or more where the 5/3's coefficients need them
  double base_step = 1.0;  // the 9/7's step before division by each band's norm
  // With relative_step > 0, the base step of component c is relative_step * 2^precision_c
  // times base_step (j2k_coding::qstep; rate control may still scale base_step).
  double relative_step = 0;
  // Per layer, at most how many bytes the whole codestream may have up to and with it (0: no
  // limit, every pass; only the last layer may be lossless), or the PSNR (dB) it must reach
  // at least; one of the two lists, with `layers` entries, or both empty (lossless).
  std::vector<double> layer_bytes;
  std::vector<double> layer_psnr;
  std::string comment;     // a COM marker segment (Latin-1 text); empty: none
  // SIZ's Rsiz without Part 15's bit (the writer adds it): the profile the stream keeps to
  // (ISO/IEC 15444-1 Table A.10; 3, 4: digital cinema 2K, 4K); 0: none.
  uint16_t rsiz = 0;
  // Progression order changes in the main header (A.6.6), which must send every packet;
  // empty: `order` alone.
  std::vector<PocEntry> poc;
  // Progression order changes of single tiles, at most one entry a tile (not with `poc`).
  std::vector<TileChanges> tile_poc;
  // RGN's max-shift (Annex H) per component in the main header, the whole component a region
  // of interest, as opj_compress -ROI writes it: the RGN segment alone, the code-blocks coded
  // as without it (a decoder takes their bit planes `shift` higher, then shifts every
  // coefficient back down). Empty, or 0 for a component: none.
  std::vector<int> roi_shift;
  // At most this many bytes of packets per component in the whole codestream (a profile's
  // limit, as digital cinema's per-component one); 0: none.
  double component_bytes = 0;
  int threads = 0;         // CPU threads for Tier-1 (0: one per core this process may use)
};

// The canvas (SIZ).
struct StreamInfo {
  uint32_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;                    // the image area on the canvas
  uint32_t tile_x0 = 0, tile_y0 = 0, tile_w = 0, tile_h = 0;  // the tile grid (as SIZ holds it)
  std::vector<ComponentInfo> components;
};

// Component c's levels and precincts.
ComponentStyle component_style(const CodingParams& params, size_t c);

// Checks `params` against the standard's limits before any work; throws j2k::Error naming the
// first problem. The encoder calls it
// before any work.
void check_params(const CodingParams& params, size_t components);

}  // namespace j2k::codec
