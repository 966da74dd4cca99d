// SPDX-License-Identifier: BSD-2-Clause
// TIFF through libtiff: 8- or 16-bit integer samples, gray / gray+alpha / RGB / RGBA,
// strips or tiles, contiguous or planar, any compression libtiff decodes. Only the first
// image of the file is read.
#include "io/readers.hpp"

#ifndef J2K_HAVE_TIFF

// Built without libtiff: the library still links, and a TIFF is refused by name.
namespace j2k::io::detail {

std::unique_ptr<FormatReader> open_tiff(const std::string& path) {
  fail(ErrorCode::UnsupportedInput, path, "TIFF support was not built in (libtiff not found)");
}

}  // namespace j2k::io::detail

#else

#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/parallel/parallel_for.hpp"
#include "io/geotiff.hpp"

namespace j2k::io::detail {
namespace {

// The largest single buffer libtiff may allocate for us (a compressed strip or tile).
constexpr tmsize_t kMaxLibtiffAllocation = tmsize_t{1} << 30;

// libtiff 4.5 takes error handlers per open file; older versions only process-wide ones.
#if TIFFLIB_VERSION >= 20221213 && !defined(J2K_TIFF_GLOBAL_HANDLERS)
#define J2K_TIFF_PER_FILE_HANDLERS 1
#endif

// What libtiff reported while reading this file. Its handlers are ours so that it never
// writes to stderr and its words reach the caller in the thrown Error.
struct TiffMessages {
  std::string errors;
};

void append_message(std::string& out, const char* module, const char* fmt, va_list ap) {
  if (out.size() > 1000) return;  // a broken file can make libtiff repeat itself at length
  char text[512];
  std::vsnprintf(text, sizeof text, fmt, ap);
  if (!out.empty()) out += "; ";
  if (module && *module) out += std::string(module) + ": ";
  out += text;
}

#ifdef J2K_TIFF_PER_FILE_HANDLERS

int on_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  append_message(static_cast<TiffMessages*>(user)->errors, module, fmt, ap);
  return 1;  // handled: libtiff must not print it too
}

// Warnings (unknown tags, odd but readable fields) do not stop the read; they are dropped
// rather than printed.
int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

// Nothing to install process-wide.
struct HandlerScope {
  explicit HandlerScope(TiffMessages*) {}
};

TIFF* open_tiff(const std::string& path, TiffMessages* messages) {
  std::unique_ptr<TIFFOpenOptions, void (*)(TIFFOpenOptions*)> opts(TIFFOpenOptionsAlloc(),
                                                                    TIFFOpenOptionsFree);
  if (!opts) fail(ErrorCode::Io, path, "libtiff could not allocate its open options");
  TIFFOpenOptionsSetErrorHandlerExtR(opts.get(), on_error, messages);
  TIFFOpenOptionsSetWarningHandlerExtR(opts.get(), on_warning, nullptr);
  // A backstop for libtiff's own buffers (compressed strips, directory arrays): a forged
  // count fails inside libtiff with a message instead of taking memory.
  TIFFOpenOptionsSetMaxSingleMemAlloc(opts.get(), kMaxLibtiffAllocation);
  return TIFFOpenExt(path.c_str(), "r", opts.get());
}

#else  // process-wide handlers

// Older libtiff: the handlers are process-wide, so ours are installed only while a file is
// read and the application's are put back afterwards. Reading TIFFs on several threads at
// once then needs libtiff 4.5.
thread_local TiffMessages* current_messages = nullptr;

void on_error_global(const char* module, const char* fmt, va_list ap) {
  if (current_messages) append_message(current_messages->errors, module, fmt, ap);
}
void on_warning_global(const char*, const char*, va_list) {}

struct HandlerScope {
  explicit HandlerScope(TiffMessages* messages)
      : previous_error_(TIFFSetErrorHandler(on_error_global)),
        previous_warning_(TIFFSetWarningHandler(on_warning_global)) {
    current_messages = messages;
  }
  ~HandlerScope() {
    current_messages = nullptr;
    TIFFSetErrorHandler(previous_error_);
    TIFFSetWarningHandler(previous_warning_);
  }
  HandlerScope(const HandlerScope&) = delete;
  HandlerScope& operator=(const HandlerScope&) = delete;

