// SPDX-License-Identifier: BSD-2-Clause
// A PGM/PPM's bands of rows written on a thread of their own while the decoder makes the next
// ones (`decompress` decoding by rows on several threads): the caller interleaves a band into
// a buffer (the bytes io::PnmWriter writes), the writer thread writes the buffers in order.
// Writing a 4096^2 RGB image's 48 MiB into the page cache had held the decoder's workers for
// about a fifth of a 16-thread decode.
#pragma once
#include <array>
#include <atomic>
#include <cstdio>
#include <string>

#include "common/sample_bytes.hpp"
#include "io/image_writers.hpp"
#include "tools/writer_thread.hpp"

namespace j2k::tools {

class RowsInBackground {
 public:
  // `file` is written after what is in it (the header); `wide`: 16-bit samples (PnmWriter::wide());
  // `threads`: the workers that interleave a band (0: every core).
  RowsInBackground(std::FILE* file, std::string name, bool wide, int threads)
      : file_(file), name_(std::move(name)), wide_(wide), threads_(threads) {}
  // Runs the writes still waiting (a decode that failed half-way: its file is removed anyway).
  ~RowsInBackground() = default;

  // Interleaves `band` (every row of its components) into the next buffer, a few rows a
  // worker (one thread took 10 ms of a 16-thread decode of 48 MiB, the workers waiting), and
  // queues it; an earlier write's failure is thrown here, so that the decode stops.
  void put(const io::ImageSamples& band);
  // Returns once every band is written; Error(Io) for the first write that failed.
  void finish();

 private:
  void throw_if_failed() const;

  std::FILE* file_;
  std::string name_;
  bool wide_;
  int threads_;
  // Three: one being written, one waiting for the writer (WriterThread(1)), one being filled.
  // Not zeroed when made (SampleBytes): the workers' interleave maps their pages (zeroed by
  // resize(), the first three had cost a 16-thread decode's main thread 1.8 ms of 25, RGB 2.9
  // of 45).
  std::array<SampleBytes, 3> buffers_;
  size_t next_ = 0;
  std::atomic<int> error_{0};  // the errno of the first write that failed
  WriterThread writer_{1};     // last: destroyed (its writes run) before the buffers
};

}  // namespace j2k::tools
