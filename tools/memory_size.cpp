// SPDX-License-Identifier: BSD-2-Clause
#include "tools/memory_size.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace j2k::tools {

uint64_t parse_memory_size(const std::string& text) {
  size_t end = 0;
  unsigned long long n = 0;
  try {
    // stoull would take a sign (and wrap "-5" around): digits only.
    if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) n = std::stoull(text, &end);
  } catch (const std::exception&) {
    end = 0;
  }
  uint64_t unit = 1;
  if (end > 0 && end + 1 == text.size()) {
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(text[end])));
    unit = u == 'K' ? 1ull << 10 : u == 'M' ? 1ull << 20 : u == 'G' ? 1ull << 30 : u == 'T' ? 1ull << 40 : 0;
    end += unit ? 1 : 0;
  }
  if (end == 0 || end != text.size() || n == 0 || n > UINT64_MAX / unit)
    throw CLI::ValidationError("--max-memory", "expected a size such as 800M, 4G or a number of bytes, got '" +
                                                   text + "'");
  if (n * unit < (1ull << 20)) throw CLI::ValidationError("--max-memory", "must be at least 1M, got '" + text + "'");
  return n * unit;
}

uint64_t default_memory_budget() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;  // unknown: no limit
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2;
}

}  // namespace j2k::tools
