// SPDX-License-Identifier: BSD-2-Clause
// A TIFF structure held in memory (a JP2 file's Exif UUID box, a GeoJP2 box's degenerate
// GeoTIFF) opened read-only through libtiff: reads never go past the bytes, nothing is written,
// and what libtiff says goes into a string instead of standard error. Built with libtiff only.
#pragma once
#include <tiffio.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace j2k::io {

class TiffInMemory {
 public:
  // Opens `size` bytes at `data` (which must outlive this) in libtiff's `mode` ("r" and its
  // modifiers: "rh" reads the header only, not the first directory); tiff() is null where
  // libtiff cannot read them, and errors() says why.
  TiffInMemory(const uint8_t* data, size_t size, const char* mode = "rm");
  ~TiffInMemory();
  TiffInMemory(const TiffInMemory&) = delete;
  TiffInMemory& operator=(const TiffInMemory&) = delete;

  TIFF* tiff() const { return tif_; }
  // What libtiff reported as errors, "; "-separated ("" for none).
  const std::string& errors() const { return errors_; }

  // The bytes and the read position libtiff's procedures work on (public for them).
  struct Bytes {
    const uint8_t* data;
    uint64_t size, at;
  };

 private:
  Bytes bytes_;
  std::string errors_;
  TIFF* tif_ = nullptr;
};

}  // namespace j2k::io
