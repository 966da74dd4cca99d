// SPDX-License-Identifier: BSD-2-Clause
// Test helper: a PGX file (the conformance references, opj_decompress's per-component output):
// "PG ML|LM [+|-]depth width height\n" then the samples, big-endian (ML) or little-endian
// (LM), 1, 2 or 4 bytes each by depth. Small and independent of the library's own PGX reader,
// so that the decoder's tests do not lean on code of the project for their expected values.
#pragma once
#include <algorithm>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/run_command.hpp"

namespace test_support {

struct Pgx {
  int64_t width = 0, height = 0;
  std::vector<int32_t> samples;
};

inline Pgx read_pgx(const std::string& path) {
  const std::vector<uint8_t> bytes = file_bytes(path);
  const auto eol = std::find(bytes.begin(), bytes.end(), '\n');
  if (eol == bytes.end()) throw std::runtime_error(path + ": no PGX header");
  std::istringstream h(std::string(bytes.begin(), eol));
  std::string pg, order;
  h >> pg >> order >> std::ws;
  bool is_signed = false;
  if (h.peek() == '+' || h.peek() == '-') is_signed = h.get() == '-';
  int depth = 0;
  Pgx p;
  h >> depth >> p.width >> p.height;
  if (!h || pg != "PG" || depth < 1 || depth > 32 || p.width < 0 || p.height < 0)
    throw std::runtime_error(path + ": bad PGX header");
  const size_t size = depth <= 8 ? 1 : depth <= 16 ? 2 : 4;
  const size_t n = static_cast<size_t>(p.width * p.height);
  const size_t start = static_cast<size_t>(eol - bytes.begin()) + 1;
  if (bytes.size() - start < n * size) throw std::runtime_error(path + ": PGX data cut short");
  p.samples.resize(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t v = 0;
    for (size_t k = 0; k < size; ++k) v = (v << 8) | bytes[start + i * size + (order == "ML" ? k : size - 1 - k)];
    int64_t s = v;
    if (is_signed && size < 4 && (v >> (8 * size - 1))) s -= int64_t{1} << (8 * size);
    p.samples[i] = static_cast<int32_t>(s);
  }
  return p;
}

}  // namespace test_support
