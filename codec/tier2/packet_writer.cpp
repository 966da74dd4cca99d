// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier2/packet_writer.hpp"

#include <algorithm>

#include "codec/tier2/bit_writer.hpp"
#include "common/bits.hpp"

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

int bits_for(uint32_t v) { return v ? floor_log2(v) + 1 : 1; }

// Calls part(passes, bytes) for each run of the new passes first..last-1 that lies in one
// codeword segment (B.10.7.2): a length is sent for each.
template <class Part>
void for_each_segment_part(const CodedBlock& c, int first, int last, Part&& part) {
  int start = first;
  for (int k = first; k < last; ++k)
    if (c.passes[static_cast<size_t>(k)].terminated || k == last - 1) {
      const uint32_t from = start > 0 ? c.passes[static_cast<size_t>(start - 1)].end : 0;
      part(k - start + 1, c.passes[static_cast<size_t>(k)].end - from);
      start = k + 1;
    }
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

uint64_t PrecinctCoder::write(int layer, bool eph, std::vector<uint8_t>& header, std::vector<BodyPart>& body) {
  bool any = false;
  for (const PrecinctBand& b : bands_)
    for (const BlockContribution* c : b.blocks) any = any || c->passes[static_cast<size_t>(layer)] > 0;
  uint64_t body_bytes = 0;
  {
    BitWriter bits(header);
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
          int raise = 0;
          for_each_segment_part(*c.coded, before, now, [&](int passes, uint32_t bytes) {
            raise = std::max(raise, bits_for(bytes) - floor_log2(static_cast<uint32_t>(passes)) - s.lblock[i]);
          });
          for (int r = 0; r < raise; ++r) bits.put(1);
          bits.put(0);
          s.lblock[i] += raise;
          for_each_segment_part(*c.coded, before, now, [&](int passes, uint32_t bytes) {
            bits.put(bytes, s.lblock[i] + floor_log2(static_cast<uint32_t>(passes)));
          });
          const uint32_t from = before > 0 ? c.coded->passes[static_cast<size_t>(before - 1)].end : 0;
          const uint32_t to = c.coded->passes[static_cast<size_t>(now - 1)].end;
          body.push_back({c.coded, from, to});
          body_bytes += to - from;
          s.sent[i] = now;
        }
      }
    }
    bits.flush();
  }
  if (eph) {
    header.push_back(0xFF);
    header.push_back(0x92);
  }
  return body_bytes;
}

}  // namespace j2k::codec
