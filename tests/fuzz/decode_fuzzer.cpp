// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer target: a file's bytes to the C API's decoder (decode_check.hpp), mutated byte by
// byte by libFuzzer. Seeds: decode/.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/decode_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::decode_and_check(data, size);
  return 0;
}
