// SPDX-License-Identifier: BSD-2-Clause
#include "codec/icc_colour.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#if J2K_HAVE_LCMS2
#include <lcms2.h>
#endif

namespace j2k::codec {
namespace {

void not_applied(DecodedImage& image, const std::string& why) {
  image.warnings.push_back("the JP2 file's ICC profile is not applied: " + why);
}
void not_converted(DecodedImage& image, const std::string& why) {
  image.warnings.push_back("the JP2 file's CIELab samples are not converted to RGB: " + why);
}

}  // namespace

#if J2K_HAVE_LCMS2
namespace {

struct ProfileCloser {
  void operator()(void* p) const { cmsCloseProfile(p); }
};
using Profile = std::unique_ptr<void, ProfileCloser>;
struct TransformDeleter {
  void operator()(void* t) const { cmsDeleteTransform(t); }
};
using Transform = std::unique_ptr<void, TransformDeleter>;

// Pixels per cmsDoTransform: the interleaved buffers stay small whatever the image.
constexpr size_t kChunk = size_t{1} << 16;

// A sample of `precision` bits (1..16) to Little CMS's 16-bit range and back, rounded.
uint16_t to_16(int32_t v, int precision) {
  const uint64_t top = (uint64_t{1} << precision) - 1;
  return static_cast<uint16_t>((static_cast<uint64_t>(v) * 65535 + top / 2) / top);
}
int32_t from_16(uint16_t v, int precision) {
  const uint64_t top = (uint64_t{1} << precision) - 1;
  return static_cast<int32_t>((v * top + 65535 / 2) / 65535);
}

// Runs `t` over every pixel: `in`'s samples interleaved (1 or 3 components), three out, a
// chunk at a time. `out` may be `in` (each chunk is read before it is written). Eight-bit
// types take the samples as they are; 16-bit ones take them scaled from `precision` bits.
void transform_pixels(void* t, bool wide, int precision, const std::vector<const DecodedComponent*>& in,
                      const std::vector<DecodedComponent*>& out) {
  const size_t n = static_cast<size_t>(in[0]->width * in[0]->height), k_in = in.size();
  auto run = [&](auto sample, auto to, auto from) {
    using T = decltype(sample);
    std::vector<T> a(kChunk * k_in), b(kChunk * 3);
    for (size_t at = 0; at < n; at += kChunk) {
      const size_t m = std::min(kChunk, n - at);
      for (size_t i = 0; i < m; ++i)
        for (size_t k = 0; k < k_in; ++k) a[i * k_in + k] = to(in[k]->at(at + i));
      cmsDoTransform(t, a.data(), b.data(), static_cast<cmsUInt32Number>(m));
      for (size_t i = 0; i < m; ++i)
        for (size_t k = 0; k < 3; ++k) out[k]->set(at + i, from(b[i * 3 + k]));
    }
  };
  if (!wide) {
    run(uint8_t{}, [](int32_t v) { return static_cast<uint8_t>(v); }, [](uint8_t v) { return static_cast<int32_t>(v); });
  } else {
    run(uint16_t{}, [&](int32_t v) { return to_16(v, precision); }, [&](uint16_t v) { return from_16(v, precision); });
  }
}

// Why components 0..n-1 cannot go through one transform together ("" if they can).
std::string mismatch(const std::vector<DecodedComponent>& c, size_t n) {
  for (size_t k = 1; k < n; ++k)
    if (c[k].dx != c[0].dx || c[k].dy != c[0].dy || c[k].precision != c[0].precision || c[k].is_signed != c[0].is_signed ||
        c[k].width != c[0].width || c[k].height != c[0].height)
      return "component " + std::to_string(k) + " differs from component 0 in size, subsampling, depth or signedness";
  if (c[0].is_signed) return "the samples are signed";
  if (c[0].precision > 16) return std::to_string(c[0].precision) + "-bit samples (up to 16 are converted)";
  return "";
}

}  // namespace

bool apply_icc_profile(DecodedImage& image, const std::vector<uint8_t>& profile) {
  auto& c = image.components;
  if (c.empty()) return false;
  const Profile in(cmsOpenProfileFromMem(profile.data(), static_cast<cmsUInt32Number>(profile.size())));
  if (!in) {
    not_applied(image, "Little CMS does not read it");
    return false;
  }
  // The header's four bytes as a number: they may be none of the enum's values, which an
  // enum-typed variable must not hold (UBSan's -fsanitize=enum says so).
  const auto space = static_cast<cmsUInt32Number>(cmsGetColorSpace(in.get()));
  const bool grey = space == cmsSigGrayData, ycc = space == cmsSigYCbCrData;
  if (!grey && !ycc && space != cmsSigRgbData) {
    not_applied(image, "it is not an RGB, YCbCr or grey profile (as opj_decompress)");
    return false;
  }
  if (grey ? c.size() > 2 : c.size() < 3) {
    not_applied(image, std::string(grey ? "a grey" : "a colour") + " profile for " + std::to_string(c.size()) + " components");
    return false;
  }
  // The colour components, and an alpha after them, alike (OpenJPEG's test).
  const std::string why = mismatch(c, grey ? 1 : std::min<size_t>(c.size(), 4));
  if (!why.empty()) {
    not_applied(image, why);
    return false;
  }
  const int precision = c[0].precision;
  const bool wide = precision != 8;
  const cmsUInt32Number in_type = grey  ? (wide ? TYPE_GRAY_16 : TYPE_GRAY_8)
                                  : ycc ? (wide ? TYPE_YCbCr_16 : TYPE_YCbCr_8)
                                        : (wide ? TYPE_RGB_16 : TYPE_RGB_8);
  const Profile srgb(cmsCreate_sRGBProfile());
  const Transform t(srgb ? cmsCreateTransform(in.get(), in_type, srgb.get(), wide ? TYPE_RGB_16 : TYPE_RGB_8,
                                              cmsGetHeaderRenderingIntent(in.get()), 0)
                         : nullptr);
  if (!t) {
    not_applied(image, "Little CMS makes no transform from it to sRGB");
    return false;
  }
  if (grey) {  // G and B after R (component 0), the alpha after them
    DecodedComponent copy = c[0];
    c.insert(c.begin() + 1, 2, copy);
    transform_pixels(t.get(), wide, precision, {&c[0]}, {&c[0], &c[1], &c[2]});
  } else {
    transform_pixels(t.get(), wide, precision, {&c[0], &c[1], &c[2]}, {&c[0], &c[1], &c[2]});
  }
  return true;
}

bool apply_cielab(DecodedImage& image, const Jp2CieLab& lab) {
  auto& c = image.components;
  if (c.size() != 3) {
    not_converted(image, std::to_string(c.size()) + " components (3 are converted)");
    return false;
  }
  for (size_t k = 1; k < 3; ++k)
    if (c[k].dx != c[0].dx || c[k].dy != c[0].dy || c[k].width != c[0].width || c[k].height != c[0].height) {
      not_converted(image, "its components differ in size");
      return false;
    }
  // color_cielab_to_rgb's arithmetic, in its order: each sample scaled from its range of
  // 2^precision - 1 steps to [min, min + range] of L*, a* or b*.
  const double top[3] = {std::pow(2, c[0].precision) - 1, std::pow(2, c[1].precision) - 1, std::pow(2, c[2].precision) - 1};
  double range[3], offset[3];
  if (lab.defaults) {  // ISO/IEC 15444-2 M.11.7.4's defaults, as OpenJPEG takes them
    range[0] = 100, range[1] = 170, range[2] = 200;
    offset[0] = 0, offset[1] = std::pow(2, c[1].precision - 1);
    offset[2] = std::pow(2, c[2].precision - 2) + std::pow(2, c[2].precision - 3);
  } else {  // OpenJPEG holds the box's unsigned fields as int
    const uint32_t r[3] = {lab.rl, lab.ra, lab.rb}, o[3] = {lab.ol, lab.oa, lab.ob};
    for (int k = 0; k < 3; ++k) {
      range[k] = static_cast<int32_t>(r[k]);
      offset[k] = static_cast<int32_t>(o[k]);
    }
  }
  double lo[3], hi[3];
  for (int k = 0; k < 3; ++k) {
    lo[k] = -(range[k] * offset[k]) / top[k];
    hi[k] = lo[k] + range[k];
  }
  const Profile in(cmsCreateLab4Profile(nullptr)), srgb(cmsCreate_sRGBProfile());
  const Transform t(in && srgb ? cmsCreateTransform(in.get(), TYPE_Lab_DBL, srgb.get(), TYPE_RGB_16, INTENT_PERCEPTUAL, 0) : nullptr);
  if (!t) {
    not_converted(image, "Little CMS makes no Lab to sRGB transform");
    return false;
  }
  const size_t n = static_cast<size_t>(c[0].width * c[0].height);
  SampleBytes rgb[3];
  for (auto& plane : rgb) plane.resize(n * 2);
  std::vector<cmsCIELab> a(kChunk);
  std::vector<uint16_t> b(kChunk * 3);
  for (size_t at = 0; at < n; at += kChunk) {
    const size_t m = std::min(kChunk, n - at);
    for (size_t i = 0; i < m; ++i) {
      a[i].L = lo[0] + static_cast<double>(c[0].at(at + i)) * (hi[0] - lo[0]) / top[0];
      a[i].a = lo[1] + static_cast<double>(c[1].at(at + i)) * (hi[1] - lo[1]) / top[1];
      a[i].b = lo[2] + static_cast<double>(c[2].at(at + i)) * (hi[2] - lo[2]) / top[2];
    }
    cmsDoTransform(t.get(), a.data(), b.data(), static_cast<cmsUInt32Number>(m));
    for (size_t k = 0; k < 3; ++k) {
      auto* dst = reinterpret_cast<uint16_t*>(rgb[k].data()) + at;
      for (size_t i = 0; i < m; ++i) dst[i] = b[i * 3 + k];
    }
  }
  for (size_t k = 0; k < 3; ++k) {
    c[k].precision = 16;
    c[k].is_signed = false;
    c[k].type = J2K_SAMPLE_U16;
    c[k].bytes = std::move(rgb[k]);
  }
  return true;
}

#else  // no Little CMS in this build

bool apply_icc_profile(DecodedImage& image, const std::vector<uint8_t>&) {
  not_applied(image, "this build has no Little CMS (liblcms2-dev)");
  return false;
}

bool apply_cielab(DecodedImage& image, const Jp2CieLab&) {
  not_converted(image, "this build has no Little CMS (liblcms2-dev)");
  return false;
}

#endif

}  // namespace j2k::codec
