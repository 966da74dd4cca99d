// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench`: the DWT benchmark of one backend (bench/).
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <sstream>

#include "bench/bench.hpp"
#include "common/parallel/thread_limit.hpp"
#include "j2kfront/config.h"
#include "transform/backend.hpp"
#include "common/error.hpp"
#include "tools/commands.hpp"
#include "tools/env_options.hpp"

namespace j2k::tools {
namespace {

namespace fs = std::filesystem;

struct BenchArgs {
  std::string backend = "auto", sizes = "4096,8192", tiles = "1024,2048,0", outputs = "i32,i16,f32";
  int levels = 5, repeats = 0, device = -1, streams = 0;
  std::string threads = "0";  // one count; with --compress / --decompress a list, e.g. 1,2,4
  std::string made = "rgb,grey16";
  bool pipeline = false, busy_loop = false, compress = false, decompress = false, ht = false, folder = false;
  std::string timeline, csv, inputs, samples = "tests/data", cpus;
  int64_t size = 4096;
  int directory = 0, frames = 0, in_flight = 0;
  int64_t tile_size = 0;
  double qstep = 0;  // --qstep; 0: CompressOptions' default
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');) items.push_back(item);
  return items;
}

// Numbers lo..hi separated by commas.
std::vector<int64_t> numbers(const std::string& flag, const std::string& list, long long lo, long long hi) {
  std::vector<int64_t> out;
  for (const std::string& item : split(list)) {
    std::size_t used = 0;
    long long n = lo - 1;
    try { n = std::stoll(item, &used); } catch (...) {}
    if (used != item.size() || n < lo || n > hi)
      throw CLI::ValidationError(flag, "expected numbers " + std::to_string(lo) + ".." + std::to_string(hi) +
                                           " separated by commas, got '" + list + "'");
    out.push_back(n);
  }
  if (out.empty()) throw CLI::ValidationError(flag, "is empty");
  return out;
}

// --cpus: this process, and so every tool it starts, on these CPUs only. Returns how many.
int pin_to_cpus(const std::string& list) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int64_t cpu : numbers("--cpus", list, 0, CPU_SETSIZE - 1)) CPU_SET(static_cast<int>(cpu), &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0)
    throw CLI::ValidationError("--cpus", "cannot run on CPUs " + list + ": " + std::strerror(errno));
  return CPU_COUNT(&set);
}

// --threads: the counts it lists (at least one; each checked as the library checks it).
std::vector<int> thread_counts(const std::string& list) {
  std::vector<int> counts;
  for (int64_t n : numbers("--threads", list, 0, std::numeric_limits<int>::max())) {
    const std::string problem = thread_count_problem(static_cast<int>(n));
    if (!problem.empty()) throw CLI::ValidationError("--threads", problem);
    counts.push_back(static_cast<int>(n));
  }
  return counts;
}

