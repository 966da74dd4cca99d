// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/ht/block_encoder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "codec/tier1/ht/avx2_build.hpp"
#if J2K_HT_HAVE_AVX2
#include <immintrin.h>
#endif
#include "codec/tier1/ht/bit_writers.hpp"
#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "codec/tier1/ht/cleanup_encoder_avx2.hpp"
#include "codec/tier1/ht/quad_rules.hpp"
#include "codec/tier1/ht/refinement_encoder.hpp"
#include "codec/tier1/ht/refinement_rows.hpp"
#include "common/error.hpp"

namespace j2k::codec::ht {
namespace {

struct Scratch {
  // The block at the cleanup plane p, a sample as 2 * mu + sign (mu: its magnitude's bits
  // from p up; 0 where mu is 0), rows padded with 0s to whole quad pairs (a multiple of 4
  // samples) and the height to whole quads: PaddedQuads (cleanup_encoder.hpp).
  std::vector<uint32_t> quads;
  std::vector<uint8_t> sig;    // the refinement passes' significance map (refinement_encoder.hpp)
  std::vector<unsigned> rows;  // CleanupRows, for the widest block
  std::vector<uint8_t> magsgn, mel, vlc;  // the streams' buffers, stream_capacity() each (MEL mel_capacity())
  std::vector<uint8_t> sigprop, magref;
  RowMasks masks;  // the refinement passes' rows (refinement_rows.hpp)
  std::vector<uint8_t> avx2;  // the AVX2 cleanup coder's, avx2_cleanup_scratch_bytes() from a 32-byte boundary
};

// The samples of a row of Scratch::quads: the width padded to whole quad pairs (the portable
// coder) or to the AVX2 coder's groups of 8 quads.
size_t quad_stride(int width, bool avx2) {
  const size_t w = static_cast<size_t>(width);
  return avx2 ? (w + kAvx2QuadColumns - 1) / kAvx2QuadColumns * kAvx2QuadColumns : (w + 3) & ~size_t{3};
}

// The integer sums a set's figures come from, in units of 2^-(2 fraction bits + 2): the
// energy (the sum of 4 m^2, m a magnitude with its fraction bits), what the cleanup pass at
// the set's plane removes and, above plane 0, what MagRef at the plane below removes (each
// as add_plane0_sample's terms at that plane, refinement_encoder.hpp); `any`: the OR of every
// magnitude. Each term is exact while every m is below 2^25, and then, with the energy below
// 2^53 units, so is every partial sum of the reference's doubles: the same figures
// (exact_sums).
struct SetSums {
  uint32_t any = 0;
  uint64_t energy = 0, removed = 0;
  int64_t magref = 0;
};
bool exact_sums(const SetSums& s) { return (s.any >> 25) == 0 && (s.energy >> 53) == 0; }

// |v|, v a 32-bit difference taken as signed, widened.
inline uint64_t absolute(uint32_t v) { return static_cast<int32_t>(v) < 0 ? 0u - v : v; }

// What gather_rows sums besides `any`.
enum Sums { kNoSums, kCleanupSums, kRefinementSums };

// Fills `quads` with the block at `plane` (Scratch::quads says how), rows `stride` samples
// apart, in one pass over the coefficients: branch-free, for the vectoriser. With kSums, the
// set's figures' integer sums too (SetSums; the cleanup's, or the cleanup's and MagRef's),
// which, where exact, spare the passes in double over the block. fraction_bits + plane must
// be at most 30 for the sums. Compiled for any x86-64 and, below, for AVX2 (whose 64-bit
// products the sums vectorise with).
template <Sums kSums>
SetSums gather_rows(const BlockView& b, int plane, size_t stride, uint32_t* quads) {
  const int width = b.width, height = b.height, shift = b.fraction_bits + plane, finer = shift - 1;
  // The reconstructions' halves (reconstruction(): none for the 5/3 at plane 0), doubled.
  const uint32_t twice_half = b.reversible && plane == 0 ? 0 : 1;
  const uint32_t twice_half_finer = b.reversible && plane == 1 ? 0 : 1;
  uint32_t any = 0;
  uint64_t energy = 0, removed = 0, lost = 0, lost_finer = 0;
  for (int y = 0; y < height; ++y) {
    const int32_t* __restrict in = b.data + y * b.stride;
    uint32_t* __restrict out = quads + static_cast<size_t>(y) * stride;
    for (int x = 0; x < width; ++x) {
      const int32_t v = in[x];
      const uint32_t m = magnitude_of(v);
      any |= m;
      out[x] = quad_sample(m, sign_of(v), shift);
      if (kSums != kNoSums) {
        // Unsigned, masked rather than branched: so the vectoriser takes it.
        const uint32_t mu = m >> shift;
        const uint64_t significant = mu != 0 ? ~uint64_t{0} : 0;
        // The decoder's error, 2 m less twice its reconstruction, in 32 bits (small where it
        // counts: the sums are used only while every m is below 2^25). As add_plane0_sample.
        const uint64_t square = 4 * (static_cast<uint64_t>(m) * m), error = absolute(2 * m - ((2 * mu + twice_half) << shift));
        energy += square;
        removed += (square - error * error) & significant;
        if (kSums == kRefinementSums) {
          // MagRef's terms, the error squared less the error at the plane below squared, in
          // two sums.
          const uint64_t finer_error = absolute(2 * m - ((2 * (m >> finer) + twice_half_finer) << finer));
          lost += (error * error) & significant;
          lost_finer += (finer_error * finer_error) & significant;
        }
      }
    }
    for (size_t x = static_cast<size_t>(width); x < stride; ++x) out[x] = 0;
  }
  const size_t rows = static_cast<size_t>((height + 1) & ~1);
  if (rows > static_cast<size_t>(height)) std::fill(quads + (rows - 1) * stride, quads + rows * stride, 0u);
  const auto magref = static_cast<int64_t>(lost - lost_finer);  // the difference of two sums below 2^63
  return SetSums{any, energy, removed, magref};
}

#if J2K_HT_HAVE_AVX2
template <Sums kSums>
J2K_HT_AVX2 __attribute__((flatten)) SetSums gather_rows_avx2(const BlockView& b, int plane, size_t stride, uint32_t* quads) {
  return gather_rows<kSums>(b, plane, stride, quads);
}

// The squares of a vector's eight 32-bit lanes, taken unsigned, summed into four 64-bit lanes.
J2K_HT_AVX2 inline __m256i add_squares(__m256i sum, __m256i v) {
  const __m256i odd = _mm256_srli_epi64(v, 32);
  return _mm256_add_epi64(sum, _mm256_add_epi64(_mm256_mul_epu32(v, v), _mm256_mul_epu32(odd, odd)));
}
J2K_HT_AVX2 inline uint64_t lanes_sum(__m256i v) {
  const __m128i two = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  return static_cast<uint64_t>(_mm_cvtsi128_si64(two)) + static_cast<uint64_t>(_mm_extract_epi64(two, 1));
}

// The low 32 bits of a vector's eight 32-bit lanes summed, as one 64-bit sum of them taken
// unsigned.
J2K_HT_AVX2 inline uint64_t lanes_sum32(__m256i v) {
  return lanes_sum(_mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1))));
}

