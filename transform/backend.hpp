// Backend choice, shared by the low-level Dwt and the whole front stage.
#pragma once
#include <string>
#include <vector>

namespace j2k {

enum class Backend { Auto, Cpu, Cuda, OpenCL };

struct BackendOptions {
  Backend backend = Backend::Auto;
  int threads = 0;  // CPU worker threads; 0 = OpenMP's default
  int device = -1;  // GPU / OpenCL device index; -1 = J2KFRONT_DEVICE or the first one
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
