// SPDX-License-Identifier: BSD-2-Clause
// The cleanup pass of cleanup_pass.hpp compiled for AVX2 and BMI2 (the whole pass, readers
// and VLC sub-pass included, through the target attribute and flatten: BMI2's shifts by a
// variable count are one instruction), with a MagSgn sub-pass that does a quad pair's eight
// samples in one vector: their bit counts, where each starts (a prefix sum per quad), each
// quad's fields cut from the same 64 bits by a variable shift per lane, then the coefficients,
// the exponents and the overflow check, all as PortableMagSgnRow does them one sample at a
// time, and the pair's top and bottom 4 columns written with a store each. It reads
// MagSgn from the stream unstuffed once (unstuffed_bits.hpp): a quad's bits are one load at
// the quad's bit position, with no branch on how many bits are in hand.
// A third build, for a CPU that also has AVX-512 (F, BW, VL, DQ), does the MagSgn sub-pass four
// quads (8 columns) in one 512-bit vector (Avx512MagSgnRow), the same steps lane for lane.
// block_decoder.cpp calls each only on a CPU that has its instructions; the tests run them
// against the portable build and the reference decoder.
#include "codec/tier1/ht/cleanup_pass.hpp"
#include "codec/tier1/ht/vlc_lanes.hpp"
#include "codec/tier1/ht/unstuffed_bits.hpp"

#if J2K_HT_HAVE_AVX2
#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace j2k::codec::ht::cleanup {
namespace {

// The MagSgn stream unstuffed, and the position of the next quad's bits.
struct UnstuffedReader {
  explicit UnstuffedReader(MagSgnSegment s) : bits(s.data, s.size, s.max_bits) {}
  UnstuffedBits bits;
  size_t position = 0;
};

// Sub-pass 2 (cleanup_pass.hpp's MagSgnRow says what it reads and writes), two quads at a
// time in one 256-bit vector.
class Avx2MagSgnRow {
  friend class Avx512MagSgnRow;  // its rows end with these pairs

 public:
  // One build of the row per output form (OutputForm) and for whether a magnitude may
  // overflow (MagSgnRow::at_largest_bound), chosen once a row.
  J2K_HT_AVX2 static void decode(UnstuffedReader& magsgn, const MagSgnRow& row) {
    if (row.at_largest_bound) decode_in<true>(magsgn, row);
    else decode_in<false>(magsgn, row);
  }

 private:
  template <bool kCheck>
  J2K_HT_AVX2 static inline void decode_in(UnstuffedReader& magsgn, const MagSgnRow& row) {
    if (!row.form.dequantise) decode_as<Form::Coefficients, kCheck>(magsgn, row);
    else if (row.form.q.reversible) decode_as<Form::Halved, kCheck>(magsgn, row);
    else decode_as<Form::Scaled, kCheck>(magsgn, row);
  }

