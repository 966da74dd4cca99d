// SPDX-License-Identifier: BSD-2-Clause
// GeoTIFF's georeferencing (OGC 19-008, GeoTIFF 1.1) between a TIFF file and a JP2 file's GeoJP2
// box (OGC 08-085: a UUID box holding a degenerate GeoTIFF, one pixel, with the same tags). The
// six tags: ModelPixelScale (33550), ModelTiepoint (33922), ModelTransformation (34264),
// GeoKeyDirectory (34735), GeoDoubleParams (34736), GeoAsciiParams (34737). libtiff does not
// know them: register_geotiff_tags() teaches it. Built with libtiff only.
#pragma once
#include <tiffio.h>

#include <cstdint>
#include <string>
#include <vector>

namespace j2k::io {

struct GeoTiffTags {
  std::vector<double> pixel_scale;      // ModelPixelScale: ScaleX, ScaleY, ScaleZ
  std::vector<double> tiepoints;        // ModelTiepoint: (I, J, K, X, Y, Z) each
  std::vector<double> transformation;   // ModelTransformation: a 4 x 4 matrix, by rows
  std::vector<uint16_t> key_directory;  // GeoKeyDirectory: the header, then 4 shorts a key
  std::vector<double> double_params;    // GeoDoubleParams
  std::string ascii_params;             // GeoAsciiParams: '|'-terminated strings, no NUL

  bool empty() const {
    return pixel_scale.empty() && tiepoints.empty() && transformation.empty() && key_directory.empty() &&
           double_params.empty() && ascii_params.empty();
  }
};

// Adds the six tags to every TIFF libtiff opens or creates from now on in this process (a tag
// extender, chained to any the application set); once, however often it is called. Call it
// before opening a file whose tags are read or written.
void register_geotiff_tags();

// The tags `tif`'s current directory holds; a tag of another type than GeoTIFF's, or whose
// count is not what GeoTIFF says (3 scales, 6 a tiepoint, 16 a matrix, 4 shorts a key) is left
// out and named in `left`.
GeoTiffTags read_geotiff_tags(TIFF* tif, std::vector<std::string>& left);
// Sets them (the non-empty ones) on `tif`, a TIFF being written.
void set_geotiff_tags(TIFF* tif, const GeoTiffTags& tags);

// A GeoJP2 box's GeoTIFF for `tags` (after its UUID): a classic little-endian TIFF of one 8-bit
// grey pixel whose directory holds them.
std::vector<uint8_t> geojp2_tiff(const GeoTiffTags& tags);
// The tags of a GeoJP2 box's GeoTIFF (`geotiff`, after its UUID), read through libtiff from
// memory; empty, with `why` set, where it cannot be read or holds none.
GeoTiffTags geotiff_tags_of(const std::vector<uint8_t>& geotiff, std::string& why);

}  // namespace j2k::io
