// Writing decoded images: binary PGM/PPM, PGX, TIFF and PNG, chosen by the output's
// extension (as opj_decompress chooses). Samples are written as they are, at the narrowest
// width the format has for the component's precision (8 or 16 bits; PGX: its own).
#pragma once
#include <cstdio>
#include <string>

#include "j2kfront/j2kfront.hpp"

namespace j2k::io {

enum class ImageFormat { Pnm, Pgx, Tiff, Png };

// The format of a file named `path` (.pgm, .ppm, .pnm; .pgx; .tif, .tiff; .png, any case).
// Throws Error(InvalidArgument) naming the extensions for any other.
ImageFormat image_format_for(const std::string& path);

// Why `image` cannot be written as `format` ("" when it can): PGM/PPM, TIFF and PNG need
// unsigned components of one size (1 gray, 2 gray + alpha, 3 RGB, 4 RGBA; PGM/PPM: 1 or 3)
// of at most 16 bits; PGX takes anything, one file per component.
std::string cannot_write(const j2kfront::Image& image, ImageFormat format);

// PGX writes one file per component: where component c of `path` goes
// ("out.pgx" -> "out_0.pgx", as opj_decompress names them).
std::string pgx_component_path(const std::string& path, size_t component);

// Each into a stream the caller opened and closes (`name` for messages); Error(Io) when a
// write fails.
void write_pnm(std::FILE* file, const std::string& name, const j2kfront::Image& image);
void write_pgx(std::FILE* file, const std::string& name, const j2kfront::Image::Component& component, bool is_signed);
void write_tiff(std::FILE* file, const std::string& name, const j2kfront::Image& image);
void write_png_image(std::FILE* file, const std::string& name, const j2kfront::Image& image);

}  // namespace j2k::io