  // The coefficients as they are, halved (the 5/3's dequantisation: the magnitude halved in
  // decode_pair), or times half the step in float (the 9/7's, in_form): Dequantisation's
  // arithmetic, eight lanes at a time.
  enum class Form { Coefficients, Halved, Scaled };
  template <Form kForm>
  J2K_HT_AVX2 static inline __m256i in_form(__m256i c, __m256 half_step) {
    if constexpr (kForm == Form::Scaled)
      return _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(c), half_step));
    else
      return c;
  }

  struct Constants {
    J2K_HT_AVX2 explicit Constants(int p)
        : one(_mm256_set1_epi32(1)),
          three(_mm256_set1_epi32(3)),
          exponent_bias(_mm256_set1_epi32(126)),
          plane(_mm_cvtsi32_si128(p)),
          mu_limit(_mm_cvtsi32_si128(kMaxDecodedBitplanes - p)),
          bottom_bytes(_mm256_setr_epi8(4, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                        4, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)),
          bound_bytes(_mm256_setr_epi8(0, -1, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1,  //
                                       1, -1, -1, -1, 1, -1, -1, -1, 1, -1, -1, -1, 1, -1, -1, -1)),
          rows(_mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7)),
          sample_shifts(_mm256_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19)),
          low_halves(_mm256_set1_epi64x(0xFFFFFFFF)) {}
    // Per lane, 1 where the sample is inside the block: bit j of `first` in lane j, of `second`
    // in lane 4 + j.
    J2K_HT_AVX2 __m256i inside(unsigned first, unsigned second) const {
      return _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(static_cast<int>(first | second << 16)), sample_shifts), one);
    }
    __m256i one, three, exponent_bias;
    __m128i plane;  // the cleanup's plane p, as a shift count
    // Only at the exponent bound U = 31 - p can mu, at most 2^(U - 1), reach 2^(30 - p).
    __m128i mu_limit;
    __m256i bottom_bytes;  // per quad, bytes 4 and 12 (lanes 1 and 3, the bottom samples) to bytes 0 and 1
    __m256i bound_bytes;   // the pair's two bounds (bytes 0 and 1, broadcast) to lanes 0-3 and 4-7
    __m256i rows;          // a pair's samples (quad by quad, column by column) to its top row, then its bottom
    // Lane j (4 + j) shifts the pair's two 16-bit codewords, first in the low half, by j (16 + j):
    // sample j's bit of each field at bit 0, 8 (e_k) and 12 (e_1).
    __m256i sample_shifts;
    __m256i low_halves;    // the low 32 bits of each 64-bit lane
  };

  // The row a quad pair (4 columns) at a time (pairs_from). kCheck: with the overflow check
  // (only a quad at the largest bound can overflow). The row is worked on as a local copy (see
  // decode_vlc_row).
  template <Form kForm, bool kCheck>
  J2K_HT_AVX2 static void decode_as(UnstuffedReader& reader, const MagSgnRow& row_in) {
    const MagSgnRow row = row_in;
    const Constants k(row.plane);
    __m256i overflow = _mm256_setzero_si256();
    reader.position = pairs_from<kForm, kCheck>(reader.bits, reader.position, row, k, 0, overflow);
    if (kCheck && !_mm256_testz_si256(overflow, overflow)) inconsistent();
  }

  // The row's quad pairs from `first` (the pairs inside the block, then the one that crosses its
  // right edge, if any) from `position`; returns the position after them.
  template <Form kForm, bool kCheck>
  J2K_HT_AVX2 static inline size_t pairs_from(const UnstuffedBits& magsgn, size_t position, const MagSgnRow& row,
                                              const Constants& k, int first, __m256i& overflow) {
    const int whole_pairs = row.width / 4;
    position = pairs_between<kForm, kCheck>(magsgn, position, row, k, first, whole_pairs, overflow);
    const int x = 4 * whole_pairs, columns = row.width - x;
    if (columns > 0) {  // 1 to 3 columns: quad q whole or not, quad q + 1 (past the row: empty) not
      const int q = 2 * whole_pairs;
      const unsigned inside_first = columns >= 2 ? row.row_mask : row.row_mask & 0x3u;
      uint32_t bottom_exponents;
      const __m256i c = in_form<kForm>(
          decode_pair<kForm, kCheck>(magsgn, position, row, q, k.inside(inside_first, row.row_mask & 0x3u), k, overflow, bottom_exponents),
          _mm256_set1_ps(row.form.q.half_step));
      std::memcpy(row.e_row + x, &bottom_exponents, 4);  // room past the block's last column
      alignas(32) int32_t by_row[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(by_row), _mm256_permutevar8x32_epi32(c, k.rows));
      std::memcpy(row.top + x, by_row, 4 * static_cast<size_t>(columns));  // bits of floats where the form is Scaled
      std::memcpy(row.bottom + x, by_row + 4, 4 * static_cast<size_t>(columns));
    }
    return position;
  }

  // Whole pairs [first, end) of the row (inside the block) from `position`; returns the position
  // after them. A pair with no significant sample reads no bits: skipped (measured: its work
  // done branch-free made the lossy streams, with many such quads, 10% slower).
  template <Form kForm, bool kCheck>
  J2K_HT_AVX2 static inline size_t pairs_between(const UnstuffedBits& magsgn, size_t position, const MagSgnRow& row,
                                                 const Constants& k, int first, int end, __m256i& overflow) {
    const __m256 half_step = _mm256_set1_ps(row.form.q.half_step);
    const __m256i inside = k.inside(row.row_mask, row.row_mask);
    for (int p = first; p < end; ++p) {
      const int q = 2 * p, x = 4 * p;
      if (((row.codeword[q] | row.codeword[q + 1]) & packed::kRho) == 0) {
        std::memset(row.top + x, 0, 16);
        std::memset(row.bottom + x, 0, 16);
        std::memset(row.e_row + x, 0, 4);
        continue;
      }
      uint32_t bottom_exponents;
      const __m256i c = in_form<kForm>(
          decode_pair<kForm, kCheck>(magsgn, position, row, q, inside, k, overflow, bottom_exponents), half_step);
      std::memcpy(row.e_row + x, &bottom_exponents, 4);
      const __m256i by_row = _mm256_permutevar8x32_epi32(c, k.rows);  // the top 4 columns, then the bottom 4
      _mm_storeu_si128(reinterpret_cast<__m128i*>(row.top + x), _mm256_castsi256_si128(by_row));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(row.bottom + x), _mm256_extracti128_si256(by_row, 1));
    }
    return position;
  }

  // A quad's fields: sample j's `bits` (lane j of `bits`) from `before` it, from `position` on;
  // `total` the four counts' sum. Each field is cut from the same 64 bits by a shift per lane
  // (two lanes at a time), else, beyond those bits (U above 14), loaded on its own.
  J2K_HT_AVX2 static inline __m128i fields(const UnstuffedBits& magsgn, size_t position, __m128i before, int total) {
    if (total <= kRefilled) {
      const __m128i word = _mm_set1_epi64x(static_cast<long long>(magsgn.at(position)));
      const __m128i fields_01 = _mm_srlv_epi64(word, _mm_cvtepu32_epi64(before));
      const __m128i fields_23 = _mm_srlv_epi64(word, _mm_cvtepu32_epi64(_mm_srli_si128(before, 8)));
      return _mm_castps_si128(
          _mm_shuffle_ps(_mm_castsi128_ps(fields_01), _mm_castsi128_ps(fields_23), _MM_SHUFFLE(2, 0, 2, 0)));
    }
    alignas(16) uint32_t starts[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(starts), before);
    alignas(16) uint32_t taken[4];
    for (int j = 0; j < 4; ++j) taken[j] = static_cast<uint32_t>(magsgn.at(position + starts[j]));
    return _mm_load_si128(reinterpret_cast<const __m128i*>(taken));
  }

  // Quads q and q + 1's coefficients, sample j of the first in lane j and of the second in
  // lane 4 + j (0 where not coded, or not `inside` the block: Constants::inside), and their
  // bottom samples' exponents (bit_length(2 (mu - 1) + 1), for the next row's kappa) in
  // `bottom_exponents`, column by column from the low byte. Each sample's rho, e_k and e_1 bits
  // come from the two codewords broadcast and shifted per lane; each field from its quad's 64
  // bits at a shift per lane (both quads in one vector), else, beyond those bits (a quad's U
  // above 14), loaded on its own. The bounds U were checked by the bounds pass
  // (Avx2Rows::bounds), so no field reaches past the bits a block may read.
  template <Form kForm, bool kCheck>
  J2K_HT_AVX2 static inline __m256i decode_pair(const UnstuffedBits& magsgn, size_t& position, const MagSgnRow& row,
                                                int q, __m256i inside, const Constants& k, __m256i& overflow,
                                                uint32_t& bottom_exponents) {
    // The two codewords and the two bounds each one load (x86: the first in the low half),
    // broadcast.
    int32_t entry_pair;
    std::memcpy(&entry_pair, row.codeword + q, sizeof entry_pair);
    int16_t bound_pair;
    std::memcpy(&bound_pair, row.big_u + q, sizeof bound_pair);
    const __m256i entries = _mm256_srlv_epi32(_mm256_set1_epi32(entry_pair), k.sample_shifts);
    const __m256i coded_bit = _mm256_and_si256(entries, inside);  // rho's bit, inside the block: 0 or 1
    const __m256i coded = _mm256_sub_epi32(_mm256_setzero_si256(), coded_bit);
    const __m256i e_k = _mm256_and_si256(_mm256_srli_epi32(entries, packed::kEkShift), k.one);
    const __m256i e_1 = _mm256_and_si256(_mm256_srli_epi32(entries, packed::kE1Shift), coded_bit);
    const __m256i big_u = _mm256_shuffle_epi8(_mm256_set1_epi16(bound_pair), k.bound_bytes);
    // Each sample's bit count (0 if not coded), then per quad the counts up to and before it.
    const __m256i bits = _mm256_and_si256(_mm256_sub_epi32(big_u, e_k), coded);
    __m256i sums = _mm256_add_epi32(bits, _mm256_slli_si256(bits, 4));
    sums = _mm256_add_epi32(sums, _mm256_slli_si256(sums, 8));
    const __m256i before = _mm256_sub_epi32(sums, bits);
    const int total_first = _mm256_extract_epi32(sums, 3), total_second = _mm256_extract_epi32(sums, 7);
    __m256i v;
    if (total_first <= kRefilled && total_second <= kRefilled) {
      // 64-bit lanes: the first quad's bits twice, then the second's; the even samples' starts
      // and the odd ones', a 64-bit lane each.
      const __m256i words =
          _mm256_setr_m128i(_mm_set1_epi64x(static_cast<long long>(magsgn.at(position))),
                            _mm_set1_epi64x(static_cast<long long>(magsgn.at(position + static_cast<unsigned>(total_first)))));
      const __m256i fields_even = _mm256_srlv_epi64(words, _mm256_and_si256(before, k.low_halves));
      const __m256i fields_odd = _mm256_srlv_epi64(words, _mm256_srli_epi64(before, 32));
      v = _mm256_blend_epi32(fields_even, _mm256_slli_epi64(fields_odd, 32), 0xAA);
    } else {
      const __m128i v_first = fields(magsgn, position, _mm256_castsi256_si128(before), total_first);
      const __m128i v_second =
          fields(magsgn, position + static_cast<unsigned>(total_first), _mm256_extracti128_si256(before, 1), total_second);
      v = _mm256_setr_m128i(v_first, v_second);
    }
    position += static_cast<unsigned>(total_first + total_second);
    // Each field's own bits, and the EMB bit above them.
    v = _mm256_and_si256(v, _mm256_sub_epi32(_mm256_sllv_epi32(k.one, bits), k.one));
    v = _mm256_or_si256(v, _mm256_sllv_epi32(e_1, bits));
    // Sign and (2 mu + 1) 2^p with mu = (v >> 1) + 1; 0 where not coded.
    __m256i magnitude = _mm256_sll_epi32(_mm256_add_epi32(_mm256_andnot_si256(k.one, v), k.three), k.plane);
    // The 5/3's dequantisation, C's coefficient / 2 (toward zero): the magnitude halved.
    if constexpr (kForm == Form::Halved) magnitude = _mm256_srli_epi32(magnitude, 1);
    const __m256i negative = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(v, k.one));
    if (kCheck) {
      const __m256i mu = _mm256_add_epi32(_mm256_srli_epi32(v, 1), k.one);
      overflow = _mm256_or_si256(overflow, _mm256_and_si256(_mm256_srl_epi32(mu, k.mu_limit), coded));
    }
    // The exponents bit_length(v | 1) (v below 2^31) from a float's exponent field, exact: with
    // the bit below the top one cleared, rounding cannot carry into the exponent.
    const __m256i odd = _mm256_or_si256(v, k.one);
    const __m256i top_kept = _mm256_andnot_si256(_mm256_srli_epi32(odd, 1), odd);
    const __m256i field = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(top_kept)), 23);
    const __m256i exponents = _mm256_and_si256(_mm256_sub_epi32(field, k.exponent_bias), coded);
    const __m256i bottom = _mm256_shuffle_epi8(exponents, k.bottom_bytes);
    bottom_exponents = static_cast<uint32_t>(
        _mm_cvtsi128_si32(_mm_unpacklo_epi16(_mm256_castsi256_si128(bottom), _mm256_extracti128_si256(bottom, 1))));
    return _mm256_and_si256(_mm256_sub_epi32(_mm256_xor_si256(magnitude, negative), negative), coded);
  }
};

