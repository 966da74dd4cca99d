// SPDX-License-Identifier: BSD-2-Clause
// An input file's bytes for decompress and transcode. A regular file is mapped (mmap) where
// the system allows, not read: its pages are the page cache's, so nothing is copied and no
// fresh memory is faulted in (a 20 MB stream read into a fresh buffer took 10 ms of a one-
// thread decode's 316 on the H200 machine, and a 24 MB one 15 ms of 160; mapped, under a
// millisecond). Standard input, and a file the system will not map, are read into memory.
//
// A mapped file that another process cuts short while it is mapped would end the process with
// SIGBUS when its lost pages are read; temp_files.hpp's handler then removes the outputs being
// written and says so before the process exits with status 1.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "common/sample_bytes.hpp"

namespace j2k::tools {

class InputBytes {
 public:
  InputBytes() = default;
  explicit InputBytes(SampleBytes read) : read_(std::move(read)) {}
  InputBytes(const void* mapped, size_t size) : mapped_(static_cast<const unsigned char*>(mapped)), size_(size) {}
  ~InputBytes();
  InputBytes(InputBytes&& other) noexcept;
  InputBytes& operator=(InputBytes&&) = delete;
  InputBytes(const InputBytes&) = delete;
  InputBytes& operator=(const InputBytes&) = delete;

  const unsigned char* data() const { return mapped_ ? mapped_ : read_.data(); }
  size_t size() const { return mapped_ ? size_ : read_.size(); }
  bool mapped() const { return mapped_ != nullptr; }

 private:
  const unsigned char* mapped_ = nullptr;
  size_t size_ = 0;
  SampleBytes read_;
};

// The file's bytes, refused beyond `limit` (0: none) before they are mapped or read. A
// regular file only: a FIFO or a device is refused by name, never waited on (opened without
// blocking, then checked); "-" reads standard input to its end. Throws Error (Io,
// OutOfMemory) naming the file. A file the system will not map is read on `threads` workers
// (0: every core), a chunk each.
InputBytes read_input_file(const std::string& path, uint64_t limit, int threads);

}  // namespace j2k::tools
