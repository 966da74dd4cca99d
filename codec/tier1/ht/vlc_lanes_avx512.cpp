// SPDX-License-Identifier: BSD-2-Clause
// decode_vlc_lanes (vlc_lanes.hpp): decode_vlc_row_of_kind's steps (cleanup_pass.hpp) for eight
// blocks in the lanes of AVX-512 vectors, the same results lane by lane.
#include "codec/tier1/ht/vlc_lanes.hpp"

#if J2K_HT_HAVE_AVX2
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "codec/tier1/ht/mel_runs.hpp"
#include "codec/tier1/ht/word_readers.hpp"

namespace j2k::codec::ht::cleanup {
namespace {

// A lane's VLC bits, unstuffed: fewer than Scup's 4,079 bytes at most, the last 56-bit step
// up to 6 bytes past them, and 24 bytes of 0s after that.
constexpr int kVlcBytes = 4160;
// A lane's MEL events, a bit each: one a quad and one a pair of the initial row at most (1,536),
// a run's overrun (below 256) and the 8 bytes a read takes.
constexpr int kMelBytes = 256;
constexpr int kMaxEvents = 1536;

// The VLC stream of a segment unstuffed into `bits` (the first in bit 0 of byte 0), then 0s:
// what BackwardWordReader gives, bits and all. Returns the byte from which all is 0.
uint32_t plain_vlc(const uint8_t* data, size_t scup, uint8_t* bits) {
  BackwardWordReader reader(data, scup - 1, true);
  // At most 4 bits of the first byte and 8 of each other.
  const size_t bytes = (8 * (scup - 1) + 7) / 8;
  size_t at = 0;
  for (; at < bytes; at += 7) {  // 56 bits a step, each step's 8-byte store overlapping the next
    reader.need(56);
    const uint64_t word = reader.bits() & ((uint64_t{1} << 56) - 1);
    std::memcpy(bits + at, &word, 8);
    reader.skip(56);
  }
  std::memset(bits + at, 0, 24);
  return static_cast<uint32_t>(at);
}

// A lane's MEL events, a bit each (a 1 where the event is a one), made as the lane's VLC
// sub-pass comes near them: the MEL stream is read on into the VLC stream's bytes, so that
// making every event a block might need would decode runs no quad takes.
struct MelLane {
  std::optional<MelRunQueue> runs;
  const uint16_t* next = nullptr;
  int made = 0;  // events in `bits`
  uint8_t* bits = nullptr;

