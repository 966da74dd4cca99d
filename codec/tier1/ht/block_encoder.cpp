// SPDX-License-Identifier: BSD-2-Clause
#include "codec/tier1/ht/block_encoder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "codec/tier1/ht/bit_writers.hpp"
#include "codec/tier1/ht/quad_rules.hpp"
#include "codec/tier1/ht/vlc_tables.hpp"
#include "common/error.hpp"

namespace j2k::codec::ht {
namespace {

// The U-VLC codeword of u >= 1 (see uvlc_prefix in block_decoder.cpp): the prefix, then the
// suffix and extension, each as (bits, length) with the first bit in bit 0.
struct Uvlc {
  uint32_t prefix = 0, suffix = 0, extension = 0;
  int prefix_length = 0, suffix_length = 0, extension_length = 0;
};
constexpr Uvlc uvlc(int u) {
  Uvlc c;
  if (u == 1) {
    c.prefix = 1, c.prefix_length = 1;
  } else if (u == 2) {
    c.prefix = 2, c.prefix_length = 2;  // 0 then 1
  } else if (u <= 4) {
    c.prefix = 4, c.prefix_length = 3;  // 0, 0, 1
    c.suffix = static_cast<uint32_t>(u - 3), c.suffix_length = 1;
  } else if (u <= 32) {
    c.prefix_length = 3;  // 0, 0, 0
    c.suffix = static_cast<uint32_t>(u - 5), c.suffix_length = 5;
  } else {
    c.prefix_length = 3;
    c.suffix = static_cast<uint32_t>(28 + (u - 33) % 4), c.suffix_length = 5;
    c.extension = static_cast<uint32_t>((u - 33) / 4), c.extension_length = 4;
  }
  return c;
}

// Every u a quad can have (a sample's exponent is at most 32, kappa at least 1), 0 giving the
// empty codeword.
struct UvlcTable {
  Uvlc code[33];
  constexpr UvlcTable() : code() {
    for (int u = 1; u < 33; ++u) code[u] = uvlc(u);
  }
};
constexpr UvlcTable kUvlc;

struct Scratch {
  // The block at the cleanup plane p, a sample as 2 * mu + sign (mu: its magnitude's bits
  // from p up; 0 where mu is 0), rows padded with 0s to whole quad pairs (a multiple of 4
  // samples) and the height to whole quads.
  std::vector<uint32_t> quads;
  std::vector<uint32_t> mag;   // magnitudes at plane 0 (the quantisation index), row by row
  std::vector<uint8_t> neg;
  std::vector<double> steps;   // magnitudes in steps, fraction bits included
  // Padded by one sample all round: 1 significant after cleanup; 2 made significant by SigProp.
  std::vector<uint8_t> sig;
  std::vector<unsigned> rho_above, rho_row;  // by quad, one empty quad either side
  std::vector<uint8_t> e_above, e_row;       // bottom samples' exponents by column, one either side
  std::vector<uint8_t> magsgn, vlc;          // the streams' buffers, stream_capacity() each
  std::vector<uint8_t> sigprop, magref;
};

// A significant sample's exponent E (quad_rules.hpp) from 2 * mu + sign; 0 for mu = 0.
// Branch-free: (2 mu + sign) | 1 less 2 is 2 mu - 1, odd, so never 0 where mu > 0.
inline int exponent(uint32_t twice_mu) {
  const int e = 32 - __builtin_clz(((twice_mu | 1) - 2) | 1);
  return twice_mu > 1 ? e : 0;
}

// The low n bits set (n <= 32).
inline uint32_t low_bits(int n) { return static_cast<uint32_t>((uint64_t{1} << n) - 1); }

// The cleanup pass (Part 15 clause 7.3) over Scratch::quads: quad by quad, two line-pairs at a
// time (each quad's significance and exponent bound in MEL, CxtVLC and U-VLC; its magnitude
// and sign bits in MagSgn), quads paired for their U-VLC codes.
class CleanupEncoder {
 public:
  CleanupEncoder(int width, int height, Scratch& s)
      : s_(s), w_(width), h_(height), stride_((width + 3) & ~3),
        magsgn_(s.magsgn.data()), vlc_(s.vlc.data(), BackwardWriter::kVlc) {}

