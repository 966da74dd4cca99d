// The one error type of the library: a category plus a message that names the cause.
#pragma once
#include <stdexcept>
#include <string>

namespace j2k {

enum class ErrorCode {
  InvalidArgument,   // a setting or geometry that the standard or this library rejects
  UnsupportedInput,  // a valid file we do not read (e.g. 32-bit float TIFF)
  CorruptInput,      // a file that is truncated or inconsistent
  Io,                // the operating system refused a read or write
  BackendUnavailable,  // the requested backend is not built in or has no device
  BackendFailure,      // a CUDA/OpenCL call failed at run time
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
