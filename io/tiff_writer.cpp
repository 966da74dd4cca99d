// SPDX-License-Identifier: BSD-2-Clause
// TIFF output through libtiff: 8- or 16-bit gray, gray + alpha, RGB or RGBA, one strip of
// rows at a time, interleaved (PLANARCONFIG_CONTIG), uncompressed; with an ICC profile,
// resolution, XMP packet, Exif directory and GeoTIFF tags where given.
#include "io/image_writers.hpp"

#include "common/error.hpp"

#ifndef J2K_HAVE_TIFF

namespace j2k::io {
std::vector<std::string> write_tiff(std::FILE*, const std::string& name, const ImageSamples&, const ImageMetadata*) {
  throw Error(ErrorCode::UnsupportedInput, name + ": TIFF output was not built in (libtiff not found)");
}
}  // namespace j2k::io

#else

#include <tiffio.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/icc_profile.hpp"
#include "io/geotiff.hpp"
#include "io/tiff_exif.hpp"

namespace j2k::io {
namespace {

// Whether v is a whole number, to 1 part in 10^5: a JP2 file's resolution of 300 dpi or a PNG's
// 11811 pixels per metre comes back as 300 dpi.
bool whole(double v) { return std::fabs(v - std::round(v)) <= 1e-5 * std::max(1.0, v); }

// The metadata's tags but Exif (written before them: write_exif_directory); returns what is not
// written and why.
std::vector<std::string> set_metadata(TIFF* tif, const ImageMetadata& m, size_t channels, bool cmyk) {
  std::vector<std::string> left;
  if (!m.icc.empty()) {
    const std::string why = icc_profile_problem(m.icc.data(), m.icc.size(), cmyk ? 0 : channels);
    if (!why.empty() || m.icc.size() > UINT32_MAX) left.push_back("the ICC profile is not written: " + (why.empty() ? "it is over 4 GiB" : why));
    else TIFFSetField(tif, TIFFTAG_ICCPROFILE, static_cast<uint32_t>(m.icc.size()), m.icc.data());
  }
  if (m.has_resolution()) {
    // Dots per inch, or per centimetre where those are whole and the inch's are not.
    const double inch_x = m.x_per_metre * 0.0254, inch_y = m.y_per_metre * 0.0254;
    const double cm_x = m.x_per_metre / 100, cm_y = m.y_per_metre / 100;
    const bool per_cm = !(whole(inch_x) && whole(inch_y)) && whole(cm_x) && whole(cm_y);
    const double x = per_cm ? cm_x : inch_x, y = per_cm ? cm_y : inch_y;
    TIFFSetField(tif, TIFFTAG_XRESOLUTION, static_cast<float>(whole(x) ? std::round(x) : x));
    TIFFSetField(tif, TIFFTAG_YRESOLUTION, static_cast<float>(whole(y) ? std::round(y) : y));
    TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, per_cm ? RESUNIT_CENTIMETER : RESUNIT_INCH);
  }
  if (!m.xmp.empty()) {
    if (m.xmp.size() > UINT32_MAX) left.push_back("the XMP packet is not written: it is over 4 GiB");
    else TIFFSetField(tif, TIFFTAG_XMLPACKET, static_cast<uint32_t>(m.xmp.size()), m.xmp.data());
  }
  if (!m.geotiff.empty()) {
    std::string why;
    const GeoTiffTags geo = geotiff_tags_of(m.geotiff, why);
    if (geo.empty()) left.push_back("the georeferencing (GeoJP2) is not written: " + why);
    else set_geotiff_tags(tif, geo);
  }
  return left;
}

}  // namespace

std::vector<std::string> write_tiff(std::FILE* file, const std::string& name, const ImageSamples& image, const ImageMetadata* metadata) {
  if (std::fflush(file) != 0) throw Error(ErrorCode::Io, name + ": cannot write");
  // libtiff closes the descriptor it is given: give it its own.
  const int fd = ::dup(::fileno(file));
  if (fd < 0) throw Error(ErrorCode::Io, name + ": cannot write (dup failed)");
  register_geotiff_tags();  // before the open: libtiff sets a file's fields up then
  TIFF* tif = TIFFFdOpen(fd, name.c_str(), "w");
  if (tif == nullptr) {
    ::close(fd);
    throw Error(ErrorCode::Io, name + ": libtiff cannot open it for writing");
  }
  // The Exif directory first, while nothing is set: libtiff writes a custom directory from the
  // handle's current one, which write_exif_directory then makes a fresh image directory again;
  // the image's tags follow, and its directory points at the Exif one (TIFFTAG_EXIFIFD).
  std::vector<std::string> left;
  uint64_t exif_offset = 0;
  if (metadata && !metadata->exif.empty()) exif_offset = write_exif_directory(tif, metadata->exif, left);
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
  if (metadata) {
    const std::vector<std::string> unset = set_metadata(tif, *metadata, channels, image.cmyk);
    left.insert(left.end(), unset.begin(), unset.end());
  }
  if (exif_offset != 0) TIFFSetField(tif, TIFFTAG_EXIFIFD, exif_offset);
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
  return left;
}

}  // namespace j2k::io

#endif
