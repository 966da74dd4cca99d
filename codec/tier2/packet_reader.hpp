// SPDX-License-Identifier: BSD-2-Clause
// Reading packets (ISO/IEC 15444-1 B.9, B.10), the inverse of packet_writer: one precinct's
// packets, layer after layer, each a header (which code-blocks contribute, how many new coding
// passes, the length of each codeword segment part) and a body (those bytes). Each code-block
// gathers its bytes and the lengths of its codeword segments across layers, which is what the
// Tier-1 block decoder reads. Every count and length is checked against the bytes there; a
// corrupt header is an error, never a crash or an allocation it does not justify.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/memory_budget.hpp"

namespace j2k::codec {

// Header bits (B.10.1): most significant first, 7 bits in a byte after 0xFF.
class BitReader {
 public:
  BitReader(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  int bit();
  uint32_t bits(int count);  // count <= 32
  // Ends the header: the rest of the current byte, and after a final 0xFF the byte that
  // carries its stuffed bit (B.10.1). Returns the header's bytes.
  size_t finish();

 private:
  const uint8_t* p_;
  size_t n_, pos_ = 0;
  uint8_t cur_ = 0;
  int left_ = 0;
};

// A code-block's share of the packets read so far.
struct BlockData {
  bool included = false;
  uint32_t missing_bitplanes = 0;     // from its first inclusion (B.10.5)
  int passes = 0;                     // coding passes so far
  std::vector<uint32_t> segments;     // each segment's bytes so far (the last may continue)
  std::vector<int> segment_passes;    // passes in each segment so far
  bool ht_started = false;            // HT: its first cleanup pass with bytes has been read
  // HTMIXED (kModeHtMixed): its first contribution with bytes made it a Part 1 block, coded
  // with the mode switches of the style's bits 0 to 5.
  bool part1 = false;
  // The mode bits that this block is coded with (for Tier-1 and its segments): the style's,
  // less the HT bits for a Part 1 block of an HTMIXED component.
  uint8_t modes(uint8_t style) const { return part1 ? static_cast<uint8_t>(style & 0x3F) : style; }

  // Its codeword segments back to back. While they are one piece of the packet data read
  // (the usual case: one layer) they stay where they are (`piece`), valid as long as that
  // data; from a second piece on they are copied into `bytes`.
  const uint8_t* data() const { return piece ? piece : bytes.data(); }
  size_t size() const { return piece ? piece_bytes : bytes.size(); }
  void append(const uint8_t* from, size_t n);

  const uint8_t* piece = nullptr;
  size_t piece_bytes = 0;
  std::vector<uint8_t> bytes;
};

// Whether pass k (0-based) of a code-block ends a codeword segment under the mode switches
// (D.4, D.6): every pass with RESTART; with BYPASS the 10th, then each raw pair and each
// cleanup pass after it; for HT code-blocks (kModeHt, Part 15) each cleanup and each MagRef
// pass. (The block's last pass ends one as well, whichever it is.)
bool pass_ends_segment(int k, uint8_t modes);

class PrecinctReader {
 public:
  // One entry per band of the resolution in the precinct (LL alone, or HL, LH, HH): its
  // grid of code-blocks (0 x 0 where the band has none here).
  PrecinctReader(const std::vector<std::pair<int, int>>& band_grids, uint8_t modes);

  // The header of the next layer's packet from `data` (after any SOP marker segment, which is
  // skipped, and before its EPH marker when `eph`, which is checked): returns the bytes
  // read. The body's byte counts wait in the reader for read_body. Throws j2k::Error
  // (CorruptInput) for a header that runs past `size` or says impossible counts.
  size_t read_header(const uint8_t* data, size_t size, bool eph);
  // The body of the packet whose header was read last: returns its bytes. With `partial`,
  // a body cut short keeps what is there (each block's bytes to the cut) instead of an error,
  // and sets *cut where given. The blocks' bytes may stay in `data` (BlockData::piece): it
  // must outlive them.
  size_t read_body(const uint8_t* data, size_t size, bool partial = false, bool* cut = nullptr);

  // Block i (raster order) of band b: what its packets brought so far (a block not yet
  // included: an empty BlockData). The non-const one may be moved from once reading is done.
  const BlockData& block(size_t band, size_t i) const;
  BlockData* included_block(size_t band, size_t i);  // null while not included

  // The heap this reader holds: what the constructor allocates (footprint() before it is
  // made), plus what its packets have added since (the blocks they included, their
  // segments and copied bytes), so that a caller can hold the growth to a memory budget.
  uint64_t held_bytes() const { return heap_; }
  // Of those, what goes with the reader once its blocks' data are moved out (its lists).
  uint64_t list_bytes() const;
  int layers_read() const { return layer_; }  // the packets read so far
  // What the constructor allocates for `readers` readers of `bands` band grids in all,
  // `filled` of them with blocks, `blocks` blocks and `tag_nodes` nodes in one tag tree per
  // band grid (tile_layout's LayoutCounts).
  static uint64_t footprint(uint64_t readers, uint64_t bands, uint64_t filled, uint64_t blocks, uint64_t tag_nodes);

 private:
  struct TagTreeReader {
    // 8 bytes a node (a tile of 4 x 4 blocks has millions): a node's parent follows from its
    // index and the levels' sizes, and `value` is kUnknown until it is known.
    static constexpr uint32_t kUnknown = UINT32_MAX;
    struct Node {
      uint32_t low = 0, value = kUnknown;
    };
    std::vector<Node> nodes;
    int width = 0, height = 0;
    explicit TagTreeReader(int w, int h);
    bool known(size_t leaf) const { return nodes[leaf].value != kUnknown; }
    // Whether leaf (x, y)'s value is below `threshold` (reading the bits that tell), and the
    // value once it is known.
    bool below(int x, int y, uint32_t threshold, BitReader& in, uint32_t* value);
  };
  // A block's state between packets: 8 bytes, where most blocks of a hostile stream are
  // never included; the data of those that are is kept apart (data_).
  static constexpr uint32_t kNotIncluded = UINT32_MAX;
  struct BlockState {
    uint32_t data = kNotIncluded;  // its index in data_ once included
    uint8_t lblock = 3;            // B.10.7.1
  };
  struct Band {
    int blocks_x = 0, blocks_y = 0;
    TagTreeReader inclusion, missing;
    std::vector<BlockState> blocks;
  };
  struct Pending {  // what the last header said a block's body part holds
    uint32_t block;               // index in data_
    int before;                   // its passes before this packet
    std::vector<uint32_t> parts;  // bytes per segment part
    std::vector<int> passes;      // passes per segment part
  };
  // Part 15's segments of an HT code-block's `added` passes in one packet, their lengths
  // read from `in` into p. Under HTMIXED (kModeHtMixed in `modes`) the block's first
  // contribution with bytes may make it a Part 1 block instead (BlockData::part1), its
  // segment then in p.
  static void read_ht_parts(BlockData& blk, int added, int lblock, uint8_t modes, BitReader& in, Pending& p);

  std::vector<Band> bands_;
  std::vector<BlockData> data_;  // the blocks included so far, in the order of their inclusion
  uint64_t heap_ = 0;
  uint8_t modes_;
  int layer_ = 0;
  std::vector<Pending> pending_;
};

}  // namespace j2k::codec
