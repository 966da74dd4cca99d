// SPDX-License-Identifier: BSD-2-Clause
// Reading images into j2kfront::Image (samples at their own width), writing coefficient
// arrays as NPY and pictures as PNG.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "io/image_metadata.hpp"
#include "j2kfront/j2kfront.hpp"

namespace j2k::io {

// Reads TIFF (libtiff: 8/16-bit, gray/RGB/RGBA, strips or tiles, contiguous or planar), PNG
// (libpng: every colour type and depth; palettes expanded to RGB(A)), binary PGM/PPM (P5/P6,
// 8/16-bit) and PGX, chosen by the file's signature, not its name.
// The image is placed at canvas origin (0,0), one packed component per channel (interleaved
// files are split into planes), each sample at its own width: J2K_SAMPLE_U8 for unsigned
// samples of 1..8 bits, U16 for 9..16 bits, I8 / I16 for signed ones (PGX, signed TIFF);
// `precision` is the file's bit depth (PNM: the bits of maxval). Throws j2k::Error naming the
// file and problem (CorruptInput, UnsupportedInput or Io).
struct ReadOptions {
  // Bytes of samples (at their own width) the image may take; a larger one is refused with
  // Error(OutOfMemory) from its header, before anything is allocated. 0: no limit.
  uint64_t max_bytes = 0;
  // Workers that read and split the samples side by side (0: every core this process may use).
  int threads = 0;
};
// Running out of memory while reading is Error(OutOfMemory) naming the file and the size.
// `metadata` (where not null): what the file says beside its samples (image_metadata.hpp).
j2kfront::Image read_image(const std::string& path, const ReadOptions& options = {}, ImageMetadata* metadata = nullptr);

namespace detail {
class FormatReader;
}

// The same files read a band of rows at a time, for images that do not fit in memory whole:
// the header is read and checked on construction (Errors as read_image), then read_rows
// returns the next rows in order. The samples are those of read_image whatever the bands'
// heights; a TIFF strip or tile that straddles two bands is decoded for each.
class ImageReader {
 public:
  // `threads`: as ReadOptions::threads.
  explicit ImageReader(const std::string& path, int threads = 0);
  ~ImageReader();
  ImageReader(const ImageReader&) = delete;
  ImageReader& operator=(const ImageReader&) = delete;

  const std::string& path() const { return path_; }
  // The image's size and its components' formats and sizes, at origin (0,0); no samples.
  const j2kfront::Image& shape() const;
  // Bytes that one row of every component takes at their own width, and all the rows.
  uint64_t row_bytes() const;
  uint64_t sample_bytes() const;
  // The first row that read_rows has not returned yet (the image's height at the end).
  uint32_t next_row() const { return next_row_; }
  // The next `rows` rows (1 .. height - next_row()) as an image that many rows high at
  // origin (0,0). Refuses with Error(OutOfMemory) naming both figures, before allocating,
  // when their samples need more than `max_bytes` (0: no limit).
  j2kfront::Image read_rows(uint32_t rows, uint64_t max_bytes = 0);
  // The same, its planes taken from `spare` where they have the band's sizes and types and
  // the format's reader writes every sample (a directory's images of one shape, read one
  // after another, then reuse the memory instead of zeroing fresh pages).
  j2kfront::Image read_rows(uint32_t rows, uint64_t max_bytes, j2kfront::Image&& spare);
  // What the file says beside its samples: whole once the last rows are read.
  const ImageMetadata& metadata() const;

 private:
  std::string path_;
  std::unique_ptr<detail::FormatReader> format_;
  uint32_t next_row_ = 0;
};

// Writes a 2-D NPY (format 1.0) array of shape (rows, cols), '<i4' or '<f4'. Throws
// Error(Io) naming the path, and leaves no file behind, when a write fails.
void write_npy(const std::string& path, const int32_t* data, int64_t rows, int64_t cols);
void write_npy(const std::string& path, const float* data, int64_t rows, int64_t cols);
// The same into a stream the caller opened and closes (`name` for messages): no file is
// created or removed here.
void write_npy(std::FILE* file, const std::string& name, const int32_t* data, int64_t rows, int64_t cols);
void write_npy(std::FILE* file, const std::string& name, const float* data, int64_t rows, int64_t cols);

// A picture to write as PNG: `channels` interleaved samples of `bit_depth` bits (8, or 16 in
// native byte order) per pixel: 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA; rows `row_stride` bytes
// apart.
struct PngPixels {
  const void* pixels = nullptr;
  uint32_t width = 0, height = 0;
  int channels = 3, bit_depth = 8;
  ptrdiff_t row_stride = 0;
};
// Writes it into a stream the caller opened and closes (`name` for messages), with a tEXt
// "Software" chunk "j2kfront <version>", and what `metadata` holds (where not null): iCCP,
// pHYs, an iTXt XMP packet, eXIf. Throws Error(Io) naming `name` when the write fails,
// Error(UnsupportedInput) in a build without libpng. Returns what of `metadata` was not written
// and why (libpng refused a profile, an XMP packet holds a NUL), one sentence each.
std::vector<std::string> write_png(std::FILE* file, const std::string& name, const PngPixels& pixels,
                                   const ImageMetadata* metadata = nullptr);
// Whether `path` is a PNG that write_png wrote (its Software chunk), e.g. one the CLI may replace.
bool written_by_j2kfront(const std::string& path);

}  // namespace j2k::io