  void start(const uint8_t* data, size_t scup, uint8_t* lane_bits) {
    runs.reset();
    runs.emplace(data, scup - 1);
    next = runs->empty();
    made = 0;
    bits = lane_bits;
    std::memset(bits, 0, kMelBytes);
  }
  // At least `events` events made (at most kMaxEvents asked for).
  void make(int events) {
    while (made < events) {
      const unsigned code = *next++;
      if (code == 0) {
        next = runs->fill();
        continue;
      }
      made += static_cast<int>(code >> 1);  // the run's events, its last a one where the code is odd
      if (code & 1) bits[(made - 1) >> 3] |= static_cast<uint8_t>(1u << ((made - 1) & 7));
    }
  }
};

struct LaneStreams {
  alignas(64) uint8_t vlc[kVlcLanes][kVlcBytes];
  alignas(64) uint8_t mel[kVlcLanes][kMelBytes];
  alignas(32) uint32_t vlc_limit[kVlcLanes];  // the last byte a lane's read starts at: 0s from there
  MelLane mel_lanes[kVlcLanes];
};

#define J2K_HT_LANES __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,bmi,bmi2")))

struct Lanes {
  __m256i vlc_at;     // each lane's byte offset into LaneStreams::vlc
  __m256i vlc_limit;  // and the last byte its read starts at
  __m256i mel_at;     // each lane's byte offset into LaneStreams::mel
  const uint8_t* vlc_base;
  const uint8_t* mel_base;
  MelLane* mel_lanes;
  int count;  // the lanes that hold a block (MelLane started), from 0
};

// The next 57 or more bits at each lane's bit position `pos` (reads past a lane's bits give 0s).
J2K_HT_LANES inline __m512i vlc_window(const Lanes& l, __m256i pos) {
  const __m256i byte = _mm256_add_epi32(_mm256_min_epu32(_mm256_srli_epi32(pos, 3), l.vlc_limit), l.vlc_at);
  const __m512i word = _mm512_i32gather_epi64(byte, l.vlc_base, 1);
  return _mm512_srlv_epi64(word, _mm512_cvtepu32_epi64(_mm256_and_si256(pos, _mm256_set1_epi32(7))));
}
J2K_HT_LANES inline __m512i mel_window(const Lanes& l, __m256i pos) {
  const __m256i byte = _mm256_add_epi32(_mm256_srli_epi32(pos, 3), l.mel_at);
  const __m512i word = _mm512_i32gather_epi64(byte, l.mel_base, 1);
  return _mm512_srlv_epi64(word, _mm512_cvtepu32_epi64(_mm256_and_si256(pos, _mm256_set1_epi32(7))));
}

// One quad of each lane (decode_quad): in the zero context a MEL event first, and no codeword
// where it is 0. Advances `window`, `used` (VLC bits), `mel` and `mel_used` (events).
struct QuadStep {
  __m512i window, mel;
  __m256i used, mel_used;
};
J2K_HT_LANES inline __m256i decode_quads(const uint32_t* table, __m256i context, QuadStep& s) {
  const __m256i zero = _mm256_setzero_si256();
  const __mmask8 zero_context = _mm256_cmpeq_epi32_mask(context, zero);
  const __mmask8 event = _mm512_test_epi64_mask(s.mel, _mm512_set1_epi64(1));
  s.mel = _mm512_mask_srli_epi64(s.mel, zero_context, s.mel, 1);
  s.mel_used = _mm256_mask_add_epi32(s.mel_used, zero_context, s.mel_used, _mm256_set1_epi32(1));
  const __mmask8 coded = static_cast<__mmask8>(~zero_context | event);
  const __m256i index =
      _mm256_or_si256(context, _mm256_and_si256(_mm512_cvtepi64_epi32(s.window), _mm256_set1_epi32(127)));
  const __m256i entry = _mm256_mmask_i32gather_epi32(zero, coded, index, table, 4);
  const __m256i length = _mm256_and_si256(entry, _mm256_set1_epi32(static_cast<int>(linked::kLength)));
  s.window = _mm512_srlv_epi64(s.window, _mm512_cvtepu32_epi64(length));
  s.used = _mm256_add_epi32(s.used, length);
  return entry;
}

// The context bits 0 and 2 of quad q of each lane from the row above's codewords (`above`:
// quad -1 of that row), shifted by 7 (set_above_contexts).
J2K_HT_LANES inline __m256i lane_quads(const uint32_t* row, int i) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(row + static_cast<ptrdiff_t>(i) * kVlcLanes));
}
J2K_HT_LANES inline __m256i above_context(const uint32_t* above, int q) {
  const __m256i left = lane_quads(above, q), own = lane_quads(above, q + 1), right = lane_quads(above, q + 2);
  const __m256i bit0 = _mm256_or_si256(_mm256_srli_epi32(left, 3), _mm256_srli_epi32(own, 1));
  const __m256i bit2 = _mm256_or_si256(_mm256_srli_epi32(own, 3), _mm256_srli_epi32(right, 1));
  const __m256i one = _mm256_set1_epi32(1);
  return _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(bit0, one), 7), _mm256_slli_epi32(_mm256_and_si256(bit2, one), 9));
}

// A byte field of each lane's 64-bit U-VLC entry.
J2K_HT_LANES inline __m512i field(__m512i p, int byte) {
  return _mm512_and_si512(_mm512_srli_epi64(p, static_cast<unsigned>(8 * byte)), _mm512_set1_epi64(0xFF));
}

// A group of eight lanes' state along a row.
struct Chain {
  __m256i vlc_pos, mel_pos, seen, left;
};

