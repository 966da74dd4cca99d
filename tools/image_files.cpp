// SPDX-License-Identifier: BSD-2-Clause
#include "tools/image_files.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>

#include "io/image_writers.hpp"

namespace j2k::tools {

namespace fs = std::filesystem;

bool is_image_file_name(const std::string& path) { return io::image_format_of(path).has_value(); }

std::vector<std::string> image_files_in(const std::string& dir, std::vector<std::string>* skipped) {
  std::error_code ec;
  std::vector<std::string> found;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && is_image_file_name(e.path().string())) found.push_back(e.path().string());
    else if (skipped) skipped->push_back(e.path().string());
  if (ec) throw CLI::ValidationError("INPUT", dir + ": cannot list the directory: " + ec.message());
  if (found.empty())
    throw CLI::ValidationError("INPUT", dir + ": no image files (.tif .tiff .png .pgm .ppm .pnm .pgx) in the directory");
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace j2k::tools