// --compress: the compress benchmark, with its own options.
int run_compress_bench(const BenchArgs& a) {
  if (a.pipeline || (!a.timeline.empty() && a.frames == 0) || a.streams != 0)
    throw CLI::ValidationError(a.decompress ? "--decompress" : "--compress",
                               "is a benchmark of its own: leave out --pipeline, --timeline (but with --frames) and --streams");
  const int cpus = a.cpus.empty() ? 0 : pin_to_cpus(a.cpus);
  bench::CompressOptions c;
  if (!a.inputs.empty()) c.inputs = split(a.inputs);
  c.samples = a.samples;
  c.size = a.size;
  // A list of --threads is a sweep: a row of every tool at each count. 0 (or none): one
  // thread, or as many as --cpus.
  std::vector<int> counts = thread_counts(a.threads);
  for (int& n : counts)
    if (n == 0) n = cpus > 0 ? cpus : 1;
  c.threads = counts.front();
  if (counts.size() > 1) c.thread_counts = counts;
  c.made.clear();
  for (const std::string& m : split(a.made)) {
    if (m != "rgb" && m != "grey16") throw CLI::ValidationError("--made", "expected rgb or grey16 separated by commas, got '" + a.made + "'");
    if (std::find(c.made.begin(), c.made.end(), m) == c.made.end()) c.made.push_back(m);
  }
  if (c.made.empty()) throw CLI::ValidationError("--made", "is empty");
  if (!a.inputs.empty() && a.made != BenchArgs().made)
    throw CLI::ValidationError("--made", "chooses the images made from the samples: leave out --inputs");
  c.cpus = a.cpus;
  c.repeats = a.repeats > 0 ? a.repeats : 3;
  c.backend = a.backend == "auto" ? "cpu" : a.backend;  // the CPU unless a GPU is asked for
  c.csv = a.csv;
  c.directory = a.directory;
  if (a.tile_size > 0 && !a.decompress) throw CLI::ValidationError("--tile-size", "is for --decompress");
  c.tile = a.tile_size;
  c.cli = fs::read_symlink("/proc/self/exe").string();
  if (a.in_flight > 0 && a.frames == 0) throw CLI::ValidationError("--in-flight", "is for --frames");
  if (a.folder && a.frames == 0) throw CLI::ValidationError("--folder", "is for --frames");
  if (a.frames > 0) {
    if (a.decompress || a.directory != 0 || a.tile_size != 0 || !a.inputs.empty() || !a.cpus.empty())
      throw CLI::ValidationError("--frames", "times frames in this process, made from --samples: leave out --decompress, "
                                             "--directory, --tile-size, --inputs and --cpus");
    if (a.qstep > 0) c.qstep = a.qstep;
    if (counts.size() > 1 || a.made != BenchArgs().made)
      throw CLI::ValidationError("--frames", "times one thread count on frames made from astronaut.ppm: leave out a list of "
                                             "--threads and --made");
    c.threads = thread_counts(a.threads).front();  // 0: one per core
    c.thread_counts.clear();
    if (!a.timeline.empty() && a.in_flight == 0)
      throw CLI::ValidationError("--timeline", "with --frames draws the frames in flight: add --in-flight");
    if (!a.timeline.empty() && !fs::is_directory(a.timeline))
      throw CLI::ValidationError("--timeline", "with --frames is a folder for the pictures, and '" + a.timeline + "' is none");
    if (a.folder) {
      if (a.in_flight > 0 || !a.timeline.empty())
        throw CLI::ValidationError("--folder", "times `compress -i DIR -o DIR` processes (their frames in flight are the CLI's): "
                                               "leave out --in-flight and --timeline");
      return bench::run_compress_frames_folder(c, a.frames, a.ht);
    }
    return bench::run_compress_frames(c, a.frames, a.ht, a.in_flight, a.timeline);
  }
  if (a.qstep > 0 && !a.ht) throw CLI::ValidationError("--qstep", "sets ojph_compress's step for --ht: add --ht");
  if (a.ht) {
    if (a.directory != 0 || a.tile_size != 0)
      throw CLI::ValidationError("--ht", "times single files in one tile: leave out --directory and --tile-size");
    if (counts.size() > 1) throw CLI::ValidationError("--threads", "a list of thread counts is for --compress and --decompress without --ht");
    if (a.qstep > 0) c.qstep = a.qstep;
    return a.decompress ? bench::run_decompress_ht(c) : bench::run_compress_ht(c);
  }
  return a.decompress ? bench::run_decompress(c) : bench::run_compress(c);
}

