// SPDX-License-Identifier: BSD-2-Clause
// The multi-level 2-D DWT on one tile-component buffer, in OpenJPEG's order and layout:
// at each level the vertical pass runs before the horizontal one, parities come from the
// resolution's canvas origin, and the result is the classic pyramid (LL top-left).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transform/backend.hpp"
#include "tiling/canvas.hpp"

namespace j2k {

// A DWT engine bound to one backend. Buffers are host memory, row-major, `stride` elements
// per row, holding tc.height() rows of tc.width() samples; transforms run in place.
// Not thread-safe: use one Dwt per thread.
class Dwt {
 public:
  explicit Dwt(const BackendOptions& options = {});
  ~Dwt();
  Dwt(Dwt&&) noexcept;
  Dwt& operator=(Dwt&&) noexcept;

  Backend backend() const;      // the backend actually in use (never Auto)
  std::string description() const;  // e.g. "cpu (2 threads)"

  void forward53(int32_t* data, size_t stride, const Rect& tc, int levels);
  void inverse53(int32_t* data, size_t stride, const Rect& tc, int levels);
  void forward97(float* data, size_t stride, const Rect& tc, int levels);
  void inverse97(float* data, size_t stride, const Rect& tc, int levels);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k
