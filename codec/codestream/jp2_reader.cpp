// SPDX-License-Identifier: BSD-2-Clause
#include "codec/codestream/jp2_reader.hpp"

#include <cmath>
#include <string>

#include "common/error.hpp"

namespace j2k::codec {
namespace {

constexpr uint32_t fourcc(const char (&s)[5]) { return jp2_fourcc(s); }

std::string name_of(uint32_t type) {
  std::string s = "'";
  for (int shift = 24; shift >= 0; shift -= 8) {
    const char c = static_cast<char>((type >> shift) & 0xFF);
    s += c >= 32 && c < 127 ? c : '?';
  }
  return s + "' box";
}

[[noreturn]] void corrupt(const std::string& what) { throw Error(ErrorCode::CorruptInput, "JP2: " + what); }

// A box's contents, read with bounds checks.
class Contents {
 public:
  Contents(const uint8_t* p, size_t n, uint32_t type) : p_(p), n_(n), type_(type) {}
  uint64_t u(size_t bytes) {
    if (bytes > left()) fail("is shorter than its fields");
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v = v << 8 | p_[at_ + i];
    at_ += bytes;
    return v;
  }
  uint32_t u8() { return static_cast<uint32_t>(u(1)); }
  uint32_t u16() { return static_cast<uint32_t>(u(2)); }
  uint32_t u32() { return static_cast<uint32_t>(u(4)); }
  size_t left() const { return n_ - at_; }
  size_t offset() const { return at_; }
  [[noreturn]] void fail(const std::string& why) const { corrupt("the " + name_of(type_) + " " + why); }

