// SPDX-License-Identifier: BSD-2-Clause
#include "tools/env_options.hpp"

#include <cstdlib>
#include <string>

#include "common/error.hpp"

namespace j2k::tools {

int device_from_env(Backend backend, int device) {
  if (device >= 0 || backend == Backend::Cpu) return device;
  const char* env = std::getenv("J2KFRONT_DEVICE");
  if (env == nullptr || *env == '\0') return -1;
  char* end = nullptr;
  const long v = std::strtol(env, &end, 10);
  if (end == env || *end != '\0' || v < 0 || v > 4096)
    throw Error(ErrorCode::InvalidArgument,
                std::string("J2KFRONT_DEVICE='") + env + "' is not a device index");
  return static_cast<int>(v);
}

std::string opencl_tuning_from_env() {
  const char* tuning = std::getenv("J2KFRONT_OPENCL_TUNING");
  std::string spec = tuning ? tuning : "";
  const char* log = std::getenv("J2KFRONT_OPENCL_BUILDLOG");
  if (log && *log && std::string(log) != "0") spec += spec.empty() ? "buildlog" : ",buildlog";
  return spec;
}

void apply_env_options(j2k_settings& settings, std::string& tuning) {
  settings.device = device_from_env(settings.backend == J2K_BACKEND_CPU ? Backend::Cpu : Backend::Auto,
                                    settings.device);
  // The OpenCL items as the settings name them (backend_options, j2kfront.h).
  tuning.clear();
  const std::string spec = opencl_tuning_from_env();
  size_t start = 0;
  while (start < spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string::npos) end = spec.size();
    if (end > start) tuning += (tuning.empty() ? "opencl." : ",opencl.") + spec.substr(start, end - start);
    start = end + 1;
  }
  settings.backend_options = tuning.c_str();
}

}  // namespace j2k::tools
