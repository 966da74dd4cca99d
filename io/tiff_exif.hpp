// SPDX-License-Identifier: BSD-2-Clause
// Exif into a TIFF being written: the Exif TIFF structure a JP2 file's Exif UUID box holds (a
// header, a first directory whose tag 34665 points at the Exif directory; what the TIFF reader's
// exif_blob() and the PNG reader's eXIf give) becomes an Exif directory of the output, which
// its image directory points at (tag 34665). Built with libtiff only.
#pragma once
#include <tiffio.h>

#include <cstdint>
#include <string>
#include <vector>

namespace j2k::io {

// Writes the Exif directory of `exif` into `out` (opened for writing, nothing set on it yet)
// as a custom directory and returns its offset for the image directory's TIFFTAG_EXIFIFD; `out`
// is left at a fresh image directory. The entries are read through libtiff (its Exif field
// table, its checks on counts and offsets) and copied as its fields: an entry libtiff does not
// know, a further directory (Interoperability) or one that cannot be copied is left out, the
// tags named in one sentence added to `left`. 0, with a sentence in `left`: nothing written (a
// structure libtiff cannot read, no Exif directory in it, none of its entries usable).
uint64_t write_exif_directory(TIFF* out, const std::vector<uint8_t>& exif, std::vector<std::string>& left);

}  // namespace j2k::io
