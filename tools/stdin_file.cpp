// SPDX-License-Identifier: BSD-2-Clause
#include "tools/stdin_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "common/error.hpp"
#include "j2kfront/j2kfront.hpp"

namespace j2k::tools {

StdinFile::StdinFile(uint64_t limit) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/j2kfront-stdin-XXXXXX";
  const int fd = mkstemp(templ.data());  // O_CREAT | O_EXCL, mode 0600
  if (fd < 0) throw Error(ErrorCode::Io, "standard input: cannot create a temporary file in " + templ + ": " +
                                             std::strerror(errno));
  path_ = templ;
  auto fail = [&](const std::string& what) {
    ::close(fd);
    ::unlink(path_.c_str());
    throw Error(ErrorCode::Io, "standard input " + what);
  };
  std::vector<char> buffer(1 << 20);
  uint64_t total = 0;
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(std::string("cannot be read: ") + std::strerror(errno));
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    if (limit && total > limit)
      fail("holds more than " + std::to_string(limit) + " bytes, the most --max-memory allows");
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(fd, buffer.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) fail("cannot be copied to " + path_ + ": " + std::strerror(errno));
      done += w;
    }
  }
  if (::close(fd) != 0) {
    ::unlink(path_.c_str());
    throw Error(ErrorCode::Io, "standard input cannot be copied to " + path_ + ": " + std::strerror(errno));
  }
}

StdinFile::~StdinFile() { ::unlink(path_.c_str()); }

void StdinFile::rethrow_named(const std::exception& e) const {
  std::string what = e.what();
  for (size_t at; (at = what.find(path_)) != std::string::npos;) what.replace(at, path_.size(), "standard input");
  if (const auto* j = dynamic_cast<const Error*>(&e)) throw Error(j->code(), what);
  if (const auto* l = dynamic_cast<const j2kfront::Error*>(&e)) throw j2kfront::Error(l->status(), what);
  throw std::runtime_error(what);
}

}  // namespace j2k::tools
