// SPDX-License-Identifier: BSD-2-Clause
// The image files of a directory, as the batch commands (transform, compress) take them: by
// extension, sorted by name.
#pragma once
#include <string>
#include <vector>

#include "common/file_names.hpp"

namespace j2k::tools {

// The file extensions the image readers take (io/read_image.cpp then reads the signature).
bool is_image_file_name(const std::string& path);

// The image files directly in `dir`, sorted; `skipped` (if given) gets its other entries.
// Throws CLI::ValidationError for a directory that cannot be listed or holds no image file.
std::vector<std::string> image_files_in(const std::string& dir, std::vector<std::string>* skipped = nullptr);

}  // namespace j2k::tools
