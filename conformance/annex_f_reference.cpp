// SPDX-License-Identifier: BSD-2-Clause
#include "conformance/annex_f_reference.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace annex_f {
namespace {

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

// PSE_O(i, i0, i1) of F.3.7: index of the sample that position i mirrors onto.
int64_t pse(int64_t i, int64_t i0, int64_t i1) {
  const int64_t period = 2 * (i1 - i0 - 1);
  int64_t m = (i - i0) % period;
  if (m < 0) m += period;
  return i0 + std::min(m, period - m);
}

// Signal indexed by absolute coordinate over [lo, hi).
template <class T>
struct Signal {
  int64_t lo;
  std::vector<T> v;
  T& operator[](int64_t i) { return v[static_cast<size_t>(i - lo)]; }
};

// 1D_SD (F.3.7 - F.3.9 / F.4.8) of X over absolute [i0, i1); returns Y interleaved.
std::vector<int32_t> sd53(const std::vector<int32_t>& x, int64_t i0, int64_t i1) {
  if (i1 - i0 == 1) return {(i0 % 2 == 0) ? x[0] : 2 * x[0]};
  const int64_t ext = 2;  // 5/3: i_left, i_right <= 2
  Signal<int32_t> X{i0 - ext, std::vector<int32_t>(static_cast<size_t>(i1 - i0 + 2 * ext))};
  for (int64_t i = i0 - ext; i < i1 + ext; ++i) X[i] = x[static_cast<size_t>(pse(i, i0, i1) - i0)];
  Signal<int32_t> Y = X;
  // (F-9): odd positions i0-1 <= 2n+1 < i1+1
  for (int64_t n = floor_div(i0 - 1 - 1, 2) - 1; 2 * n + 1 < i1 + 1; ++n)
    if (2 * n + 1 >= i0 - 1)
      Y[2 * n + 1] = X[2 * n + 1] - static_cast<int32_t>(floor_div(int64_t{X[2 * n]} + X[2 * n + 2], 2));
  // (F-10): even positions i0 <= 2n < i1
  for (int64_t n = floor_div(i0, 2) - 1; 2 * n < i1; ++n)
    if (2 * n >= i0)
      Y[2 * n] = X[2 * n] + static_cast<int32_t>(floor_div(int64_t{Y[2 * n - 1]} + Y[2 * n + 1] + 2, 4));
  return std::vector<int32_t>(Y.v.begin() + ext, Y.v.end() - ext);
}

float lift(float x, float l, float r, float c) {
  float t = l + r;
  t = t * c;
  return x + t;
}

std::vector<float> sd97(const std::vector<float>& x, int64_t i0, int64_t i1) {
  if (i1 - i0 == 1) return {(i0 % 2 == 0) ? x[0] : 2.0f * x[0]};
  const float a = -1.586134342f, b = -0.052980118f, g = 0.882911075f, d = 0.443506852f;
  const float K = 1.230174105f, invK = static_cast<float>(1.0 / 1.230174105);
  const int64_t ext = 4;  // 9/7: i_left, i_right <= 4
  Signal<float> Y{i0 - ext, std::vector<float>(static_cast<size_t>(i1 - i0 + 2 * ext))};
  for (int64_t i = i0 - ext; i < i1 + ext; ++i) Y[i] = x[static_cast<size_t>(pse(i, i0, i1) - i0)];
  // (F-11) steps 1-4, each over the range Annex F gives, then 5-6.
  auto step = [&](int parity, int64_t from, int64_t to, float c) {
    for (int64_t i = from; i < to; ++i)
      if (((i % 2) + 2) % 2 == parity) Y[i] = lift(Y[i], Y[i - 1], Y[i + 1], c);
  };
  step(1, i0 - 3, i1 + 3, a);
  step(0, i0 - 2, i1 + 2, b);
  step(1, i0 - 1, i1 + 1, g);
  step(0, i0, i1, d);
  for (int64_t i = i0; i < i1; ++i) Y[i] = (i % 2) ? Y[i] * K : Y[i] * invK;
  return std::vector<float>(Y.v.begin() + ext, Y.v.end() - ext);
}

std::vector<int32_t> sd(const std::vector<int32_t>& x, int64_t i0, int64_t i1) { return sd53(x, i0, i1); }
std::vector<float> sd(const std::vector<float>& x, int64_t i0, int64_t i1) { return sd97(x, i0, i1); }

// 2D_SD (F.4.2) on the top-left block of the resolution [u0,u1) x [v0,v1): VER_SD, then
// HOR_SD, each followed by 2D_DEINTERLEAVE (low samples, at even coordinates, first).
template <class T>
void sd_2d(std::vector<T>& a, int64_t stride, int64_t u0, int64_t u1, int64_t v0, int64_t v1) {
  const int64_t w = u1 - u0, h = v1 - v0;
  if (w <= 0 || h <= 0) return;
  auto deinterleave = [](const std::vector<T>& y, int64_t i0) {
    std::vector<T> out;
    for (size_t k = 0; k < y.size(); ++k) if ((i0 + static_cast<int64_t>(k)) % 2 == 0) out.push_back(y[k]);
    for (size_t k = 0; k < y.size(); ++k) if ((i0 + static_cast<int64_t>(k)) % 2 != 0) out.push_back(y[k]);
    return out;
  };
  for (int64_t u = 0; u < w; ++u) {
    std::vector<T> col(static_cast<size_t>(h));
    for (int64_t v = 0; v < h; ++v) col[static_cast<size_t>(v)] = a[static_cast<size_t>(v * stride + u)];
    col = deinterleave(sd(col, v0, v1), v0);
    for (int64_t v = 0; v < h; ++v) a[static_cast<size_t>(v * stride + u)] = col[static_cast<size_t>(v)];
  }
  for (int64_t v = 0; v < h; ++v) {
    std::vector<T> row(a.begin() + v * stride, a.begin() + v * stride + w);
    row = deinterleave(sd(row, u0, u1), u0);
    std::copy(row.begin(), row.end(), a.begin() + v * stride);
  }
}

template <class T>
void fdwt(std::vector<T>& a, const j2k::Rect& tc, int levels) {
  for (int nb = 1; nb <= levels; ++nb) {
    const int64_t s = int64_t{1} << (nb - 1);  // level nb transforms tc scaled by 2^(nb-1)
    sd_2d(a, tc.width(), ceil_div(tc.x0, s), ceil_div(tc.x1, s), ceil_div(tc.y0, s),
          ceil_div(tc.y1, s));
  }
}

}  // namespace

void forward53(std::vector<int32_t>& a, const j2k::Rect& tc, int levels) { fdwt(a, tc, levels); }
void forward97(std::vector<float>& a, const j2k::Rect& tc, int levels) { fdwt(a, tc, levels); }

}  // namespace annex_f
