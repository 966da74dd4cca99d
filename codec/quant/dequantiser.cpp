// SPDX-License-Identifier: BSD-2-Clause
#include "codec/quant/dequantiser.hpp"

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <string>

#include "codec/tier1/block_coder.hpp"
#include "common/error.hpp"

namespace j2k::codec {

BandQuant band_quant(const ComponentQuant& q, size_t band) {
  if (q.style == ComponentQuant::Derived) {
    if (q.steps.empty()) throw Error(ErrorCode::CorruptInput, "a scalar derived QCD/QCC without LL's step");
    const auto [exponent, mantissa] = q.steps[0];
    const int level_up = band == 0 ? 0 : static_cast<int>((band - 1) / 3);  // levels above the coarsest
    return {std::max(0, exponent - level_up), mantissa};
  }
  if (band >= q.steps.size())
    throw Error(ErrorCode::CorruptInput, "QCD/QCC has " + std::to_string(q.steps.size()) + " steps, band " +
                                             std::to_string(band) + " needs one");
  return {q.steps[band].first, q.steps[band].second};
}

float band_step(int precision, int gain_log2, const BandQuant& b) {
  return static_cast<float>((1.0 + b.mantissa / 2048.0) * std::pow(2.0, precision + gain_log2 - b.exponent));
}

void undo_roi_shift(int32_t* values, size_t count, int shift) {
  if (shift <= 0) return;
  if (shift >= 31) {
    for (size_t i = 0; i < count; ++i) values[i] = 0;
    return;
  }
  const int32_t threshold = int32_t{1} << shift;
  for (size_t i = 0; i < count; ++i) {
    const int32_t v = values[i];
    int32_t m = std::abs(v);
    if (m >= threshold) {
      m >>= shift;
      values[i] = v < 0 ? -m : m;
    }
  }
}

// The arithmetic is Dequantisation's (codec/tier1/block_coder.hpp), which the HT block decoder
// also applies as it writes a block.
void dequantise_reversible(const int32_t* in, ptrdiff_t in_stride, int width, int height, int32_t* out, ptrdiff_t out_stride) {
  write_dequantised(in, in_stride, width, height, Dequantisation{}, out, out_stride);
}

void dequantise_irreversible(const int32_t* in, ptrdiff_t in_stride, int width, int height, float step, float* out,
                             ptrdiff_t out_stride) {
  write_dequantised(in, in_stride, width, height, Dequantisation::of_step(step), out, out_stride);
}

}  // namespace j2k::codec
