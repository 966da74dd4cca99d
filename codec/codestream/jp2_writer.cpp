// SPDX-License-Identifier: BSD-2-Clause
#include "codec/codestream/jp2_writer.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "common/error.hpp"
#include "common/icc_profile.hpp"
#include "tiling/limits.hpp"  // NC (I.5.3.1) has Csiz's range; BPC/bpcc hold depths 1..38

namespace j2k::codec {
namespace {

void put8(std::vector<uint8_t>& o, uint32_t v) { o.push_back(static_cast<uint8_t>(v)); }
void put16(std::vector<uint8_t>& o, uint32_t v) { put8(o, v >> 8), put8(o, v); }
void put32(std::vector<uint8_t>& o, uint32_t v) { put16(o, v >> 16), put16(o, v); }
void put64(std::vector<uint8_t>& o, uint64_t v) {
  put32(o, static_cast<uint32_t>(v >> 32)), put32(o, static_cast<uint32_t>(v));
}

constexpr uint32_t fourcc(const char (&s)[5]) { return jp2_fourcc(s); }

// The boxes (I.5), and the signature's contents: <CR><LF><0x87><LF>, which a transfer that
// mangles line ends or the eighth bit does not leave intact.
constexpr uint32_t kSignatureBox = fourcc("jP  ");         // I.5.1
constexpr uint32_t kSignature = 0x0D0A870A;
constexpr uint32_t kFileTypeBox = fourcc("ftyp");          // I.5.2
constexpr uint32_t kJp2Brand = fourcc("jp2 ");
constexpr uint32_t kJphBrand = fourcc("jph ");  // ISO/IEC 15444-15 D.2
constexpr uint32_t kHeaderBox = fourcc("jp2h");            // I.5.3, a superbox
constexpr uint32_t kImageHeaderBox = fourcc("ihdr");       // I.5.3.1
constexpr uint32_t kBitsPerComponentBox = fourcc("bpcc");  // I.5.3.2
constexpr uint32_t kColourBox = fourcc("colr");            // I.5.3.3
constexpr uint32_t kChannelsBox = fourcc("cdef");          // I.5.3.6
constexpr uint32_t kResolutionBox = fourcc("res ");        // I.5.3.7, a superbox
constexpr uint32_t kCaptureResolutionBox = fourcc("resc"); // I.5.3.7.1
constexpr uint32_t kDisplayResolutionBox = fourcc("resd"); // I.5.3.7.2
constexpr uint32_t kCodestreamBox = fourcc("jp2c");        // I.5.4

// A component's depth byte, as BPC and the bpcc entries hold it: the depth minus one in the
// low 7 bits, the sign in the high bit (I.5.3.1, I.5.3.2).
uint32_t depth_byte(const Jp2Component& c) {
  return static_cast<uint32_t>(c.precision - 1) | (c.is_signed ? 0x80u : 0u);
}

// EnumCS (I.5.3.3).
uint32_t enum_cs(Jp2Colour colour) {
  switch (colour) {
    case Jp2Colour::Srgb: return 16;
    case Jp2Colour::Greyscale: return 17;
    case Jp2Colour::Sycc: return 18;
  }
  throw Error(ErrorCode::InvalidArgument,
              "JP2: unknown colour space " + std::to_string(static_cast<int>(colour)) +
                  " (sRGB, greyscale or sYCC)");
}

// Appends a box of `type` around `contents` to `out`.
void put_box(std::vector<uint8_t>& out, uint32_t type, const std::vector<uint8_t>& contents) {
  const std::vector<uint8_t> h = jp2_detail::box_header(type, contents.size());
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), contents.begin(), contents.end());
}

// The boxes a writer carries must leave the file's structure to it; a UUID box starts with
// its UUID.
void check_boxes(const std::vector<Jp2Box>& boxes) {
  for (const Jp2Box& b : boxes) {
    if (is_jp2_structure_box(b.type))
      throw Error(ErrorCode::InvalidArgument, "JP2: a '" + jp2_box_name(b.type) +
                                                  "' box is the file's own (signature, File Type, JP2 Header and "
                                                  "Contiguous Codestream boxes are not carried)");
    if (b.type == fourcc("uuid") && b.contents.size() < 16)
      throw Error(ErrorCode::InvalidArgument, "JP2: a UUID box of " + std::to_string(b.contents.size()) +
                                                  " bytes; it starts with its 16-byte UUID");
  }
}

