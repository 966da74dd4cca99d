// SPDX-License-Identifier: BSD-2-Clause
// The HT SigProp and MagRef passes at plane p - 1 (ISO/IEC 15444-15 clauses 7.4, 7.5), after
// a cleanup pass at p has written the block: one implementation for the block decoder (over
// its word readers) and the reference decoder (over its byte readers), which differ only in
// how they read the bits. SigProp visits, stripe by stripe of 4 rows and in groups of 4
// columns, the samples still insignificant with a significant neighbour (one made significant
// earlier in this pass counts; with the stripe-causal mode the stripe below is unseen), each
// group's significance bits then the signs of its new samples; MagRef gives every sample the
// cleanup made significant its bit at p - 1, stripe by stripe, column by column. Host and
// device code (host_device.hpp), for device_block_decoder.hpp too.
#pragma once
#include <cstddef>
#include <cstdint>

#include "codec/tier1/ht/host_device.hpp"

namespace j2k::codec::ht {

class RefinementDecoder {
 public:
  // The width x height block at out[y * stride + x] after its cleanup pass at `plane` (> 0);
  // `sig`: width * height bytes of the caller's, for the significance.
  J2K_HD RefinementDecoder(int width, int height, int plane, bool causal, int32_t* out, ptrdiff_t stride, uint8_t* sig)
      : w_(width), h_(height), p_(plane - 1), plane_(plane), causal_(causal), out_(out), stride_(stride), sig_(sig) {
    for (int y = 0; y < h_; ++y)
      for (int x = 0; x < w_; ++x) sig_[y * w_ + x] = out_[y * stride_ + x] != 0 ? 1 : 0;
  }

  // Reader: take(n), the next n bits (ForwardBits or ForwardWordReader).
  template <class Reader>
  J2K_HD void significance_propagation(Reader& bits) {
    int newly[16][2];
    for (int y0 = 0; y0 < h_; y0 += 4) {
      const int y1 = min_of(y0 + 4, h_);
      for (int x0 = 0; x0 < w_; x0 += 4) {
        const int x1 = min_of(x0 + 4, w_);
        int count = 0;
        for (int x = x0; x < x1; ++x)
          for (int y = y0; y < y1; ++y) {
            if (sig(x, y) || !neighbour_significant(x, y, causal_ ? y1 : h_)) continue;
            if (bits.take(1)) {
              sig_[y * w_ + x] = 2;
              newly[count][0] = x;
              newly[count][1] = y;
              ++count;
            }
          }
        // The signs of the group's new coefficients follow its significance bits.
        for (int i = 0; i < count; ++i) {
          const int32_t v = 3 * (int32_t{1} << p_);
          out_[newly[i][1] * stride_ + newly[i][0]] = bits.take(1) ? -v : v;
        }
      }
    }
  }

  // Reader: BackwardBits or BackwardWordReader, over the same segment read from its end.
  template <class Reader>
  J2K_HD void magnitude_refinement(Reader& bits) {
    for (int y0 = 0; y0 < h_; y0 += 4) {
      const int y1 = min_of(y0 + 4, h_);
      for (int x = 0; x < w_; ++x)
        for (int y = y0; y < y1; ++y) {
          if (sig_[y * w_ + x] != 1) continue;
          int32_t& v = out_[y * stride_ + x];
          const int32_t m = v < 0 ? -v : v;
          const int32_t refined = m - (int32_t{1} << plane_) + ((2 * static_cast<int32_t>(bits.take(1)) + 1) << p_);
          v = v < 0 ? -refined : refined;
        }
    }
  }

 private:
  J2K_HD bool sig(int x, int y) const { return sig_[y * w_ + x] != 0; }
  // Whether any of the 8 neighbours is significant now; rows from `below_end` on are unseen.
  J2K_HD bool neighbour_significant(int x, int y, int below_end) const {
    for (int dy = -1; dy <= 1; ++dy) {
      const int yy = y + dy;
      if (yy < 0 || yy >= h_ || yy >= below_end) continue;
      for (int dx = -1; dx <= 1; ++dx) {
        const int xx = x + dx;
        if ((dx || dy) && xx >= 0 && xx < w_ && sig(xx, yy)) return true;
      }
    }
    return false;
  }

  int w_, h_, p_, plane_;
  bool causal_;
  int32_t* out_;
  ptrdiff_t stride_;
  uint8_t* sig_;  // 1: significant after the cleanup pass; 2: made significant by SigProp
};

}  // namespace j2k::codec::ht
