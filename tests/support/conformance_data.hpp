// SPDX-License-Identifier: BSD-2-Clause
// Where the ISO/IEC 15444-4 conformance codestreams and reference decodes are: the folder that
// J2K_CONFORMANCE_DATA names (other streams, such as HTJ2K's in its htj2k/), else the copy the
// repository carries in tests/data/conformance (with its COPYRIGHT), so that a clone runs them.
#pragma once
#include <cstdlib>
#include <string>

namespace test_support {

inline std::string conformance_dir() {
  if (const char* env = std::getenv("J2K_CONFORMANCE_DATA"); env != nullptr && *env != '\0') return env;
  return std::string(J2K_SOURCE_DIR) + "/tests/data/conformance";
}

}  // namespace test_support