// The signature and File Type boxes, the JP2 Header box around `header`, `boxes`, then the
// Contiguous Codestream box around `codestream`.
// The file up to its codestream of `codestream_bytes` bytes (the Contiguous Codestream box's
// header last), with room for `extra_capacity` bytes more.
std::vector<uint8_t> boxes_before(const uint8_t* header, size_t header_bytes, bool jph, const std::vector<Jp2Box>& boxes,
                                  uint64_t codestream_bytes, size_t extra_capacity) {
  check_boxes(boxes);
  const std::vector<uint8_t> jp2h = jp2_detail::box_header(kHeaderBox, header_bytes);
  const std::vector<uint8_t> jp2c = jp2_detail::box_header(kCodestreamBox, codestream_bytes);
  size_t extra = 0;
  for (const Jp2Box& b : boxes) extra += 16 + b.contents.size();
  std::vector<uint8_t> out;
  out.reserve(12 + 20 + jp2h.size() + header_bytes + extra + jp2c.size() + extra_capacity);
  // Signature box (I.5.1), first, then the File Type box (I.5.2) right after it: brand 'jp2 ',
  // minor version 0, and 'jp2 ' in the compatibility list, where a reader looks for it.
  std::vector<uint8_t> box = jp2_detail::box_header(kSignatureBox, 4);
  out.insert(out.end(), box.begin(), box.end());
  put32(out, kSignature);
  box = jp2_detail::box_header(kFileTypeBox, 12);
  out.insert(out.end(), box.begin(), box.end());
  const uint32_t brand = jph ? kJphBrand : kJp2Brand;
  put32(out, brand);
  put32(out, 0);
  put32(out, brand);
  out.insert(out.end(), jp2h.begin(), jp2h.end());
  out.insert(out.end(), header, header + header_bytes);
  // The carried boxes between the header and the codestream: a reader that stops at the
  // codestream has seen them.
  for (const Jp2Box& b : boxes) put_box(out, b.type, b.contents);
  // Contiguous Codestream box (I.5.4), after the JP2 Header box: the codestream as it is.
  out.insert(out.end(), jp2c.begin(), jp2c.end());
  return out;
}

std::vector<uint8_t> assemble(const uint8_t* header, size_t header_bytes, bool jph, const std::vector<Jp2Box>& boxes,
                              const std::vector<uint8_t>& codestream) {
  std::vector<uint8_t> out = boxes_before(header, header_bytes, jph, boxes, codestream.size(), codestream.size());
  out.insert(out.end(), codestream.begin(), codestream.end());
  return out;
}

}  // namespace

