// SPDX-License-Identifier: BSD-2-Clause
// The cleanup pass of cleanup_pass.hpp compiled for AVX2 and BMI2 (the whole pass, readers
// and VLC sub-pass included, through the target attribute and flatten: BMI2's shifts by a
// variable count are one instruction), with a MagSgn sub-pass that does a quad's four
// samples in one vector: their bit counts, where each starts (a prefix sum), each field cut
// from the same 64 bits by a variable shift per lane, then the coefficients, the exponents
// and the overflow check, all as PortableMagSgnRow does them one sample at a time. It reads
// MagSgn from the stream unstuffed once (unstuffed_bits.hpp): a quad's bits are one load at
// the quad's bit position, with no branch on how many bits are in hand.
// block_decoder.cpp calls it only on a CPU with AVX2 and BMI2; the tests run it against the
// portable build and the reference decoder.
#include "codec/tier1/ht/cleanup_pass.hpp"
#include "codec/tier1/ht/unstuffed_bits.hpp"

#if J2K_HT_HAVE_AVX2
#include <immintrin.h>

#include <cstring>

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

// The MagSgn stream unstuffed, and the position of the next quad's bits.
struct UnstuffedReader {
  explicit UnstuffedReader(MagSgnSegment s) : bits(s.data, s.size, s.max_bits) {}
  UnstuffedBits bits;
  size_t position = 0;
};

// Sub-pass 2 (cleanup_pass.hpp's MagSgnRow says what it reads and writes).
class Avx2MagSgnRow {
 public:
  // One build of the row per output form (OutputForm), chosen once a row.
  J2K_HT_AVX2 static void decode(UnstuffedReader& magsgn, const MagSgnRow& row) {
    if (!row.form.dequantise) decode_as<Form::Coefficients>(magsgn, row);
    else if (row.form.q.reversible) decode_as<Form::Halved>(magsgn, row);
    else decode_as<Form::Scaled>(magsgn, row);
  }

 private:
  // The coefficients as they are, halved (the 5/3's dequantisation), or times half the step
  // in float (the 9/7's): Dequantisation's arithmetic, four lanes at a time.
  enum class Form { Coefficients, Halved, Scaled };
  template <Form kForm>
  J2K_HT_AVX2 static inline __m128i in_form(__m128i c, __m128 half_step) {
    if constexpr (kForm == Form::Halved)  // C's v / 2: toward zero, so a negative v gets 1 first
      return _mm_srai_epi32(_mm_add_epi32(c, _mm_srli_epi32(c, 31)), 1);
    else if constexpr (kForm == Form::Scaled)
      return _mm_castps_si128(_mm_mul_ps(_mm_cvtepi32_ps(c), half_step));
    else
      return c;
  }