 private:
  TIFFErrorHandler previous_error_, previous_warning_;
};

TIFF* open_tiff(const std::string& path, TiffMessages*) { return TIFFOpen(path.c_str(), "r"); }

#endif

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffPtr = std::unique_ptr<TIFF, TiffCloser>;

// Strips that decode to more than this are read a row at a time (TIFFReadScanline) instead of
// into a buffer of the whole strip, so that memory grows only with rows that really decode.
constexpr uint64_t kMaxBlockBuffer = uint64_t{64} << 20;
// The largest TIFF tile decoded (tiles are decoded whole), and the widest row: a row is the
// least that is decoded (and held twice: libtiff's buffer and the planes) whatever the codec,
// so a forged width in a tiny file must not reach an allocation. 256 MiB is a row of 33
// million 16-bit RGBA pixels.
constexpr uint64_t kMaxTileBytes = uint64_t{256} << 20;
constexpr uint64_t kMaxRowBytes = uint64_t{256} << 20;

// The most bytes one byte of a codec's output can decode to, where the codec bounds it: a
// block declaring more than this times its stored bytes is corrupt, whatever its header says.
// Deflate: a 258-byte match per (at least) 2 bits, 1032:1. LZW: a code of at least 9 bits
// stands for at most 4096 bytes (its table's size). PackBits: 128 bytes from 2. Uncompressed:
// 1. Other codecs (JPEG, ZSTD, LZMA, CCITT, ...): no bound known here (0).
struct CodecBound {
  const char* name;
  uint64_t ratio;
};
CodecBound codec_bound(uint16_t compression) {
  switch (compression) {
    case COMPRESSION_NONE: return {"uncompressed", 1};
    case COMPRESSION_PACKBITS: return {"PackBits", 64};
    case COMPRESSION_LZW: return {"LZW", 4096 * 8 / 9 + 1};
    case COMPRESSION_ADOBE_DEFLATE:
    case COMPRESSION_DEFLATE: return {"Deflate", 1032};
    default: return {"", 0};
  }
}

// The most bytes of values an Exif directory is copied with (entries pointing again and again
// at a large part of the file must not multiply it).
constexpr uint64_t kMaxExifBytes = uint64_t{16} << 20;

// The Exif directory at `offset` of the classic TIFF at `path` (byte order `little`), as
// TiffReader::read_exif describes; empty with `why` set when it cannot be read.
std::vector<uint8_t> exif_blob(const std::string& path, uint64_t offset, bool little, uint64_t file_size, std::string& why) {
  // The file is read only where the directory and its values are, through one small reader.
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    why = "the file cannot be opened again";
    return {};
  }
  auto read_at = [&](uint64_t at, size_t n, uint8_t* out) {
    return at <= file_size && n <= file_size - at && std::fseek(f, static_cast<long>(at), SEEK_SET) == 0 &&
           std::fread(out, 1, n, f) == n;
  };
  auto get = [&](const uint8_t* p, int bytes) {
    uint32_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint32_t{p[little ? i : bytes - 1 - i]} << (8 * (little ? i : bytes - 1 - i));
    return v;
  };
  std::vector<uint8_t> out;
  auto put = [&](uint32_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * (little ? i : bytes - 1 - i))));
  };
  auto put_at = [&](size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) out[at + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * (little ? i : 3 - i)));
  };
  uint8_t count_bytes[2];
  if (offset > UINT32_MAX || !read_at(offset, 2, count_bytes)) {
    std::fclose(f);
    why = "its offset " + std::to_string(offset) + " is outside the file";
    return {};
  }
  const uint32_t count = get(count_bytes, 2);
  std::vector<uint8_t> entries(size_t{count} * 12);
  if (count == 0 || !read_at(offset + 2, entries.size(), entries.data())) {
    std::fclose(f);
    why = count == 0 ? "it has no entries" : "its entries run past the end of the file";
    return {};
  }
  // The sizes of TIFF 6's types (1 BYTE ... 12 DOUBLE); 0: unknown.
  static const uint32_t kTypeBytes[13] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8};
  struct Entry {
    uint32_t tag, type, count;
    std::vector<uint8_t> value;  // the raw bytes, in the file's order
  };
  std::vector<Entry> kept;
  uint64_t total = 0;
  for (uint32_t k = 0; k < count; ++k) {
    const uint8_t* e = entries.data() + size_t{k} * 12;
    Entry x{get(e, 2), get(e + 2, 2), get(e + 4, 4), {}};
    // A further directory (Interoperability, or any entry of type IFD), an unknown type.
    if (x.tag == 40965 || x.type == 0 || x.type >= 13) continue;
    const uint64_t bytes = uint64_t{kTypeBytes[x.type]} * x.count;
    if (bytes > file_size) continue;
    total += bytes;  // each at most the file's size: no overflow
    if (total > kMaxExifBytes) {
      std::fclose(f);
      why = "its values take more than " + std::to_string(kMaxExifBytes >> 20) + " MiB";
      return {};
    }
    x.value.resize(static_cast<size_t>(bytes));
    if (bytes <= 4) std::memcpy(x.value.data(), e + 8, static_cast<size_t>(bytes));
    else if (!read_at(get(e + 8, 4), x.value.size(), x.value.data())) continue;
    kept.push_back(std::move(x));
  }
  std::fclose(f);
  if (kept.empty()) {
    why = "none of its entries can be read";
    return {};
  }
  // Header, IFD0 (one entry: the Exif pointer) at 8, the Exif IFD at 26, then the values.
  out.push_back(little ? 'I' : 'M');
  out.push_back(little ? 'I' : 'M');
  put(42, 2);
  put(8, 4);
  put(1, 2);
  put(34665, 2), put(4, 2), put(1, 4), put(26, 4);
  put(0, 4);
  const size_t exif = out.size();
  put(static_cast<uint32_t>(kept.size()), 2);
  size_t data_at = exif + 2 + kept.size() * 12 + 4;
  std::vector<size_t> offsets;
  for (const Entry& x : kept) {
    put(x.tag, 2), put(x.type, 2), put(x.count, 4);
    if (x.value.size() <= 4) {
      out.insert(out.end(), x.value.begin(), x.value.end());
      out.insert(out.end(), 4 - x.value.size(), 0);
    } else {
      offsets.push_back(out.size());
      put(0, 4);  // set below
    }
  }
  put(0, 4);  // no next directory
  size_t next = 0;
  for (const Entry& x : kept) {
    if (x.value.size() <= 4) continue;
    put_at(offsets[next++], static_cast<uint32_t>(data_at));
    out.insert(out.end(), x.value.begin(), x.value.end());
    if (x.value.size() % 2) out.push_back(0);  // values start on a word boundary
    data_at = out.size();
  }
  return out;
}

