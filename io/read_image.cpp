// read_image: picks the reader from the file's signature, and the file wrapper the
// byte-oriented readers share.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <string>

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

void InputFile::rewind() {
  if (std::fseek(file_, 0, SEEK_SET) != 0) fail_read();
  pos_ = 0;
}

void claim(Budget& budget, const std::string& path, uint64_t bytes) {
  budget.declared = bytes;
  if (budget.max_bytes != 0 && bytes > budget.max_bytes)
    fail(ErrorCode::OutOfMemory, path,
         "its samples need " + std::to_string(bytes) + " bytes, more than the memory budget of " +
             std::to_string(budget.max_bytes));
}

}  // namespace detail

namespace {

j2kfront::Image read_by_signature(const std::string& path, detail::Budget& budget) {
  detail::InputFile in(path);
  unsigned char sig[4] = {0, 0, 0, 0};
  size_t n = 0;
  for (int c; n < sizeof sig && (c = in.get()) != EOF;) sig[n++] = static_cast<unsigned char>(c);
  if (n == 0) in.fail(ErrorCode::CorruptInput, "file is empty");

  auto starts = [&](const char* magic, size_t len) {
    return n >= len && std::memcmp(sig, magic, len) == 0;
  };
  // Classic TIFF (42) and BigTIFF (43) in either byte order; libtiff reads both.
  if (starts("II*\0", 4) || starts("MM\0*", 4) || starts("II+\0", 4) || starts("MM\0+", 4)) {
    return detail::read_tiff(path, budget);  // libtiff opens the file itself
  }
  if (starts("P5", 2) || starts("P6", 2)) {
    in.rewind();
    return detail::read_pnm(in, budget);
  }
  if (starts("PG", 2)) {
    in.rewind();
    return detail::read_pgx(in, budget);
  }
  std::string seen;
  for (size_t i = 0; i < n; ++i) seen += (i ? " " : "") + detail::describe_byte(sig[i]);
  in.fail(ErrorCode::UnsupportedInput,
          "unrecognised file signature (" + seen +
              "); expected TIFF (II*\\0 or MM\\0*), binary PGM/PPM (P5/P6) or PGX (PG)");
}

}  // namespace

j2kfront::Image read_image(const std::string& path, const ReadOptions& options) {
  detail::Budget budget;
  budget.max_bytes = options.max_bytes;
  try {
    return read_by_signature(path, budget);
  } catch (const std::bad_alloc&) {
    detail::fail(ErrorCode::OutOfMemory, path,
                 "out of memory for its samples" +
                     (budget.declared ? " (" + std::to_string(budget.declared) + " bytes)" : std::string()));
  }
}

}  // namespace j2k::io
