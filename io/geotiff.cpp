// SPDX-License-Identifier: BSD-2-Clause
#include "io/geotiff.hpp"

#include <cstring>
#include <mutex>

#include "io/tiff_in_memory.hpp"

namespace j2k::io {
namespace {

constexpr uint32_t kPixelScale = 33550, kTiepoint = 33922, kTransformation = 34264, kKeyDirectory = 34735,
                   kDoubleParams = 34736, kAsciiParams = 34737;

// Counts as uint32 (TIFF_VARIABLE2): a file may hold many thousands of tiepoints.
const TIFFFieldInfo kFields[] = {
    {kPixelScale, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, const_cast<char*>("ModelPixelScale")},
    {kTiepoint, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, const_cast<char*>("ModelTiepoint")},
    {kTransformation, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, const_cast<char*>("ModelTransformation")},
    {kKeyDirectory, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_SHORT, FIELD_CUSTOM, 1, 1, const_cast<char*>("GeoKeyDirectory")},
    {kDoubleParams, TIFF_VARIABLE2, TIFF_VARIABLE2, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, const_cast<char*>("GeoDoubleParams")},
    {kAsciiParams, TIFF_VARIABLE, TIFF_VARIABLE, TIFF_ASCII, FIELD_CUSTOM, 1, 0, const_cast<char*>("GeoAsciiParams")},
};

TIFFExtendProc previous_extender = nullptr;

void extend(TIFF* tif) {
  TIFFMergeFieldInfo(tif, kFields, sizeof kFields / sizeof kFields[0]);
  if (previous_extender) previous_extender(tif);
}

// The values of array tag `tag` of `type` as libtiff holds them, whichever way its field was
// defined (ours, or one libtiff made up for a tag it did not know: both pass a count); false
// where the tag is absent or of another type.
template <class T>
bool get_array(TIFF* tif, uint32_t tag, TIFFDataType type, std::vector<T>& out) {
  const TIFFField* f = TIFFFindField(tif, tag, TIFF_ANY);
  if (f == nullptr || TIFFFieldDataType(f) != type || !TIFFFieldPassCount(f)) return false;
  const T* values = nullptr;
  uint32_t count = 0;
  if (TIFFFieldReadCount(f) == TIFF_VARIABLE2) {
    if (!TIFFGetField(tif, tag, &count, &values)) return false;
  } else {
    uint16_t short_count = 0;
    if (!TIFFGetField(tif, tag, &short_count, &values)) return false;
    count = short_count;
  }
  if (values == nullptr || count == 0) return false;
  out.assign(values, values + count);
  return true;
}

template <class T>
void set_array(TIFF* tif, uint32_t tag, const std::vector<T>& values) {
  if (values.empty()) return;
  const TIFFField* f = TIFFFindField(tif, tag, TIFF_ANY);
  if (f == nullptr) return;
  if (TIFFFieldWriteCount(f) == TIFF_VARIABLE2) TIFFSetField(tif, tag, static_cast<uint32_t>(values.size()), values.data());
  else if (values.size() <= 65535) TIFFSetField(tif, tag, static_cast<int>(values.size()), values.data());
}

// ---- the degenerate GeoTIFF, written byte by byte (little-endian)

void put(std::vector<uint8_t>& o, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) o.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

struct Entry {
  uint16_t tag, type;
  uint32_t count;
  std::vector<uint8_t> value;  // little-endian
};

Entry short_entry(uint16_t tag, uint32_t v) {
  Entry e{tag, 3, 1, {}};
  put(e.value, v, 2);
  return e;
}
Entry long_entry(uint16_t tag, uint32_t v) {
  Entry e{tag, 4, 1, {}};
  put(e.value, v, 4);
  return e;
}
Entry doubles_entry(uint16_t tag, const std::vector<double>& v) {
  Entry e{tag, 12, static_cast<uint32_t>(v.size()), {}};
  for (double d : v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &d, 8);
    put(e.value, bits, 8);
  }
  return e;
}

}  // namespace

void register_geotiff_tags() {
  static std::once_flag once;
  std::call_once(once, [] { previous_extender = TIFFSetTagExtender(extend); });
}

GeoTiffTags read_geotiff_tags(TIFF* tif, std::vector<std::string>& left) {
  GeoTiffTags t;
  auto check = [&](bool ok, const char* name, bool whole, auto& values) {
    if (ok && !whole) {
      left.push_back(std::string("its ") + name + " tag holds " + std::to_string(values.size()) +
                     " values, not what GeoTIFF says: it is not carried");
      values.clear();
    }
  };
  bool ok = get_array(tif, kPixelScale, TIFF_DOUBLE, t.pixel_scale);
  check(ok, "ModelPixelScale", t.pixel_scale.size() == 3, t.pixel_scale);
  ok = get_array(tif, kTiepoint, TIFF_DOUBLE, t.tiepoints);
  check(ok, "ModelTiepoint", t.tiepoints.size() % 6 == 0, t.tiepoints);
  ok = get_array(tif, kTransformation, TIFF_DOUBLE, t.transformation);
  check(ok, "ModelTransformation", t.transformation.size() == 16, t.transformation);
  ok = get_array(tif, kKeyDirectory, TIFF_SHORT, t.key_directory);
  // The header's fourth short is the number of keys, each 4 shorts after the header's 4.
  check(ok, "GeoKeyDirectory",
        t.key_directory.size() >= 4 && t.key_directory.size() % 4 == 0 &&
            t.key_directory.size() == 4 + 4 * size_t{t.key_directory[3]},
        t.key_directory);
  get_array(tif, kDoubleParams, TIFF_DOUBLE, t.double_params);
  const TIFFField* f = TIFFFindField(tif, kAsciiParams, TIFF_ANY);
  if (f != nullptr && TIFFFieldDataType(f) == TIFF_ASCII) {
    if (TIFFFieldPassCount(f)) {  // a field libtiff made up: a count and the characters
      std::vector<char> chars;
      if (get_array(tif, kAsciiParams, TIFF_ASCII, chars)) t.ascii_params.assign(chars.data(), strnlen(chars.data(), chars.size()));
    } else {
      const char* text = nullptr;
      if (TIFFGetField(tif, kAsciiParams, &text) && text != nullptr) t.ascii_params = text;
    }
  }
  return t;
}

