// SPDX-License-Identifier: BSD-2-Clause
// The cleanup pass of cleanup_encoder.hpp for AVX2 and BMI2 (cleanup_encoder_avx2.hpp says
// how it splits the work). Every rule is CleanupEncoder::line_pair's, 8 quads a lane each:
// the exponents from a float's exponent field (as the AVX2 decoder finds them), the context
// from the neighbours' rho (the quad to the left rotated in from the lane before), kappa from
// the exponents of the line-pair above, the codeword gathered from cxt_vlc_encode_table().
// The tests code random blocks of every size with both builds and compare the bytes.
#include "codec/tier1/ht/cleanup_encoder_avx2.hpp"

#if J2K_HT_HAVE_AVX2
#include <immintrin.h>

#include <cstring>

#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "codec/tier1/ht/mel_run_table.hpp"
#include "codec/tier1/ht/vlc_tables.hpp"

namespace j2k::codec::ht {
namespace {

static_assert(sizeof(CxtVlcCodeword) == 4, "the vector stage gathers a codeword as one 32-bit word");

constexpr int kGroup = 8;          // quads in a vector
constexpr int kMaxQuads = 512;     // the widest block's (1024 columns)
// A line-pair's quads: index 0 the empty quad left of the block, the block's from 1, room for
// the last group and the quads the next line-pair reads right of it (0s).
constexpr int kContextEntries = kMaxQuads + 2 * kGroup + 2;

// What a line-pair leaves the next: each quad's rho and its bottom samples' exponents.
struct LinePairContext {
  alignas(32) int32_t rho[kContextEntries];
  alignas(32) int32_t e_left[kContextEntries];   // the bottom left sample's
  alignas(32) int32_t e_right[kContextEntries];  // the bottom right sample's
};

// What the vector stage leaves the scalar stage, per quad of a line-pair.
constexpr uint32_t kMelEvent = 1u << 12;  // in `vlc`: the quad's context is 0, a MEL event ...
constexpr uint32_t kMelOne = 1u << 13;    // ... which is 1 (the quad is significant)
struct QuadCodes {
  alignas(32) uint32_t vlc[kMaxQuads];     // the codeword, its length << 8, the MEL bits
  alignas(32) uint32_t bound[kMaxQuads];   // u, U << 8, e_k << 16, rho << 20
  alignas(32) uint32_t low[kMaxQuads];     // U <= 8: the quad's MagSgn bits; else samples 0 and 1's
  alignas(32) uint32_t high[kMaxQuads];    // U above 8: samples 2 and 3's
  alignas(32) uint32_t counts[kMaxQuads];  // the bits of samples 0 and 1, of 2 and 3 << 8
  // Outside the initial line-pair, a bit a quad, 8 a group: whether it sends a MEL event, and
  // whether that event is 1 (put_mel_events codes them at once, away from the other streams).
  alignas(8) uint8_t mel_event[kMaxQuads / 8];
  alignas(8) uint8_t mel_one[kMaxQuads / 8];
};

// The U-VLC codes of every pair (ua, ub) outside the initial line-pair, uvlc_pair_bits() of
// kUvlcTable's: one load a pair instead of twelve fields (8.7 KB, in L1 while a block codes).
struct UvlcPairTable {
  static constexpr int kSize = UvlcTable::kSize;
  UvlcPairBits pair[kSize * kSize];
  constexpr UvlcPairTable() : pair() {
    for (int a = 0; a < kSize; ++a)
      for (int b = 0; b < kSize; ++b) pair[a * kSize + b] = uvlc_pair_bits(kUvlcTable.code[a], kUvlcTable.code[b]);
  }
};
constexpr UvlcPairTable kUvlcPairs;

J2K_HT_AVX2 inline __m256i set1(int v) { return _mm256_set1_epi32(v); }

// The even (left) or odd (right) columns of 16 samples, quad order: lanes k = quad k.
template <int kOdd>
J2K_HT_AVX2 inline __m256i columns(const uint32_t* row) {
  const __m256 a = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row)));
  const __m256 b = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 8)));
  // Per 128-bit half: quads 0, 1, 4, 5, then 2, 3, 6, 7; the 64-bit pairs put back in order.
  const __m256 picked = kOdd ? _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)) : _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_permute4x64_epi64(_mm256_castps_si256(picked), _MM_SHUFFLE(3, 1, 2, 0));
}

