// SPDX-License-Identifier: BSD-2-Clause
// The JP2 file format (ISO/IEC 15444-1 Annex I): a codestream wrapped in the boxes a .jp2
// reader expects. The signature box, the File Type box, the JP2 Header box (Image Header,
// Bits Per Component where the components differ, a Colour Specification: an enumerated colour
// space or an ICC profile, a Channel Definition where the last component is an alpha channel,
// a Resolution box where a capture or display resolution is given), the boxes the caller carries (XML,
// UUID: XMP, Exif, GeoJP2, ...), then the codestream in one Contiguous Codestream box. No
// palette or IPR box.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "codec/codestream/jp2_boxes.hpp"

namespace j2k::codec {

struct Jp2Component {
  int precision = 8;  // bits, 1..38 (I.5.3.1: BPC holds the depth minus one in 7 bits)
  bool is_signed = false;
};

// The enumerated colour spaces of the Colour Specification box (I.5.3.3): EnumCS 16 (sRGB),
// 17 (greyscale) and 18 (sYCC).
enum class Jp2Colour { Srgb, Greyscale, Sycc };

struct Jp2Info {
  uint32_t width = 0, height = 0;        // the image area: Xsiz - XOsiz, Ysiz - YOsiz
  std::vector<Jp2Component> components;  // 1..16384, in the codestream's order
  Jp2Colour colour = Jp2Colour::Srgb;
  // A JPH file (ISO/IEC 15444-15 Annex D) for a codestream of HT code-blocks: the same boxes,
  // brand 'jph ' and 'jph ' in the compatibility list instead of 'jp2 '.
  bool jph = false;
  // The last component is opacity (grey + alpha, RGB + alpha): a cdef box (I.5.3.6) says so,
  // the others colour channels 1, 2, 3 in order, as opj_compress writes it.
  bool last_is_alpha = false;
  // An ICC profile (empty: none): the Colour Specification box says it (METH 2, the restricted
  // ICC method, I.5.3.3) instead of `colour`. A grey profile for 1 or 2 components, an RGB one
  // for 3 or more (common/icc_profile.hpp checks its header; its tags are carried as they are).
  std::vector<uint8_t> icc;
  // The capture resolution (I.5.3.7.1) and the default display resolution (I.5.3.7.2), in a
  // Resolution box after the others of the JP2 Header box; neither given: no Resolution box.
  Jp2Resolution capture, display;
  // Boxes written as they are after the JP2 Header box, before the codestream, in this order
  // (XML, UUID and the like: none of the four boxes of the file's structure).
  std::vector<Jp2Box> boxes;
};

// The JP2 file of `codestream` (a Part 1 codestream, SOC to EOC, carried as is): the signature
// box, the File Type box (brand 'jp2 ', minor version 0, compatible with 'jp2 '; 'jph ' for
// Jp2Info::jph), the JP2
// Header box (ihdr; bpcc only where the components' precisions or signedness differ; colr,
// method 1 with the enumerated colour space or method 2 with the ICC profile; cdef for an
// alpha channel; res with resc for a capture resolution and resd for a display one), the
// boxes to carry, then the Contiguous Codestream box. Throws j2k::Error (InvalidArgument) naming the cause for an
// impossible Jp2Info: no components or more than 16384, a zero width or height, a precision
// outside 1..38, an unknown colour, an ICC profile whose header is broken or does not fit the
// components, a resolution that is not a positive number the box can hold (1/65535 x 10^-128
// to 65535 x 10^127), a box of the file's structure or a UUID box of fewer than 16 bytes.
std::vector<uint8_t> write_jp2(const Jp2Info& info, const std::vector<uint8_t>& codestream);
// The same file up to the codestream, for a writer that streams a codestream of
// `codestream_bytes` bytes after it (the Contiguous Codestream box's header last).
std::vector<uint8_t> jp2_boxes_before_codestream(const Jp2Info& info, uint64_t codestream_bytes);

// A JP2 file (JPH for `jph`) of `codestream` around the contents of a JP2 Header box as
// another file had it (`header_contents`, `header_bytes` of them: ihdr, bpcc, colr, pclr,
// cmap, cdef, res, carried as they are): the signature and File Type boxes as write_jp2
// writes them, that box, `boxes` (as Jp2Info::boxes), then the Contiguous Codestream box.
std::vector<uint8_t> write_jp2_with_header(const uint8_t* header_contents, size_t header_bytes, bool jph,
                                           const std::vector<Jp2Box>& boxes, const std::vector<uint8_t>& codestream);

// The colour space a reader should be told for `ncomp` components: Greyscale for 1 or 2 (grey
// and perhaps an extra channel), Srgb for 3 or more, with or without the multiple-component
// transform (a JP2 decoder undoes the MCT itself: the codestream's COD says it is there, and
// the colour space is that of the samples after its inverse, I.5.3.3). 0 gives Greyscale.
Jp2Colour default_colour(size_t ncomp);

namespace jp2_detail {
// A box's header (I.4) for `content_bytes` of contents: LBox and TBox, or LBox = 1, TBox and
// the 64-bit XLBox where the box (header included) exceeds 2^32 - 1 bytes. Exposed for the
// test, which cannot build a box that large to see the switch.
std::vector<uint8_t> box_header(uint32_t type, uint64_t content_bytes);

// A resolution's fields (I.5.3.7.1): value = n / d x 10^e grid points per metre, n and d of 16
// bits, e of 8 (signed): the closest of them to `per_metre` (exact for whole numbers up to
// 65535 x 10^127, and for whole dots per inch: 300 dpi is 15000 / 127 x 10^2). Throws
// Error(InvalidArgument) for a value that is not positive and finite or out of that range.
struct ResolutionFields {
  uint32_t n = 0, d = 0;
  int e = 0;
};
ResolutionFields resolution_fields(double per_metre);
}  // namespace jp2_detail

}  // namespace j2k::codec
