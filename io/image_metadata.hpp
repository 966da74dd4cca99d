// SPDX-License-Identifier: BSD-2-Clause
// What an image file says beside its samples that a JP2 file can hold too: its ICC profile, its
// resolution, its XMP packet, its Exif and its georeferencing. The readers fill it from TIFF tags
// (ICCProfile 34675, XResolution / YResolution / ResolutionUnit, XMP 700, the Exif directory
// 34665, GeoTIFF's six tags) and PNG chunks (iCCP, pHYs, iTXt "XML:com.adobe.xmp", eXIf); the
// TIFF and PNG writers put it back in the same places (PNG has none for georeferencing).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace j2k::io {

struct ImageMetadata {
  std::vector<uint8_t> icc;  // an ICC profile, as the file holds it (empty: none)
  // Pixels per metre across and down (0, 0: none). A TIFF's inches and centimetres are
  // converted; a resolution without a unit (TIFF's "none", PNG's "unknown") is not taken.
  double x_per_metre = 0, y_per_metre = 0;
  std::vector<uint8_t> xmp;   // an XMP packet (UTF-8 XML)
  std::vector<uint8_t> exif;  // Exif as a TIFF structure: "II*\0" or "MM\0*", then its IFDs
  // GeoTIFF's tags as a GeoJP2 box holds them (OGC 08-085): a degenerate GeoTIFF, one pixel
  // whose directory holds ModelPixelScale, ModelTiepoint, ModelTransformation and the GeoKey
  // tags (io/geotiff.hpp)
  std::vector<uint8_t> geotiff;
  // What the file held that could not be taken (a damaged iCCP chunk, a resolution without a
  // unit), one sentence each, for the caller to say.
  std::vector<std::string> warnings;

  bool has_resolution() const { return x_per_metre > 0 && y_per_metre > 0; }
  bool empty() const { return icc.empty() && !has_resolution() && xmp.empty() && exif.empty() && geotiff.empty(); }
};

// The PNG iTXt keyword of an XMP packet (XMP specification part 3, 1.1.5).
constexpr const char* kPngXmpKeyword = "XML:com.adobe.xmp";

}  // namespace j2k::io