// Samples m = 2 mu + sign: significance (all ones where mu > 0) and the exponent
// bit_length(2 (mu - 1) + 1) = 1 + bit_length(mu - 1), 0 where insignificant. bit_length from
// a float's exponent field, exact: mu - 1 < 2^31 (plan_cleanup's too_large), and with the bit
// below the top one cleared rounding cannot carry into the exponent.
J2K_HT_AVX2 inline __m256i exponents(__m256i m, __m256i& significant) {
  const __m256i one = set1(1);
  const __m256i mu = _mm256_srli_epi32(m, 1);
  significant = _mm256_xor_si256(_mm256_cmpeq_epi32(mu, _mm256_setzero_si256()), set1(-1));
  const __m256i y = _mm256_sub_epi32(mu, one);
  const __m256i top_kept = _mm256_andnot_si256(_mm256_srli_epi32(y, 1), y);
  const __m256i field = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(top_kept)), 23);
  const __m256i length = _mm256_max_epi32(_mm256_sub_epi32(field, set1(126)), _mm256_setzero_si256());  // 0 for y = 0
  return _mm256_and_si256(_mm256_add_epi32(length, one), significant);
}

// One line-pair's quads, 8 at a time: `row` receives its context for the next, `c` its codes.
template <bool kInitial>
J2K_HT_AVX2 inline void vector_stage(const uint32_t* top, const uint32_t* bottom, int qw, const LinePairContext& above,
                                     LinePairContext& row, const int* table, QuadCodes& c) {
  const __m256i zero = _mm256_setzero_si256(), one = set1(1), two = set1(2);
  const __m256i rotate = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6);
  __m256i previous = zero;  // the group before's rho: lane 7 is the quad left of this group
  for (int k = 0; k < qw; k += kGroup) {
    // Samples in column order: top left, bottom left, top right, bottom right.
    const __m256i m[4] = {columns<0>(top + 2 * k), columns<0>(bottom + 2 * k), columns<1>(top + 2 * k),
                          columns<1>(bottom + 2 * k)};
    __m256i sig[4], e[4];
    for (int j = 0; j < 4; ++j) e[j] = exponents(m[j], sig[j]);
    const __m256i rho = _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(sig[0], one), _mm256_and_si256(sig[1], two)),
                                        _mm256_or_si256(_mm256_and_si256(sig[2], set1(4)), _mm256_and_si256(sig[3], set1(8))));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row.rho + 1 + k), rho);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row.e_left + 1 + k), e[1]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row.e_right + 1 + k), e[3]);
    // Each quad's left neighbour's rho.
    const __m256i left = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(rho, rotate), _mm256_permutevar8x32_epi32(previous, rotate), 1);
    previous = rho;
    __m256i cx, kappa;
    if (kInitial) {  // initial_row_context(left)
      cx = _mm256_or_si256(_mm256_and_si256(_mm256_or_si256(left, _mm256_srli_epi32(left, 1)), one),
                           _mm256_and_si256(_mm256_srli_epi32(left, 1), set1(6)));
      kappa = one;
    } else {  // other_row_context(above left, above, above right, left)
      const __m256i a_left = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(above.rho + k));
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(above.rho + k + 1));
      const __m256i a_right = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(above.rho + k + 2));
      const __m256i nw_n = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi32(a_left, 3), _mm256_srli_epi32(a, 1)), one);
      const __m256i w_sw = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi32(left, 1), _mm256_srli_epi32(left, 2)), two);
      const __m256i ne_nf = _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi32(a, 1), _mm256_slli_epi32(a_right, 1)), set1(4));
      cx = _mm256_or_si256(_mm256_or_si256(nw_n, w_sw), ne_nf);
      // kappa: 1 for a quad with one significant sample, else max(1, the largest exponent of
      // the four samples above and either side, less 1).
      const __m256i e_near = _mm256_max_epi32(
          _mm256_max_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(above.e_right + k)),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(above.e_left + k + 1))),
          _mm256_max_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(above.e_right + k + 1)),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(above.e_left + k + 2))));
      const __m256i single = _mm256_cmpeq_epi32(_mm256_and_si256(rho, _mm256_sub_epi32(rho, one)), zero);
      kappa = _mm256_blendv_epi8(_mm256_max_epi32(one, _mm256_sub_epi32(e_near, one)), one, single);
    }
    const __m256i e_max = _mm256_max_epi32(_mm256_max_epi32(e[0], e[1]), _mm256_max_epi32(e[2], e[3]));
    const __m256i big_u = _mm256_max_epi32(e_max, kappa);
    const __m256i u = _mm256_sub_epi32(big_u, kappa);
    const __m256i at_bound =
        _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(_mm256_cmpeq_epi32(e[0], big_u), one),
                                        _mm256_and_si256(_mm256_cmpeq_epi32(e[1], big_u), two)),
                        _mm256_or_si256(_mm256_and_si256(_mm256_cmpeq_epi32(e[2], big_u), set1(4)),
                                        _mm256_and_si256(_mm256_cmpeq_epi32(e[3], big_u), set1(8))));
    // The codeword at [(cx * 16 + rho) * 17 + (u > 0 ? 1 + at_bound : 0)].
    const __m256i cx_rho = _mm256_add_epi32(_mm256_slli_epi32(cx, 4), rho);
    const __m256i u_off = _mm256_and_si256(_mm256_cmpgt_epi32(u, zero), _mm256_add_epi32(at_bound, one));
    const __m256i index = _mm256_add_epi32(_mm256_add_epi32(_mm256_slli_epi32(cx_rho, 4), cx_rho), u_off);
    const __m256i cw = _mm256_i32gather_epi32(table, index, 4);
    // A quad in context 0 with nothing significant sends no codeword, only its MEL event.
    const __m256i cx_zero = _mm256_cmpeq_epi32(cx, zero);
    const __m256i rho_zero = _mm256_cmpeq_epi32(rho, zero);
    const __m256i silent = _mm256_and_si256(cx_zero, rho_zero);
    const __m256i codeword = _mm256_andnot_si256(silent, _mm256_and_si256(cw, set1(0xFFF)));  // its bits, its length << 8
    const __m256i mel = _mm256_and_si256(cx_zero, _mm256_or_si256(set1(static_cast<int>(kMelEvent)),
                                                                   _mm256_andnot_si256(rho_zero, set1(static_cast<int>(kMelOne)))));
    _mm256_store_si256(reinterpret_cast<__m256i*>(c.vlc + k), _mm256_or_si256(codeword, mel));
    if (!kInitial) {
      c.mel_event[k / kGroup] = static_cast<uint8_t>(_mm256_movemask_ps(_mm256_castsi256_ps(cx_zero)));
      c.mel_one[k / kGroup] = static_cast<uint8_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_andnot_si256(rho_zero, cx_zero))));
    }
    // Each significant sample's bits below those the codeword gives: U less its e_k bit.
    const __m256i e_k = _mm256_and_si256(_mm256_srli_epi32(cw, 16), set1(0xF));
    __m256i bits[4], v[4];
    for (int j = 0; j < 4; ++j) {
      bits[j] = _mm256_and_si256(sig[j], _mm256_sub_epi32(big_u, _mm256_and_si256(_mm256_srli_epi32(e_k, j), one)));
      // (m - 2) cut to its bits (sllv by 32 gives 0: all 32 kept).
      v[j] = _mm256_and_si256(_mm256_sub_epi32(m[j], two), _mm256_sub_epi32(_mm256_sllv_epi32(one, bits[j]), one));
    }
    const __m256i low = _mm256_or_si256(v[0], _mm256_sllv_epi32(v[1], bits[0]));   // U <= 16: within 32 bits
    const __m256i high = _mm256_or_si256(v[2], _mm256_sllv_epi32(v[3], bits[2]));
    const __m256i low_count = _mm256_add_epi32(bits[0], bits[1]);
    const __m256i high_count = _mm256_add_epi32(bits[2], bits[3]);
    const __m256i whole = _mm256_or_si256(low, _mm256_sllv_epi32(high, low_count));  // U <= 8: the quad's in one word
    const __m256i small = _mm256_cmpgt_epi32(set1(9), big_u);
    _mm256_store_si256(reinterpret_cast<__m256i*>(c.low + k), _mm256_blendv_epi8(low, whole, small));
    _mm256_store_si256(reinterpret_cast<__m256i*>(c.high + k), high);
    _mm256_store_si256(reinterpret_cast<__m256i*>(c.counts + k), _mm256_or_si256(low_count, _mm256_slli_epi32(high_count, 8)));
    const __m256i bound = _mm256_or_si256(_mm256_or_si256(u, _mm256_slli_epi32(big_u, 8)),
                                          _mm256_or_si256(_mm256_slli_epi32(e_k, 16), _mm256_slli_epi32(rho, 20)));
    _mm256_store_si256(reinterpret_cast<__m256i*>(c.bound + k), bound);
  }
}