// GCC 12's AVX-512 intrinsics pass `_mm512_undefined_epi32()` (a value initialised from
// itself) to their masked builtins, which -Wmaybe-uninitialized reports in every caller once
// inlined: not a value of this code's.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// Sub-pass 2 four quads (two pairs, 8 columns) at a time in one 512-bit vector, for a CPU with
// AVX-512 (F, BW, VL, DQ, CD): Avx2MagSgnRow's steps lane for lane, each quad's fields cut from its
// own 64 bits, so that a lossless row's loop, whose instructions are its time, runs half as
// often. Where a quad's fields reach past 57 bits (U above 14), and for the row's last pairs,
// Avx2MagSgnRow's pairs take over.
class Avx512MagSgnRow {
  using Form = Avx2MagSgnRow::Form;
  using Constants = Avx2MagSgnRow::Constants;

 public:
  J2K_HT_AVX512 static void decode(UnstuffedReader& magsgn, const MagSgnRow& row) {
    if (row.at_largest_bound) decode_in<true>(magsgn, row);
    else decode_in<false>(magsgn, row);
  }

 private:
  template <bool kCheck>
  J2K_HT_AVX512 static inline void decode_in(UnstuffedReader& magsgn, const MagSgnRow& row) {
    if (!row.form.dequantise) decode_as<Form::Coefficients, kCheck>(magsgn, row);
    else if (row.form.q.reversible) decode_as<Form::Halved, kCheck>(magsgn, row);
    else decode_as<Form::Scaled, kCheck>(magsgn, row);
  }

