// SPDX-License-Identifier: BSD-2-Clause
#include "codec/codestream/jp2_boxes.hpp"

#include <algorithm>
#include <cstring>

namespace j2k::codec {

bool is_jp2_structure_box(uint32_t type) {
  return type == jp2_fourcc("jP  ") || type == jp2_fourcc("ftyp") || type == jp2_fourcc("jp2h") || type == jp2_fourcc("jp2c");
}

std::string jp2_box_name(uint32_t type) {
  std::string s;
  for (int shift = 24; shift >= 0; shift -= 8) {
    const char c = static_cast<char>((type >> shift) & 0xFF);
    s += c >= 32 && c < 127 ? c : '?';
  }
  return s;
}

bool is_uuid_box(uint32_t type, const uint8_t* contents, size_t length, const uint8_t (&uuid)[16]) {
  return type == jp2_fourcc("uuid") && length >= 16 && std::memcmp(contents, uuid, 16) == 0;
}

bool is_uuid_box(const Jp2Box& box, const uint8_t (&uuid)[16]) {
  return is_uuid_box(box.type, box.contents.data(), box.contents.size(), uuid);
}

Jp2Box uuid_box(const uint8_t (&uuid)[16], const std::vector<uint8_t>& data) {
  Jp2Box b;
  b.type = jp2_fourcc("uuid");
  b.contents.resize(16 + data.size());  // sized once: GCC 12 misreads an insert after 16 bytes
  std::memcpy(b.contents.data(), uuid, 16);
  std::copy(data.begin(), data.end(), b.contents.begin() + 16);
  return b;
}

std::string jp2_uuid_name(const uint8_t* contents, size_t length) {
  if (length < 16) return "";
  const uint32_t uuid = jp2_fourcc("uuid");
  if (is_uuid_box(uuid, contents, length, kXmpUuid)) return "XMP";
  if (is_uuid_box(uuid, contents, length, kExifUuid)) return "EXIF";
  if (is_uuid_box(uuid, contents, length, kGeoJp2Uuid)) return "GeoJP2";
  static const char kHex[] = "0123456789ABCDEF";
  std::string s;
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += kHex[contents[i] >> 4];
    s += kHex[contents[i] & 15];
  }
  return s;
}

}  // namespace j2k::codec
