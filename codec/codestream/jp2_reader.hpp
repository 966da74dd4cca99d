// SPDX-License-Identifier: BSD-2-Clause
// Reads the JP2 file format (ISO/IEC 15444-1 Annex I): the signature and File Type boxes, the
// JP2 Header box (Image Header, Bits Per Component, Colour Specification, Palette, Component
// Mapping, Channel Definition, Resolution), where the first Contiguous Codestream box's
// codestream lies, and where the other top-level boxes (XML, UUID, ...) are. Each box's length
// is checked against the bytes there and each field against Annex I's ranges before anything
// is sized from it; a bad file is an error naming the box and the cause. What to do with the
// palette, mapping and channels is the decoder's. A Resolution or UUID box that is malformed is
// skipped with a warning (Jp2File::warnings): the image does not need it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/codestream/jp2_writer.hpp"

namespace j2k::codec {

struct Jp2Palette {
  std::vector<Jp2Component> columns;          // NPC columns: depth and signedness (B)
  std::vector<std::vector<int32_t>> entries;  // NE entries, each with a value per column
};

struct Jp2Mapping {  // cmap (I.5.3.5): where one output channel comes from
  int component = 0;   // CMP: the codestream component
  bool palette = false;  // MTYP 1: through the palette's column `column`
  int column = 0;      // PCOL
};

struct Jp2Channel {  // cdef (I.5.3.6)
  int channel = 0;      // Cn
  int type = 0;         // Typ: 0 colour, 1 opacity, 2 premultiplied opacity, 65535 unspecified
  int association = 0;  // Asoc: 0 the whole image, 1.. a colour, 65535 none
};

// A CIELab colour specification's (EnumCS 14) range and offset of L*, a* and b* and its
// illuminant (I.5.3.3 and Part 2's Table M.26); `defaults`: the box gave only EnumCS.
struct Jp2CieLab {
  bool defaults = true;
  uint32_t rl = 0, ol = 0, ra = 0, oa = 0, rb = 0, ob = 0, il = 0x00443530;  // il: "D50"
};

struct Jp2BoxRef {  // a top-level box: its type and where its contents lie in the file
  uint32_t type = 0;
  size_t contents = 0, length = 0;
};

struct Jp2File {
  uint32_t width = 0, height = 0;        // ihdr
  std::vector<Jp2Component> components;  // ihdr's BPC, or bpcc's per component
  int enum_cs = 0;                       // colr method 1's EnumCS; 0 with an ICC profile
  std::vector<uint8_t> icc;              // colr method 2's profile (empty: none)
  Jp2CieLab lab;                         // with EnumCS 14
  Jp2Palette palette;                    // empty columns: no pclr
  std::vector<Jp2Mapping> mapping;       // empty: no cmap
  std::vector<Jp2Channel> channels;      // empty: no cdef
  size_t codestream = 0, codestream_length = 0;  // the first jp2c's contents in the file
  size_t header = 0, header_length = 0;          // the jp2h box's contents in the file
  bool cut = false;  // (allow_partial) the file ends inside its Contiguous Codestream box
  Jp2Resolution capture, display;        // res: resc and resd (not given: none)
  std::vector<Jp2BoxRef> boxes;          // the top-level boxes but jP, ftyp, jp2h and jp2c, in order
  std::vector<std::string> warnings;     // boxes skipped as malformed, and why
};

// Whether `data` starts with the JP2 signature box.
bool is_jp2(const uint8_t* data, size_t size);

// Throws j2k::Error (CorruptInput, or UnsupportedInput for a file that is not JP2-compatible)
// naming the box and the cause. `allow_partial`: a file cut short inside its Contiguous
// Codestream box gives the codestream as far as it goes (Jp2File::cut) instead of an error.
Jp2File read_jp2(const uint8_t* data, size_t size, bool allow_partial = false);

}  // namespace j2k::codec
