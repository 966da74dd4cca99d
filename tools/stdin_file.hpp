// SPDX-License-Identifier: BSD-2-Clause
// `-` as an input: standard input copied to a temporary regular file, which the readers (and
// libtiff) open like any other, and which their size checks can trust.
#pragma once
#include <cstdint>
#include <exception>
#include <string>

namespace j2k::tools {

class StdinFile {
 public:
  // Copies standard input into a new file in $TMPDIR (or /tmp), created with O_EXCL under a
  // random name. Throws j2k::Error(Io) when it holds more than `limit` bytes (0: no limit),
  // naming the limit, or when the copy fails; nothing is left behind.
  explicit StdinFile(uint64_t limit);
  ~StdinFile();  // removes the file
  StdinFile(const StdinFile&) = delete;
  StdinFile& operator=(const StdinFile&) = delete;

  const std::string& path() const { return path_; }
  // Throws `e` again (j2k::Error, j2kfront::Error or std::runtime_error) with this file's path
  // written as "standard input" in its message.
  [[noreturn]] void rethrow_named(const std::exception& e) const;

 private:
  std::string path_;
};

}  // namespace j2k::tools
