// SPDX-License-Identifier: BSD-2-Clause
// read_image: picks the reader from the file's signature, and the file wrapper the
// byte-oriented readers share.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "common/memory_pages.hpp"
#include "common/parallel/parallel_for.hpp"
#include "io/image_io.hpp"
#include "io/readers.hpp"

namespace j2k::io {
namespace detail {

void fail(ErrorCode code, const std::string& path, const std::string& what) {
  throw Error(code, path + ": " + what);
}

std::string describe_byte(int c) {
  if (c == EOF) return "end of file";
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  static const char hex[] = "0123456789abcdef";
  return std::string("byte \\x") + hex[(c >> 4) & 15] + hex[c & 15];
}

InputFile::InputFile(const std::string& path) : path_(path) {
  // Opened without blocking: a FIFO (or a device) would otherwise wait here for a writer
  // forever, before the check below could refuse it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail_read();
  auto fail_closing = [&](ErrorCode code, const std::string& what) {
    ::close(fd);
    detail::fail(code, path_, what);
  };
  struct stat st {};
  if (fstat(fd, &st) != 0) fail_closing(ErrorCode::Io, std::strerror(errno));
  // The readers' size checks rely on st_size, which only a regular file has. A directory
  // opens fine on Linux and would only fail at the first read; say so at once.
  if (!S_ISREG(st.st_mode))
    fail_closing(ErrorCode::Io, S_ISDIR(st.st_mode) ? std::strerror(EISDIR) : "not a regular file");
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) fail_closing(ErrorCode::Io, std::strerror(errno));
  file_ = fdopen(fd, "rb");
  if (!file_) fail_closing(ErrorCode::Io, std::strerror(errno));
  size_ = static_cast<uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (file_) std::fclose(file_);
}

void InputFile::fail_read() const { detail::fail(ErrorCode::Io, path_, std::strerror(errno)); }

int InputFile::get() {
  const int c = std::getc(file_);
  if (c == EOF) {
    if (std::ferror(file_)) fail_read();
    return EOF;
  }
  ++pos_;
  return c;
}

void InputFile::read(void* dst, size_t n) {
  const size_t got = std::fread(dst, 1, n, file_);
  pos_ += got;
  if (got == n) return;
  if (std::ferror(file_)) fail_read();
  // The readers check remaining() first, so this means the file shrank while we read it.
  fail(ErrorCode::CorruptInput, "file is truncated (" + std::to_string(n - got) +
                                    " more bytes expected at offset " + std::to_string(pos_) + ")");
}

void InputFile::read_ahead(void* dst, size_t n, uint64_t offset) const {
  auto* to = static_cast<unsigned char*>(dst);
  const auto fd = fileno(file_);
  uint64_t at = pos_ + offset;
  while (n > 0) {
    const ssize_t got = ::pread(fd, to, n, static_cast<off_t>(at));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail_read();
    if (got == 0)
      fail(ErrorCode::CorruptInput, "file is truncated (" + std::to_string(n) + " more bytes expected at offset " +
                                        std::to_string(at) + ")");
    to += got, n -= static_cast<size_t>(got), at += static_cast<uint64_t>(got);
  }
}

void InputFile::skip(uint64_t n) {
  if (std::fseek(file_, static_cast<long>(pos_ + n), SEEK_SET) != 0) fail_read();
  pos_ += n;
}

void InputFile::rewind() {
  if (std::fseek(file_, 0, SEEK_SET) != 0) fail_read();
  pos_ = 0;
}

j2kfront::Image FormatReader::band(uint64_t rows) {
  j2kfront::Image im;
  im.width = shape_.width;
  im.height = static_cast<uint32_t>(rows);
  j2kfront::Image spare = std::move(spare_);
  spare_ = j2kfront::Image();
  std::vector<PageRange> fresh;
  for (size_t i = 0; i < shape_.components.size(); ++i) {
    const j2kfront::Image::Component& c = shape_.components[i];
    j2kfront::Image::Component k;
    k.type = c.type, k.precision = c.precision, k.dx = c.dx, k.dy = c.dy;
    k.width = (int64_t{im.width} + c.dx - 1) / c.dx;  // at origin 0 (as add_component)
    k.height = (static_cast<int64_t>(rows) + c.dy - 1) / c.dy;
    const size_t bytes = static_cast<size_t>(k.width * k.height) * k.sample_size();
    // A spare's plane of the same size and type is taken as it is: zeroing fresh planes for a
    // 12-bit 4096x2160 RGB file (53 MB) takes one thread 21 ms (development VM), about a
    // third of reading the file on one thread.
    if (i < spare.components.size() && spare.components[i].type == c.type && spare.components[i].bytes.size() == bytes) {
      k.bytes = std::move(spare.components[i].bytes);
    } else {
      // A fresh plane's pages mapped by the workers side by side (the kernel zeroes each
      // page), then zeroed again by the vector below, now without a page fault.
      k.bytes.reserve(bytes);
      fresh.push_back({k.bytes.data(), bytes});  // (the vector's storage moves with it)
    }
    im.components.push_back(std::move(k));
  }
  populate_pages(fresh, threads_);
  // The vectors' own zeroing, one thread a plane, the planes side by side (16 MB on one
  // thread: 1.7 ms on the H200 machine).
  parallel_for(static_cast<ptrdiff_t>(im.components.size()), threads_, [&](ptrdiff_t i) {
    j2kfront::Image::Component& k = im.components[static_cast<size_t>(i)];
    if (k.bytes.empty()) k.bytes.assign(static_cast<size_t>(k.width * k.height) * k.sample_size(), 0);
  });
  return im;
}

}  // namespace detail

