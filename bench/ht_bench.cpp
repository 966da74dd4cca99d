// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench --compress --ht` and `--decompress --ht`: HTJ2K (ISO/IEC 15444-15) file to
// file against OpenJPH's ojph_compress and ojph_expand, which run on one thread (they have no
// thread option), on the images the compress benchmark makes (bench_inputs). Each tool is a
// process of its own, timed from start to exit in rounds (time_in_rounds). Both coders: 6
// resolutions (5 decompositions), 64x64 code-blocks, RPCL (OpenJPH's default), codestreams
// (.j2c); lossless with the 5/3, lossy with the 9/7 at equal size: ojph_compress -qstep Q, then
// ours given its byte count (-r, corrected by the size it gave until within 0.5%).
// --compress --ht also times our own EBCOT compress on the same threads and settings; every
// stream is decoded back (ours by j2kfront decompress, OpenJPH's by ojph_expand) for the PSNR
// or the check that it is the input, and each by the other coder's decoder as well.
// --decompress --ht decodes ojph_compress's streams with j2kfront decompress (each back stage
// that runs here), ojph_expand, and opj_decompress and grk_decompress where they read them
// (OpenJPEG 2.5 decodes HT; Grok 10 only cleanup-only HT blocks, which are all OpenJPH
// writes); every output against ojph_expand's, and a lossless one against the input too.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "common/error.hpp"
#include "common/memory_pages.hpp"
#include "io/image_io.hpp"
#include "j2kfront/config.h"
#include "transform/dwt_engine.hpp"

