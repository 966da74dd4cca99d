// SPDX-License-Identifier: BSD-2-Clause
// What a JP2 file holds beside the image (ISO/IEC 15444-1 Annex I), shared by the writer and
// the reader: box types as numbers, the Resolution box's values (I.5.3.7) and the boxes a file
// carries as they are (XML I.7.1, UUID I.7.2, and any other that is not one of the four the
// file's structure needs), with the UUIDs whose contents are known by name.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace j2k::codec {

// A box type as the standard writes it, four ISO/IEC 646 characters read as a big-endian
// integer (I.4).
constexpr uint32_t jp2_fourcc(const char (&s)[5]) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = v << 8 | static_cast<uint8_t>(s[i]);
  return v;
}

// The boxes that make a JP2 file's structure; every other top-level box is carried as it is.
bool is_jp2_structure_box(uint32_t type);

// 'uuid', 'xml ' as they print (non-printing bytes as '?').
std::string jp2_box_name(uint32_t type);

// A top-level box other than the signature, File Type, JP2 Header and Contiguous Codestream
// boxes: its type and contents (a UUID box's start with its 16-byte UUID).
struct Jp2Box {
  uint32_t type = 0;
  std::vector<uint8_t> contents;
};

// A resolution (I.5.3.7.1, I.5.3.7.2): grid points per metre, across (x, HR) and down (y, VR).
// 0 and 0: none.
struct Jp2Resolution {
  double x = 0, y = 0;
  bool given() const { return x > 0 && y > 0; }
};

// The UUIDs of the UUID boxes whose contents the tools know: Adobe's XMP packet (XMP
// specification part 3, 1.1.4), Exif as a TIFF structure (Exiv2's and Adobe's "JpgTiffExif->JP2")
// and GeoJP2's GeoTIFF (OGC 08-085).
constexpr uint8_t kXmpUuid[16] = {0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8,
                                  0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC};
constexpr uint8_t kExifUuid[16] = {'J', 'p', 'g', 'T', 'i', 'f', 'f', 'E', 'x', 'i', 'f', '-', '>', 'J', 'P', '2'};
constexpr uint8_t kGeoJp2Uuid[16] = {0xB1, 0x4B, 0xF8, 0xBD, 0x08, 0x3D, 0x4B, 0x43,
                                     0xA5, 0xAE, 0x8C, 0xD7, 0xD5, 0xA6, 0xCE, 0x03};

// Whether `box` is a UUID box with `uuid`.
bool is_uuid_box(const Jp2Box& box, const uint8_t (&uuid)[16]);
bool is_uuid_box(uint32_t type, const uint8_t* contents, size_t length, const uint8_t (&uuid)[16]);
// A UUID box with `uuid` around `data`.
Jp2Box uuid_box(const uint8_t (&uuid)[16], const std::vector<uint8_t>& data);

// What a box is, for a listing: "XMP", "EXIF", "GeoJP2" for the UUIDs above, the UUID in its
// usual hexadecimal form for another UUID box ("" for any other box or a short one).
std::string jp2_uuid_name(const uint8_t* contents, size_t length);

}  // namespace j2k::codec
