// The CPU reference DWT (OpenMP over columns strips and rows). Results do not depend on the
// thread count: every output value is computed by exactly one thread in a fixed order.
#pragma once
#include <cstddef>
#include <cstdint>

#include "tiling/geometry.hpp"

namespace j2k::cpu {

// threads <= 0: OpenMP's default. Buffers as in j2k::Dwt.
void forward53(int32_t* data, size_t stride, const Rect& tc, int levels, int threads);
void inverse53(int32_t* data, size_t stride, const Rect& tc, int levels, int threads);
void forward97(float* data, size_t stride, const Rect& tc, int levels, int threads);
void inverse97(float* data, size_t stride, const Rect& tc, int levels, int threads);

}  // namespace j2k::cpu