// gather_rows<kCleanupSums> in intrinsics, 8 samples at a time (the 9/7 at a --qstep: every
// block's pass at plane 0 with its figures), the last width % 8 of a row as gather_rows. The
// sums are the same integers: gather_rows' are sums of 64-bit terms modulo 2^64, which any
// order of the additions gives, and removed's terms (4 m^2 - error^2 where significant) are
// summed here as 4 (the significant m^2) less (their error^2). The compiler's vectorisation
// of gather_rows spends its instructions widening each term to 64 bits before the product;
// _mm256_mul_epu32 takes 32-bit lanes and gives the 64-bit products.
// kNarrow (shift <= 11, as the 9/7's 6 fraction bits at plane 0): an insignificant m is below
// 2^shift and a significant one's error at most 2^shift, so their squares are taken 16 bits
// by 16 (_mm256_madd_epi16) into 32-bit lanes, which a block's 512 terms a lane cannot
// overflow (2^22 each at most), and the significant m^2 are all m^2 less the insignificant's:
// one 64-bit product sum instead of three.
template <bool kNarrow>
J2K_HT_AVX2 SetSums gather_cleanup_rows_avx2(const BlockView& b, int plane, size_t stride, uint32_t* quads) {
  const int width = b.width, height = b.height, whole = width & ~7, shift = b.fraction_bits + plane;
  const uint32_t twice_half = b.reversible && plane == 0 ? 0 : 1;
  const __m128i by = _mm_cvtsi32_si128(shift);
  const __m256i zero = _mm256_setzero_si256(), half = _mm256_set1_epi32(static_cast<int>(twice_half));
  // all m^2; the significant's m^2 (kNarrow: the insignificant's) and error^2
  __m256i any = zero, squares = zero, kept = zero, lost = zero;
  uint32_t any_tail = 0;
  uint64_t energy_tail = 0, removed_tail = 0;
  for (int y = 0; y < height; ++y) {
    const int32_t* in = b.data + y * b.stride;
    uint32_t* out = quads + static_cast<size_t>(y) * stride;
    for (int x = 0; x < whole; x += 8) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + x));
      const __m256i m = _mm256_abs_epi32(v);  // magnitude_of: -2^31 gives 2^31 as well
      const __m256i mu = _mm256_srl_epi32(m, by);
      const __m256i significant = _mm256_xor_si256(_mm256_cmpeq_epi32(mu, zero), _mm256_set1_epi32(-1));
      const __m256i sign = _mm256_and_si256(_mm256_srli_epi32(v, 31), significant);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x), _mm256_or_si256(_mm256_slli_epi32(mu, 1), sign));
      any = _mm256_or_si256(any, m);
      // The decoder's error, 2 m less twice its reconstruction, as a signed 32-bit difference.
      const __m256i twice_reconstruction = _mm256_sll_epi32(_mm256_add_epi32(_mm256_slli_epi32(mu, 1), half), by);
      const __m256i error = _mm256_abs_epi32(_mm256_sub_epi32(_mm256_slli_epi32(m, 1), twice_reconstruction));
      squares = add_squares(squares, m);
      if (kNarrow) {
        const __m256i small = _mm256_andnot_si256(significant, m);
        kept = _mm256_add_epi32(kept, _mm256_madd_epi16(small, small));
        const __m256i e = _mm256_and_si256(error, significant);
        lost = _mm256_add_epi32(lost, _mm256_madd_epi16(e, e));
      } else {
        kept = add_squares(kept, _mm256_and_si256(m, significant));
        lost = add_squares(lost, _mm256_and_si256(error, significant));
      }
    }
    for (int x = whole; x < width; ++x) {  // gather_rows' terms
      const int32_t v = in[x];
      const uint32_t m = magnitude_of(v);
      any_tail |= m;
      out[x] = quad_sample(m, sign_of(v), shift);
      const uint32_t mu = m >> shift;
      const uint64_t significant = mu != 0 ? ~uint64_t{0} : 0;
      const uint64_t square = 4 * (static_cast<uint64_t>(m) * m), error = absolute(2 * m - ((2 * mu + twice_half) << shift));
      energy_tail += square;
      removed_tail += (square - error * error) & significant;
    }
    for (size_t x = static_cast<size_t>(width); x < stride; ++x) out[x] = 0;
  }
  const size_t rows = static_cast<size_t>((height + 1) & ~1);
  if (rows > static_cast<size_t>(height)) std::fill(quads + (rows - 1) * stride, quads + rows * stride, 0u);
  const __m128i any4 = _mm_or_si128(_mm256_castsi256_si128(any), _mm256_extracti128_si256(any, 1));
  const __m128i any2 = _mm_or_si128(any4, _mm_srli_si128(any4, 8));
  const auto any_all = static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_or_si128(any2, _mm_srli_si128(any2, 4)))) | any_tail;
  SetSums s;
  s.any = any_all;
  const uint64_t all = lanes_sum(squares);
  s.energy = 4 * all + energy_tail;
  if (kNarrow) s.removed = 4 * (all - lanes_sum32(kept)) - lanes_sum32(lost) + removed_tail;
  else s.removed = 4 * lanes_sum(kept) - lanes_sum(lost) + removed_tail;
  return s;
}
#endif

