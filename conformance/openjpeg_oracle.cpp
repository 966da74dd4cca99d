// SPDX-License-Identifier: BSD-2-Clause
#include "conformance/openjpeg_oracle.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "conformance/openjpeg_mirror.hpp"

namespace oracle {
namespace {

// Resolutions computed here from (B-14) directly, independently of j2kfront's tiling code.
int64_t ceil_pow2(int64_t a, int k) { return -((-a) >> k); }

j2k::Rect res_rect(const j2k::Rect& tc, int levels, int r) {
  const int k = levels - r;
  return {ceil_pow2(tc.x0, k), ceil_pow2(tc.y0, k), ceil_pow2(tc.x1, k), ceil_pow2(tc.y1, k)};
}

// The structs OpenJPEG's DWT reads, filled for one tile-component, and an aligned copy of
// the samples (OpenJPEG's SIMD paths expect its own aligned allocations).
struct Call {
  opj_mirror::Tcd tcd{};
  opj_mirror::TileComp tilec{};
  std::vector<opj_mirror::Resolution> res;
  int32_t* buffer = nullptr;
  void* pool = nullptr;
  size_t count = 0;

  Call(const j2k::Rect& tc, int levels, const void* samples, int threads = 0) {
    if (tc.x1 > INT32_MAX || tc.y1 > INT32_MAX) throw std::invalid_argument("rect beyond int32");
    count = static_cast<size_t>(tc.width() * tc.height());
    const size_t bytes = ((count * 4 + 63) / 64) * 64 + 64;
    buffer = static_cast<int32_t*>(std::aligned_alloc(64, bytes));
    std::memcpy(buffer, samples, count * 4);
    res.resize(static_cast<size_t>(levels) + 1);
    for (int r = 0; r <= levels; ++r) {
      const j2k::Rect rr = res_rect(tc, levels, r);
      std::memset(&res[static_cast<size_t>(r)], 0, sizeof(opj_mirror::Resolution));
      res[static_cast<size_t>(r)].x0 = static_cast<int32_t>(rr.x0);
      res[static_cast<size_t>(r)].y0 = static_cast<int32_t>(rr.y0);
      res[static_cast<size_t>(r)].x1 = static_cast<int32_t>(rr.x1);
      res[static_cast<size_t>(r)].y1 = static_cast<int32_t>(rr.y1);
    }
    tilec.x0 = static_cast<int32_t>(tc.x0);
    tilec.y0 = static_cast<int32_t>(tc.y0);
    tilec.x1 = static_cast<int32_t>(tc.x1);
    tilec.y1 = static_cast<int32_t>(tc.y1);
    tilec.numresolutions = static_cast<uint32_t>(levels) + 1;
    tilec.minimum_num_resolutions = tilec.numresolutions;
    tilec.resolutions = res.data();
    tilec.data = buffer;
    tilec.data_size = count * 4;
    tilec.numpix = count;
    pool = opj_thread_pool_create(threads);  // zero threads: runs inline
    tcd.thread_pool = pool;
    tcd.whole_tile_decoding = 1;
  }
  ~Call() {
    opj_thread_pool_destroy(pool);
    std::free(buffer);
  }
  void copy_out(void* samples) const { std::memcpy(samples, buffer, count * 4); }
};

void check(int ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("OpenJPEG ") + what + " returned false");
}

}  // namespace

std::string version_problem() {
  const std::string v = opj_version();
  return v == "2.5.0" ? std::string() : "linked OpenJPEG is " + v + ", the mirrors describe 2.5.0";
}

void forward53(std::vector<int32_t>& data, const j2k::Rect& tc, int levels) {
  Call call(tc, levels, data.data());
  check(opj_dwt_encode(&call.tcd, &call.tilec), "opj_dwt_encode");
  call.copy_out(data.data());
}

void forward97(std::vector<float>& data, const j2k::Rect& tc, int levels) {
  Call call(tc, levels, data.data());
  check(opj_dwt_encode_real(&call.tcd, &call.tilec), "opj_dwt_encode_real");
  call.copy_out(data.data());
}

