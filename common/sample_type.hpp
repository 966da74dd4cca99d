// SPDX-License-Identifier: BSD-2-Clause
// Facts about the C interface's sample types, for every layer.
#pragma once
#include <cstdint>

#include "j2kfront/j2kfront.h"

namespace j2k {

inline bool sample_is_signed(j2k_sample_type t) {
  return t == J2K_SAMPLE_I8 || t == J2K_SAMPLE_I16 || t == J2K_SAMPLE_I32;
}

// "U8" ... "F32"; "unknown" for a value outside the enum.
inline const char* sample_type_name(j2k_sample_type t) {
  switch (t) {
    case J2K_SAMPLE_U8: return "U8";
    case J2K_SAMPLE_I8: return "I8";
    case J2K_SAMPLE_U16: return "U16";
    case J2K_SAMPLE_I16: return "I16";
    case J2K_SAMPLE_U32: return "U32";
    case J2K_SAMPLE_I32: return "I32";
    case J2K_SAMPLE_F32: return "F32";
  }
  return "unknown";
}

}  // namespace j2k
