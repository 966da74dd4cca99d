// SPDX-License-Identifier: BSD-2-Clause
// Backend choice, shared by the low-level Dwt and the whole front stage.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "j2kfront/j2kfront.h"

namespace j2k {

enum class Backend { Auto, Cpu, Cuda, OpenCL };

struct BackendOptions {
  BackendOptions() = default;
  // The fields most callers set (a constructor, not aggregate initialisation, so that fields
  // added below need no initializer at those calls).
  BackendOptions(Backend b, int t = 0, int d = -1) : backend(b), threads(t), device(d) {}

  Backend backend = Backend::Auto;
  int threads = 0;  // CPU worker threads; 0 = one per core
  int device = -1;  // GPU / OpenCL device index; -1 = the first (GPU) device
  // OpenCL kernel tuning: "" = the device's defaults; else comma-separated items, e.g.
  // "small" (tiny tiles that cross every kernel boundary, for tests) or "hp=2,hgroup=128"
  // (transform/opencl/opencl_dwt.hpp, Tuning).
  std::string opencl_tuning;
  // Experimental CUDA kernels, exact but not faster on the H100 (bench/RESULTS.md): the 9/7
  // forward with levels 1 and 2 fused, and the inverse with levels 2 and 1 fused.
  bool cuda_fuse_97 = false;
  bool cuda_fuse_inverse = false;
  // The embedder's pool for the CPU work (run == nullptr: j2kfront's own); threads is its
  // worker count then.
  j2k_thread_pool thread_pool{};
};

// "auto", "cpu", "cuda", "opencl" <-> enum; parse throws Error(InvalidArgument).
Backend parse_backend(const std::string& name);
const char* backend_name(Backend backend);

// The public settings' backend_options ("opencl.small,cuda.fuse_97", j2kfront.h) onto `o`:
// the "opencl." items become opencl_tuning's (checked by the OpenCL backend when it runs, as
// they depend on the device), the "cuda." items set the CUDA flags. An item naming no backend
// or an unknown CUDA one throws Error(InvalidArgument) naming it.
void apply_backend_options(BackendOptions& o, const std::string& items);

// Whether the backend is compiled in and has a usable device on this machine; when it does
// not, `why` (if given) receives the reason.
bool backend_available(Backend backend, std::string* why = nullptr);

// What a backend is chosen for.
enum class Job {
  Transform,      // the front stage or the DWT alone: a plan, a Dwt, `j2kfront transform`
  CompressOne,    // the front stage of one image (an input of `size` bytes) to compress, start-up included
  CompressBatch,  // the front stage of a batch of images (a folder), start-up paid once
  Decompress,     // the back stage and Tier-1 of one codestream of `size` bytes
};

// The one place where Auto is decided; any other backend is returned as asked. For each job:
// - Transform, CompressBatch: CUDA, then an OpenCL GPU, then the CPU. OpenCL only on a GPU:
//   on a CPU the CPU backend is faster.
// - CompressOne: CUDA where the input file holds more than kAutoCudaInputBytesPerThread bytes
//   for each CPU thread (`threads`, 0: every core) and a CUDA GPU is there, else the CPU. One
//   `compress` process on the H200 machine (bench/RESULTS.md, "One image a process"): a 4096^2
//   RGB PPM (50 MB, 3 MB a thread of 16) takes the CPU 0.2 to 0.5 s and CUDA 0.4 to 0.55 s,
//   most of it CUDA's start-up and teardown; an 8192^2 one (12.6 MB a thread) CUDA 0.97x to
//   1.80x the CPU's speed. A compressed input (PNG, a Deflate TIFF) holds more samples than
//   its bytes say, so the rule errs towards the CPU there.
// - Decompress: CUDA where the CPU's Tier-1 would take longer than CUDA takes to start, that
//   is where the codestream holds more than kAutoCudaBytesPerThread bytes for each CPU thread
//   (`threads`, 0: every core) and `cuda_available()` says a CUDA GPU is there (asked only
//   then; null: backend_available()); else the CPU. On the GPU machine a one-shot CUDA decode
//   of a 4096^2 image takes 0.3 to 0.7 s, and one CPU thread decodes about 5 MB of codestream
//   a second; 16 threads about 50. Never OpenCL: validated on NVIDIA's driver and PoCL only,
//   its start-up on other GPUs unmeasured (`--backend opencl` opts in).
Backend resolve_backend(Backend asked, Job job, uint64_t size = 0, int threads = 0,
                        bool (*cuda_available)() = nullptr);
constexpr uint64_t kAutoCudaBytesPerThread = uint64_t{2} << 20;        // 2 MiB of codestream
constexpr uint64_t kAutoCudaInputBytesPerThread = uint64_t{8} << 20;   // 8 MiB of input image

}  // namespace j2k