  // Constants::'s for 16 lanes: quad i of the four in 128-bit lane i.
  struct Wide {
    J2K_HT_AVX512 explicit Wide(unsigned row_mask)
        : one(_mm512_set1_epi32(1)),
          three(_mm512_set1_epi32(3)),
          thirty_two(_mm512_set1_epi32(32)),
          sample_shifts(_mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 0, 1, 2, 3, 16, 17, 18, 19)),
          pairs(_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1)),
          // Per 128-bit lane i, byte i (quad i's bound) to each of its four 32-bit lanes.
          bound_bytes(_mm512_set_epi8(-1, -1, -1, 3, -1, -1, -1, 3, -1, -1, -1, 3, -1, -1, -1, 3,  //
                                      -1, -1, -1, 2, -1, -1, -1, 2, -1, -1, -1, 2, -1, -1, -1, 2,  //
                                      -1, -1, -1, 1, -1, -1, -1, 1, -1, -1, -1, 1, -1, -1, -1, 1,  //
                                      -1, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1, 0)),
          // Per 128-bit lane, bytes 4 and 12 (the bottom samples' exponents) to bytes 0 and 1.
          bottom_bytes(_mm512_set_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 12, 4,  //
                                       -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 12, 4,  //
                                       -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 12, 4,  //
                                       -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 12, 4)),
          // Word 0 of each 128-bit lane (its bytes 0 and 1) to words 0-3.
          lane_words(_mm512_set_epi16(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 24, 16,
                                      8, 0)),
          rows(_mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15)),
          totals(_mm512_setr_epi32(3, 7, 11, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
          low_halves(_mm512_set1_epi64(0xFFFFFFFF)),
          inside(_mm512_and_si512(_mm512_srlv_epi32(_mm512_set1_epi32(static_cast<int>(row_mask | row_mask << 16)), sample_shifts),
                                  one)) {}
    __m512i one, three, thirty_two, sample_shifts, pairs, bound_bytes, bottom_bytes, lane_words, rows, totals,
        low_halves;
    __m512i inside;  // every quad's samples inside the block's rows (the row's whole quads)
  };

  template <Form kForm, bool kCheck>
  J2K_HT_AVX512 static void decode_as(UnstuffedReader& reader, const MagSgnRow& row_in) {
    const UnstuffedBits& magsgn = reader.bits;
    size_t position = reader.position;
    const MagSgnRow row = row_in;
    const Constants k(row.plane);
    const Wide w(row.row_mask);
    const __m512 half_step = _mm512_set1_ps(row.form.q.half_step);
    __m512i overflow = _mm512_setzero_si512();
    __m256i overflow_pairs = _mm256_setzero_si256();
    const int groups = row.width / 8;
    for (int g = 0; g < groups; ++g) {
      const int q = 4 * g, x = 8 * g;
      uint64_t codewords;
      std::memcpy(&codewords, row.codeword + q, sizeof codewords);
      if ((codewords & 0x000F000F000F000Full) == 0) {  // no significant sample: no bits read
        std::memset(row.top + x, 0, 32);
        std::memset(row.bottom + x, 0, 32);
        std::memset(row.e_row + x, 0, 8);
        continue;
      }
      const __m512i entries = _mm512_srlv_epi32(
          _mm512_permutexvar_epi32(w.pairs, _mm512_castsi128_si512(_mm_cvtsi64_si128(static_cast<long long>(codewords)))),
          w.sample_shifts);
      const __m512i coded_bit = _mm512_and_si512(entries, w.inside);
      const __m512i coded = _mm512_sub_epi32(_mm512_setzero_si512(), coded_bit);
      const __m512i e_k = _mm512_and_si512(_mm512_srli_epi32(entries, packed::kEkShift), w.one);
      const __m512i e_1 = _mm512_and_si512(_mm512_srli_epi32(entries, packed::kE1Shift), coded_bit);
      int32_t bounds;
      std::memcpy(&bounds, row.big_u + q, sizeof bounds);
      const __m512i big_u = _mm512_shuffle_epi8(_mm512_set1_epi32(bounds), w.bound_bytes);
      const __m512i bits = _mm512_and_si512(_mm512_sub_epi32(big_u, e_k), coded);
      __m512i sums = _mm512_add_epi32(bits, _mm512_bslli_epi128(bits, 4));
      sums = _mm512_add_epi32(sums, _mm512_bslli_epi128(sums, 8));
      const __m512i before = _mm512_sub_epi32(sums, bits);
      // The four quads' counts, and where each quad starts.
      const __m128i totals = _mm512_castsi512_si128(_mm512_permutexvar_epi32(w.totals, sums));
      if (_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(totals, _mm_set1_epi32(kRefilled)))) != 0) {
        // A field past one load's bits: the two pairs as Avx2MagSgnRow takes them.
        position = Avx2MagSgnRow::pairs_between<kForm, kCheck>(magsgn, position, row, k, 2 * g, 2 * g + 2, overflow_pairs);
        continue;
      }
      __m128i starts = _mm_add_epi32(totals, _mm_slli_si128(totals, 4));
      starts = _mm_add_epi32(starts, _mm_slli_si128(starts, 8));  // inclusive
      const auto s1 = static_cast<unsigned>(_mm_cvtsi128_si32(totals));
      const auto s2 = static_cast<unsigned>(_mm_extract_epi32(starts, 1));
      const auto s3 = static_cast<unsigned>(_mm_extract_epi32(starts, 2));
      const auto all = static_cast<unsigned>(_mm_extract_epi32(starts, 3));
      const __m512i words = _mm512_set_epi64(
          static_cast<long long>(magsgn.at(position + s3)), static_cast<long long>(magsgn.at(position + s3)),
          static_cast<long long>(magsgn.at(position + s2)), static_cast<long long>(magsgn.at(position + s2)),
          static_cast<long long>(magsgn.at(position + s1)), static_cast<long long>(magsgn.at(position + s1)),
          static_cast<long long>(magsgn.at(position)), static_cast<long long>(magsgn.at(position)));
      position += all;
      const __m512i fields_even = _mm512_srlv_epi64(words, _mm512_and_si512(before, w.low_halves));
      const __m512i fields_odd = _mm512_srlv_epi64(words, _mm512_srli_epi64(before, 32));
      __m512i v = _mm512_mask_blend_epi32(0xAAAA, fields_even, _mm512_slli_epi64(fields_odd, 32));
      // From here Avx2MagSgnRow::decode_pair's steps, 16 lanes.
      v = _mm512_and_si512(v, _mm512_sub_epi32(_mm512_sllv_epi32(w.one, bits), w.one));
      v = _mm512_or_si512(v, _mm512_sllv_epi32(e_1, bits));
      __m512i magnitude = _mm512_sll_epi32(_mm512_add_epi32(_mm512_andnot_si512(w.one, v), w.three), k.plane);
      if constexpr (kForm == Form::Halved) magnitude = _mm512_srli_epi32(magnitude, 1);
      const __m512i negative = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_and_si512(v, w.one));
      if (kCheck) {
        const __m512i mu = _mm512_add_epi32(_mm512_srli_epi32(v, 1), w.one);
        overflow = _mm512_or_si512(overflow, _mm512_and_si512(_mm512_srl_epi32(mu, k.mu_limit), coded));
      }
      // The exponents bit_length(v | 1) = 32 - lzcnt(v | 1) (AVX-512 CD).
      const __m512i exponents =
          _mm512_and_si512(_mm512_sub_epi32(w.thirty_two, _mm512_lzcnt_epi32(_mm512_or_si512(v, w.one))), coded);
      const __m512i bottom = _mm512_permutexvar_epi16(w.lane_words, _mm512_shuffle_epi8(exponents, w.bottom_bytes));
      const uint64_t bottom_exponents = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm512_castsi512_si128(bottom)));
      std::memcpy(row.e_row + x, &bottom_exponents, 8);
      __m512i c = _mm512_and_si512(_mm512_sub_epi32(_mm512_xor_si512(magnitude, negative), negative), coded);
      if constexpr (kForm == Form::Scaled) c = _mm512_castps_si512(_mm512_mul_ps(_mm512_cvtepi32_ps(c), half_step));
      const __m512i by_row = _mm512_permutexvar_epi32(w.rows, c);  // the top 8 columns, then the bottom 8
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(row.top + x), _mm512_castsi512_si256(by_row));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(row.bottom + x), _mm512_extracti64x4_epi64(by_row, 1));
    }
    position = Avx2MagSgnRow::pairs_from<kForm, kCheck>(magsgn, position, row, k, 2 * groups, overflow_pairs);
    if (kCheck && (_mm512_test_epi32_mask(overflow, overflow) != 0 || !_mm256_testz_si256(overflow_pairs, overflow_pairs)))
      inconsistent();
    reader.position = position;
  }
};