// One quad pair of each lane of a group (decode_vlc_row_of_kind's loop body).
template <bool kInitial>
J2K_HT_LANES __attribute__((always_inline)) inline void pair_step(const Lanes& l, const Tables& t, const uint32_t* table, int q,
                                                                  int qw, const uint32_t* above, uint32_t* quads, Chain& c) {
  const __m256i right_context = _mm256_set1_epi32(static_cast<int>(linked::kRightContext));
  const __m256i u_off = _mm256_set1_epi32(static_cast<int>(linked::kUOff));
  QuadStep s{vlc_window(l, c.vlc_pos), mel_window(l, c.mel_pos), _mm256_setzero_si256(), _mm256_setzero_si256()};
  const __m256i first_context = kInitial ? _mm256_and_si256(c.left, right_context)
                                         : _mm256_or_si256(above_context(above, q), _mm256_and_si256(c.left, right_context));
  const __m256i first = decode_quads(table, first_context, s);
  __m256i second = _mm256_setzero_si256();
  if (q + 1 < qw) {
    const __m256i second_context = kInitial ? _mm256_and_si256(first, right_context)
                                            : _mm256_or_si256(above_context(above, q + 1), _mm256_and_si256(first, right_context));
    second = decode_quads(table, second_context, s);
  }
  c.left = second;
  c.seen = _mm256_or_si256(c.seen, _mm256_or_si256(first, second));
  // The pair's U-VLC row: kNoU .. kBothU from the u_off bits; in the initial row a MEL event
  // decides between the two rules for both.
  __m256i row;
  if (kInitial) {
    __m256i mode = _mm256_or_si256(_mm256_srli_epi32(_mm256_and_si256(first, u_off), 10),
                                   _mm256_srli_epi32(_mm256_and_si256(second, u_off), 9));
    const __mmask8 both = _mm256_cmpeq_epi32_mask(mode, _mm256_set1_epi32(kBothU));
    const __mmask8 event = _mm512_test_epi64_mask(s.mel, _mm512_set1_epi64(1));
    s.mel_used = _mm256_mask_add_epi32(s.mel_used, both, s.mel_used, _mm256_set1_epi32(1));
    mode = _mm256_mask_blend_epi32(both, mode,
                                   _mm256_mask_blend_epi32(event, _mm256_set1_epi32(kInitialBoth), _mm256_set1_epi32(kInitialBothAbove2)));
    row = _mm256_slli_epi32(mode, 6);
  } else {  // kFirstU's row kUOff / 2 bytes after kNoU's: 64 entries of 8 bytes
    row = _mm256_srli_epi32(_mm256_add_epi32(_mm256_srli_epi32(_mm256_and_si256(first, u_off), 1), _mm256_and_si256(second, u_off)), 3);
  }
  const __m256i index = _mm256_add_epi32(row, _mm256_and_si256(_mm512_cvtepi64_epi32(s.window), _mm256_set1_epi32(63)));
  const __m512i p = _mm512_i32gather_epi64(index, reinterpret_cast<const long long*>(t.uvlc[0]), 8);
  // UvlcPrefixes' bytes: bits, prefix_bits, u_first, u_second, suffix_bits_first,
  // suffix_mask_first, suffix_mask_second.
  const __m512i suffixes = _mm512_srlv_epi64(s.window, field(p, 1));
  const __m512i suffix_first = _mm512_and_si512(suffixes, field(p, 5));
  const __m512i suffix_second = _mm512_and_si512(_mm512_srlv_epi64(suffixes, field(p, 4)), field(p, 6));
  __m512i u_first = _mm512_add_epi64(field(p, 2), suffix_first);
  __m512i u_second = _mm512_add_epi64(field(p, 3), suffix_second);
  const __m512i bits = field(p, 0);
  s.window = _mm512_srlv_epi64(s.window, bits);
  __m512i used = _mm512_add_epi64(_mm512_cvtepu32_epi64(s.used), bits);
  // A 5-bit suffix of 28 or more: a 4-bit extension, worth 4 each, the first quad's first.
  const __m512i last_short = _mm512_set1_epi64(27);
  const __mmask8 extend_first = _mm512_cmpgt_epu64_mask(suffix_first, last_short);
  const __mmask8 extend_second = _mm512_cmpgt_epu64_mask(suffix_second, last_short);
  if ((extend_first | extend_second) != 0) {
    const __m512i four = _mm512_set1_epi64(4), nibble = _mm512_set1_epi64(15);
    u_first = _mm512_mask_add_epi64(u_first, extend_first, u_first, _mm512_slli_epi64(_mm512_and_si512(s.window, nibble), 2));
    s.window = _mm512_mask_srli_epi64(s.window, extend_first, s.window, 4);
    used = _mm512_mask_add_epi64(used, extend_first, used, four);
    u_second = _mm512_mask_add_epi64(u_second, extend_second, u_second, _mm512_slli_epi64(_mm512_and_si512(s.window, nibble), 2));
    used = _mm512_mask_add_epi64(used, extend_second, used, four);
  }
  // Quads q and q + 1 (the empty quad past an odd row: 0): the codewords' packed low 16
  // bits, and u (at most 5 + 31 + 4 x 15 + 2) above them. The second quad's u in the empty
  // quad is never read.
  _mm256_store_si256(reinterpret_cast<__m256i*>(quads + static_cast<ptrdiff_t>(q + 1) * kVlcLanes),
                     _mm256_or_si256(_mm256_srli_epi32(first, linked::kPackedShift), _mm256_slli_epi32(_mm512_cvtepi64_epi32(u_first), 16)));
  _mm256_store_si256(reinterpret_cast<__m256i*>(quads + static_cast<ptrdiff_t>(q + 2) * kVlcLanes),
                     _mm256_or_si256(_mm256_srli_epi32(second, linked::kPackedShift), _mm256_slli_epi32(_mm512_cvtepi64_epi32(u_second), 16)));
  c.vlc_pos = _mm256_add_epi32(c.vlc_pos, _mm512_cvtepi64_epi32(used));
  c.mel_pos = _mm256_add_epi32(c.mel_pos, s.mel_used);
}

