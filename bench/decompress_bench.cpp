// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench --decompress`: `j2kfront decompress` file to file against opj_decompress and
// grk_decompress on the same streams, same threads, in one run. The streams are
// opj_compress's (6 resolutions, 64x64 blocks), lossless and -I -r 20, of images made from the
// samples as the compress benchmark makes them. Each tool runs as a process of its own, timed
// from start to exit, writing PPM/PGM, in rounds (time_tools): one untimed round that warms the
// page cache, then --repeats rounds of every tool once in turn; our output is compared with
// opj_decompress's, sample for sample. Each row also has the tool's peak memory (run_process).
// "j2kfront --ht": our decoder on our own stream of the same image with HT code-blocks (j2kfront
// compress --ht, the same settings), compared with opj_decompress's decoding of that stream.
// --threads 1,2,4: every tool's rows at each count (sweep()), one table.
// Where a GPU back stage can run here (CUDA; OpenCL on a GPU), `j2kfront decompress --backend`
// with it is one more row, Tier-1 on the GPU too.
// --tile-size N: the streams in N x N tiles (opj_compress -t N,N).
// --directory N: each tool decodes a folder of N copies of each stream in one process
// (opj_decompress -ImgDir, which writes beside its inputs; Grok is left out), every output
// compared with opj_decompress's.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "common/error.hpp"
#include "device/available.hpp"
#include "j2kfront/config.h"
#include "transform/dwt_engine.hpp"

