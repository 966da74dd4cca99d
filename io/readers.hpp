// Internal to j2kfront_io: the per-format readers behind read_image, and the small file
// wrapper that the byte-oriented readers (PNM, PGX) share.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/error.hpp"
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

// What a read may allocate for its samples, and what the file turned out to need.
struct Budget {
  uint64_t max_bytes = 0;  // 0: no limit
  uint64_t declared = 0;   // bytes of samples the header declares, once known (for messages)
};
// Records that the file's samples need `bytes` (at their own width) and throws
// Error(OutOfMemory) naming both figures when that is over the budget. Readers call it after
// checking the header and before allocating the planes.
void claim(Budget& budget, const std::string& path, uint64_t bytes);

// Each reader expects `in` at the first byte of the file (the signature included).
j2kfront::Image read_pnm(InputFile& in, Budget& budget);
j2kfront::Image read_pgx(InputFile& in, Budget& budget);
// libtiff opens the file itself; without libtiff this throws Error(UnsupportedInput).
j2kfront::Image read_tiff(const std::string& path, Budget& budget);

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
