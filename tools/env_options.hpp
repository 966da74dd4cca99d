// SPDX-License-Identifier: BSD-2-Clause
// The CLI's environment variables. The library reads none; the command line maps its own
// onto the options: J2KFRONT_DEVICE (when --device is not given), J2KFRONT_OPENCL_TUNING and
// J2KFRONT_OPENCL_BUILDLOG (non-empty and not "0": the tuning item "buildlog").
#pragma once
#include <string>

#include "transform/backend.hpp"
#include "j2kfront/j2kfront.hpp"

namespace j2k::tools {

// `device` when it is >= 0 or the backend is the CPU (no device to choose), else
// J2KFRONT_DEVICE, else -1. A value of the variable that is not a non-negative integer throws
// Error(InvalidArgument) naming it, never silently the first device.
int device_from_env(Backend backend, int device);

// J2KFRONT_OPENCL_TUNING, plus "buildlog" for J2KFRONT_OPENCL_BUILDLOG; "" when neither is set.
std::string opencl_tuning_from_env();

// Both of the above on the settings that the command line has filled; `tuning` keeps the
// string that settings.backend_options points to (the tuning items as "opencl.<item>").
void apply_env_options(j2k_settings& settings, std::string& tuning);

}  // namespace j2k::tools
