// SPDX-License-Identifier: BSD-2-Clause
#include "io/tiff_exif.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "io/tiff_in_memory.hpp"

namespace j2k::io {
namespace {

// Reads a 2- or 4-byte field of the structure in `b` at `at` (the caller has checked the bounds).
uint32_t get(const std::vector<uint8_t>& b, bool little, uint64_t at, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint32_t{b[static_cast<size_t>(at) + static_cast<size_t>(little ? i : bytes - 1 - i)]} << (8 * i);
  return v;
}

// The tags of the directory at `ifd` of the classic TIFF structure in `b`, in its order: those
// whose 12-byte entries lie inside it (a count beyond them is cut to what is there).
std::vector<uint32_t> directory_tags(const std::vector<uint8_t>& b, bool little, uint64_t ifd) {
  std::vector<uint32_t> tags;
  if (ifd + 2 > b.size()) return tags;
  const uint32_t count = get(b, little, ifd, 2);
  for (uint32_t k = 0; k < count && ifd + 2 + (uint64_t{k} + 1) * 12 <= b.size(); ++k)
    tags.push_back(get(b, little, ifd + 2 + uint64_t{k} * 12, 2));
  return tags;
}

// Where the Exif directory of the classic TIFF structure in `b` is: the Exif pointer (tag 34665)
// of its first directory, read here rather than by libtiff, which refuses that directory as an
// image's (it holds nothing else, no image size). 0 with `why` set where there is none.
uint64_t exif_pointer(const std::vector<uint8_t>& b, bool& little, std::string& why) {
  if (b.size() < 8 || !((b[0] == 'I' && b[1] == 'I') || (b[0] == 'M' && b[1] == 'M'))) {
    why = "it does not start with a TIFF header";
    return 0;
  }
  little = b[0] == 'I';
  const uint32_t version = get(b, little, 2, 2);
  if (version != 42) {
    why = version == 43 ? "it is a BigTIFF structure" : "its TIFF header is not classic TIFF's (42)";
    return 0;
  }
  const uint64_t ifd = get(b, little, 4, 4);
  if (ifd < 8 || ifd + 2 > b.size()) {
    why = "its first directory lies outside it";
    return 0;
  }
  const uint32_t count = get(b, little, ifd, 2);
  for (uint32_t k = 0; k < count && ifd + 2 + (uint64_t{k} + 1) * 12 <= b.size(); ++k) {
    const uint64_t e = ifd + 2 + uint64_t{k} * 12;
    const uint32_t type = get(b, little, e + 2, 2);
    if (get(b, little, e, 2) == 34665 && (type == 4 || type == 13) && get(b, little, e + 4, 4) == 1) {
      const uint64_t at = get(b, little, e + 8, 4);
      if (at >= 8 && at + 2 <= b.size()) return at;
      why = "its Exif pointer points outside it";
      return 0;
    }
  }
  why = "its first directory has no Exif pointer (tag 34665)";
  return 0;
}

// Copies field `f`'s value (tag `tag`) from `in` to `out`, both in an Exif directory: libtiff
// gives and takes a custom field's value in a way its definition decides (a count and a pointer
// to its values, a pointer alone for a fixed count or a string, else one value by its type, a
// rational as its internal float or double); `in` and `out` use the same definition, libtiff's
// Exif field table, so the values go across as libtiff holds them.
bool copy_field(TIFF* in, TIFF* out, const TIFFField* f, uint32_t tag) {
  const TIFFDataType type = TIFFFieldDataType(f);
  if (TIFFFieldPassCount(f)) {
    void* values = nullptr;
    if (TIFFFieldReadCount(f) == TIFF_VARIABLE2) {
      uint32_t count = 0;
      if (!TIFFGetField(in, tag, &count, &values) || values == nullptr) return false;
      return TIFFFieldWriteCount(f) == TIFF_VARIABLE2 ? TIFFSetField(out, tag, count, values) == 1
                                                      : TIFFSetField(out, tag, static_cast<int>(count), values) == 1;
    }
    uint16_t count = 0;
    if (!TIFFGetField(in, tag, &count, &values) || values == nullptr) return false;
    return TIFFFieldWriteCount(f) == TIFF_VARIABLE2 ? TIFFSetField(out, tag, uint32_t{count}, values) == 1
                                                    : TIFFSetField(out, tag, static_cast<int>(count), values) == 1;
  }
  if (type == TIFF_ASCII || TIFFFieldReadCount(f) == TIFF_VARIABLE || TIFFFieldReadCount(f) == TIFF_VARIABLE2 ||
      TIFFFieldReadCount(f) > 1) {
    // A string, or a fixed number of values (libtiff read exactly that many, or left it out).
    if (TIFFFieldReadCount(f) != TIFFFieldWriteCount(f)) return false;
    void* values = nullptr;
    return TIFFGetField(in, tag, &values) && values != nullptr && TIFFSetField(out, tag, values) == 1;
  }
  if (TIFFFieldReadCount(f) != 1) return false;  // TIFF_SPP: a count per sample, not an Exif field's
  switch (type) {
    case TIFF_BYTE:
    case TIFF_UNDEFINED: {
      uint8_t v = 0;
      return TIFFGetField(in, tag, &v) && TIFFSetField(out, tag, static_cast<int>(v)) == 1;
    }
    case TIFF_SBYTE: {
      int8_t v = 0;
      return TIFFGetField(in, tag, &v) && TIFFSetField(out, tag, static_cast<int>(v)) == 1;
    }
    case TIFF_SHORT: {
      uint16_t v = 0;
      return TIFFGetField(in, tag, &v) && TIFFSetField(out, tag, static_cast<int>(v)) == 1;
    }
    case TIFF_SSHORT: {
      int16_t v = 0;
      return TIFFGetField(in, tag, &v) && TIFFSetField(out, tag, static_cast<int>(v)) == 1;
    }
    case TIFF_LONG: {
      uint32_t v = 0;
      return TIFFGetField(in, tag, &v) && TIFFSetField(out, tag, v) == 1;
    }
    case TIFF_SLONG: {
      int32_t v = 0;
      return TIFFGetField(in, tag, &v) && TIFFSetField(out, tag, v) == 1;
    }
    case TIFF_LONG8: {
      uint64_t v = 0;
      return TIFFGetField(in, tag, &v) && TIFFSetField(out, tag, v) == 1;
    }
    case TIFF_SLONG8: {
      int64_t v = 0;
      return TIFFGetField(in, tag, &v) && TIFFSetField(out, tag, v) == 1;
    }
    case TIFF_FLOAT: {
      float v = 0;
      return TIFFGetField(in, tag, &v) && TIFFSetField(out, tag, static_cast<double>(v)) == 1;
    }
    case TIFF_DOUBLE: {
      double v = 0;
      return TIFFGetField(in, tag, &v) && TIFFSetField(out, tag, v) == 1;
    }
    case TIFF_RATIONAL:
    case TIFF_SRATIONAL: {
      // libtiff 4.2 on keeps some rationals as doubles (its Exif ones among them); it takes
      // either as a double.
#if TIFFLIB_VERSION >= 20201219
      if (TIFFFieldSetGetSize(f) == 8) {
        double v = 0;
        return TIFFGetField(in, tag, &v) && TIFFSetField(out, tag, v) == 1;
      }
#endif
      float v = 0;
      return TIFFGetField(in, tag, &v) && TIFFSetField(out, tag, static_cast<double>(v)) == 1;
    }
    default: return false;  // IFD offsets (left out before this) and types libtiff does not define
  }
}

std::string hex_tag(uint32_t tag) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%04X", tag);
  return text;
}

}  // namespace

