// SPDX-License-Identifier: BSD-2-Clause
// The C interface's status and message handling, version, settings defaults, backend names
// and the view helpers. Every entry point of api/ runs its body through `guard`, which turns
// any exception into a status and this thread's last error message.
#include <new>
#include <string>

#include "api/guard.hpp"
#include "common/c_enum.hpp"
#include "j2kfront/j2kfront.h"
#include "transform/backend.hpp"

namespace j2k::api {

std::string& last_error() {
  thread_local std::string message;
  return message;
}

j2k_status fail(j2k_status status, const std::string& message) {
  last_error() = message;
  return status;
}

j2k_status from_current_exception() {
  try {
    throw;
  } catch (const Error& e) {
    return fail(static_cast<j2k_status>(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return fail(J2K_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return fail(J2K_INTERNAL_ERROR, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(J2K_INTERNAL_ERROR, "internal error: unknown exception");
  }
}

// Component c starts `channel_step` bytes after component c - 1.
// Each view's bytes: what is left of the buffer from its first sample on.
void fill_views(j2k_component_view* out, int channels, const void* data, size_t bytes, j2k_sample_type type,
                int precision, ptrdiff_t row_stride, ptrdiff_t channel_step, ptrdiff_t pixel_stride) {
  for (int c = 0; out != nullptr && c < channels; ++c) {
    out[c] = j2k_component_view{};
    const ptrdiff_t start = c * channel_step;
    out[c].data = data ? static_cast<const char*>(data) + start : nullptr;
    out[c].bytes = start >= 0 && static_cast<size_t>(start) <= bytes ? bytes - static_cast<size_t>(start) : 0;
    out[c].type = type;
    out[c].precision = precision;
    out[c].dx = out[c].dy = 1;
    out[c].row_stride = row_stride;
    out[c].pixel_stride = pixel_stride;
  }
}

}  // namespace j2k::api

using j2k::api::guard;

extern "C" {

const char* j2k_status_name(j2k_status status) {
  switch (j2k::c_enum(status)) {
    case J2K_OK: return "J2K_OK";
    case J2K_INVALID_ARGUMENT: return "J2K_INVALID_ARGUMENT";
    case J2K_UNSUPPORTED_INPUT: return "J2K_UNSUPPORTED_INPUT";
    case J2K_CORRUPT_INPUT: return "J2K_CORRUPT_INPUT";
    case J2K_IO_ERROR: return "J2K_IO_ERROR";
    case J2K_BACKEND_UNAVAILABLE: return "J2K_BACKEND_UNAVAILABLE";
    case J2K_BACKEND_FAILURE: return "J2K_BACKEND_FAILURE";
    case J2K_OUT_OF_MEMORY: return "J2K_OUT_OF_MEMORY";
    case J2K_INTERNAL_ERROR: return "J2K_INTERNAL_ERROR";
  }
  return "unknown status";
}

const char* j2k_last_error(void) { return j2k::api::last_error().c_str(); }

const char* j2k_version(void) { return J2KFRONT_VERSION_STRING; }

void j2k_settings_default(j2k_settings* s) {
  if (s == nullptr) return;
  *s = j2k_settings{};
  s->wavelet = J2K_WAVELET_53;
  s->levels = 5;
  s->mct = J2K_MCT_AUTO;
  s->backend = J2K_BACKEND_AUTO;
  s->threads = 0;
  s->device = -1;
  s->output_memory = J2K_MEMORY_HOST;
  s->backend_options = nullptr;
}

const char* j2k_backend_name(j2k_backend backend) {
  switch (j2k::c_enum(backend)) {
    case J2K_BACKEND_AUTO: return "auto";
    case J2K_BACKEND_CPU: return "cpu";
    case J2K_BACKEND_CUDA: return "cuda";
    case J2K_BACKEND_OPENCL: return "opencl";
  }
  return nullptr;
}

int j2k_backend_available(j2k_backend backend, const char** why) {
  thread_local std::string reason;
  reason.clear();
  int ok = 0;
  const j2k_status s = guard([&] {
    ok = j2k::backend_available(j2k::api::backend_from(backend), &reason) ? 1 : 0;
  });
  if (s != J2K_OK) reason = j2k_last_error();
  if (why) *why = reason.c_str();
  return ok;
}

size_t j2k_sample_size(j2k_sample_type type) {
  switch (j2k::c_enum(type)) {
    case J2K_SAMPLE_U8:
    case J2K_SAMPLE_I8: return 1;
    case J2K_SAMPLE_U16:
    case J2K_SAMPLE_I16: return 2;
    case J2K_SAMPLE_U32:
    case J2K_SAMPLE_I32:
    case J2K_SAMPLE_F32: return 4;
  }
  return 0;
}

void j2k_views_interleaved(j2k_component_view* out, int channels, const void* data, size_t bytes,
                           j2k_sample_type type, int precision, ptrdiff_t row_stride) {
  const auto size = static_cast<ptrdiff_t>(j2k_sample_size(type));
  j2k::api::fill_views(out, channels, data, bytes, type, precision, row_stride, size, size * channels);
}

void j2k_views_planar(j2k_component_view* out, int channels, const void* data, size_t bytes,
                      j2k_sample_type type, int precision, ptrdiff_t row_stride,
                      ptrdiff_t plane_stride) {
  const auto size = static_cast<ptrdiff_t>(j2k_sample_size(type));
  j2k::api::fill_views(out, channels, data, bytes, type, precision, row_stride, plane_stride, size);
}

}  // extern "C"
