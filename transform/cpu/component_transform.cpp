// SPDX-License-Identifier: BSD-2-Clause
// DC level shift, RCT and ICT on the CPU. Compiled with -ffp-contract=off (see the root
// CMakeLists.txt): the ICT's products must be rounded before they are summed.
#include "transform/cpu/component_transform.hpp"

#include "transform/common/constants.hpp"
#include "transform/common/int_wrap.hpp"

namespace j2k {

using namespace constants;

void dc_shift_forward(int32_t* v, size_t n, int32_t offset) {
  for (size_t i = 0; i < n; ++i) v[i] -= offset;
}

void dc_shift_forward(const int32_t* v, float* out, size_t n, int32_t offset) {
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(v[i] - offset);
}

void rct_forward(int32_t* c0, int32_t* c1, int32_t* c2, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const int32_t r = c0[i], g = c1[i], b = c2[i];
    c0[i] = wrap_add(wrap_add(r, wrap_add(g, g)), b) >> 2;  // sums wrap (int_wrap.hpp)
    c1[i] = wrap_sub(b, g);
    c2[i] = wrap_sub(r, g);
  }
}

void rct_inverse(int32_t* c0, int32_t* c1, int32_t* c2, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const int32_t y = c0[i], u = c1[i], v = c2[i];
    const int32_t g = wrap_sub(y, wrap_add(u, v) >> 2);
    c0[i] = wrap_add(v, g);
    c1[i] = g;
    c2[i] = wrap_add(u, g);
  }
}

void ict_forward(float* c0, float* c1, float* c2, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const Ict t = ict_forward_sample(c0[i], c1[i], c2[i]);
    c0[i] = t.y;
    c1[i] = t.u;
    c2[i] = t.v;
  }
}

void ict_inverse(float* c0, float* c1, float* c2, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float y = c0[i], u = c1[i], v = c2[i];
    c0[i] = y + kIctRV * v;
    c1[i] = y - kIctGU * u - kIctGV * v;
    c2[i] = y + kIctBU * u;
  }
}

}  // namespace j2k