  std::vector<uint8_t> run() {
    const int qw = (w_ + 1) / 2, qh = (h_ + 1) / 2;
    s_.rho_above.assign(static_cast<size_t>(qw) + 3, 0);
    s_.rho_row.assign(static_cast<size_t>(qw) + 3, 0);
    s_.e_above.assign(static_cast<size_t>(stride_) + 4, 0);
    s_.e_row.assign(static_cast<size_t>(stride_) + 4, 0);
    for (int r = 0; r < qh; ++r) {
      if (r == 0) line_pair<true>(0, qw);
      else line_pair<false>(r, qw);
      std::swap(s_.rho_above, s_.rho_row);
      std::swap(s_.e_above, s_.e_row);
    }
    std::vector<uint8_t> out;
    if (!assemble_cleanup(magsgn_, mel_, vlc_, out))
      throw Error(ErrorCode::Internal, "HT encoder: MEL and VLC outgrow the cleanup segment's length field");
    return out;
  }

 private:
  // The quads of line-pair r (rows 2r and 2r + 1), in pairs.
  template <bool kInitial>
  void line_pair(int r, int qw) {
    const uint32_t* top = s_.quads.data() + static_cast<size_t>(2 * r) * static_cast<size_t>(stride_);
    const uint32_t* bottom = top + stride_;
    const unsigned* above = s_.rho_above.data() + 1;
    unsigned* row = s_.rho_row.data() + 1;
    const uint8_t* e_above = s_.e_above.data() + 1;
    uint8_t* e_row = s_.e_row.data() + 1;
    const CxtVlcCodeword* table = cxt_vlc_encode_table(kInitial);
    for (int q = 0; q < qw; q += 2) {
      int u[2] = {0, 0};
      const int count = std::min(2, qw - q);
      for (int i = 0; i < count; ++i) {
        const int k = q + i, x = 2 * k;
        const uint32_t m[4] = {top[x], bottom[x], top[x + 1], bottom[x + 1]};
        const int e[4] = {exponent(m[0]), exponent(m[1]), exponent(m[2]), exponent(m[3])};
        const unsigned rho = (m[0] > 1 ? 1u : 0u) | (m[1] > 1 ? 2u : 0u) | (m[2] > 1 ? 4u : 0u) | (m[3] > 1 ? 8u : 0u);
        row[k] = rho;
        e_row[x] = static_cast<uint8_t>(e[1]);
        e_row[x + 1] = static_cast<uint8_t>(e[3]);
        const int e_max = std::max(std::max(e[0], e[1]), std::max(e[2], e[3]));
        const int cx = kInitial ? initial_row_context(row[k - 1]) : other_row_context(above[k - 1], above[k], above[k + 1], row[k - 1]);
        int kappa = 1;
        if (!kInitial) {
          const int e_near = std::max(std::max(e_above[x - 1], e_above[x]), std::max(e_above[x + 1], e_above[x + 2]));
          kappa = (rho & (rho - 1)) != 0 ? std::max(1, e_near - 1) : 1;
        }
        const int big_u = std::max(e_max, kappa);
        u[i] = big_u - kappa;
        // Context 0: MEL says whether the quad is significant; an insignificant one sends no
        // codeword (and no bits).
        if (cx == 0) mel_.put(rho != 0);
        const unsigned at_bound =
            (e[0] == big_u ? 1u : 0u) | (e[1] == big_u ? 2u : 0u) | (e[2] == big_u ? 4u : 0u) | (e[3] == big_u ? 8u : 0u);
        const CxtVlcCodeword& cw = table[(static_cast<unsigned>(cx) * 16 + rho) * 17 + (u[i] > 0 ? 1 + at_bound : 0)];
        vlc_.put(cw.codeword, (cx | rho) != 0 ? cw.length : 0);
        // Each significant sample's bits below those the codeword gives; none for the others
        // (branch-free: which samples are significant is what the coder cannot predict).
        uint32_t v[4];
        int bits[4];
        for (int j = 0; j < 4; ++j) {
          bits[j] = ((rho >> j) & 1) ? big_u - ((cw.e_k >> j) & 1) : 0;
          v[j] = (m[j] - 2) & low_bits(bits[j]);
        }
        if (big_u <= 8) {  // the quad's bits in one word
          magsgn_.put(v[0] | v[1] << bits[0] | v[2] << (bits[0] + bits[1]) | v[3] << (bits[0] + bits[1] + bits[2]),
                      bits[0] + bits[1] + bits[2] + bits[3]);
        } else if (big_u <= 16) {  // two samples' in one
          magsgn_.put(v[0] | v[1] << bits[0], bits[0] + bits[1]);
          magsgn_.put(v[2] | v[3] << bits[2], bits[2] + bits[3]);
        } else {
          for (int j = 0; j < 4; ++j) magsgn_.put(v[j], bits[j]);
        }
      }
      put_u<kInitial>(u[0], u[1]);
    }
  }

