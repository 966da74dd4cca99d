// SPDX-License-Identifier: BSD-2-Clause
// The colour conversions opj_decompress makes with Little CMS (OpenJPEG 2.5's color.c), after
// those of opj_colour.hpp, for a JP2 file's colour specification:
//  - an ICC profile (colr method 2) to sRGB, in the profile's rendering intent: an RGB or
//    YCbCr profile on components 0..2 (a fourth, alpha, stays as it is), a grey profile on
//    component 0, which becomes R, G and B (an alpha after it moves to the fourth place);
//    8-bit samples through Little CMS's 8-bit types and 16-bit ones through its 16-bit types,
//    as they are, so that the output is opj_decompress's bit for bit. Where opj_decompress
//    gives no colour-managed result, it is done right here instead: samples of other depths
//    (1 to 15 bits) are scaled to 16 bits and back (opj_decompress hands them to Little CMS
//    unscaled, as if they were 8- or 16-bit, so that white comes out dark), grey above 8 bits
//    goes through the 16-bit types (it reads such samples as bytes), and a YCbCr profile at 8
//    bits through the 8-bit ones (it uses 16-bit types there);
//  - CIELab (EnumCS 14) to 16-bit sRGB: each sample scaled to L*, a*, b* by the box's ranges
//    and offsets (or ISO/IEC 15444-2's defaults), through Little CMS's D50 Lab profile, in
//    perceptual intent, as color_cielab_to_rgb does.
// What either leaves unconverted (a profile of another colour space, components that do not
// match, signed samples, more than 16 bits, a build without Little CMS) is kept as decoded,
// with a warning saying why.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codec/codestream/jp2_reader.hpp"
#include "codec/decoder.hpp"

namespace j2k::codec {

// Each returns whether it converted; where not, it says why in image.warnings.
bool apply_icc_profile(DecodedImage& image, const std::vector<uint8_t>& profile);
bool apply_cielab(DecodedImage& image, const Jp2CieLab& lab);

}  // namespace j2k::codec