int run_bench(const BenchArgs& a) {
  if (a.compress && a.decompress) throw CLI::ValidationError("--decompress", "choose --compress or --decompress");
  if (a.compress || a.decompress) return run_compress_bench(a);
  if (!a.cpus.empty()) throw CLI::ValidationError("--cpus", "is for --compress and --decompress");
  if (a.ht || a.qstep > 0) throw CLI::ValidationError("--ht/--qstep", "are for --compress and --decompress: add one");
  if (!a.inputs.empty() || a.samples != BenchArgs().samples || a.size != BenchArgs().size || a.directory != 0 || a.tile_size != 0 ||
      a.made != BenchArgs().made)
    throw CLI::ValidationError("--inputs/--samples/--size/--made/--directory/--tile-size", "choose the --compress or --decompress benchmark's images: add one");
  const std::vector<int> counts = thread_counts(a.threads);
  if (counts.size() > 1) throw CLI::ValidationError("--threads", "a list of thread counts is for --compress and --decompress");
  bench::Options o;
  o.sizes = numbers("--sizes", a.sizes, 1, 65536);
  o.levels = a.levels;
  o.threads = counts.front();
  // --pipeline measures CUDA alone: auto means CUDA there (and says why where it is missing).
  const Backend asked = parse_backend(a.backend);
  const Backend b = a.pipeline && asked == Backend::Auto ? Backend::Cuda : resolve_backend(asked, Job::Transform);
  o.device = device_from_env(b, a.device);
  o.opencl_tuning = opencl_tuning_from_env();
  o.csv = a.csv;
  std::string why;
  if (!backend_available(b, &why))
    throw Error(ErrorCode::BackendUnavailable, std::string("backend '") + backend_name(b) + "' is not available: " + why);
  if (!a.timeline.empty() && !a.pipeline)
    throw CLI::ValidationError("--timeline", "draws the --pipeline run: add --pipeline");
  if (a.streams != 0 && !a.pipeline)
    throw CLI::ValidationError("--streams", "sets the --pipeline plans' streams: add --pipeline");
  if ((a.tiles != BenchArgs().tiles || a.outputs != BenchArgs().outputs) && !a.pipeline)
    throw CLI::ValidationError("--tiles/--outputs", "choose the --pipeline rows: add --pipeline");
  o.tiles = numbers("--tiles", a.tiles, 0, 65536);
  o.outputs = split(a.outputs);
  for (const std::string& k : o.outputs)
    if (k != "i32" && k != "i16" && k != "f32")
      throw CLI::ValidationError("--outputs", "expected i32, i16 or f32 separated by commas, got '" + a.outputs + "'");
  if (o.outputs.empty()) throw CLI::ValidationError("--outputs", "is empty");
  if (a.pipeline) {
    if (b != Backend::Cuda)
      throw Error(ErrorCode::InvalidArgument, "bench --pipeline measures the cuda backend against its link; got backend '" +
                                                  std::string(backend_name(b)) + "'");
#if J2KFRONT_HAVE_CUDA
    if (a.sizes == BenchArgs().sizes) o.sizes = {8192};
    o.timeline = a.timeline;
    o.streams = a.streams;
    o.repeats = a.repeats ? a.repeats : 5;
    return bench::run_pipeline(o);
#endif
  }
  switch (b) {
    case Backend::Cuda:
#if J2KFRONT_HAVE_CUDA
      o.repeats = a.repeats ? a.repeats : 20;
      return bench::run_cuda(o);
#else
      break;
#endif
    case Backend::OpenCL:
#if J2KFRONT_HAVE_OPENCL
      o.repeats = a.repeats ? a.repeats : 10;
      return bench::run_opencl(o);
#else
      break;
#endif
    default:
      o.repeats = a.repeats ? a.repeats : 5;
      o.busy_loop = a.busy_loop;
      return bench::run_cpu(o);
  }
  throw Error(ErrorCode::BackendUnavailable, std::string("no benchmark built for backend ") + backend_name(b));
}

}  // namespace

