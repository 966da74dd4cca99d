// SPDX-License-Identifier: BSD-2-Clause
// Transcoding between Part 1's EBCOT and Part 15's HT code-blocks without touching the
// wavelet coefficients: no inverse or forward DWT, no colour transform, no quantisation.
// Tile by tile: Tier-2 reads the tile's packets (tile_packets), each code-block is decoded to
// its quantisation indices (block_coder.hpp: the bit planes each index is known down to ride
// in the decoder's form), coded again with the other block coder, and Tier-2 writes the
// tile's packets again in its progression, one quality layer.
//
// What a block's decoded passes leave known, the other coder states exactly: a stop after
// EBCOT's cleanup pass at plane p is an HT cleanup pass at p; a stop after its SigProp or
// MagRef pass at p is an HT set whose cleanup pass is at p + 1, with that SigProp (and
// MagRef) pass (their membership rules are the same); and back. So a lossless stream stays
// lossless and a lossy one decodes to the same samples, whatever layers it had.
//
// The codestream keeps SIZ (Rsiz's Part 15 bit set or cleared), QCD/QCC, RGN, the tiles, the
// progression with its POC changes (their layers clamped to the one left), precincts, levels
// and code-block sizes, SOP/EPH, PLT/TLM where the input had them, and COM text. COD/COC's
// code-block style becomes HT's (bit 6, with the stripe-causal bit kept) or EBCOT's (no mode
// switch but the stripe-causal one); an HT stream gets CAP. Each tile is written as one
// tile-part. A JP2 or JPH file keeps its JP2 Header box as it was (colour, ICC profile,
// palette, channel definitions, resolution), its brand 'jph ' for HT and 'jp2 ' for EBCOT.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/params/block_modes.hpp"
#include "codec/params/coding_params.hpp"

namespace j2k::codec {

struct TranscodeSettings {
  BlockCoding target = BlockCoding::HighThroughput;  // the coder every code-block ends in
  FileFormat format = FileFormat::Codestream;        // a bare codestream, or a JP2 (JPH) file
  int threads = 0;                                   // CPU threads for Tier-1 (0: one per core)
  // Host memory the transcode may take (common/memory_budget.hpp): the input, a tile's packet
  // structures and its blocks re-coded, the output. 0: no limit.
  uint64_t max_bytes = 0;
};

struct TranscodeReport {
  uint64_t blocks = 0;        // code-blocks with coding passes, re-coded
  int layers = 1;             // the most quality layers a tile of the input had (now one)
  std::vector<std::string> warnings;  // what was read as a decoder reads it (SEGMARK errors,
                                      // HT blocks decoded as zeros, data left over), and what
                                      // the output format cannot carry
  double tier2_read_ms = 0, tier1_ms = 0, tier2_write_ms = 0;
};

// The codestream (or JP2 / JPH file) of `data` with every code-block coded by
// settings.target. Throws j2k::Error: CorruptInput naming where and why (a cut stream
// included: nothing is guessed), UnsupportedInput for what the decoder does not read,
// OutOfMemory past max_bytes.
std::vector<uint8_t> transcode(const uint8_t* data, size_t size, const TranscodeSettings& settings,
                               TranscodeReport* report = nullptr);

}  // namespace j2k::codec
