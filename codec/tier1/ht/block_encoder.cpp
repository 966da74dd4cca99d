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

// A quad as the encoder sees it.
struct QuadCode {
  unsigned rho = 0;
  uint32_t v[4] = {};  // 2 * (mu - 1) + sign of each significant sample
  int e[4] = {};       // their exponents
  int e_max = 0;
  int big_u = 0, u = 0;
};

// The U-VLC codeword of u >= 1 (see uvlc_prefix in block_decoder.cpp): the prefix, then the
// suffix and extension, each as (bits, length) with the first bit in bit 0.
struct Uvlc {
  uint32_t prefix = 0, suffix = 0, extension = 0;
  int prefix_length = 0, suffix_length = 0, extension_length = 0;
};
Uvlc uvlc(int u) {
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

struct Scratch {
  std::vector<uint32_t> mag;   // magnitudes at plane 0 (the quantisation index), row by row
  std::vector<uint8_t> neg;
  std::vector<double> steps;   // magnitudes in steps, fraction bits included
  // Padded by one sample all round: 1 significant after cleanup; 2 made significant by SigProp.
  std::vector<uint8_t> sig;
  std::vector<unsigned> rho_above, rho_row;  // by quad, one empty quad either side
  std::vector<uint8_t> e_above, e_row;       // bottom samples' exponents by column, one either side
};

class CleanupEncoder {
 public:
  CleanupEncoder(const BlockView& b, int plane, Scratch& s) : s_(s), w_(b.width), h_(b.height), plane_(plane) {}

  std::vector<uint8_t> run() {
    magsgn_.reserve(static_cast<size_t>(w_) * static_cast<size_t>(h_) * 4);
    const int qw = (w_ + 1) / 2, qh = (h_ + 1) / 2;
    s_.rho_above.assign(static_cast<size_t>(qw) + 2, 0);
    s_.rho_row.assign(static_cast<size_t>(qw) + 2, 0);
    s_.e_above.assign(static_cast<size_t>(w_) + 3, 0);
    s_.e_row.assign(static_cast<size_t>(w_) + 3, 0);
    for (int r = 0; r < qh; ++r) {
      const bool initial = r == 0;
      std::fill(s_.e_row.begin(), s_.e_row.end(), 0);
      unsigned* above = s_.rho_above.data() + 1;
      unsigned* row = s_.rho_row.data() + 1;
      for (int q = 0; q < qw; q += 2) {
        QuadCode pair[2];
        const int count = std::min(2, qw - q);
        for (int i = 0; i < count; ++i) {
          const int k = q + i;
          QuadCode& c = pair[i];
          gather(c, k, r);
          row[k] = c.rho;
          const int cx = initial ? initial_row_context(row[k - 1])
                                 : other_row_context(above[k - 1], above[k], above[k + 1], row[k - 1]);
          int kappa = 1;
          if (!initial && (c.rho & (c.rho - 1)) != 0) {
            const uint8_t* e = s_.e_above.data() + 1 + 2 * k;
            kappa = std::max(1, std::max(std::max(e[-1], e[0]), std::max(e[1], e[2])) - 1);
          }
          c.big_u = std::max(c.e_max, kappa);
          c.u = c.big_u - kappa;
          if (cx == 0) {
            mel_.put(c.rho != 0);
            if (c.rho == 0) continue;
          }
          unsigned top = 0;
          for (int j = 0; j < 4; ++j)
            if (((c.rho >> j) & 1) && c.e[j] == c.big_u) top |= 1u << j;
          const CxtVlcCodeword& cw = encode_cxt_vlc(initial, cx, c.rho, c.u > 0 ? 1 : 0, top);
          if (cw.length == 0) throw Error(ErrorCode::Internal, "HT encoder: no CxtVLC codeword for a quad");
          vlc_.put(cw.codeword, cw.length);
          for (int j = 0; j < 4; ++j)
            if ((c.rho >> j) & 1) {
              const int m = c.big_u - ((cw.e_k >> j) & 1);
              magsgn_.put(c.v[j], m);
            }
        }
        put_u(initial, pair[0], count == 2 ? &pair[1] : nullptr);
      }
      std::swap(s_.rho_above, s_.rho_row);
      std::swap(s_.e_above, s_.e_row);
    }
    std::vector<uint8_t> out;
    if (!assemble_cleanup(magsgn_.finish_magsgn(), mel_, vlc_, out))
      throw Error(ErrorCode::Internal, "HT encoder: MEL and VLC outgrow the cleanup segment's length field");
    return out;
  }

 private:
  void gather(QuadCode& c, int q, int r) {
    for (int j = 0; j < 4; ++j) {
      const int x = 2 * q + (j >> 1), y = 2 * r + (j & 1);
      if (x >= w_ || y >= h_) continue;
      const size_t i = static_cast<size_t>(y) * static_cast<size_t>(w_) + static_cast<size_t>(x);
      const uint32_t mu = s_.mag[i] >> plane_;
      if (mu == 0) continue;
      c.rho |= 1u << j;
      c.v[j] = 2 * (mu - 1) + s_.neg[i];
      c.e[j] = bit_length(2 * (mu - 1) + 1);
      c.e_max = std::max(c.e_max, c.e[j]);
      if (j & 1) s_.e_row[static_cast<size_t>(x) + 1] = static_cast<uint8_t>(c.e[j]);
    }
  }

  // The u of a quad pair, as decode_u() reads them.
  void put_u(bool initial, const QuadCode& a, const QuadCode* b) {
    const int ua = a.u, ub = b ? b->u : 0;
    if (initial && ua > 0 && ub > 0) {
      mel_.put(std::min(ua, ub) > 2);
      if (ua > 2 && ub > 2) {
        put_pair(uvlc(ua - 2), uvlc(ub - 2));
      } else if (ua > 2) {
        const Uvlc ca = uvlc(ua);
        vlc_.put(ca.prefix, ca.prefix_length);
        vlc_.put(static_cast<uint32_t>(ub - 1), 1);
        vlc_.put(ca.suffix, ca.suffix_length);
        vlc_.put(ca.extension, ca.extension_length);
      } else {
        put_pair(uvlc(ua), uvlc(ub));
      }
      return;
    }
    put_pair(ua > 0 ? uvlc(ua) : Uvlc{}, ub > 0 ? uvlc(ub) : Uvlc{});
  }
  void put_pair(const Uvlc& a, const Uvlc& b) {
    vlc_.put(a.prefix, a.prefix_length);
    vlc_.put(b.prefix, b.prefix_length);
    vlc_.put(a.suffix, a.suffix_length);
    vlc_.put(b.suffix, b.suffix_length);
    vlc_.put(a.extension, a.extension_length);
    vlc_.put(b.extension, b.extension_length);
  }

  Scratch& s_;
  int w_, h_, plane_;
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
  thread_local Scratch s;
  const size_t n = static_cast<size_t>(b.width) * static_cast<size_t>(b.height);
  s.mag.resize(n);
  s.neg.resize(n);
  s.steps.resize(n);
  CodedBlock out;
  const double unit = std::ldexp(1.0, 2 * b.fraction_bits), step = std::ldexp(1.0, -b.fraction_bits);
  uint32_t any = 0;
  for (int y = 0; y < b.height; ++y)
    for (int x = 0; x < b.width; ++x) {
      const int32_t v = b.data[y * b.stride + x];
      const uint32_t m = static_cast<uint32_t>(std::llabs(static_cast<long long>(v)));
      const size_t i = static_cast<size_t>(y) * static_cast<size_t>(b.width) + static_cast<size_t>(x);
      s.mag[i] = m >> b.fraction_bits;
      s.neg[i] = v < 0 ? 1 : 0;
      s.steps[i] = static_cast<double>(m) * step;
      any |= s.mag[i];
      out.energy += static_cast<double>(m) * static_cast<double>(m);
    }
  out.energy /= unit;
  out.magnitude_bitplanes = bit_length(any);
  const int plane = b.cleanup_plane;
  if (plane < 0 || plane > 30)
    throw Error(ErrorCode::InvalidArgument, "HT encoder: a cleanup pass at bit plane " + std::to_string(plane) + " (0 to 30)");
  if ((any >> plane) == 0) return out;  // nothing significant at that plane: no pass
  out.bitplanes = plane + 1;  // no placeholder passes: Tier-2 signals Mb - plane - 1 missing MSBs
  out.bytes = CleanupEncoder(b, plane, s).run();
  CodedPass cleanup;
  cleanup.end = static_cast<uint32_t>(out.bytes.size());
  cleanup.terminated = true;
  if (b.estimate_distortion)
    for (size_t i = 0; i < n; ++i) {
      const uint32_t mu = s.mag[i] >> plane;
      if (mu == 0) continue;
      const double a = s.steps[i];
      cleanup.distortion += squared(a) - squared(a - reconstruction(mu, plane, b.reversible));
    }
  out.passes.push_back(cleanup);
  if (plane == 0) return out;  // no plane below for SigProp and MagRef

  ForwardWriter sigprop;
  BackwardWriter magref(BackwardWriter::kMagRef);
  std::vector<size_t> newly, refined;
  RefinementEncoder(b, plane, s).run(sigprop, magref, newly, refined);
  const std::vector<uint8_t>& sp = sigprop.finish_sigprop();
  const std::vector<uint8_t>& mr = magref.finish_magref();
  // One segment: SigProp forward, then MagRef reversed; a stop after SigProp keeps its bytes.
  out.bytes.insert(out.bytes.end(), sp.begin(), sp.end());
  CodedPass sig_prop;
  sig_prop.end = static_cast<uint32_t>(out.bytes.size());
  out.bytes.insert(out.bytes.end(), mr.rbegin(), mr.rend());
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
