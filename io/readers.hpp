// SPDX-License-Identifier: BSD-2-Clause
// Internal to j2kfront_io: the per-format readers behind read_image, and the small file
// wrapper that the byte-oriented readers (PNM, PGX) share.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "common/error.hpp"
#include "io/image_metadata.hpp"
#include "j2kfront/j2kfront.hpp"

namespace j2k::io::detail {

// Throws Error(code, "<path>: <what>"): every message of this library names the file.
[[noreturn]] void fail(ErrorCode code, const std::string& path, const std::string& what);

// A regular file opened for reading that knows its size, so that a reader can check that
// what a header promises fits in the file before it allocates anything for it.
class InputFile {
 public:
  explicit InputFile(const std::string& path);  // Error(Io, "<path>: <strerror>") on failure
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  uint64_t remaining() const { return size_ - pos_; }  // bytes from here to the end

  // The next byte (0..255), or EOF at the end of the file; Error(Io) if the read fails.
  int get();
  // Exactly n bytes; Error(CorruptInput) if the file ends first, Error(Io) if a read fails.
  void read(void* dst, size_t n);
  // Back to the first byte, after read_image has looked at the signature.
  void rewind();
  // Exactly n bytes from `offset` bytes past the current position, without moving it; safe
  // from several threads at once (pread), so that workers read their parts of a band side by
  // side. Errors as read().
  void read_ahead(void* dst, size_t n, uint64_t offset) const;
  // Moves the position n bytes on (n <= remaining()), past what read_ahead() read.
  void skip(uint64_t n);

  [[noreturn]] void fail(ErrorCode code, const std::string& what) const {
    detail::fail(code, path_, what);
  }

 private:
  [[noreturn]] void fail_read() const;  // Io with strerror(errno)

  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t size_ = 0;
  uint64_t pos_ = 0;
};

// One format's reader. The constructor reads and checks the header (and whatever else can
// be checked before any sample is decoded); the rows are then read in order, a band at a
// time, so that an image larger than memory can be processed a band after another.
class FormatReader {
 public:
  virtual ~FormatReader() = default;
  // The image's size and its components' formats and sizes; no samples (bytes empty).
  const j2kfront::Image& shape() const { return shape_; }
  // Rows [first, first + rows) of every component, as an image `rows` high. `first` is
  // where the last band ended (0 at the start); rows >= 1 and first + rows <= height.
  virtual j2kfront::Image read_rows(uint64_t first, uint64_t rows) = 0;
  // What the file says beside its samples: what its header held from construction on, and
  // once the last row is read, what came after the samples too (a PNG's chunks after IDAT).
  const ImageMetadata& metadata() const { return metadata_; }
  // Whether read_rows writes every sample of its band (so that band() may hand it planes
  // holding another image's samples instead of zeroed ones).
  virtual bool fills_every_sample() const { return false; }
  // Planes for the next band() to take where they have its components' sizes and types.
  void set_spare(j2kfront::Image&& spare) { spare_ = std::move(spare); }
  // The workers that read a band (ReadOptions::threads).
  void set_threads(int threads) { threads_ = threads; }

 protected:
  // An image `rows` high with the shape's components, their planes allocated and zeroed, or
  // the spare's planes as they are (set_spare: only for readers that fill every sample).
  j2kfront::Image band(uint64_t rows);

  j2kfront::Image shape_;
  ImageMetadata metadata_;
  j2kfront::Image spare_;
  int threads_ = 0;
};

// Each reader expects `in` at the first byte of the file (the signature included).
std::unique_ptr<FormatReader> open_pnm(std::unique_ptr<InputFile> in);
std::unique_ptr<FormatReader> open_pgx(std::unique_ptr<InputFile> in);
// Without libpng this throws Error(UnsupportedInput).
std::unique_ptr<FormatReader> open_png(std::unique_ptr<InputFile> in);
// libtiff opens the file itself; without libtiff this throws Error(UnsupportedInput).
std::unique_ptr<FormatReader> open_tiff(const std::string& path);

// The narrowest sample type for `precision` (1..16) bits: U8/I8 up to 8, U16/I16 above.
inline j2k_sample_type sample_type_for(int precision, bool is_signed) {
  if (precision <= 8) return is_signed ? J2K_SAMPLE_I8 : J2K_SAMPLE_U8;
  return is_signed ? J2K_SAMPLE_I16 : J2K_SAMPLE_U16;
}

// A 16-bit sample stored into a component's byte buffer: memcpy makes no promise about
// alignment or the buffer's type, and compiles to a plain store.
inline void store_u16(unsigned char* at, uint16_t v) { std::memcpy(at, &v, sizeof v); }

// A character for an error message: printable ASCII as is, anything else as \xNN.
std::string describe_byte(int c);

}  // namespace j2k::io::detail
