// SPDX-License-Identifier: BSD-2-Clause
// The boundary of the C interface: exceptions become a status plus this thread's message,
// and the C enums are checked before they become the library's own.
#pragma once
#include <string>

#include "common/c_enum.hpp"
#include "common/error.hpp"
#include "j2kfront/j2kfront.h"
#include "transform/backend.hpp"

namespace j2k::api {

std::string& last_error();  // this thread's message for j2k_last_error()
j2k_status fail(j2k_status status, const std::string& message);
j2k_status from_current_exception();  // call inside a catch block

// Runs `body`; J2K_OK with the message cleared, or the status of what it threw.
template <class Body>
j2k_status guard(Body&& body) noexcept {
  try {
    body();
    last_error().clear();
    return J2K_OK;
  } catch (...) {
    return from_current_exception();
  }
}

inline void require(bool ok, const std::string& what) {
  if (!ok) throw Error(ErrorCode::InvalidArgument, what);
}

inline Backend backend_from(const j2k_backend& b) {  // by reference: read through c_enum only
  switch (c_enum(b)) {
    case J2K_BACKEND_AUTO: return Backend::Auto;
    case J2K_BACKEND_CPU: return Backend::Cpu;
    case J2K_BACKEND_CUDA: return Backend::Cuda;
    case J2K_BACKEND_OPENCL: return Backend::OpenCL;
  }
  throw Error(ErrorCode::InvalidArgument, "unknown backend value " + std::to_string(c_enum(b)));
}

}  // namespace j2k::api
