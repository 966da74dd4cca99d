// SPDX-License-Identifier: BSD-2-Clause
// `-` as an input: standard input copied to a temporary regular file, which the readers (and
// libtiff) open like any other, and which their size checks can trust. The file is unlinked as
// soon as it is created and read through /proc/self/fd: however the run ends (a signal, a
// crash, SIGKILL), nothing stays behind in $TMPDIR.
#pragma once
#include <cstdint>
#include <exception>
#include <optional>
#include <string>

#include "tools/temp_files.hpp"

namespace j2k::tools {

class StdinFile {
 public:
  // Copies standard input into a new file in $TMPDIR (or /tmp), created with O_EXCL under a
  // random name and unlinked at once. Throws j2k::Error(Io) when it holds more than `limit`
  // bytes (0: no limit), naming the limit, or when the copy fails; nothing is left behind.
  // (Without /proc the file keeps its name until the destructor, and a handled signal removes
  // it: temp_files.hpp.)
  explicit StdinFile(uint64_t limit);
  ~StdinFile();
  StdinFile(const StdinFile&) = delete;
  StdinFile& operator=(const StdinFile&) = delete;

  // The name the readers open: /proc/self/fd/N.
  const std::string& path() const { return path_; }
  // Throws `e` again (j2k::Error, j2kfront::Error or std::runtime_error) with this file's path
  // written as "standard input" in its message.
  [[noreturn]] void rethrow_named(const std::exception& e) const;

 private:
  int fd_ = -1;
  std::string path_;
  std::string named_;  // without /proc: the file's name, removed by the destructor
  std::optional<TempFileRegistration> registered_;
};

}  // namespace j2k::tools