  // The position and the row are worked on as local copies (see decode_vlc_row).
  template <Form kForm>
  J2K_HT_AVX2 static void decode_as(UnstuffedReader& reader, const MagSgnRow& row_in) {
    const UnstuffedBits& magsgn = reader.bits;
    size_t position = reader.position;
    const MagSgnRow row = row_in;
    const Constants k(row.plane);
    const __m128 half_step = _mm_set1_ps(row.form.q.half_step);
    __m128i overflow = _mm_setzero_si128();
    // The quads whose right column is inside the block, then the one whose is not (odd widths).
    const int whole_quads = row.width / 2;
    uint8_t* e_row = row.e_row;
    int32_t* top = row.top;
    int32_t* bottom = row.bottom;
    for (int q = 0; q < whole_quads; ++q, e_row += 2, top += 2, bottom += 2) {
      uint16_t bottom_exponents;
      const __m128i c = in_form<kForm>(decode_quad(magsgn, position, row, q, row.row_mask, k, overflow, bottom_exponents), half_step);
      std::memcpy(e_row, &bottom_exponents, 2);
      const __m128i by_row = _mm_shuffle_epi32(c, _MM_SHUFFLE(3, 1, 2, 0));  // top pair, bottom pair
      _mm_storel_epi64(reinterpret_cast<__m128i*>(top), by_row);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(bottom), _mm_unpackhi_epi64(by_row, by_row));
    }
    if (whole_quads < row.quads) {
      uint16_t bottom_exponents;
      const __m128i c =
          in_form<kForm>(decode_quad(magsgn, position, row, whole_quads, row.row_mask & 0x3u, k, overflow, bottom_exponents), half_step);
      std::memcpy(e_row, &bottom_exponents, 2);  // room past the block's last column
      const int32_t top_value = _mm_cvtsi128_si32(c), bottom_value = _mm_extract_epi32(c, 1);
      std::memcpy(top, &top_value, 4);  // bits of a float where the form is Scaled
      std::memcpy(bottom, &bottom_value, 4);
    }
    if (!_mm_testz_si128(overflow, overflow)) inconsistent();
    reader.position = position;
  }

  struct Constants {
    J2K_HT_AVX2 explicit Constants(int p)
        : one(_mm_set1_epi32(1)),
          three(_mm_set1_epi32(3)),
          exponent_bias(_mm_set1_epi32(126)),
          plane(_mm_cvtsi32_si128(p)),
          mu_limit(_mm_cvtsi32_si128(kMaxDecodedBitplanes - p)),
          bottom_bytes(_mm_setr_epi8(4, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)) {}
    __m128i one, three, exponent_bias;
    __m128i plane;     // the cleanup's plane p, as a shift count
    // Only at the exponent bound U = 31 - p can mu, at most 2^(U - 1), reach 2^(30 - p).
    __m128i mu_limit;
    __m128i bottom_bytes;  // bytes 4 and 12 (lanes 1 and 3, the bottom samples) to bytes 0 and 1
  };

  // Quad q's coefficients, sample j in lane j (0 where not coded, or not in `inside`, the
  // samples inside the block), and its bottom samples' exponents (bit_length(2 (mu - 1) + 1),
  // for the next row's kappa) in `bottom_exponents`, lane 1's in the low byte.
  J2K_HT_AVX2 static inline __m128i decode_quad(const UnstuffedBits& magsgn, size_t& position, const MagSgnRow& row, int q,
                                                unsigned inside, const Constants& k, __m128i& overflow,
                                                uint16_t& bottom_exponents) {
    const unsigned entry = row.codeword[q];
    const unsigned rho = entry & packed::kRho;
    // An insignificant quad reads no bits: skipped (measured: its work done branch-free made
    // the lossy streams, with many such quads, 10% slower).
    bottom_exponents = 0;
    if (rho == 0) return _mm_setzero_si128();
    const unsigned big_u = exponent_bound(row, q);
    const unsigned todo = rho & inside;  // samples past the block's edge are never coded
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
    if (total <= kRefilled) {
      // Two lanes at a time (128-bit vectors only: no vzeroupper in the loop).
      const __m128i word = _mm_set1_epi64x(static_cast<long long>(magsgn.at(position)));
      const __m128i fields_01 = _mm_srlv_epi64(word, _mm_cvtepu32_epi64(before));
      const __m128i fields_23 = _mm_srlv_epi64(word, _mm_cvtepu32_epi64(_mm_srli_si128(before, 8)));
      v = _mm_castps_si128(
          _mm_shuffle_ps(_mm_castsi128_ps(fields_01), _mm_castsi128_ps(fields_23), _MM_SHUFFLE(2, 0, 2, 0)));
    } else {  // more than a load's bits (U above 14): one field at a time
      alignas(16) uint32_t starts[4];
      _mm_store_si128(reinterpret_cast<__m128i*>(starts), before);
      alignas(16) uint32_t fields[4];
      for (int j = 0; j < 4; ++j) fields[j] = static_cast<uint32_t>(magsgn.at(position + starts[j]));
      v = _mm_load_si128(reinterpret_cast<const __m128i*>(fields));
    }
    position += static_cast<unsigned>(total);
    // Each field's own bits, and the EMB bit above them.
    v = _mm_and_si128(v, _mm_sub_epi32(_mm_sllv_epi32(k.one, bits), k.one));
    v = _mm_or_si128(v, _mm_sllv_epi32(e_1, bits));
    // Sign and (2 mu + 1) 2^p with mu = (v >> 1) + 1; 0 where not coded.
    const __m128i magnitude = _mm_sll_epi32(_mm_add_epi32(_mm_andnot_si128(k.one, v), k.three), k.plane);
    const __m128i negative = _mm_sub_epi32(_mm_setzero_si128(), _mm_and_si128(v, k.one));
    const __m128i mu = _mm_add_epi32(_mm_srli_epi32(v, 1), k.one);
    overflow = _mm_or_si128(overflow, _mm_and_si128(_mm_srl_epi32(mu, k.mu_limit), coded));
    // The exponents bit_length(v | 1) (v below 2^31) from a float's exponent field, exact: with
    // the bit below the top one cleared, rounding cannot carry into the exponent.
    const __m128i odd = _mm_or_si128(v, k.one);
    const __m128i top_kept = _mm_andnot_si128(_mm_srli_epi32(odd, 1), odd);
    const __m128i field = _mm_srli_epi32(_mm_castps_si128(_mm_cvtepi32_ps(top_kept)), 23);
    const __m128i exponents = _mm_and_si128(_mm_sub_epi32(field, k.exponent_bias), coded);
    bottom_exponents = static_cast<uint16_t>(_mm_cvtsi128_si32(_mm_shuffle_epi8(exponents, k.bottom_bytes)));
    return _mm_and_si128(_mm_sub_epi32(_mm_xor_si128(magnitude, negative), negative), coded);
  }
};

// The two sub-passes each compiled as one function for AVX2 and BMI2, readers inlined
// (flatten), each with the registers to itself (noinline).
struct Avx2Rows {
  J2K_HT_AVX2 __attribute__((noinline, flatten)) static void vlc(const Tables& t, const LinkedCxt& linked,
                                                                 BackwardWordReader& vlc, MelRunDecoder& mel,
                                                                 bool initial, int qw, const uint8_t* e_above,
                                                                 QuadRow& quads) {
    decode_vlc_row(t, linked, vlc, mel, initial, qw, e_above, quads);
  }
  using MagSgnReader = UnstuffedReader;
  J2K_HT_AVX2 __attribute__((noinline, flatten)) static void magsgn(UnstuffedReader& magsgn, const MagSgnRow& row) {
    Avx2MagSgnRow::decode(magsgn, row);
  }
};

}  // namespace

J2K_HT_AVX2 void avx2_cleanup(CleanupSegment segment, int32_t* out, ptrdiff_t stride, int width, int height, int plane,
                              const OutputForm& form) {
  decode_cleanup<Avx2Rows>(segment, out, stride, width, height, plane, form);
}

}  // namespace j2k::codec::ht::cleanup

#endif  // J2K_HT_HAVE_AVX2
