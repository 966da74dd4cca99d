// Reading images into j2k::Image and writing coefficient arrays as NPY.
#pragma once
#include <cstdint>
#include <string>

#include "pipeline/image.hpp"

namespace j2k::io {

// Reads TIFF (libtiff: 8/16-bit, gray/RGB/RGBA, strips or tiles, contiguous or planar),
// binary PGM/PPM (P5/P6, 8/16-bit) and PGX, chosen by the file's signature, not its name.
// The image is placed at canvas origin (0,0). Throws j2k::Error naming the file and problem
// (CorruptInput, UnsupportedInput or Io).
Image read_image(const std::string& path);

// Writes a 2-D NPY (format 1.0) array of shape (rows, cols), '<i4' or '<f4'.
void write_npy(const std::string& path, const int32_t* data, int64_t rows, int64_t cols);
void write_npy(const std::string& path, const float* data, int64_t rows, int64_t cols);

}  // namespace j2k::io
