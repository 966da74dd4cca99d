// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer target: read_image on arbitrary bytes (TIFF, PNG, PGM/PPM, PGX by signature). Every
// input must end in an image or a j2k::Error; anything else (a crash, a sanitizer report,
// another exception, an allocation past -malloc_limit_mb, an image that reads otherwise in
// bands of rows) is a finding. Seeds: read_image/.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "io/image_io.hpp"

namespace {

// The readers take a path (libtiff opens the file itself): each input goes through one file.
const std::string& input_path() {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("j2kfront_read_image_fuzz_" + std::to_string(::getpid()))).string();
  return path;
}

// Bytes of samples an input may decode to (the fuzzer's -malloc_limit_mb is 512).
constexpr uint64_t kBudget = uint64_t{128} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(input_path().c_str(), "wb");
  if (!f) return 0;
  const bool written = std::fwrite(data, 1, size, f) == size;
  if (std::fclose(f) != 0 || !written) return 0;
  try {
    // Within a budget, as the CLI reads: a valid image that decodes to more (a compression
    // bomb) is refused from its header, not a finding.
    j2k::io::ReadOptions options;
    options.max_bytes = kBudget;
    const j2kfront::Image im = j2k::io::read_image(input_path(), options);
    // What a reader returns must be consistent: every plane holds its rows.
    for (const j2kfront::Image::Component& c : im.components)
      if (c.bytes.size() != static_cast<size_t>(c.height * c.row_stride())) __builtin_trap();
    // And a file read whole reads the same in bands (of 1 to 7 rows, chosen by the input).
    j2k::io::ImageReader reader(input_path());
    const uint32_t band = 1 + static_cast<uint32_t>(size % 7);
    std::vector<std::vector<unsigned char>> planes(im.components.size());
    while (reader.next_row() < im.height) {
      const j2kfront::Image b = reader.read_rows(std::min(band, im.height - reader.next_row()), kBudget);
      for (size_t c = 0; c < planes.size(); ++c)
        planes[c].insert(planes[c].end(), b.components[c].bytes.begin(), b.components[c].bytes.end());
    }
    for (size_t c = 0; c < planes.size(); ++c)
      if (planes[c] != im.components[c].bytes) __builtin_trap();
  } catch (const j2k::Error&) {
  }
  return 0;
}
