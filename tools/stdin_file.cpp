// SPDX-License-Identifier: BSD-2-Clause
#include "tools/stdin_file.hpp"

#include <fcntl.h>
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
  const std::string dir = tmp && *tmp ? tmp : "/tmp";
  std::string name = dir + "/j2kfront-stdin-XXXXXX";
  {
    // Its name lives for these few calls, with the signals that would end the run held.
    HandledSignalsBlocked blocked;
    fd_ = mkostemp(name.data(), O_CLOEXEC);  // O_CREAT | O_EXCL, mode 0600
    if (fd_ < 0)
      throw Error(ErrorCode::Io, "standard input: cannot create a temporary file in " + dir + ": " + std::strerror(errno));
    path_ = "/proc/self/fd/" + std::to_string(fd_);
    if (::access(path_.c_str(), R_OK) == 0) {
      ::unlink(name.c_str());
    } else {
      path_ = named_ = name;
      try {
        registered_.emplace(AT_FDCWD, named_);
      } catch (...) {
        ::close(fd_);
        ::unlink(named_.c_str());
        throw;
      }
    }
  }
  auto fail = [&](const std::string& what) {
    ::close(fd_);
    if (!named_.empty()) ::unlink(named_.c_str());
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
      const ssize_t w = ::write(fd_, buffer.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) fail("cannot be copied to a temporary file in " + dir + ": " + std::strerror(errno));
      done += w;
    }
  }
}

StdinFile::~StdinFile() {
  ::close(fd_);
  if (!named_.empty()) ::unlink(named_.c_str());
}

void StdinFile::rethrow_named(const std::exception& e) const {
  std::string what = e.what();
  for (size_t at; (at = what.find(path_)) != std::string::npos;) what.replace(at, path_.size(), "standard input");
  if (const auto* j = dynamic_cast<const Error*>(&e)) throw Error(j->code(), what);
  if (const auto* l = dynamic_cast<const j2kfront::Error*>(&e)) throw j2kfront::Error(l->status(), what);
  throw std::runtime_error(what);
}

}  // namespace j2k::tools
