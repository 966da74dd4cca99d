// SPDX-License-Identifier: BSD-2-Clause
// PGX, the one-component format of the JPEG 2000 conformance suite: a one-line header
// "PG <ML|LM> [+|-]<precision> <width> <height>\n", then 1-byte samples for precisions up
// to 8 and 2-byte samples up to 16, big-endian (ML) or little-endian (LM).
#include <cstdint>
#include <memory>
#include <string>

#include "io/readers.hpp"

namespace j2k::io::detail {
namespace {

constexpr uint64_t kMaxField = 0x7fffffff;  // keeps the size arithmetic far from overflow

// The header is read byte by byte with one character of lookahead in `c`.
class HeaderParser {
 public:
  explicit HeaderParser(InputFile& in) : in_(in), c_(in.get()) {}

  int peek() const { return c_; }
  void next() { c_ = in_.get(); }

  // Skips spaces and tabs; returns whether there were any.
  bool blanks() {
    bool any = false;
    while (c_ == ' ' || c_ == '\t') {
      any = true;
      next();
    }
    return any;
  }

  void expect(char want, const std::string& where) {
    if (c_ != want) bad("expected " + describe_byte(want) + " " + where);
    next();
  }

  uint64_t number(const std::string& name) {
    if (c_ < '0' || c_ > '9') bad("expected the " + name);
    uint64_t value = 0;
    for (; c_ >= '0' && c_ <= '9'; next()) {
      value = value * 10 + static_cast<uint64_t>(c_ - '0');
      if (value > kMaxField)
        in_.fail(ErrorCode::CorruptInput,
                 "the " + name + " is larger than " + std::to_string(kMaxField));
    }
    return value;
  }

  [[noreturn]] void bad(const std::string& what) {
    in_.fail(ErrorCode::CorruptInput, "bad PGX header: " + what + ", found " + describe_byte(c_));
  }

 private:
  InputFile& in_;
  int c_;
};

class PgxReader : public FormatReader {
 public:
  explicit PgxReader(std::unique_ptr<InputFile> file) : file_(std::move(file)) {
    InputFile& in = *file_;
    HeaderParser p(in);
    p.expect('P', "at the start");
    p.expect('G', "at the start");
    if (!p.blanks()) p.bad("expected a space after PG");

    const int e0 = p.peek();
    p.next();
    const int e1 = p.peek();
    if (e0 == 'M' && e1 == 'L') {
      big_endian_ = true;
    } else if (!(e0 == 'L' && e1 == 'M')) {
      in.fail(ErrorCode::CorruptInput, "bad PGX header: byte order must be ML or LM, found " +
                                           describe_byte(e0) + " " + describe_byte(e1));
    }
    p.next();

    // The sign is optional and writers differ on spacing: "+8", "+ 8", "-12" and "8" occur.
    p.blanks();
    if (p.peek() == '+' || p.peek() == '-') {
      is_signed_ = p.peek() == '-';
      p.next();
      p.blanks();
    }
    precision_ = p.number("precision");
    if (!p.blanks()) p.bad("expected a space after the precision");
    width_ = p.number("width");
    if (!p.blanks()) p.bad("expected a space after the width");
    const uint64_t height = p.number("height");
    while (p.peek() == ' ' || p.peek() == '\t' || p.peek() == '\r') p.next();
    // The newline is the last header byte; the lookahead must not step into the samples.
    if (p.peek() != '\n') p.bad("expected the end of the header line");

    if (precision_ == 0) in.fail(ErrorCode::CorruptInput, "precision 0 is invalid");
    if (precision_ > 16)
      in.fail(ErrorCode::UnsupportedInput,
              "precision " + std::to_string(precision_) + " bits is not supported (1 to 16 are)");
    if (width_ == 0 || height == 0)
      in.fail(ErrorCode::CorruptInput,
              "image size " + std::to_string(width_) + "x" + std::to_string(height) + " is empty");

    bytes_ = precision_ <= 8 ? 1 : 2;
    const uint64_t row_bytes = width_ * bytes_;
    if (in.remaining() / row_bytes < height) {  // before allocating; division cannot overflow
      in.fail(ErrorCode::CorruptInput,
              "sample data is truncated: " + std::to_string(width_) + "x" + std::to_string(height) +
                  " samples of " + std::to_string(bytes_) + " byte(s) need " +
                  std::to_string(row_bytes * height) + " bytes, " + std::to_string(in.remaining()) +
                  " remain after the header");
    }

    // One component at the file's own width (1 byte up to 8 bits, 2 above), so each row is
    // read straight into its place and only checked (and byte-swapped) there.
    shape_.width = static_cast<uint32_t>(width_);
    shape_.height = static_cast<uint32_t>(height);
    j2kfront::Image::Component k;
    k.type = sample_type_for(static_cast<int>(precision_), is_signed_);
    k.precision = static_cast<int>(precision_);
    k.width = static_cast<int64_t>(width_);
    k.height = static_cast<int64_t>(height);
    shape_.components.push_back(k);
  }

  // Values are sign-extended from the stored width, then must lie in the declared range:
  // masking them into range would hide a corrupt file.
  j2kfront::Image read_rows(uint64_t first, uint64_t height) override {
    InputFile& in = *file_;
    j2kfront::Image image = band(height);
    j2kfront::Image::Component& k = image.components[0];
    const uint64_t precision = precision_, width = width_, bytes = bytes_, row_bytes = width_ * bytes_;
    const bool is_signed = is_signed_;
    const int64_t lo = is_signed ? -(int64_t{1} << (precision - 1)) : 0;
    const int64_t hi = is_signed ? (int64_t{1} << (precision - 1)) - 1 : (int64_t{1} << precision) - 1;
    for (uint64_t y = 0; y < height; ++y) {
      unsigned char* row = k.bytes.data() + y * row_bytes;
      in.read(row, static_cast<size_t>(row_bytes));
      for (uint64_t x = 0; x < width; ++x) {
        int64_t v;
        if (bytes == 1) {
          v = is_signed ? int64_t{static_cast<int8_t>(row[x])} : int64_t{row[x]};
        } else {
          unsigned char* b = &row[2 * x];
          const uint16_t u = big_endian_ ? static_cast<uint16_t>((b[0] << 8) | b[1])
                                         : static_cast<uint16_t>((b[1] << 8) | b[0]);
          v = is_signed ? int64_t{static_cast<int16_t>(u)} : int64_t{u};
          store_u16(b, u);  // the machine's byte order; an int16 has the same bits
        }
        if (v < lo || v > hi)
          in.fail(ErrorCode::CorruptInput,
                  "sample " + std::to_string(v) + " at x=" + std::to_string(x) + ", y=" +
                      std::to_string(first + y) + " is outside the " + std::to_string(precision) + "-bit " +
                      (is_signed ? "signed" : "unsigned") + " range " + std::to_string(lo) + ".." +
                      std::to_string(hi));
      }
    }
    return image;
  }

 private:
  std::unique_ptr<InputFile> file_;
  bool big_endian_ = false, is_signed_ = false;
  uint64_t precision_ = 0, width_ = 0, bytes_ = 1;
};

}  // namespace

std::unique_ptr<FormatReader> open_pgx(std::unique_ptr<InputFile> in) {
  return std::make_unique<PgxReader>(std::move(in));
}

}  // namespace j2k::io::detail