// A line-pair's MEL events outside the initial one, in the quads' order: MEL is a stream of
// its own, so its events need not interleave with the other streams' puts. Each run of 0
// events and the 1 after it go in one put (kMelRuns), and so do the 0s after the last 1.
J2K_HT_AVX2 inline void put_mel_events(const QuadCodes& c, int qw, MelEncoder& mel) {
  for (int first = 0; first < qw; first += 64) {
    uint64_t events, ones;
    std::memcpy(&events, c.mel_event + first / kGroup, sizeof events);
    std::memcpy(&ones, c.mel_one + first / kGroup, sizeof ones);
    const int quads = min_int(64, qw - first);
    if (quads < 64) events = _bzhi_u64(events, static_cast<unsigned>(quads));  // none past the block's quads
    ones &= events;
    while (ones != 0) {
      const uint64_t through = events & _blsmsk_u64(ones);  // the events up to the next 1, it included
      const uint32_t e = kMelRuns.entry[kMelRuns.first[mel.state()] + mel.run()][_mm_popcnt_u64(through) - 1];
      mel.put_worked_out(e & 0x3FFFF, static_cast<int>((e >> 18) & 31), static_cast<int>(e >> 23));
      events &= ~through;
      ones = _blsr_u64(ones);
    }
    const unsigned z = kMelRuns.zeros[kMelRuns.first[mel.state()] + mel.run()][_mm_popcnt_u64(events)];
    mel.put_worked_out((1u << (z & 15)) - 1, static_cast<int>(z & 15), static_cast<int>((z >> 4) & 15), static_cast<int>(z >> 8));
  }
}