namespace jp2_detail {

std::vector<uint8_t> box_header(uint32_t type, uint64_t content_bytes) {
  std::vector<uint8_t> out;
  // LBox counts the whole box, its header included. 0 ("to the end of the file") is never
  // written: every length is known here, and a reader need not seek to the end to find it.
  if (content_bytes <= UINT32_MAX - 8) {
    put32(out, static_cast<uint32_t>(content_bytes + 8));
    put32(out, type);
  } else {
    if (content_bytes > UINT64_MAX - 16) throw Error(ErrorCode::InvalidArgument, "JP2: a box longer than 2^64 - 1 bytes");
    put32(out, 1);  // LBox = 1: the length is in XLBox, after TBox
    put32(out, type);
    put64(out, content_bytes + 16);
  }
  return out;
}

ResolutionFields resolution_fields(double v) {
  if (!(v > 0) || !std::isfinite(v))
    throw Error(ErrorCode::InvalidArgument, "JP2: a resolution of " + std::to_string(v) + " grid points per metre; it is above 0");
  // Exponents from 0 outwards; for each, the continued fraction's convergents of v / 10^e whose
  // terms fit 16 bits, the closest kept. A value the fields hold exactly ends the search.
  ResolutionFields best;
  double best_error = std::numeric_limits<double>::infinity();
  for (int step = 0; step < 256 && best_error > 1e-12; ++step) {
    const int e = step % 2 == 0 ? step / 2 : -(step + 1) / 2;
    if (e < -128 || e > 127) continue;
    const double x = v / std::pow(10.0, e);
    if (!std::isfinite(x) || x > 65535.5 || x < 1.0 / 65535) continue;
    double h0 = 0, h1 = 1, k0 = 1, k1 = 0, y = x;
    for (int term = 0; term < 64; ++term) {
      const double a = std::floor(y);
      const double h = a * h1 + h0, k = a * k1 + k0;
      if (h > 65535 || k > 65535) break;
      if (h >= 1) {
        const double error = std::fabs(h / k * std::pow(10.0, e) - v) / v;
        if (error < best_error) {
          best_error = error;
          best = {static_cast<uint32_t>(h), static_cast<uint32_t>(k), e};
        }
      }
      h0 = h1, h1 = h, k0 = k1, k1 = k;
      const double fraction = y - a;
      if (fraction < 1e-15) break;
      y = 1 / fraction;
    }
  }
  if (best.n == 0)
    throw Error(ErrorCode::InvalidArgument, "JP2: a resolution of " + std::to_string(v) +
                                                " grid points per metre is beyond what a Resolution box holds");
  return best;
}

}  // namespace jp2_detail

