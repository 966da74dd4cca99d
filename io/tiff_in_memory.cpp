// SPDX-License-Identifier: BSD-2-Clause
#include "io/tiff_in_memory.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>

namespace j2k::io {
namespace {

// The most libtiff may allocate at once for such a structure: its values are a few kilobytes,
// and the Exif the TIFF reader copies is at most 16 MiB.
constexpr tmsize_t kMaxAllocation = tmsize_t{32} << 20;

using Bytes = TiffInMemory::Bytes;

tmsize_t read_proc(thandle_t h, void* out, tmsize_t n) {
  auto* b = static_cast<Bytes*>(h);
  if (n < 0) return -1;
  const uint64_t take = std::min<uint64_t>(static_cast<uint64_t>(n), b->size - b->at);
  if (take > 0) std::memcpy(out, b->data + b->at, static_cast<size_t>(take));
  b->at += take;
  return static_cast<tmsize_t>(take);
}
tmsize_t write_proc(thandle_t, void*, tmsize_t) { return -1; }  // read-only
toff_t seek_proc(thandle_t h, toff_t offset, int whence) {
  auto* b = static_cast<Bytes*>(h);
  uint64_t base = 0;
  if (whence == SEEK_CUR) base = b->at;
  else if (whence == SEEK_END) base = b->size;
  else if (whence != SEEK_SET) return static_cast<toff_t>(-1);
  // Offsets are unsigned; a position past the bytes is refused rather than read as zeros.
  if (offset > b->size - base) return static_cast<toff_t>(-1);
  b->at = base + offset;
  return b->at;
}
int close_proc(thandle_t) { return 0; }
toff_t size_proc(thandle_t h) { return static_cast<Bytes*>(h)->size; }
int map_proc(thandle_t, void**, toff_t*) { return 0; }  // no mapping: every read goes through read_proc
void unmap_proc(thandle_t, void*, toff_t) {}

void append(std::string& out, const char* module, const char* fmt, va_list ap) {
  if (out.size() > 1000) return;
  char text[512];
  std::vsnprintf(text, sizeof text, fmt, ap);
  if (!out.empty()) out += "; ";
  if (module && *module) out += std::string(module) + ": ";
  out += text;
}

#if TIFFLIB_VERSION >= 20221213 && !defined(J2K_TIFF_GLOBAL_HANDLERS)
// libtiff 4.5: handlers of this file's own.
int on_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  append(*static_cast<std::string*>(user), module, fmt, ap);
  return 1;
}
int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

TIFF* open(Bytes* bytes, const char* mode, std::string* errors) {
  std::unique_ptr<TIFFOpenOptions, void (*)(TIFFOpenOptions*)> opts(TIFFOpenOptionsAlloc(), TIFFOpenOptionsFree);
  if (!opts) return nullptr;
  TIFFOpenOptionsSetErrorHandlerExtR(opts.get(), on_error, errors);
  TIFFOpenOptionsSetWarningHandlerExtR(opts.get(), on_warning, nullptr);
  TIFFOpenOptionsSetMaxSingleMemAlloc(opts.get(), kMaxAllocation);
  return TIFFClientOpenExt("memory", mode, bytes, read_proc, write_proc, seek_proc, close_proc, size_proc, map_proc,
                           unmap_proc, opts.get());
}
#else
// Older libtiff: process-wide handlers, ours only while the file is opened (what it reads later
// goes to the application's handlers).
thread_local std::string* current_errors = nullptr;
void on_error_global(const char* module, const char* fmt, va_list ap) {
  if (current_errors) append(*current_errors, module, fmt, ap);
}
void on_warning_global(const char*, const char*, va_list) {}

TIFF* open(Bytes* bytes, const char* mode, std::string* errors) {
  current_errors = errors;
  const TIFFErrorHandler error = TIFFSetErrorHandler(on_error_global);
  const TIFFErrorHandler warning = TIFFSetWarningHandler(on_warning_global);
  TIFF* t = TIFFClientOpen("memory", mode, bytes, read_proc, write_proc, seek_proc, close_proc, size_proc, map_proc,
                           unmap_proc);
  TIFFSetErrorHandler(error);
  TIFFSetWarningHandler(warning);
  current_errors = nullptr;
  return t;
}
#endif

}  // namespace

TiffInMemory::TiffInMemory(const uint8_t* data, size_t size, const char* mode) : bytes_{data, size, 0} {
  tif_ = open(&bytes_, mode, &errors_);
  if (tif_ == nullptr && errors_.empty()) errors_ = "not a TIFF structure libtiff reads";
}

TiffInMemory::~TiffInMemory() {
  if (tif_) TIFFClose(tif_);
}

}  // namespace j2k::io
