// SPDX-License-Identifier: BSD-2-Clause
// TIFF output through libtiff: 8- or 16-bit gray, gray + alpha, RGB or RGBA, one strip of
// rows at a time, interleaved (PLANARCONFIG_CONTIG), uncompressed.
#include "io/image_writers.hpp"

#include "common/error.hpp"

#ifndef J2K_HAVE_TIFF

namespace j2k::io {
void write_tiff(std::FILE*, const std::string& name, const ImageSamples&) {
  throw Error(ErrorCode::UnsupportedInput, name + ": TIFF output was not built in (libtiff not found)");
}
}  // namespace j2k::io

#else

#include <tiffio.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace j2k::io {

void write_tiff(std::FILE* file, const std::string& name, const ImageSamples& image) {
  if (std::fflush(file) != 0) throw Error(ErrorCode::Io, name + ": cannot write");
  // libtiff closes the descriptor it is given: give it its own.
  const int fd = ::dup(::fileno(file));
  if (fd < 0) throw Error(ErrorCode::Io, name + ": cannot write (dup failed)");
  TIFF* tif = TIFFFdOpen(fd, name.c_str(), "w");
  if (tif == nullptr) {
    ::close(fd);
    throw Error(ErrorCode::Io, name + ": libtiff cannot open it for writing");
  }
  const auto& c0 = image.components[0];
  const auto width = static_cast<uint32_t>(c0.width), height = static_cast<uint32_t>(c0.height);
  const auto channels = static_cast<uint16_t>(image.components.size());
  int precision = 0;
  for (const auto& c : image.components) precision = std::max(precision, c.precision);
  const uint16_t bits = precision > 8 ? 16 : 8;
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, channels);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, bits);
  TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC,
               image.cmyk ? PHOTOMETRIC_SEPARATED : channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
  if (!image.cmyk && (channels == 2 || channels == 4)) {
    const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
  }
  TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
  TIFFSetField(tif, TIFFTAG_SOFTWARE, (std::string("j2kfront ") + j2k_version()).c_str());
  const size_t size = bits / 8;
  std::vector<unsigned char> row(static_cast<size_t>(width) * channels * size);
  bool ok = true;
  for (uint32_t y = 0; y < height && ok; ++y) {
    interleave_rows(image, y, 1, size == 2, /*big_endian=*/false, row.data());  // native order: libtiff records it
    ok = TIFFWriteScanline(tif, row.data(), y, 0) == 1;
  }
  ok = ok && TIFFWriteDirectory(tif) == 1;
  TIFFClose(tif);
  if (!ok) throw Error(ErrorCode::Io, name + ": libtiff could not write the image");
}

}  // namespace j2k::io

#endif
