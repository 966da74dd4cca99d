// SPDX-License-Identifier: BSD-2-Clause
// Three 8-bit sample rows (R, G, B) into one row of RGB triples, as the PPM writer stores them:
// on a CPU with SSSE3, 16 pixels a run with three byte shuffles per 16 output bytes, instead
// of a byte store at a time (3% of a one-thread 4096^2 RGB decode to PPM); the same bytes
// from either build.
#pragma once
#include <cstddef>
#include <cstdint>

namespace j2k::io {

// out[3i] = r[i], out[3i + 1] = g[i], out[3i + 2] = b[i] for i < n.
void interleave_rgb8(const uint8_t* r, const uint8_t* g, const uint8_t* b, size_t n, unsigned char* out);

// The builds behind it, for the tests; the SSSE3 one only where interleave_rgb8_ssse3() says
// the build and the CPU have it.
namespace portable {
void interleave_rgb8(const uint8_t* r, const uint8_t* g, const uint8_t* b, size_t n, unsigned char* out);
}
bool interleave_rgb8_ssse3();
namespace ssse3 {
void interleave_rgb8(const uint8_t* r, const uint8_t* g, const uint8_t* b, size_t n, unsigned char* out);
}

}  // namespace j2k::io
