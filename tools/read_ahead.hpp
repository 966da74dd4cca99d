// SPDX-License-Identifier: BSD-2-Clause
// The next image of a directory read on a thread of its own while the current one is coded
// (`compress -i DIR`): reading a 4096 x 2160 frame from a file took as long as coding it on a
// GPU, so a folder went no faster there than the reading alone; now the two overlap.
#pragma once
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "io/image_io.hpp"
#include "j2kfront/j2kfront.hpp"

namespace j2k::tools {

class ReadAhead {
 public:
  struct Read {
    std::unique_ptr<io::ImageReader> reader;  // its header and metadata
    j2kfront::Image image;                    // its samples, whole
  };
  // Starts reading job `job`'s file at `path` whole, its samples at most `max_bytes` (0: no
  // limit), on `threads` workers, as ImageReader::read_rows does, into `spare`'s planes where
  // they fit.
  void start(size_t job, const std::string& path, uint64_t max_bytes, int threads, j2kfront::Image&& spare = j2kfront::Image());
  // Job `job`'s read, where it was started (waited for; its error rethrown); nothing else.
  std::optional<Read> take(size_t job);

 private:
  size_t job_ = 0;
  std::future<Read> read_;
};

}  // namespace j2k::tools