namespace {

// A resc's or resd's contents (I.5.3.7.1, I.5.3.7.2, the same fields): VRN, VRD, HRN, HRD, VRE,
// HRE; each resolution N / D x 10^E grid points per metre. resolution_fields() refuses a value
// the fields cannot hold.
std::vector<uint8_t> resolution_contents(const Jp2Resolution& r) {
  const jp2_detail::ResolutionFields down = jp2_detail::resolution_fields(r.y);
  const jp2_detail::ResolutionFields across = jp2_detail::resolution_fields(r.x);
  std::vector<uint8_t> out;
  put16(out, down.n);
  put16(out, down.d);
  put16(out, across.n);
  put16(out, across.d);
  put8(out, static_cast<uint32_t>(static_cast<uint8_t>(static_cast<int8_t>(down.e))));
  put8(out, static_cast<uint32_t>(static_cast<uint8_t>(static_cast<int8_t>(across.e))));
  return out;
}

// The JP2 Header box's contents for `info` (write_jp2's checks on it first).
std::vector<uint8_t> header_contents(const Jp2Info& info) {
  const size_t ncomp = info.components.size();
  if (ncomp == 0 || ncomp > static_cast<size_t>(kMaxComponents))
    throw Error(ErrorCode::InvalidArgument,
                "JP2: " + std::to_string(ncomp) + " components; a JP2 file holds 1 to 16384 (NC, I.5.3.1)");
  if (info.width == 0 || info.height == 0)
    throw Error(ErrorCode::InvalidArgument, "JP2: an image of " + std::to_string(info.width) + " x " +
                                                std::to_string(info.height) + "; width and height are at least 1");
  for (size_t c = 0; c < ncomp; ++c) {
    const int p = info.components[c].precision;
    if (p < 1 || p > kMaxSizPrecision)
      throw Error(ErrorCode::InvalidArgument, "JP2: component " + std::to_string(c) + " has precision " +
                                                  std::to_string(p) + "; a JP2 file holds 1 to 38 bits");
  }
  const uint32_t colour = enum_cs(info.colour);

  // BPC is one depth for every component, or 255 and a bpcc box with one byte each when the
  // precisions or the signs differ (I.5.3.1, I.5.3.2).
  bool uniform = true;
  for (const Jp2Component& c : info.components)
    uniform = uniform && c.precision == info.components[0].precision && c.is_signed == info.components[0].is_signed;
  const uint32_t bpc = uniform ? depth_byte(info.components[0]) : 255;

  std::vector<uint8_t> header;  // the JP2 Header box's contents
  // Image Header box (I.5.3.1), first in the JP2 Header box. C = 7: the only compression type
  // of JP2, a Part 1 codestream. UnkC = 0: the colour space in colr is the right one. IPR = 0:
  // no Intellectual Property box.
  std::vector<uint8_t> box = jp2_detail::box_header(kImageHeaderBox, 14);
  header.insert(header.end(), box.begin(), box.end());
  put32(header, info.height);
  put32(header, info.width);
  put16(header, static_cast<uint32_t>(ncomp));
  put8(header, bpc);
  put8(header, 7);
  put8(header, 0);
  put8(header, 0);
  if (bpc == 255) {
    box = jp2_detail::box_header(kBitsPerComponentBox, ncomp);
    header.insert(header.end(), box.begin(), box.end());
    for (const Jp2Component& c : info.components) put8(header, depth_byte(c));
  }
  // Colour Specification box (I.5.3.3): METH 1, an enumerated colour space, or METH 2, the
  // restricted ICC method, and the profile; PREC and APPROX 0, as JP2 requires of them
  // (readers ignore both).
  if (!info.icc.empty()) {
    const std::string why = icc_profile_problem(info.icc.data(), info.icc.size(), ncomp);
    if (!why.empty()) throw Error(ErrorCode::InvalidArgument, "JP2: the ICC profile cannot be written: " + why);
  }
  box = jp2_detail::box_header(kColourBox, 3 + (info.icc.empty() ? 4 : info.icc.size()));
  header.insert(header.end(), box.begin(), box.end());
  put8(header, info.icc.empty() ? 1 : 2);
  put8(header, 0);
  put8(header, 0);
  if (info.icc.empty()) put32(header, colour);
  else header.insert(header.end(), info.icc.begin(), info.icc.end());
  if (info.last_is_alpha) {
    if (ncomp < 2) throw Error(ErrorCode::InvalidArgument, "JP2: an alpha channel needs a colour channel before it");
    // Channel Definition box (I.5.3.6): N, then per channel Cn, Typ (0 colour, 1 opacity) and
    // Asoc (the colour it is, 1 on; 0 for the opacity of the whole image).
    box = jp2_detail::box_header(kChannelsBox, 2 + 6 * ncomp);
    header.insert(header.end(), box.begin(), box.end());
    put16(header, static_cast<uint32_t>(ncomp));
    for (size_t k = 0; k < ncomp; ++k) {
      const bool alpha = k + 1 == ncomp;
      put16(header, static_cast<uint32_t>(k));
      put16(header, alpha ? 1 : 0);
      put16(header, alpha ? 0 : static_cast<uint32_t>(k + 1));
    }
  }
  // Resolution box (I.5.3.7) holding a Capture Resolution box (I.5.3.7.1), a Default Display
  // Resolution box (I.5.3.7.2) or both, in that order.
  std::vector<uint8_t> res;
  if (info.capture.x != 0 || info.capture.y != 0) put_box(res, kCaptureResolutionBox, resolution_contents(info.capture));
  if (info.display.x != 0 || info.display.y != 0) put_box(res, kDisplayResolutionBox, resolution_contents(info.display));
  if (!res.empty()) put_box(header, kResolutionBox, res);

  return header;
}

}  // namespace

std::vector<uint8_t> write_jp2(const Jp2Info& info, const std::vector<uint8_t>& codestream) {
  const std::vector<uint8_t> header = header_contents(info);
  return assemble(header.data(), header.size(), info.jph, info.boxes, codestream);
}

std::vector<uint8_t> jp2_boxes_before_codestream(const Jp2Info& info, uint64_t codestream_bytes) {
  const std::vector<uint8_t> header = header_contents(info);
  return boxes_before(header.data(), header.size(), info.jph, info.boxes, codestream_bytes, 0);
}

std::vector<uint8_t> write_jp2_with_header(const uint8_t* header_contents, size_t header_bytes, bool jph,
                                           const std::vector<Jp2Box>& boxes, const std::vector<uint8_t>& codestream) {
  return assemble(header_contents, header_bytes, jph, boxes, codestream);
}

Jp2Colour default_colour(size_t ncomp) { return ncomp >= 3 ? Jp2Colour::Srgb : Jp2Colour::Greyscale; }

}  // namespace j2k::codec
