// SPDX-License-Identifier: BSD-2-Clause
// One revision's Tier-1 block decoder and encoder as a shared object for tier1_ab
// (bench/tier1_ab.sh compiles this file with that revision's codec/tier1/ sources, whichever
// files that revision has, so that moving code between them does not break the comparison).
// The C entry points take the block as plain values, so that revisions whose BlockCode or
// BlockView differ in layout still compare; everything else in the object stays hidden
// (-fvisibility=hidden), so that two revisions' coders live side by side in one process.
#include <cstring>

#include "codec/tier1/ebcot/block_decoder.hpp"
#include "codec/tier1/ebcot/block_encoder.hpp"
#include "codec/tier1/ht/block_decoder.hpp"
#include "codec/tier1/ht/block_encoder.hpp"

namespace {

template <typename DecodeBlock>
int decode(DecodeBlock decode_block, const uint8_t* bytes, size_t size, const uint32_t* segment_bytes,
           const int* segment_passes, size_t segments, int width, int height, int band, int modes, int bitplanes,
           int32_t* out, ptrdiff_t stride) {
  j2k::codec::BlockCode code;
  code.bytes = bytes;
  code.size = size;
  code.segment_bytes = segment_bytes;
  code.segment_passes = segment_passes;
  code.segments = segments;
  code.width = width;
  code.height = height;
  code.band = static_cast<j2k_band_type>(band);
  code.modes = static_cast<uint8_t>(modes);
  code.bitplanes = bitplanes;
  try {
    return decode_block(code, out, stride).passes;
  } catch (...) {
    return -1;
  }
}

template <typename EncodeBlock>
long encode(EncodeBlock encode_block, const j2k::codec::BlockView& view, uint8_t* bytes, size_t capacity,
            uint32_t* pass_ends, int* passes) {
  const j2k::codec::CodedBlock coded = encode_block(view);
  if (coded.bytes.size() > capacity) return -1;
  if (!coded.bytes.empty()) std::memcpy(bytes, coded.bytes.data(), coded.bytes.size());
  *passes = static_cast<int>(coded.passes.size());
  for (size_t k = 0; k < coded.passes.size(); ++k) pass_ends[k] = coded.passes[k].end;
  return static_cast<long>(coded.bytes.size());
}

j2k::codec::BlockView view_of(const int32_t* data, ptrdiff_t stride, int width, int height, int band, int estimate_distortion) {
  j2k::codec::BlockView view;
  view.data = data;
  view.stride = stride;
  view.width = width;
  view.height = height;
  view.band = static_cast<j2k_band_type>(band);
  view.estimate_distortion = estimate_distortion != 0;
  return view;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int tier1_variant_decode(
    const uint8_t* bytes, size_t size, const uint32_t* segment_bytes, const int* segment_passes, size_t segments,
    int width, int height, int band, int modes, int bitplanes, int32_t* out, ptrdiff_t stride) {
  return decode([](const j2k::codec::BlockCode& c, int32_t* o, ptrdiff_t s) { return j2k::codec::decode_block(c, o, s); },
                bytes, size, segment_bytes, segment_passes, segments, width, height, band, modes,
                bitplanes, out, stride);
}

// HT: the same, through the HT block decoder.
extern "C" __attribute__((visibility("default"))) int tier1_variant_ht_decode(
    const uint8_t* bytes, size_t size, const uint32_t* segment_bytes, const int* segment_passes, size_t segments,
    int width, int height, int band, int modes, int bitplanes, int32_t* out, ptrdiff_t stride) {
  // Through a lambda: a revision may overload decode_block (a path to force, say).
  return decode([](const j2k::codec::BlockCode& c, int32_t* o, ptrdiff_t s) { return j2k::codec::ht::decode_block(c, o, s); },
                bytes, size, segment_bytes, segment_passes, segments, width, height, band,
                modes, bitplanes, out, stride);
}

// Codes the block; its bytes into bytes[0..capacity) and each pass's end into pass_ends (at
// most 3 * 32 - 2 passes). Returns the byte count, or -1 where capacity is too small.
extern "C" __attribute__((visibility("default"))) long tier1_variant_encode(
    const int32_t* data, ptrdiff_t stride, int width, int height, int band, int modes, int estimate_distortion,
    uint8_t* bytes, size_t capacity, uint32_t* pass_ends, int* passes) {
  j2k::codec::BlockView view = view_of(data, stride, width, height, band, estimate_distortion);
  view.modes = static_cast<uint8_t>(modes);
  return encode(j2k::codec::encode_block, view, bytes, capacity, pass_ends, passes);
}

// HT: the block's HT set at `cleanup_plane` (its cleanup, SigProp and MagRef passes).
extern "C" __attribute__((visibility("default"))) long tier1_variant_ht_encode(
    const int32_t* data, ptrdiff_t stride, int width, int height, int band, int cleanup_plane, int estimate_distortion,
    uint8_t* bytes, size_t capacity, uint32_t* pass_ends, int* passes) {
  j2k::codec::BlockView view = view_of(data, stride, width, height, band, estimate_distortion);
  view.cleanup_plane = cleanup_plane;
  // (A lambda: ht::encode_block has an overload that names the build, in revisions from e85fc5e.)
  return encode([](const j2k::codec::BlockView& v) { return j2k::codec::ht::encode_block(v); }, view, bytes, capacity,
                pass_ends, passes);
}
