// SPDX-License-Identifier: BSD-2-Clause
// The benchmarks' images: the sample images upscaled, with a camera's noise, as `j2kfront
// bench --compress/--decompress` code them and bench/tier1_ab.sh can decode their blocks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace j2k::bench {

// An image made from a sample: its samples interleaved, a byte each up to 8 bits, else two
// (uint16_t, the machine's order).
struct Upscaled {
  int64_t width = 0, height = 0;
  int components = 0, bits = 8;
  std::vector<uint8_t> bytes;
};
// width x height from an 8-bit sample image (bilinear upscaling plus a little deterministic
// noise) at `bits` bits (1..16).
Upscaled upscale(const std::string& sample, int64_t width, int64_t height, int bits);

// The image as binary PNM at `path` (PGM or PPM; samples over 8 bits big-endian, as PNM has
// them; maxval 2^bits - 1).
void write_pnm(const Upscaled& image, const std::string& path);

// `size` x `size` from an 8-bit sample image (bilinear upscaling plus a little deterministic
// noise) as binary PNM in `dir`; `wide`: 16-bit samples.
std::string make_input(const std::string& sample, int64_t size, bool wide, const std::string& dir);

// A fresh folder in $TMPDIR for one benchmark run, removed with everything in it.
struct ScratchDir {
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string path;
};

}  // namespace j2k::bench
