// SPDX-License-Identifier: BSD-2-Clause
// Binary PGM/PPM (P5 gray, P6 RGB): a netpbm text header, then 1-byte samples when
// maxval < 256 and 2-byte big-endian samples otherwise.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "io/readers.hpp"
#include "common/parallel/parallel_for.hpp"

namespace j2k::io::detail {
namespace {

// Dimensions beyond this are refused as corrupt: no real image has them, and keeping the
// fields in 31 bits keeps every size computation below far from overflow.
constexpr uint64_t kMaxField = 0x7fffffff;

bool is_space(int c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// Netpbm allows comments, from '#' to the end of the line, wherever whitespace may stand
// before maxval. Returns the first character that is neither.
int skip_space_and_comments(InputFile& in, int c) {
  for (;;) {
    if (c == '#') {
      while (c != '\n' && c != '\r' && c != EOF) c = in.get();
    } else if (is_space(c)) {
      c = in.get();
    } else {
      return c;
    }
  }
}

// Reads a decimal header field whose first character may still be whitespace in `c`;
// leaves in `c` the character after the last digit.
uint64_t read_field(InputFile& in, int& c, const std::string& name) {
  c = skip_space_and_comments(in, c);
  if (c == EOF) in.fail(ErrorCode::CorruptInput, "header ends before the " + name);
  if (c < '0' || c > '9')
    in.fail(ErrorCode::CorruptInput,
            "bad header: expected the " + name + ", found " + describe_byte(c));
  uint64_t value = 0;
  for (; c >= '0' && c <= '9'; c = in.get()) {
    value = value * 10 + static_cast<uint64_t>(c - '0');
    if (value > kMaxField)
      in.fail(ErrorCode::CorruptInput,
              "the " + name + " is larger than " + std::to_string(kMaxField));
  }
  return value;
}

void expect_separator(InputFile& in, int c, const std::string& after) {
  if (!is_space(c) && c != '#')
    in.fail(ErrorCode::CorruptInput,
            "bad header: expected whitespace after the " + after + ", found " + describe_byte(c));
}

int bits_of(uint32_t maxval) {
  int bits = 0;
  while (maxval >> bits) ++bits;
  return bits;
}

// A row of interleaved samples (1 byte, or 2 big-endian) split into its planes in the
// machine's order, returning the row's largest sample, so that maxval is checked from one
// value a row (the slow loop only names the sample over it). Written for the compiler to
// vectorise (byte shuffles for the 3-sample stride, SSSE3 and up), so an AVX2 build too,
// chosen at run time. A 4096x2160 12-bit RGB file on one thread: 103 ms to read when each
// sample was checked and stored on its own, 56 ms so (development VM, medians of 5).
inline uint16_t load_be16(const uint8_t* at) {
  uint16_t v;
  std::memcpy(&v, at, sizeof v);
  return __builtin_bswap16(v);  // big-endian in the file (GCC and Clang, the builds we have)
}

template <int kBuild, int kBytes>
uint32_t split_rows3(const uint8_t* __restrict row, uint8_t* __restrict r, uint8_t* __restrict g, uint8_t* __restrict b,
                     uint64_t width) {
  uint32_t most = 0;
  for (uint64_t x = 0; x < width; ++x) {
    if constexpr (kBytes == 1) {
      const uint8_t v0 = row[3 * x], v1 = row[3 * x + 1], v2 = row[3 * x + 2];
      r[x] = v0, g[x] = v1, b[x] = v2;
      most = std::max<uint32_t>(most, std::max(v0, std::max(v1, v2)));
    } else {
      const uint16_t v0 = load_be16(row + 6 * x), v1 = load_be16(row + 6 * x + 2), v2 = load_be16(row + 6 * x + 4);
      store_u16(r + 2 * x, v0), store_u16(g + 2 * x, v1), store_u16(b + 2 * x, v2);
      most = std::max<uint32_t>(most, std::max(v0, std::max(v1, v2)));
    }
  }
  return most;
}
template <int kBuild, int kBytes>
uint32_t split_rows1(const uint8_t* __restrict row, uint8_t* __restrict plane, uint64_t width) {
  uint32_t most = 0;
  for (uint64_t x = 0; x < width; ++x) {
    if constexpr (kBytes == 1) {
      plane[x] = row[x];
      most = std::max<uint32_t>(most, row[x]);
    } else {
      const uint16_t v = load_be16(row + 2 * x);
      store_u16(plane + 2 * x, v);
      most = std::max<uint32_t>(most, v);
    }
  }
  return most;
}
template <int kBuild>
uint32_t split_row(const uint8_t* row, unsigned char* const* planes, int channels, uint64_t bytes, uint64_t width) {
  if (channels == 3)
    return bytes == 1 ? split_rows3<kBuild, 1>(row, planes[0], planes[1], planes[2], width)
                      : split_rows3<kBuild, 2>(row, planes[0], planes[1], planes[2], width);
  return bytes == 1 ? split_rows1<kBuild, 1>(row, planes[0], width) : split_rows1<kBuild, 2>(row, planes[0], width);
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"), flatten)) uint32_t split_row_avx2(const uint8_t* row, unsigned char* const* planes, int channels,
                                                                uint64_t bytes, uint64_t width) {
  return split_row<1>(row, planes, channels, bytes, width);
}
#endif
uint32_t split_row(const uint8_t* row, unsigned char* const* planes, int channels, uint64_t bytes, uint64_t width) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return split_row_avx2(row, planes, channels, bytes, width);
#endif
  return split_row<0>(row, planes, channels, bytes, width);
}

class PnmReader : public FormatReader {
 public:
  explicit PnmReader(std::unique_ptr<InputFile> file) : file_(std::move(file)) {
    InputFile& in = *file_;
    const int m0 = in.get(), m1 = in.get();
    if (m0 != 'P' || (m1 != '5' && m1 != '6'))
      in.fail(ErrorCode::CorruptInput, "not a binary PGM/PPM file (signature P5 or P6 expected)");
    channels_ = m1 == '6' ? 3 : 1;

    int c = in.get();
    expect_separator(in, c, std::string("P") + static_cast<char>(m1) + " signature");
    width_ = read_field(in, c, "width");
    expect_separator(in, c, "width");
    const uint64_t height = read_field(in, c, "height");
    expect_separator(in, c, "height");
    maxval_ = read_field(in, c, "maxval");
    // Exactly one whitespace character ends the header: the next byte may be a sample that
    // happens to look like whitespace, so nothing more is skipped.
    if (!is_space(c))
      in.fail(ErrorCode::CorruptInput,
              "bad header: expected one whitespace character after maxval, found " + describe_byte(c));

    if (width_ == 0 || height == 0)
      in.fail(ErrorCode::CorruptInput,
              "image size " + std::to_string(width_) + "x" + std::to_string(height) + " is empty");
    if (maxval_ == 0 || maxval_ > 65535)
      in.fail(ErrorCode::CorruptInput, "maxval " + std::to_string(maxval_) + " is outside 1..65535");

    // Check that the file holds every sample before allocating: a corrupt header must not
    // make us reserve gigabytes. Dividing instead of multiplying cannot overflow.
    bytes_ = maxval_ > 255 ? 2 : 1;
    row_bytes_ = width_ * static_cast<uint64_t>(channels_) * bytes_;
    if (in.remaining() / row_bytes_ < height) {
      uint64_t need = 0;
      const std::string need_text =
          __builtin_mul_overflow(row_bytes_, height, &need) ? "more than 2^64" : std::to_string(need);
      in.fail(ErrorCode::CorruptInput,
              "pixel data is truncated: " + std::to_string(width_) + "x" + std::to_string(height) +
                  " pixels of " + std::to_string(channels_) + " x " + std::to_string(bytes_) +
                  " bytes need " + need_text + " bytes, " + std::to_string(in.remaining()) +
                  " remain after the header");
    }

    // One plane per channel at the file's width: U8 up to maxval 255, U16 above.
    const int precision = bits_of(static_cast<uint32_t>(maxval_));
    shape_.width = static_cast<uint32_t>(width_);
    shape_.height = static_cast<uint32_t>(height);
    shape_.components.resize(static_cast<size_t>(channels_));
    for (j2kfront::Image::Component& k : shape_.components) {
      k.type = sample_type_for(precision, false);
      k.precision = precision;
      k.width = static_cast<int64_t>(width_);
      k.height = static_cast<int64_t>(height);
    }
  }