class TiffReader : public FormatReader {
 public:
  explicit TiffReader(const std::string& path) : path_(path) {
    open();
    read_layout();
    read_metadata();
    if (TIFFIsTiled(tif_.get())) tile_layout();
    else strip_layout();
    // Every block is checked before any is decoded, so that a forged size anywhere in the
    // file is refused at once, not after the bands before it have been processed.
    for_each_block(0, height_, [&](const Block& b) { check_stored_size(b); });
  }

  j2kfront::Image read_rows(uint64_t first, uint64_t rows) override {
    const uint64_t end = first + rows;
    allocate(rows);
    std::vector<Block> blocks;
    for_each_block(first, end, [&](const Block& b) { blocks.push_back(b); });
    decode(blocks, first, end);
    // Every strip or tile row of the band has been decoded, so every plane has its rows.
    for (const j2kfront::Image::Component& k : image_.components)
      if (k.bytes.size() != static_cast<size_t>(k.height * k.row_stride()))
        fail(ErrorCode::Internal, path_, "a component was not filled");
    return std::move(image_);
  }

 private:
  [[noreturn]] void corrupt(const std::string& what) const {
    fail(ErrorCode::CorruptInput, path_,
         what + (messages_.errors.empty() ? "" : " (libtiff: " + messages_.errors + ")"));
  }
  [[noreturn]] void unsupported(const std::string& what) const {
    fail(ErrorCode::UnsupportedInput, path_, what);
  }

  void open() {
    register_geotiff_tags();  // before the file's directory is read: libtiff keeps the tags it knows
    tif_.reset(open_tiff(path_, &messages_));
    // read_image opened the file a moment ago, so a failure here is the file's content.
    if (!tif_) corrupt("not a readable TIFF file");
  }

  void read_layout() {
    TIFF* t = tif_.get();
    uint32_t w = 0, h = 0;
    if (!TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h))
      corrupt("the image size is missing");
    if (w == 0 || h == 0)
      corrupt("image size " + std::to_string(w) + "x" + std::to_string(h) + " is empty");
    width_ = w;
    height_ = h;

