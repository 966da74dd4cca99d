// SPDX-License-Identifier: BSD-2-Clause
// What an HT set adds to its cleanup pass when rate control asks for it (block_encoder.hpp):
// the SigProp and MagRef passes at p - 1 below a cleanup pass at plane p (Part 15 clauses 7.4,
// 7.5, the decoder's rules mirrored), and each pass's distortion figure, the squared error it
// removes in steps^2. One code for the CPU's coder (block_encoder.cpp) and the GPU's
// (gpu/cuda/ht_block_encoder.cu, one thread of the warp that coded the cleanup pass), so that
// the GPU's bytes and figures are the CPU's bit for bit: the same bits into the same writers
// (bit_writers.hpp), the same sums of doubles in the same order (no contraction: the codec is
// built -ffp-contract=off, its CUDA -fmad=false).
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/ht/bit_writers.hpp"
#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "codec/tier1/ht/host_device.hpp"

namespace j2k::codec::ht {

// A block's quantisation indices as BlockView holds them: a signed index << fraction_bits
// (plus its fraction bits), rows `stride` values apart.
struct IndexBlock {
  const int32_t* data = nullptr;
  ptrdiff_t stride = 0;
  int width = 0, height = 0, fraction_bits = 0;
  double step = 1;  // 2^-fraction_bits (index_block() sets both)

