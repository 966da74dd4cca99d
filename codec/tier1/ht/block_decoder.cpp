// SPDX-License-Identifier: BSD-2-Clause
// The HT block decoder: the cleanup pass of cleanup_pass.hpp in the build this CPU runs
// fastest (AVX2, block_decoder_avx2.cpp, or the portable one), then SigProp and MagRef where
// the set has them. It decodes bit for bit as reference_block_decoder.cpp, which reads the
// standard's steps one at a time, hostile input included (tests/ht_block_decoder_test.cpp,
// the ht_block fuzzer).
#include "codec/tier1/ht/block_decoder.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

#include "codec/tier1/ht/avx2_build.hpp"
#include "codec/tier1/ht/cleanup_pass.hpp"
#include "codec/tier1/ht/coded_set.hpp"
#include "codec/tier1/ht/quad_rules.hpp"
#include "codec/tier1/ht/refinement_decoder.hpp"
#include "codec/tier1/ht/vlc_lanes.hpp"
#include "codec/tier1/ht/vlc_tables.hpp"
#include "codec/tier1/ht/word_readers.hpp"

namespace j2k::codec::ht {
namespace {

using cleanup::Inconsistent;
using cleanup::Tables;
using cleanup::UvlcPrefixes;
namespace packed = cleanup::packed;

constexpr int kMaxSamples = 4096;

uint32_t pack(const CxtVlcEntry& e, unsigned right_context) {
  return static_cast<uint32_t>(e.rho | e.u_off << 4 | e.length << packed::kLengthShift | e.e_k << packed::kEkShift |
                               e.e_1 << packed::kE1Shift) |
         right_context << packed::kRightContextShift;
}

// The U-VLC prefix at the head of `bits`: "1", "01", "001", "000" for 1, 2, 3, 5.
struct Prefix {
  int bits, value;
};
constexpr Prefix uvlc_prefix(unsigned bits) {
  return (bits & 1) ? Prefix{1, 1} : (bits & 2) ? Prefix{2, 2} : (bits & 4) ? Prefix{3, 3} : Prefix{3, 5};
}
constexpr int uvlc_suffix_bits(int prefix) { return prefix == 3 ? 1 : prefix == 5 ? 5 : 0; }

// The prefixes' bits, each u before its suffix and each suffix's length.
struct UvlcFields {
  int prefix_bits = 0, u_first = 0, u_second = 0, suffix_first = 0, suffix_second = 0;
};

UvlcFields uvlc_fields(unsigned mode, unsigned bits) {
  using namespace cleanup;
  const Prefix a = uvlc_prefix(bits);
  switch (mode) {
    case kFirstU: return {a.bits, a.value, 0, uvlc_suffix_bits(a.value), 0};
    case kSecondU: return {a.bits, 0, a.value, 0, uvlc_suffix_bits(a.value)};
    case kBothU:
    case kInitialBothAbove2: {
      const Prefix b = uvlc_prefix(bits >> a.bits);
      const int base = mode == kInitialBothAbove2 ? 2 : 0;
      return {a.bits + b.bits, base + a.value, base + b.value, uvlc_suffix_bits(a.value), uvlc_suffix_bits(b.value)};
    }
    case kInitialBoth: {
      // The first u above 2: the second (1 or 2) is one bit after the first's prefix.
      if (a.value > 2)
        return {a.bits + 1, a.value, 1 + static_cast<int>((bits >> a.bits) & 1), uvlc_suffix_bits(a.value), 0};
      // Otherwise the first is its prefix alone, and the second is coded in full.
      const Prefix b = uvlc_prefix(bits >> a.bits);
      return {a.bits + b.bits, a.value, b.value, 0, uvlc_suffix_bits(b.value)};
    }
    default: return {};  // kNoU: no bits, both u 0
  }
}

UvlcPrefixes uvlc_entry(unsigned mode, unsigned bits) {
  const UvlcFields f = uvlc_fields(mode, bits);
  auto u8 = [](int v) { return static_cast<uint8_t>(v); };
  return {u8(f.prefix_bits + f.suffix_first + f.suffix_second), u8(f.prefix_bits), u8(f.u_first), u8(f.u_second),
          u8(f.suffix_first), u8((1 << f.suffix_first) - 1), u8((1 << f.suffix_second) - 1), 0};
}

// Zeros in either form: 0 and 0.0f have the same bits (a float plane is written as bytes).
void zero(void* out, ptrdiff_t stride, int width, int height) {
  for (int y = 0; y < height; ++y) std::memset(static_cast<int32_t*>(out) + y * stride, 0, static_cast<size_t>(width) * 4);
}

using CleanupFn = void (*)(cleanup::CleanupSegment, int32_t*, ptrdiff_t, int, int, int, const cleanup::OutputForm&);

void portable_cleanup(cleanup::CleanupSegment segment, int32_t* out, ptrdiff_t stride, int width, int height, int plane,
                      const cleanup::OutputForm& form) {
  cleanup::decode_cleanup<cleanup::PortableRows>(segment, out, stride, width, height, plane, form);
}

// A path the CPU lacks falls back to the portable one.
CleanupFn cleanup_for(HtDecoderPath path) {
#if J2K_HT_HAVE_AVX2
  static const bool has_avx2 = available(HtDecoderPath::Avx2), has_avx512 = available(HtDecoderPath::Avx512);
  if (path == HtDecoderPath::Avx512 && has_avx512) return cleanup::avx512_cleanup;
  if (path == HtDecoderPath::Avx2 && has_avx2) return cleanup::avx2_cleanup;
#endif
  (void)path;
  return portable_cleanup;
}

}  // namespace

const cleanup::Tables& cleanup::tables() {
  static const Tables t = [] {
    Tables n{};
    // The context bits a quad gives the quad to its right: in the initial row three; in the
    // others bit 1 (the row above gives bits 0 and 2, see set_above_contexts()).
    auto right_context = [](bool initial, unsigned rho) {
      return static_cast<unsigned>(initial ? initial_row_context(rho) : other_row_context(0, 0, 0, rho));
    };
    for (int initial = 0; initial < 2; ++initial) {
      const CxtVlcEntry* entries = cxt_vlc_table(initial != 0);
      for (int i = 0; i < 8 * 128; ++i)
        n.cxt[initial][i] =
            entries[i].length ? pack(entries[i], right_context(initial != 0, entries[i].rho)) : packed::kUnknown;
    }
    for (unsigned mode = 0; mode < 6; ++mode)
      for (unsigned bits = 0; bits < 64; ++bits) n.uvlc[mode][bits] = uvlc_entry(mode, bits);
    return n;
  }();
  return t;
}

const cleanup::LinkedCxt& cleanup::linked_cxt() {
  static const LinkedCxt l = [] {
    const Tables& t = tables();
    LinkedCxt n{};
    for (int initial = 0; initial < 2; ++initial)
      for (int i = 0; i < 8 * 128; ++i) {
        const uint32_t e = t.cxt[initial][i];
        n.entry[initial][i] = (e & packed::kUnknown)
                                  ? linked::kUnknown
                                  : static_cast<uint32_t>(packed::length(e)) | packed::right_context(e) << 7 |
                                        ((e & packed::kUOff) ? linked::kUOff : 0u) | (e & 0xFFFFu) << linked::kPackedShift;
      }
    return n;
  }();
  return l;
}

bool available(HtDecoderPath path) {
  switch (path) {
    case HtDecoderPath::Portable: return true;
    case HtDecoderPath::Avx2: return avx2_runs();
    case HtDecoderPath::Avx512: return avx512_runs();
  }
  return false;
}

HtDecoderPath fastest_path() {
  static const HtDecoderPath path = available(HtDecoderPath::Avx512) ? HtDecoderPath::Avx512
                                    : available(HtDecoderPath::Avx2) ? HtDecoderPath::Avx2
                                                                      : HtDecoderPath::Portable;
  return path;
}

BlockDecodeReport decode_block(const BlockCode& code, int32_t* out, ptrdiff_t stride) {
  return decode_block(code, out, stride, fastest_path());
}

namespace {

// decode_block() with its cleanup pass writing in `form`; the caller sees that a form that
// dequantises comes with no SigProp or MagRef to decode.
BlockDecodeReport decode_set(const BlockCode& code, const HtSet& set, int32_t* out, ptrdiff_t stride, HtDecoderPath path,
                             const cleanup::OutputForm& form) {
  BlockDecodeReport report;
  try {
    if (set.plane < 0) throw Inconsistent{};  // more placeholder passes than planes
    cleanup_for(path)({set.cleanup, set.cleanup_size}, out, stride, code.width, code.height, set.plane, form);
    // Passes below plane 0 do not exist: a SigProp or MagRef after a cleanup at plane 0 is
    // ignored.
    const int refinement = set.plane > 0 ? set.refinement_passes : 0;
    if (refinement > 0) {
      uint8_t sig[kMaxSamples];
      RefinementDecoder r(code.width, code.height, set.plane, (code.modes & kModeCausal) != 0, out, stride, sig);
      ForwardWordReader sigprop(set.refinement, set.refinement_size, false);
      r.significance_propagation(sigprop);
      if (refinement > 1) {
        BackwardWordReader magref(set.refinement, set.refinement_size, false);
        r.magnitude_refinement(magref);
      }
    }
    report.passes = set.passes - (set.refinement_passes - refinement);
  } catch (const Inconsistent&) {
    zero(out, stride, code.width, code.height);
    report.corrupt = true;
  }
  return report;
}

}  // namespace

BlockDecodeReport decode_block(const BlockCode& code, int32_t* out, ptrdiff_t stride, HtDecoderPath path) {
  check_block(code);
  HtSet set;
  if (code.bitplanes <= 0 || !find_set(code, set)) {
    zero(out, stride, code.width, code.height);
    return {};
  }
  return decode_set(code, set, out, stride, path, cleanup::OutputForm{});
}

BlockDecodeReport decode_block_dequantised(const BlockCode& code, const Dequantisation& q, void* out, ptrdiff_t stride) {
  return decode_block_dequantised(code, q, out, stride, fastest_path());
}

BlockDecodeReport decode_block_dequantised(const BlockCode& code, const Dequantisation& q, void* out, ptrdiff_t stride,
                                           HtDecoderPath path) {
  check_block(code);
  HtSet set;
  if (code.bitplanes <= 0 || !find_set(code, set)) {
    zero(out, stride, code.width, code.height);
    return {};
  }
  // SigProp and MagRef (decoded where the cleanup is above plane 0) refine the coefficient
  // form: through a copy.
  if (set.plane > 0 && set.refinement_passes > 0) {
    int32_t values[kMaxSamples];
    const BlockDecodeReport report = decode_set(code, set, values, code.width, path, cleanup::OutputForm{});
    write_dequantised(values, code.width, code.width, code.height, q, out, stride);
    return report;
  }
  return decode_set(code, set, static_cast<int32_t*>(out), stride, path, cleanup::OutputForm{true, q});
}

int blocks_decoded_together() {
#if J2K_HT_HAVE_AVX2
  static const int together = available(HtDecoderPath::Avx512) ? cleanup::kMaxLanes : 1;
  return together;
#else
  return 1;
#endif
}

namespace {

void decode_alone(DequantisedBlock& b) { b.report = decode_block_dequantised(*b.code, b.q, b.out, b.stride); }

#if J2K_HT_HAVE_AVX2
// Blocks [start, end) (at most kMaxLanes): those of the first sharing one's size whose set is a
// cleanup pass alone (or one at plane 0, whose refinement is ignored) share the VLC sub-pass in
// the lanes of vectors; the others go alone.
void decode_in_lanes(DequantisedBlock* blocks, size_t start, size_t end) {
  constexpr int kMax = cleanup::kMaxLanes;
  static_assert(kMax <= kMaxBlocksTogether, "BlockCoder's limit");
  size_t lane_block[kMax];
  HtSet sets[kMax];
  cleanup::CleanupSegment segments[kMax];
  int lanes = 0, width = 0, height = 0;
  for (size_t i = start; i < end; ++i) {
    const BlockCode& code = *blocks[i].code;
    check_block(code);
    HtSet set;
    const bool shares = code.bitplanes > 0 && find_set(code, set) && set.plane >= 0 && !(set.plane > 0 && set.refinement_passes > 0) &&
                        (lanes == 0 || (code.width == width && code.height == height));
    if (!shares) {
      decode_alone(blocks[i]);
      continue;
    }
    width = code.width;
    height = code.height;
    lane_block[lanes] = i;
    sets[lanes] = set;
    segments[lanes] = {set.cleanup, set.cleanup_size};
    ++lanes;
  }
  // On the heap, made by the first call on each thread (as thread_local objects their 64 KiB
  // each would be cleared at the start of every thread of the process).
  thread_local std::unique_ptr<cleanup::VlcLanes[]> made;
  if (lanes >= 2 && !made) made = std::make_unique<cleanup::VlcLanes[]>(kMax / cleanup::kVlcLanes);
  if (lanes < 2 || !cleanup::decode_vlc_lanes(segments, lanes, width, height, made.get())) {
    for (int lane = 0; lane < lanes; ++lane) decode_alone(blocks[lane_block[lane]]);
    return;
  }
  for (int first = 0; first < lanes; first += cleanup::kVlcLanes) {
    const int group = std::min(cleanup::kVlcLanes, lanes - first);
    const cleanup::VlcLanes& vlc = made[first / cleanup::kVlcLanes];
    cleanup::LaneBlock lane_blocks[cleanup::kVlcLanes];
    for (int lane = 0; lane < group; ++lane) {
      const DequantisedBlock& b = blocks[lane_block[first + lane]];
      lane_blocks[lane] = {segments[first + lane], static_cast<int32_t*>(b.out), b.stride, sets[first + lane].plane,
                           cleanup::OutputForm{true, b.q}, vlc.inconsistent[lane]};
    }
    cleanup::avx512_cleanups_after_vlc(vlc, lane_blocks, group, width, height);
    for (int lane = 0; lane < group; ++lane) {
      DequantisedBlock& b = blocks[lane_block[first + lane]];
      const HtSet& set = sets[first + lane];
      b.report = BlockDecodeReport{};
      if (lane_blocks[lane].corrupt) {
        zero(b.out, b.stride, width, height);
        b.report.corrupt = true;
      } else {
        b.report.passes = set.passes - set.refinement_passes;  // a refinement at plane 0 is ignored
      }
    }
  }
}
#endif

}  // namespace

void decode_blocks_dequantised(DequantisedBlock* blocks, size_t count) {
#if J2K_HT_HAVE_AVX2
  if (blocks_decoded_together() > 1) {  // sixteen at a time, in their order
    for (size_t start = 0; start < count; start += cleanup::kMaxLanes)
      decode_in_lanes(blocks, start, std::min(count, start + cleanup::kMaxLanes));
    return;
  }
#endif
  for (size_t i = 0; i < count; ++i) decode_alone(blocks[i]);
}

}  // namespace j2k::codec::ht
