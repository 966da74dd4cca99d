// SPDX-License-Identifier: BSD-2-Clause
#include "io/image_writers.hpp"

#include "common/file_names.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "common/error.hpp"
#include "common/sample_type.hpp"
#include "io/image_io.hpp"
#include "io/interleave_rgb8.hpp"

namespace j2k::io {
namespace {

void put(std::FILE* file, const std::string& name, const void* data, size_t size) {
  if (size > 0 && std::fwrite(data, 1, size, file) != size) throw Error(ErrorCode::Io, name + ": cannot write: " + std::strerror(errno));
}

}  // namespace

// One loop per component, its sample type fixed, so that the compiler sees a plain strided
// copy.
void interleave_rows(const ImageSamples& image, int64_t y0, int64_t rows, bool wide, bool big_endian, unsigned char* out) {
  const size_t channels = image.components.size(), size = wide ? 2 : 1;
  const size_t n = static_cast<size_t>(image.components[0].width * rows), step = channels * size;
  // 8-bit RGB, the common case, in one pass whose stores are contiguous (interleave_rgb8.hpp).
  if (!wide && channels == 3 &&
      std::all_of(image.components.begin(), image.components.end(), [](const ComponentSamples& k) { return k.type == J2K_SAMPLE_U8; })) {
    const uint8_t* r = image.components[0].row<uint8_t>(y0);
    const uint8_t* g = image.components[1].row<uint8_t>(y0);
    const uint8_t* b = image.components[2].row<uint8_t>(y0);
    interleave_rgb8(r, g, b, n, out);
    return;
  }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  // 16-bit grey, big-endian (PNM) on a little-endian host: a byte swap per sample, stored
  // contiguously (the loop below stores each byte apart, which does not vectorise: 5% of a
  // one-thread 4096^2 grey decode to PGM).
  if (wide && big_endian && channels == 1 && image.components[0].type == J2K_SAMPLE_U16) {
    const uint16_t* src = image.components[0].row<uint16_t>(y0);
    for (size_t i = 0; i < n; ++i) {
      const auto v = static_cast<uint16_t>(src[i] << 8 | src[i] >> 8);
      std::memcpy(out + 2 * i, &v, 2);
    }
    return;
  }
#endif
  for (size_t c = 0; c < channels; ++c) {
    const ComponentSamples& k = image.components[c];
    unsigned char* d = out + c * size;
    auto copy = [&](const auto* src) {
      if (!wide) {
        for (size_t i = 0; i < n; ++i) d[i * step] = static_cast<unsigned char>(src[i]);
      } else if (big_endian) {
        for (size_t i = 0; i < n; ++i) {
          d[i * step] = static_cast<unsigned char>(src[i] >> 8);
          d[i * step + 1] = static_cast<unsigned char>(src[i]);
        }
      } else {
        for (size_t i = 0; i < n; ++i) {
          const auto v = static_cast<uint16_t>(src[i]);
          std::memcpy(d + i * step, &v, 2);
        }
      }
    };
    if (k.type == J2K_SAMPLE_U16) copy(k.row<uint16_t>(y0));
    else copy(k.row<uint8_t>(y0));
  }
}

namespace {

// The whole image interleaved (interleave_rows).
std::vector<unsigned char> interleave(const ImageSamples& image, bool wide, bool big_endian) {
  const size_t n = static_cast<size_t>(image.components[0].width * image.components[0].height);
  std::vector<unsigned char> out(n * image.components.size() * (wide ? 2 : 1));
  interleave_rows(image, 0, image.components[0].height, wide, big_endian, out.data());
  return out;
}

int max_precision(const ImageSamples& image) {
  int p = 0;
  for (const auto& c : image.components) p = std::max(p, c.precision);
  return p;
}

}  // namespace

ImageSamples samples_of(const j2kfront::Image& image) {
  ImageSamples out;
  for (const j2kfront::Image::Component& k : image.components)
    out.components.push_back(ComponentSamples{k.type, k.precision, k.width, k.height, k.bytes.data()});
  return out;
}

ImageSamples samples_of(const j2k_image_view& view) {
  if (view.memory == J2K_MEMORY_DEVICE) throw Error(ErrorCode::InvalidArgument, "the image to write is in GPU memory");
  ImageSamples out;
  for (int c = 0; c < view.num_components; ++c) {
    const j2k_component_view& k = view.components[c];
    const auto size = static_cast<ptrdiff_t>(j2k_sample_size(k.type));
    if (k.bytes == 0)  // a subsampled component that a reduction leaves without a column or row
      throw Error(ErrorCode::InvalidArgument, "component " + std::to_string(c) +
                                                  " of the image to write has no samples: no image file holds an empty component");
    if (k.pixel_stride != size || k.row_stride < size || k.row_stride % size != 0)
      throw Error(ErrorCode::InvalidArgument, "component " + std::to_string(c) + " of the image to write has no packed rows");
    ComponentSamples s{k.type, k.precision, k.row_stride / size, static_cast<int64_t>(k.bytes / static_cast<size_t>(k.row_stride)),
                       static_cast<const unsigned char*>(k.data)};
    out.components.push_back(s);
  }
  return out;
}

std::optional<ImageFormat> image_format_of(const std::string& path) {
  const std::string e = lower_extension(path);
  if (e == ".pgm") return ImageFormat::Pgm;
  if (e == ".ppm" || e == ".pnm") return ImageFormat::Pnm;
  if (e == ".pgx") return ImageFormat::Pgx;
  if (e == ".tif" || e == ".tiff") return ImageFormat::Tiff;
  if (e == ".png") return ImageFormat::Png;
  return std::nullopt;
}

ImageFormat image_format_for(const std::string& path) {
  if (const std::optional<ImageFormat> f = image_format_of(path)) return *f;
  const std::string e = lower_extension(path);
  throw Error(ErrorCode::InvalidArgument, path + ": the output's extension names its format: .pgm, .ppm, .pnm, .pgx, .tif, .tiff or .png, not '" + e + "'");
}

ImageSamples written_components(const ImageSamples& image, ImageFormat format) {
  const size_t n = image.components.size();
  size_t keep = n;
  if (format == ImageFormat::Pgm) keep = std::min<size_t>(n, 1);
  if (format == ImageFormat::Pnm && n > 4) keep = 3;
  ImageSamples out = image;
  out.components.resize(keep);
  return out;
}

std::string cannot_write(const ImageSamples& whole, ImageFormat format) {
  if (format == ImageFormat::Pgx) return "";
  const ImageSamples image = written_components(whole, format);
  const size_t n = image.components.size();
  const bool pnm = format == ImageFormat::Pgm || format == ImageFormat::Pnm;
  const char* what = pnm ? "PGM/PPM" : format == ImageFormat::Tiff ? "TIFF" : "PNG";
  if (n < 1 || n > 4)
    return std::string(what) + " holds 1 to 4 components, the image has " + std::to_string(n) +
           "; write .pgx (one file per component)";
  for (size_t c = 0; c < n; ++c) {
    const auto& k = image.components[c];
    if (k.width != image.components[0].width || k.height != image.components[0].height)
      return std::string(what) + " needs components of one size, and component " + std::to_string(c) +
             " is subsampled; write .pgx (one file per component)";
    if (sample_is_signed(k.type)) return std::string(what) + " holds unsigned samples, and component " + std::to_string(c) + " is signed; write .pgx";
    if (k.precision > 16) return std::string(what) + " holds at most 16 bits a sample; write .pgx";
  }
  return "";
}

std::string pgx_component_path(const std::string& path, size_t component) {
  const std::filesystem::path p(path);
  return (p.parent_path() / (p.stem().string() + "_" + std::to_string(component) + p.extension().string())).string();
}

PnmWriter::PnmWriter(std::FILE* file, std::string name, const ImageSamples& shape, int64_t height)
    : file_(file), name_(std::move(name)), wide_(max_precision(shape) > 8) {
  const auto& c0 = shape.components[0];
  const size_t n = shape.components.size();
  const std::string maxval = std::to_string((1u << max_precision(shape)) - 1);
  // Two and four components (grey or RGB with alpha) as a PAM, as opj_decompress writes them.
  const std::string header =
      n == 2 || n == 4
          ? "P7\nWIDTH " + std::to_string(c0.width) + "\nHEIGHT " + std::to_string(height) + "\nDEPTH " +
                std::to_string(n) + "\nMAXVAL " + maxval + "\nTUPLTYPE " + (n == 2 ? "GRAYSCALE_ALPHA" : "RGB_ALPHA") +
                "\nENDHDR\n"
          : std::string(n == 1 ? "P5" : "P6") + "\n" + std::to_string(c0.width) + " " + std::to_string(height) + "\n" +
                maxval + "\n";
  put(file_, name_, header.data(), header.size());
  // The samples go out through one buffer of about 1 MiB, most significant byte first, made by
  // the first rows(): a caller that writes the rows itself (decompress's RowsInBackground)
  // never needs it (zeroed here, it had cost a 16-thread decode's main thread 0.6 ms).
  row_bytes_ = static_cast<size_t>(c0.width) * n * (wide_ ? 2 : 1);
  band_ = std::max<int64_t>(1, static_cast<int64_t>((size_t{1} << 20) / std::max<size_t>(row_bytes_, 1)));
}

void PnmWriter::rows(const ImageSamples& band) {
  const int64_t height = band.components[0].height;
  for (int64_t y = 0; y < height; y += band_) {
    const int64_t rows = std::min(band_, height - y);
    if (buffer_.size() < static_cast<size_t>(rows) * row_bytes_) buffer_.resize(static_cast<size_t>(rows) * row_bytes_);
    interleave_rows(band, y, rows, wide_, /*big_endian=*/true, buffer_.data());
    put(file_, name_, buffer_.data(), static_cast<size_t>(rows) * row_bytes_);
  }
}

void PnmWriter::finish() {
  if (std::fflush(file_) != 0) throw Error(ErrorCode::Io, name_ + ": cannot write: " + std::strerror(errno));
}

void write_pnm(std::FILE* file, const std::string& name, const ImageSamples& image) {
  PnmWriter out(file, name, image, image.components[0].height);
  out.rows(image);  // a band of rows at a time: no copy of the whole image
  out.finish();
}

// The header as opj_decompress writes it ("PG ML + 8 W H", the sign apart from the depth), so
// that the files are the same byte for byte; readers take either spelling.
void write_pgx(std::FILE* file, const std::string& name, const ComponentSamples& c, bool is_signed) {
  const std::string header = "PG ML " + std::string(is_signed ? "- " : "+ ") + std::to_string(c.precision) + " " +
                             std::to_string(c.width) + " " + std::to_string(c.height) + "\n";
  put(file, name, header.data(), header.size());
  const size_t n = static_cast<size_t>(c.width * c.height), size = c.sample_size();
  std::vector<unsigned char> out(n * size);  // big-endian (ML)
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < size; ++k) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      out[i * size + k] = c.data[i * size + size - 1 - k];
#else
      out[i * size + k] = c.data[i * size + k];
#endif
    }
  put(file, name, out.data(), out.size());
  if (std::fflush(file) != 0) throw Error(ErrorCode::Io, name + ": cannot write: " + std::strerror(errno));
}

std::vector<std::string> write_png_image(std::FILE* file, const std::string& name, const ImageSamples& image,
                                         const ImageMetadata* metadata) {
  const bool wide = max_precision(image) > 8;
  const std::vector<unsigned char> pixels = interleave(image, wide, /*big_endian=*/false);  // write_png swaps
  PngPixels p;
  p.pixels = pixels.data();
  p.width = static_cast<uint32_t>(image.components[0].width);
  p.height = static_cast<uint32_t>(image.components[0].height);
  p.channels = static_cast<int>(image.components.size());
  p.bit_depth = wide ? 16 : 8;
  p.row_stride = static_cast<ptrdiff_t>(p.width) * p.channels * (wide ? 2 : 1);
  return write_png(file, name, p, metadata);
}

}  // namespace j2k::io
