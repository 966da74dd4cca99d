// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer target: arbitrary bytes as one HT code-block's segments to the HT block decoder
// (codec/tier1/ht/, ISO/IEC 15444-15), the way Tier-2 hands them over. The first 6 bytes
// choose the block (width and height 1..64 or one of the long shapes, its bit planes, the
// stripe-causal mode) and how the rest splits into a cleanup segment and a refinement
// segment, with 0 to 2 refinement passes and 0 to 2 groups of placeholder passes. The decoder
// must write only inside the block, give values its form allows (|v| < 2^31), and either
// decode or report the block corrupt (zeros); a throw is a finding but for the sizes it
// checks. And each of its builds (portable, AVX2 where the CPU has it), and the decoder the
// GPU batches run (device_block_decoder.hpp, here on the host, its scratch full of junk), must
// decode exactly as the reference decoder (reference_block_decoder.hpp) does: the same values
// and report. And decoded together with eight others of its size (decode_blocks_dequantised:
// where the CPU has AVX-512, their VLC sub-passes side by side in the lanes of two vectors),
// three of the nine with its cleanup segment cut short, each as it decodes alone.
// Seeds: ht_block/.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "codec/tier1/ht/block_decoder.hpp"
#include "codec/tier1/ht/cleanup_pass.hpp"
#include "codec/tier1/ht/device_block_decoder.hpp"
#include "codec/tier1/ht/reference_block_decoder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace j2k::codec;
  if (size < 6) return 0;
  static const int kShapes[][2] = {{4, 1024}, {1024, 4}, {1, 1024}, {2, 1024}};
  int w = 1 + data[0] % 64, h = 1 + data[1] % 64;
  if (data[0] >= 250) {
    w = kShapes[(data[0] - 250) & 3][0];
    h = kShapes[(data[0] - 250) & 3][1];
  }
  const int bitplanes = data[2] % 31;
  const int refinement = data[3] % 3, placeholders = (data[3] / 3) % 3;
  const uint8_t modes = static_cast<uint8_t>(kModeHt | ((data[3] & 0x80) ? kModeCausal : 0));
  const size_t rest = size - 6;
  const size_t cleanup = refinement ? std::min<size_t>(rest, (size_t{data[4]} << 8 | data[5])) : rest;
  std::vector<uint8_t> bytes(data + 6, data + size);
  std::vector<uint32_t> sizes{static_cast<uint32_t>(cleanup)};
  std::vector<int> passes{1 + 3 * placeholders};
  if (refinement) {
    sizes.push_back(static_cast<uint32_t>(rest - cleanup));
    passes.push_back(refinement);
  }
  BlockCode code;
  code.bytes = bytes.data();
  code.size = bytes.size();
  code.segment_bytes = sizes.data();
  code.segment_passes = passes.data();
  code.segments = sizes.size();
  code.width = w;
  code.height = h;
  code.modes = modes;
  code.bitplanes = bitplanes;
  // A guard row and column of canaries round the block, which the decoder must not touch.
  const ptrdiff_t stride = w + 1;
  std::vector<int32_t> out(static_cast<size_t>(stride) * static_cast<size_t>(h + 1), 0x5A5A5A5A);
  const BlockDecodeReport r = ht::decode_block(code, out.data(), stride);
  std::vector<int32_t> expected(out.size(), 0x5A5A5A5A);
  const BlockDecodeReport e = ht::decode_block_reference(code, expected.data(), stride);
  if (r.passes != e.passes || r.corrupt != e.corrupt || out != expected) __builtin_trap();
  for (ht::HtDecoderPath path : {ht::HtDecoderPath::Portable, ht::HtDecoderPath::Avx2, ht::HtDecoderPath::Avx512}) {
    if (!ht::available(path)) continue;
    std::vector<int32_t> other(out.size(), 0x5A5A5A5A);
    const BlockDecodeReport o = ht::decode_block(code, other.data(), stride, path);
    if (o.passes != e.passes || o.corrupt != e.corrupt || other != expected) __builtin_trap();
  }
  {
    std::vector<int32_t> other(out.size(), 0x5A5A5A5A);
    std::vector<uint8_t> scratch(ht::device::scratch_bytes(w, h), 0xA5);
    const BlockDecodeReport o = ht::device::decode_block(code, ht::cleanup::tables(), scratch.data(), other.data(), stride);
    if (o.passes != e.passes || o.corrupt != e.corrupt || other != expected) __builtin_trap();
  }
  {
    std::vector<uint32_t> cut_sizes = sizes;
    cut_sizes[0] = static_cast<uint32_t>(cleanup / 2);
    BlockCode cut = code;
    cut.segment_bytes = cut_sizes.data();
    cut.size = bytes.size() - (cleanup - cleanup / 2);
    std::vector<uint8_t> cut_bytes(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(cleanup / 2));
    cut_bytes.insert(cut_bytes.end(), bytes.begin() + static_cast<ptrdiff_t>(cleanup), bytes.end());
    cut.bytes = cut_bytes.data();
    // Nine: more than one vector's eight lanes.
    constexpr int kTogether = 9;
    const BlockCode* codes[kTogether] = {&code, &cut, &code, &code, &cut, &code, &code, &cut, &code};
    const Dequantisation q = (data[3] & 0x40) ? Dequantisation::of_step(0.5f) : Dequantisation{};
    DequantisedBlock blocks[kTogether];
    std::vector<int32_t> together[kTogether], alone[kTogether];
    for (int i = 0; i < kTogether; ++i) {
      together[i].assign(out.size(), 0x5A5A5A5A);
      alone[i].assign(out.size(), 0x5A5A5A5A);
      blocks[i].code = codes[i];
      blocks[i].q = q;
      blocks[i].out = together[i].data();
      blocks[i].stride = stride;
    }
    ht::decode_blocks_dequantised(blocks, kTogether);
    for (int i = 0; i < kTogether; ++i) {
      const BlockDecodeReport a = ht::decode_block_dequantised(*codes[i], q, alone[i].data(), stride);
      if (a.passes != blocks[i].report.passes || a.corrupt != blocks[i].report.corrupt || together[i] != alone[i])
        __builtin_trap();
    }
  }
  for (int y = 0; y <= h; ++y)
    for (int x = 0; x <= w; ++x) {
      const int32_t v = out[static_cast<size_t>(y * stride + x)];
      if (x == w || y == h) {
        if (v != 0x5A5A5A5A) __builtin_trap();
      } else if (v == 0x5A5A5A5A || (r.corrupt && v != 0)) {
        __builtin_trap();
      }
    }
  return 0;
}
