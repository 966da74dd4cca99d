// SPDX-License-Identifier: BSD-2-Clause
#include "io/raw_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "common/file_names.hpp"
#include "io/readers.hpp"

namespace j2k::io {
namespace {

[[noreturn]] void bad(const std::string& text, const std::string& why) {
  throw Error(ErrorCode::InvalidArgument,
              "-F " + text + ": " + why + " (expected W,H,COMPONENTS,BITS,s|u[@DXxDY:...], e.g. 512,512,3,8,u@1x1:2x2:2x2)");
}

// A whole decimal number within [lo, hi], or bad().
long number(const std::string& text, const std::string& part, const char* what, long lo, long hi) {
  if (part.empty() || !std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c); }))
    bad(text, std::string(what) + " '" + part + "' is not a number");
  errno = 0;
  const long v = std::strtol(part.c_str(), nullptr, 10);
  if (errno != 0 || v < lo || v > hi)
    bad(text, std::string(what) + " " + part + " is not within " + std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t end; (end = s.find(by, start)) != std::string::npos; start = end + 1) out.push_back(s.substr(start, end - start));
  out.push_back(s.substr(start));
  return out;
}

}  // namespace

RawLayout parse_raw_layout(const std::string& text) {
  const size_t at = text.find('@');
  const std::vector<std::string> parts = split(text.substr(0, at), ',');
  if (parts.size() != 5) bad(text, "it has " + std::to_string(parts.size()) + " comma-separated fields, not 5");
  RawLayout l;
  l.width = static_cast<uint32_t>(number(text, parts[0], "the width", 1, 0x7fffffff));
  l.height = static_cast<uint32_t>(number(text, parts[1], "the height", 1, 0x7fffffff));
  const long components = number(text, parts[2], "the component count", 1, 16384);
  l.precision = static_cast<int>(number(text, parts[3], "the bit depth", 1, 16));
  if (parts[4] != "s" && parts[4] != "u") bad(text, "the sign '" + parts[4] + "' is not s or u");
  l.is_signed = parts[4] == "s";
  if (at == std::string::npos) {
    l.subsampling.assign(static_cast<size_t>(components), {1, 1});
    return l;
  }
  const std::vector<std::string> each = split(text.substr(at + 1), ':');
  if (static_cast<long>(each.size()) != components)
    bad(text, std::to_string(each.size()) + " subsamplings for " + std::to_string(components) + " components");
  for (const std::string& s : each) {
    const size_t x = s.find('x');
    if (x == std::string::npos) bad(text, "the subsampling '" + s + "' is not DXxDY");
    l.subsampling.emplace_back(static_cast<int>(number(text, s.substr(0, x), "a horizontal subsampling", 1, 255)),
                               static_cast<int>(number(text, s.substr(x + 1), "a vertical subsampling", 1, 255)));
  }
  return l;
}

bool is_raw_name(const std::string& path, bool* little_endian) {
  const std::string e = lower_extension(path);
  if (little_endian) *little_endian = e == ".rawl";
  return e == ".raw" || e == ".rawl";
}

j2kfront::Image read_raw(const std::string& path, const RawLayout& layout, const ReadOptions& options) {
  detail::InputFile in(path);
  bool little_endian = false;
  is_raw_name(path, &little_endian);
  j2kfront::Image image;
  image.width = layout.width;
  image.height = layout.height;
  const bool wide = layout.precision > 8;
  const j2k_sample_type type = wide ? (layout.is_signed ? J2K_SAMPLE_I16 : J2K_SAMPLE_U16)
                                    : (layout.is_signed ? J2K_SAMPLE_I8 : J2K_SAMPLE_U8);
  // The sizes first, in 64 bits (each at most 2^31 x 2^31 samples of 2 bytes, 16384 times).
  uint64_t bytes = 0;
  for (const auto& [dx, dy] : layout.subsampling)
    bytes += ((uint64_t{layout.width} + dx - 1) / dx) * ((uint64_t{layout.height} + dy - 1) / dy) * (wide ? 2 : 1);
  if (options.max_bytes && bytes > options.max_bytes)
    in.fail(ErrorCode::OutOfMemory, "-F says " + std::to_string(bytes) + " bytes of samples, more than the " +
                                        std::to_string(options.max_bytes) + " allowed");
  if (in.size() != bytes)
    in.fail(ErrorCode::CorruptInput, "-F says " + std::to_string(bytes) + " bytes of samples, the file holds " +
                                         std::to_string(in.size()));
  for (const auto& [dx, dy] : layout.subsampling) {
    j2kfront::Image::Component& c = image.add_component(type, layout.precision, dx, dy);
    in.read(c.bytes.data(), c.bytes.size());
    const bool swap = wide && (little_endian != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__));
    if (swap)
      for (size_t i = 0; i + 1 < c.bytes.size(); i += 2) std::swap(c.bytes[i], c.bytes[i + 1]);
  }
  return image;
}

}  // namespace j2k::io
