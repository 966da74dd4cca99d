// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench --compress`: `j2kfront compress` file to file against opj_compress and
// grk_compress on the same image, same settings and threads, in one run. Each tool runs as a
// process of its own, timed from start to exit in rounds (time_in_rounds: one untimed round
// that warms the page cache, then every tool once a round, in turn); sizes and PSNRs are read
// back with opj_decompress. Ours runs twice, with EBCOT code-blocks ("j2kfront") and with HT
// ones ("j2kfront --ht"); each row also has the tool's peak memory (run_process); --threads
// 1,2,4 gives every tool's rows at each count (sweep()). With --directory N, each tool
// compresses a folder of N copies of each image in one process (opj_compress -ImgDir,
// grk_compress -in_dir, ours -i DIR -o DIR): a batch job, where start-up (a GPU's above all) is
// paid once per folder.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "bench/bench.hpp"
#include "common/error.hpp"
#include "io/image_io.hpp"

namespace j2k::bench {
namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<double> time_split(const std::string& log) {
  const std::string text = slurp(log);
  const size_t at = text.find("  read ");
  double s[6] = {0};
  if (at == std::string::npos ||
      std::sscanf(text.c_str() + at, "  read %lf ms, front stage %lf, Tier-1 %lf, rate control %lf, Tier-2 %lf, write %lf", &s[0],
                  &s[1], &s[2], &s[3], &s[4], &s[5]) != 6)
    return {};
  return std::vector<double>(s, s + 6);
}

std::vector<std::string> bench_inputs(const CompressOptions& o, const std::string& dir) {
  if (!o.inputs.empty()) return o.inputs;
  std::vector<std::string> inputs;
  for (const auto& [name, sample, wide] : {std::tuple{"rgb", "astronaut.ppm", false}, std::tuple{"grey16", "moon.pgm", true}}) {
    if (std::find(o.made.begin(), o.made.end(), name) == o.made.end()) continue;
    const std::string path = o.samples + "/" + sample;
    if (!fs::exists(path))
      throw Error(ErrorCode::InvalidArgument, path + " not found: run from the source tree, or give --samples DIR or --inputs FILES");
    std::printf("making %s at %lld x %lld%s ...\n", sample, static_cast<long long>(o.size), static_cast<long long>(o.size),
                wide ? ", 16 bits" : "");
    std::fflush(stdout);
    inputs.push_back(make_input(path, o.size, wide, dir));
  }
  return inputs;
}

double psnr(const j2kfront::Image& original, const j2kfront::Image& decoded) {
  double se = 0, peak = 0;
  for (size_t c = 0; c < original.components.size(); ++c) {
    const auto& a = original.components[c];
    const auto& b = decoded.components.at(c);
    if (a.width != b.width || a.height != b.height || a.type != b.type) return -1;
    const double max = std::ldexp(1.0, a.precision) - 1;
    for (int64_t y = 0; y < a.height; ++y)
      for (int64_t x = 0; x < a.width; ++x) {
        const double d = a.sample_size() == 2 ? double(a.row<uint16_t>(y)[x]) - double(b.row<uint16_t>(y)[x])
                                              : double(a.row<uint8_t>(y)[x]) - double(b.row<uint8_t>(y)[x]);
        se += d * d;
        peak += max * max;
      }
  }
  return se == 0 ? INFINITY : 10 * std::log10(peak / se);
}

double max_difference(const j2kfront::Image& a, const j2kfront::Image& b) {
  if (a.components.size() != b.components.size()) return -1;
  double most = 0;
  for (size_t c = 0; c < a.components.size(); ++c) {
    const auto& p = a.components[c];
    const auto& q = b.components[c];
    if (p.width != q.width || p.height != q.height || p.type != q.type) return -1;
    for (int64_t y = 0; y < p.height; ++y)
      for (int64_t x = 0; x < p.width; ++x) {
        const double d = p.sample_size() == 2 ? double(p.row<uint16_t>(y)[x]) - double(q.row<uint16_t>(y)[x])
                                              : double(p.row<uint8_t>(y)[x]) - double(q.row<uint8_t>(y)[x]);
        most = std::max(most, std::abs(d));
      }
  }
  return most;
}

namespace {

struct Tool {
  std::string name;
  std::vector<std::string> args;  // without the output
};

std::string cell(double v, const char* format) {
  char buf[32] = "-";
  if (!std::isnan(v)) std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// The folder benchmark: per input, N copies in a folder; per tool, mode and thread count one
// process over the folder, timed as the single files are; the bytes are the folder's outputs
// together.
void run_directories(const CompressOptions& o, const std::vector<std::string>& inputs, const std::string& dir,
                     bool have_opj, bool have_grk, CsvFile& csv) {
  std::printf("\n%-22s %-9s %-24s %3s %10s %8s %9s %10s %12s %9s\n", "folder", "mode", "tool", "thr", "ms", "vs opj", "peak MiB",
              "ms/image", "bytes", "vs opj");
  for (const std::string& input : inputs) {
    const std::string name = fs::path(input).filename().string();
    const std::string folder = dir + "/in-" + fs::path(input).stem().string();
    const std::string opj_folder = folder + "-opj";  // opj_compress writes beside its inputs
    for (const std::string& f : {folder, opj_folder}) {
      fs::create_directories(f);
      for (int k = 0; k < o.directory; ++k)
        fs::copy_file(input, f + "/" + std::to_string(k) + fs::path(input).extension().string(),
                      fs::copy_options::overwrite_existing);
    }
    const std::string label = name + " x" + std::to_string(o.directory);
    for (const bool lossy : {false, true})
      for (const int thread_count : sweep(o)) {
        const std::string threads = std::to_string(thread_count);
        const std::vector<std::string> mode = lossy ? std::vector<std::string>{"-I", "-r", "20"} : std::vector<std::string>{};
        // Each tool's outputs in a folder of its own (opj_compress's beside its inputs), which
        // its last run leaves for the byte count.
        const std::string ours_out = dir + "/out-ours", grk_out = dir + "/out-grk";
        std::vector<Tool> tools;
        std::vector<std::string> outputs;
        tools.push_back({"j2kfront", {o.cli, "compress", "-i", folder, "-o", ours_out, "--force", "--quiet", "--threads", threads,
                                      "--backend", o.backend, "-n", "6", "-b", "64,64"}});
        outputs.push_back(ours_out);
        if (have_opj) {
          tools.push_back({"opj_compress", {"opj_compress", "-ImgDir", opj_folder, "-OutFor", "J2K", "-threads", threads, "-n",
                                            "6", "-b", "64,64"}});
          outputs.push_back(opj_folder);
        }
        if (have_grk) {
          tools.push_back({"grk_compress", {"grk_compress", "-in_dir", folder, "-out_fmt", "J2K", "-out_dir", grk_out, "-H",
                                            threads, "-n", "6", "-b", "64,64"}});
          outputs.push_back(grk_out);
        }
        const std::string log = dir + "/log.txt";
        const Rounds rounds = time_in_rounds(tools.size(), o.repeats, [&](size_t k) {
          const Tool& t = tools[k];
          std::vector<std::string> args = t.args;
          args.insert(args.end(), mode.begin(), mode.end());
          std::error_code ec;  // the outputs only: opj_compress's lie beside its inputs
          if (t.name == "opj_compress") {
            for (const auto& e : fs::directory_iterator(opj_folder))
              if (e.path().extension() == ".J2K") fs::remove(e.path(), ec);
          } else {
            fs::remove_all(outputs[k], ec);
          }
          if (t.name == "grk_compress") fs::create_directories(outputs[k]);
          const Timed tm = run_process(args, log);
          if (tm.status != 0)
            throw Error(ErrorCode::Internal, t.name + " failed (exit " + std::to_string(tm.status) + ") on " + folder + ":\n" + slurp(log));
          return tm;
        });
        const size_t at_opj = have_opj ? 1 : tools.size();
        double opj_bytes = 0;
        std::vector<std::tuple<std::string, double, double, double, double>> rows;  // tool, ms, bytes, speed, peak
        for (size_t k = 0; k < tools.size(); ++k) {
          double bytes = 0;
          int files = 0;
          for (const auto& e : fs::directory_iterator(outputs[k]))
            if (e.path().extension() == ".j2k" || e.path().extension() == ".J2K") bytes += static_cast<double>(fs::file_size(e.path())), ++files;
          if (files != o.directory)
            throw Error(ErrorCode::Internal, tools[k].name + " wrote " + std::to_string(files) + " files for " + std::to_string(o.directory) + " images");
          if (k == at_opj) opj_bytes = bytes;
          rows.push_back({tools[k].name, median(rounds.ms[k]), bytes, have_opj ? median_ratio(rounds.ms, at_opj, k) : NAN,
                          median(rounds.peak_mib[k])});
        }
        for (const auto& [tool, ms, bytes, speed, peak] : rows) {
          const double size = opj_bytes > 0 ? bytes / opj_bytes : NAN;
          std::printf("%-22s %-9s %-24s %3d %10.1f %8s %9.1f %10.1f %12.0f %9s\n", label.c_str(), lossy ? "-I -r 20" : "lossless",
                      tool.c_str(), thread_count, ms, cell(speed, "%.2fx").c_str(), peak, ms / o.directory, bytes,
                      cell(size, "%.4fx").c_str());
          std::vector<CsvField> fields{label, lossy ? "r20" : "lossless", tool, thread_count, ms, speed, bytes, size, NAN};
          for (int k = 0; k < 6; ++k) fields.push_back(NAN);
          fields.push_back(peak);
          csv.row(fields);
        }
        std::fflush(stdout);
      }
  }
}

}  // namespace

int run_compress(const CompressOptions& o) {
  start_launcher();  // before the images: each tool's peak memory its own
  const ScratchDir scratch;
  const std::string& dir = scratch.path;
  const std::vector<std::string> inputs = bench_inputs(o, dir);
  const bool have_opj = tool_on_path("opj_compress") && tool_on_path("opj_decompress");
  const bool have_grk = tool_on_path("grk_compress");
  if (!have_opj) std::printf("opj_compress/opj_decompress not found (Debian: libopenjp2-tools): our rows only\n");
  if (!have_grk) std::printf("grk_compress not found (Debian: grokj2k-tools): no Grok rows\n");
  std::printf("threads: %s for every tool%s; our front stage on backend %s\n", sweep_text(o).c_str(), on_cpus(o).c_str(),
              o.backend.c_str());

  CsvFile csv(o.csv, {"image", "mode", "tool", "threads", "ms", "speed_vs_opj", "bytes", "bytes_vs_opj", "psnr_db",
                      "read_ms", "front_ms", "tier1_ms", "rate_ms", "tier2_ms", "write_ms", "peak_mib"});
  const char* peak_note = "peak MiB: the process's largest resident set (its ru_maxrss), median over the rounds";
  if (o.directory > 0) {
    run_directories(o, inputs, dir, have_opj, have_grk, csv);
    csv.commit();
    std::printf("\nms: wall time of one process compressing the folder, from start to exit, median of %d rounds after "
                "one warm-up, each round every tool once in turn; vs opj: the median over the rounds of opj_compress's "
                "time / this time (above 1: faster); %s; bytes: the folder's outputs, / opj_compress's.\n",
                o.repeats, peak_note);
    return 0;
  }
  std::printf("\n%-22s %-9s %-24s %3s %10s %8s %9s %12s %9s %9s\n", "image", "mode", "tool", "thr", "ms", "vs opj", "peak MiB",
              "bytes", "vs opj", "PSNR dB");
  for (const std::string& input : inputs) {
    const std::string name = fs::path(input).filename().string();
    const j2kfront::Image original = io::read_image(input);
    const bool grey = original.components.size() == 1;
    double raw = 0;
    for (const auto& c : original.components) raw += static_cast<double>(c.width * c.height) * c.precision / 8.0;
    for (const bool lossy : {false, true})
      for (const int thread_count : sweep(o)) {
        const std::string threads = std::to_string(thread_count);
        const std::vector<std::string> mode = lossy ? std::vector<std::string>{"-I", "-r", "20"} : std::vector<std::string>{};
        // Ours with EBCOT code-blocks and with HT ones (Part 15), then the others.
        const std::vector<std::string> ours{o.cli, "compress", "-i", input, "--force", "--threads", threads, "--backend", o.backend,
                                            "-n", "6", "-b", "64,64"};
        std::vector<Tool> tools{{"j2kfront", ours}, {"j2kfront --ht", ours}};
        tools[1].args.emplace_back("--ht");
        const size_t ours_count = tools.size();
        if (have_opj) tools.push_back({"opj_compress", {"opj_compress", "-i", input, "-threads", threads, "-n", "6", "-b", "64,64"}});
        if (have_grk) tools.push_back({"grk_compress", {"grk_compress", "-i", input, "-H", threads, "-n", "6", "-b", "64,64"}});
        const size_t at_opj = have_opj ? ours_count : tools.size();
        double opj_bytes = 0;
        struct Row {
          std::string tool;
          double ms, speed, peak, bytes, psnr;
          std::vector<double> stages;
        };
        // Each tool's output file and log of its own, which its last run leaves.
        auto out_of = [&](size_t k) { return dir + "/out-" + std::to_string(k) + ".j2k"; };
        auto log_of = [&](size_t k) { return dir + "/log-" + std::to_string(k) + ".txt"; };
        const Rounds rounds = time_in_rounds(tools.size(), o.repeats, [&](size_t k) {
          std::vector<std::string> args = tools[k].args;
          args.insert(args.end(), mode.begin(), mode.end());
          args.insert(args.end(), {"-o", out_of(k)});
          fs::remove(out_of(k));
          const Timed tm = run_process(args, log_of(k));
          if (tm.status != 0)
            throw Error(ErrorCode::Internal, tools[k].name + " failed (exit " + std::to_string(tm.status) + ") on " + input + ":\n" +
                                                 slurp(log_of(k)));
          return tm;
        });
        std::vector<Row> rows;
        for (size_t k = 0; k < tools.size(); ++k) {
          const std::string out = out_of(k), log = log_of(k);
          Row row{tools[k].name, median(rounds.ms[k]), have_opj ? median_ratio(rounds.ms, at_opj, k) : NAN,
                  median(rounds.peak_mib[k]), static_cast<double>(fs::file_size(out)), NAN, {}};
          if (k < ours_count && (row.stages = time_split(log)).empty())
            throw Error(ErrorCode::Internal, "j2kfront compress printed no time split:\n" + slurp(log));
          if (lossy && have_opj) {
            const std::string decoded = dir + (grey ? "/decoded.pgm" : "/decoded.ppm");
            if (run_process({"opj_decompress", "-i", out, "-o", decoded}, log).status != 0)
              throw Error(ErrorCode::Internal, "opj_decompress cannot read " + tools[k].name + "'s file:\n" + slurp(log));
            row.psnr = psnr(original, io::read_image(decoded));
          }
          if (k == at_opj) opj_bytes = row.bytes;
          rows.push_back(row);
        }
        // Ours at exactly opj_compress's size, for PSNR at equal size (not timed; once, at the
        // sweep's first thread count: the bytes do not depend on the threads).
        if (lossy && have_opj && thread_count == sweep(o).front()) {
          char ratio[64];
          std::snprintf(ratio, sizeof ratio, "%.9g", raw / opj_bytes);
          const std::string out = dir + "/ours-same.j2k", log = dir + "/log.txt";
          const std::string decoded = dir + (grey ? "/decoded.pgm" : "/decoded.ppm");
          if (run_process({o.cli, "compress", "-i", input, "-o", out, "--force", "--threads", threads, "--backend", o.backend, "-n", "6",
                           "-b", "64,64", "-I", "-r", ratio}, log).status != 0 ||
              run_process({"opj_decompress", "-i", out, "-o", decoded}, log).status != 0)
            throw Error(ErrorCode::Internal, "j2kfront at opj_compress's size failed:\n" + slurp(log));
          rows.push_back({"j2kfront at opj's size", NAN, NAN, NAN, static_cast<double>(fs::file_size(out)),
                          psnr(original, io::read_image(decoded)), {}});
        }
        for (const Row& r : rows) {
          std::printf("%-22s %-9s %-24s %3d %10s %8s %9s %12.0f %9s %9s\n", name.c_str(), lossy ? "-I -r 20" : "lossless",
                      r.tool.c_str(), thread_count, cell(r.ms, "%.1f").c_str(), cell(r.speed, "%.2fx").c_str(),
                      cell(r.peak, "%.1f").c_str(), r.bytes, cell(opj_bytes > 0 ? r.bytes / opj_bytes : NAN, "%.4fx").c_str(),
                      cell(r.psnr, "%.3f").c_str());
          if (!r.stages.empty())
            std::printf("%-22s %-9s   read %.0f, front stage %.0f, Tier-1 %.0f, rate %.0f, Tier-2 %.0f, write %.0f ms\n", "", "",
                        r.stages[0], r.stages[1], r.stages[2], r.stages[3], r.stages[4], r.stages[5]);
          std::vector<CsvField> fields{name, lossy ? "r20" : "lossless", r.tool, thread_count, r.ms,
                                       r.speed, r.bytes, opj_bytes > 0 ? r.bytes / opj_bytes : NAN, r.psnr};
          for (size_t k = 0; k < 6; ++k) fields.push_back(k < r.stages.size() ? r.stages[k] : NAN);
          fields.push_back(r.peak);
          csv.row(fields);
        }
        std::fflush(stdout);
      }
  }
  csv.commit();
  std::printf("\nms: wall time of the process from start to exit, file to file, median of %d rounds after one warm-up, "
              "each round every tool once in turn; vs opj: the median over the rounds of opj_compress's time / this time "
              "(above 1: faster); %s; bytes / opj_compress's bytes; PSNR from opj_decompress's decoding against the "
              "input. j2kfront: EBCOT code-blocks; j2kfront --ht: HT code-blocks (Part 15), the same settings.\n",
              o.repeats, peak_note);
  return 0;
}

}  // namespace j2k::bench
