// SPDX-License-Identifier: BSD-2-Clause
// Raw samples, as opj_compress -F reads them: no header, the components one after another
// (component c holds ceil(width / dx_c) x ceil(height / dy_c) samples, rows in order), each
// sample 1 byte up to 8 bits or 2 bytes up to 16, big-endian in a .raw file, little-endian in
// a .rawl file; what they are comes from the command line.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/image_io.hpp"

namespace j2k::io {

struct RawLayout {
  uint32_t width = 0, height = 0;
  int precision = 8;  // bits, 1..16
  bool is_signed = false;
  std::vector<std::pair<int, int>> subsampling;  // (dx, dy) per component, 1..255 each
};

// opj_compress's -F text "W,H,COMPONENTS,BITS,{s|u}[@DXxDY:DXxDY:...]" (without subsampling,
// 1x1 for every component). Throws Error(InvalidArgument) naming the part that is wrong.
RawLayout parse_raw_layout(const std::string& text);

// Whether `path` names a raw file (.raw: big-endian, .rawl: little-endian; any case), and
// which order its samples have.
bool is_raw_name(const std::string& path, bool* little_endian = nullptr);

// The image in `path` laid out as `layout` says, its 2-byte samples in the order its name
// says (.rawl little-endian, else big-endian). The file must hold exactly the samples the
// layout gives (Error(CorruptInput) with both sizes otherwise), read at most
// options.max_bytes of samples (Error(OutOfMemory), before anything is allocated).
j2kfront::Image read_raw(const std::string& path, const RawLayout& layout, const ReadOptions& options = {});

}  // namespace j2k::io
