// SPDX-License-Identifier: BSD-2-Clause
#include "tools/read_ahead.hpp"

namespace j2k::tools {

void ReadAhead::start(size_t job, const std::string& path, uint64_t max_bytes, int threads, j2kfront::Image&& spare) {
  if (read_.valid()) read_.wait();  // one at a time: its samples count against the budget once
  job_ = job;
  read_ = std::async(std::launch::async, [path, max_bytes, threads, spare = std::move(spare)]() mutable {
    Read r;
    r.reader = std::make_unique<io::ImageReader>(path, threads);
    r.image = r.reader->read_rows(r.reader->shape().height, max_bytes, std::move(spare));
    return r;
  });
}

std::optional<ReadAhead::Read> ReadAhead::take(size_t job) {
  if (!read_.valid() || job_ != job) return std::nullopt;
  return read_.get();  // (leaves read_ empty, whatever it throws)
}

}  // namespace j2k::tools
