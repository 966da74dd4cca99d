// SPDX-License-Identifier: BSD-2-Clause
// Arithmetic on values a file controls (sizes, counts, offsets, lengths, exponents) that
// cannot wrap around. Two kinds:
//  - checked_add / checked_mul / checked_shl: the exact result, or false where it does not
//    fit the type, for the caller to refuse the input naming what it computed;
//  - saturating_add / saturating_mul (uint64_t): the result, or UINT64_MAX where it does not
//    fit, for budgets and limits: a saturated count compares above every limit, so the check
//    after it refuses the input instead of passing a sum that wrapped to a small number.
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>

namespace j2k {

template <class T>
[[nodiscard]] constexpr bool checked_add(T a, T b, T* out) {
  static_assert(std::is_integral_v<T>, "integers only");
  return !__builtin_add_overflow(a, b, out);
}

template <class T>
[[nodiscard]] constexpr bool checked_mul(T a, T b, T* out) {
  static_assert(std::is_integral_v<T>, "integers only");
  return !__builtin_mul_overflow(a, b, out);
}

// v * 2^k for v >= 0 and k >= 0; false where that does not fit T (a shift by the type's width
// or more, or of a negative value, is undefined: refused, not attempted).
template <class T>
[[nodiscard]] constexpr bool checked_shl(T v, int k, T* out) {
  static_assert(std::is_integral_v<T>, "integers only");
  if (v < 0 || k < 0 || k >= std::numeric_limits<T>::digits) return false;
  if (v > (std::numeric_limits<T>::max() >> k)) return false;
  *out = static_cast<T>(v << k);
  return true;
}

[[nodiscard]] constexpr uint64_t saturating_add(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

[[nodiscard]] constexpr uint64_t saturating_mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

}  // namespace j2k
