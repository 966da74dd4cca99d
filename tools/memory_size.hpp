// SPDX-License-Identifier: BSD-2-Clause
// --max-memory's sizes, shared by the commands that take it (transform, decompress).
#pragma once
#include <cstdint>
#include <string>

namespace j2k::tools {

// "--max-memory": bytes, or a number with K, M, G or T (powers of 1024); at least 1M. Throws
// CLI::ValidationError naming the option.
uint64_t parse_memory_size(const std::string& text);

// Half of the machine's memory: room for the rest of the system and for the page cache
// (0: unknown, no limit).
uint64_t default_memory_budget();

}  // namespace j2k::tools
