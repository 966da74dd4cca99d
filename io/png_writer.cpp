// SPDX-License-Identifier: BSD-2-Clause
// PNG output through libpng: 8- or 16-bit gray, gray+alpha, RGB or RGBA, with a tEXt
// "Software" chunk naming j2kfront (so that the CLI knows a file it may replace as its own).
//
// libpng reports errors by longjmp: the libpng calls run in write_rows(), whose setjmp turns
// the jump into Error(Io), in a frame that owns no objects with destructors.
#include "io/image_io.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "common/error.hpp"

namespace j2k::io {

bool written_by_j2kfront(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  // The tEXt chunk is among the chunks before the image data, after an ICC profile where there
  // is one: the chunks are walked up to IDAT, each skipped by its length.
  static const char kSignature[] = "\x89PNG\r\n\x1a\n";
  static const char kMarker[] = "Software\0j2kfront ";
  const size_t marker = sizeof kMarker - 1;
  char head[8];
  bool ours = std::fread(head, 1, 8, f) == 8 && std::memcmp(head, kSignature, 8) == 0;
  bool found = false;
  for (int chunk = 0; ours && !found && chunk < 64; ++chunk) {
    unsigned char h[8];
    if (std::fread(h, 1, 8, f) != 8 || std::memcmp(h + 4, "IDAT", 4) == 0) break;
    const uint32_t length = uint32_t{h[0]} << 24 | uint32_t{h[1]} << 16 | uint32_t{h[2]} << 8 | h[3];
    if (std::memcmp(h + 4, "tEXt", 4) == 0 && length >= marker && length < 256) {
      char text[256];
      if (std::fread(text, 1, length, f) != length) break;
      found = std::memcmp(text, kMarker, marker) == 0;
      if (std::fseek(f, 4, SEEK_CUR) != 0) break;  // its CRC
    } else if (length > 0x7fffffffu || std::fseek(f, static_cast<long>(length) + 4, SEEK_CUR) != 0) {
      break;
    }
  }
  std::fclose(f);
  return found;
}

}  // namespace j2k::io

#ifndef J2K_HAVE_PNG

namespace j2k::io {

std::vector<std::string> write_png(std::FILE*, const std::string& name, const PngPixels&, const ImageMetadata*) {
  throw Error(ErrorCode::UnsupportedInput, name + ": PNG output was not built in (libpng not found)");
}

}  // namespace j2k::io

#else

#include <png.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <vector>

#include "common/icc_profile.hpp"

