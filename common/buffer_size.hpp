// SPDX-License-Identifier: BSD-2-Clause
// Checks a caller's raw buffer against the size it gave: every raw pointer of the C interface
// comes with its size in bytes, and the library never touches a byte past it. The arithmetic
// is checked (a view of 2^32 rows with a huge stride must not wrap around to a small span).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.hpp"

namespace j2k {

// Bytes from the first element of a width x height array to the end of its last:
// (height - 1) * row_stride + (width - 1) * pixel_stride + element, for width, height >= 1 and
// non-negative strides. False when that exceeds INT64_MAX.
inline bool span_bytes(int64_t width, int64_t height, int64_t row_stride, int64_t pixel_stride,
                       int64_t element, int64_t* bytes) {
  int64_t rows = 0, cols = 0, sum = 0;
  return !__builtin_mul_overflow(height - 1, row_stride, &rows) &&
         !__builtin_mul_overflow(width - 1, pixel_stride, &cols) &&
         !__builtin_add_overflow(rows, cols, &sum) && !__builtin_add_overflow(sum, element, bytes);
}

// Throws InvalidArgument, naming `what`, when the array does not lie within `bytes`. Builds no
// string unless it throws (plans run without allocating).
inline void check_buffer_size(const std::string& what, int64_t width, int64_t height,
                              int64_t row_stride, int64_t pixel_stride, int64_t element,
                              size_t bytes) {
  if (width < 1 || height < 1) return;  // nothing is read or written
  int64_t need = 0;
  const bool fits = span_bytes(width, height, row_stride, pixel_stride, element, &need);
  if (fits && static_cast<uint64_t>(need) <= bytes) return;
  std::string shape = std::to_string(height) + " rows of " + std::to_string(width) + " " +
                      std::to_string(element) + "-byte elements";
  if (pixel_stride != element) shape += " " + std::to_string(pixel_stride) + " bytes apart";
  shape += ", rows " + std::to_string(row_stride) + " bytes apart,";
  if (!fits) throw Error(ErrorCode::InvalidArgument, what + ": " + shape + " span more than 2^63 bytes");
  throw Error(ErrorCode::InvalidArgument, what + ": " + shape + " span " + std::to_string(need) +
                                              " bytes, but the buffer holds " + std::to_string(bytes));
}

}  // namespace j2k
