// SPDX-License-Identifier: BSD-2-Clause
// Enum values from C callers. C lets any int into an enum; C++ may assume that an enum holds
// only values in its enumerators' range (what UBSan's -fsanitize=enum checks at every load),
// so a value from the C interface is read through its bytes, as an int, and checked before it
// is used as the enum.
#pragma once
#include <cstring>
#include <type_traits>

namespace j2k {

template <class E>
int c_enum(const E& value) {
  static_assert(std::is_enum_v<E>, "c_enum reads enums");
  std::underlying_type_t<E> raw;
  std::memcpy(&raw, &value, sizeof raw);
  return static_cast<int>(raw);
}

}  // namespace j2k
