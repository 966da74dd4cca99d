// SPDX-License-Identifier: BSD-2-Clause
// What the decode fuzz targets check for one input: a file's bytes to the C API's decoder, as
// `j2kfront decompress` decodes them: the codestream or JP2 reader, Tier-2, Tier-1, the CPU
// back stage and the colour conversions after it (sYCC, CMYK, palettes, ICC profiles and
// CIELab through Little CMS). The decode settings come from the input's size, so that the
// bytes stay a file that mutations keep close to a real one. A decoded image must be as large
// as its views say; a refusal must say why and be the input's fault.
#pragma once
#include <cstdint>
#include <cstring>

#include "j2kfront/j2kfront.h"

namespace fuzz {

inline void decode_and_check(const uint8_t* data, size_t size) {
  j2k_decode_settings s;
  j2k_decode_settings_default(&s);
  s.backend = J2K_BACKEND_CPU;
  // One thread, or on a quarter of the inputs three: the by-rows path then reads the packets
  // on a thread of its own while the workers map the row stage's pages and decode the coarser
  // levels' blocks (decoder.cpp).
  s.threads = size % 4 == 3 ? 3 : 1;
  // What a header may make the decoder allocate, and so how much work one input may ask for:
  // small, so that a forged size decodes within libFuzzer's time limit under the sanitizers.
  s.max_bytes = uint64_t{16} << 20;
  s.convert_colour = 1;
  s.allow_partial = static_cast<int>(size & 1);
  s.keep_cmyk = static_cast<int>(size >> 1 & 1);
  s.reduce = static_cast<int>(size / 5 % 3);
  s.layers = static_cast<int>(size / 3 % 3);
  j2k_decoder* decoder = nullptr;
  if (j2k_decoder_create(&s, &decoder) != J2K_OK) __builtin_trap();
  j2k_image_view image{};
  const j2k_status status = j2k_decoder_run(decoder, data, size, &image);
  if (status == J2K_OK) {
    // Every byte each view claims is there: memchr reads them all, and ASan checks its range
    // at once (a byte-by-byte loop under coverage instrumentation is too slow for large images).
    volatile const void* sink = nullptr;
    for (int c = 0; c < image.num_components; ++c) {
      const j2k_component_view& k = image.components[c];
      if (k.bytes > 0) sink = std::memchr(k.data, 0x5A, k.bytes);  // an empty component has no data
    }
    (void)sink;
    j2k_decode_report report{};
    if (j2k_decoder_get_report(decoder, &report) != J2K_OK || report.warnings == nullptr) __builtin_trap();
  } else {
    if (j2k_last_error()[0] == '\0') __builtin_trap();  // a refusal says why
    if (status == J2K_INTERNAL_ERROR) __builtin_trap();  // and is never the library's own fault
  }
  j2k_decoder_destroy(decoder);
}

}  // namespace fuzz
