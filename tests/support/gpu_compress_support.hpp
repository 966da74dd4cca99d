// SPDX-License-Identifier: BSD-2-Clause
// What the GPU Tier-1 compress tests share (ebcot_gpu_compress_test, ht_gpu_compress_test):
// the backends' availability through the C API, where two codestreams first differ, a
// code-block side's log2, and an image through the codec's encoder whole or a row of tiles at
// a time.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codec/encoder.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tests/support/image_rows.hpp"

namespace test_support {

// Whether `backend` has a device here (the C API's answer); else why not.
inline bool backend_device(j2k_backend backend, std::string& why) {
  const char* reason = nullptr;
  if (j2k_backend_available(backend, &reason)) return true;
  why = reason ? reason : "no reason given";
  return false;
}

// Where two codestreams first differ, for the message (`b`: the CPU coder's).
inline std::string first_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return "sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + " (the CPU coder's), first difference at byte " +
         std::to_string(i);
}

// The exponent of a code-block side (a power of 2).
inline int log2_of(int v) {
  int k = 0;
  while ((1 << k) < v) ++k;
  return k;
}

// `image` through `encoder`, whole (encode) or, `by_rows`, a row of tiles at a time
// (encode_rows, the encoder made for rows): the codestream.
inline std::vector<uint8_t> encode_image(j2k::codec::Encoder& encoder, const j2kfront::Image& image, bool by_rows) {
  if (!by_rows) {
    const j2kfront::ImageView v = image.view();
    return encoder.encode(*v.get());
  }
  j2kfront::ImageView band;
  std::vector<uint8_t> bytes;
  encoder.encode_rows(
      [&](uint32_t y0, uint32_t rows) {
        band = rows_of(image, y0, rows);
        return *band.get();
      },
      [&](const uint8_t* data, size_t n) { bytes.insert(bytes.end(), data, data + n); });
  return bytes;
}

}  // namespace test_support
