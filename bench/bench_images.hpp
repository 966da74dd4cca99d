// SPDX-License-Identifier: BSD-2-Clause
// The benchmarks' images: the sample images upscaled, with a camera's noise, as `j2kfront
// bench --compress/--decompress` code them and bench/tier1_ab.sh can decode their blocks.
#pragma once
#include <cstdint>
#include <string>

namespace j2k::bench {

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
