// SPDX-License-Identifier: BSD-2-Clause
// The CLI's subcommands. Each registers its options on `app` and returns the function that
// runs it after parsing (exit code; throws j2k::Error on failure).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "j2kfront/j2kfront.h"

namespace j2k::tools {

std::function<int()> add_transform_command(CLI::App& app);
std::function<int()> add_bench_command(CLI::App& app);
std::function<int()> add_compress_command(CLI::App& app);
std::function<int()> add_decompress_command(CLI::App& app);
std::function<int()> add_info_command(CLI::App& app);
std::function<int()> add_check_command(CLI::App& app);
std::function<int()> add_transcode_command(CLI::App& app);

// argv as CLI11 parses it: for `compress` and `decompress`, opj_compress's and
// opj_decompress's spellings that mean what one of ours means (-mct, -SOP, -EPH, -PLT, -TLM,
// -TP, -GuardBits, -threads, -OutFor, -ImgDir, -quiet, -force, -allow-partial,
// -cinema2K, -cinema4K, -IMF, -POC, -ROI) in ours; theirs that j2kfront does not do (-jpip, -x)
// throw CLI::ValidationError("not supported: ...").
std::vector<std::string> opj_style_arguments(int argc, char** argv);

// "W,H" -> two numbers within [min, max]; throws CLI::ValidationError naming the option.
std::pair<int64_t, int64_t> parse_pair(const std::string& option, const std::string& text,
                                       int64_t min, int64_t max);

// --threads's check: the library's range (common/parallel/thread_limit.hpp), 0 for one per
// core, and its message.
CLI::Validator thread_count_check();

// --backend's names ("auto", "cpu", "cuda", "opencl", checked by CLI11) as the library's enum.
j2k_backend backend_from_name(const std::string& name);

}  // namespace j2k::tools
