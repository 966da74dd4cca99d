// SPDX-License-Identifier: BSD-2-Clause
// An image too large for memory, transformed one row of tiles at a time: each row is read
// (a band of the file), transformed by a plan of its own and written before the next is
// read, so that memory holds one row's samples and coefficients, not the image's.
//
// Every tile keeps its place on the canvas: a row's plan sees the image's rows in that row
// of tiles, with the tile grid's origin moved down to the row's top. Its tile-components
// therefore have the canvas coordinates, and so the coefficients, of the whole image's.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/image_io.hpp"
#include "tiling/canvas.hpp"
#include "j2kfront/j2kfront.hpp"

namespace j2k::tools {

// The rows of tiles of an image at (x0, y0) of width x height on the canvas, top to bottom
// (the canvas's, tiling/canvas.hpp; untiled settings: one row). Each row's `top` is the tile
// origin of its plan.
std::vector<TileRow> tile_rows(const j2k_settings& s, int64_t x0, int64_t y0, int64_t width, int64_t height);

// Host memory the whole image needs at least when transformed at once: its samples and
// its coefficients (4 bytes each, for the 5/3 and the 9/7 alike).
uint64_t whole_image_bytes(const io::ImageReader& reader);

// Every row allocates its band and its plan's buffers anew, and frees them. glibc would raise
// its mmap threshold past those sizes after the first free and then keep the freed memory in
// its heap, holding two rows' worth or more; a fixed threshold (for the whole process) sends
// every large buffer straight back to the system. Called before the first row.
void return_large_buffers_at_once();

struct RowsJob {
  std::string input, outdir;
  bool force = false;
  j2k_settings settings{};
  int64_t x0 = 0, y0 = 0;  // the image's origin on the canvas
  uint64_t budget = 0;     // bytes of host memory for one row: samples, plan, coefficients
  bool quiet = false;      // no summary line
};

// Transforms the image `reader` has opened (no row read yet), row of tiles after row, into
// the same files as a whole-image run writes. Throws j2kfront::Error (or j2k::Error) naming
// the cause; a row that does not fit the budget is refused with both figures.
void transform_by_tile_rows(io::ImageReader& reader, const RowsJob& job);

}  // namespace j2k::tools
