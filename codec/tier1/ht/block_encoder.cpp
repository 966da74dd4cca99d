// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/ht/block_encoder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "codec/tier1/ht/bit_writers.hpp"
#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "codec/tier1/ht/cleanup_encoder_avx2.hpp"
#include "codec/tier1/ht/quad_rules.hpp"
#include "common/error.hpp"

namespace j2k::codec::ht {
namespace {

struct Scratch {
  // The block at the cleanup plane p, a sample as 2 * mu + sign (mu: its magnitude's bits
  // from p up; 0 where mu is 0), rows padded with 0s to whole quad pairs (a multiple of 4
  // samples) and the height to whole quads: PaddedQuads (cleanup_encoder.hpp).
  std::vector<uint32_t> quads;
  std::vector<uint32_t> mag;   // magnitudes at plane 0 (the quantisation index), row by row
  std::vector<uint8_t> neg;
  std::vector<double> steps;   // magnitudes in steps, fraction bits included
  // Padded by one sample all round: 1 significant after cleanup; 2 made significant by SigProp.
  std::vector<uint8_t> sig;
  std::vector<unsigned> rows;  // CleanupRows, for the widest block
  std::vector<uint8_t> magsgn, mel, vlc;  // the streams' buffers, stream_capacity() each (MEL mel_capacity())
  std::vector<uint8_t> sigprop, magref;
  std::vector<uint8_t> avx2;  // the AVX2 cleanup coder's, avx2_cleanup_scratch_bytes() from a 32-byte boundary
};

// The refinement passes at plane p - 1 after a cleanup pass at p (Part 15 clause 7.4, 7.5),
// the mirror of the decoder's: SigProp visits the samples still insignificant with a
// significant neighbour (one made significant earlier in this pass counts), stripe by stripe
// of 4 rows, in groups of 4 columns, each group's significance bits then the signs of its new
// significant samples, forward; MagRef gives every sample significant after the cleanup its
// bit at p - 1, backward. `sig` says which samples the cleanup made significant.
class RefinementEncoder {
 public:
  RefinementEncoder(const BlockView& b, int plane, Scratch& s)
      : s_(s), w_(b.width), h_(b.height), p_(plane - 1), causal_((b.modes & kModeCausal) != 0) {
    // The significance map with a border of insignificant samples: 1 after the cleanup pass.
    s_.sig.assign(static_cast<size_t>(w_ + 2) * static_cast<size_t>(h_ + 2), 0);
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x) s_.sig[padded(x, y)] = (s_.mag[index(x, y)] >> plane) != 0 ? 1 : 0;
  }

  // Codes SigProp into `sigprop` and MagRef into `magref`; `newly` and `refined` receive the
  // samples each pass changes (their index), for the distortion.
  void run(ForwardWriter& sigprop, BackwardWriter& magref, std::vector<size_t>& newly, std::vector<size_t>& refined) {
    for (int y0 = 0; y0 < h_; y0 += 4) {
      const int y1 = std::min(y0 + 4, h_);
      for (int x0 = 0; x0 < w_; x0 += 4) {
        const int x1 = std::min(x0 + 4, w_);
        const size_t first = newly.size();
        for (int x = x0; x < x1; ++x)
          for (int y = y0; y < y1; ++y) {
            const size_t at = padded(x, y);
            if (s_.sig[at] || !neighbour_significant(at, !causal_ || y + 1 < y1)) continue;
            const size_t i = index(x, y);
            const uint32_t bit = (s_.mag[i] >> p_) & 1;
            sigprop.put(bit, 1);
            if (bit) {
              s_.sig[at] = 2;
              newly.push_back(i);
            }
          }
        for (size_t k = first; k < newly.size(); ++k) sigprop.put(s_.neg[newly[k]], 1);
      }
    }
    for (int y0 = 0; y0 < h_; y0 += 4) {
      const int y1 = std::min(y0 + 4, h_);
      for (int x = 0; x < w_; ++x)
        for (int y = y0; y < y1; ++y) {
          if (s_.sig[padded(x, y)] != 1) continue;
          const size_t i = index(x, y);
          magref.put((s_.mag[i] >> p_) & 1, 1);
          refined.push_back(i);
        }
    }
  }

