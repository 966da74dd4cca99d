// SPDX-License-Identifier: BSD-2-Clause
// PNG through libpng: gray (1, 2, 4, 8, 16 bits), gray+alpha, RGB and RGBA (8, 16 bits), and
// palette images (expanded to RGB, or RGBA where a tRNS chunk gives the entries alpha). Low
// bit depths keep their values (a 4-bit gray sample is 0..15, precision 4); a tRNS colour key
// of a gray or RGB image is not an alpha channel and is ignored. Rows are decoded in order, a
// band at a time; an interlaced (Adam7) image can only be decoded whole.
//
// libpng reports errors by longjmp: every libpng call runs inside guarded(), whose setjmp
// turns the jump into Error(CorruptInput) with libpng's message, in a frame that owns no
// objects with destructors.
#include "io/readers.hpp"

#ifndef J2K_HAVE_PNG

// Built without libpng: the library still links, and a PNG is refused by name.
namespace j2k::io::detail {

std::unique_ptr<FormatReader> open_png(std::unique_ptr<InputFile> in) {
  in->fail(ErrorCode::UnsupportedInput, "PNG support was not built in (libpng not found)");
}

}  // namespace j2k::io::detail

#else

#include <png.h>

#include <csetjmp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace j2k::io::detail {
namespace {

// A single row over this is refused from the header, as for TIFF: a forged width must not
// turn into a giant allocation before the first row is decoded.
constexpr uint64_t kMaxRowBytes = uint64_t{256} << 20;
// zlib expands at most about 1032:1: pixel data beyond that many times the file's size cannot
// be in the file, whatever the header says.
constexpr uint64_t kMaxDeflateRatio = 1032;
// No ancillary chunk (text, ICC profiles, Exif) may take more: a larger one is left out with
// a warning (libpng's "exceeds application limits"), whatever size it declares.
constexpr png_alloc_size_t kMaxChunkBytes = 8 << 20;

// libpng's read and info structs, destroyed with their owner, also when its constructor throws.
struct PngStructs {
  png_structp png = nullptr;
  png_infop info = nullptr;
  PngStructs() = default;
  PngStructs(const PngStructs&) = delete;
  PngStructs& operator=(const PngStructs&) = delete;
  ~PngStructs() {
    if (png != nullptr) png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
  }
};

class PngReader : public FormatReader {
 public:
  explicit PngReader(std::unique_ptr<InputFile> file) : file_(std::move(file)) {
    structs_.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, this, on_error, on_warning);
    if (structs_.png != nullptr) structs_.info = png_create_info_struct(structs_.png);
    if (structs_.png == nullptr || structs_.info == nullptr)
      file_->fail(ErrorCode::OutOfMemory, "libpng could not start");
    png_set_read_fn(structs_.png, this, on_read);
    guarded("header", [&] {
      png_set_user_limits(structs_.png, 0x7fffffff, 0x7fffffff);  // the PNG maximum (libpng's default is 10^6)
      png_set_chunk_malloc_max(structs_.png, kMaxChunkBytes);
      png_read_info(structs_.png, structs_.info);
    });
    collect_metadata();
    png_uint_32 width = 0, height = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(structs_.png, structs_.info, &width, &height, &depth, &color, &interlace, nullptr, nullptr);
    check_sizes(width, height, depth, png_get_channels(structs_.png, structs_.info));

