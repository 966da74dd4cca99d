// Reading images into j2k::Image and writing coefficient arrays as NPY.
#pragma once
#include <cstdint>
#include <string>

#include "j2kfront/j2kfront.hpp"
#include "pipeline/image.hpp"

namespace j2k::io {

// Reads TIFF (libtiff: 8/16-bit, gray/RGB/RGBA, strips or tiles, contiguous or planar),
// binary PGM/PPM (P5/P6, 8/16-bit) and PGX, chosen by the file's signature, not its name.
// The image is placed at canvas origin (0,0). Throws j2k::Error naming the file and problem
// (CorruptInput, UnsupportedInput or Io).
Image read_image(const std::string& path);

// The same samples widened to int32 in the internal j2k::Image, for callers not yet on
// views (j2kfront::Image::view()). Throws Error(InvalidArgument) for a sample type that is
// not an image sample type (F32).
j2k::Image to_int32_image(const j2kfront::Image& image);

// Writes a 2-D NPY (format 1.0) array of shape (rows, cols), '<i4' or '<f4'.
void write_npy(const std::string& path, const int32_t* data, int64_t rows, int64_t cols);
void write_npy(const std::string& path, const float* data, int64_t rows, int64_t cols);

}  // namespace j2k::io