// A quad with U above 16: each sample's bits on their own, as CleanupEncoder puts them.
J2K_HT_AVX2 inline void put_wide_quad(ForwardWriter& magsgn, const uint32_t* top, const uint32_t* bottom, int k, uint32_t bound) {
  const int x = 2 * k;
  const uint32_t m[4] = {top[x], bottom[x], top[x + 1], bottom[x + 1]};
  const int big_u = static_cast<int>((bound >> 8) & 0xFF);
  const uint32_t e_k = (bound >> 16) & 0xF, rho = (bound >> 20) & 0xF;
  for (int j = 0; j < 4; ++j) {
    const int bits = ((rho >> j) & 1) ? big_u - static_cast<int>((e_k >> j) & 1) : 0;
    magsgn.put((m[j] - 2) & low_bits(bits), bits);
  }
}

// A quad's MagSgn bits (all of them where U <= 8: `whole` says so) into the writer.
J2K_HT_AVX2 inline void put_magsgn(ForwardWriter& magsgn, const QuadCodes& c, const uint32_t* top, const uint32_t* bottom, int k) {
  const uint32_t bound = c.bound[k], big_u = (bound >> 8) & 0xFF, counts = c.counts[k];
  if (big_u <= 8) {
    magsgn.put(c.low[k], static_cast<int>((counts & 0xFF) + (counts >> 8)));
  } else if (big_u <= 16) {
    magsgn.put(c.low[k], static_cast<int>(counts & 0xFF));
    magsgn.put(c.high[k], static_cast<int>(counts >> 8));
  } else {
    put_wide_quad(magsgn, top, bottom, k, bound);
  }
}

// A pair's MagSgn bits: in one put where both quads' U <= 8 and they fit 32 bits.
J2K_HT_AVX2 inline void put_pair_magsgn(ForwardWriter& magsgn, const QuadCodes& c, const uint32_t* top, const uint32_t* bottom, int q) {
  const uint32_t bound_a = c.bound[q], bound_b = c.bound[q + 1];
  const uint32_t counts_a = c.counts[q], counts_b = c.counts[q + 1];
  const uint32_t total_a = (counts_a & 0xFF) + (counts_a >> 8), total_b = (counts_b & 0xFF) + (counts_b >> 8);
  if (((bound_a >> 8) & 0xFF) <= 8 && ((bound_b >> 8) & 0xFF) <= 8 && total_a + total_b <= 32) {
    magsgn.put(c.low[q] | static_cast<uint32_t>(static_cast<uint64_t>(c.low[q + 1]) << total_a), static_cast<int>(total_a + total_b));
  } else {
    put_magsgn(magsgn, c, top, bottom, q);
    put_magsgn(magsgn, c, top, bottom, q + 1);
  }
}