namespace j2k::bench {
namespace {

namespace fs = std::filesystem;

constexpr const char* kNoOpenJph = "not found (Debian: openjph-tools)";

std::string cell(double v, const char* format) {
  char buf[32] = "-";
  if (!std::isnan(v)) std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string exact_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// The bytes of an image's samples as -r counts them: each sample at its precision.
double raw_bytes(const j2kfront::Image& image) {
  double raw = 0;
  for (const auto& c : image.components) raw += static_cast<double>(c.width * c.height) * c.precision / 8.0;
  return raw;
}

// The lossy rows' size where there is no ojph_compress to set it: 2 bits per pixel.
double two_bits_per_pixel(const j2kfront::Image& image) {
  return static_cast<double>(image.width) * image.height * 2 / 8.0;
}

std::vector<std::string> ojph_compress_args(const std::string& input, const std::string& out, bool lossy, double qstep) {
  std::vector<std::string> args{"ojph_compress", "-i",          input,     "-o",          out,   "-num_decomps",
                                "5",             "-block_size", "{64,64}", "-prog_order", "RPCL"};
  if (lossy)
    args.insert(args.end(), {"-qstep", exact_number(qstep)});
  else
    args.insert(args.end(), {"-reversible", "true"});
  return args;
}

// `j2kfront compress` with OpenJPH's settings; `ratio` empty: lossless, else -I -r ratio.
std::vector<std::string> our_compress_args(const CompressOptions& o, const std::string& input, const std::string& out, bool ht,
                                           const std::string& ratio) {
  std::vector<std::string> args{o.cli,         "compress", "-i",        input, "-o", out, "--force", "--threads",
                                std::to_string(o.threads), "--backend", o.backend, "-n", "6",  "-b",      "64,64",
                                "-p",          "RPCL"};
  if (ht) args.emplace_back("--ht");
  if (!ratio.empty()) args.insert(args.end(), {"-I", "-r", ratio});
  return args;
}

// Whether a command can be run: a path, or a name on PATH.
bool runnable(const std::string& command) {
  return command.find('/') != std::string::npos ? access(command.c_str(), X_OK) == 0 : tool_on_path(command);
}

// The first line of a log: why a tool failed, in a row.
std::string first_line(const std::string& log) {
  std::string text = slurp(log);
  const size_t start = text.find_first_not_of(" \n");
  if (start == std::string::npos) return "no message";
  text = text.substr(start, text.find('\n', start) - start);
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

// A decoder run once on a stream, and what it wrote.
struct Decoded {
  bool ok = false;
  j2kfront::Image image;
  std::string why;  // !ok: the exit status and the log's first line
};
Decoded decode(std::vector<std::string> args, const std::string& out, const std::string& log) {
  std::error_code ec;
  fs::remove(out, ec);
  const Timed t = run_process(args, log);
  Decoded d;
  if (t.status != 0) {
    d.why = "cannot decode it (exit " + std::to_string(t.status) + ": " + first_line(log) + ")";
    return d;
  }
  try {
    d.image = io::read_image(out);
    d.ok = true;
  } catch (const std::exception& e) {
    d.why = std::string("its output cannot be read: ") + e.what();
  }
  return d;
}
std::vector<std::string> our_decompress_args(const CompressOptions& o, const std::string& stream, const std::string& out,
                                             const std::string& backend) {
  return {o.cli, "decompress", "-i", stream, "-o", out, "--force", "--quiet", "--threads", std::to_string(o.threads),
          "--backend", backend};
}

// "= X" where the samples are the same, else by how much they differ.
std::string versus(double diff, const std::string& what) {
  if (diff == 0) return "= " + what;
  if (diff < 0) return "DIFFERS in shape from " + what;
  return "max diff " + exact_number(diff) + " from " + what;
}

// Our compress at `target` bytes: -r from the raw size, corrected by the size each run gave
// (at most 4 runs, untimed) until within 0.5%; the -r of the closest run.
std::string ratio_for(const CompressOptions& o, const std::string& input, double raw, double target, bool ht,
                      const std::string& out, const std::string& log) {
  double ratio = raw / target, best_ratio = ratio, best_error = INFINITY;
  for (int run = 0; run < 4; ++run) {
    if (run_process(our_compress_args(o, input, out, ht, exact_number(ratio)), log).status != 0)
      throw Error(ErrorCode::Internal, "j2kfront compress at -r " + exact_number(ratio) + " failed on " + input + ":\n" + slurp(log));
    const auto bytes = static_cast<double>(fs::file_size(out));
    const double error = std::abs(bytes / target - 1);
    if (error < best_error) best_error = error, best_ratio = ratio;
    if (error < 0.005) break;
    ratio *= bytes / target;
  }
  return exact_number(best_ratio);
}

struct Coder {
  std::string name;
  int threads;
  std::vector<std::string> args;
  std::string out, log;
  bool ours, ht;
};

// The run's decodings that were not what they should be, as one error (after the table).
void fail_on(const std::vector<std::string>& failures) {
  if (failures.empty()) return;
  std::string all;
  for (const std::string& f : failures) all += "\n  " + f;
  throw Error(ErrorCode::Internal, "HT streams not decoded as they should be:" + all);
}

}  // namespace

int run_compress_ht(const CompressOptions& o) {
  start_launcher();  // before the images: each tool's peak memory its own
  const ScratchDir scratch;
  const std::string& dir = scratch.path;
  const std::vector<std::string> inputs = bench_inputs(o, dir);
  const bool have_ojph = tool_on_path("ojph_compress"), have_expand = tool_on_path("ojph_expand");
  if (!have_ojph) std::printf("ojph_compress %s: no OpenJPH rows; the lossy rows at 2 bits per pixel\n", kNoOpenJph);
  if (!have_expand) std::printf("ojph_expand %s: OpenJPH's streams unchecked, ours not read by OpenJPH\n", kNoOpenJph);
  std::printf("memory: %s\n", j2k::huge_pages_description().c_str());
  std::printf("threads: %d for ours%s; ojph_compress on one (it has no thread option), so vs ojph is its one-thread time over "
              "ours on %d\n",
              o.threads, on_cpus(o).c_str(), o.threads);
  std::printf("both: 6 resolutions, 64x64 blocks, RPCL, codestream (.j2c); lossless 5/3; lossy 9/7, ojph_compress -qstep %s, "
              "ours -I -r at its size; our front stage on backend %s%s\n",
              exact_number(o.qstep).c_str(), o.backend.c_str(),
              o.backend == "cuda" ? " (and the lossless rows' HT Tier-1: no target)" : "");
  CsvFile csv(o.csv, {"image", "mode", "tool", "threads", "ms", "speed_vs_ojph", "speed_vs_ebcot", "bytes", "bytes_vs_ojph",
                      "psnr_db", "exact", "other_decoder_max_diff", "read_ms", "front_ms", "tier1_ms", "rate_ms", "tier2_ms",
                      "write_ms", "peak_mib"});
  std::printf("\n%-20s %-8s %-15s %3s %9s %10s %8s %9s %11s %8s %8s  %s\n", "image", "mode", "tool", "thr", "ms", "vs ojph 1t",
              "vs EBCOT", "peak MiB", "bytes", "/ ojph", "PSNR dB", "decoded");
  std::vector<std::string> failures;
  const std::string log = dir + "/log.txt";
  for (const std::string& input : inputs) {
    const std::string name = fs::path(input).filename().string();
    const std::string ext = fs::path(input).extension().string();  // .ppm or .pgm
    const j2kfront::Image original = io::read_image(input);
    const double raw = raw_bytes(original);
    for (const bool lossy : {false, true}) {
      const std::string mode = lossy ? "lossy" : "lossless";
      std::vector<Coder> coders;
      if (have_ojph)
        coders.push_back({"ojph_compress", 1, ojph_compress_args(input, dir + "/ojph.j2c", lossy, o.qstep), dir + "/ojph.j2c",
                          dir + "/log-ojph.txt", false, true});
      // Lossy: ours at ojph_compress's size (or 2 bits per pixel).
      std::string ht_ratio, ebcot_ratio;
      if (lossy) {
        double target = two_bits_per_pixel(original);
        if (have_ojph) {
          if (run_process(coders[0].args, log).status != 0)
            throw Error(ErrorCode::Internal, "ojph_compress failed on " + input + ":\n" + slurp(log));
          target = static_cast<double>(fs::file_size(coders[0].out));
        }
        ht_ratio = ratio_for(o, input, raw, target, true, dir + "/ours-ht.j2c", log);
        ebcot_ratio = ratio_for(o, input, raw, target, false, dir + "/ours-ebcot.j2c", log);
      }
      if (lossy && have_ojph) {
        // OpenJPH's own settings: the same quantisation (--qstep), every block coded down to
        // its step, no rate control.
        std::vector<std::string> args = our_compress_args(o, input, dir + "/ours-qstep.j2c", true, "");
        args.insert(args.end(), {"-I", "--qstep", exact_number(o.qstep)});
        coders.push_back({"j2kfront --qstep", o.threads, args, dir + "/ours-qstep.j2c", dir + "/log-qstep.txt", true, true});
      }
      coders.push_back({lossy ? "j2kfront --ht -r" : "j2kfront --ht", o.threads,
                        our_compress_args(o, input, dir + "/ours-ht.j2c", true, ht_ratio), dir + "/ours-ht.j2c",
                        dir + "/log-ht.txt", true, true});
      coders.push_back({"j2kfront EBCOT", o.threads, our_compress_args(o, input, dir + "/ours-ebcot.j2c", false, ebcot_ratio),
                        dir + "/ours-ebcot.j2c", dir + "/log-ebcot.txt", true, false});
      const Rounds rounds = time_in_rounds(coders.size(), o.repeats, [&](size_t k) {
        std::error_code ec;
        fs::remove(coders[k].out, ec);
        const Timed t = run_process(coders[k].args, coders[k].log);
        if (t.status != 0)
          throw Error(ErrorCode::Internal, coders[k].name + " failed (exit " + std::to_string(t.status) + ") on " + input + ":\n" +
                                               slurp(coders[k].log));
        return t;
      });
      const std::vector<std::vector<double>>& times = rounds.ms;
      const size_t at_ebcot = coders.size() - 1;
      const double ojph_bytes = have_ojph ? static_cast<double>(fs::file_size(coders[0].out)) : NAN;
      if (!have_ojph) std::printf("%-20s %-8s %-15s %s\n", name.c_str(), mode.c_str(), "ojph_compress", kNoOpenJph);
      for (size_t k = 0; k < coders.size(); ++k) {
        const Coder& c = coders[k];
        const double ms = median(times[k]), peak = median(rounds.peak_mib[k]);
        const double vs_ojph = have_ojph ? median_ratio(times, 0, k) : NAN;
        const double vs_ebcot = median_ratio(times, at_ebcot, k);
        const auto bytes = static_cast<double>(fs::file_size(c.out));
        // The stream by its own coder's decoder, then by the other's (HT streams only).
        const std::string mine = dir + "/mine" + ext, other = dir + "/other" + ext;
        Decoded own, cross;
        std::string cross_name;
        if (c.ours) {
          own = decode(our_decompress_args(o, c.out, mine, "cpu"), mine, log);
          if (!own.ok) throw Error(ErrorCode::Internal, "j2kfront decompress cannot read " + c.name + "'s stream: " + own.why);
          if (c.ht && have_expand) cross = decode({"ojph_expand", "-i", c.out, "-o", other}, other, log), cross_name = "ojph_expand";
        } else {
          if (have_expand) own = decode({"ojph_expand", "-i", c.out, "-o", mine}, mine, log);
          cross = decode(our_decompress_args(o, c.out, other, "cpu"), other, log), cross_name = "j2kfront";
        }
        double psnr_db = NAN, cross_diff = NAN;
        int exact = -1;
        std::vector<std::string> notes;
        if (own.ok && !lossy) {
          const double diff = max_difference(original, own.image);
          exact = diff == 0 ? 1 : 0;
          notes.push_back(versus(diff, "input"));
          if (!exact && c.ours) failures.push_back(name + " " + c.name + ": decoded " + notes.back());
        }
        if (own.ok && lossy) psnr_db = psnr(original, own.image);
        if (!own.ok && !c.ours) notes.push_back(have_expand ? "ojph_expand " + own.why : "ojph_expand " + std::string(kNoOpenJph));
        if (!cross_name.empty()) {
          if (!cross.ok) {
            notes.push_back(cross_name + " " + cross.why);
            failures.push_back(name + " " + mode + " " + c.name + "'s stream: " + cross_name + " " + cross.why);
          } else if (own.ok) {
            cross_diff = max_difference(own.image, cross.image);
            notes.push_back(cross_name + " " + versus(cross_diff, c.ours ? "ours" : "ojph_expand's"));
            // Lossless decoding is exact whoever decodes; the 9/7 may round apart.
            if (cross_diff != 0 && !lossy) failures.push_back(name + " " + c.name + ": " + notes.back());
          } else if (!lossy) {
            const double diff = max_difference(original, cross.image);
            notes.push_back(cross_name + " " + versus(diff, "input"));
            if (diff != 0) failures.push_back(name + " " + c.name + ": " + notes.back());
          }
        }
        std::string decoded;
        for (const std::string& n : notes) decoded += (decoded.empty() ? "" : "; ") + n;
        std::printf("%-20s %-8s %-15s %3d %9.1f %10s %8s %9.1f %11.0f %8s %8s  %s\n", name.c_str(), mode.c_str(), c.name.c_str(),
                    c.threads, ms, cell(vs_ojph, "%.2fx").c_str(), cell(vs_ebcot, "%.2fx").c_str(), peak, bytes,
                    cell(bytes / ojph_bytes, "%.4fx").c_str(), cell(psnr_db, "%.3f").c_str(), decoded.c_str());
        const std::vector<double> split = c.ours ? time_split(c.log) : std::vector<double>{};
        if (!split.empty())
          std::printf("%-20s %-8s   read %.0f, front stage %.0f, Tier-1 %.0f, rate %.0f, Tier-2 %.0f, write %.0f ms\n", "", "",
                      split[0], split[1], split[2], split[3], split[4], split[5]);
        std::vector<CsvField> fields{name,  mode,    c.name,  c.threads, ms,   vs_ojph,    vs_ebcot, bytes,
                                     bytes / ojph_bytes, psnr_db, exact, cross_diff};
        for (size_t s = 0; s < 6; ++s) fields.push_back(s < split.size() ? split[s] : NAN);
        fields.push_back(peak);
        csv.row(fields);
      }
      if (lossy)
        std::printf("%-20s %-8s   ours at %s: --ht -r %s, EBCOT -r %s%s\n", "", "",
                    have_ojph ? "ojph_compress's size" : "2 bits per pixel", ht_ratio.c_str(), ebcot_ratio.c_str(),
                    have_ojph ? ("; --qstep: --ht -I --qstep " + exact_number(o.qstep) + ", ojph_compress's settings").c_str() : "");
      std::fflush(stdout);
    }
  }
  csv.commit();
  std::printf("\nms: wall time of the process from start to exit, file to file, median of %d rounds after one warm-up, each "
              "round every coder once in turn; vs ojph 1t: the median over the rounds of ojph_compress's time (one thread) / "
              "this time (above 1: faster); vs EBCOT: the same with our EBCOT compress's time (same threads); peak MiB: the "
              "process's largest resident set (its ru_maxrss), median over the rounds; bytes / "
              "ojph_compress's; PSNR of each stream as its own coder's decoder reads it (ours: j2kfront decompress, "
              "OpenJPH's: ojph_expand) against the input; decoded: that decoding against the input (lossless), then the "
              "other coder's decoding of the same stream against it.\n",
              o.repeats);
  fail_on(failures);
  return 0;
}

int run_decompress_ht(const CompressOptions& o) {
  start_launcher();  // before the images: each tool's peak memory its own
  const ScratchDir scratch;
  const std::string& dir = scratch.path;
  const bool have_ojph = tool_on_path("ojph_compress");
  if (!have_ojph) std::printf("ojph_compress %s: the streams are ours (j2kfront compress --ht)\n", kNoOpenJph);
  // Our decoder once per back stage that runs here.
  const std::vector<std::string> backends = decoder_backends();
  const std::vector<std::string> inputs = bench_inputs(o, dir);
  const std::string threads = std::to_string(o.threads);
  std::printf("memory: %s\n", j2k::huge_pages_description().c_str());
  std::printf("threads: %d for j2kfront, opj_decompress and grk_decompress%s; ojph_expand on one (it has no thread option), so "
              "vs ojph is its one-thread time over theirs\n",
              o.threads, on_cpus(o).c_str());
  std::printf("streams: %s, 6 resolutions, 64x64 blocks, RPCL; lossless 5/3; lossy 9/7, %s\n",
              have_ojph ? "ojph_compress's" : "j2kfront compress --ht's",
              have_ojph ? ("-qstep " + exact_number(o.qstep)).c_str() : "-I at 2 bits per pixel");
  std::printf("\n%-20s %-8s %-16s %3s %9s %10s %9s %12s  %s\n", "image", "mode", "tool", "thr", "ms", "vs ojph 1t", "peak MiB",
              "stream bytes", "output");
  CsvFile csv(o.csv, {"image", "mode", "tool", "threads", "ms", "speed_vs_ojph", "stream_bytes", "decodes", "max_diff_vs_reference",
                      "exact", "peak_mib"});
  std::vector<std::string> failures;
  const std::string log = dir + "/log.txt";
  for (const std::string& input : inputs) {
    const std::string name = fs::path(input).filename().string();
    const std::string ext = fs::path(input).extension().string();  // .ppm or .pgm
    const j2kfront::Image original = io::read_image(input);
    for (const bool lossy : {false, true}) {
      const std::string mode = lossy ? "lossy" : "lossless";
      const std::string stream = dir + "/stream.j2c";
      const std::vector<std::string> enc =
          have_ojph ? ojph_compress_args(input, stream, lossy, o.qstep)
                    : our_compress_args(o, input, stream, true,
                                        lossy ? exact_number(raw_bytes(original) / two_bits_per_pixel(original)) : "");
      if (run_process(enc, log).status != 0) throw Error(ErrorCode::Internal, enc[0] + " failed on " + input + ":\n" + slurp(log));
      const auto bytes = static_cast<double>(fs::file_size(stream));
      struct Decoder {
        std::string name;
        int threads;
        std::vector<std::string> args;
        std::string out;
        bool ours;
        Decoded first;  // its untimed first run
      };
      std::vector<Decoder> decoders;
      decoders.push_back({"ojph_expand", 1, {"ojph_expand", "-i", stream, "-o", dir + "/ojph" + ext}, dir + "/ojph" + ext, false, {}});
      for (const std::string& b : backends) {
        const std::string out = dir + "/ours-" + b + ext;
        decoders.push_back({b == "cpu" ? "j2kfront" : "j2kfront " + b, o.threads, our_decompress_args(o, stream, out, b), out, true, {}});
      }
      decoders.push_back({"opj_decompress", o.threads, {"opj_decompress", "-i", stream, "-o", dir + "/opj" + ext, "-threads", threads},
                          dir + "/opj" + ext, false, {}});
      decoders.push_back({"grk_decompress", o.threads, {"grk_decompress", "-i", stream, "-o", dir + "/grk" + ext, "-H", threads},
                          dir + "/grk" + ext, false, {}});
      // Each decoder once, untimed: which read the stream, and what they make of it.
      std::vector<size_t> timed;
      for (size_t k = 0; k < decoders.size(); ++k) {
        Decoder& d = decoders[k];
        if (!runnable(d.args[0])) continue;
        d.first = decode(d.args, d.out, log);
        if (d.first.ok) timed.push_back(k);
      }
      // The outputs compared with ojph_expand's, or without it with ours.
      const size_t at_reference = decoders[0].first.ok ? 0 : 1;
      const Decoded& reference = decoders[at_reference].first;
      const std::string reference_name = at_reference == 0 ? "ojph_expand's" : "j2kfront's";
      const Rounds rounds = time_in_rounds(timed.size(), o.repeats, [&](size_t k) {
        const Decoder& d = decoders[timed[k]];
        std::error_code ec;
        fs::remove(d.out, ec);
        const Timed t = run_process(d.args, log);
        if (t.status != 0)
          throw Error(ErrorCode::Internal, d.name + " failed (exit " + std::to_string(t.status) + ") on " + input + ":\n" + slurp(log));
        return t;
      });
      const std::vector<std::vector<double>>& times = rounds.ms;
      for (size_t k = 0; k < decoders.size(); ++k) {
        const Decoder& d = decoders[k];
        const size_t at = static_cast<size_t>(std::find(timed.begin(), timed.end(), k) - timed.begin());
        const bool ran = at < timed.size();
        const double ms = ran ? median(times[at]) : NAN, peak = ran ? median(rounds.peak_mib[at]) : NAN;
        const double vs_ojph = ran && decoders[0].first.ok ? median_ratio(times, 0, at) : NAN;
        std::string output;
        double diff = NAN;
        int exact = -1;
        if (!runnable(d.args[0])) {
          output = k == 0 ? kNoOpenJph : d.name == "opj_decompress" ? "not found (Debian: libopenjp2-tools)"
                                                                    : "not found (Debian: grokj2k-tools)";
        } else if (!ran) {
          output = d.first.why;
          if (d.ours) failures.push_back(name + " " + mode + " " + d.name + ": " + d.first.why);
        } else {
          std::vector<std::string> notes;
          if (!lossy) {
            const double in = max_difference(original, d.first.image);
            exact = in == 0 ? 1 : 0;
            notes.push_back(versus(in, "input"));
            if (in != 0 && d.ours) failures.push_back(name + " " + mode + " " + d.name + ": " + notes.back());
          }
          if (k == at_reference && lossy) {
            notes.push_back("the reference");
          } else if (reference.ok && k != at_reference) {
            diff = max_difference(reference.image, d.first.image);
            notes.push_back(versus(diff, reference_name));
          }
          for (const std::string& n : notes) output += (output.empty() ? "" : ", ") + n;
        }
        std::printf("%-20s %-8s %-16s %3d %9s %10s %9s %12.0f  %s\n", name.c_str(), mode.c_str(), d.name.c_str(), d.threads,
                    cell(ms, "%.1f").c_str(), cell(vs_ojph, "%.2fx").c_str(), cell(peak, "%.1f").c_str(), bytes, output.c_str());
        csv.row({name, mode, d.name, d.threads, ms, vs_ojph, bytes, ran ? 1 : 0, diff, exact, peak});
      }
      std::fflush(stdout);
    }
  }
  csv.commit();
  std::printf("\nms: wall time of the process from start to exit, file to file (PPM/PGM out), median of %d rounds after one "
              "warm-up, each round every decoder that reads the stream once in turn; vs ojph 1t: the median over the rounds "
              "of ojph_expand's time (one thread) / this time (above 1: faster); peak MiB: the process's largest resident set "
              "(its ru_maxrss), median over the rounds; output: against the input (lossless) and "
              "against ojph_expand's output, sample for sample.\n",
              o.repeats);
  fail_on(failures);
  return 0;
}

}  // namespace j2k::bench
