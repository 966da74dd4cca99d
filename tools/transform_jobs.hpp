// SPDX-License-Identifier: BSD-2-Clause
// The images one `j2kfront transform` runs: each input file, or the image files of an input
// directory (by extension, sorted), and where each one's outputs go.
#pragma once
#include <string>
#include <vector>

namespace j2k::tools {

struct TransformJob {
  std::string input;   // an image file
  std::string outdir;  // its output directory
};

// One input file, or "-" (standard input, which must then be the only input): its outputs go
// to `outdir` itself. Several inputs, or a directory: each image
// to `outdir/<file name>` (a directory named like the image file). Throws CLI::ValidationError naming the problem
// (a missing input, a directory without images, two images with one output name) before any
// work is done. `skipped` (if given) gets the other entries of input directories.
std::vector<TransformJob> transform_jobs(const std::vector<std::string>& inputs, const std::string& outdir,
                                         std::vector<std::string>* skipped = nullptr);

}  // namespace j2k::tools