namespace {

std::unique_ptr<detail::FormatReader> open_by_signature(const std::string& path) {
  auto in = std::make_unique<detail::InputFile>(path);
  unsigned char sig[4] = {0, 0, 0, 0};
  size_t n = 0;
  for (int c; n < sizeof sig && (c = in->get()) != EOF;) sig[n++] = static_cast<unsigned char>(c);
  if (n == 0) in->fail(ErrorCode::CorruptInput, "file is empty");

  auto starts = [&](const char* magic, size_t len) {
    return n >= len && std::memcmp(sig, magic, len) == 0;
  };
  // Classic TIFF (42) and BigTIFF (43) in either byte order; libtiff reads both.
  if (starts("II*\0", 4) || starts("MM\0*", 4) || starts("II+\0", 4) || starts("MM\0+", 4)) {
    in.reset();
    return detail::open_tiff(path);  // libtiff opens the file itself
  }
  if (starts("P5", 2) || starts("P6", 2)) {
    in->rewind();
    return detail::open_pnm(std::move(in));
  }
  if (starts("PG", 2)) {
    in->rewind();
    return detail::open_pgx(std::move(in));
  }
  if (starts("\x89PNG", 4)) {
    in->rewind();
    return detail::open_png(std::move(in));
  }
  std::string seen;
  for (size_t i = 0; i < n; ++i) seen += (i ? " " : "") + detail::describe_byte(sig[i]);
  in->fail(ErrorCode::UnsupportedInput,
           "unrecognised file signature (" + seen +
               "); expected TIFF (II*\\0 or MM\\0*), PNG (\\x89PNG), binary PGM/PPM (P5/P6) or PGX (PG)");
}

}  // namespace

ImageReader::ImageReader(const std::string& path, int threads) : path_(path) {
  try {
    format_ = open_by_signature(path);
    format_->set_threads(threads);
  } catch (const std::bad_alloc&) {
    detail::fail(ErrorCode::OutOfMemory, path, "out of memory while reading its header");
  }
}

ImageReader::~ImageReader() = default;

const j2kfront::Image& ImageReader::shape() const { return format_->shape(); }

const ImageMetadata& ImageReader::metadata() const { return format_->metadata(); }

uint64_t ImageReader::row_bytes() const {
  uint64_t n = 0;
  for (const j2kfront::Image::Component& c : shape().components) n += static_cast<uint64_t>(c.row_stride());
  return n;
}

// The readers admit no subsampled components, so every component has the image's height.
uint64_t ImageReader::sample_bytes() const { return row_bytes() * shape().height; }

j2kfront::Image ImageReader::read_rows(uint32_t rows, uint64_t max_bytes) {
  const uint32_t height = shape().height;
  if (rows == 0 || rows > height - next_row_)
    throw Error(ErrorCode::InvalidArgument, path_ + ": " + std::to_string(rows) + " rows asked for at row " +
                                                std::to_string(next_row_) + " of " + std::to_string(height));
  const uint64_t need = row_bytes() * rows;  // refused before the reader allocates anything
  if (max_bytes != 0 && need > max_bytes)
    detail::fail(ErrorCode::OutOfMemory, path_,
                 "its samples need " + std::to_string(need) + " bytes, more than the memory budget of " +
                     std::to_string(max_bytes));
  try {
    j2kfront::Image band = format_->read_rows(next_row_, rows);
    next_row_ += rows;
    return band;
  } catch (const std::bad_alloc&) {
    detail::fail(ErrorCode::OutOfMemory, path_,
                 "out of memory for its samples (" + std::to_string(need) + " bytes)");
  }
}

j2kfront::Image ImageReader::read_rows(uint32_t rows, uint64_t max_bytes, j2kfront::Image&& spare) {
  if (format_->fills_every_sample()) format_->set_spare(std::move(spare));
  return read_rows(rows, max_bytes);
}

j2kfront::Image read_image(const std::string& path, const ReadOptions& options, ImageMetadata* metadata) {
  ImageReader reader(path, options.threads);
  j2kfront::Image image = reader.read_rows(reader.shape().height, options.max_bytes);
  if (metadata) *metadata = reader.metadata();
  return image;
}

}  // namespace j2k::io
