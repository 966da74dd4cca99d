// SPDX-License-Identifier: BSD-2-Clause
// The interface every DWT backend implements (transform/cpu, transform/cuda,
// transform/opencl each provide an engine.* with a factory). Host buffers in, in place.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "transform/backend.hpp"
#include "tiling/geometry.hpp"

namespace j2k {

class DwtEngine {
 public:
  virtual ~DwtEngine() = default;
  virtual Backend kind() const = 0;
  virtual std::string description() const = 0;
  virtual void forward53(int32_t* data, size_t stride, const Rect& tc, int levels) = 0;
  virtual void inverse53(int32_t* data, size_t stride, const Rect& tc, int levels) = 0;
  virtual void forward97(float* data, size_t stride, const Rect& tc, int levels) = 0;
  virtual void inverse97(float* data, size_t stride, const Rect& tc, int levels) = 0;
};

std::unique_ptr<DwtEngine> make_cpu_engine(const BackendOptions& options);

// Builds the engine for options.backend (Auto resolved), or throws naming why it cannot.
std::unique_ptr<DwtEngine> make_engine(const BackendOptions& options);

}  // namespace j2k
