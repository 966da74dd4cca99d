// `j2kfront bench`: per-backend benchmarks of the DWT. Every timing is reported next to a
// yardstick measured in the same run on the same bytes (a copy of the image in the same
// memory), because absolute times drift between machines.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

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
};

// Each prints a table and returns 0, or throws j2k::Error.
int run_cpu(const Options& options);
int run_cuda(const Options& options);    // bench/cuda_bench.cu, built with the CUDA backend
int run_opencl(const Options& options);  // bench/opencl_bench.cpp, built with the OpenCL backend
// The whole front stage host to host on CUDA against the link's copies (bench/pipeline_bench.cpp).
int run_pipeline(const Options& options);

// A deterministic, image-like test pattern (gradients plus texture plus noise) of unsigned
// `bits`-bit samples; never zeros, which would hide unwritten outputs.
std::vector<int32_t> test_pattern(int64_t width, int64_t height, int bits, uint32_t seed = 1);

double median(std::vector<double> values);

}  // namespace j2k::bench