uint64_t write_exif_directory(TIFF* out, const std::vector<uint8_t>& exif, std::vector<std::string>& left) {
  std::string why;
  bool little = true;
  const uint64_t at = exif_pointer(exif, little, why);
  if (at == 0) {
    left.push_back("the Exif is not written: " + why);
    return 0;
  }
  // 'h': the header only; the first directory (the pointer alone) is not read as an image's.
  // Nothing has then set the handle's directory up (its tag methods among it), which reading
  // the Exif directory into it needs: TIFFCreateDirectory does.
  TiffInMemory in(exif.data(), exif.size(), "rhm");
  if (in.tiff() != nullptr) TIFFCreateDirectory(in.tiff());
  if (in.tiff() == nullptr || !TIFFReadEXIFDirectory(in.tiff(), at)) {
    left.push_back("the Exif is not written: libtiff cannot read its Exif directory (" + in.errors() + ")");
    return 0;
  }
  if (TIFFCreateEXIFDirectory(out) != 0) {  // 0: done
    TIFFCreateDirectory(out);
    left.push_back("the Exif is not written: libtiff cannot make an Exif directory");
    return 0;
  }
  // What libtiff read of the directory, copied field by field; an entry it dropped as malformed
  // (a value outside the structure, a count its table refuses) is not among them.
  std::vector<uint32_t> copied;
  const int fields = TIFFGetTagListCount(in.tiff());
  for (int k = 0; k < fields; ++k) {
    const uint32_t tag = TIFFGetTagListEntry(in.tiff(), k);
    const TIFFField* f = TIFFFindField(in.tiff(), tag, TIFF_ANY);
    const bool known = f != nullptr && TIFFFindField(out, tag, TIFF_ANY) != nullptr && !TIFFFieldIsAnonymous(f) &&
                       TIFFFieldDataType(f) != TIFF_IFD && TIFFFieldDataType(f) != TIFF_IFD8;
    if (known && copy_field(in.tiff(), out, f, tag)) copied.push_back(tag);
  }
  // The directory's entries that did not come across, named as libtiff's Exif table names them.
  std::string skipped;
  size_t skipped_count = 0;
  for (uint32_t tag : directory_tags(exif, little, at)) {
    if (std::find(copied.begin(), copied.end(), tag) != copied.end()) continue;
    const TIFFField* f = TIFFFindField(out, tag, TIFF_ANY);
    skipped += (skipped_count++ == 0 ? "" : ", ") + hex_tag(tag) + (f ? std::string(" (") + TIFFFieldName(f) + ")" : "");
  }
  uint64_t offset = 0;
  const bool written = !copied.empty() && TIFFWriteCustomDirectory(out, &offset);
  // Back to an image directory of libtiff's own fields for the image that follows.
  TIFFFreeDirectory(out);
  TIFFCreateDirectory(out);
  if (!written) {
    left.push_back(copied.empty() ? "the Exif is not written: none of its entries is one libtiff's Exif table knows and reads"
                                  : "the Exif is not written: libtiff could not write its directory");
    return 0;
  }
  if (skipped_count > 0)
    left.push_back("Exif " + std::string(skipped_count == 1 ? "entry " : "entries ") + skipped + (skipped_count == 1 ? " is" : " are") +
                   " not written: unknown to libtiff's Exif table, malformed, or a further directory");
  return offset;
}

}  // namespace j2k::io
