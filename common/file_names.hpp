// SPDX-License-Identifier: BSD-2-Clause
// A file name's extension in lower case, with its dot (".tif"; "" without one): what says a
// file's format (images in io/, codestreams in codec/params, the CLI's directory listings).
#pragma once
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>

namespace j2k {

inline std::string lower_extension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

}  // namespace j2k
