// SPDX-License-Identifier: BSD-2-Clause
// What an HT cleanup pass at each bit plane would cost and gain, without coding it: the
// first guess of HT rate control (rate/ht_planes.hpp), which then codes only a few planes
// around the guess. The gain is exact (the decoder's reconstruction against the
// coefficients, as ht::encode_block reports it); the bytes come from a model of the cleanup
// pass: each significant sample costs about its quad's exponent bound U in MagSgn bits (its
// magnitude and sign), each significant quad a few VLC bits (its CxtVLC codeword and U-VLC),
// each quad without a significant sample a fraction of a MEL bit. Host and device code
// (host_device.hpp): the GPU's batch (gpu/cuda/ht_image_encoder.cu) makes the same figures,
// bit for bit, with the same sums in the same order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "codec/tier1/block_coder.hpp"
#include "codec/tier1/ht/cleanup_encoder.hpp"
#include "codec/tier1/ht/host_device.hpp"
#include "codec/tier1/ht/quad_rules.hpp"

namespace j2k::codec::ht {

struct PlaneEstimate {
  double bytes = 0;    // of the cleanup pass at this plane, modelled
  double removed = 0;  // squared error it removes from the block's, in steps^2 (exact)
};

// The most planes a block's indices have (each below 2^31).
inline constexpr int kMaxEstimatedPlanes = 32;

// The model's VLC and MEL costs in bits (a CxtVLC codeword is 1 to 7 bits, most often 3 or
// 4, a U-VLC 1 to 3 in the usual range; MEL codes long runs of empty quads in a bit or less).
inline constexpr double kSignificantQuadBits = 5;
inline constexpr double kEmptyQuadBits = 0.4;

// The quad at (x0, y0) of the block, its samples within the block in order (column by
// column): their indices q and magnitudes in steps a (`step` = 2^-fraction_bits); how many.
J2K_HD inline int quad_of(const int32_t* data, ptrdiff_t stride, int width, int height, int fraction_bits, double step, int x0, int y0,
                          uint32_t (&q)[4], double (&a)[4]) {
  int n = 0;
  for (int j = 0; j < 4; ++j) {
    const int x = x0 + (j >> 1), y = y0 + (j & 1);
    if (x >= width || y >= height) continue;
    const uint32_t m = magnitude_of(data[static_cast<ptrdiff_t>(y) * stride + x]);
    q[n] = m >> fraction_bits;
    a[n] = static_cast<double>(m) * step;
    ++n;
  }
  return n;
}

// The estimates of the width x height block data[y * stride + x] (indices << fraction_bits,
// as BlockView holds them) into out[p] for the cleanup pass at plane p, 0 to the block's
// magnitude bit planes less 1, which it returns (0 for a block of zeros).
J2K_HD inline int estimate_planes(const int32_t* data, ptrdiff_t stride, int width, int height, int fraction_bits,
                                  bool reversible, PlaneEstimate* out) {
  uint32_t any = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) any |= magnitude_of(data[static_cast<ptrdiff_t>(y) * stride + x]) >> fraction_bits;
  const int planes = bit_length(any);
  double bits[kMaxEstimatedPlanes];
  double scale[kMaxEstimatedPlanes];  // 2^p
  for (int p = 0; p < planes; ++p) {
    out[p] = PlaneEstimate{};
    bits[p] = 0;
    scale[p] = static_cast<double>(uint64_t{1} << p);
  }
  const double unit = static_cast<double>(uint64_t{1} << fraction_bits);
  const double step = 1 / unit;
  for (int y0 = 0; y0 < height; y0 += 2)
    for (int x0 = 0; x0 < width; x0 += 2) {
      uint32_t q[4] = {0, 0, 0, 0};
      double a[4] = {0, 0, 0, 0};
      const int n = quad_of(data, stride, width, height, fraction_bits, step, x0, y0, q, a);
      for (int p = 0; p < planes; ++p) {
        int significant = 0, big_u = 0;
        if (((q[0] | q[1] | q[2] | q[3]) >> p) == 0) {  // the quad and every plane above: empty
          for (int r = p; r < planes; ++r) bits[r] += kEmptyQuadBits;
          break;
        }
        for (int j = 0; j < n; ++j) {
          const uint32_t mu = q[j] >> p;
          if (mu == 0) continue;
          ++significant;
          big_u = max_of(big_u, bit_length(2 * (mu - 1) + 1));
          // The decoder's reconstruction: the interval's middle, the index for the 5/3 at 0.
          const double r = reversible && p == 0 ? static_cast<double>(mu) : (static_cast<double>(mu) + 0.5) * scale[p];
          out[p].removed += a[j] * a[j] - (a[j] - r) * (a[j] - r);
        }
        bits[p] += significant > 0 ? significant * big_u + kSignificantQuadBits : kEmptyQuadBits;
      }
    }
  for (int p = 0; p < planes; ++p) out[p].bytes = bits[p] / 8 + 2;  // + Scup
  return planes;
}

// The same figures for one plane p below `planes` (estimate_planes's count), summed over the
// quads in the same order, so that they are estimate_planes's out[p] bit for bit: the GPU's
// model gives each plane a lane of its own (each plane's sums are independent of the others').
J2K_HD inline PlaneEstimate estimate_plane(const int32_t* data, ptrdiff_t stride, int width, int height, int fraction_bits,
                                           bool reversible, int p) {
  PlaneEstimate out;
  double bits = 0;
  const double scale = static_cast<double>(uint64_t{1} << p);
  const double step = 1 / static_cast<double>(uint64_t{1} << fraction_bits);
  for (int y0 = 0; y0 < height; y0 += 2)
    for (int x0 = 0; x0 < width; x0 += 2) {
      uint32_t q[4] = {0, 0, 0, 0};
      double a[4] = {0, 0, 0, 0};
      const int n = quad_of(data, stride, width, height, fraction_bits, step, x0, y0, q, a);
      if (((q[0] | q[1] | q[2] | q[3]) >> p) == 0) {  // empty at p (and so at every plane above)
        bits += kEmptyQuadBits;
        continue;
      }
      int significant = 0, big_u = 0;
      for (int j = 0; j < n; ++j) {
        const uint32_t mu = q[j] >> p;
        if (mu == 0) continue;
        ++significant;
        big_u = max_of(big_u, bit_length(2 * (mu - 1) + 1));
        const double r = reversible && p == 0 ? static_cast<double>(mu) : (static_cast<double>(mu) + 0.5) * scale;
        out.removed += a[j] * a[j] - (a[j] - r) * (a[j] - r);
      }
      bits += significant * big_u + kSignificantQuadBits;
    }
  out.bytes = bits / 8 + 2;
  return out;
}

// The block's energy in steps^2 (its squared error with nothing decoded), sample by sample,
// row by row.
J2K_HD inline double block_energy(const int32_t* data, ptrdiff_t stride, int width, int height, int fraction_bits) {
  const auto unit = static_cast<double>(uint64_t{1} << (2 * fraction_bits));
  double energy = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const auto c = static_cast<double>(data[static_cast<ptrdiff_t>(y) * stride + x]);
      energy += c * c / unit;
    }
  return energy;
}

// estimate_planes of a BlockView, as a vector.
std::vector<PlaneEstimate> plane_estimates(const BlockView& block);

}  // namespace j2k::codec::ht