// A quad row of kGroups groups of lanes, their pair steps in turn: independent chains, whose
// lookups the core overlaps.
template <bool kInitial, int kGroups>
J2K_HT_LANES void vlc_row(const Lanes* l, const Tables& t, const LinkedCxt& linked, int qw, const uint32_t* const* above,
                          uint32_t* const* quads, Chain* c) {
  const uint32_t* table = linked.entry[kInitial ? 1 : 0];
  for (int g = 0; g < kGroups; ++g) c[g].left = _mm256_setzero_si256();
  for (int q = 0; q < qw; q += 2)
    for (int g = 0; g < kGroups; ++g) pair_step<kInitial>(l[g], t, table, q, qw, above[g], quads[g], c[g]);
}

template <int kGroups>
J2K_HT_LANES __attribute__((noinline)) void vlc_rows(const Lanes* l, int qw, int qh, VlcLanes* out) {
  const Tables& t = tables();
  const LinkedCxt& linked = linked_cxt();
  Chain c[kGroups];
  for (int g = 0; g < kGroups; ++g) c[g].vlc_pos = c[g].mel_pos = c[g].seen = _mm256_setzero_si256();
  const ptrdiff_t row = static_cast<ptrdiff_t>(qw + 2) * kVlcLanes;
  for (int r = 0; r < qh; ++r) {
    const uint32_t* above[kGroups];
    uint32_t* quads[kGroups];
    for (int g = 0; g < kGroups; ++g) {
      // The events this row may take: one a quad, and in the initial row one a pair.
      alignas(32) uint32_t mel_at[kVlcLanes];
      _mm256_store_si256(reinterpret_cast<__m256i*>(mel_at), c[g].mel_pos);
      const int row_events = qw + (r == 0 ? (qw + 1) / 2 : 0);
      for (int lane = 0; lane < l[g].count; ++lane) l[g].mel_lanes[lane].make(static_cast<int>(mel_at[lane]) + row_events);
      quads[g] = out[g].quads + r * row;
      above[g] = r == 0 ? nullptr : quads[g] - row;  // the row above from its quad -1
      // The empty quads before and after the row (past an odd row's end the pair step writes it).
      _mm256_store_si256(reinterpret_cast<__m256i*>(quads[g]), _mm256_setzero_si256());
      _mm256_store_si256(reinterpret_cast<__m256i*>(quads[g] + static_cast<ptrdiff_t>(qw + 1) * kVlcLanes), _mm256_setzero_si256());
    }
    if (r == 0)
      vlc_row<true, kGroups>(l, t, linked, qw, above, quads, c);
    else
      vlc_row<false, kGroups>(l, t, linked, qw, above, quads, c);
  }
  for (int g = 0; g < kGroups; ++g) {
    const __mmask8 unknown = _mm256_test_epi32_mask(c[g].seen, _mm256_set1_epi32(static_cast<int>(linked::kUnknown)));
    for (int lane = 0; lane < kVlcLanes; ++lane) out[g].inconsistent[lane] = ((unknown >> lane) & 1) != 0;
  }
}

}  // namespace

J2K_HT_LANES __attribute__((noinline)) void lane_row(const VlcLanes& vlc, int lane, int r, QuadRow& quads) {
  // The row's quads 0 .. qw (an odd row's empty quad too: MagSgn's last pair reads it), 32 at
  // a time gathered from the lane's column, 0 past them. Whole 32-byte stores, where the
  // exponent bounds' loads of the same 32 bytes find them (a masked store or two halves would
  // not forward to them). QuadRow holds 512 quads from 0: these stores end at 511 at most.
  const int n = vlc.qw + (vlc.qw & 1);
  const uint32_t* first = vlc.quads + (static_cast<ptrdiff_t>(r) * vlc.row_quads + 1) * kVlcLanes + lane;
  const __m512i index = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                           _mm512_set1_epi32(kVlcLanes));
  auto in_row = [n](int q) { return static_cast<__mmask16>(n - q >= 16 ? 0xFFFF : n - q <= 0 ? 0 : (1u << (n - q)) - 1); };
  uint16_t* codeword = quads.codeword();
  for (int q = 0; q < n; q += 32) {
    const __m512i low = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), in_row(q), index, first + static_cast<ptrdiff_t>(q) * kVlcLanes, 4);
    const __m512i high =
        _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), in_row(q + 16), index, first + static_cast<ptrdiff_t>(q + 16) * kVlcLanes, 4);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(codeword + q), _mm512_cvtepi32_epi16(low));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(codeword + q + 16), _mm512_cvtepi32_epi16(high));
    const __m256i u = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm512_cvtepi32_epi8(_mm512_srli_epi32(low, 16))),
                                              _mm512_cvtepi32_epi8(_mm512_srli_epi32(high, 16)), 1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(quads.u + q), u);
  }
}