 private:
  size_t index(int x, int y) const { return static_cast<size_t>(y) * static_cast<size_t>(w_) + static_cast<size_t>(x); }
  size_t padded(int x, int y) const { return static_cast<size_t>(y + 1) * static_cast<size_t>(w_ + 2) + static_cast<size_t>(x + 1); }
  // Whether any of the 8 neighbours of the sample at `at` is significant now; the row below
  // only where `below` (the stripe-causal mode hides the next stripe).
  bool neighbour_significant(size_t at, bool below) const {
    const size_t row = static_cast<size_t>(w_ + 2);
    const uint8_t* c = s_.sig.data() + at;
    const uint8_t* up = c - row;
    if (up[-1] | up[0] | up[1] | c[-1] | c[1]) return true;
    const uint8_t* down = c + row;
    return below && (down[-1] | down[0] | down[1]) != 0;
  }

  Scratch& s_;
  int w_, h_, p_;
  bool causal_;
};

// The magnitude, in steps, that a decoder gives a coefficient whose index is known down to
// plane p as mu (mu > 0): the middle of its interval, or, for the 5/3 at plane 0, the index
// itself (the reversible dequantiser halves the decoder's 2 * mu + 1 towards 0).
double reconstruction(uint32_t mu, int p, bool reversible) {
  if (mu == 0) return 0;
  if (reversible && p == 0) return static_cast<double>(mu);
  return (static_cast<double>(mu) + 0.5) * static_cast<double>(uint64_t{1} << p);
}

double squared(double v) { return v * v; }

// The samples of a row of Scratch::quads: the width padded to whole quad pairs (the portable
// coder) or to the AVX2 coder's groups of 8 quads.
size_t quad_stride(int width, bool avx2) {
  const size_t w = static_cast<size_t>(width);
  return avx2 ? (w + kAvx2QuadColumns - 1) / kAvx2QuadColumns * kAvx2QuadColumns : (w + 3) & ~size_t{3};
}

// What gather_quads finds on its way through the block: the OR of every magnitude (with its
// fraction bits), and where asked, plane0_estimate's two sums in integers, in units of
// 2^-(2 fraction bits + 2): the energy, sum of 4 m^2, and what a cleanup pass at plane 0
// removes, sum over mu > 0 of 4 m^2 - (2 m - (2 mu + 1) 2^fraction_bits)^2 (2 mu for the 5/3,
// whose decoder gives mu itself). Each term is exact in 64 bits while every magnitude is below
// 2^25, and so are the sums, of at most 4096 terms.
struct Gathered {
  uint32_t any = 0;
  uint64_t energy = 0, removed = 0;
};

// Fills `quads` with the block at `plane` (Scratch::quads says how), rows `stride` samples
// apart, in one pass over the coefficients: branch-free, for the vectoriser. Compiled for any
// x86-64 and, below, for AVX2 (whose 64-bit products the estimate's sums vectorise with).
template <bool kEstimate>
Gathered gather_rows(const BlockView& b, int plane, size_t stride, uint32_t* quads) {
  const int width = b.width, height = b.height, fraction_bits = b.fraction_bits, shift = fraction_bits + plane;
  const uint32_t twice_half = b.reversible ? 0 : 1;
  uint32_t any = 0;
  uint64_t energy = 0, removed = 0;
  for (int y = 0; y < height; ++y) {
    const int32_t* __restrict in = b.data + y * b.stride;
    uint32_t* __restrict out = quads + static_cast<size_t>(y) * stride;
    for (int x = 0; x < width; ++x) {
      const int32_t v = in[x];
      const uint32_t m = magnitude_of(v);
      any |= m;
      out[x] = quad_sample(m, sign_of(v), shift);
      if (kEstimate) {
        const uint32_t mu = m >> fraction_bits;
        // The decoder's error, 2 m less twice its reconstruction, in 32 bits (small where it
        // counts: the sums are used only while every m is below 2^25).
        const auto error = static_cast<int32_t>(2 * m - ((2 * mu + twice_half) << fraction_bits));
        const uint64_t square = 4 * (static_cast<uint64_t>(m) * m);
        energy += square;
        removed += mu != 0 ? square - static_cast<uint64_t>(static_cast<int64_t>(error) * error) : 0;
      }
    }
    for (size_t x = static_cast<size_t>(width); x < stride; ++x) out[x] = 0;
  }
  const size_t rows = static_cast<size_t>((height + 1) & ~1);
  if (rows > static_cast<size_t>(height)) std::fill(quads + (rows - 1) * stride, quads + rows * stride, 0u);
  return Gathered{any, energy, removed};
}

#if J2K_HT_HAVE_AVX2
template <bool kEstimate>
J2K_HT_AVX2 __attribute__((flatten)) Gathered gather_rows_avx2(const BlockView& b, int plane, size_t stride, uint32_t* quads) {
  return gather_rows<kEstimate>(b, plane, stride, quads);
}
#endif

Gathered gather_quads(const BlockView& b, int plane, size_t stride, bool estimate, bool avx2, Scratch& s) {
  s.quads.resize(stride * static_cast<size_t>((b.height + 1) & ~1));
#if J2K_HT_HAVE_AVX2
  if (avx2) return estimate ? gather_rows_avx2<true>(b, plane, stride, s.quads.data()) : gather_rows_avx2<false>(b, plane, stride, s.quads.data());
#endif
  (void)avx2;
  return estimate ? gather_rows<true>(b, plane, stride, s.quads.data()) : gather_rows<false>(b, plane, stride, s.quads.data());
}

// The magnitudes and signs at plane 0 and in steps, for the refinement passes and the
// distortion estimates; the block's energy.
double gather_magnitudes(const BlockView& b, Scratch& s) {
  const size_t n = static_cast<size_t>(b.width) * static_cast<size_t>(b.height);
  s.mag.resize(n);
  s.neg.resize(n);
  s.steps.resize(n);
  const double step = std::ldexp(1.0, -b.fraction_bits);
  double energy = 0;
  for (int y = 0; y < b.height; ++y)
    for (int x = 0; x < b.width; ++x) {
      const int32_t v = b.data[y * b.stride + x];
      const uint32_t m = v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
      const size_t i = static_cast<size_t>(y) * static_cast<size_t>(b.width) + static_cast<size_t>(x);
      s.mag[i] = m >> b.fraction_bits;
      s.neg[i] = v < 0 ? 1 : 0;
      s.steps[i] = static_cast<double>(m) * step;
      energy += static_cast<double>(m) * static_cast<double>(m);
    }
  return energy / std::ldexp(1.0, 2 * b.fraction_bits);
}

// This thread's scratch, reused from block to block. Fetched once a block through a call: a
// thread_local used in place costs a __tls_get_addr call at each use in a shared library,
// in every loop that touches it.
[[gnu::noinline]] Scratch& thread_scratch() {
  thread_local Scratch s;
  return s;
}

// A cleanup pass at plane 0 (nothing to refine): the block's energy and what the pass
// removes of it, in one pass over the coefficients, nothing stored. Each term is exact in
// double while the magnitudes are below 2^26, and so is each partial sum while the energy is
// below 2^53 units: then the integer sums of gather_quads are the same figures (exact_plane0),
// and this pass is not needed.
struct Plane0Estimate {
  double energy = 0, distortion = 0;
};
bool exact_plane0(const Gathered& g, int fraction_bits, Plane0Estimate& e) {
  if ((g.any >> 25) != 0 || (g.energy >> 53) != 0) return false;
  e.energy = std::ldexp(static_cast<double>(g.energy), -2 - 2 * fraction_bits);
  e.distortion = std::ldexp(static_cast<double>(g.removed), -2 - 2 * fraction_bits);
  return true;
}
Plane0Estimate plane0_estimate(const BlockView& b) {
  Plane0Estimate e;
  const double step = std::ldexp(1.0, -b.fraction_bits), half = b.reversible ? 0.0 : 0.5;
  for (int y = 0; y < b.height; ++y) {
    const int32_t* row = b.data + y * b.stride;
    for (int x = 0; x < b.width; ++x) {
      const int32_t v = row[x];
      const uint32_t m = v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v);
      const double a = static_cast<double>(m) * step;
      const uint32_t mu = m >> b.fraction_bits;
      const double left = a - (static_cast<double>(mu) + half);  // the decoder's error (see reconstruction)
      e.energy += a * a;
      e.distortion += mu != 0 ? a * a - left * left : 0.0;
    }
  }
  return e;
}

