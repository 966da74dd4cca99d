// SPDX-License-Identifier: BSD-2-Clause
// Test support for the front stage on every backend: random images packed in any layout, and
// a reference assembled from the CPU pieces that conformance/ checks against OpenJPEG (samples
// cut out per tile-component, DC shift, RCT/ICT on whole planes, the CPU DWT), compared bit for
// bit with a plan's coefficients.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "j2kfront/j2kfront.hpp"
#include "tiling/canvas.hpp"
#include "transform/cpu/component_transform.hpp"
#include "transform/cpu/dwt_cpu.hpp"

namespace plan_reference {

using j2k::Rect;

// An image as int32 samples per component, before it is packed into some layout.
struct Samples {
  uint32_t x0 = 0, y0 = 0, width = 0, height = 0;
  struct Comp {
    int precision = 8;
    bool is_signed = false;
    int dx = 1, dy = 1;
    int64_t w = 0, h = 0;
    std::vector<int32_t> v;
  };
  std::vector<Comp> comps;
};

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

inline Samples random_samples(uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, int nc, int prec, bool sign,
                       int dx_last = 1, int dy_last = 1, uint32_t seed = 1) {
  Samples s;
  s.x0 = x0; s.y0 = y0; s.width = w; s.height = h;
  std::mt19937 rng(seed * 7919u + w * 131u + h);
  for (int c = 0; c < nc; ++c) {
    Samples::Comp k;
    k.precision = prec;
    k.is_signed = sign;
    k.dx = c == nc - 1 ? dx_last : 1;
    k.dy = c == nc - 1 ? dy_last : 1;
    k.w = cdiv(int64_t{x0} + w, k.dx) - cdiv(x0, k.dx);
    k.h = cdiv(int64_t{y0} + h, k.dy) - cdiv(y0, k.dy);
    const int32_t lo = sign ? -(1 << (prec - 1)) : 0, hi = sign ? (1 << (prec - 1)) - 1 : (1 << prec) - 1;
    std::uniform_int_distribution<int32_t> d(lo, hi);
    k.v.resize(static_cast<size_t>(k.w * k.h));
    for (auto& v : k.v) v = d(rng);
    s.comps.push_back(std::move(k));
  }
  return s;
}

// The samples packed as the caller would hold them: one buffer, `type`, planar or interleaved
// (interleaved needs one subsampling), rows padded by `pad` samples, padding set to a marker.
struct Packed {
  std::vector<unsigned char> bytes;
  j2kfront::ImageView view;
};

template <class T>
void put(unsigned char* p, int32_t v) {
  const T t = static_cast<T>(v);
  std::memcpy(p, &t, sizeof t);
}

inline void store(j2k_sample_type type, unsigned char* p, int32_t v) {
  switch (type) {
    case J2K_SAMPLE_U8: put<uint8_t>(p, v); break;
    case J2K_SAMPLE_I8: put<int8_t>(p, v); break;
    case J2K_SAMPLE_U16: put<uint16_t>(p, v); break;
    case J2K_SAMPLE_I16: put<int16_t>(p, v); break;
    case J2K_SAMPLE_U32: put<uint32_t>(p, v); break;
    default: put<int32_t>(p, v); break;
  }
}

inline Packed pack(const Samples& s, j2k_sample_type type, bool interleaved, int64_t pad) {
  Packed out;
  const auto size = static_cast<int64_t>(j2k_sample_size(type));
  const auto nc = static_cast<int64_t>(s.comps.size());
  std::vector<j2k_component_view> views;
  std::vector<int64_t> starts;
  int64_t total = 0;
  for (const auto& k : s.comps) {
    const int64_t pixel = interleaved ? size * nc : size;
    const int64_t row = (k.w + pad) * pixel;
    starts.push_back(total);
    total += interleaved ? 0 : row * k.h;
    j2k_component_view v{};
    v.type = type;
    v.precision = k.precision;
    v.dx = k.dx;
    v.dy = k.dy;
    v.row_stride = row;
    v.pixel_stride = pixel;
    views.push_back(v);
  }
  if (interleaved) total = views[0].row_stride * s.comps[0].h;
  out.bytes.assign(static_cast<size_t>(total + 64), 0xA5);  // padding and tail hold a marker
  for (size_t c = 0; c < s.comps.size(); ++c) {
    const auto& k = s.comps[c];
    const int64_t base = interleaved ? static_cast<int64_t>(c) * size : starts[c];
    for (int64_t y = 0; y < k.h; ++y)
      for (int64_t x = 0; x < k.w; ++x)
        store(type, &out.bytes[static_cast<size_t>(base + y * views[c].row_stride + x * views[c].pixel_stride)],
              k.v[static_cast<size_t>(y * k.w + x)]);
    views[c].data = out.bytes.data() + base;
    views[c].bytes = out.bytes.size() - static_cast<size_t>(base);
  }
  out.view = j2kfront::ImageView(s.width, s.height, views);
  out.view.at_origin(s.x0, s.y0);
  return out;
}

// The reference front stage for one tile-component set: plain loops over the pieces.
struct Expected {
  std::vector<std::vector<int32_t>> i32;  // per tile-component (5/3)
  std::vector<std::vector<float>> f32;    // per tile-component (9/7)
};

inline Expected reference(const Samples& s, const j2k_settings& st, bool mct) {
  j2k::CanvasSpec spec;
  spec.image_x0 = s.x0; spec.image_y0 = s.y0;
  spec.image_x1 = int64_t{s.x0} + s.width; spec.image_y1 = int64_t{s.y0} + s.height;
  spec.tile_x0 = st.tile_x0; spec.tile_y0 = st.tile_y0;
  spec.tile_w = st.tile_w ? st.tile_w : spec.image_x1 - st.tile_x0;
  spec.tile_h = st.tile_h ? st.tile_h : spec.image_y1 - st.tile_y0;
  for (const auto& k : s.comps) spec.components.push_back({k.dx, k.dy});
  const j2k::Canvas canvas(spec);
  Expected e;
  const auto nc = static_cast<int>(s.comps.size());
  for (int64_t t = 0; t < canvas.tile_count(); ++t) {
    std::vector<std::vector<int32_t>> planes;
    std::vector<Rect> rects;
    for (int c = 0; c < nc; ++c) {
      const auto& k = s.comps[static_cast<size_t>(c)];
      const Rect r = canvas.tile_component(t, c);
      const int64_t cx0 = cdiv(s.x0, k.dx), cy0 = cdiv(s.y0, k.dy);
      std::vector<int32_t> p;
      for (int64_t y = r.y0; y < r.y1; ++y)
        for (int64_t x = r.x0; x < r.x1; ++x) p.push_back(k.v[static_cast<size_t>((y - cy0) * k.w + (x - cx0))]);
      planes.push_back(std::move(p));
      rects.push_back(r);
    }
    if (st.wavelet == J2K_WAVELET_53) {
      for (int c = 0; c < nc; ++c)
        j2k::dc_shift_forward(planes[c].data(), planes[c].size(), j2k::dc_offset(s.comps[c].precision, s.comps[c].is_signed));
      if (mct) j2k::rct_forward(planes[0].data(), planes[1].data(), planes[2].data(), planes[0].size());
      for (int c = 0; c < nc; ++c) {
        j2k::cpu::forward53(planes[c].data(), static_cast<size_t>(rects[c].width()), rects[c], st.levels, 1);
        e.i32.push_back(planes[c]);
      }
    } else {
      std::vector<std::vector<float>> f(static_cast<size_t>(nc));
      for (int c = 0; c < nc; ++c) {
        f[c].resize(planes[c].size());
        j2k::dc_shift_forward(planes[c].data(), f[c].data(), planes[c].size(),
                              j2k::dc_offset(s.comps[c].precision, s.comps[c].is_signed));
      }
      if (mct) j2k::ict_forward(f[0].data(), f[1].data(), f[2].data(), f[0].size());
      for (int c = 0; c < nc; ++c) {
        j2k::cpu::forward97(f[c].data(), static_cast<size_t>(rects[c].width()), rects[c], st.levels, 1);
        e.f32.push_back(f[c]);
      }
    }
  }
  return e;
}

// Coefficients of tile-component i, copied out of the plan (host memory) row by row.
inline std::vector<unsigned char> coefficients(const j2kfront::Plan& plan, size_t i) {
  const j2k_tile_component tc = plan.tile_component(i);
  const j2k_coefficients& c = tc.coefficients;
  std::vector<unsigned char> out(static_cast<size_t>(c.width * c.height * 4));
  for (int64_t y = 0; y < c.height; ++y) {
    const char* row = static_cast<const char*>(c.data) + y * c.row_stride;
    if (c.type != J2K_SAMPLE_I16) {
      std::memcpy(out.data() + y * c.width * 4, row, static_cast<size_t>(c.width * 4));
      continue;
    }
    for (int64_t x = 0; x < c.width; ++x) {  // int16 output: widened, to compare with the int32 reference
      int16_t v;
      std::memcpy(&v, row + x * 2, 2);
      const int32_t wide = v;
      std::memcpy(out.data() + (y * c.width + x) * 4, &wide, 4);
    }
  }
  return out;
}

// Compares every tile-component of the plan with the reference, bit for bit (int16 output
// with the int32 reference, each coefficient widened).
inline void expect_matches(const j2kfront::Plan& plan, const Expected& e, const std::string& what) {
  const j2k_plan_info info = plan.info();
  const size_t n = info.tile_components;
  ASSERT_EQ(n, std::max(e.i32.size(), e.f32.size())) << what;
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::vector<unsigned char> got = coefficients(plan, i);
    const void* want = e.i32.empty() ? static_cast<const void*>(e.f32[i].data()) : e.i32[i].data();
    if (std::memcmp(got.data(), want, got.size()) != 0) ++bad;
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << n << " tile-components differ";
}

inline j2kfront::Settings settings_for(j2k_backend b) {
  j2kfront::Settings s;
  s.backend = b;
  return s;
}

// A test over the backends: skipped, saying why, where the backend is not available.
class BackendTest : public ::testing::TestWithParam<j2k_backend> {
 protected:
  void SetUp() override {
    const char* why = nullptr;
    if (!j2k_backend_available(GetParam(), &why))
      GTEST_SKIP() << j2k_backend_name(GetParam()) << " backend unavailable: " << why;
  }
};

inline std::string backend_param_name(const ::testing::TestParamInfo<j2k_backend>& info) {
  return j2k_backend_name(info.param);
}


}  // namespace plan_reference
