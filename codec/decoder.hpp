// SPDX-License-Identifier: BSD-2-Clause
// The whole decoder: a JPEG 2000 codestream (or JP2 file) to the image's components, the
// encoder's mirror image. Tile by tile: Tier-2 reads the tile's packets (tile_packets),
// Tier-1 decodes each code-block (block_decoder, blocks in parallel), dequantisation puts
// the coefficients in OpenJPEG's pyramid layout (dequantiser), then the inverse DWT, the
// inverse RCT or ICT, the DC level shift and the clamp to each
// component's precision, as OpenJPEG 2.5 does each step, so that the output is its output.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "codec/codestream/jp2_boxes.hpp"
#include "codec/params/coding_params.hpp"
#include "common/sample_bytes.hpp"
#include "j2kfront/j2kfront.h"
#include "pipeline/back_stage.hpp"
#include "tiling/geometry.hpp"
#include "transform/backend.hpp"

namespace j2k::codec {

struct DecodedImage;

// Rows [y, y + count) of the output (on its own grid, 0 the first row), `data[c]` the first of
// them in component c, its rows packed (width samples of the component's type).
struct DecodedRows {
  int64_t y = 0, count = 0;
  std::vector<const uint8_t*> data;
};
// Takes each band of the output's rows, top to bottom; `image`: the output's shape, its
// components without their bytes. What it throws ends the decode.
using RowSink = std::function<void(const DecodedImage& image, const DecodedRows& rows)>;
struct DecodeSettings {
  int reduce = 0;           // resolutions left out: the image at 1 / 2^reduce of its size
  int layers = 0;           // quality layers decoded; 0: all
  int tile = -1;            // only this tile (raster index) and its area; -1: every tile
  // Only this area of the reference grid (full resolution, as opj_decompress -d takes it);
  // empty: the whole image. The tiles outside it are not decoded.
  Rect region;
  std::vector<int> components;  // only these components, in this order; empty: all
  bool allow_partial = false;  // a cut stream gives what it holds instead of an error
  // opj_decompress's colour conversions after decoding (opj_colour.hpp: sYCC, e-sYCC and
  // CMYK to RGB; icc_colour.hpp: a JP2 file's ICC profile or CIELab to sRGB), as the command
  // line applies them; off: the components as coded.
  bool convert_colour = false;
  bool keep_cmyk = false;  // with convert_colour: CMYK stays as it is (opj_decompress's TIFF)
  // With convert_colour: a JP2 file's ICC profile is not applied; the samples stay in its colour
  // space, and DecodedImage::icc gives the profile to whoever writes them.
  bool keep_icc = false;
  // Host memory the decode may take (common/memory_budget.hpp): the stream's bytes, the
  // output's samples, one tile's coefficients (4 bytes each; on a GPU back stage, two tiles'
  // and their samples, and the blocks gathered for a launch; by rows, see by_rows, the next
  // resolution's and three rows of code-blocks and a window of rows) and each tile's code-block and
  // precinct structures, each reserved before it is allocated from counts the headers give.
  // A stream that needs more is refused (OutOfMemory, naming what for): a few bytes of header
  // can describe a gigapixel image or millions of code-blocks. 0: no limit.
  uint64_t max_bytes = 0;
  // Where the back stage (inverse DWT, inverse RCT/ICT, DC shift, clamp) runs: cpu, cuda or
  // opencl, each giving the same samples (pipeline/back_stage.hpp). With cuda or opencl Tier-1
  // runs on the GPU too, else on the CPU's `threads`. Auto: resolve_backend(), Job::Decompress.
  BackendOptions backend;
  // Where it applies (on the CPU, an image of one tile decoded whole, HT coded: decoder.cpp's
  // decodes_by_rows()), the finest DWT level a band of rows at a time
  // (pipeline/row_back_stage.hpp), so that its coefficients never fill whole-tile planes;
  // false: through the back stage's whole tile-component planes, as every other image. The
  // same samples either way (tests compare the two).
  bool by_rows = true;
  // Where set, and the image goes by rows (decodes_by_rows()) with every component, from a
  // codestream or a JP2 file whose palette, channel definitions and colour space change
  // nothing (none, or sRGB or grey without an ICC profile): the output goes to it a band of
  // rows at a time as they are made, and never fills whole planes; decode() then returns the
  // image's shape with `streamed` set and its components without bytes. Else the image comes
  // back whole, as without it.
  RowSink rows;
};

struct DecodedComponent {
  int64_t x0 = 0, y0 = 0;          // its origin on its own grid (reduced)
  int64_t width = 0, height = 0;
  int precision = 8;
  bool is_signed = false;
  int dx = 1, dy = 1;
  // height rows of width samples at the narrowest width that holds them (decoded_type).
  j2k_sample_type type = J2K_SAMPLE_U8;
  SampleBytes bytes;