namespace j2k::io {
namespace {

struct WriteState {
  std::string error;
  std::vector<std::string> warnings;  // libpng's, while the metadata's chunks are set
  bool collect = false;
};

void on_error(png_structp png, png_const_charp message) {
  static_cast<WriteState*>(png_get_error_ptr(png))->error = message ? message : "libpng error";
  png_longjmp(png, 1);
}
void on_warning(png_structp png, png_const_charp message) {
  auto* state = static_cast<WriteState*>(png_get_error_ptr(png));
  if (state->collect && state->warnings.size() < 8) state->warnings.push_back(std::string("libpng: ") + (message ? message : "?"));
}

// The metadata's chunks: iCCP, pHYs (pixels per metre), an iTXt XMP packet, eXIf. libpng's
// checks of a profile (its header against the colour type, its tag table) warn and leave the
// chunk out instead of failing the file; what it says is kept in state.warnings.
void set_metadata(png_structp png, png_infop info, const ImageMetadata& m, const std::string& xmp, WriteState& state) {
  png_set_benign_errors(png, 1);
  state.collect = true;
  if (!m.icc.empty())
    png_set_iCCP(png, info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, m.icc.data(), static_cast<png_uint_32>(m.icc.size()));
  if (m.has_resolution())
    png_set_pHYs(png, info, static_cast<png_uint_32>(std::lround(m.x_per_metre)), static_cast<png_uint_32>(std::lround(m.y_per_metre)),
                 PNG_RESOLUTION_METER);
  if (!xmp.empty()) {
    png_text text{};
    text.compression = PNG_ITXT_COMPRESSION_NONE;
    text.key = const_cast<char*>(kPngXmpKeyword);
    text.text = const_cast<char*>(xmp.c_str());
    text.lang = const_cast<char*>("");
    text.lang_key = const_cast<char*>("");
    png_set_text(png, info, &text, 1);
  }
#ifdef PNG_eXIf_SUPPORTED
  if (!m.exif.empty()) png_set_eXIf_1(png, info, static_cast<png_uint_32>(m.exif.size()), const_cast<png_bytep>(m.exif.data()));
#endif
  state.collect = false;
}

// All libpng calls, under one setjmp. `rows` points to every row; returns false with
// state.error set when libpng failed (a write error included).
bool write_rows(png_structp png, png_infop info, std::FILE* file, const PngPixels& p, png_bytepp rows,
                const char* software, const ImageMetadata* metadata, const std::string& xmp, WriteState& state) {
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
  if (metadata) set_metadata(png, info, *metadata, xmp, state);
  png_write_info(png, info);
  if (p.bit_depth == 16) png_set_swap(png);  // samples are native; PNG is big-endian
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

}  // namespace

std::vector<std::string> write_png(std::FILE* file, const std::string& name, const PngPixels& p, const ImageMetadata* metadata) {
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

  // What libpng cannot take is left out with a warning before it sees it: a profile that does
  // not fit the colour type (libpng would fail the file), chunk sizes past 2^31 - 1, a packet
  // with a NUL (iTXt's text ends at the first).
  WriteState state;
  ImageMetadata kept;
  std::string xmp;
  if (metadata) {
    kept = *metadata;
    kept.warnings.clear();
    if (!kept.icc.empty()) {
      const std::string why = icc_profile_problem(kept.icc.data(), kept.icc.size(), static_cast<size_t>(p.channels));
      if (!why.empty() || kept.icc.size() > 0x7fffffffu) {
        state.warnings.push_back("the ICC profile is not written: " + (why.empty() ? "it is too large for a PNG chunk" : why));
        kept.icc.clear();
      }
    }
    if (kept.has_resolution() && (kept.x_per_metre >= 0x7fffffff || kept.y_per_metre >= 0x7fffffff ||
                                  std::lround(kept.x_per_metre) < 1 || std::lround(kept.y_per_metre) < 1)) {
      state.warnings.push_back("the resolution is not written: a pHYs chunk holds 1 to 2^31 - 1 pixels per metre");
      kept.x_per_metre = kept.y_per_metre = 0;
    }
    if (std::find(kept.xmp.begin(), kept.xmp.end(), 0) != kept.xmp.end())
      state.warnings.push_back("the XMP packet is not written: it holds a NUL byte, where an iTXt chunk's text ends");
    else
      xmp.assign(kept.xmp.begin(), kept.xmp.end());
#ifdef PNG_eXIf_SUPPORTED
    if (kept.exif.size() > 0x7fffffffu) {
      state.warnings.push_back("the Exif is not written: it is too large for an eXIf chunk");
      kept.exif.clear();
    }
#else
    if (!kept.exif.empty()) state.warnings.push_back("the Exif is not written: this libpng writes no eXIf chunk");
#endif
  }
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (png == nullptr || info == nullptr) {
    png_destroy_write_struct(&png, info ? &info : nullptr);
    throw Error(ErrorCode::OutOfMemory, name + ": libpng could not allocate its write structures");
  }
  const bool ok = write_rows(png, info, file, p, rows.data(), software.c_str(), metadata ? &kept : nullptr, xmp, state);
  png_destroy_write_struct(&png, &info);
  if (!ok) throw Error(ErrorCode::Io, name + ": cannot write the PNG: " + state.error);
  if (std::fflush(file) != 0 || std::ferror(file))
    throw Error(ErrorCode::Io, name + ": cannot write the PNG: " + std::strerror(errno));
  return state.warnings;
}

}  // namespace j2k::io

#endif
