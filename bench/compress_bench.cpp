// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench --compress`: `j2kfront compress` file to file against opj_compress and
// grk_compress on the same image, same settings and threads, in one run. Each tool runs as a
// process of its own, timed from start to exit in rounds (time_in_rounds: one untimed round
// that warms the page cache, then every tool once a round, in turn); sizes and PSNRs are read
// back with opj_decompress. With --directory N, each tool compresses a folder of N copies of
// each image in one process (opj_compress -ImgDir, grk_compress -in_dir, ours -i DIR -o DIR):
// a batch job, where start-up (a GPU's above all) is paid once per folder.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "bench/bench.hpp"
#include "common/error.hpp"
#include "io/image_io.hpp"


namespace j2k::bench {
namespace fs = std::filesystem;

// Runs argv[0] (looked up on PATH) with its output into `log`, in the environment the benchmark
// started with; the exit status and wall time.
Timed run_process(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&io, 1, 2);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, argv[0], &io, nullptr, argv.data(), start_environment());
  posix_spawn_file_actions_destroy(&io);
  Timed t;
  if (err != 0) return t;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  t.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  t.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return t;
}

bool tool_on_path(const std::string& tool) {
  std::stringstream path(getenv("PATH") ? getenv("PATH") : "");
  for (std::string dir; std::getline(path, dir, ':');)
    if (!dir.empty() && access((dir + "/" + tool).c_str(), X_OK) == 0) return true;
  return false;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> bench_inputs(const CompressOptions& o, const std::string& dir) {
  if (!o.inputs.empty()) return o.inputs;
  std::vector<std::string> inputs;
  for (const auto& [sample, wide] : {std::pair{"astronaut.ppm", false}, std::pair{"moon.pgm", true}}) {
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

// The folder benchmark: per input, N copies in a folder; per tool and mode one process over
// the folder, timed as the single files are; the bytes are the folder's outputs together.
void run_directories(const CompressOptions& o, const std::vector<std::string>& inputs, const std::string& dir,
                     bool have_opj, bool have_grk, CsvFile& csv) {
  const std::string threads = std::to_string(o.threads);
  std::printf("\n%-22s %-9s %-24s %10s %8s %10s %12s %9s\n", "folder", "mode", "tool", "ms", "vs opj", "ms/image",
              "bytes", "vs opj");
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
    for (const bool lossy : {false, true}) {
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
      const std::vector<std::vector<double>> times = time_in_rounds(tools.size(), o.repeats, [&](size_t k) {
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
        return tm.ms;
      });
      const size_t at_opj = have_opj ? 1 : tools.size();
      double opj_bytes = 0;
      std::vector<std::tuple<std::string, double, double, double>> rows;  // tool, ms, bytes, speed
      for (size_t k = 0; k < tools.size(); ++k) {
        double bytes = 0;
        int files = 0;
        for (const auto& e : fs::directory_iterator(outputs[k]))
          if (e.path().extension() == ".j2k" || e.path().extension() == ".J2K") bytes += static_cast<double>(fs::file_size(e.path())), ++files;
        if (files != o.directory)
          throw Error(ErrorCode::Internal, tools[k].name + " wrote " + std::to_string(files) + " files for " + std::to_string(o.directory) + " images");
        if (k == at_opj) opj_bytes = bytes;
        rows.push_back({tools[k].name, median(times[k]), bytes, have_opj ? median_ratio(times, at_opj, k) : NAN});
      }
      for (const auto& [tool, ms, bytes, speed] : rows) {
        auto cell = [](double v, const char* format) {
          char buf[32] = "-";
          if (!std::isnan(v)) std::snprintf(buf, sizeof buf, format, v);
          return std::string(buf);
        };
        const double size = opj_bytes > 0 ? bytes / opj_bytes : NAN;
        std::printf("%-22s %-9s %-24s %10.1f %8s %10.1f %12.0f %9s\n", label.c_str(), lossy ? "-I -r 20" : "lossless",
                    tool.c_str(), ms, cell(speed, "%.2fx").c_str(), ms / o.directory, bytes, cell(size, "%.4fx").c_str());
        std::vector<CsvField> fields{label, lossy ? "r20" : "lossless", tool, o.threads, ms, speed, bytes, size, NAN};
        for (int k = 0; k < 6; ++k) fields.push_back(NAN);
        csv.row(fields);
      }
      std::fflush(stdout);
    }
  }
}

}  // namespace

int run_compress(const CompressOptions& o) {
  const ScratchDir scratch;
  const std::string& dir = scratch.path;
  const std::vector<std::string> inputs = bench_inputs(o, dir);
  const bool have_opj = tool_on_path("opj_compress") && tool_on_path("opj_decompress");
  const bool have_grk = tool_on_path("grk_compress");
  if (!have_opj) std::printf("opj_compress/opj_decompress not found (Debian: libopenjp2-tools): our rows only\n");
  if (!have_grk) std::printf("grk_compress not found (Debian: grokj2k-tools): no Grok rows\n");
  const std::string threads = std::to_string(o.threads);
  std::printf("threads: %d for every tool%s; our front stage on backend %s\n", o.threads, on_cpus(o).c_str(), o.backend.c_str());

  CsvFile csv(o.csv, {"image", "mode", "tool", "threads", "ms", "speed_vs_opj", "bytes", "bytes_vs_opj", "psnr_db",
                      "read_ms", "front_ms", "tier1_ms", "rate_ms", "tier2_ms", "write_ms"});
  if (o.directory > 0) {
    run_directories(o, inputs, dir, have_opj, have_grk, csv);
    csv.commit();
    std::printf("\nms: wall time of one process compressing the folder, from start to exit, median of %d rounds after "
                "one warm-up, each round every tool once in turn; vs opj: the median over the rounds of opj_compress's "
                "time / this time (above 1: faster); bytes: the folder's outputs, / opj_compress's.\n",
                o.repeats);
    return 0;
  }
  std::printf("\n%-22s %-9s %-24s %10s %8s %12s %9s %9s\n", "image", "mode", "tool", "ms", "vs opj", "bytes", "vs opj",
              "PSNR dB");
  for (const std::string& input : inputs) {
    const j2kfront::Image original = io::read_image(input);
    const bool grey = original.components.size() == 1;
    double raw = 0;
    for (const auto& c : original.components) raw += static_cast<double>(c.width * c.height) * c.precision / 8.0;
    for (const bool lossy : {false, true}) {
      const std::vector<std::string> mode = lossy ? std::vector<std::string>{"-I", "-r", "20"} : std::vector<std::string>{};
      std::vector<Tool> tools;
      Tool ours{"j2kfront",
                {o.cli, "compress", "-i", input, "--force", "--threads", threads, "--backend", o.backend, "-n", "6", "-b", "64,64"}};
      tools.push_back(ours);
      if (have_opj) tools.push_back({"opj_compress", {"opj_compress", "-i", input, "-threads", threads, "-n", "6", "-b", "64,64"}});
      if (have_grk) tools.push_back({"grk_compress", {"grk_compress", "-i", input, "-H", threads, "-n", "6", "-b", "64,64"}});
      double opj_bytes = 0;
      struct Row {
        std::string tool;
        double ms, speed, bytes, psnr;
        std::string split;
        std::vector<double> stages;
      };
      // Each tool's output file and log of its own, which its last run leaves.
      auto out_of = [&](size_t k) {
        return dir + "/" + (tools[k].name.substr(0, 3) == "j2k" ? "ours" : tools[k].name.substr(0, 3)) + ".j2k";
      };
      auto log_of = [&](size_t k) { return dir + "/log-" + std::to_string(k) + ".txt"; };
      const std::vector<std::vector<double>> times = time_in_rounds(tools.size(), o.repeats, [&](size_t k) {
        std::vector<std::string> args = tools[k].args;
        args.insert(args.end(), mode.begin(), mode.end());
        args.insert(args.end(), {"-o", out_of(k)});
        fs::remove(out_of(k));
        const Timed tm = run_process(args, log_of(k));
        if (tm.status != 0)
          throw Error(ErrorCode::Internal, tools[k].name + " failed (exit " + std::to_string(tm.status) + ") on " + input + ":\n" +
                                               slurp(log_of(k)));
        return tm.ms;
      });
      const size_t at_opj = have_opj ? 1 : tools.size();
      std::vector<Row> rows;
      for (size_t k = 0; k < tools.size(); ++k) {
        const Tool& t = tools[k];
        const std::string out = out_of(k), log = log_of(k);
        Row row{t.name, median(times[k]), have_opj ? median_ratio(times, at_opj, k) : NAN, static_cast<double>(fs::file_size(out)),
                NAN, "", {}};
        if (t.name.substr(0, 3) == "j2k") {  // "  read A ms, front stage B, Tier-1 C, rate control D, Tier-2 E, write F"
          const std::string text = slurp(log);
          const size_t at = text.find("  read ");
          double s[6] = {0};
          if (at == std::string::npos ||
              std::sscanf(text.c_str() + at, "  read %lf ms, front stage %lf, Tier-1 %lf, rate control %lf, Tier-2 %lf, write %lf",
                          &s[0], &s[1], &s[2], &s[3], &s[4], &s[5]) != 6)
            throw Error(ErrorCode::Internal, "j2kfront compress printed no time split:\n" + text);
          row.stages.assign(s, s + 6);
          char buf[160];
          std::snprintf(buf, sizeof buf, "read %.0f, front stage %.0f, Tier-1 %.0f, rate %.0f, Tier-2 %.0f, write %.0f ms",
                        s[0], s[1], s[2], s[3], s[4], s[5]);
          row.split = buf;
        }
        if (lossy && have_opj) {
          const std::string decoded = dir + (grey ? "/decoded.pgm" : "/decoded.ppm");
          if (run_process({"opj_decompress", "-i", out, "-o", decoded}, log).status != 0)
            throw Error(ErrorCode::Internal, "opj_decompress cannot read " + t.name + "'s file:\n" + slurp(log));
          row.psnr = psnr(original, io::read_image(decoded));
        }
        if (k == at_opj) opj_bytes = row.bytes;
        rows.push_back(row);
      }
      // Ours at exactly opj_compress's size, for PSNR at equal size (not timed).
      if (lossy && have_opj) {
        char ratio[64];
        std::snprintf(ratio, sizeof ratio, "%.9g", raw / opj_bytes);
        const std::string out = dir + "/ours-same.j2k", log = dir + "/log.txt";
        const std::string decoded = dir + (grey ? "/decoded.pgm" : "/decoded.ppm");
        if (run_process({o.cli, "compress", "-i", input, "-o", out, "--force", "--threads", threads, "--backend", o.backend, "-n", "6",
                 "-b", "64,64", "-I", "-r", ratio}, log).status != 0 ||
            run_process({"opj_decompress", "-i", out, "-o", decoded}, log).status != 0)
          throw Error(ErrorCode::Internal, "j2kfront at opj_compress's size failed:\n" + slurp(log));
        rows.push_back({"j2kfront at opj's size", NAN, NAN, static_cast<double>(fs::file_size(out)),
                        psnr(original, io::read_image(decoded)), "", {}});
      }
      for (const Row& r : rows) {
        const std::string name = fs::path(input).filename().string();
        auto cell = [](double v, const char* format) {
          char buf[32] = "-";
          if (!std::isnan(v)) std::snprintf(buf, sizeof buf, format, v);
          return std::string(buf);
        };
        std::printf("%-22s %-9s %-24s %10s %8s %12.0f %9s %9s\n", name.c_str(), lossy ? "-I -r 20" : "lossless",
                    r.tool.c_str(), cell(r.ms, "%.1f").c_str(), cell(r.speed, "%.2fx").c_str(),
                    r.bytes, cell(opj_bytes > 0 ? r.bytes / opj_bytes : NAN, "%.4fx").c_str(), cell(r.psnr, "%.3f").c_str());
        if (!r.split.empty()) std::printf("%-22s %-9s   %s\n", "", "", r.split.c_str());
        std::vector<CsvField> fields{name, lossy ? "r20" : "lossless", r.tool, o.threads, r.ms,
                                     r.speed, r.bytes, opj_bytes > 0 ? r.bytes / opj_bytes : NAN, r.psnr};
        for (size_t k = 0; k < 6; ++k) fields.push_back(k < r.stages.size() ? r.stages[k] : NAN);
        csv.row(fields);
      }
      std::fflush(stdout);
    }
  }
  csv.commit();
  std::printf("\nms: wall time of the process from start to exit, file to file, median of %d rounds after one warm-up, "
              "each round every tool once in turn; vs opj: the median over the rounds of opj_compress's time / this time "
              "(above 1: faster), bytes / opj_compress's bytes; PSNR from opj_decompress's decoding against the input.\n",
              o.repeats);
  return 0;
}

}  // namespace j2k::bench
