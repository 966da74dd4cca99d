// SPDX-License-Identifier: BSD-2-Clause
#include "tools/input_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "common/error.hpp"
#include "common/memory_pages.hpp"
#include "common/parallel/parallel_for.hpp"

namespace j2k::tools {

InputBytes::~InputBytes() {
  if (mapped_) ::munmap(const_cast<unsigned char*>(mapped_), size_);
}

InputBytes::InputBytes(InputBytes&& other) noexcept
    : mapped_(std::exchange(other.mapped_, nullptr)), size_(std::exchange(other.size_, 0)), read_(std::move(other.read_)) {}

namespace {

InputBytes read_standard_input(uint64_t limit) {  // to its end, refused past the limit as it comes
  SampleBytes bytes;
  unsigned char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(ErrorCode::Io, std::string("standard input: cannot read: ") + std::strerror(errno));
    if (n == 0) break;
    if (limit && bytes.size() + static_cast<size_t>(n) > limit)
      throw Error(ErrorCode::OutOfMemory, "standard input: more than the " + std::to_string(limit) + " bytes --max-memory allows");
    bytes.insert(bytes.end(), buffer, buffer + n);
  }
  return InputBytes(std::move(bytes));
}

// Chunks of 4 MiB, each mapped (populate_pages) and read (pread, at its place) by one worker,
// the workers side by side. Returns 0, the errno of a failed read, or -1 where the file ended
// early.
int read_chunks(int fd, SampleBytes& bytes, int threads) {
  constexpr size_t kChunk = size_t{4} << 20;
  std::atomic<int> error{0};
  parallel_for(static_cast<ptrdiff_t>((bytes.size() + kChunk - 1) / kChunk), copy_threads(bytes.size(), threads), [&](ptrdiff_t c) {
    size_t at = static_cast<size_t>(c) * kChunk, left = std::min(kChunk, bytes.size() - at);
    populate_pages(bytes.data() + at, left);
    while (left > 0 && error.load(std::memory_order_relaxed) == 0) {
      const ssize_t n = ::pread(fd, bytes.data() + at, left, static_cast<off_t>(at));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int none = 0;
        error.compare_exchange_strong(none, n < 0 ? errno : -1);
        return;
      }
      at += static_cast<size_t>(n), left -= static_cast<size_t>(n);
    }
  });
  return error.load();
}

}  // namespace

InputBytes read_input_file(const std::string& path, uint64_t limit, int threads) {
  if (path == "-") return read_standard_input(limit);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorCode::Io, path + ": cannot open: " + std::strerror(errno));
  auto fail = [&](ErrorCode code, const std::string& what) {
    ::close(fd);
    throw Error(code, path + ": " + what);
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(ErrorCode::Io, std::string("cannot read: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail(ErrorCode::Io, std::strerror(EISDIR));
  if (!S_ISREG(st.st_mode)) fail(ErrorCode::Io, "not a regular file (a pipe, FIFO or device is not read; save it to a file)");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (limit && size > limit)
    fail(ErrorCode::OutOfMemory, std::to_string(size) + " bytes, more than the " + std::to_string(limit) + " bytes --max-memory allows");
  if (size == 0) {
    ::close(fd);
    return InputBytes();
  }
  // Mapped with its pages in place (MAP_POPULATE), so that the decoder's workers find them
  // mapped; the mapping outlives the descriptor.
  void* m = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (m != MAP_FAILED) {
    ::close(fd);
    return InputBytes(m, static_cast<size_t>(size));
  }
  SampleBytes bytes(static_cast<size_t>(size));  // not zeroed first
  const int error = read_chunks(fd, bytes, threads);
  if (error > 0) fail(ErrorCode::Io, std::string("cannot read: ") + std::strerror(error));
  if (error < 0) fail(ErrorCode::Io, "cannot read all of it (it shrank while being read)");
  ::close(fd);
  return InputBytes(std::move(bytes));
}

}  // namespace j2k::tools