void set_geotiff_tags(TIFF* tif, const GeoTiffTags& t) {
  set_array(tif, kPixelScale, t.pixel_scale);
  set_array(tif, kTiepoint, t.tiepoints);
  set_array(tif, kTransformation, t.transformation);
  set_array(tif, kKeyDirectory, t.key_directory);
  set_array(tif, kDoubleParams, t.double_params);
  if (!t.ascii_params.empty() && TIFFFindField(tif, kAsciiParams, TIFF_ASCII) != nullptr)
    TIFFSetField(tif, kAsciiParams, t.ascii_params.c_str());
}

std::vector<uint8_t> geojp2_tiff(const GeoTiffTags& t) {
  // One 8-bit grey pixel, uncompressed, in one strip; then GeoTIFF's tags, in tag order as a
  // directory must have them. The strip's offset is set once the values are laid out.
  std::vector<Entry> entries = {short_entry(256, 1), short_entry(257, 1), short_entry(258, 8), short_entry(259, 1),
                                short_entry(262, 1), long_entry(273, 0),  short_entry(277, 1), short_entry(278, 1),
                                long_entry(279, 1)};
  if (!t.pixel_scale.empty()) entries.push_back(doubles_entry(kPixelScale, t.pixel_scale));
  if (!t.tiepoints.empty()) entries.push_back(doubles_entry(kTiepoint, t.tiepoints));
  if (!t.transformation.empty()) entries.push_back(doubles_entry(kTransformation, t.transformation));
  if (!t.key_directory.empty()) {
    Entry e{static_cast<uint16_t>(kKeyDirectory), 3, static_cast<uint32_t>(t.key_directory.size()), {}};
    for (uint16_t v : t.key_directory) put(e.value, v, 2);
    entries.push_back(e);
  }
  if (!t.double_params.empty()) entries.push_back(doubles_entry(kDoubleParams, t.double_params));
  if (!t.ascii_params.empty()) {
    Entry e{static_cast<uint16_t>(kAsciiParams), 2, static_cast<uint32_t>(t.ascii_params.size() + 1), {}};
    e.value.assign(t.ascii_params.begin(), t.ascii_params.end());
    e.value.push_back(0);
    entries.push_back(e);
  }
  std::vector<uint8_t> out = {'I', 'I'};
  put(out, 42, 2);
  put(out, 8, 4);
  put(out, entries.size(), 2);
  std::vector<size_t> offset_at(entries.size(), 0);  // where an entry's value offset goes
  for (size_t k = 0; k < entries.size(); ++k) {
    const Entry& e = entries[k];
    put(out, e.tag, 2), put(out, e.type, 2), put(out, e.count, 4);
    if (e.value.size() <= 4) {
      out.insert(out.end(), e.value.begin(), e.value.end());
      out.insert(out.end(), 4 - e.value.size(), 0);
    } else {
      offset_at[k] = out.size();
      put(out, 0, 4);
    }
  }
  put(out, 0, 4);  // no next directory
  auto set_at = [&](size_t at, uint64_t v) {
    for (int i = 0; i < 4; ++i) out[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
  };
  for (size_t k = 0; k < entries.size(); ++k) {
    if (offset_at[k] == 0) continue;
    if (out.size() % 2) out.push_back(0);  // values start on a word boundary
    set_at(offset_at[k], out.size());
    out.insert(out.end(), entries[k].value.begin(), entries[k].value.end());
  }
  // The pixel, and StripOffsets (the sixth entry) pointing at it.
  set_at(8 + 2 + 5 * 12 + 8, out.size());
  out.push_back(0);
  return out;
}

GeoTiffTags geotiff_tags_of(const std::vector<uint8_t>& geotiff, std::string& why) {
  register_geotiff_tags();
  TiffInMemory in(geotiff.data(), geotiff.size());
  if (in.tiff() == nullptr) {
    why = "libtiff cannot read the GeoTIFF inside it (" + in.errors() + ")";
    return {};
  }
  std::vector<std::string> left;
  GeoTiffTags t = read_geotiff_tags(in.tiff(), left);
  if (t.empty()) why = left.empty() ? "the GeoTIFF inside it has none of GeoTIFF's tags" : left.front();
  return t;
}

}  // namespace j2k::io
