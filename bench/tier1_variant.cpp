// One revision's Tier-1 block decoder as a shared object for tier1_ab (bench/tier1_ab.sh
// compiles this file against that revision's codec/tier1/ and common/). The C entry point
// takes the block as plain values, so that revisions whose BlockCode differ in layout still
// compare; everything else in the object stays hidden (-fvisibility=hidden), so that two
// revisions' decoders live side by side in one process.
#include "codec/tier1/block_decoder.cpp"

extern "C" __attribute__((visibility("default"))) int tier1_variant_decode(
    const uint8_t* bytes, size_t size, const uint32_t* segment_bytes, const int* segment_passes, size_t segments,
    int width, int height, int band, int modes, int bitplanes, int32_t* out, ptrdiff_t stride) {
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
    return j2k::codec::decode_block(code, out, stride).passes;
  } catch (...) {
    return -1;
  }
}