SetSums gather_quads(const BlockView& b, int plane, size_t stride, Sums sums, bool avx2, Scratch& s) {
  s.quads.resize(stride * static_cast<size_t>((b.height + 1) & ~1));
  uint32_t* const quads = s.quads.data();
#if J2K_HT_HAVE_AVX2
  if (avx2) {
    switch (sums) {
      case kNoSums: return gather_rows_avx2<kNoSums>(b, plane, stride, quads);
      case kCleanupSums:
        return b.fraction_bits + plane <= 11 ? gather_cleanup_rows_avx2<true>(b, plane, stride, quads)
                                             : gather_cleanup_rows_avx2<false>(b, plane, stride, quads);
      case kRefinementSums: return gather_rows_avx2<kRefinementSums>(b, plane, stride, quads);
    }
  }
#endif
  (void)avx2;
  switch (sums) {
    case kNoSums: break;
    case kCleanupSums: return gather_rows<kCleanupSums>(b, plane, stride, quads);
    case kRefinementSums: return gather_rows<kRefinementSums>(b, plane, stride, quads);
  }
  return gather_rows<kNoSums>(b, plane, stride, quads);
}

// This thread's scratch, reused from block to block. Fetched once a block through a call: a
// thread_local used in place costs a __tls_get_addr call at each use in a shared library,
// in every loop that touches it.
[[gnu::noinline]] Scratch& thread_scratch() {
  thread_local Scratch s;
  return s;
}