// The writers fed in the coder's order, each stream's own: per quad its MEL event, codeword
// and MagSgn bits, per pair then the U-VLC codes. Outside the initial line-pair two pairs'
// codewords and U-VLC codes go in one put where they fit 32 bits (else each pair's in one
// where it fits), and so do four quads' MagSgn bits (else two quads'), and the line-pair's
// MEL events go first, from put_mel_events: the streams' bits are the same, in fewer calls,
// and each writer's chain of dependent puts is shorter.
template <bool kInitial>
J2K_HT_AVX2 inline void scalar_stage(const QuadCodes& c, int qw, const uint32_t* top, const uint32_t* bottom, ForwardWriter& magsgn,
                                     MelEncoder& mel, BackwardWriter& vlc, const Uvlc* uvlc) {
  const int pairs = kInitial ? 0 : qw / 2;  // whole pairs, coded below
  if (!kInitial) put_mel_events(c, qw, mel);
  // Two pairs at a time: their VLC bits in one put where they fit 32 bits, and the four
  // quads' MagSgn bits likewise; else pair by pair.
  int q = 0;
  for (; q + 4 <= 2 * pairs; q += 4) {
    uint32_t bits[2];
    int count[2];
    for (int i = 0; i < 2; ++i) {
      const int p = q + 2 * i;
      const uint32_t code_a = c.vlc[p], code_b = c.vlc[p + 1];
      const int length_a = static_cast<int>((code_a >> 8) & 0xF), length_b = static_cast<int>((code_b >> 8) & 0xF);
      const uint32_t codewords = _bzhi_u32(code_a, static_cast<unsigned>(length_a)) |
                                 (_bzhi_u32(code_b, static_cast<unsigned>(length_b)) << length_a);
      const int length = length_a + length_b;
      const UvlcPairBits u = kUvlcPairs.pair[(c.bound[p] & 0xFF) * UvlcPairTable::kSize + (c.bound[p + 1] & 0xFF)];
      bits[i] = codewords | static_cast<uint32_t>(static_cast<uint64_t>(u.bits) << length);
      count[i] = length + u.length;  // at most 38
    }
    if (count[0] + count[1] <= 32) {
      vlc.put(bits[0] | static_cast<uint32_t>(static_cast<uint64_t>(bits[1]) << count[0]), count[0] + count[1]);
    } else {
      for (int i = 0; i < 2; ++i) {
        const int p = q + 2 * i;
        if (count[i] <= 32) {
          vlc.put(bits[i], count[i]);
        } else {
          const uint32_t code_a = c.vlc[p], code_b = c.vlc[p + 1];
          const int length_a = static_cast<int>((code_a >> 8) & 0xF), length_b = static_cast<int>((code_b >> 8) & 0xF);
          const UvlcPairBits u = kUvlcPairs.pair[(c.bound[p] & 0xFF) * UvlcPairTable::kSize + (c.bound[p + 1] & 0xFF)];
          vlc.put(_bzhi_u32(code_a, static_cast<unsigned>(length_a)) | (_bzhi_u32(code_b, static_cast<unsigned>(length_b)) << length_a),
                  length_a + length_b);
          vlc.put(u.bits, u.length);
        }
      }
    }
    uint32_t total[4], small = 1;
    for (int i = 0; i < 4; ++i) {
      const uint32_t counts = c.counts[q + i];
      total[i] = (counts & 0xFF) + (counts >> 8);
      small &= ((c.bound[q + i] >> 8) & 0xFF) <= 8 ? 1 : 0;
    }
    const uint32_t first = total[0] + total[1], all = first + total[2] + total[3];
    if (small && all <= 32) {
      const uint64_t word = c.low[q] | (static_cast<uint64_t>(c.low[q + 1]) << total[0]) |
                            (static_cast<uint64_t>(c.low[q + 2]) << first) |
                            (static_cast<uint64_t>(c.low[q + 3]) << (first + total[2]));
      magsgn.put(static_cast<uint32_t>(word), static_cast<int>(all));
    } else {
      for (int p = q; p < q + 4; p += 2) put_pair_magsgn(magsgn, c, top, bottom, p);
    }
  }
  for (; q < 2 * pairs; q += 2) {
    const uint32_t code_a = c.vlc[q], code_b = c.vlc[q + 1];
    const int length_a = static_cast<int>((code_a >> 8) & 0xF), length_b = static_cast<int>((code_b >> 8) & 0xF);
    const uint32_t codewords = _bzhi_u32(code_a, static_cast<unsigned>(length_a)) |
                               (_bzhi_u32(code_b, static_cast<unsigned>(length_b)) << length_a);
    const int length = length_a + length_b;  // at most 14
    const uint32_t bound_a = c.bound[q], bound_b = c.bound[q + 1];
    const UvlcPairBits u = kUvlcPairs.pair[(bound_a & 0xFF) * UvlcPairTable::kSize + (bound_b & 0xFF)];
    if (length + u.length <= 32) {
      vlc.put(codewords | static_cast<uint32_t>(static_cast<uint64_t>(u.bits) << length), length + u.length);
    } else {
      vlc.put(codewords, length);
      vlc.put(u.bits, u.length);
    }
    put_pair_magsgn(magsgn, c, top, bottom, q);
  }
  for (int first = 2 * pairs; first < qw; first += 2) {
    int u[2] = {0, 0};
    const int count = min_int(2, qw - first);
    for (int i = 0; i < count; ++i) {
      const int k = first + i;
      const uint32_t code = c.vlc[k];
      if (kInitial && (code & kMelEvent)) mel.put((code & kMelOne) != 0);
      vlc.put(code & 0xFF, static_cast<int>((code >> 8) & 0xF));
      u[i] = static_cast<int>(c.bound[k] & 0xFF);
      put_magsgn(magsgn, c, top, bottom, k);
    }
    put_u<kInitial>(mel, vlc, u[0], u[1], uvlc);
  }
}

}  // namespace

