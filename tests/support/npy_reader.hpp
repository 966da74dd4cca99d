// SPDX-License-Identifier: BSD-2-Clause
// Test helper: read back a 2-D NPY file (format 1.0, '<i4' or '<f4'), checking its header.
#pragma once
#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace test_support {

struct Npy {
  std::string descr;
  int64_t rows = 0, cols = 0;
  std::vector<uint32_t> words;  // raw 32-bit little-endian payload
};

inline Npy read_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open");
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0 || bytes[6] != 1 || bytes[7] != 0)
    throw std::runtime_error(path + ": not an NPY 1.0 file");
  const size_t hlen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  if ((10 + hlen) % 64 != 0) throw std::runtime_error(path + ": header not 64-byte aligned");
  const std::string header = bytes.substr(10, hlen);
  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr': '(<[if]4)', 'fortran_order': False, 'shape': \((\d+), (\d+)\))")))
    throw std::runtime_error(path + ": unexpected header " + header);
  Npy n;
  n.descr = m[1];
  n.rows = std::stoll(m[2]);
  n.cols = std::stoll(m[3]);
  const size_t payload = bytes.size() - 10 - hlen;
  if (payload != static_cast<size_t>(n.rows * n.cols) * 4) throw std::runtime_error(path + ": payload size");
  n.words.resize(payload / 4);
  std::memcpy(n.words.data(), bytes.data() + 10 + hlen, payload);
  return n;
}

}  // namespace test_support
