// SPDX-License-Identifier: BSD-2-Clause
// Writing decoded images: binary PGM/PPM, PGX, TIFF and PNG, chosen by the output's
// extension (as opj_decompress chooses). Samples are written as they are, at the narrowest
// width the format has for the component's precision (8 or 16 bits; PGX: its own).
#pragma once
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "io/image_metadata.hpp"
#include "j2kfront/j2kfront.hpp"

namespace j2k::io {

// What the writers read of an image: each component's samples where they already are (an
// Image's buffers, or the views a decoder returns), rows packed; nothing is copied.
struct ComponentSamples {
  j2k_sample_type type = J2K_SAMPLE_U8;
  int precision = 8;
  int64_t width = 0, height = 0;
  const unsigned char* data = nullptr;  // height rows of width samples

  size_t sample_size() const { return j2k_sample_size(type); }
  template <class T>
  const T* row(int64_t y) const {
    return reinterpret_cast<const T*>(data + static_cast<size_t>(y * width) * sizeof(T));
  }
};
struct ImageSamples {
  std::vector<ComponentSamples> components;
  bool cmyk = false;  // the four components are C, M, Y and K: TIFF writes them as separated inks
};
ImageSamples samples_of(const j2kfront::Image& image);
// A decoded image as j2k_decoder_run returns it (host or pinned memory, packed rows); Error
// (InvalidArgument) for any other layout.
ImageSamples samples_of(const j2k_image_view& view);

// Pgm: a .pgm name (grey: one component); Pnm: .ppm or .pnm (P5, P6 or PAM by components).
enum class ImageFormat { Pgm, Pnm, Pgx, Tiff, Png };

// The format of a file named `path` (.pgm, .ppm, .pnm; .pgx; .tif, .tiff; .png, any case):
// the image files j2kfront reads and writes. nullopt for any other name.
std::optional<ImageFormat> image_format_of(const std::string& path);
// The same, throwing Error(InvalidArgument) naming the extensions for any other.
ImageFormat image_format_for(const std::string& path);

// The components a PGM/PPM file holds of `image`, as opj_decompress writes them: a .pgm the
// first (P5); a .ppm or .pnm 1 (P5), 2 (PAM, GRAYSCALE_ALPHA), 3 (P6), 4 (PAM, RGB_ALPHA),
// or the first 3 of more (P6). The image itself for the other formats. The caller says which
// it left out (a warning, as opj_decompress gives none).
ImageSamples written_components(const ImageSamples& image, ImageFormat format);

// Why `image` (its written_components()) cannot be written as `format` ("" when it can):
// PGM/PPM, TIFF and PNG need unsigned components of one size (1 gray, 2 gray + alpha, 3 RGB,
// 4 RGBA) of at most 16 bits; PGX takes anything, one file per component.
std::string cannot_write(const ImageSamples& image, ImageFormat format);

// PGX writes one file per component: where component c of `path` goes
// ("out.pgx" -> "out_0.pgx", as opj_decompress names them).
std::string pgx_component_path(const std::string& path, size_t component);

// Rows y0 .. y0 + rows - 1 of the components (U8 or U16, one size) interleaved into `out`,
// 8-bit or (wide) 16-bit in native or big-endian order: what the PGM/PPM, PNG and TIFF
// writers write.
void interleave_rows(const ImageSamples& image, int64_t y0, int64_t rows, bool wide, bool big_endian, unsigned char* out);

// Each into a stream the caller opened and closes (`name` for messages); Error(Io) when a
// write fails. write_pnm: P5 for 1 component, P6 for 3, PAM (P7) for 2 and 4.
void write_pnm(std::FILE* file, const std::string& name, const ImageSamples& image);
// The same file a band of rows at a time, as a decoder hands them out: the header (for
// `height` rows, of the shape's components and width) when made, then each band's rows in turn
// (its components' height: the band's), then finish(). The bytes are write_pnm's.
class PnmWriter {
 public:
  PnmWriter(std::FILE* file, std::string name, const ImageSamples& shape, int64_t height);
  void rows(const ImageSamples& band);
  void finish();
  bool wide() const { return wide_; }  // two bytes a sample

 private:
  std::FILE* file_;
  std::string name_;
  bool wide_;
  size_t row_bytes_ = 0;
  int64_t band_ = 1;  // rows a write
  std::vector<unsigned char> buffer_;
};
void write_pgx(std::FILE* file, const std::string& name, const ComponentSamples& component, bool is_signed);
// write_tiff and write_png_image also write what `metadata` holds (where not null): TIFF its
// ICCProfile, resolution (in dots per inch or per centimetre, whichever is whole, else per
// inch), XMP tags, Exif directory (tag 34665) and GeoTIFF tags; PNG its iCCP, pHYs, iTXt XMP
// and eXIf chunks (not the georeferencing: the caller says so). They return what of it was not
// written and why (Exif entries libtiff does not know, a profile that does not fit), one
// sentence each.
std::vector<std::string> write_tiff(std::FILE* file, const std::string& name, const ImageSamples& image,
                                    const ImageMetadata* metadata = nullptr);
std::vector<std::string> write_png_image(std::FILE* file, const std::string& name, const ImageSamples& image,
                                         const ImageMetadata* metadata = nullptr);

}  // namespace j2k::io
