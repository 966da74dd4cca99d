// SPDX-License-Identifier: BSD-2-Clause
// The marker segments of a codestream (ISO/IEC 15444-1 Annex A), each appended to a byte
// vector: the main header's SIZ, CAP (HTJ2K), COD/COC, QCD/QCC, RGN, COM and TLM, POC in
// either header, and the tile-part header's SOT and PLT. Big-endian, lengths as A.2 defines
// them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codec/params/coding_params.hpp"
#include "codec/quant/quantiser.hpp"

namespace j2k::codec {

void put8(std::vector<uint8_t>& o, uint32_t v);
void put16(std::vector<uint8_t>& o, uint32_t v);
void put32(std::vector<uint8_t>& o, uint32_t v);

// `ht`: Rsiz says a CAP segment follows (ISO/IEC 15444-15); `rsiz`: the profile (Table A.10).
void write_siz(const StreamInfo& info, std::vector<uint8_t>& out, bool ht = false, uint16_t rsiz = 0);
// CAP (ISO/IEC 15444-15 A.5) for a stream of HT code-blocks: Pcap^15 and its Ccap^15 (one HT
// set per block, the 9/7 used where not `reversible`, `magb` the most magnitude bit planes of
// any band).
void write_cap(bool reversible, int magb, std::vector<uint8_t>& out);
void write_cod(const CodingParams& params, std::vector<uint8_t>& out);
// COC for component c: its levels, precincts and code-blocks, with COD's modes and wavelet.
void write_coc(size_t component, size_t components, const CodingParams& params, const ComponentStyle& style,
               std::vector<uint8_t>& out);
// QCD (component < 0) or QCC for one component: the guard bits and each band's step (LL,
// then HL, LH, HH from the coarsest level).
void write_qcd(int component, size_t components, bool reversible, int guard_bits,
               const std::vector<BandStep>& steps, std::vector<uint8_t>& out);
// POC (the main header's, for the whole codestream, or a tile-part header's): the changes in
// order.
void write_poc(const std::vector<PocEntry>& changes, size_t components, std::vector<uint8_t>& out);
// RGN (A.6.3) for one component: the max-shift style (0) and its shift.
void write_rgn(size_t component, size_t components, int shift, std::vector<uint8_t>& out);
void write_com(const std::string& text, std::vector<uint8_t>& out);

// The main header but TLM, and where TLM goes in it: SIZ, COD and QCD (component 0's), COC and
// QCC for each component that differs from component 0 (A.6.2, A.6.5: they override the main
// header's for their component), then (TLM,) POC, RGN, COM, in OpenJPEG's order. steps[c]:
// component c's band steps.
struct MainHeader {
  std::vector<uint8_t> bytes;
  size_t tlm_at = 0;  // TLM's place in `bytes`
};
MainHeader main_header(const StreamInfo& info, const CodingParams& params, const std::vector<std::vector<BandStep>>& steps,
                       int guard_bits);

struct TilePartEntry {
  uint16_t tile;
  uint32_t length;  // Psot
};
// TLM segments listing every tile-part (8- or 16-bit tile index, 32-bit length), as many as
// needed.
void write_tlm(const std::vector<TilePartEntry>& parts, std::vector<uint8_t>& out);

void write_sot(uint32_t tile, uint32_t psot, int part, int parts, std::vector<uint8_t>& out);
// PLT segments listing the lengths of a tile-part's packets (7 bits per byte, B.10's
// continuation bit), as many as needed.
void write_plt(const std::vector<uint32_t>& packet_lengths, std::vector<uint8_t>& out);

}  // namespace j2k::codec