// Sizes the streams' buffers for a block of n samples.
void size_streams(Scratch& s, size_t n) {
  const size_t bytes = stream_capacity(n);
  for (std::vector<uint8_t>* v : {&s.magsgn, &s.vlc})
    if (v->size() < bytes) v->resize(bytes);
  if (s.mel.size() < mel_capacity(n)) s.mel.resize(mel_capacity(n));
  if (s.sigprop.size() < sigprop_capacity(n)) s.sigprop.resize(sigprop_capacity(n));
  if (s.magref.size() < magref_capacity(n)) s.magref.resize(magref_capacity(n));
}

}  // namespace

bool available(HtEncoderPath path) {
  switch (path) {
    case HtEncoderPath::Portable: return true;
    case HtEncoderPath::Avx2: return avx2_runs();
  }
  return false;
}

int magnitude_bitplanes(const BlockView& b) {
  uint32_t any = 0;
  for (int y = 0; y < b.height; ++y)
    for (int x = 0; x < b.width; ++x) {
      const int32_t v = b.data[y * b.stride + x];
      any |= static_cast<uint32_t>(std::llabs(static_cast<long long>(v))) >> b.fraction_bits;
    }
  return bit_length(any);
}

CodedBlock encode_block(const BlockView& b) {
  static const HtEncoderPath fastest = available(HtEncoderPath::Avx2) ? HtEncoderPath::Avx2 : HtEncoderPath::Portable;
  return encode_block(b, fastest);
}