 private:
  const uint8_t* p_;
  size_t n_, at_ = 0;
  uint32_t type_;
};

struct Box {
  uint32_t type;
  size_t contents, length;  // where its contents lie, within the parent's range
};

// The boxes in data[begin, end), in order (I.4: LBox, TBox, XLBox where LBox is 1; LBox 0: up to
// the end, for the last box only). `cut`: a Contiguous Codestream box longer than the bytes
// left is taken as far as it goes (a file cut short inside its codestream, as OpenJPEG reads
// it), and *cut set; null: that is an error.
std::vector<Box> boxes(const uint8_t* data, size_t begin, size_t end, bool* cut = nullptr) {
  std::vector<Box> out;
  size_t pos = begin;
  while (pos < end) {
    if (end - pos < 8) corrupt("a box header is cut short at offset " + std::to_string(pos));
    Contents h(data + pos, end - pos, 0);
    uint64_t length = h.u32();
    const uint32_t type = h.u32();
    size_t header = 8;
    if (length == 1) {
      if (end - pos < 16) corrupt("the " + name_of(type) + " at offset " + std::to_string(pos) + " is cut short");
      length = h.u(8);
      header = 16;
    } else if (length == 0) {
      length = end - pos;
    }
    if (cut && type == fourcc("jp2c") && length >= header && length > end - pos) {
      *cut = true;
      length = end - pos;
    }
    if (length < header || length > end - pos)
      corrupt("the " + name_of(type) + " at offset " + std::to_string(pos) + " says " + std::to_string(length) + " bytes, " +
              std::to_string(end - pos) + " are there");
    out.push_back({type, pos + header, static_cast<size_t>(length) - header});
    pos += static_cast<size_t>(length);
  }
  return out;
}

// A Resolution box's resc or resd (I.5.3.7.1, I.5.3.7.2): VRN, VRD, HRN, HRD, VRE, HRE, each
// resolution N / D x 10^E grid points per metre. Malformed: a warning, and none.
void read_resolution(const uint8_t* data, const Box& b, Jp2File& f, Jp2Resolution& out) {
  const std::string name = "the " + name_of(b.type);
  if (b.length != 10) {
    f.warnings.push_back("JP2: " + name + " has " + std::to_string(b.length) + " bytes (10); it is skipped");
    return;
  }
  Contents c(data + b.contents, b.length, b.type);
  const uint32_t vn = c.u16(), vd = c.u16(), hn = c.u16(), hd = c.u16();
  const auto ve = static_cast<int8_t>(c.u8()), he = static_cast<int8_t>(c.u8());
  if (vn == 0 || vd == 0 || hn == 0 || hd == 0) {
    f.warnings.push_back("JP2: " + name + " says " + std::to_string(hn) + "/" + std::to_string(hd) + " by " + std::to_string(vn) +
                         "/" + std::to_string(vd) + " (no zero allowed); it is skipped");
    return;
  }
  out.x = static_cast<double>(hn) / hd * std::pow(10.0, he);
  out.y = static_cast<double>(vn) / vd * std::pow(10.0, ve);
}

void read_header_box(const uint8_t* data, const Box& jp2h, Jp2File& f) {
  const std::vector<Box> inner = boxes(data, jp2h.contents, jp2h.contents + jp2h.length);
  if (inner.empty() || inner[0].type != fourcc("ihdr")) corrupt("the JP2 Header box does not start with an Image Header box");
  int bpc = 0;
  bool have_colour = false;
  for (const Box& b : inner) {
    Contents c(data + b.contents, b.length, b.type);
    if (b.type == fourcc("ihdr")) {
      if (b.length != 14) c.fail("has " + std::to_string(b.length) + " bytes (14)");
      f.height = c.u32();
      f.width = c.u32();
      const uint32_t nc = c.u16();
      bpc = static_cast<int>(c.u8());
      if (c.u8() != 7) c.fail("names a compression type other than JPEG 2000 (7)");
      if (f.width == 0 || f.height == 0 || nc == 0 || nc > 16384)
        c.fail("says " + std::to_string(f.width) + " x " + std::to_string(f.height) + " with " + std::to_string(nc) + " components");
      if (bpc != 255 && (bpc & 0x7F) > 37) c.fail("says " + std::to_string((bpc & 0x7F) + 1) + "-bit components (1 to 38)");
      f.components.assign(nc, Jp2Component{(bpc & 0x7F) + 1, (bpc & 0x80) != 0});
    } else if (b.type == fourcc("bpcc")) {
      if (bpc != 255) c.fail("is there, but the Image Header box gives the components one depth");
      if (b.length != f.components.size()) c.fail("has " + std::to_string(b.length) + " entries for " + std::to_string(f.components.size()) + " components");
      for (Jp2Component& k : f.components) {
        const uint32_t v = c.u8();
        if ((v & 0x7F) > 37) c.fail("says " + std::to_string((v & 0x7F) + 1) + "-bit samples (1 to 38)");
        k = Jp2Component{static_cast<int>(v & 0x7F) + 1, (v & 0x80) != 0};
      }
    } else if (b.type == fourcc("colr")) {
      if (have_colour) continue;  // I.5.3.3: a reader may use the first it understands
      const uint32_t method = c.u8();
      c.u8(), c.u8();  // PREC, APPROX
      if (method == 1) {
        f.enum_cs = static_cast<int>(c.u32());
        // CIELab with its parameters: seven more fields (OpenJPEG reads them at this size
        // only, and uses its defaults otherwise).
        if (f.enum_cs == 14 && b.length == 35) {
          f.lab.defaults = false;
          for (uint32_t* v : {&f.lab.rl, &f.lab.ol, &f.lab.ra, &f.lab.oa, &f.lab.rb, &f.lab.ob, &f.lab.il}) *v = c.u32();
        }
      } else if (method == 2) {
        f.icc.assign(data + b.contents + c.offset(), data + b.contents + b.length);
      } else {
        continue;  // another method (Part 2): the next colr may be one we know
      }
      have_colour = true;
    } else if (b.type == fourcc("pclr")) {
      const uint32_t entries = c.u16(), columns = c.u8();
      if (entries == 0 || entries > 1024 || columns == 0) c.fail("says " + std::to_string(entries) + " entries of " + std::to_string(columns) + " columns (1..1024, 1..255)");
      std::vector<size_t> widths;
      for (uint32_t k = 0; k < columns; ++k) {
        const uint32_t v = c.u8();
        if ((v & 0x7F) > 37) c.fail("says " + std::to_string((v & 0x7F) + 1) + "-bit entries (1 to 38)");
        f.palette.columns.push_back({static_cast<int>(v & 0x7F) + 1, (v & 0x80) != 0});
        widths.push_back(static_cast<size_t>((v & 0x7F) + 8) / 8);
      }
      f.palette.entries.assign(entries, std::vector<int32_t>(columns));
      for (auto& e : f.palette.entries)
        for (uint32_t k = 0; k < columns; ++k) {
          const uint64_t v = c.u(widths[k]);
          const int bits = f.palette.columns[k].precision;
          // The value in its own precision; signed columns in two's complement.
          int64_t s = static_cast<int64_t>(v & ((uint64_t{1} << bits) - 1));
          if (f.palette.columns[k].is_signed && (s >> (bits - 1))) s -= int64_t{1} << bits;
          if (s > INT32_MAX || s < INT32_MIN) c.fail("holds values beyond 32 bits");
          e[k] = static_cast<int32_t>(s);
        }
    } else if (b.type == fourcc("cmap")) {
      if (b.length % 4 != 0) c.fail("is not a whole number of 4-byte entries");
      while (c.left() > 0) {
        Jp2Mapping m;
        m.component = static_cast<int>(c.u16());
        const uint32_t type = c.u8();
        if (type > 1) c.fail("has mapping type " + std::to_string(type) + " (0 or 1)");
        m.palette = type == 1;
        m.column = static_cast<int>(c.u8());
        f.mapping.push_back(m);
      }
    } else if (b.type == fourcc("cdef")) {
      const uint32_t n = c.u16();
      if (b.length != 2 + 6 * size_t{n}) c.fail("does not hold its " + std::to_string(n) + " entries");
      for (uint32_t k = 0; k < n; ++k) f.channels.push_back({static_cast<int>(c.u16()), static_cast<int>(c.u16()), static_cast<int>(c.u16())});
    } else if (b.type == fourcc("res ")) {
      std::vector<Box> resolutions;
      try {
        resolutions = boxes(data, b.contents, b.contents + b.length);
      } catch (const Error& e) {
        f.warnings.push_back(std::string(e.what()) + " (inside the Resolution box, which is skipped)");
      }
      for (const Box& r : resolutions) {
        if (r.type == fourcc("resc")) read_resolution(data, r, f, f.capture);
        else if (r.type == fourcc("resd")) read_resolution(data, r, f, f.display);
      }
    }
    // Anything else is skipped.
  }
  if (!have_colour) corrupt("the JP2 Header box has no Colour Specification box this reader knows");
  // The mapping must name real components and palette columns.
  for (const Jp2Mapping& m : f.mapping) {
    if (static_cast<size_t>(m.component) >= f.components.size())
      corrupt("the Component Mapping box names component " + std::to_string(m.component) + " of " + std::to_string(f.components.size()));
    if (m.palette && static_cast<size_t>(m.column) >= f.palette.columns.size())
      corrupt("the Component Mapping box names palette column " + std::to_string(m.column) + " of " + std::to_string(f.palette.columns.size()));
  }
  if (!f.palette.columns.empty() && f.mapping.empty()) corrupt("a Palette box without a Component Mapping box");
}

}  // namespace

bool is_jp2(const uint8_t* data, size_t size) {
  static const uint8_t kSignature[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
  if (size < 12) return false;
  for (int i = 0; i < 12; ++i)
    if (data[i] != kSignature[i]) return false;
  return true;
}

Jp2File read_jp2(const uint8_t* data, size_t size, bool allow_partial) {
  if (!is_jp2(data, size)) corrupt("not a JP2 file: it does not start with the JP2 signature box");
  bool cut = false;
  const std::vector<Box> top = boxes(data, 12, size, allow_partial ? &cut : nullptr);
  if (top.empty() || top[0].type != fourcc("ftyp")) corrupt("the signature box is not followed by a File Type box");
  {
    Contents c(data + top[0].contents, top[0].length, top[0].type);
    c.u32(), c.u32();  // brand, minor version
    bool compatible = false;
    if (c.left() % 4 != 0) c.fail("has a partial compatibility entry");
    // 'jph ': a JPH file (ISO/IEC 15444-15 Annex D), JP2's boxes around an HTJ2K codestream.
    while (c.left() > 0) {
      const uint32_t brand = c.u32();
      compatible |= brand == fourcc("jp2 ") || brand == fourcc("jph ");
    }
    if (!compatible)
      throw Error(ErrorCode::UnsupportedInput, "JP2: the file lists neither 'jp2 ' nor 'jph ' as compatible (a JPX or other file)");
  }
  Jp2File f;
  bool header = false, codestream = false;
  for (const Box& b : top) {
    if (b.type == fourcc("jp2h") && !header) {
      read_header_box(data, b, f);
      f.header = b.contents;
      f.header_length = b.length;
      header = true;
    } else if (b.type == fourcc("jp2c") && !codestream) {
      if (!header) corrupt("the Contiguous Codestream box comes before the JP2 Header box");
      f.codestream = b.contents;
      f.codestream_length = b.length;
      codestream = true;
    } else if (!is_jp2_structure_box(b.type)) {
      if (b.type == fourcc("uuid") && b.length < 16)
        f.warnings.push_back("JP2: a UUID box of " + std::to_string(b.length) + " bytes (fewer than its 16-byte UUID) is skipped");
      else
        f.boxes.push_back({b.type, b.contents, b.length});
    }
  }
  if (!header) corrupt("no JP2 Header box");
  if (!codestream) corrupt("no Contiguous Codestream box");
  f.cut = cut;
  return f;
}

}  // namespace j2k::codec