// The two sub-passes each compiled as one function for AVX2 and BMI2, readers inlined
// (flatten), each with the registers to itself (noinline).
struct Avx2Rows {
  J2K_HT_AVX2 __attribute__((noinline, flatten)) static void vlc(const Tables& t, const LinkedCxt& linked,
                                                                 BackwardWordReader& vlc, MelEvents& mel,
                                                                 bool initial, int qw, QuadRow& quads) {
    decode_vlc_row(t, linked, vlc, mel, initial, qw, quads);
  }
  J2K_HT_AVX2 static inline __m256i load(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
  // The largest of e[x - 1 .. x + 2] at 32 columns x from `e`, kept at the even ones (the low
  // byte of each 16-bit lane).
  J2K_HT_AVX2 static inline __m256i around(const uint8_t* e, __m256i low_bytes) {
    const __m256i a = _mm256_max_epu8(load(e - 1), load(e));
    const __m256i b = _mm256_max_epu8(load(e + 1), load(e + 2));
    return _mm256_and_si256(_mm256_max_epu8(a, b), low_bytes);
  }
  // exponent_bounds() 32 quads a vector: per quad the largest of the four exponents above it
  // (columns 2q - 1 .. 2q + 2), and kappa - 1 = max(1, e_max - 1) - 1 = e_max - 2 (at least 0)
  // where rho has two samples or more, else 0. It reads and writes up to 31 quads past the row
  // (QuadRow's and ExponentRow's arrays hold them; their results are never read). It also
  // checks exponent_bound()'s limit for the row's significant quads, 32 at a time, for
  // MagSgn (which then reads no bound above it).
  // Returns whether a significant quad of the row has the largest bound (MagSgnRow::at_largest_bound).
  J2K_HT_AVX2 __attribute__((noinline)) static bool bounds(int qw, const uint8_t* e_above, QuadRow& quads, int plane) {
    const __m256i low_bytes = _mm256_set1_epi16(0x00FF);
    const __m256i rho_mask = _mm256_set1_epi16(packed::kRho);
    const __m256i two_or_more = _mm256_setr_epi8(0, 0, 0, -1, 0, -1, -1, -1, 0, -1, -1, -1, -1, -1, -1, -1,  //
                                                 0, 0, 0, -1, 0, -1, -1, -1, 0, -1, -1, -1, -1, -1, -1, -1);
    const __m256i one = _mm256_set1_epi8(1), two = _mm256_set1_epi8(2);
    const __m256i largest = _mm256_set1_epi8(static_cast<char>(largest_bound(plane)));  // at most 31
    const __m256i too_large = _mm256_add_epi8(largest, one);
    const __m256i quad_index = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                                                21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
    __m256i inconsistent_bounds = _mm256_setzero_si256(), at_largest = _mm256_setzero_si256();
    const uint16_t* codeword = quads.codeword();
    for (int q = 0; q < qw; q += 32) {
      const uint8_t* e = e_above + 2 * q;
      // packus leaves quads 0-7, 16-23, 8-15, 24-31: the permute puts them in order.
      const __m256i e_max =
          _mm256_permute4x64_epi64(_mm256_packus_epi16(around(e, low_bytes), around(e + 32, low_bytes)), 0xD8);
      const __m256i rho = _mm256_permute4x64_epi64(
          _mm256_packus_epi16(_mm256_and_si256(load(codeword + q), rho_mask), _mm256_and_si256(load(codeword + q + 16), rho_mask)),
          0xD8);
      const __m256i kappa_less_1 = _mm256_and_si256(_mm256_subs_epu8(e_max, two), _mm256_shuffle_epi8(two_or_more, rho));
      const __m256i big_u = _mm256_add_epi8(_mm256_add_epi8(load(quads.u + q), one), kappa_less_1);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(quads.big_u + q), big_u);
      // U >= largest + 1 (unsigned: U may reach 128) where rho is not 0, in the row's quads.
      const __m256i above = _mm256_cmpeq_epi8(_mm256_max_epu8(big_u, too_large), big_u);
      const __m256i significant = _mm256_xor_si256(_mm256_cmpeq_epi8(rho, _mm256_setzero_si256()), _mm256_set1_epi8(-1));
      const __m256i in_row = _mm256_cmpgt_epi8(_mm256_set1_epi8(static_cast<char>(std::min(qw - q, 32))), quad_index);
      const __m256i counted = _mm256_and_si256(significant, in_row);
      inconsistent_bounds = _mm256_or_si256(inconsistent_bounds, _mm256_and_si256(above, counted));
      at_largest = _mm256_or_si256(at_largest, _mm256_and_si256(_mm256_cmpeq_epi8(big_u, largest), counted));
    }
    if (!_mm256_testz_si256(inconsistent_bounds, inconsistent_bounds)) inconsistent();
    return !_mm256_testz_si256(at_largest, at_largest);
  }
  using MagSgnReader = UnstuffedReader;
  J2K_HT_AVX2 __attribute__((noinline, flatten)) static void magsgn(UnstuffedReader& magsgn, const MagSgnRow& row) {
    Avx2MagSgnRow::decode(magsgn, row);
  }
};

