#include "codec/tier2/packet_writer.hpp"

#include "codec/tier2/bit_writer.hpp"
#include "codec/tier2/tag_tree.hpp"

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

// B.10.7.1: the codeword's length in Lblock + floor(log2(passes)) bits, Lblock (3 at first)
// raised first where the length needs more, each step signalled by a 1, then a 0.
void put_length(BitWriter& bits, uint32_t length, int passes) {
  int lblock = 3;
  const int extra = floor_log2(static_cast<uint32_t>(passes));
  const int needed = length ? floor_log2(length) + 1 : 1;
  while (lblock + extra < needed) {
    bits.put(1);
    ++lblock;
  }
  bits.put(0);
  bits.put(length, lblock + extra);
}

}  // namespace

void write_packet(const std::vector<PrecinctBand>& bands, std::vector<uint8_t>& out) {
  bool any = false;
  for (const PrecinctBand& b : bands)
    for (const CodedBlock* c : b.blocks) any = any || c->passes > 0;
  BitWriter bits(out);
  bits.put(any ? 1 : 0);
  if (any) {
    for (const PrecinctBand& b : bands) {
      if (b.blocks.empty()) continue;
      TagTree inclusion(b.blocks_x, b.blocks_y), missing(b.blocks_x, b.blocks_y);
      for (int i = 0; i < b.blocks_x * b.blocks_y; ++i) {
        // Included in layer 0, or never (a value no layer reaches).
        inclusion.set(i % b.blocks_x, i / b.blocks_x, b.blocks[static_cast<size_t>(i)]->passes > 0 ? 0 : UINT32_MAX - 1);
        missing.set(i % b.blocks_x, i / b.blocks_x, b.missing_bitplanes[static_cast<size_t>(i)]);
      }
      for (int i = 0; i < b.blocks_x * b.blocks_y; ++i) {
        const CodedBlock& c = *b.blocks[static_cast<size_t>(i)];
        const int x = i % b.blocks_x, y = i / b.blocks_x;
        inclusion.encode(x, y, 1, bits);
        if (c.passes == 0) continue;
        missing.encode(x, y, UINT32_MAX, bits);
        put_passes(bits, c.passes);
        put_length(bits, static_cast<uint32_t>(c.bytes.size()), c.passes);
      }
    }
  }
  bits.flush();
  for (const PrecinctBand& b : bands)
    for (const CodedBlock* c : b.blocks) out.insert(out.end(), c->bytes.begin(), c->bytes.end());
}

}  // namespace j2k::codec