namespace j2k::bench {
namespace {

namespace fs = std::filesystem;

// The last `count` bytes of a file: a binary PNM's pixels without its header (opj_decompress
// writes a comment in it; ours has none: magic, size and maxval on three lines).
std::string tail(const std::string& path, size_t count) {
  const std::string all = slurp(path);
  return all.size() >= count ? all.substr(all.size() - count) : std::string();
}
size_t pixel_bytes(const std::string& our_pnm) {
  const std::string all = slurp(our_pnm);
  size_t at = 0;
  for (int line = 0; line < 3 && at != std::string::npos; ++line) at = all.find('\n', at == 0 && line == 0 ? 0 : at + 1);
  return at == std::string::npos ? 0 : all.size() - at - 1;
}

struct Tool {
  std::string name, out;  // out: the output file, or the folder of outputs
  std::vector<std::string> args;
};

// The tools timed in rounds (time_in_rounds), `clear(tool)` before each run. ms: each tool's
// median time; speed: median_ratio() against tool `reference` (opj_decompress); peak_mib: each
// tool's median peak memory.
struct Timings {
  std::vector<double> ms, speed, peak_mib;
};
template <class Clear>
Timings time_tools(const std::vector<Tool>& tools, size_t reference, int repeats, const std::string& log, Clear&& clear) {
  const Rounds rounds = time_in_rounds(tools.size(), repeats, [&](size_t k) {
    clear(tools[k]);
    const Timed tm = run_process(tools[k].args, log);
    if (tm.status != 0)
      throw Error(ErrorCode::Internal, tools[k].name + " failed (exit " + std::to_string(tm.status) + "):\n" + slurp(log));
    return tm;
  });
  Timings t;
  for (size_t k = 0; k < tools.size(); ++k) {
    t.ms.push_back(median(rounds.ms[k]));
    t.speed.push_back(median_ratio(rounds.ms, reference, k));
    t.peak_mib.push_back(median(rounds.peak_mib[k]));
  }
  return t;
}

// Whether two PNM files hold the same pixels (the headers differ: opj writes a comment).
bool same_pixels(const std::string& ours, const std::string& theirs) {
  const size_t n = pixel_bytes(ours);
  return n > 0 && tail(ours, n) == tail(theirs, n);
}

// The folder benchmark of one stream on `thread_count` threads: N copies in a folder, one
// process per tool and folder.
void run_folder(const CompressOptions& o, int thread_count, const std::string& dir, const std::string& stream,
                const std::string& label, bool lossy, const std::string& ext, const std::vector<std::string>& backends,
                CsvFile& csv) {
  const std::string threads = std::to_string(thread_count), log = dir + "/log.txt";
  const std::string folder = dir + "/streams", opj_folder = dir + "/streams-opj";  // opj writes beside its inputs
  for (const std::string& f : {folder, opj_folder}) {
    fs::remove_all(f);
    fs::create_directories(f);
    for (int k = 0; k < o.directory; ++k) fs::copy_file(stream, f + "/" + std::to_string(k) + ".j2k");
  }
  const std::string format = ext.substr(1);  // ppm or pgm
  std::vector<Tool> tools;
  for (const std::string& b : backends) {
    const std::string out = dir + "/out-" + b;
    tools.push_back({b == "cpu" ? "j2kfront" : "j2kfront " + b, out,
                     {o.cli, "decompress", "-i", folder, "-o", out, "--OutFor", format, "--force", "--quiet", "--threads", threads,
                      "--backend", b}});
  }
  const size_t at_opj = tools.size();
  std::string upper = format;
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  tools.push_back({"opj_decompress", opj_folder, {"opj_decompress", "-ImgDir", opj_folder, "-OutFor", upper, "-threads", threads}});
  const Timings tm = time_tools(tools, at_opj, o.repeats, log, [&](const Tool& t) {
    std::error_code ec;
    if (t.out != opj_folder) fs::remove_all(t.out, ec);
    for (const auto& e : fs::directory_iterator(opj_folder))
      if (e.path().extension() != ".j2k") fs::remove(e.path(), ec);
  });
  const std::vector<double>& ms = tm.ms;
  // Each of our outputs against opj_decompress's of the same copy (it names them .ppm for a
  // grey image too; its last run's are there).
  auto opj_output = [&](int k) {
    for (const char* e : {".ppm", ".pgm", ".PPM", ".PGM"}) {
      const std::string p = opj_folder + "/" + std::to_string(k) + e;
      if (fs::exists(p)) return p;
    }
    throw Error(ErrorCode::Internal, "opj_decompress wrote no output for " + std::to_string(k) + ".j2k in " + opj_folder);
  };
  const char* mode = lossy ? "-I -r 20" : "lossless";
  for (size_t t = 0; t < at_opj; ++t) {
    bool same = true;
    for (int k = 0; k < o.directory; ++k) same = same && same_pixels(tools[t].out + "/" + std::to_string(k) + ext, opj_output(k));
    std::printf("%-22s %-9s %-16s %3d %10.1f %7.2fx %9.1f %10.1f %s\n", label.c_str(), mode, tools[t].name.c_str(), thread_count,
                ms[t], tm.speed[t], tm.peak_mib[t], ms[t] / o.directory,
                same ? "= opj_decompress's" : "DIFFERS from opj_decompress's");
    csv.row({label, lossy ? "r20" : "lossless", tools[t].name, thread_count, ms[t], tm.speed[t], NAN, same ? 1 : 0, tm.peak_mib[t]});
    if (!same) throw Error(ErrorCode::Internal, tools[t].name + " decompress's output differs from opj_decompress's on " + label);
  }
  std::printf("%-22s %-9s %-16s %3d %10.1f %7.2fx %9.1f %10.1f\n", label.c_str(), mode, "opj_decompress", thread_count, ms[at_opj],
              1.0, tm.peak_mib[at_opj], ms[at_opj] / o.directory);
  csv.row({label, lossy ? "r20" : "lossless", "opj_decompress", thread_count, ms[at_opj], 1.0, NAN, -1, tm.peak_mib[at_opj]});
  std::fflush(stdout);
}

}  // namespace

std::vector<std::string> decoder_backends() {
  std::vector<std::string> backends{"cpu"};
  if (backend_available(Backend::Cuda)) backends.push_back("cuda");
#if J2KFRONT_HAVE_OPENCL
  if (opencl_gpu_available()) backends.push_back("opencl");
#endif
  return backends;
}

int run_decompress(const CompressOptions& o) {
  start_launcher();  // before the images: each tool's peak memory its own
  const ScratchDir scratch;
  const std::string& dir = scratch.path;
  if (!tool_on_path("opj_compress") || !tool_on_path("opj_decompress"))
    throw Error(ErrorCode::InvalidArgument, "the decompress benchmark needs opj_compress and opj_decompress (Debian: libopenjp2-tools)");
  const bool have_grk = tool_on_path("grk_decompress");
  if (!have_grk) std::printf("grk_decompress not found (Debian: grokj2k-tools): no Grok rows\n");

  // Our decoder once per back stage that runs here.
  const std::vector<std::string> backends = decoder_backends();

  const std::vector<std::string> inputs = bench_inputs(o, dir);
  const std::vector<int> counts = sweep(o);
  // The streams are made once, on the most threads of the sweep (the bytes do not depend on them).
  const std::string most_threads = std::to_string(*std::max_element(counts.begin(), counts.end()));
  if (o.tile > 0) std::printf("streams in tiles of %lld x %lld\n", static_cast<long long>(o.tile), static_cast<long long>(o.tile));
  if (o.directory > 0)
    std::printf("threads: %s for every tool%s\n\n%-22s %-9s %-16s %3s %10s %8s %9s %10s %s\n", sweep_text(o).c_str(),
                on_cpus(o).c_str(), "folder", "mode", "tool", "thr", "ms", "vs opj", "peak MiB", "ms/image", "outputs");
  else
    std::printf("threads: %s for every tool%s\n\n%-22s %-9s %-16s %3s %10s %8s %9s %12s %s\n", sweep_text(o).c_str(),
                on_cpus(o).c_str(), "image", "mode", "tool", "thr", "ms", "vs opj", "peak MiB", "stream bytes", "output");
  CsvFile csv(o.csv, {"image", "mode", "tool", "threads", "ms", "speed_vs_opj", "stream_bytes", "same_as_opj", "peak_mib"});
  const std::string log = dir + "/log.txt";
  for (const std::string& input : inputs) {
    const std::string name = fs::path(input).filename().string() + (o.tile > 0 ? " t" + std::to_string(o.tile) : "");
    const std::string ext = fs::path(input).extension().string();  // .ppm or .pgm
    for (const bool lossy : {false, true}) {
      const std::string stream = dir + "/stream.j2k";
      std::vector<std::string> enc{"opj_compress", "-i", input, "-o", stream, "-threads", most_threads, "-n", "6", "-b", "64,64"};
      if (lossy) enc.insert(enc.end(), {"-I", "-r", "20"});
      if (o.tile > 0) enc.insert(enc.end(), {"-t", std::to_string(o.tile) + "," + std::to_string(o.tile)});
      if (run_process(enc, log).status != 0) throw Error(ErrorCode::Internal, "opj_compress failed on " + input + ":\n" + slurp(log));
      const auto bytes = static_cast<double>(fs::file_size(stream));
      if (o.directory > 0) {
        for (const int thread_count : counts)
          run_folder(o, thread_count, dir, stream, name + " x" + std::to_string(o.directory), lossy, ext, backends, csv);
        continue;
      }
      // Our own stream of HT code-blocks (Part 15) with the same settings, for our decoder's
      // HT row, and opj_decompress's decoding of it (untimed), which ours must equal.
      const std::string ht_stream = dir + "/stream-ht.j2k", opj_ht = dir + "/opj-ht" + ext;
      std::vector<std::string> enc_ht{o.cli, "compress", "-i", input, "-o", ht_stream, "--force", "--quiet", "--threads",
                                      most_threads, "--ht", "-n", "6", "-b", "64,64"};
      if (lossy) enc_ht.insert(enc_ht.end(), {"-I", "-r", "20"});
      if (o.tile > 0) enc_ht.insert(enc_ht.end(), {"-t", std::to_string(o.tile) + "," + std::to_string(o.tile)});
      if (run_process(enc_ht, log).status != 0)
        throw Error(ErrorCode::Internal, "j2kfront compress --ht failed on " + input + ":\n" + slurp(log));
      const auto ht_bytes = static_cast<double>(fs::file_size(ht_stream));
      const bool opj_reads_ht = run_process({"opj_decompress", "-i", ht_stream, "-o", opj_ht}, log).status == 0;
      for (const int thread_count : counts) {
        const std::string threads = std::to_string(thread_count);
        const std::string opj = dir + "/opj" + ext, grk = dir + "/grk" + ext;
        std::vector<Tool> tools;
        for (const std::string& b : backends) {
          const std::string ours = dir + "/ours_" + b + ext;
          tools.push_back({b == "cpu" ? "j2kfront" : "j2kfront " + b, ours,
                           {o.cli, "decompress", "-i", stream, "-o", ours, "--force", "--quiet", "--threads", threads, "--backend", b}});
        }
        const size_t at_ht = tools.size();
        tools.push_back({"j2kfront --ht", dir + "/ours_ht" + ext,
                         {o.cli, "decompress", "-i", ht_stream, "-o", dir + "/ours_ht" + ext, "--force", "--quiet", "--threads",
                          threads, "--backend", "cpu"}});
        const size_t ours_count = tools.size(), at_opj = tools.size();
        tools.push_back({"opj_decompress", opj, {"opj_decompress", "-i", stream, "-o", opj, "-threads", threads}});
        if (have_grk) tools.push_back({"grk_decompress", grk, {"grk_decompress", "-i", stream, "-o", grk, "-H", threads}});
        const Timings tm = time_tools(tools, at_opj, o.repeats, log, [](const Tool& t) {
          std::error_code ec;
          fs::remove(t.out, ec);
        });
        // Our pixels against opj_decompress's of the same stream (the HT row's: where it reads it).
        std::vector<int> same(tools.size(), -1);
        for (size_t k = 0; k < ours_count; ++k)
          if (k != at_ht) same[k] = same_pixels(tools[k].out, opj) ? 1 : 0;
        if (opj_reads_ht) same[at_ht] = same_pixels(tools[at_ht].out, opj_ht) ? 1 : 0;
        for (size_t k = 0; k < tools.size(); ++k) {
          const double stream_bytes = k == at_ht ? ht_bytes : bytes;
          const std::string reference = k == at_ht ? "opj_decompress's of the HT stream" : "opj_decompress's";
          const std::string output = same[k] < 0 ? (k == at_ht ? "(opj_decompress cannot read the HT stream: unchecked)" : "")
                                     : same[k]  ? "= " + reference
                                                : "DIFFERS from " + reference;
          std::printf("%-22s %-9s %-16s %3d %10.1f %7.2fx %9.1f %12.0f %s\n", name.c_str(), lossy ? "-I -r 20" : "lossless",
                      tools[k].name.c_str(), thread_count, tm.ms[k], tm.speed[k], tm.peak_mib[k], stream_bytes, output.c_str());
          csv.row({name, lossy ? "r20" : "lossless", tools[k].name, thread_count, tm.ms[k], tm.speed[k], stream_bytes, same[k],
                   tm.peak_mib[k]});
        }
        std::fflush(stdout);
        for (size_t k = 0; k < ours_count; ++k)
          if (same[k] == 0) throw Error(ErrorCode::Internal, tools[k].name + " decompress's output differs from opj_decompress's on " + name);
      }
    }
  }
  csv.commit();
  std::printf("\nms: wall time of the process from start to exit, file to file (PPM/PGM out)%s, median of %d rounds after one "
              "warm-up, each round every tool once in turn; vs opj: the median over the rounds of opj_decompress's time / "
              "this time (above 1: faster); peak MiB: the process's largest resident set (its ru_maxrss), median over the "
              "rounds.%s\n",
              o.directory > 0 ? ", a folder of streams in one process" : "", o.repeats,
              o.directory > 0 ? "" : " j2kfront --ht: our decoder on our own stream of HT code-blocks (Part 15) of the same image "
                                     "and settings (j2kfront compress --ht), its bytes in its row.");
  return 0;
}

}  // namespace j2k::bench
