// SPDX-License-Identifier: BSD-2-Clause
#include "codec/opj_colour.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace j2k::codec {
namespace {

// A component's samples read in order, as OpenJPEG walks its planes with a pointer (never
// past the plane's end: should a walk get there, the last sample stands in).
class Walk {
 public:
  explicit Walk(const DecodedComponent& c) : c_(c), n_(static_cast<size_t>(c.width * c.height)) {}
  int32_t get() const { return n_ == 0 ? 0 : c_.at(std::min(i_, n_ - 1)); }
  void next() { ++i_; }

 private:
  const DecodedComponent& c_;
  size_t n_;
  size_t i_ = 0;
};

// color.c's sycc_to_rgb: products in double, truncated towards zero, clamped to [0, upb].
// The sums are made in 64 bits: at 31 bits Y + 1.402 Cr passes INT32_MAX, where color.c's
// int overflows (undefined; in practice it wraps to a negative sum, clamped to 0). Wherever
// color.c's arithmetic stays in range the result is its result.
struct Rgb {
  std::vector<int32_t> r, g, b;
  size_t at = 0;
  int64_t offset, upb;
  void put(int64_t y, int64_t cb, int64_t cr) {
    cb -= offset;
    cr -= offset;
    // (float) as color.c rounds the chroma before its products.
    const auto f = [](int64_t v) { return static_cast<double>(static_cast<float>(v)); };
    const auto clamp = [&](int64_t v) { return static_cast<int32_t>(std::clamp<int64_t>(v, 0, upb)); };
    r[at] = clamp(y + static_cast<int64_t>(1.402 * f(cr)));
    g[at] = clamp(y - static_cast<int64_t>(0.344 * f(cb) + 0.714 * f(cr)));
    b[at] = clamp(y + static_cast<int64_t>(1.772 * f(cb)));
    ++at;
  }
};

// A conversion's results lie in [0, 2^precision - 1] of component 0's precision, which must
// fit the 32-bit samples: up to kMaxDecodedPrecision bits (a codestream's components never
// exceed it; a JP2 palette's columns may have up to 38 bits).
void require_convertible(const DecodedImage& image, const char* conversion) {
  const int p = image.components[0].precision;
  if (p > kMaxDecodedPrecision)
    throw Error(ErrorCode::UnsupportedInput,
                "component 0 has " + std::to_string(p) + "-bit samples: the " + conversion + " conversion " +
                    "is made on samples of up to " + std::to_string(kMaxDecodedPrecision) + " bits only");
}

void store(DecodedComponent& c, const std::vector<int32_t>& v) {
  c.bytes.assign(v.size() * j2k_sample_size(c.type), 0);
  for (size_t i = 0; i < v.size(); ++i) c.set(i, v[i]);
}

// Components 1 and 2 take component 0's size, place and sample format, and the new samples.
void replace(DecodedImage& image, Rgb& rgb) {
  DecodedComponent& c0 = image.components[0];
  for (int c = 1; c < 3; ++c) {
    DecodedComponent& k = image.components[static_cast<size_t>(c)];
    k.x0 = c0.x0, k.y0 = c0.y0, k.width = c0.width, k.height = c0.height, k.dx = c0.dx, k.dy = c0.dy;
    k.precision = c0.precision, k.is_signed = c0.is_signed, k.type = c0.type;
  }
  store(image.components[0], rgb.r);
  store(image.components[1], rgb.g);
  store(image.components[2], rgb.b);
}

// color.c's sycc444/422/420_to_rgb, walk for walk. offx / offy: the area starts at an odd
// column / row; `vertical`: 4:2:0.
void sycc_to_rgb(DecodedImage& image, bool horizontal, bool vertical, int64_t grid_x0, int64_t grid_y0) {
  const DecodedComponent& c0 = image.components[0];
  const auto w = static_cast<size_t>(c0.width), h = static_cast<size_t>(c0.height);
  Rgb out{std::vector<int32_t>(w * h), std::vector<int32_t>(w * h), std::vector<int32_t>(w * h), 0,
          int64_t{1} << (c0.precision - 1), (int64_t{1} << c0.precision) - 1};
  Walk cb(image.components[1]), cr(image.components[2]);
  auto y_at = [&](size_t i) { return i < w * h ? c0.at(i) : 0; };
  if (!horizontal) {  // 4:4:4
    for (size_t i = 0; i < w * h; ++i, cb.next(), cr.next()) out.put(c0.at(i), cb.get(), cr.get());
    replace(image, out);
    return;
  }
  const size_t offx = static_cast<size_t>(grid_x0 & 1), loopw = w - std::min(w, offx);
  // A last odd column takes the chroma sample after it, or Cb = Cr = 0 where the chroma rows
  // end there (OpenJPEG's bound on its reads).
  const auto chroma_w = static_cast<size_t>(image.components[1].width);
  auto last_column = [&](size_t j, auto&& put) {
    if (j / 2 == chroma_w) put(0, 0);
    else put(cb.get(), cr.get());
  };
  if (!vertical) {  // 4:2:2
    size_t y = 0;
    for (size_t i = 0; i < h; ++i) {
      if (offx > 0) out.put(y_at(y++), 0, 0);
      size_t j = 0;
      for (; j < (loopw & ~size_t{1}); j += 2, cb.next(), cr.next()) {
        out.put(y_at(y++), cb.get(), cr.get());
        out.put(y_at(y++), cb.get(), cr.get());
      }
      if (j < loopw) {
        last_column(j, [&](int32_t b, int32_t r) { out.put(y_at(y++), b, r); });
        if (j / 2 < chroma_w) cb.next(), cr.next();
      }
    }
    replace(image, out);
    return;
  }
  // 4:2:0: rows in pairs, each pair one chroma row; an odd first row without chroma; an
  // unpaired last row with the next chroma row.
  const size_t offy = static_cast<size_t>(grid_y0 & 1), looph = h - std::min(h, offy);
  size_t y = 0;
  if (offy > 0)
    for (size_t j = 0; j < w; ++j) out.put(y_at(y++), 0, 0);
  // The pair's second row: w samples further on, in the input and the output.
  auto put_below = [&](size_t at_y, int32_t b, int32_t r) {
    const size_t keep = out.at;
    out.at = keep + w;
    out.put(y_at(at_y), b, r);
    out.at = keep;
  };
  size_t i = 0;
  for (; i < (looph & ~size_t{1}); i += 2) {
    size_t ny = y + w;
    if (offx > 0) {
      put_below(ny++, cb.get(), cr.get());
      out.put(y_at(y++), 0, 0);
    }
    size_t j = 0;
    for (; j < (loopw & ~size_t{1}); j += 2, cb.next(), cr.next()) {
      put_below(ny++, cb.get(), cr.get());
      out.put(y_at(y++), cb.get(), cr.get());
      put_below(ny++, cb.get(), cr.get());
      out.put(y_at(y++), cb.get(), cr.get());
    }
    if (j < loopw) {
      last_column(j, [&](int32_t b, int32_t r) {
        put_below(ny++, b, r);
        out.put(y_at(y++), b, r);
      });
      if (j / 2 < chroma_w) cb.next(), cr.next();
    }
    y += w;
    out.at += w;
  }
  if (i < looph) {
    if (offx > 0) out.put(y_at(y++), 0, 0);
    size_t j = 0;
    for (; j < (loopw & ~size_t{1}); j += 2, cb.next(), cr.next()) {
      out.put(y_at(y++), cb.get(), cr.get());
      out.put(y_at(y++), cb.get(), cr.get());
    }
    if (j < loopw) last_column(j, [&](int32_t b, int32_t r) { out.put(y_at(y++), b, r); });
  }
  replace(image, out);
}

// color.c's color_esycc_to_rgb: single precision, left to right, plus 0.5, truncated. A sum
// beyond the int range (at 31 bits; undefined in color.c) is clamped before it is converted.
void esycc_to_rgb(DecodedImage& image) {
  const DecodedComponent& c0 = image.components[0];
  const size_t n = static_cast<size_t>(c0.width * c0.height);
  const int64_t flip = int64_t{1} << (c0.precision - 1), top = (int64_t{1} << c0.precision) - 1;
  const bool s1 = image.components[1].is_signed, s2 = image.components[2].is_signed;
  Rgb out{std::vector<int32_t>(n), std::vector<int32_t>(n), std::vector<int32_t>(n), 0, 0, top};
  const auto clamp = [&](float v) {
    if (!(v >= 0.0f)) return int32_t{0};
    if (static_cast<double>(v) >= static_cast<double>(top)) return static_cast<int32_t>(top);
    return static_cast<int32_t>(v);
  };
  for (size_t i = 0; i < n; ++i) {
    const auto y = static_cast<float>(c0.at(i));
    const auto cb = static_cast<float>(image.components[1].at(i) - (s1 ? 0 : flip));
    const auto cr = static_cast<float>(image.components[2].at(i) - (s2 ? 0 : flip));
    out.r[i] = clamp(y - 0.0000368f * cb + 1.40199f * cr + 0.5f);
    out.g[i] = clamp(1.0003f * y - 0.344125f * cb - 0.7141128f * cr + 0.5f);
    out.b[i] = clamp(0.999823f * y + 1.77204f * cb - 0.000008f * cr + 0.5f);
  }
  replace(image, out);
}

// CMYK (EnumCS 12) to RGB as opj_decompress's color.c does it: C, M, Y and K each scaled to
// 0..1 by 1 / (2^precision - 1) and inverted, in single precision; R = 255 (1 - C)(1 - K)
// truncated, G and B likewise. The first three components become 8-bit R, G and B; K's goes,
// the ones after it move up. Unsigned components of one subsampling only.
bool cmyk_to_rgb(DecodedImage& image) {
  auto& c = image.components;
  if (c.size() < 4) return false;
  for (size_t k = 0; k < 4; ++k)
    if (c[k].dx != c[0].dx || c[k].dy != c[0].dy || c[k].is_signed || c[k].width != c[0].width || c[k].height != c[0].height)
      return false;
  const size_t n = static_cast<size_t>(c[0].width * c[0].height);
  float scale[4];
  for (size_t k = 0; k < 4; ++k) scale[k] = 1.0f / static_cast<float>((int64_t{1} << c[k].precision) - 1);
  std::vector<int32_t> rgb[3];
  for (auto& v : rgb) v.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const float black = 1.0f - static_cast<float>(c[3].at(i)) * scale[3];
    for (size_t k = 0; k < 3; ++k) {
      const float ink = 1.0f - static_cast<float>(c[k].at(i)) * scale[k];
      rgb[k][i] = static_cast<int32_t>(255.0f * ink * black);
    }
  }
  for (size_t k = 0; k < 3; ++k) {
    c[k].precision = 8;
    c[k].type = J2K_SAMPLE_U8;
    store(c[k], rgb[k]);
  }
  c.erase(c.begin() + 3);
  return true;
}

}  // namespace