J2K_HT_LANES bool decode_vlc_lanes(const CleanupSegment* segments, int lanes, int width, int height, VlcLanes* out) {
  const int qw = (width + 1) / 2, qh = (height + 1) / 2;
  const int events = qw * qh + (qw + 1) / 2;
  if (lanes < 1 || lanes > kMaxLanes || static_cast<size_t>(qh) * static_cast<size_t>(qw + 2) > kMaxLaneQuads ||
      events > kMaxEvents)
    return false;
  for (int lane = 0; lane < lanes; ++lane) {  // decode_cleanup's checks of the segment
    const uint8_t* d = segments[lane].data;
    const size_t lcup = segments[lane].size;
    if (lcup < 2) return false;
    const size_t scup = (static_cast<size_t>(d[lcup - 1]) << 4) | (d[lcup - 2] & 0x0F);
    if (scup < 2 || scup > lcup || scup > 4079) return false;
  }
  // The lanes' VLC streams end their segments and are read from there: each asked for ahead
  // of the unstuffing, which would otherwise wait on each lane's first bytes in turn.
  for (int lane = 0; lane < lanes; ++lane) {
    const uint8_t* end = segments[lane].data + segments[lane].size;
    for (int back = 1; back <= 256; back += 64) __builtin_prefetch(end - back);
  }
  // On the heap, made by the first call on each thread: as thread_local objects their 40 KiB
  // each would be cleared at the start of every thread of the process, serially, whether or
  // not the thread decodes HT blocks.
  thread_local std::unique_ptr<LaneStreams> made[kMaxLanes / kVlcLanes];
  const int groups = (lanes + kVlcLanes - 1) / kVlcLanes;
  Lanes l[kMaxLanes / kVlcLanes];
  for (int g = 0; g < groups; ++g) {
    if (!made[g]) made[g] = std::make_unique<LaneStreams>();
    LaneStreams& streams = *made[g];
    const int count = std::min(kVlcLanes, lanes - g * kVlcLanes);
    alignas(32) uint32_t vlc_at[kVlcLanes], mel_at[kVlcLanes];
    for (int lane = 0; lane < kVlcLanes; ++lane) {
      vlc_at[lane] = static_cast<uint32_t>(lane * kVlcBytes);
      mel_at[lane] = static_cast<uint32_t>(lane * kMelBytes);
      if (lane >= count) {  // no block: streams of 0s, its results not read
        std::memset(streams.vlc[lane], 0, 24);
        streams.vlc_limit[lane] = 0;
        std::memset(streams.mel[lane], 0, kMelBytes);
        continue;
      }
      const CleanupSegment& s = segments[g * kVlcLanes + lane];
      const size_t scup = (static_cast<size_t>(s.data[s.size - 1]) << 4) | (s.data[s.size - 2] & 0x0F);
      const uint8_t* pcup = s.data + (s.size - scup);
      streams.vlc_limit[lane] = plain_vlc(pcup, scup, streams.vlc[lane]);
      streams.mel_lanes[lane].start(pcup, scup, streams.mel[lane]);
    }
    l[g].vlc_at = _mm256_load_si256(reinterpret_cast<const __m256i*>(vlc_at));
    l[g].vlc_limit = _mm256_load_si256(reinterpret_cast<const __m256i*>(streams.vlc_limit));
    l[g].mel_at = _mm256_load_si256(reinterpret_cast<const __m256i*>(mel_at));
    l[g].vlc_base = streams.vlc[0];
    l[g].mel_base = streams.mel[0];
    l[g].mel_lanes = streams.mel_lanes;
    l[g].count = count;
    out[g].qw = qw;
    out[g].qh = qh;
    out[g].row_quads = qw + 2;
  }
  if (groups == 1)
    vlc_rows<1>(l, qw, qh, out);
  else
    vlc_rows<2>(l, qw, qh, out);
  return true;
}

}  // namespace j2k::codec::ht::cleanup

#endif  // J2K_HT_HAVE_AVX2