// Sizes the streams' buffers for a block of n samples.
void size_streams(Scratch& s, size_t n) {
  const size_t bytes = stream_capacity(n);
  for (std::vector<uint8_t>* v : {&s.magsgn, &s.vlc, &s.sigprop, &s.magref})
    if (v->size() < bytes) v->resize(bytes);
  if (s.mel.size() < mel_capacity(n)) s.mel.resize(mel_capacity(n));
}

}  // namespace

bool available(HtEncoderPath path) {
  switch (path) {
    case HtEncoderPath::Portable: return true;
    case HtEncoderPath::Avx2:
#if J2K_HT_HAVE_AVX2
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#else
      return false;
#endif
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
  // A cleanup pass at plane 0 has its estimate from the gather (or, for magnitudes too large
  // for its integer sums, one more pass over the block); refinement passes and their
  // estimates need the magnitudes at plane 0 too.
  const bool estimate_plane0 = b.estimate_distortion && plane == 0;
  const Gathered gathered = gather_quads(b, plane, stride, estimate_plane0, avx2, s);
  const CleanupPlan plan = plan_cleanup(gathered.any >> b.fraction_bits, plane);
  out.magnitude_bitplanes = plan.magnitude_bitplanes;
  const bool refine = plane > 0 && plan.bitplanes != 0;
  Plane0Estimate plane0;
  if (refine) {
    out.energy = gather_magnitudes(b, s);
  } else if (b.estimate_distortion) {
    if (!estimate_plane0 || !exact_plane0(gathered, b.fraction_bits, plane0)) plane0 = plane0_estimate(b);
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
  if (b.estimate_distortion && !refine) cleanup.distortion = plane0.distortion;
  if (b.estimate_distortion && refine)
    for (size_t i = 0; i < n; ++i) {
      const uint32_t mu = s.mag[i] >> plane;
      if (mu == 0) continue;
      const double a = s.steps[i];
      cleanup.distortion += squared(a) - squared(a - reconstruction(mu, plane, b.reversible));
    }
  out.passes.push_back(cleanup);
  if (plane == 0) return out;  // no plane below for SigProp and MagRef

  ForwardWriter sigprop(s.sigprop.data());
  BackwardWriter magref(s.magref.data(), BackwardWriter::kMagRef);
  std::vector<size_t> newly, refined;
  RefinementEncoder(b, plane, s).run(sigprop, magref, newly, refined);
  const size_t sp = sigprop.finish_sigprop(), mr = magref.finish_magref();
  // One segment: SigProp forward, then MagRef reversed; a stop after SigProp keeps its bytes.
  const size_t cleanup_end = out.bytes.size();
  out.bytes.resize(cleanup_end + sp + mr);
  std::copy(sigprop.data(), sigprop.data() + sp, out.bytes.begin() + static_cast<ptrdiff_t>(cleanup_end));
  std::reverse_copy(magref.data(), magref.data() + mr, out.bytes.begin() + static_cast<ptrdiff_t>(cleanup_end + sp));
  CodedPass sig_prop;
  sig_prop.end = static_cast<uint32_t>(cleanup_end + sp);
  CodedPass mag_ref;
  mag_ref.end = static_cast<uint32_t>(out.bytes.size());
  mag_ref.terminated = true;
  if (b.estimate_distortion) {
    const double one = reconstruction(1, plane - 1, b.reversible);
    for (size_t i : newly) {
      const double a = s.steps[i];
      sig_prop.distortion += squared(a) - squared(a - one);
    }
    for (size_t i : refined) {
      const double a = s.steps[i];
      mag_ref.distortion += squared(a - reconstruction(s.mag[i] >> plane, plane, b.reversible)) -
                            squared(a - reconstruction(s.mag[i] >> (plane - 1), plane - 1, b.reversible));
    }
  }
  out.passes.push_back(sig_prop);
  out.passes.push_back(mag_ref);
  return out;
}

}  // namespace j2k::codec::ht