  int32_t at(size_t i) const {  // sample i in row order
    switch (type) {
      case J2K_SAMPLE_U8: return bytes[i];
      case J2K_SAMPLE_I8: return static_cast<int8_t>(bytes[i]);
      case J2K_SAMPLE_U16: return reinterpret_cast<const uint16_t*>(bytes.data())[i];
      case J2K_SAMPLE_I16: return reinterpret_cast<const int16_t*>(bytes.data())[i];
      case J2K_SAMPLE_U32: return static_cast<int32_t>(reinterpret_cast<const uint32_t*>(bytes.data())[i]);
      default: return reinterpret_cast<const int32_t*>(bytes.data())[i];
    }
  }
  void set(size_t i, int32_t v) {  // sample i in row order, v in the component's range
    switch (type) {
      case J2K_SAMPLE_U8: bytes[i] = static_cast<uint8_t>(v); break;
      case J2K_SAMPLE_I8: bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(v)); break;
      case J2K_SAMPLE_U16: reinterpret_cast<uint16_t*>(bytes.data())[i] = static_cast<uint16_t>(v); break;
      case J2K_SAMPLE_I16: reinterpret_cast<int16_t*>(bytes.data())[i] = static_cast<int16_t>(v); break;
      case J2K_SAMPLE_U32: reinterpret_cast<uint32_t*>(bytes.data())[i] = static_cast<uint32_t>(v); break;
      default: reinterpret_cast<int32_t*>(bytes.data())[i] = v; break;
    }
  }
};

// The most bits a decoded sample has here: SIZ allows 38, OpenJPEG decodes up to 31 (into
// int32, as we do).
constexpr int kMaxDecodedPrecision = 31;

// The type a decoded component of `precision` bits comes out as: U8 / I8 up to 8 bits, U16 /
// I16 up to 16, U32 / I32 above (is_signed: the signed types).
inline j2k_sample_type decoded_type(int precision, bool is_signed) {
  if (precision <= 8) return is_signed ? J2K_SAMPLE_I8 : J2K_SAMPLE_U8;
  if (precision <= 16) return is_signed ? J2K_SAMPLE_I16 : J2K_SAMPLE_U16;
  return is_signed ? J2K_SAMPLE_I32 : J2K_SAMPLE_U32;
}

struct DecodedImage {
  int64_t x0 = 0, y0 = 0, width = 0, height = 0;  // the image area on the reduced canvas
  std::vector<DecodedComponent> components;
  bool truncated = false;          // (allow_partial) the stream ended early
  bool streamed = false;           // its rows went to DecodeSettings::rows: no component holds bytes
  FileFormat format = FileFormat::Codestream;
  int enum_cs = 0;                 // the JP2 file's colr EnumCS (0: none, or an ICC profile)
  std::vector<std::string> warnings;  // e.g. SEGMARK errors (the blocks are decoded anyway)
  // What a JP2 file holds beside the image: its ICC profile (empty: none) and whether the
  // colour conversion turned the samples into sRGB through it (then the profile no longer
  // describes them); its resolution in grid points per metre, the capture one (resc), else the
  // default display one (resd), of the decoded image (at reduce r, the file's over 2^r; none: 0); its other top-level boxes (XML,
  // UUID: XMP, Exif, GeoJP2, ...), in order.
  std::vector<uint8_t> icc;
  bool icc_applied = false;
  Jp2Resolution resolution;
  Jp2Resolution display;  // the default display resolution (resd) alone, reduced as `resolution`
  std::vector<Jp2Box> boxes;
};

// With Tier-1 on a GPU, the code-blocks of consecutive tiles are decoded in one launch
// until the tiles hold this many bytes of coefficients (16 tiles of 1024^2 RGB, 12 MiB each;
// on an OpenCL device whose largest buffer is smaller, that much), in device memory of the
// decoder's own beside the back stage's planes: a launch lasts as long
// as its heaviest block takes one GPU thread, however few blocks it holds.
constexpr size_t kGpuGroupBytes = size_t{256} << 20;

// Throws j2k::Error: CorruptInput naming where and why, UnsupportedInput for what this decoder
// does not read (samples of more than kMaxDecodedPrecision bits), InvalidArgument for settings the stream cannot
// meet (reduce beyond its levels). `stage`: a back stage to use (and keep, with its queue and
// buffers, for the next image: a GPU's start-up and page-locked buffers are paid once), built
// for settings.backend; null: one for this call (Auto: resolve_backend(), Job::Decompress).
DecodedImage decode(const uint8_t* data, size_t size, const DecodeSettings& settings, BackStage* stage = nullptr);

}  // namespace j2k::codec