// The scratch: two line-pairs' contexts, then the codes.
struct CleanupScratch {
  LinePairContext context[2];
  QuadCodes codes;
};

size_t avx2_cleanup_scratch_bytes() { return sizeof(CleanupScratch); }

J2K_HT_AVX2 __attribute__((flatten)) void encode_cleanup_avx2(const uint32_t* data, size_t stride, int width, int height,
                                                              void* scratch, ForwardWriter& magsgn_out, MelEncoder& mel_out,
                                                              BackwardWriter& vlc_out) {
  // The writers as locals (see CleanupEncoder::line_pair), given back at the end.
  ForwardWriter magsgn = magsgn_out;
  MelEncoder mel = mel_out;
  BackwardWriter vlc = vlc_out;
  const int qw = (width + 1) / 2, qh = (height + 1) / 2;
  CleanupScratch& work = *static_cast<CleanupScratch*>(scratch);
  LinePairContext* context = work.context;
  QuadCodes& codes = work.codes;
  // Every entry a line-pair reads: its groups' and two past them (the last group's right).
  const size_t used = static_cast<size_t>((qw + kGroup - 1) / kGroup * kGroup + 2 + 1) * sizeof(int32_t);
  for (int i = 0; i < 2; ++i) {
    std::memset(context[i].rho, 0, used);
    std::memset(context[i].e_left, 0, used);
    std::memset(context[i].e_right, 0, used);
  }
  const int* initial_table = reinterpret_cast<const int*>(cxt_vlc_encode_table(true));
  const int* other_table = reinterpret_cast<const int*>(cxt_vlc_encode_table(false));
  const Uvlc* uvlc = kUvlcTable.code;
  int above = 0;
  for (int r = 0; r < qh; ++r) {
    const uint32_t* top = data + static_cast<size_t>(2 * r) * stride;
    const uint32_t* bottom = top + stride;
    if (r == 0) {
      vector_stage<true>(top, bottom, qw, context[above], context[above ^ 1], initial_table, codes);
      scalar_stage<true>(codes, qw, top, bottom, magsgn, mel, vlc, uvlc);
    } else {
      vector_stage<false>(top, bottom, qw, context[above], context[above ^ 1], other_table, codes);
      scalar_stage<false>(codes, qw, top, bottom, magsgn, mel, vlc, uvlc);
    }
    above ^= 1;
  }
  magsgn_out = magsgn;
  mel_out = mel;
  vlc_out = vlc;
}

}  // namespace j2k::codec::ht

#endif  // J2K_HT_HAVE_AVX2
