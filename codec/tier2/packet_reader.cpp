// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier2/packet_reader.hpp"

#include <algorithm>
#include <string>

#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier2/tag_tree.hpp"
#include "common/bits.hpp"
#include "common/checked_math.hpp"
#include "common/error.hpp"

namespace j2k::codec {
namespace {

[[noreturn]] void corrupt(const std::string& what) { throw Error(ErrorCode::CorruptInput, "packet: " + what); }

// Table B.4: the number of new coding passes, 1 to 164.
int read_pass_count(BitReader& in) {
  if (!in.bit()) return 1;
  if (!in.bit()) return 2;
  const uint32_t two = in.bits(2);
  if (two < 3) return 3 + static_cast<int>(two);
  const uint32_t five = in.bits(5);
  if (five < 31) return 6 + static_cast<int>(five);
  return 37 + static_cast<int>(in.bits(7));
}

}  // namespace

int BitReader::bit() {
  if (left_ == 0) {
    if (pos_ >= n_) corrupt("a header runs past the end of its data");
    left_ = pos_ > 0 && p_[pos_ - 1] == 0xFF ? 7 : 8;
    cur_ = p_[pos_++];
  }
  return (cur_ >> --left_) & 1;
}

uint32_t BitReader::bits(int count) {
  uint32_t v = 0;
  for (int i = 0; i < count; ++i) v = v << 1 | static_cast<uint32_t>(bit());
  return v;
}

size_t BitReader::finish() {
  left_ = 0;
  if (pos_ > 0 && p_[pos_ - 1] == 0xFF) {
    if (pos_ >= n_) corrupt("a header ends in 0xFF without the byte after it");
    ++pos_;
  }
  return pos_;
}

bool pass_ends_segment(int k, uint8_t modes) {
  // HT code-blocks (Part 15): a cleanup pass ends its segment (with the placeholder passes
  // before it), a MagRef pass the SigProp and MagRef segment after it.
  if (modes & kModeHt) return k % 3 != 1;
  if (modes & kModeTermAll) return true;
  return (modes & kModeBypass) && (k == 9 || (k >= 10 && (k - 10) % 3 != 0));
}

PrecinctReader::TagTreeReader::TagTreeReader(int w, int h) : width(w), height(h) {
  // Level by level from the leaves up to one root, as the writer's.
  nodes.resize(static_cast<size_t>(tag_tree_nodes(static_cast<uint64_t>(w), static_cast<uint64_t>(h))));
}

bool PrecinctReader::TagTreeReader::below(int x, int y, uint32_t threshold, BitReader& in, uint32_t* value) {
  // The path from the leaf to the root: in each level, the node over (x, y).
  size_t path[40];
  int depth = 0;
  size_t start = 0;
  for (int w = width, h = height, l = 0;; ++l) {
    path[depth++] = start + static_cast<size_t>((y >> l) * w + (x >> l));
    if (w == 1 && h == 1) break;
    start += static_cast<size_t>(w) * static_cast<size_t>(h);
    w = (w + 1) / 2, h = (h + 1) / 2;
  }
  uint32_t low = 0;
  while (depth > 0) {
    Node& node = nodes[path[--depth]];
    if (low > node.low) node.low = low;
    else low = node.low;
    // B.10.2: 0 bits raise the node's lower bound, a 1 bit says the value is the bound.
    while (node.value == kUnknown && low < threshold) {
      if (in.bit()) node.value = low;
      else ++low;
    }
    if (node.value != kUnknown) low = node.value;
    node.low = low;
  }
  const Node& leaf = nodes[static_cast<size_t>(y * width + x)];
  if (value && leaf.value != kUnknown) *value = leaf.value;
  return leaf.value != kUnknown && leaf.value < threshold;
}

PrecinctReader::PrecinctReader(const std::vector<std::pair<int, int>>& band_grids, uint8_t modes) : modes_(modes) {
  uint64_t filled = 0, blocks = 0, nodes = 0;
  bands_.reserve(band_grids.size());
  for (const auto& [w, h] : band_grids) {
    if (w < 0 || h < 0 || (w == 0) != (h == 0)) throw Error(ErrorCode::Internal, "packet reader: a band grid of " + std::to_string(w) + " x " + std::to_string(h));
    const auto n = static_cast<size_t>(w) * static_cast<size_t>(h);
    bands_.push_back(Band{w, h, TagTreeReader(std::max(w, 1), std::max(h, 1)), TagTreeReader(std::max(w, 1), std::max(h, 1)),
                          std::vector<BlockState>(n)});
    filled += n > 0 ? 1 : 0;
    blocks += n;
    nodes += bands_.back().inclusion.nodes.size();
  }
  heap_ = footprint(1, band_grids.size(), filled, blocks, nodes);
}

uint64_t PrecinctReader::footprint(uint64_t readers, uint64_t bands, uint64_t filled, uint64_t blocks, uint64_t tag_nodes) {
  // Each vector one heap block: its elements plus at most 32 bytes of the allocator's. Per
  // reader the object (made with make_unique) and its bands; per band two tag trees; per
  // band with blocks their states.
  return readers * (sizeof(PrecinctReader) + 32) + bands * sizeof(Band) + 32 * readers +
         2 * (tag_nodes * sizeof(TagTreeReader::Node) + 32 * bands) + blocks * sizeof(BlockState) + 32 * filled;
}

uint64_t PrecinctReader::list_bytes() const {
  return heap_bytes(data_.capacity() * sizeof(BlockData)) + heap_bytes(pending_.capacity() * sizeof(Pending));
}

const BlockData& PrecinctReader::block(size_t band, size_t i) const {
  static const BlockData kNone;
  const uint32_t d = bands_[band].blocks[i].data;
  return d == kNotIncluded ? kNone : data_[d];
}

BlockData* PrecinctReader::included_block(size_t band, size_t i) {
  const uint32_t d = bands_[band].blocks[i].data;
  return d == kNotIncluded ? nullptr : &data_[d];
}

size_t PrecinctReader::read_header(const uint8_t* data, size_t size, bool eph) {
  pending_.clear();
  size_t at = 0;
  if (size >= 6 && data[0] == 0xFF && data[1] == 0x91) at = 6;  // SOP (A.8.1): Lsop 4, Nsop
  BitReader in(data + at, size - at);
  const uint32_t layer = static_cast<uint32_t>(layer_++);
  const size_t pending_capacity = pending_.capacity(), data_capacity = data_.capacity();
  if (in.bit()) {  // not an empty packet (B.10.3)
    for (Band& b : bands_) {
      for (size_t i = 0; i < b.blocks.size(); ++i) {
        BlockState& state = b.blocks[i];
        const int x = static_cast<int>(i) % b.blocks_x, y = static_cast<int>(i) / b.blocks_x;
        // Inclusion (B.10.4): the tag tree until the block is first included, then one bit.
        if (state.data == kNotIncluded) {
          if (!b.inclusion.below(x, y, layer + 1, in, nullptr)) continue;
          // Its missing bit planes (B.10.5), at most what a 38-bit sample's bands can lack.
          uint32_t missing = 0;
          b.missing.below(x, y, 75, in, &missing);
          if (!b.missing.known(i)) corrupt("a code-block's missing bit planes exceed 74");
          state.data = static_cast<uint32_t>(data_.size());
          data_.emplace_back();
          data_.back().included = true;
          data_.back().missing_bitplanes = missing;
        } else if (!in.bit()) {
          continue;
        }
        BlockData& blk = data_[state.data];
        const int added = read_pass_count(in);
        if (blk.passes + added > 164) corrupt("a code-block with more than 164 coding passes");
        // Lblock (B.10.7.1), then a length per segment part in Lblock + floor(log2(passes)) bits.
        while (in.bit())
          if (++state.lblock > 32) corrupt("a code-block's Lblock beyond 32 bits");
        Pending p{state.data, blk.passes, {}, {}};
        const int last = blk.passes + added;
        if (blk.modes(modes_) & kModeHt) {
          read_ht_parts(blk, added, state.lblock, modes_, in, p);
          blk.passes = last;
          pending_.push_back(std::move(p));
          continue;
        }
        int start = blk.passes;
        for (int k = blk.passes; k < last; ++k)
          if (pass_ends_segment(k, blk.modes(modes_)) || k == last - 1) {
            const int passes = k - start + 1;
            const int width = state.lblock + floor_log2(static_cast<uint32_t>(passes));
            if (width > 32) corrupt("a segment length of " + std::to_string(width) + " bits");
            p.parts.push_back(in.bits(width));
            p.passes.push_back(passes);
            start = k + 1;
          }
        blk.passes = last;
        pending_.push_back(std::move(p));
      }
    }
  }
  // What stays after the packet: the blocks it included, the room for its list (freed
  // with the next header, but held while its body is read).
  heap_ += heap_bytes(data_.capacity() * sizeof(BlockData)) - heap_bytes(data_capacity * sizeof(BlockData));
  heap_ += heap_bytes(pending_.capacity() * sizeof(Pending)) - heap_bytes(pending_capacity * sizeof(Pending));
  for (const Pending& p : pending_) heap_ += heap_bytes(p.parts.capacity() * sizeof(uint32_t)) + heap_bytes(p.passes.capacity() * sizeof(int));
  at += in.finish();
  if (eph) {
    if (at + 2 > size || data[at] != 0xFF || data[at + 1] != 0x92) corrupt("no EPH marker after a packet header (COD says one follows each)");
    at += 2;
  }
  return at;
}

// ISO/IEC 15444-15's rules for an HT code-block's lengths. Until the block's first cleanup
// pass with bytes, the passes of a packet up to its last cleanup pass (the placeholder passes
// before it included) are one segment, its length in Lblock + floor(log2(passes)) bits; a
// length of 0 says they were all placeholders, and then the length has as many bits as all
// the packet's passes would take, and must stay 0. From that cleanup pass on, each cleanup
// pass is a segment of its own (Lblock bits) and the SigProp and MagRef passes after it one
// more (Lblock + passes - 1 bits), which a packet may split.
//
// HTMIXED: the first contribution with bytes says what the block is. Its length read as an HT
// cleanup segment's is one only where Lblock exceeds 3, it says 2 bytes or more and its top
// bit is 0 (an HT encoder makes room for that 0); otherwise, and where no cleanup pass can be
// among the passes, the block is a Part 1 block and its length takes as many bits as all the
// packet's passes do as one segment (the bits read so far its top ones). That segment holds
// every pass of the contribution: a Part 1 block whose mode switches would end a segment
// within it is refused.
void PrecinctReader::read_ht_parts(BlockData& blk, int added, int lblock, uint8_t modes, BitReader& in, Pending& p) {
  const bool mixed = (modes & kModeHtMixed) != 0;
  auto length = [&](int width) {
    if (width > 32) corrupt("a segment length of " + std::to_string(width) + " bits");
    return in.bits(width);
  };
  int k = blk.passes, left = added;
  if (!blk.ht_started) {
    bool first_cleanup = false;
    const int first = added - (k + added - 1) % 3;  // the passes up to the last cleanup pass
    const int all_width = lblock + floor_log2(static_cast<uint32_t>(added));
    if (all_width > 32) corrupt("a segment length of " + std::to_string(all_width) + " bits");
    uint64_t bytes = 0;
    if (first < 1) {
      bytes = length(all_width);
    } else {
      const int width = lblock + floor_log2(static_cast<uint32_t>(first));
      bytes = length(width);
      if (bytes == 0) {
        bytes = length(all_width - width);  // placeholders, unless these bits say otherwise
      } else if (!mixed || (lblock > 3 && bytes > 1 && (bytes >> (width - 1)) == 0)) {
        first_cleanup = true;
      } else {
        bytes = bytes << (all_width - width) | length(all_width - width);
      }
    }
    if (!first_cleanup) {
      if (bytes == 0) {
        p.parts.push_back(0);
        p.passes.push_back(added);
        return;
      }
      if (!mixed) corrupt("an HT code-block's placeholder passes hold bytes");
      // A Part 1 block: the contribution's passes are one segment.
      blk.part1 = true;
      for (int j = k; j < k + added - 1; ++j)
        if (pass_ends_segment(j, blk.modes(modes)))
          corrupt("an HT-mixed component's Part 1 code-block whose first contribution ends a codeword segment within it");
      p.parts.push_back(static_cast<uint32_t>(bytes));
      p.passes.push_back(added);
      return;
    }
    blk.ht_started = true;
    p.parts.push_back(bytes);
    p.passes.push_back(first);
    k += first;
    left -= first;
  }
  while (left > 0) {
    const int r = k % 3;
    const int n = r == 0 ? 1 : std::min(left, 3 - r);
    p.parts.push_back(length(lblock + n - 1));
    p.passes.push_back(n);
    k += n;
    left -= n;
  }
}

void BlockData::append(const uint8_t* from, size_t n) {
  if (n == 0) return;
  if (!piece && bytes.empty()) {
    piece = from;
    piece_bytes = n;
    return;
  }
  if (piece) {
    bytes.assign(piece, piece + piece_bytes);
    piece = nullptr;
    piece_bytes = 0;
  }
  bytes.insert(bytes.end(), from, from + n);
}

size_t PrecinctReader::read_body(const uint8_t* data, size_t size, bool partial, bool* cut) {
  size_t at = 0;
  for (Pending& p : pending_) {
    BlockData& blk = data_[p.block];
    const size_t had[3] = {blk.segments.capacity(), blk.segment_passes.capacity(), blk.bytes.capacity()};
    // The first part continues the block's open segment, unless its last pass ended one.
    const bool open = p.before > 0 && !pass_ends_segment(p.before - 1, blk.modes(modes_));
    for (size_t k = 0; k < p.parts.size(); ++k) {
      uint32_t take = p.parts[k];
      if (take > size - at) {
        if (!partial) corrupt("a packet's body runs past the end of its data");
        take = static_cast<uint32_t>(size - at);
        if (cut) *cut = true;
      }
      blk.append(data + at, take);
      at += take;
      if (k == 0 && open) {
        // A segment continued over layers: its bytes may pass 32 bits only in a tile of more
        // than 4 GiB (its tile-parts together), refused rather than wrapped.
        if (!checked_add(blk.segments.back(), take, &blk.segments.back())) corrupt("a code-block's segment of more than 4 GiB");
        blk.segment_passes.back() += p.passes[k];
      } else {
        blk.segments.push_back(take);
        blk.segment_passes.push_back(p.passes[k]);
      }
    }
    heap_ += heap_bytes(blk.segments.capacity() * sizeof(uint32_t)) - heap_bytes(had[0] * sizeof(uint32_t));
    heap_ += heap_bytes(blk.segment_passes.capacity() * sizeof(int)) - heap_bytes(had[1] * sizeof(int));
    heap_ += heap_bytes(blk.bytes.capacity()) - heap_bytes(had[2]);
    heap_ -= heap_bytes(p.parts.capacity() * sizeof(uint32_t)) + heap_bytes(p.passes.capacity() * sizeof(int));
  }
  pending_.clear();
  return at;
}

}  // namespace j2k::codec
