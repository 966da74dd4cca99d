// SPDX-License-Identifier: BSD-2-Clause
// PNG output through libpng: 8- or 16-bit gray, gray+alpha, RGB or RGBA, with a tEXt
// "Software" chunk naming j2kfront (so that the CLI knows a file it may replace as its own).
//
// libpng reports errors by longjmp: the libpng calls run in write_rows(), whose setjmp turns
// the jump into Error(Io), in a frame that owns no objects with destructors.
#include "io/image_io.hpp"

#include <cstring>
#include <string>

#include "common/error.hpp"

namespace j2k::io {

bool written_by_j2kfront(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  // The tEXt chunk comes right after IHDR, within the first bytes of the file.
  char head[512];
  const size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  static const char kSignature[] = "\x89PNG\r\n\x1a\n";
  static const char kMarker[] = "tEXtSoftware\0j2kfront ";
  const std::string bytes(head, n);
  return n >= 8 && std::memcmp(head, kSignature, 8) == 0 &&
         bytes.find(std::string(kMarker, sizeof kMarker - 1)) != std::string::npos;
}

}  // namespace j2k::io

#ifndef J2K_HAVE_PNG

namespace j2k::io {

void write_png(std::FILE*, const std::string& name, const PngPixels&) {
  throw Error(ErrorCode::UnsupportedInput, name + ": PNG output was not built in (libpng not found)");
}

}  // namespace j2k::io

#else

#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <vector>

namespace j2k::io {
namespace {

struct WriteState {
  std::string error;
};

void on_error(png_structp png, png_const_charp message) {
  static_cast<WriteState*>(png_get_error_ptr(png))->error = message ? message : "libpng error";
  png_longjmp(png, 1);
}
void on_warning(png_structp, png_const_charp) {}

// All libpng calls, under one setjmp. `rows` points to every row; returns false with
// state.error set when libpng failed (a write error included).
bool write_rows(png_structp png, png_infop info, std::FILE* file, const PngPixels& p, png_bytepp rows,
                const char* software) {
  if (setjmp(png_jmpbuf(png)) != 0) return false;
  png_init_io(png, file);
  static const int kColor[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                               PNG_COLOR_TYPE_RGB_ALPHA};
  png_set_IHDR(png, info, p.width, p.height, p.bit_depth, kColor[p.channels - 1], PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  // Fast deflate: these are pictures to look at, written by a tool that is timed.
  png_set_compression_level(png, 3);
  png_text text{};
  text.compression = PNG_TEXT_COMPRESSION_NONE;
  text.key = const_cast<char*>("Software");
  text.text = const_cast<char*>(software);
  png_set_text(png, info, &text, 1);
  png_write_info(png, info);
  if (p.bit_depth == 16) png_set_swap(png);  // samples are native; PNG is big-endian
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

void write_png(std::FILE* file, const std::string& name, const PngPixels& p) {
  if (p.width == 0 || p.height == 0 || p.width > 0x7fffffffu || p.height > 0x7fffffffu)
    throw Error(ErrorCode::InvalidArgument, name + ": a PNG is 1 to 2^31-1 pixels wide and high, not " +
                                                std::to_string(p.width) + " x " + std::to_string(p.height));
  if (p.channels < 1 || p.channels > 4 || (p.bit_depth != 8 && p.bit_depth != 16))
    throw Error(ErrorCode::InvalidArgument, name + ": PNG output takes 1 to 4 channels of 8 or 16 bits");
  const uint64_t row_bytes = uint64_t{p.width} * static_cast<uint64_t>(p.channels) * (p.bit_depth / 8);
  if (p.row_stride < 0 || static_cast<uint64_t>(p.row_stride) < row_bytes)
    throw Error(ErrorCode::InvalidArgument, name + ": rows of " + std::to_string(row_bytes) +
                                                " bytes do not fit a row stride of " + std::to_string(p.row_stride));
  std::vector<png_bytep> rows(p.height);
  for (uint32_t y = 0; y < p.height; ++y)
    rows[y] = const_cast<png_bytep>(static_cast<const unsigned char*>(p.pixels) + static_cast<size_t>(y) * p.row_stride);
  const std::string software = std::string("j2kfront ") + j2k_version();

  WriteState state;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr) {
    png_destroy_write_struct(&png, info ? &info : nullptr);
    throw Error(ErrorCode::OutOfMemory, name + ": libpng could not allocate its write structures");
  }
  const bool ok = write_rows(png, info, file, p, rows.data(), software.c_str());
  png_destroy_write_struct(&png, &info);
  if (!ok) throw Error(ErrorCode::Io, name + ": cannot write the PNG: " + state.error);
  if (std::fflush(file) != 0 || std::ferror(file))
    throw Error(ErrorCode::Io, name + ": cannot write the PNG: " + std::strerror(errno));
}

}  // namespace j2k::io

#endif