  J2K_HD int32_t at(int x, int y) const { return data[static_cast<ptrdiff_t>(y) * stride + x]; }
  // |index|: the magnitude's bits from plane 0 up.
  J2K_HD uint32_t index(int x, int y) const { return magnitude_of(at(x, y)) >> fraction_bits; }
  // The magnitude in steps, fraction bits included: exact (an integer times a power of 2, the
  // same double as its quotient by 2^fraction_bits).
  J2K_HD double steps(int x, int y) const { return static_cast<double>(magnitude_of(at(x, y))) * step; }
};

J2K_HD inline IndexBlock index_block(const int32_t* data, ptrdiff_t stride, int width, int height, int fraction_bits) {
  IndexBlock b;
  b.data = data;
  b.stride = stride;
  b.width = width;
  b.height = height;
  b.fraction_bits = fraction_bits;
  b.step = 1 / static_cast<double>(uint64_t{1} << fraction_bits);
  return b;
}

// The worst case of a block's SigProp and MagRef bytes, n samples: SigProp at most 2 bits a
// sample (its significance and sign), MagRef 1, one bit in 7 stuffed at worst, and the
// 4 bytes a writer stores past its end.
J2K_HD constexpr size_t sigprop_capacity(size_t samples) { return samples / 2 + 64; }
J2K_HD constexpr size_t magref_capacity(size_t samples) { return samples / 4 + 64; }
// The significance map the refinement passes keep: the block with a border of one sample.
J2K_HD constexpr size_t significance_bytes(int width, int height) {
  return static_cast<size_t>(width + 2) * static_cast<size_t>(height + 2);
}

// The magnitude, in steps, that a decoder gives a coefficient whose index is known down to
// plane p as mu: the middle of its interval, or, for the 5/3 at plane 0, the index itself
// (the reversible dequantiser halves the decoder's 2 * mu + 1 towards 0); 0 for mu = 0.
J2K_HD inline double reconstruction(uint32_t mu, int p, bool reversible) {
  if (mu == 0) return 0;
  if (reversible && p == 0) return static_cast<double>(mu);
  return (static_cast<double>(mu) + 0.5) * static_cast<double>(uint64_t{1} << p);
}

// The block's energy in steps^2, the squares of its magnitudes summed row by row in doubles,
// then scaled: what a set coded above plane 0 reports.
J2K_HD inline double index_energy(const IndexBlock& b) {
  double energy = 0;
  for (int y = 0; y < b.height; ++y)
    for (int x = 0; x < b.width; ++x) {
      const auto m = static_cast<double>(magnitude_of(b.at(x, y)));
      energy += m * m;
    }
  return energy / static_cast<double>(uint64_t{1} << (2 * b.fraction_bits));
}

// What a cleanup pass at `plane` removes, row by row.
J2K_HD inline double cleanup_removed(const IndexBlock& b, int plane, bool reversible) {
  double removed = 0;
  for (int y = 0; y < b.height; ++y)
    for (int x = 0; x < b.width; ++x) {
      const uint32_t mu = b.index(x, y) >> plane;
      if (mu == 0) continue;
      const double a = b.steps(x, y), left = a - reconstruction(mu, plane, reversible);
      removed += a * a - left * left;
    }
  return removed;
}

// A cleanup pass at plane 0 (nothing to refine): the block's energy and what the pass removes
// of it. Exact from integer sums where they fit (exact_plane0), else summed in doubles.
struct Plane0Estimate {
  double energy = 0, distortion = 0;
};

// The integer sums, in units of 2^-(2 fraction bits + 2): the energy, sum of 4 m^2, and what
// the pass removes, sum over mu > 0 of 4 m^2 - (2 m - (2 mu + 1) 2^fraction_bits)^2 (2 mu for
// the 5/3). Each term is exact in 64 bits while every magnitude is below 2^25, and so are the
// sums, of at most 4096 terms. `any`: the OR of every magnitude.
struct Plane0Sums {
  uint32_t any = 0;
  uint64_t energy = 0, removed = 0;
};
J2K_HD inline void add_plane0_sample(Plane0Sums& s, uint32_t m, int fraction_bits, bool reversible) {
  const uint32_t mu = m >> fraction_bits;
  const auto error = static_cast<int32_t>(2 * m - ((2 * mu + (reversible ? 0u : 1u)) << fraction_bits));
  const uint64_t square = 4 * (static_cast<uint64_t>(m) * m);
  s.any |= m;
  s.energy += square;
  s.removed += mu != 0 ? square - static_cast<uint64_t>(static_cast<int64_t>(error) * error) : 0;
}
// The sums as doubles where they are exact (every magnitude below 2^25, the energy below 2^53
// units: then the doubles' sums below are the same figures).
J2K_HD inline bool exact_plane0(const Plane0Sums& s, int fraction_bits, Plane0Estimate& e) {
  if ((s.any >> 25) != 0 || (s.energy >> 53) != 0) return false;
  const auto unit = static_cast<double>(uint64_t{1} << (2 + 2 * fraction_bits));
  e.energy = static_cast<double>(s.energy) / unit;
  e.distortion = static_cast<double>(s.removed) / unit;
  return true;
}
// The same in doubles, sample by sample, row by row.
J2K_HD inline Plane0Estimate plane0_estimate(const IndexBlock& b, bool reversible) {
  Plane0Estimate e;
  const double half = reversible ? 0.0 : 0.5;
  for (int y = 0; y < b.height; ++y)
    for (int x = 0; x < b.width; ++x) {
      const double a = b.steps(x, y);
      const uint32_t mu = b.index(x, y);
      const double left = a - (static_cast<double>(mu) + half);  // the decoder's error (see reconstruction)
      e.energy += a * a;
      e.distortion += mu != 0 ? a * a - left * left : 0.0;
    }
  return e;
}

// The refinement passes' bytes (SigProp's in the order they go into the segment, MagRef's in
// the order written: the segment holds them reversed) and, where asked, their distortions.
struct Refinement {
  size_t sigprop_bytes = 0, magref_bytes = 0;
  double sigprop_removed = 0, magref_removed = 0;
};

// SigProp and MagRef at plane - 1 after a cleanup pass at `plane` (above 0) into `sigprop`
// (sigprop_capacity bytes) and `magref` (magref_capacity), with `sig` (significance_bytes) for
// the map. SigProp visits the samples still insignificant with a significant neighbour (one
// made significant earlier in this pass counts), stripe by stripe of 4 rows, in groups of 4
// columns, each group's significance bits then the signs of its new significant samples;
// MagRef gives every sample significant after the cleanup its bit at plane - 1. `causal`
// (the stripe-causal mode) hides the next stripe from SigProp's neighbourhoods. Each pass's
// distortion is summed in the order it visits the samples. `map_ready`: `sig` holds the map
// after the cleanup pass already (significance_map's; the GPU's warp makes it side by side).
J2K_HD inline void significance_map(const IndexBlock& b, int plane, uint8_t* sig) {
  const int row = b.width + 2;
  zero_bytes(sig, significance_bytes(b.width, b.height));
  for (int y = 0; y < b.height; ++y)
    for (int x = 0; x < b.width; ++x) sig[static_cast<ptrdiff_t>(y + 1) * row + (x + 1)] = (b.index(x, y) >> plane) != 0 ? 1 : 0;
}
J2K_HD inline Refinement encode_refinement(const IndexBlock& b, int plane, bool reversible, bool causal, bool estimate,
                                           uint8_t* sig, uint8_t* sigprop_out, uint8_t* magref_out, bool map_ready = false) {
  const int w = b.width, h = b.height, p = plane - 1;
  const int row = w + 2;
  auto padded = [row](int x, int y) { return static_cast<ptrdiff_t>(y + 1) * row + (x + 1); };
  // 1: significant after the cleanup pass; 2: made significant by SigProp.
  if (!map_ready) significance_map(b, plane, sig);
  Refinement r;
  ForwardWriter sigprop(sigprop_out);
  BackwardWriter magref(magref_out, BackwardWriter::kMagRef);
  const double one = reconstruction(1, p, reversible);
  for (int y0 = 0; y0 < h; y0 += 4) {
    const int y1 = min_of(y0 + 4, h);
    for (int x0 = 0; x0 < w; x0 += 4) {
      const int x1 = min_of(x0 + 4, w);
      uint8_t newly[16];  // this group's new significant samples, (x - x0) * 4 + (y - y0)
      int count = 0;
      for (int x = x0; x < x1; ++x)
        for (int y = y0; y < y1; ++y) {
          const uint8_t* c = sig + padded(x, y);
          if (*c) continue;
          const uint8_t* up = c - row;
          const uint8_t* down = c + row;
          const bool below = !causal || y + 1 < y1;
          if ((up[-1] | up[0] | up[1] | c[-1] | c[1]) == 0 && (!below || (down[-1] | down[0] | down[1]) == 0)) continue;
          const uint32_t bit = (b.index(x, y) >> p) & 1;
          sigprop.put(bit, 1);
          if (bit) {
            sig[padded(x, y)] = 2;
            newly[count++] = static_cast<uint8_t>((x - x0) * 4 + (y - y0));
            if (estimate) {
              const double a = b.steps(x, y), left = a - one;
              r.sigprop_removed += a * a - left * left;
            }
          }
        }
      for (int k = 0; k < count; ++k) sigprop.put(sign_of(b.at(x0 + newly[k] / 4, y0 + newly[k] % 4)), 1);
    }
  }
  for (int y0 = 0; y0 < h; y0 += 4) {
    const int y1 = min_of(y0 + 4, h);
    for (int x = 0; x < w; ++x)
      for (int y = y0; y < y1; ++y) {
        if (sig[padded(x, y)] != 1) continue;
        const uint32_t mu = b.index(x, y);
        magref.put((mu >> p) & 1, 1);
        if (estimate) {
          const double a = b.steps(x, y);
          const double before = a - reconstruction(mu >> plane, plane, reversible), after = a - reconstruction(mu >> p, p, reversible);
          r.magref_removed += before * before - after * after;
        }
      }
  }
  r.sigprop_bytes = sigprop.finish_sigprop();
  r.magref_bytes = magref.finish_magref();
  return r;
}

}  // namespace j2k::codec::ht
