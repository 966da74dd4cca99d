#include "codec/tier2/packet_writer.hpp"

#include <algorithm>

#include "codec/tier2/bit_writer.hpp"

namespace j2k::codec {
namespace {

// Table B.4: the number of coding passes.
void put_passes(BitWriter& bits, int n) {
  if (n == 1) {
    bits.put(0);
  } else if (n == 2) {
    bits.put(0b10, 2);
  } else if (n <= 5) {
    bits.put(0b11, 2);
    bits.put(static_cast<uint32_t>(n - 3), 2);
  } else if (n <= 36) {
    bits.put(0b1111, 4);
    bits.put(static_cast<uint32_t>(n - 6), 5);
  } else {
    bits.put(0b111111111, 9);
    bits.put(static_cast<uint32_t>(n - 37), 7);
  }
}

int floor_log2(uint32_t v) {
  int k = -1;
  while (v) ++k, v >>= 1;
  return k;
}

int bits_for(uint32_t v) { return v ? floor_log2(v) + 1 : 1; }

// A run of new passes inside one codeword segment: its pass count and bytes.
struct SegmentPart {
  int passes;
  uint32_t bytes;
};

// The new passes first..last-1 split where codeword segments end (B.10.7.2): a length is sent
// for each part.
std::vector<SegmentPart> segment_parts(const CodedBlock& c, int first, int last) {
  std::vector<SegmentPart> parts;
  int start = first;
  for (int k = first; k < last; ++k)
    if (c.passes[static_cast<size_t>(k)].terminated || k == last - 1) {
      const uint32_t from = start > 0 ? c.passes[static_cast<size_t>(start - 1)].end : 0;
      parts.push_back({k - start + 1, c.passes[static_cast<size_t>(k)].end - from});
      start = k + 1;
    }
  return parts;
}

void put16(std::vector<uint8_t>& o, uint32_t v) {
  o.push_back(static_cast<uint8_t>(v >> 8));
  o.push_back(static_cast<uint8_t>(v));
}

}  // namespace

PrecinctCoder::PrecinctCoder(const std::vector<PrecinctBand>& bands) : bands_(bands) {
  for (const PrecinctBand& b : bands) {
    BandState s{TagTree(std::max(b.blocks_x, 1), std::max(b.blocks_y, 1)), TagTree(std::max(b.blocks_x, 1), std::max(b.blocks_y, 1)),
                std::vector<int>(b.blocks.size(), 3), std::vector<int>(b.blocks.size(), 0)};
    for (size_t i = 0; i < b.blocks.size(); ++i) {
      const BlockContribution& c = *b.blocks[i];
      // The layer that first includes the block, or one no layer reaches.
      uint32_t first = UINT32_MAX - 1;
      for (size_t l = 0; l < c.passes.size(); ++l)
        if (c.passes[l] > 0) {
          first = static_cast<uint32_t>(l);
          break;
        }
      const int x = static_cast<int>(i) % b.blocks_x, y = static_cast<int>(i) / b.blocks_x;
      s.inclusion.set(x, y, first);
      s.missing.set(x, y, c.missing_bitplanes);
    }
    state_.push_back(std::move(s));
  }
}

void PrecinctCoder::write(int layer, const PacketMarkers& markers, uint32_t sequence, std::vector<uint8_t>& out) {
  if (markers.sop) {
    put16(out, 0xFF91);
    put16(out, 4);
    put16(out, sequence & 0xFFFF);
  }
  bool any = false;
  for (const PrecinctBand& b : bands_)
    for (const BlockContribution* c : b.blocks) any = any || c->passes[static_cast<size_t>(layer)] > 0;
  // What each block adds, remembered for the bodies after the header.
  struct Body {
    const CodedBlock* coded;
    uint32_t from, to;
  };
  std::vector<Body> bodies;
  {
    BitWriter bits(out);
    bits.put(any ? 1 : 0);
    if (any) {
      for (size_t k = 0; k < bands_.size(); ++k) {
        const PrecinctBand& b = bands_[k];
        BandState& s = state_[k];
        for (size_t i = 0; i < b.blocks.size(); ++i) {
          const BlockContribution& c = *b.blocks[i];
          const int x = static_cast<int>(i) % b.blocks_x, y = static_cast<int>(i) / b.blocks_x;
          const int now = c.passes[static_cast<size_t>(layer)], before = s.sent[i];
          // Inclusion (B.10.4): the tag tree until the block is first included, then one bit.
          if (before == 0) {
            s.inclusion.encode(x, y, static_cast<uint32_t>(layer) + 1, bits);
            if (now == 0) continue;
            s.missing.encode(x, y, UINT32_MAX, bits);  // B.10.5: its missing bit planes, once
          } else {
            bits.put(now > before ? 1 : 0);
            if (now == before) continue;
          }
          put_passes(bits, now - before);
          // Lengths (B.10.7): Lblock raised once (a 1 per step, then 0) to what the longest
          // part needs, then each part in Lblock + floor(log2(its passes)) bits.
          const std::vector<SegmentPart> parts = segment_parts(*c.coded, before, now);
          int raise = 0;
          for (const SegmentPart& p : parts) raise = std::max(raise, bits_for(p.bytes) - floor_log2(static_cast<uint32_t>(p.passes)) - s.lblock[i]);
          for (int r = 0; r < raise; ++r) bits.put(1);
          bits.put(0);
          s.lblock[i] += raise;
          for (const SegmentPart& p : parts) bits.put(p.bytes, s.lblock[i] + floor_log2(static_cast<uint32_t>(p.passes)));
          const uint32_t from = before > 0 ? c.coded->passes[static_cast<size_t>(before - 1)].end : 0;
          bodies.push_back({c.coded, from, c.coded->passes[static_cast<size_t>(now - 1)].end});
          s.sent[i] = now;
        }
      }
    }
    bits.flush();
  }
  if (markers.eph) put16(out, 0xFF92);
  for (const Body& b : bodies) out.insert(out.end(), b.coded->bytes.begin() + b.from, b.coded->bytes.begin() + b.to);
}

}  // namespace j2k::codec
