// SPDX-License-Identifier: BSD-2-Clause
// The colour conversions that Debian's opj_decompress (OpenJPEG 2.5) applies to a decoded
// image before it writes any file, so that `j2kfront decompress` writes what it writes:
//  - sYCC to RGB, for a JP2 file whose colour specification says sYCC (EnumCS 18) and for any
//    image of three components whose first has dx == dy and whose second is subsampled
//    horizontally (a raw codestream too): 4:4:4, 4:2:2 and 4:2:0 as its color.c does them,
//    chroma taken from the samples as they are (no filter), each product in double precision
//    truncated towards zero, and, where the area starts at an odd column or row, that first
//    column or row converted with Cb = Cr = 0 (not the middle of their range: OpenJPEG's own
//    choice, kept here for the same output), as is a last odd column past the chroma planes'
//    width (Debian 12's OpenJPEG 2.5.0 carries that bound, which later releases have too);
//  - e-sYCC (EnumCS 24) to RGB, in single precision, rounded half up;
//  - CMYK (EnumCS 12) to 8-bit RGB, in single precision, truncated (opj_decompress does it for
//    every output but TIFF, which keeps CMYK: keep_cmyk).
// ICC profiles and CIELab, which opj_decompress converts with Little CMS after these, are
// icc_colour.hpp's.
#pragma once
#include <cstdint>

#include "codec/decoder.hpp"

namespace j2k::codec {

// `enum_cs`: the JP2 file's EnumCS (0 for a raw codestream or an ICC profile); `grid_x0`,
// `grid_y0`: the decoded area's origin on the reference grid at full resolution (the image's,
// or the tile's or region's), whose parity OpenJPEG reads; `keep_cmyk`: CMYK is left as it is
// (opj_decompress's TIFF output). Returns whether it converted. Defined at every precision
// (OpenJPEG's int sums overflow at 31 bits; these clamp); throws Error(UnsupportedInput), naming
// the component, its precision and the conversion, for sYCC or e-sYCC of more than
// kMaxDecodedPrecision bits (a JP2 palette's columns), whose results the samples cannot hold.
bool apply_opj_colour(DecodedImage& image, int enum_cs, int64_t grid_x0, int64_t grid_y0, bool keep_cmyk = false);

}  // namespace j2k::codec