void inverse53(std::vector<int32_t>& data, const j2k::Rect& tc, int levels) {
  Call call(tc, levels, data.data());
  check(opj_dwt_decode(&call.tcd, &call.tilec, static_cast<uint32_t>(levels) + 1), "opj_dwt_decode");
  call.copy_out(data.data());
}

void inverse97(std::vector<float>& data, const j2k::Rect& tc, int levels) {
  Call call(tc, levels, data.data());
  check(opj_dwt_decode_real(&call.tcd, &call.tilec, static_cast<uint32_t>(levels) + 1), "opj_dwt_decode_real");
  call.copy_out(data.data());
}

namespace {
template <class T, class Fn>
double timed(std::vector<T>& data, const j2k::Rect& tc, int levels, int threads, Fn fn,
             const char* what) {
  Call call(tc, levels, data.data(), threads);
  const auto t0 = std::chrono::steady_clock::now();
  check(fn(&call.tcd, &call.tilec), what);
  const auto t1 = std::chrono::steady_clock::now();
  call.copy_out(data.data());
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}
}  // namespace

double timed_forward53(std::vector<int32_t>& data, const j2k::Rect& tc, int levels, int threads) {
  return timed(data, tc, levels, threads, opj_dwt_encode, "opj_dwt_encode");
}

double timed_forward97(std::vector<float>& data, const j2k::Rect& tc, int levels, int threads) {
  return timed(data, tc, levels, threads, opj_dwt_encode_real, "opj_dwt_encode_real");
}

namespace {
template <class T, class Fn>
void mct(std::vector<T>& c0, std::vector<T>& c1, std::vector<T>& c2, Fn fn) {
  const size_t n = c0.size();
  if (c1.size() != n || c2.size() != n) throw std::invalid_argument("MCT planes differ in size");
  const size_t plane = (n + 15) / 16 * 16;
  T* buf = static_cast<T*>(std::aligned_alloc(64, (3 * plane * sizeof(T) + 63) / 64 * 64));
  std::vector<T>* planes[3] = {&c0, &c1, &c2};
  for (int k = 0; k < 3; ++k) std::memcpy(buf + k * plane, planes[k]->data(), n * sizeof(T));
  fn(buf, buf + plane, buf + 2 * plane, n);
  for (int k = 0; k < 3; ++k) std::memcpy(planes[k]->data(), buf + k * plane, n * sizeof(T));
  std::free(buf);
}
}  // namespace

void mct_forward(std::vector<int32_t>& c0, std::vector<int32_t>& c1, std::vector<int32_t>& c2) {
  mct(c0, c1, c2, opj_mct_encode);
}
void mct_forward(std::vector<float>& c0, std::vector<float>& c1, std::vector<float>& c2) {
  mct(c0, c1, c2, opj_mct_encode_real);
}

KnownBug known_bug(j2k::Wavelet wavelet, const j2k::Rect& tc, int levels) {
  const bool rev = wavelet == j2k::Wavelet::Reversible53;
  const bool one_pixel = tc.width() == 1 && tc.height() == 1;
  for (int r = levels; r >= 1; --r) {  // the resolutions a forward transform processes
    const j2k::Rect rr = res_rect(tc, levels, r);
    const int64_t w = rr.width(), h = rr.height();
    if (w == 0 && h > 0) {
      if (!rev) return KnownBug::ZeroWidth97;
      if (rr.x0 & 1) return KnownBug::ZeroWidthOddOrigin53;
    }
    if (rev && one_pixel && h == 0) return KnownBug::OnePixelZeroHeight53;
    if (!rev && ((w == 1 && (rr.x0 & 1) && h > 0) || (h == 1 && (rr.y0 & 1) && w > 0)))
      return KnownBug::LoneOddSample97;
  }
  return KnownBug::None;
}

const char* known_bug_name(KnownBug bug) {
  switch (bug) {
    case KnownBug::None: return "none";
    case KnownBug::ZeroWidthOddOrigin53: return "5/3 zero-width resolution at odd x0";
    case KnownBug::ZeroWidth97: return "9/7 zero-width resolution";
    case KnownBug::OnePixelZeroHeight53: return "5/3 1x1 tile-component with zero-height resolution";
    case KnownBug::LoneOddSample97: return "9/7 lone sample at odd coordinate";
  }
  return "?";
}

}  // namespace oracle
