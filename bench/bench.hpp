// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench`: per-backend benchmarks of the DWT. Every timing is reported next to a
// yardstick measured in the same run on the same bytes (a copy of the image in the same
// memory), because absolute times drift between machines.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/bench_images.hpp"

namespace j2kfront {
class Image;
}

namespace j2k::bench {

struct Options {
  std::vector<int64_t> sizes{4096, 8192};  // square images, size x size samples
  int levels = 5;
  int repeats = 20;  // timed runs per row; the median is reported
  int threads = 0;   // CPU threads (0 = one per core)
  int device = -1;   // GPU / OpenCL device
  std::string opencl_tuning;  // BackendOptions::opencl_tuning
  std::string timeline;       // --pipeline: an SVG timeline of one configuration goes here
  int streams = 0;            // --pipeline: the plans' streams (0: their default)
  std::vector<int64_t> tiles{1024, 2048, 0};    // --pipeline: tile sizes (0: untiled)
  std::vector<std::string> outputs{"i32", "i16", "f32"};  // --pipeline: 5/3 int32, 5/3 int16, 9/7 float32
  bool busy_loop = false;     // cpu: run the 512^2 5/3 forward until killed (the busy process)
  std::string csv;            // --csv: the printed rows also as CSV here (and in csv_sibling files)
};

// Each prints a table and returns 0, or throws j2k::Error.
int run_cpu(const Options& options);
int run_cuda(const Options& options);    // bench/cuda_bench.cu, built with the CUDA backend
int run_opencl(const Options& options);  // bench/opencl_bench.cpp, built with the OpenCL backend
// The whole front stage host to host on CUDA against the link's copies (bench/pipeline_bench.cpp).
int run_pipeline(const Options& options);

// `j2kfront compress` file to file against opj_compress and grk_compress (bench/compress_bench.cpp).
struct CompressOptions {
  std::vector<std::string> inputs;  // images; empty: made from the samples below
  std::string samples = "tests/data";  // astronaut.ppm (RGB 8-bit) and moon.pgm (made 16-bit grey)
  int64_t size = 4096;              // the made images' side
  std::vector<std::string> made{"rgb", "grey16"};  // which of the two to make: rgb, grey16
  int threads = 1;                  // for every tool
  std::vector<int> thread_counts;   // --compress / --decompress: a row of every tool at each of
                                    // these (a sweep); empty: at `threads` alone
  std::string cpus;                 // the CPUs every tool is confined to (said in the output); empty: any
  int repeats = 3;                  // timed runs per row (median), after one warm-up
  std::string cli;                  // this j2kfront executable
  std::string backend = "cpu";      // our front stage's
  std::string csv;
  int directory = 0;                // > 0: each input copied this many times into a folder, and
                                    // each tool compresses the folder in one process
  int64_t tile = 0;                 // > 0: the decompress benchmark's streams in tile x tile tiles
  double qstep = 0.007;             // --ht: ojph_compress's -qstep for the lossy rows (about 1.9
                                    // bits per pixel on the astronaut made at 4096)
};
int run_compress(const CompressOptions& options);
// ", on CPUs 4,5" where the tools are confined to CPUs, else "".
inline std::string on_cpus(const CompressOptions& o) { return o.cpus.empty() ? "" : ", on CPUs " + o.cpus; }
// `j2kfront bench --decompress`: `j2kfront decompress` against opj_decompress and
// grk_decompress on the same streams (opj_compress's, lossless and -I -r 20), same threads.
int run_decompress(const CompressOptions& options);
// `j2kfront bench --compress --ht` / `--decompress --ht`: HTJ2K against OpenJPH's
// ojph_compress / ojph_expand (single-threaded), our own EBCOT compress at the same threads, and
// for decoding opj_decompress and grk_decompress where they read the stream (bench/ht_bench.cpp).
int run_compress_ht(const CompressOptions& options);
int run_decompress_ht(const CompressOptions& options);
// `j2kfront bench --compress --frames N`: 4096 x 2160 RGB frames, 8 and 12 bits, compressed in
// this process host memory to host memory by each backend, HT (and EBCOT unless ht_only),
// lossless and lossy; frames a second and the encoder's split (bench/frames_bench.cpp).
// in_flight > 0: each backend also with frames in flight through that many encoders (and every
// GPU of the host where it has several).
// timelines (not empty): a folder where each in-flight row's last frames are drawn
// (frames-BITSbit-CODER-MODE-BACKEND.svg: per encoder, each frame's front stage, Tier-1, rate
// control and Tier-2 as its host thread saw them).
int run_compress_frames(const CompressOptions& options, int frames, bool ht_only, int in_flight, const std::string& timelines);
// The frames benchmarks' lossy EBCOT rate: DCI's 250 Mbit/s at 24 frames a second, as many bits
// a sample as a 4K frame gets at other sizes.
inline constexpr double kDciFrameBytes = 250e6 / 8 / 24;
inline constexpr double kDci4kSamples = 4096.0 * 2160 * 3;
// The same frames as N PPM files in a folder, compressed folder to folder by `j2kfront compress
// -i DIR -o DIR` processes (bench/frames_folder_bench.cpp): the CPU backend, CUDA over every
// GPU, on one and one frame at a time, OpenCL on a GPU; start to exit, in rounds.
int run_compress_frames_folder(const CompressOptions& options, int frames, bool ht_only);

// The thread counts a --compress / --decompress run times every tool at: thread_counts, or
// `threads` alone; and the same as text for the table's heading ("1,2,4").
std::vector<int> sweep(const CompressOptions& o);
std::string sweep_text(const CompressOptions& o);

// What the compress and decompress benchmarks share (compress_bench.cpp, run_process.cpp).
struct Timed {
  int status = -1;
  double ms = 0;
  double peak_mib = NAN;  // the process's peak resident memory (its ru_maxrss, from wait4)
};
// Runs args[0] (looked up on PATH) with its output into `log`, in the environment the
// benchmark started with (start_environment()); the exit status, wall time and peak memory.
// Every tool of every benchmark, ours too, runs as such a process, so that each is measured
// the same way: from start to exit, and its largest resident set as the kernel counted it. The
// processes are started by a launcher (run_process.cpp), so that the peak is the tool's own
// and not partly the benchmark's: start it with start_launcher() first thing, before the
// benchmark makes or reads its images (or the first run_process starts it then).
Timed run_process(const std::vector<std::string>& args, const std::string& log);
void start_launcher();

// Commands timed in rounds: one untimed round that warms the page cache, then `repeats`
// rounds, each running every command once in turn, so that a slow spell of a shared machine
// falls on all of them alike rather than on the one being timed then (on the GPU machine the
// one-CPU decompress rows of one build had read 1.48x to 2.07x opj_decompress with each tool's
// runs back to back). run(k) runs command k once (it throws on a failure). Returns, for each
// command k and timed round r, its time ms[k][r] and its peak memory peak_mib[k][r].
struct Rounds {
  std::vector<std::vector<double>> ms, peak_mib;
};
Rounds time_in_rounds(size_t commands, int repeats, const std::function<Timed(size_t)>& run);
// The median over the rounds of times[reference][r] / times[k][r]: how many times faster
// command k ran than `reference` in the same rounds.
double median_ratio(const std::vector<std::vector<double>>& times, size_t reference, size_t k);

// The environment as it was when this process started, for the processes a benchmark starts.
// The OpenCL runtimes may change the process's own once they are loaded: on the GPU machine,
// after the benchmark had listed the OpenCL devices, OCL_ICD_FILENAMES
// ("libpocl.so.2:libnvidia-opencl.so.1") had lost its second library and HWLOC_PLUGINS_PATH
// had appeared, and `j2kfront decompress --backend opencl` started with that environment ran
// on PoCL, the CPU, instead of the GPU.
char* const* start_environment();
bool tool_on_path(const std::string& tool);
std::string slurp(const std::string& path);
// Our compress's time split from its log ("  read A ms, front stage B, Tier-1 C, rate control
// D, Tier-2 E, write F"): the six, or none where the log has no such line.
std::vector<double> time_split(const std::string& log);
// The back stages `j2kfront decompress --backend` can run here: cpu, then cuda and opencl
// where there is such a GPU.
std::vector<std::string> decoder_backends();
// The benchmark's images: --inputs, or those of `made` made in `dir` from the samples (saying so).
std::vector<std::string> bench_inputs(const CompressOptions& o, const std::string& dir);
// PSNR of `decoded` against `original` over every sample (their precision's peak); -1 where
// their shapes or sample types differ, infinity where they are equal.
double psnr(const j2kfront::Image& original, const j2kfront::Image& decoded);
// The largest difference between two images' samples: 0 where they are equal, -1 where their
// component counts, shapes or sample types differ.
double max_difference(const j2kfront::Image& a, const j2kfront::Image& b);

// A deterministic, image-like test pattern (gradients plus texture plus noise) of unsigned
// `bits`-bit samples; never zeros, which would hide unwritten outputs.
std::vector<int32_t> test_pattern(int64_t width, int64_t height, int bits, uint32_t seed = 1);

double median(std::vector<double> values);

// --- `--csv FILE`: the printed tables' rows as CSV, for bench/plot.py --------------------------

// One field of a CSV row: text, quoted where it holds a comma, a quote or a line break (CUDA's
// variants do), or a number (integers exactly, others to 6 significant digits, as C's %g).
struct CsvField {
  CsvField(const std::string& s);  // NOLINT: implicit, so that a row is a braced list
  CsvField(const char* s) : CsvField(std::string(s ? s : "")) {}  // NOLINT
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  CsvField(T v) : text(std::is_integral_v<T> ? std::to_string(static_cast<long long>(v)) : number(v)) {}  // NOLINT
  static std::string number(double v);
  std::string text;
};

// One table as a CSV file, written whole or not at all: a temporary file beside `path` is
// created at once, so that a path that cannot be written fails before minutes of benchmarking
// rather than after them, and commit() renames it over `path` when every row is in; a run that
// throws first leaves no file. With an empty `path` there is no file and every call does
// nothing. Failures throw Error(Io) naming the path.
class CsvFile {
 public:
  CsvFile(const std::string& path, std::vector<std::string> columns);
  ~CsvFile();
  CsvFile(const CsvFile&) = delete;
  CsvFile& operator=(const CsvFile&) = delete;
  void row(std::initializer_list<CsvField> fields);  // as many fields as columns
  void row(const std::vector<CsvField>& fields);
  void commit();

 private:
  std::string path_, tmp_, text_;
  size_t columns_;
  int fd_ = -1;
};

// Where a benchmark with more than one table writes the others: FILE.csv -> FILE-TAG.csv.
std::string csv_sibling(const std::string& path, const std::string& tag);

// The DWT tables of every backend (cpu, cuda, opencl) in one format, so that bench/plot.py
// puts them side by side: each row with its backend and device, the image size, the time and
// the yardstick's time of the same run (copy_ms; on the yardstick's own row, yardstick = 1).
class DwtCsv {
 public:
  DwtCsv(const Options& o, std::string backend, std::string device);
  void row(int64_t size, const std::string& variant, double ms, double copy_ms, bool yardstick = false);
  void commit() { file_.commit(); }

 private:
  CsvFile file_;
  std::string backend_, device_;
  int levels_, repeats_;
};

}  // namespace j2k::bench