bool apply_opj_colour(DecodedImage& image, int enum_cs, int64_t grid_x0, int64_t grid_y0, bool keep_cmyk) {
  auto& c = image.components;
  const bool sycc = enum_cs == 18 || (c.size() == 3 && c[0].dx == c[0].dy && c[1].dx != 1);
  if (sycc) {
    if (c.size() < 3 || c[0].dx != 1 || c[0].dy != 1) return false;  // OpenJPEG: "can not convert"
    require_convertible(image, "sYCC to RGB");
    const auto is = [&](int dx, int dy) {
      return c[1].dx == dx && c[2].dx == dx && c[1].dy == dy && c[2].dy == dy;
    };
    if (is(2, 2)) sycc_to_rgb(image, true, true, grid_x0, grid_y0);
    else if (is(2, 1)) sycc_to_rgb(image, true, false, grid_x0, grid_y0);
    else if (is(1, 1)) sycc_to_rgb(image, false, false, grid_x0, grid_y0);
    else return false;
    return true;
  }
  if (enum_cs == 12) return !keep_cmyk && cmyk_to_rgb(image);
  if (enum_cs == 24) {
    if (c.size() < 3 || c[1].dx != c[0].dx || c[2].dx != c[0].dx || c[1].dy != c[0].dy || c[2].dy != c[0].dy)
      return false;
    require_convertible(image, "e-sYCC to RGB");
    esycc_to_rgb(image);
    return true;
  }
  return false;
}

}  // namespace j2k::codec
