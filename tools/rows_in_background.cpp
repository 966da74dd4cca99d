// SPDX-License-Identifier: BSD-2-Clause
#include "tools/rows_in_background.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.hpp"
#include "common/parallel/parallel_for.hpp"

namespace j2k::tools {

void RowsInBackground::put(const io::ImageSamples& band) {
  throw_if_failed();
  const auto& c0 = band.components[0];
  const size_t bytes = static_cast<size_t>(c0.width * c0.height) * band.components.size() * (wide_ ? 2 : 1);
  // The writer holds at most the two buffers before this one (one waiting, one written).
  SampleBytes& buffer = buffers_[next_];
  next_ = (next_ + 1) % buffers_.size();
  buffer.resize(bytes);
  const size_t row_bytes = bytes / static_cast<size_t>(std::max<int64_t>(c0.height, 1));
  const int64_t rows = std::max<int64_t>(1, static_cast<int64_t>((size_t{64} << 10) / std::max<size_t>(row_bytes, 1)));
  parallel_for((c0.height + rows - 1) / rows, copy_threads(bytes, threads_), [&](ptrdiff_t i) {
    const int64_t y = i * rows;
    io::interleave_rows(band, y, std::min(rows, c0.height - y), wide_, /*big_endian=*/true,
                        buffer.data() + static_cast<size_t>(y) * row_bytes);
  });
  writer_.push([this, &buffer, bytes] {
    if (error_.load() != 0) return;  // the file is given up: the rest is not written
    if (std::fwrite(buffer.data(), 1, bytes, file_) != bytes) {
      const int e = errno;
      error_.store(e != 0 ? e : EIO);
    }
  });
}

void RowsInBackground::finish() {
  writer_.finish();
  throw_if_failed();
}

void RowsInBackground::throw_if_failed() const {
  const int e = error_.load();
  if (e != 0) throw Error(ErrorCode::Io, name_ + ": cannot write: " + std::strerror(e));
}

}  // namespace j2k::tools
