// SPDX-License-Identifier: BSD-2-Clause
// Writes the seeds of decode_structure_fuzzer: the small stream of each hostile class
// (tests/support/hostile_streams.hpp) as <folder>/<class>.j2k. The RGN class is made from a
// real stream, the second argument. With --full, the classes at the size issue 45 measured
// them (up to 3.7 MB), for timing the decoder on them (bench/RESULTS.md).
//   build-sanitize/tests/fuzz/make_hostile_seeds tests/fuzz/decode_structure tests/fuzz/decode/lossless_grey.j2k
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/support/hostile_streams.hpp"

int main(int argc, char** argv) {
  const bool full = argc == 4 && std::string(argv[3]) == "--full";
  if (argc != 3 && !full) {
    std::fprintf(stderr, "usage: make_hostile_seeds FOLDER REAL_STREAM.j2k [--full]\n");
    return 2;
  }
  std::ifstream in(argv[2], std::ios::binary);
  const std::vector<uint8_t> real{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (real.empty()) {
    std::fprintf(stderr, "make_hostile_seeds: cannot read %s\n", argv[2]);
    return 1;
  }
  for (const test_support::HostileStream& s : test_support::hostile_streams(full, real)) {
    const std::string path = std::string(argv[1]) + "/" + s.name + ".j2k";
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(s.bytes.data()), static_cast<std::streamsize>(s.bytes.size()));
    if (!out) {
      std::fprintf(stderr, "make_hostile_seeds: cannot write %s\n", path.c_str());
      return 1;
    }
    std::printf("%s: %zu bytes\n", path.c_str(), s.bytes.size());
  }
  return 0;
}
