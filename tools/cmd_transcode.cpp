// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront transcode -i IN -o OUT`: a JPEG 2000 file re-coded between Part 1's EBCOT and
// Part 15's HT code-blocks without decoding it to samples (codec/transcoder.hpp, through the
// C API's j2k_transcoder): .j2k/.j2c/.jpc/.jp2 to .jhc/.jph and back. The output decodes to
// exactly the input's image; its quality layers become one. The output is checked before any
// work (never the input, an existing file only with --force) and written under a temporary
// name, then renamed.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "common/error.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tools/commands.hpp"
#include "tools/input_file.hpp"
#include "tools/memory_size.hpp"
#include "tools/output_dir.hpp"

namespace j2k::tools {
namespace {

struct TranscodeArgs {
  std::string input, output, out_format, coder, max_memory;
  int threads = 0;
  bool force = false, quiet = false;
};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

int run_transcode(const TranscodeArgs& a) {
  const auto t_start = Clock::now();
  // The output's format from its name (for "-", --OutFor's), the coder from --coder or, where
  // not given, from that name: .jhc and .jph hold HT code-blocks, the others EBCOT's.
  std::string format_name = a.output;
  if (a.output == "-") {
    format_name = "any." + lower(a.out_format.empty() ? "j2k" : a.out_format);
  } else if (!a.out_format.empty()) {
    throw CLI::ValidationError("--OutFor", "names the format of -o - only; for a file, -o's extension does");
  }
  j2k_transcode_settings s{};
  j2k_transcode_settings_default(&s);
  if (!j2k_file_format_from_name(format_name.c_str(), &s.format))
    throw CLI::ValidationError(a.output == "-" ? "--OutFor" : "-o",
                               "the output is a .j2k, .j2c, .jpc or .jhc codestream or a .jp2 or .jph file, not '" +
                                   (a.output == "-" ? a.out_format : a.output) + "'");
  const bool ht_name = j2k_file_format_is_ht(format_name.c_str()) != 0;
  s.target = a.coder.empty() ? (ht_name ? J2K_CODER_HT : J2K_CODER_EBCOT) : lower(a.coder) == "ht" ? J2K_CODER_HT : J2K_CODER_EBCOT;
  if (ht_name && s.target != J2K_CODER_HT)
    throw CLI::ValidationError("--coder", "a " + format_name.substr(format_name.rfind('.')) + " file holds HT code-blocks, not EBCOT's");
  s.threads = a.threads;
  s.max_bytes = a.max_memory.empty() ? default_memory_budget() : parse_memory_size(a.max_memory);

  const OutputFile output(a.output, a.input, a.force);
  output.check();  // before any work: never the input, an existing file only with --force
  const InputBytes in = read_input_file(a.input, s.max_bytes, s.threads);
  const auto t0 = Clock::now();
  j2kfront::Transcoder transcoder(s);
  const auto [data, size] = transcoder.transcode_in_place(in.data(), in.size());
  const double ms = ms_since(t0);
  output.write([&, data = data, size = size](std::FILE* f, const std::string& name) {
    if (std::fwrite(data, 1, size, f) != size || std::fflush(f) != 0) throw Error(ErrorCode::Io, name + ": cannot write the file");
  });
  const j2k_transcode_report r = transcoder.report();
  if (r.warnings && *r.warnings) std::fprintf(stderr, "j2kfront: warning: %s: %s", a.input.c_str(), r.warnings);
  if (!a.quiet)
    std::fprintf(a.output == "-" ? stderr : stdout,
                 "j2kfront: %s -> %s: %llu code-blocks re-coded to %s, %d quality layer%s -> 1, %zu -> %zu bytes, "
                 "transcoded in %.1f ms (Tier-2 read %.1f, Tier-1 %.1f, Tier-2 write %.1f), %.1f ms in all\n",
                 a.input.c_str(), a.output.c_str(), static_cast<unsigned long long>(r.blocks), s.target == J2K_CODER_HT ? "HT" : "EBCOT",
                 r.layers, r.layers == 1 ? "" : "s", in.size(), size, ms, r.read_ms, r.tier1_ms, r.write_ms, ms_since(t_start));
  return 0;
}

}  // namespace

std::function<int()> add_transcode_command(CLI::App& app) {
  auto args = std::make_shared<TranscodeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "transcode",
      "Re-code a JPEG 2000 file's code-blocks between EBCOT (Part 1) and HT (HTJ2K, Part 15) without decoding it: the same "
      "coefficients, so the output decodes to exactly the input's image; several quality layers become one");
  cmd->add_option("-i,--input", args->input, "the JPEG 2000 file: a codestream (.j2k .j2c .jpc .jhc) or a JP2/JPH file (- reads standard input)")
      ->required();
  cmd->add_option("-o,--output", args->output,
                  "OUT.jhc or .jph (HT code-blocks), .j2k, .j2c, .jpc or .jp2 (EBCOT's unless --coder ht); a .jp2/.jph input "
                  "keeps its JP2 header boxes; - for standard output (the format from --OutFor)")
      ->required();
  cmd->add_option("--OutFor", args->out_format, "with -o -: its format, j2k (default), j2c, jpc, jhc, jp2 or jph");
  cmd->add_option("--coder", args->coder, "the code-blocks' coder: ht or ebcot (default: ht for .jhc/.jph, else ebcot)")
      ->check(CLI::IsMember({"ht", "ebcot", "HT", "EBCOT"}));
  cmd->add_option("--threads", args->threads, "CPU threads (default, 0: all cores)")->check(thread_count_check());
  cmd->add_option("--max-memory", args->max_memory, "host memory the transcode may take, e.g. 800M, 4G (default: half the RAM)");
  cmd->add_flag("--force", args->force, "replace an existing output file (never the input)");
  cmd->add_flag("--quiet", args->quiet, "print nothing but errors and warnings");
  cmd->footer(
      "Nothing is decoded to samples: each code-block is decoded to its quantisation indices and coded again, so a lossless "
      "file stays lossless and a lossy one decodes to the same image. The output has one quality layer (all of the input's "
      "passes) and one tile-part per tile; SIZ, quantisation, tiles, progression and POC, precincts, levels, code-block "
      "sizes, SOP/EPH, PLT/TLM, ROI and COM text stay.");
  return [args] { return run_transcode(*args); };
}

}  // namespace j2k::tools