// Avx2Rows with the 512-bit MagSgn sub-pass; the VLC sub-pass and the bounds are Avx2Rows'.
struct Avx512Rows {
  using MagSgnReader = UnstuffedReader;
  static void vlc(const Tables& t, const LinkedCxt& linked, BackwardWordReader& vlc, MelEvents& mel, bool initial, int qw,
                  QuadRow& quads) {
    Avx2Rows::vlc(t, linked, vlc, mel, initial, qw, quads);
  }
  static bool bounds(int qw, const uint8_t* e_above, QuadRow& quads, int plane) { return Avx2Rows::bounds(qw, e_above, quads, plane); }
  J2K_HT_AVX512 __attribute__((noinline, flatten)) static void magsgn(UnstuffedReader& magsgn, const MagSgnRow& row) {
    Avx512MagSgnRow::decode(magsgn, row);
  }
};

}  // namespace

J2K_HT_AVX2 void avx2_cleanup(CleanupSegment segment, int32_t* out, ptrdiff_t stride, int width, int height, int plane,
                              const OutputForm& form) {
  decode_cleanup<Avx2Rows>(segment, out, stride, width, height, plane, form);
}

J2K_HT_AVX512 void avx512_cleanup(CleanupSegment segment, int32_t* out, ptrdiff_t stride, int width, int height, int plane,
                                  const OutputForm& form) {
  decode_cleanup<Avx512Rows>(segment, out, stride, width, height, plane, form);
}

J2K_HT_AVX512 void avx512_cleanups_after_vlc(const VlcLanes& vlc, LaneBlock* blocks, int count, int width, int height) {
  decode_cleanups_after_vlc<Avx512Rows>(vlc, blocks, count, width, height);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace j2k::codec::ht::cleanup

#endif  // J2K_HT_HAVE_AVX2