std::function<int()> add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench", "Benchmarks: the DWT of one backend against a copy of the same bytes; --pipeline, the front stage against the PCIe link; --compress / --decompress, the codec against opj_* and grk_*");
  cmd->add_option("--backend", args->backend, "auto, cpu, cuda or opencl")
      ->check(CLI::IsMember({"auto", "cpu", "cuda", "opencl"}))->capture_default_str();
  cmd->add_option("--sizes", args->sizes, "square image sizes, comma-separated")->capture_default_str();
  cmd->add_option("--levels", args->levels, "decomposition levels")->check(CLI::Range(0, 32))->capture_default_str();
  cmd->add_option("--repeats", args->repeats, "timed runs per row (median reported)")->check(CLI::Range(1, 10000));
  cmd->add_option("--threads", args->threads,
                  "CPU threads (default, 0: all cores; with --compress or --decompress one, or as many as --cpus); with "
                  "--compress or --decompress (not --ht) a list, e.g. 1,2,4,8,16: every tool at each count, one table")
      ->type_name("N[,N...]");
  cmd->add_option("--device", args->device, "GPU/OpenCL device index")->check(CLI::Range(0, 4096));
  cmd->add_flag("--pipeline", args->pipeline,
                "the whole front stage host to host (cuda), against the link's own copies; sizes default to 8192");
  cmd->add_option("--timeline", args->timeline,
                  "with --pipeline: write an SVG timeline (per queue: upload, transform, download of each tile) "
                  "of 3 frames of the first image, tile size and output, pinned input; with --frames --in-flight: a "
                  "folder where each in-flight row's last frames are drawn (per encoder: front stage, Tier-1, rate "
                  "control, Tier-2 of each frame)");
  cmd->add_option("--streams", args->streams,
                  "with --pipeline: CUDA streams per plan (default: the plan's own choice)")
      ->check(CLI::Range(1, 16));
  cmd->add_option("--csv", args->csv,
                  "also write the rows as CSV into this file (replaced when the run ends); the CPU bench writes "
                  "its busy-machine and tile-size tables beside it: X.csv gives X-busy.csv and X-tiles.csv")
      ->type_name("FILE")
      ->check(CLI::Validator([](std::string& s) { return s.empty() ? std::string("is empty") : std::string(); }, "",
                             "non-empty"));
  cmd->add_option("--tiles", args->tiles, "with --pipeline: tile sizes, comma-separated (0: untiled)")
      ->capture_default_str();
  cmd->add_option("--outputs", args->outputs,
                  "with --pipeline: i32 (5/3 int32), i16 (5/3 int16), f32 (9/7 float32), comma-separated")
      ->capture_default_str();
  cmd->add_flag("--compress", args->compress,
                "`j2kfront compress` file to file against opj_compress and grk_compress (same image, settings and "
                "threads): lossless and -I -r 20, 64x64 blocks, 6 resolutions; time split, sizes, PSNR");
  cmd->add_flag("--decompress", args->decompress,
                "`j2kfront decompress` file to file against opj_decompress and grk_decompress (same streams, made by "
                "opj_compress: lossless and -I -r 20; same threads); our output checked against opj_decompress's. "
                "Takes --compress's --inputs, --samples, --size");
  cmd->add_flag("--ht", args->ht,
                "with --compress or --decompress: HTJ2K against OpenJPH's ojph_compress / ojph_expand (one thread: "
                "they have no thread option), lossless and lossy at ojph_compress's size, 6 resolutions, 64x64 blocks, "
                "RPCL; --compress also times our EBCOT compress, --decompress also opj_decompress and grk_decompress "
                "on ojph_compress's streams; every decoding checked");
  cmd->add_option("--qstep", args->qstep,
                  "with --ht: ojph_compress's -qstep for the lossy rows, which ours then match in size (default 0.007: about 1.9 bits per pixel on the 8-bit RGB image at 4096)")
      ->check(CLI::Range(0.00001, 0.5));
  cmd->add_option("--frames", args->frames,
                  "with --compress: N frames of 4096x2160 RGB (8 and 12 bits; --size: another width) compressed in this process, host memory to "
                  "host memory, by each backend here: HT (and EBCOT unless --ht), lossless and lossy; frames a second, "
                  "the encoder's split, codestreams checked equal to the CPU's")
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--in-flight", args->in_flight,
                  "with --frames: also frames in flight (submit/wait) through N encoders side by side, on CUDA also "
                  "from page-locked frames (\"pinned\"), and over every GPU of the host where it has several")
      ->check(CLI::Range(1, 8));
  cmd->add_flag("--folder", args->folder,
                "with --frames: the frames as N PPM files in a folder, compressed folder to folder by one `j2kfront "
                "compress -i DIR -o DIR` process a row (start to exit, in --repeats rounds): the CPU backend, CUDA over "
                "every GPU (a directory's default), on one GPU and one frame at a time, OpenCL on a GPU; files checked "
                "equal to the CPU's");
  cmd->add_option("--inputs", args->inputs,
                  "with --compress: images, comma-separated (default: astronaut.ppm, RGB 8-bit, and moon.pgm "
                  "as 16-bit grey, of --samples, upscaled to --size)");
  cmd->add_option("--samples", args->samples, "with --compress: the folder of the sample images")->capture_default_str();
  cmd->add_option("--size", args->size, "with --compress: the side of the images made from the samples")
      ->check(CLI::Range(16, 32768))->capture_default_str();
  cmd->add_option("--made", args->made,
                  "with --compress or --decompress: which images to make from the samples, comma-separated: rgb "
                  "(astronaut.ppm, 8-bit RGB), grey16 (moon.pgm as 16-bit grey)")
      ->capture_default_str();
  cmd->add_option("--cpus", args->cpus,
                  "with --compress or --decompress: every tool on these CPUs only, e.g. 4,5 (threads: as many, "
                  "unless --threads), so that each runs on the same cores");
  cmd->add_option("--directory", args->directory,
                  "with --compress or --decompress: a folder of N copies of each image (of each stream), "
                  "compressed (decompressed) by each tool in one process (a batch job: start-up paid once)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--tile-size", args->tile_size,
                  "with --decompress: the streams in N x N tiles (opj_compress -t N,N; default: one tile)")
      ->check(CLI::Range(64, 32768));
  // The CPU bench's second busy process (bench/cpu_bench.cpp): not for users, so not in --help.
  cmd->add_flag("--busy-loop", args->busy_loop, "run the 512^2 CPU DWT until killed")->group("");
  return [args] { return run_bench(*args); };
}

}  // namespace j2k::tools