    int precision = depth;
    guarded("header", [&] {
      if (color == PNG_COLOR_TYPE_PALETTE) {
        png_set_palette_to_rgb(structs_.png);
        if (png_get_valid(structs_.png, structs_.info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(structs_.png);
      }
      if (depth < 8) png_set_packing(structs_.png);  // one byte a sample, values kept
      if (depth == 16) png_set_swap(structs_.png);   // PNG is big-endian; samples are stored native
      passes_ = png_set_interlace_handling(structs_.png);
      png_read_update_info(structs_.png, structs_.info);
    });
    if (color == PNG_COLOR_TYPE_PALETTE) precision = 8;
    channels_ = png_get_channels(structs_.png, structs_.info);
    row_bytes_ = png_get_rowbytes(structs_.png, structs_.info);
    bytes_ = depth == 16 ? 2 : 1;
    if (channels_ < 1 || channels_ > 4 || row_bytes_ != uint64_t{width} * channels_ * bytes_)
      file_->fail(ErrorCode::Internal, "libpng gives rows of " + std::to_string(row_bytes_) + " bytes for " +
                                           std::to_string(width) + " pixels of " + std::to_string(channels_) +
                                           " channels");
    shape_.width = width;
    shape_.height = height;
    shape_.components.resize(static_cast<size_t>(channels_));  // the shape holds no samples
    for (j2kfront::Image::Component& k : shape_.components) {
      k.type = sample_type_for(precision, false);
      k.precision = precision;
      k.width = width;
      k.height = height;
    }
  }

  j2kfront::Image read_rows(uint64_t first, uint64_t rows) override {
    if (passes_ > 1 && rows != shape_.height)
      file_->fail(ErrorCode::UnsupportedInput,
                  "an interlaced (Adam7) PNG can only be decoded whole (" + std::to_string(shape_.height) +
                      " rows), not in bands of " + std::to_string(rows) + "; save it without interlacing");
    j2kfront::Image band = this->band(rows);
    std::vector<png_byte> pixels(static_cast<size_t>(row_bytes_ * (passes_ > 1 ? rows : 1)));
    if (passes_ > 1) {
      std::vector<png_bytep> at(static_cast<size_t>(rows));
      for (uint64_t y = 0; y < rows; ++y) at[y] = pixels.data() + y * row_bytes_;
      guarded("interlaced image", [&] {
        png_read_image(structs_.png, at.data());
        png_read_end(structs_.png, structs_.info);
      });
      collect_metadata();
      for (uint64_t y = 0; y < rows; ++y) split(band, y, pixels.data() + y * row_bytes_);
      return band;
    }
    for (uint64_t y = 0; y < rows; ++y) {
      guarded("row", [&] { png_read_row(structs_.png, pixels.data(), nullptr); }, static_cast<int64_t>(first + y));
      split(band, y, pixels.data());
    }
    // After the last row, the rest of the file up to IEND, so that a file cut after its last
    // row's data (the zlib stream or a CRC incomplete) is not taken as whole.
    // The chunks after the image data (text, Exif) join the header's.
    if (first + rows == shape_.height) {
      guarded("after the last row", [&] { png_read_end(structs_.png, structs_.info); });
      collect_metadata();
    }
    return band;
  }

 private:
  // Refuses, from the header, sizes that no file of this size can hold or that overflow.
  void check_sizes(uint64_t width, uint64_t height, int depth, int channels) const {
    const uint64_t raw_row = (width * static_cast<uint64_t>(channels) * static_cast<uint64_t>(depth) + 7) / 8;
    uint64_t raw = 0;
    if (__builtin_mul_overflow(raw_row + 1, height, &raw) || raw / kMaxDeflateRatio > file_->size())
      file_->fail(ErrorCode::CorruptInput,
                  std::to_string(width) + " x " + std::to_string(height) + " pixels of " + std::to_string(channels) +
                      " x " + std::to_string(depth) + " bits take more pixel data than the file's " +
                      std::to_string(file_->size()) + " bytes can hold (zlib expands at most " +
                      std::to_string(kMaxDeflateRatio) + ":1)");
    const uint64_t row = width * 4 * 2;  // after expansion: at most 4 channels of 2 bytes
    if (row > kMaxRowBytes)
      file_->fail(ErrorCode::UnsupportedInput, "rows of " + std::to_string(width) + " pixels (up to " +
                                                   std::to_string(row) + " bytes) are more than the " +
                                                   std::to_string(kMaxRowBytes) + " bytes a row may take");
  }

  // What the chunks read so far hold that a JP2 file can carry: iCCP, pHYs in pixels per metre
  // (one without a unit is only an aspect ratio, and is left out, with a warning where it is
  // not 1:1), an iTXt XMP packet, eXIf. libpng has checked each and left out (with a warning,
  // kept by on_warning) a damaged one.
  void collect_metadata() {
    png_structp png = structs_.png;
    png_infop info = structs_.info;
    png_charp name = nullptr;
    int compression = 0;
    png_bytep profile = nullptr;
    png_uint_32 length = 0;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &length) && profile != nullptr)
      metadata_.icc.assign(profile, profile + length);
    png_uint_32 x = 0, y = 0;
    int unit = 0;
    if (png_get_pHYs(png, info, &x, &y, &unit) && !metadata_.has_resolution()) {
      if (unit == PNG_RESOLUTION_METER && x > 0 && y > 0) {
        metadata_.x_per_metre = x;
        metadata_.y_per_metre = y;
      } else if (x != y && !pixel_aspect_said_) {
        metadata_.warnings.push_back("its pHYs chunk gives only a pixel aspect ratio (" + std::to_string(x) + ":" + std::to_string(y) +
                                     "), not a resolution: it is not carried");
        pixel_aspect_said_ = true;
      }
    }
    png_textp text = nullptr;
    int count = 0;
    png_get_text(png, info, &text, &count);
    for (int k = 0; k < count; ++k)
      if (text[k].key != nullptr && text[k].text != nullptr && std::strcmp(text[k].key, kPngXmpKeyword) == 0)
        metadata_.xmp.assign(text[k].text, text[k].text + std::strlen(text[k].text));
#ifdef PNG_eXIf_SUPPORTED
    png_bytep exif = nullptr;
    png_uint_32 exif_length = 0;
    if (png_get_eXIf_1(png, info, &exif_length, &exif) && exif != nullptr) metadata_.exif.assign(exif, exif + exif_length);
#endif
  }

