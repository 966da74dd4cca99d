// SPDX-License-Identifier: BSD-2-Clause
// write_npy: a 2-D array in NPY format 1.0, the file numpy.load reads. Used to hand the
// coefficients to Python for comparison with other implementations.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "io/image_io.hpp"
#include "io/readers.hpp"

namespace j2k::io {
namespace {

// Magic, version 1.0, a little-endian uint16 header length, then a Python dict literal
// padded with spaces and closed by '\n' so that the data starts at a multiple of 64 bytes,
// the alignment numpy itself writes (it lets readers map the array in place).
std::string npy_header(const char* descr, int64_t rows, int64_t cols) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                     std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  constexpr size_t kPrefix = 10;  // magic (6) + version (2) + header length (2)
  const size_t unpadded = kPrefix + dict.size() + 1;
  dict.append((unpadded + 63) / 64 * 64 - unpadded, ' ');
  dict += '\n';
  const size_t len = dict.size();  // under 200 bytes: two int64 values at most
  std::string header("\x93NUMPY\x01\x00", 8);
  header += static_cast<char>(len & 0xff);
  header += static_cast<char>(len >> 8);
  return header + dict;
}

// A file being written; removed again if writing fails, so that no half-written array is
// left for a later numpy.load to trip over.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path)
      : path_(path), file_(std::fopen(path.c_str(), "wb")) {
    if (!file_) fail_io();
    // Only a regular file is ours to remove: never unlink a device such as /dev/full.
    struct stat st {};
    regular_ = fstat(fileno(file_), &st) == 0 && S_ISREG(st.st_mode);
  }
  ~OutputFile() {
    if (file_) {  // only after a failure: close() clears file_
      std::fclose(file_);
      discard();
    }
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::FILE* stream() const { return file_; }
  void close() {
    std::FILE* f = file_;
    file_ = nullptr;
    // fclose flushes the buffer: a full disk often shows up only here.
    if (std::fclose(f) != 0) {
      const int err = errno;
      discard();
      errno = err;
      fail_io();
    }
  }

 private:
  void discard() const {
    if (regular_) std::remove(path_.c_str());
  }
  [[noreturn]] void fail_io() const { detail::fail(ErrorCode::Io, path_, std::strerror(errno)); }

  std::string path_;
  std::FILE* file_;
  bool regular_ = false;
};

// The element count of a (rows, cols) array of 4-byte elements at `data`; Error(InvalidArgument)
// for a shape that cannot be written.
int64_t checked_count(const std::string& name, const void* data, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0)
    detail::fail(
        ErrorCode::InvalidArgument, name,
        "NPY shape (" + std::to_string(rows) + ", " + std::to_string(cols) + ") is negative");
  int64_t count = 0;
  if (__builtin_mul_overflow(rows, cols, &count) || count > INT64_MAX / 4)
    detail::fail(ErrorCode::InvalidArgument, name, "NPY shape is too large");
  if (count > 0 && data == nullptr)
    detail::fail(ErrorCode::InvalidArgument, name, "no data for a non-empty NPY array");
  return count;
}

// Writes the array to `file` at its current position; `name` is for messages.
template <typename T>
void write_array_to(std::FILE* file, const std::string& name, const char* descr, const T* data, int64_t rows,
                    int64_t cols) {
  static_assert(sizeof(T) == 4, "NPY elements here are 4 bytes");
  const int64_t count = checked_count(name, data, rows, cols);
  auto put = [&](const void* bytes, size_t n) {
    if (n != 0 && std::fwrite(bytes, 1, n, file) != n) detail::fail(ErrorCode::Io, name, std::strerror(errno));
  };
  const std::string header = npy_header(descr, rows, cols);
  put(header.data(), header.size());

  // The format is little-endian whatever the host is: convert in chunks, byte by byte.
  constexpr int64_t kChunk = 16384;
  std::vector<unsigned char> bytes(static_cast<size_t>(4 * std::min(count, kChunk)));
  for (int64_t done = 0; done < count;) {
    const size_t n = static_cast<size_t>(std::min(count - done, kChunk));
    for (size_t i = 0; i < n; ++i) {
      uint32_t u;
      std::memcpy(&u, &data[done + static_cast<int64_t>(i)], 4);
      for (int b = 0; b < 4; ++b)
        bytes[4 * i + static_cast<size_t>(b)] = static_cast<unsigned char>(u >> (8 * b));
    }
    put(bytes.data(), 4 * n);
    done += static_cast<int64_t>(n);
  }
}

template <typename T>
void write_array(const std::string& path, const char* descr, const T* data, int64_t rows,
                 int64_t cols) {
  checked_count(path, data, rows, cols);  // before the file is created
  OutputFile out(path);
  write_array_to(out.stream(), path, descr, data, rows, cols);
  out.close();
}

}  // namespace

void write_npy(const std::string& path, const int32_t* data, int64_t rows, int64_t cols) {
  write_array(path, "<i4", data, rows, cols);
}

void write_npy(const std::string& path, const float* data, int64_t rows, int64_t cols) {
  write_array(path, "<f4", data, rows, cols);
}

void write_npy(std::FILE* file, const std::string& name, const int32_t* data, int64_t rows, int64_t cols) {
  write_array_to(file, name, "<i4", data, rows, cols);
}

void write_npy(std::FILE* file, const std::string& name, const float* data, int64_t rows, int64_t cols) {
  write_array_to(file, name, "<f4", data, rows, cols);
}

}  // namespace j2k::io
