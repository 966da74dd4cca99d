// SPDX-License-Identifier: BSD-2-Clause
// The cleanup pass of cleanup_pass.hpp compiled for AVX2 and BMI2 (the whole pass, readers
// and VLC sub-pass included, through the target attribute and flatten: BMI2's shifts by a
// variable count are one instruction), with a MagSgn sub-pass that does a quad's four
// samples in one vector: their bit counts, where each starts (a prefix sum), each field cut
// from the same 64 bits by a variable shift per lane, then the coefficients, the exponents
// and the overflow check, all as PortableMagSgnRow does them one sample at a time.
// block_decoder.cpp calls it only on a CPU with AVX2 and BMI2; the tests run it against the
// portable build and the reference decoder.
#include "codec/tier1/ht/cleanup_pass.hpp"

#if J2K_HT_HAVE_AVX2
#include <immintrin.h>

#include <cstring>

#define J2K_HT_AVX2 __attribute__((target("avx2,bmi,bmi2,lzcnt,popcnt")))

namespace j2k::codec::ht::cleanup {
namespace {

// Per 4-bit mask of a quad's samples, a lane per sample (sample j in lane j): all ones where
// the bit is set (kLaneMask), or 1 (kLaneBit).
struct LaneTable {
  alignas(16) uint32_t lanes[16][4];
};
constexpr LaneTable lane_table(uint32_t set) {
  LaneTable t{};
  for (unsigned mask = 0; mask < 16; ++mask)
    for (unsigned j = 0; j < 4; ++j) t.lanes[mask][j] = ((mask >> j) & 1) ? set : 0;
  return t;
}
constexpr LaneTable kLaneMask = lane_table(~0u);
constexpr LaneTable kLaneBit = lane_table(1);

J2K_HT_AVX2 inline __m128i lanes(const LaneTable& t, unsigned mask) {
  return _mm_load_si128(reinterpret_cast<const __m128i*>(t.lanes[mask]));
}

// Sub-pass 2 (cleanup_pass.hpp's MagSgnRow says what it reads and writes).
struct Avx2MagSgnRow {
  // The reader and the row are worked on as local copies (see decode_vlc_row).
  J2K_HT_AVX2 static void decode(ForwardWordReader& magsgn_stream, const MagSgnRow& row_in) {
    ForwardWordReader magsgn = magsgn_stream;
    const MagSgnRow row = row_in;
    const __m128i zero = _mm_setzero_si128(), one = _mm_set1_epi32(1), three = _mm_set1_epi32(3);
    const __m128i plane = _mm_cvtsi32_si128(row.plane);
    // Only at the exponent bound U = 31 - p can mu, at most 2^(U - 1), reach 2^(30 - p).
    const __m128i mu_limit = _mm_cvtsi32_si128(kMaxDecodedBitplanes - row.plane);
    // Bytes 4 and 12 (lanes 1 and 3, the bottom samples) to bytes 0 and 1.
    const __m128i bottom_bytes = _mm_setr_epi8(4, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    __m128i overflow = zero;
    for (int q = 0; q < row.quads; ++q) {
      const int x = 2 * q;
      const bool whole = x + 1 < row.width;  // the quad's right column inside the block
      const unsigned entry = row.codeword[q];
      const unsigned rho = entry & packed::kRho;
      __m128i coefficients = zero;
      uint16_t bottom_exponents = 0;
      if (rho != 0) {
        const unsigned big_u = exponent_bound(row, q);
        // Samples past the block's edge (odd sizes) are never coded.
        const unsigned todo = rho & row.row_mask & (whole ? 0xFu : 0x3u);
        const __m128i coded = lanes(kLaneMask, todo);
        const __m128i e_k = lanes(kLaneBit, entry >> packed::kEkShift & 0xF);
        const __m128i e_1 = lanes(kLaneBit, entry >> packed::kE1Shift & todo);
        // Each sample's bit count (0 if not coded), then the counts up to and before it.
        const __m128i bits = _mm_and_si128(_mm_sub_epi32(_mm_set1_epi32(static_cast<int>(big_u)), e_k), coded);
        __m128i sums = _mm_add_epi32(bits, _mm_slli_si128(bits, 4));
        sums = _mm_add_epi32(sums, _mm_slli_si128(sums, 8));
        const __m128i before = _mm_sub_epi32(sums, bits);
        const int total = _mm_extract_epi32(sums, 3);
        __m128i v;
        if (total <= kRefilled) [[likely]] {
          magsgn.need(total);
          // Two lanes at a time (128-bit vectors only: no vzeroupper in the loop).
          const __m128i word = _mm_set1_epi64x(static_cast<long long>(magsgn.bits()));
          const __m128i fields_01 = _mm_srlv_epi64(word, _mm_cvtepu32_epi64(before));
          const __m128i fields_23 = _mm_srlv_epi64(word, _mm_cvtepu32_epi64(_mm_srli_si128(before, 8)));
          v = _mm_castps_si128(
              _mm_shuffle_ps(_mm_castsi128_ps(fields_01), _mm_castsi128_ps(fields_23), _MM_SHUFFLE(2, 0, 2, 0)));
          magsgn.skip(total);
        } else {  // more than a word's bits (U above 14): one field at a time
          alignas(16) uint32_t counts[4];
          _mm_store_si128(reinterpret_cast<__m128i*>(counts), bits);
          alignas(16) uint32_t taken[4];
          for (int j = 0; j < 4; ++j) taken[j] = magsgn.take(static_cast<int>(counts[j]));
          v = _mm_load_si128(reinterpret_cast<const __m128i*>(taken));
        }
        // Each field's own bits, and the EMB bit above them.
        v = _mm_and_si128(v, _mm_sub_epi32(_mm_sllv_epi32(one, bits), one));
        v = _mm_or_si128(v, _mm_sllv_epi32(e_1, bits));
        // Sign and (2 mu + 1) 2^p with mu = (v >> 1) + 1; 0 where not coded.
        const __m128i magnitude = _mm_sll_epi32(_mm_add_epi32(_mm_andnot_si128(one, v), three), plane);
        const __m128i negative = _mm_sub_epi32(zero, _mm_and_si128(v, one));
        coefficients = _mm_and_si128(_mm_sub_epi32(_mm_xor_si128(magnitude, negative), negative), coded);
        const __m128i mu = _mm_add_epi32(_mm_srli_epi32(v, 1), one);
        overflow = _mm_or_si128(overflow, _mm_and_si128(_mm_srl_epi32(mu, mu_limit), coded));
        // The exponents bit_length(v | 1) (v below 2^31) from a float's exponent field, exact:
        // with the bit below the top one cleared, rounding cannot carry into the exponent.
        const __m128i odd = _mm_or_si128(v, one);
        const __m128i top_kept = _mm_andnot_si128(_mm_srli_epi32(odd, 1), odd);
        const __m128i field = _mm_srli_epi32(_mm_castps_si128(_mm_cvtepi32_ps(top_kept)), 23);
        const __m128i exponents = _mm_and_si128(_mm_sub_epi32(field, _mm_set1_epi32(126)), coded);
        bottom_exponents = static_cast<uint16_t>(_mm_cvtsi128_si32(_mm_shuffle_epi8(exponents, bottom_bytes)));
      }
      std::memcpy(row.e_row + x, &bottom_exponents, 2);  // room past the block's last column
      if (whole) {
        const __m128i by_row = _mm_shuffle_epi32(coefficients, _MM_SHUFFLE(3, 1, 2, 0));  // top pair, bottom pair
        _mm_storel_epi64(reinterpret_cast<__m128i*>(row.top + x), by_row);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(row.bottom + x), _mm_unpackhi_epi64(by_row, by_row));
      } else {
        row.top[x] = _mm_cvtsi128_si32(coefficients);
        row.bottom[x] = _mm_extract_epi32(coefficients, 1);
      }
    }
    if (!_mm_testz_si128(overflow, overflow)) inconsistent();
    magsgn_stream = magsgn;
  }
};

// The two sub-passes each compiled as one function for AVX2 and BMI2, readers inlined
// (flatten), each with the registers to itself (noinline).
struct Avx2Rows {
  J2K_HT_AVX2 __attribute__((noinline, flatten)) static void vlc(const Tables& t, BackwardWordReader& vlc,
                                                                 MelRunDecoder& mel, bool initial, int qw,
                                                                 const uint8_t* e_above, QuadRow& quads) {
    decode_vlc_row(t, vlc, mel, initial, qw, e_above, quads);
  }
  J2K_HT_AVX2 __attribute__((noinline, flatten)) static void magsgn(ForwardWordReader& magsgn, const MagSgnRow& row) {
    Avx2MagSgnRow::decode(magsgn, row);
  }
};

}  // namespace

J2K_HT_AVX2 void avx2_cleanup(CleanupSegment segment, int32_t* out, ptrdiff_t stride, int width, int height, int plane) {
  decode_cleanup<Avx2Rows>(segment, out, stride, width, height, plane);
}

}  // namespace j2k::codec::ht::cleanup

#endif  // J2K_HT_HAVE_AVX2