  // The band's rows come in chunks of about 1 MB, each read (pread, at its place in the
  // file) and split into the planes (and checked against maxval) by one worker, the workers
  // side by side: the kernel's copies out of the page cache then run on every core too, not
  // one before all the splitting. A gray 8-bit or full-range 16-bit file needs no check.
  bool fills_every_sample() const override { return true; }

  j2kfront::Image read_rows(uint64_t first, uint64_t height) override {
    InputFile& in = *file_;
    j2kfront::Image image = band(height);
    const uint64_t width = width_, bytes = bytes_, row_bytes = row_bytes_, maxval = maxval_;
    const int channels = channels_;
    const bool check = maxval != (bytes == 1 ? 255u : 65535u);
    const uint64_t chunk_rows = std::max<uint64_t>(1, (uint64_t{1} << 20) / row_bytes);
    const uint64_t chunks = (height + chunk_rows - 1) / chunk_rows;
    // The reader's workers (run_on_workers takes a count, not 0 for every core).
    const int threads = copy_threads(static_cast<size_t>(height * row_bytes), worker_count(threads_));
    std::vector<std::vector<uint8_t>> buffers(static_cast<size_t>(std::max(threads, 1)));
    run_on_workers(static_cast<ptrdiff_t>(chunks), threads, [&](ptrdiff_t c, int worker) {
      const uint64_t y0 = static_cast<uint64_t>(c) * chunk_rows;
      const uint64_t rows = std::min(chunk_rows, height - y0);
      std::vector<uint8_t>& chunk = buffers[static_cast<size_t>(worker)];
      chunk.resize(static_cast<size_t>(rows * row_bytes));
      in.read_ahead(chunk.data(), chunk.size(), y0 * row_bytes);
      for (uint64_t r = 0; r < rows; ++r) {
        const uint64_t y = y0 + r;
        const uint8_t* row = chunk.data() + static_cast<size_t>(r) * static_cast<size_t>(row_bytes);
        const size_t plane_offset = static_cast<size_t>(y * width * bytes);
        unsigned char* planes[3] = {};
        for (int ch = 0; ch < channels; ++ch)
          planes[ch] = image.components[static_cast<size_t>(ch)].bytes.data() + plane_offset;
        if (channels == 1 && bytes == 1 && !check) {
          std::memcpy(planes[0], row, static_cast<size_t>(width));
          continue;
        }
        // A sample above maxval would not fit the precision we report: the row's first one
        // is named.
        if (split_row(row, planes, channels, bytes, width) <= maxval) continue;
        for (uint64_t x = 0; x < width; ++x)
          for (int ch = 0; ch < channels; ++ch) {
            const size_t i = static_cast<size_t>(x) * static_cast<size_t>(channels) + static_cast<size_t>(ch);
            const uint32_t v = bytes == 1 ? row[i] : (uint32_t{row[2 * i]} << 8) | row[2 * i + 1];
            if (v > maxval)
              in.fail(ErrorCode::CorruptInput,
                      "sample " + std::to_string(v) + " at x=" + std::to_string(x) + ", y=" + std::to_string(first + y) +
                          (channels > 1 ? ", channel " + std::to_string(ch) : "") + " exceeds maxval " + std::to_string(maxval));
          }
      }
    });
    in.skip(height * row_bytes);
    return image;
  }

 private:
  std::unique_ptr<InputFile> file_;
  int channels_ = 1;
  uint64_t width_ = 0, maxval_ = 0, bytes_ = 1, row_bytes_ = 0;
};

}  // namespace

std::unique_ptr<FormatReader> open_pnm(std::unique_ptr<InputFile> in) {
  return std::make_unique<PnmReader>(std::move(in));
}

}  // namespace j2k::io::detail
