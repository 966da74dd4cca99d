// SPDX-License-Identifier: BSD-2-Clause
// What an ICC profile's header must say (ICC.1:2010 clause 7.2) before a profile is carried from
// one file into another (an image file's into a JP2 file's Colour Specification box, and back):
// its size field is the bytes there are, its signature is 'acsp', and its data colour space
// fits the image's components. The profile's tags are not read: they are carried as they are.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace j2k {

// The header and the tag count: the least a profile holds.
constexpr size_t kIccMinBytes = 132;

inline uint32_t icc_field(const uint8_t* p, size_t at) {
  return uint32_t{p[at]} << 24 | uint32_t{p[at + 1]} << 16 | uint32_t{p[at + 2]} << 8 | p[at + 3];
}

// The profile's data colour space (bytes 16..19: 'GRAY', 'RGB ', 'CMYK', ...) as text.
inline std::string icc_colour_space(const uint8_t* p, size_t n) {
  if (n < 20) return "";
  std::string s;
  for (size_t i = 16; i < 20; ++i) s += p[i] >= 32 && p[i] < 127 ? static_cast<char>(p[i]) : '?';
  return s;
}

// Why the `n` bytes at `p` cannot be carried as the ICC profile of an image of `components`
// components ("" when they can): shorter than a header, a size field that is not `n` (a profile
// cut short, or one that declares more than it holds), no 'acsp' signature, or a colour space
// other than grey ('GRAY', for 1 or 2 components: grey and perhaps alpha) or RGB ('RGB ', for 3
// or more). `components` 0: the colour space is not checked.
inline std::string icc_profile_problem(const uint8_t* p, size_t n, size_t components) {
  if (n < kIccMinBytes) return "it has " + std::to_string(n) + " bytes, less than an ICC header and tag count (132)";
  const uint32_t declared = icc_field(p, 0);
  if (declared != n)
    return "its header says " + std::to_string(declared) + " bytes, and " + std::to_string(n) + " are there";
  if (icc_field(p, 36) != 0x61637370u) return "it has no ICC signature ('acsp' at byte 36)";
  if (components == 0) return "";
  const std::string space = icc_colour_space(p, n);
  if (space == "GRAY" && components <= 2) return "";
  if (space == "RGB " && components >= 3) return "";
  return "it is a '" + space + "' profile, and the image has " + std::to_string(components) +
         " component" + (components == 1 ? "" : "s") + " (a grey profile for 1 or 2, an RGB one for 3 or more)";
}

}  // namespace j2k