CodedBlock encode_block(const BlockView& b, HtEncoderPath path) {
  static const bool has_avx2 = available(HtEncoderPath::Avx2);
  const bool avx2 = path == HtEncoderPath::Avx2 && has_avx2;
  const int plane = b.cleanup_plane;
  if (plane < 0 || plane > 30)
    throw Error(ErrorCode::InvalidArgument, "HT encoder: a cleanup pass at bit plane " + std::to_string(plane) + " (0 to 30)");
  Scratch& s = thread_scratch();
  const size_t n = static_cast<size_t>(b.width) * static_cast<size_t>(b.height);
  CodedBlock out;
  const size_t stride = quad_stride(b.width, avx2);
  // The figures from the gather's integer sums where they are exact (or, for magnitudes too
  // large for them, passes in double over the block, refinement_encoder.hpp's).
  const bool estimate = b.estimate_distortion;
  const Sums sums = !estimate || b.fraction_bits + plane > 30 ? kNoSums : plane == 0 ? kCleanupSums : kRefinementSums;
  const SetSums gathered = gather_quads(b, plane, stride, sums, avx2, s);
  const bool exact = sums != kNoSums && exact_sums(gathered);
  const double unit = std::ldexp(1.0, 2 + 2 * b.fraction_bits);
  const CleanupPlan plan = plan_cleanup(gathered.any >> b.fraction_bits, plane);
  out.magnitude_bitplanes = plan.magnitude_bitplanes;
  const bool refine = plane > 0 && plan.bitplanes != 0;
  const IndexBlock indices = index_block(b.data, b.stride, b.width, b.height, b.fraction_bits);
  Plane0Estimate plane0;
  if (exact) {
    plane0.energy = static_cast<double>(gathered.energy) / unit;
    plane0.distortion = static_cast<double>(gathered.removed) / unit;
    out.energy = plane0.energy;
  } else if (refine) {
    out.energy = index_energy(indices);
  } else if (estimate) {
    plane0 = plane0_estimate(indices, b.reversible);
    out.energy = plane0.energy;
  }
  if (plan.bitplanes == 0) return out;  // nothing significant at that plane: no pass
  if (plan.too_large) throw Error(ErrorCode::InvalidArgument, "HT encoder: a coefficient of 2^31 steps (at most 2^31 - 1)");
  size_streams(s, n);
  out.bitplanes = plan.bitplanes;  // plane + 1, no placeholder passes: Tier-2 signals Mb - plane - 1 missing MSBs
  const char* const scup_overflow = "HT encoder: MEL and VLC outgrow the cleanup segment's length field";
#if J2K_HT_HAVE_AVX2
  if (avx2) {
    ForwardWriter magsgn(s.magsgn.data());
    MelEncoder mel(s.mel.data());
    BackwardWriter vlc(s.vlc.data(), BackwardWriter::kVlc);
    if (s.avx2.empty()) s.avx2.resize(avx2_cleanup_scratch_bytes() + 31);
    void* scratch = s.avx2.data() + (-reinterpret_cast<uintptr_t>(s.avx2.data()) & 31);
    encode_cleanup_avx2(s.quads.data(), stride, b.width, b.height, scratch, magsgn, mel, vlc);
    const size_t bytes = finish_cleanup(magsgn, mel, vlc);
    if (bytes == 0) throw Error(ErrorCode::Internal, scup_overflow);
    out.bytes.resize(bytes);
    write_cleanup(magsgn, mel, vlc, out.bytes.data());
  }
#endif
  if (!avx2) {
    s.rows.resize((CleanupRows::bytes(b.width) + sizeof(unsigned) - 1) / sizeof(unsigned));
    CleanupEncoder<PaddedQuads> coder(b.width, b.height, host_cleanup_tables(), CleanupRows::carve(s.rows.data(), b.width),
                                      CleanupBuffers{s.magsgn.data(), s.mel.data(), s.vlc.data()});
    const size_t bytes = coder.run(PaddedQuads{s.quads.data(), stride});
    if (bytes == 0) throw Error(ErrorCode::Internal, scup_overflow);
    out.bytes.resize(bytes);
    coder.write(out.bytes.data());
  }
  CodedPass cleanup;
  cleanup.end = static_cast<uint32_t>(out.bytes.size());
  cleanup.terminated = true;
  if (estimate) cleanup.distortion = exact || !refine ? plane0.distortion : cleanup_removed(indices, plane, b.reversible);
  out.passes.push_back(cleanup);
  if (plane == 0) return out;  // no plane below for SigProp and MagRef

  // From the rows' masks where the block fits them and its figures are the sums', else the
  // reference's sample by sample.
  const bool causal = (b.modes & kModeCausal) != 0;
  Refinement r;
  if (b.width <= kMaxRowMaskWidth && (!estimate || exact)) {
    r = encode_refinement_rows(indices, plane, b.reversible, causal, estimate, s.masks, s.sigprop.data(), s.magref.data(), avx2);
    if (estimate) r.magref_removed = static_cast<double>(gathered.magref) / unit;
  } else {
    s.sig.resize(significance_bytes(b.width, b.height));
    r = encode_refinement(indices, plane, b.reversible, causal, estimate, s.sig.data(), s.sigprop.data(), s.magref.data());
  }
  // One segment: SigProp forward, then MagRef reversed; a stop after SigProp keeps its bytes.
  const size_t cleanup_end = out.bytes.size();
  out.bytes.resize(cleanup_end + r.sigprop_bytes + r.magref_bytes);
  std::copy(s.sigprop.data(), s.sigprop.data() + r.sigprop_bytes, out.bytes.begin() + static_cast<ptrdiff_t>(cleanup_end));
  std::reverse_copy(s.magref.data(), s.magref.data() + r.magref_bytes,
                    out.bytes.begin() + static_cast<ptrdiff_t>(cleanup_end + r.sigprop_bytes));
  CodedPass sig_prop;
  sig_prop.end = static_cast<uint32_t>(cleanup_end + r.sigprop_bytes);
  sig_prop.distortion = r.sigprop_removed;
  CodedPass mag_ref;
  mag_ref.end = static_cast<uint32_t>(out.bytes.size());
  mag_ref.terminated = true;
  mag_ref.distortion = r.magref_removed;
  out.passes.push_back(sig_prop);
  out.passes.push_back(mag_ref);
  return out;
}

}  // namespace j2k::codec::ht