    uint16_t bits = 1, spp = 1, format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG, photo = 0;
    TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &compression_);
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &format);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
    if (!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &photo))
      corrupt("the photometric interpretation is missing");

    switch (photo) {
      case PHOTOMETRIC_MINISBLACK:
      case PHOTOMETRIC_MINISWHITE:  // kept as stored: a codec must not invert samples
        break;
      case PHOTOMETRIC_RGB:
        if (spp < 3) corrupt("RGB image with " + std::to_string(spp) + " samples per pixel");
        break;
      case PHOTOMETRIC_PALETTE:
        unsupported("palette (colour-mapped) images are not supported");
      case PHOTOMETRIC_YCBCR: {
        uint16_t sx = 1, sy = 1;
        TIFFGetFieldDefaulted(t, TIFFTAG_YCBCRSUBSAMPLING, &sx, &sy);
        unsupported("YCbCr images (subsampling " + std::to_string(sx) + "x" + std::to_string(sy) +
                    ") are not supported");
      }
      default:
        unsupported("photometric interpretation " + std::to_string(photo) +
                    " is not supported (MinIsBlack, MinIsWhite and RGB are)");
    }
    if (spp == 0) corrupt("0 samples per pixel");
    if (spp > 4)
      unsupported(std::to_string(spp) + " samples per pixel are not supported (1 to 4 are)");
    if (format == SAMPLEFORMAT_IEEEFP || format == SAMPLEFORMAT_COMPLEXIEEEFP)
      unsupported(std::to_string(bits) + "-bit floating-point samples are not supported");
    if (format == SAMPLEFORMAT_COMPLEXINT) unsupported("complex integer samples are not supported");
    // VOID means "untyped"; reading it as unsigned is what every viewer does.
    if (format != SAMPLEFORMAT_UINT && format != SAMPLEFORMAT_INT && format != SAMPLEFORMAT_VOID)
      unsupported("sample format " + std::to_string(format) + " is not supported");
    if (bits != 8 && bits != 16)
      unsupported(std::to_string(bits) + " bits per sample are not supported (8 and 16 are)");
    if (planar != PLANARCONFIG_CONTIG && planar != PLANARCONFIG_SEPARATE)
      corrupt("planar configuration " + std::to_string(planar) + " is invalid");

    samples_per_pixel_ = spp;
    bytes_ = bits / 8;
    is_signed_ = format == SAMPLEFORMAT_INT;
    planar_ = planar == PLANARCONFIG_SEPARATE;
    const uint64_t row_bytes = width_ * samples_per_pixel_ * bytes_;  // < 2^32 * 4 * 2
    if (row_bytes > kMaxRowBytes)
      unsupported("rows of " + std::to_string(width_) + " pixels of " + std::to_string(spp) + " x " +
                  std::to_string(bytes_) + " bytes (" + std::to_string(row_bytes) + " bytes) exceed the reader's limit of " +
                  std::to_string(kMaxRowBytes >> 20) + " MiB a row");
    // The shape read_rows' bands have, and what every block of the file is checked against.
    shape_.width = static_cast<uint32_t>(width_);
    shape_.height = static_cast<uint32_t>(height_);
    const int precision = static_cast<int>(bytes_ * 8);
    shape_.components.resize(samples_per_pixel_);
    for (j2kfront::Image::Component& k : shape_.components) {
      k.type = sample_type_for(precision, is_signed_);
      k.precision = precision;
      k.width = static_cast<int64_t>(width_);
      k.height = static_cast<int64_t>(height_);
    }
    // No codec libtiff has shrinks real images beyond 1024:1: a file that small for its
    // image is decoded into planes that grow only as rows really decode, so that a tiny
    // corrupt file claiming a huge image fails before it costs memory. (w * h < 2^64.)
    file_size_ = TIFFGetSizeProc(t)(TIFFClientdata(t));
    uint64_t decoded = 0;
    plausible_ = !__builtin_mul_overflow(width_ * height_, samples_per_pixel_ * bytes_, &decoded) &&
                 decoded / 1024 <= file_size_;
  }

  // The tags a JP2 file can carry: ICCProfile (34675), XResolution, YResolution and
  // ResolutionUnit (inches and centimetres to metres; "none" is an aspect ratio only, left out
  // with a warning where it is not 1:1), XMP (700), the Exif directory (34665) as a TIFF
  // structure of its own (exif_blob), and GeoTIFF's tags (io/geotiff.hpp). libtiff has read
  // each tag's values within the file.
  void read_metadata() {
    TIFF* t = tif_.get();
    uint32_t count = 0;
    const uint8_t* data = nullptr;
    if (TIFFGetField(t, TIFFTAG_ICCPROFILE, &count, &data) && data != nullptr) metadata_.icc.assign(data, data + count);
    count = 0, data = nullptr;
    if (TIFFGetField(t, TIFFTAG_XMLPACKET, &count, &data) && data != nullptr) metadata_.xmp.assign(data, data + count);
    float x = 0, y = 0;
    uint16_t unit = RESUNIT_INCH;
    if (TIFFGetField(t, TIFFTAG_XRESOLUTION, &x) && TIFFGetField(t, TIFFTAG_YRESOLUTION, &y) && x > 0 && y > 0 &&
        std::isfinite(x) && std::isfinite(y)) {
      TIFFGetFieldDefaulted(t, TIFFTAG_RESOLUTIONUNIT, &unit);
      if (unit == RESUNIT_INCH || unit == RESUNIT_CENTIMETER) {
        const double to_metre = unit == RESUNIT_INCH ? 1 / 0.0254 : 100;
        metadata_.x_per_metre = x * to_metre;
        metadata_.y_per_metre = y * to_metre;
      } else if (x != y) {
        metadata_.warnings.push_back("its resolution has no unit (" + std::to_string(x) + ":" + std::to_string(y) +
                                     " is an aspect ratio only): it is not carried");
      }
    }
    uint64_t exif_offset = 0;
    if (TIFFGetField(t, TIFFTAG_EXIFIFD, &exif_offset) && exif_offset != 0) read_exif(exif_offset);
    // GeoTIFF's georeferencing, as the GeoJP2 box's one-pixel GeoTIFF that carries it.
    const GeoTiffTags geo = read_geotiff_tags(t, metadata_.warnings);
    if (!geo.empty()) metadata_.geotiff = geojp2_tiff(geo);
  }

  // The Exif directory at `offset` as a TIFF structure of its own (what a PNG's eXIf chunk or a
  // JP2 file's Exif UUID box holds): a header in the file's byte order, a first directory with
  // only the Exif pointer, then the Exif directory with its values after it. Its entries are
  // copied as they are, the values they point to moved along; a pointer to a further directory
  // (Interoperability, 40965) is left out, and so is an entry whose values lie outside the
  // file. BigTIFF's directories are not read (a warning says so).
  void read_exif(uint64_t offset) {
    if (TIFFIsBigTIFF(tif_.get())) {
      metadata_.warnings.push_back("its Exif directory is not carried: it is a BigTIFF's");
      return;
    }
    std::string why;
    metadata_.exif = exif_blob(path_, offset, !TIFFIsBigEndian(tif_.get()), file_size_, why);
    if (metadata_.exif.empty()) metadata_.warnings.push_back("its Exif directory is not carried: " + why);
  }

  // The band's planes, left empty: they grow as rows decode (ensure_rows), reserved at once
  // only where the file plausibly holds the image.
  void allocate(uint64_t rows) {
    image_ = j2kfront::Image();
    image_.width = shape_.width;
    image_.height = static_cast<uint32_t>(rows);
    image_.components = shape_.components;
    for (j2kfront::Image::Component& k : image_.components) {
      k.height = static_cast<int64_t>(rows);
      if (plausible_) k.bytes.reserve(static_cast<size_t>(rows * width_ * bytes_));
    }
  }

  // Makes rows [0, rows) of the band's component c addressable before samples land there.
  void ensure_rows(size_t c, uint64_t rows) {
    std::vector<unsigned char>& b = image_.components[c].bytes;
    if (b.size() < rows * width_ * bytes_) b.resize(rows * width_ * bytes_);
  }

  // Copies rows [skip, skip + rows) of a decoded block (a strip or a tile) of block_w samples
  // per row into the band's rows [y, y + rows), columns [x0, x0 + cols), at the samples' own
  // width (libtiff has already put 16-bit samples in the machine's byte order, so they are
  // copied as they are, signed or not). `sample` is the plane for planar data; contiguous
  // data holds every component, interleaved, and is split here.
  template <size_t N>  // bytes per sample
  void scatter(const uint8_t* block, uint64_t block_w, uint64_t skip, uint64_t x0, uint64_t y, uint64_t cols,
               uint64_t rows, int sample) {
    const size_t first = planar_ ? static_cast<size_t>(sample) : 0;
    const size_t count = planar_ ? 1 : samples_per_pixel_;
    for (size_t c = first; c < first + count; ++c) ensure_rows(c, y + rows);
    for (uint64_t r = 0; r < rows; ++r) {
      const uint8_t* src = block + (skip + r) * block_w * count * N;
      for (size_t c = first; c < first + count; ++c) {
        unsigned char* dst = image_.components[c].bytes.data() + ((y + r) * width_ + x0) * N;
        if (count == 1) {
          std::memcpy(dst, src, cols * N);
          continue;
        }
        const uint8_t* s = src + (c - first) * N;
        for (uint64_t x = 0; x < cols; ++x) std::memcpy(dst + x * N, s + x * count * N, N);
      }
    }
  }

  // Copies the rows of a decoded block that fall in the band [first, end) into it.
  void scatter_any(const uint8_t* block, uint64_t block_w, uint64_t block_y0, uint64_t x0, uint64_t cols,
                   uint64_t block_rows, int sample, uint64_t first, uint64_t end) {
    const uint64_t from = std::max(block_y0, first), to = std::min(block_y0 + block_rows, end);
    if (from >= to) return;
    if (bytes_ == 1) scatter<1>(block, block_w, from - block_y0, x0, from - first, cols, to - from, sample);
    if (bytes_ == 2) scatter<2>(block, block_w, from - block_y0, x0, from - first, cols, to - from, sample);
  }

  int planes() const { return planar_ ? static_cast<int>(samples_per_pixel_) : 1; }

  // A strip or a tile: its index in the file and the part of the image it covers.
  struct Block {
    uint32_t index;
    int plane;
    uint64_t x0, y0, cols, rows;
    uint64_t width;     // samples per row in the decoded block
    uint64_t expected;  // bytes it must decode to, at least
    bool tile;          // a tile, else a strip
  };

  void strip_layout() {
    TIFF* t = tif_.get();
    uint32_t rows_per_strip = 0;
    TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
    if (rows_per_strip == 0) corrupt("RowsPerStrip is 0");
    block_w_ = width_;
    block_h_ = rows_per_strip < height_ ? rows_per_strip : height_;
    const uint64_t per_pixel = planar_ ? 1 : samples_per_pixel_;
    const tmsize_t strip_size = TIFFStripSize(t);
    if (strip_size <= 0 || static_cast<uint64_t>(strip_size) < block_h_ * width_ * per_pixel * bytes_)
      corrupt("strip size " + std::to_string(strip_size) + " does not match the image layout");
    block_bytes_ = static_cast<uint64_t>(strip_size);
  }

  void tile_layout() {
    TIFF* t = tif_.get();
    uint32_t tile_w = 0, tile_h = 0;
    if (!TIFFGetField(t, TIFFTAG_TILEWIDTH, &tile_w) ||
        !TIFFGetField(t, TIFFTAG_TILELENGTH, &tile_h) || tile_w == 0 || tile_h == 0)
      corrupt("tiled image without a valid tile size");
    const uint64_t per_pixel = planar_ ? 1 : samples_per_pixel_;
    // Tiles are decoded whole; real files use tiles of 16 to 1024 rows and columns. (The
    // product of the sides is below 2^64; the first test keeps the second from overflowing.)
    if (uint64_t{tile_w} * tile_h > kMaxTileBytes || uint64_t{tile_w} * tile_h * per_pixel * bytes_ > kMaxTileBytes)
      unsupported("tiles of " + std::to_string(tile_w) + "x" + std::to_string(tile_h) + "x" +
                  std::to_string(per_pixel) + " samples of " + std::to_string(bytes_) +
                  " bytes exceed the reader's limit of " + std::to_string(kMaxTileBytes >> 20) + " MiB a tile");
    block_w_ = tile_w;
    block_h_ = tile_h;
    const tmsize_t tile_size = TIFFTileSize(t);
    if (tile_size <= 0 || static_cast<uint64_t>(tile_size) < block_w_ * block_h_ * per_pixel * bytes_)
      corrupt("tile size " + std::to_string(tile_size) + " does not match the image layout");
    block_bytes_ = static_cast<uint64_t>(tile_size);
  }

  // Calls fn(block) for every strip or tile holding rows of [first, end), plane by plane,
  // then top to bottom, then left to right: the order of the file and of the planes' rows.
  template <typename Fn>
  void for_each_block(uint64_t first, uint64_t end, Fn&& fn) {
    TIFF* t = tif_.get();
    const bool tiled = TIFFIsTiled(t);
    const uint64_t per_pixel = planar_ ? 1 : samples_per_pixel_;
    for (int plane = 0; plane < planes(); ++plane)
      for (uint64_t y = first / block_h_ * block_h_; y < end; y += block_h_)
        for (uint64_t x = 0; x < width_; x += block_w_) {
          // The last strip may hold fewer rows, and libtiff decodes only those; tiles at the
          // right and bottom edges are padded, and only the part inside is copied.
          const uint64_t cols = std::min(block_w_, width_ - x), rows = std::min(block_h_, height_ - y);
          const auto px = static_cast<uint32_t>(x), py = static_cast<uint32_t>(y);
          const auto pl = static_cast<uint16_t>(plane);
          if (tiled)
            fn(Block{TIFFComputeTile(t, px, py, 0, pl), plane, x, y, cols, rows, block_w_,
                     block_w_ * block_h_ * per_pixel * bytes_, true});
          else
            fn(Block{TIFFComputeStrip(t, py, pl), plane, 0, y, width_, rows, width_, rows * width_ * per_pixel * bytes_,
                     false});
        }
  }

  std::string block_name(const Block& b) const {
    return (b.tile ? "tile " : "strip ") + std::to_string(b.index);
  }

  // Refuses, before anything is allocated for it, a block whose stored bytes cannot decode to
  // what its layout needs with this codec (a forged size in a small file).
  void check_stored_size(const Block& b) const {
    const CodecBound bound = codec_bound(compression_);
    if (bound.ratio == 0) return;
    int err = 0;
    const uint64_t stored = TIFFGetStrileByteCountWithErr(tif_.get(), b.index, &err);
    if (err) corrupt("the byte count of " + block_name(b) + " is missing");
    if (stored > file_size_)
      corrupt(block_name(b) + " declares " + std::to_string(stored) + " stored bytes, more than the file's " +
              std::to_string(file_size_));
    if (b.expected > stored * bound.ratio)  // stored <= the file's size: no overflow
      corrupt(block_name(b) + " must decode to " + std::to_string(b.expected) + " bytes, but holds " +
              std::to_string(stored) + " bytes of " + bound.name + " data, which decode to at most " +
              std::to_string(stored * bound.ratio) + " (" + std::to_string(bound.ratio) + ":1)");
  }

  // The rows of the band [first, end) in a strip too large for a buffer of its own, a row at
  // a time: libtiff keeps only the strip's stored bytes and one row, and the planes grow only
  // with rows that decode. libtiff goes on from the row it decoded last, so the bands of an
  // image decode its strip once; each plane has its own handle so that this holds for planar
  // files too (one handle would start the strip again at every change of plane).
  void decode_by_rows(const Block& b, uint64_t first, uint64_t end) {
    const auto plane = static_cast<size_t>(b.plane);
    if (row_handles_.size() <= plane) row_handles_.resize(plane + 1);
    if (!row_handles_[plane]) {
      row_handles_[plane].reset(open_tiff(path_, &messages_));
      if (!row_handles_[plane]) corrupt("not a readable TIFF file");
    }
    TIFF* t = row_handles_[plane].get();
    const uint64_t per_pixel = planar_ ? 1 : samples_per_pixel_;
    const uint64_t row_bytes = static_cast<uint64_t>(TIFFScanlineSize64(t));
    if (row_bytes < width_ * per_pixel * bytes_)
      corrupt("row size " + std::to_string(row_bytes) + " does not match the image layout");
    std::vector<uint8_t> row(static_cast<size_t>(row_bytes));
    for (uint64_t y = std::max(b.y0, first); y < std::min(b.y0 + b.rows, end); ++y) {
      std::fill(row.begin(), row.end(), uint8_t{0});  // as in decode_block
      if (TIFFReadScanline(t, row.data(), static_cast<uint32_t>(y), static_cast<uint16_t>(b.plane)) < 0)
        corrupt("cannot decode row " + std::to_string(y) + " of " + block_name(b));
      scatter_any(row.data(), width_, y, 0, width_, 1, b.plane, first, end);
    }
  }

  // Decodes one block through `t` into `buffer` and copies its rows in the band [first, end)
  // into the planes; returns what went wrong ("" when nothing did).
  std::string decode_block(TIFF* t, const Block& b, std::vector<uint8_t>& buffer, uint64_t first, uint64_t end) {
    const auto size = static_cast<tmsize_t>(block_bytes_);
    // libtiff may report a damaged block as decoded while it wrote only part of it (Deflate
    // through libdeflate, which leaves its output unspecified when it stops early): what it
    // did not write must not be the last block's samples, or the image would depend on the
    // order the blocks were read in.
    std::fill(buffer.begin(), buffer.end(), uint8_t{0});
    const tmsize_t got = b.tile ? TIFFReadEncodedTile(t, b.index, buffer.data(), size)
                                : TIFFReadEncodedStrip(t, b.index, buffer.data(), size);
    const std::string name = block_name(b);
    if (got < 0) return "cannot decode " + name;
    if (static_cast<uint64_t>(got) < b.expected)
      return name + " decodes to " + std::to_string(got) + " bytes, " + std::to_string(b.expected) + " expected";
    scatter_any(buffer.data(), b.width, b.y0, b.x0, b.cols, b.rows, b.plane, first, end);
    return "";
  }

  // The band's blocks in file order on this thread; or, where the file plausibly holds the
  // image and libtiff takes handlers per file, spread over all cores, each worker with its
  // own libtiff handle (one handle is not thread-safe) and the planes sized up front. Either
  // way the first bad block in file order is the one reported. A block that straddles two
  // bands is decoded for each.
  void decode(const std::vector<Block>& blocks, uint64_t first, uint64_t end) {
    if (!blocks.front().tile && block_bytes_ > kMaxBlockBuffer) {
      for (const Block& b : blocks) decode_by_rows(b, first, end);
      return;
    }
    const int workers = std::min<int>(worker_count(threads_), static_cast<int>(blocks.size() / 2));
#ifdef J2K_TIFF_PER_FILE_HANDLERS
    // Below a megabyte a band decodes faster than threads start (bands of a few rows).
    const bool parallel = plausible_ && workers > 1 && (end - first) * width_ * samples_per_pixel_ * bytes_ >= (1u << 20);
#else
    const bool parallel = false;
#endif
    if (!parallel) {
      std::vector<uint8_t> buffer(static_cast<size_t>(block_bytes_));
      for (const Block& b : blocks) {
        const std::string problem = decode_block(tif_.get(), b, buffer, first, end);
        if (!problem.empty()) corrupt(problem);
      }
      return;
    }
    for (size_t c = 0; c < image_.components.size(); ++c) ensure_rows(c, end - first);
    std::vector<std::string> problems(blocks.size());
    if (workers_.size() < static_cast<size_t>(workers)) workers_.resize(static_cast<size_t>(workers));
    for (WorkerHandle& h : workers_)
      if (h.messages) h.messages->errors.clear();  // what the last band's blocks said
    parallel_for(workers, workers, [&](ptrdiff_t w) {
      WorkerHandle& h = workers_[static_cast<size_t>(w)];
      if (!h.tif) {
        h.messages = std::make_unique<TiffMessages>();
        h.tif.reset(open_tiff(path_, h.messages.get()));
        if (!h.tif) throw Error(ErrorCode::CorruptInput, path_ + ": not a readable TIFF file");
      }
      std::vector<uint8_t> buffer(static_cast<size_t>(block_bytes_));
      for (size_t i = static_cast<size_t>(w); i < blocks.size(); i += static_cast<size_t>(workers)) {
        problems[i] = decode_block(h.tif.get(), blocks[i], buffer, first, end);
        if (!problems[i].empty()) {
          const std::string& said = h.messages->errors;
          if (!said.empty()) problems[i] += " (libtiff: " + said + ")";
          return;
        }
      }
    });
    for (const std::string& p : problems)
      if (!p.empty()) fail(ErrorCode::CorruptInput, path_, p);
  }

  std::string path_;
  // Declared before the handles: libtiff may report into them until a handle is closed.
  TiffMessages messages_;
  HandlerScope handlers_{&messages_};
  TiffPtr tif_;
  std::vector<TiffPtr> row_handles_;  // per plane, for strips decoded a row at a time
  // One handle per worker of the parallel decode (one handle is not thread-safe), opened on
  // first use and kept for the next bands: opening a file reads its directory again, which
  // for a band of a few rows costs more than decoding it.
  struct WorkerHandle {
    std::unique_ptr<TiffMessages> messages;  // before tif: libtiff reports into it until closed
    TiffPtr tif;
  };
  std::vector<WorkerHandle> workers_;
  uint64_t width_ = 0, height_ = 0;
  size_t samples_per_pixel_ = 1;
  uint64_t bytes_ = 1;
  bool is_signed_ = false;
  bool planar_ = false;
  bool plausible_ = false;  // the file is large enough to hold the image it declares
  uint64_t block_w_ = 0, block_h_ = 0;  // a strip's or a tile's samples per row, and rows
  uint64_t block_bytes_ = 0;  // what one strip or tile decodes to
  uint64_t file_size_ = 0;
  uint16_t compression_ = COMPRESSION_NONE;
  j2kfront::Image image_;  // the band being read
};

}  // namespace

std::unique_ptr<FormatReader> open_tiff(const std::string& path) { return std::make_unique<TiffReader>(path); }

}  // namespace j2k::io::detail

#endif  // J2K_HAVE_TIFF
