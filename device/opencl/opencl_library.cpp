// SPDX-License-Identifier: BSD-2-Clause
#include "device/opencl/opencl_library.hpp"

#include <dlfcn.h>

#include "common/error.hpp"

namespace j2k::ocl {

namespace {

struct Loaded {
  Library functions;
  std::string why;  // empty when every function was found
};

Loaded open_loader() {
  Loaded l;
  // RTLD_LOCAL: the loader's symbols stay out of the process's global namespace, so an
  // embedder's own OpenCL (linked or loaded) is not affected.
  void* handle = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = dlerror();
    l.why = "the OpenCL ICD loader libOpenCL.so.1 cannot be opened (" + std::string(e ? e : "not found") +
            "; Debian: apt install ocl-icd-libopencl1 and a driver such as pocl-opencl-icd)";
    return l;
  }
#define J2K_OPENCL_LOAD(name)                                                           \
  l.functions.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));         \
  if (l.functions.name == nullptr && l.why.empty())                                     \
    l.why = "the OpenCL ICD loader libOpenCL.so.1 has no " #name " (OpenCL 1.2 is needed)";
  J2K_OPENCL_FUNCTIONS(J2K_OPENCL_LOAD)
#undef J2K_OPENCL_LOAD
  return l;  // the handle stays open for the life of the process
}

const Loaded& loaded() {
  static const Loaded l = open_loader();  // thread-safe, once
  return l;
}

}  // namespace

const Library* library(std::string* why) {
  const Loaded& l = loaded();
  if (l.why.empty()) return &l.functions;
  if (why) *why = l.why;
  return nullptr;
}

const Library& cl() {
  std::string why;
  const Library* lib = library(&why);
  if (lib == nullptr) throw Error(ErrorCode::BackendUnavailable, why);
  return *lib;
}

}  // namespace j2k::ocl

// LeakSanitizer, in AddressSanitizer builds only: the OpenCL ICD loader and the drivers (PoCL
// in CI) keep allocations for the life of the process that are not ours to free. Weak, so that
// an embedder's own list takes precedence.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define J2K_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(J2K_ADDRESS_SANITIZER)
extern "C" __attribute__((weak)) const char* __lsan_default_suppressions() {
  return "leak:libOpenCL.so\nleak:libpocl.so\n";
}
#endif
