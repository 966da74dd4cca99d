// SPDX-License-Identifier: BSD-2-Clause
// Backend choice, shared by the low-level Dwt and the whole front stage.
#pragma once
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

// Whether the backend is compiled in and has a usable device on this machine; when it does
// not, `why` (if given) receives the reason.
bool backend_available(Backend backend, std::string* why = nullptr);

// What `Auto` resolves to here: CUDA, then an OpenCL GPU, then the CPU.
Backend resolve_auto_backend();

}  // namespace j2k
