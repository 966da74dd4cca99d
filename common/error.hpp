// SPDX-License-Identifier: BSD-2-Clause
// The one error type inside the library: a category plus a message that names the cause.
// The categories are the C interface's j2k_status values; api/ turns an Error into a status
// and a message at the boundary, so no exception ever crosses the C interface.
#pragma once
#include <stdexcept>
#include <string>

#include "j2kfront/j2kfront.h"

namespace j2k {

enum class ErrorCode {
  InvalidArgument = J2K_INVALID_ARGUMENT,        // a setting or geometry that is rejected
  UnsupportedInput = J2K_UNSUPPORTED_INPUT,      // a valid file we do not read (e.g. float TIFF)
  CorruptInput = J2K_CORRUPT_INPUT,              // a file that is truncated or inconsistent
  Io = J2K_IO_ERROR,                             // the operating system refused a read or write
  BackendUnavailable = J2K_BACKEND_UNAVAILABLE,  // backend not built in, or no device
  BackendFailure = J2K_BACKEND_FAILURE,          // a CUDA/OpenCL call failed at run time
  OutOfMemory = J2K_OUT_OF_MEMORY,               // host or device allocation failed
  Internal = J2K_INTERNAL_ERROR,                 // a broken invariant (a bug)
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace j2k