  // One decoded row (channels interleaved) into row y of each component.
  void split(j2kfront::Image& band, uint64_t y, const png_byte* px) const {
    const uint64_t w = shape_.width;
    for (int c = 0; c < channels_; ++c) {
      unsigned char* out = band.components[static_cast<size_t>(c)].bytes.data() + y * w * bytes_;
      const png_byte* in = px + c * bytes_;
      const uint64_t step = static_cast<uint64_t>(channels_) * bytes_;
      if (bytes_ == 1)
        for (uint64_t x = 0; x < w; ++x) out[x] = in[x * step];
      else
        for (uint64_t x = 0; x < w; ++x) std::memcpy(out + 2 * x, in + x * step, 2);
    }
  }

  // Runs libpng calls; a libpng error becomes Error(CorruptInput, "<path>: <where> [<row>]:
  // <message>"). The message is built only then: rows are decoded one call each.
  template <class Step>
  void guarded(const char* where, Step&& step, int64_t row = -1) {
    if (setjmp(png_jmpbuf(structs_.png)) != 0)
      file_->fail(ErrorCode::CorruptInput,
                  std::string(where) + (row >= 0 ? " " + std::to_string(row) : "") + ": " + error_);
    step();
  }

  static void on_error(png_structp png, png_const_charp message) {
    auto* self = static_cast<PngReader*>(png_get_error_ptr(png));
    self->error_ = message ? message : "libpng error";
    png_longjmp(png, 1);
  }
  // Damaged ancillary chunks are skipped; what libpng says of the ones whose contents are
  // carried (a cut or oversized iCCP, a bad eXIf) is kept for the caller to say.
  static void on_warning(png_structp png, png_const_charp message) {
    auto* self = static_cast<PngReader*>(png_get_error_ptr(png));
    if (message == nullptr || self->metadata_.warnings.size() >= 8) return;
    const std::string m = message;
    for (const char* chunk : {"iCCP", "pHYs", "iTXt", "eXIf"})
      if (m.rfind(chunk, 0) == 0) {
        self->metadata_.warnings.push_back("its " + std::string(chunk) + " chunk is not read (libpng: " + m + ")");
        return;
      }
  }

  // libpng's input: exactly n bytes, or a libpng error naming the shortfall.
  static void on_read(png_structp png, png_bytep dst, size_t n) {
    auto* self = static_cast<PngReader*>(png_get_io_ptr(png));
    InputFile& in = *self->file_;
    if (in.remaining() < n) png_error(png, "the file is truncated");
    bool failed = false;
    try {
      in.read(dst, n);
    } catch (const std::exception& e) {  // a read error: not thrown through libpng's frames
      self->error_ = e.what();
      failed = true;
    }
    if (failed) png_longjmp(png, 1);  // outside the handler, which must end normally
  }

  std::unique_ptr<InputFile> file_;
  PngStructs structs_;
  std::string error_;
  bool pixel_aspect_said_ = false;
  int passes_ = 1;
  int channels_ = 0;
  uint64_t row_bytes_ = 0;
  uint64_t bytes_ = 1;
};

}  // namespace

std::unique_ptr<FormatReader> open_png(std::unique_ptr<InputFile> in) {
  return std::make_unique<PngReader>(std::move(in));
}

}  // namespace j2k::io::detail

#endif  // J2K_HAVE_PNG