  // The u of a quad pair, as decode_u() reads them (0: none coded).
  template <bool kInitial>
  void put_u(int ua, int ub) {
    if (kInitial && ua > 0 && ub > 0) {
      mel_.put(std::min(ua, ub) > 2);
      if (ua > 2 && ub > 2) {
        put_pair(kUvlc.code[ua - 2], kUvlc.code[ub - 2]);
      } else if (ua > 2) {
        const Uvlc& ca = kUvlc.code[ua];
        vlc_.put(ca.prefix, ca.prefix_length);
        vlc_.put(static_cast<uint32_t>(ub - 1), 1);
        vlc_.put(ca.suffix, ca.suffix_length);
        vlc_.put(ca.extension, ca.extension_length);
      } else {
        put_pair(kUvlc.code[ua], kUvlc.code[ub]);
      }
      return;
    }
    put_pair(kUvlc.code[ua], kUvlc.code[ub]);
  }
  // Both prefixes, both suffixes, both extensions: at most 24 bits, one put (none for u = 0).
  void put_pair(const Uvlc& a, const Uvlc& b) {
    uint32_t bits = a.prefix;
    int n = a.prefix_length;
    for (const auto& [value, length] : {std::pair{b.prefix, b.prefix_length}, std::pair{a.suffix, a.suffix_length},
                                        std::pair{b.suffix, b.suffix_length}, std::pair{a.extension, a.extension_length},
                                        std::pair{b.extension, b.extension_length}}) {
      bits |= value << n;
      n += length;
    }
    vlc_.put(bits, n);
  }

  Scratch& s_;
  int w_, h_, stride_;
  ForwardWriter magsgn_;
  MelEncoder mel_;
  BackwardWriter vlc_;
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

// Fills s.quads with the block at `plane` (Scratch says how); returns the OR of every
// magnitude.
uint32_t gather_quads(const BlockView& b, int plane, Scratch& s) {
  const int width = b.width, height = b.height, shift = b.fraction_bits + plane;
  const size_t stride = static_cast<size_t>((width + 3) & ~3), rows = static_cast<size_t>((height + 1) & ~1);
  s.quads.resize(stride * rows);
  uint32_t any = 0;
  for (int y = 0; y < height; ++y) {
    const int32_t* __restrict in = b.data + y * b.stride;
    uint32_t* __restrict out = s.quads.data() + static_cast<size_t>(y) * stride;
    for (int x = 0; x < width; ++x) {  // branch-free, for the vectoriser
      const int32_t v = in[x];
      const uint32_t sign = static_cast<uint32_t>(v) >> 31;
      const uint32_t m = (static_cast<uint32_t>(v) ^ (0u - sign)) + sign;
      any |= m;
      const uint32_t mu = m >> shift;
      out[x] = (mu << 1) | (mu != 0 ? sign : 0u);
    }
    for (size_t x = static_cast<size_t>(width); x < stride; ++x) out[x] = 0;
  }
  if (rows > static_cast<size_t>(height)) std::fill(s.quads.end() - static_cast<ptrdiff_t>(stride), s.quads.end(), 0u);
  return any >> b.fraction_bits;
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
// removes of it, in one pass over the coefficients, nothing stored.
struct Plane0Estimate {
  double energy = 0, distortion = 0;
};
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
}

}  // namespace

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
  const int plane = b.cleanup_plane;
  if (plane < 0 || plane > 30)
    throw Error(ErrorCode::InvalidArgument, "HT encoder: a cleanup pass at bit plane " + std::to_string(plane) + " (0 to 30)");
  Scratch& s = thread_scratch();
  const size_t n = static_cast<size_t>(b.width) * static_cast<size_t>(b.height);
  CodedBlock out;
  const uint32_t any = gather_quads(b, plane, s);
  out.magnitude_bitplanes = bit_length(any);
  // Refinement passes and their distortion estimates need the magnitudes at plane 0 too; a
  // cleanup pass at plane 0 alone has its estimate from one pass over the block.
  const bool refine = plane > 0 && (any >> plane) != 0;
  Plane0Estimate plane0;
  if (refine) out.energy = gather_magnitudes(b, s);
  else if (b.estimate_distortion) plane0 = plane0_estimate(b), out.energy = plane0.energy;
  if ((any >> plane) == 0) return out;  // nothing significant at that plane: no pass
  if (plane == 0 && (any >> 31) != 0)
    throw Error(ErrorCode::InvalidArgument, "HT encoder: a coefficient of 2^31 steps (at most 2^31 - 1)");
  size_streams(s, n);
  out.bitplanes = plane + 1;  // no placeholder passes: Tier-2 signals Mb - plane - 1 missing MSBs
  out.bytes = CleanupEncoder(b.width, b.height, s).run();
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
