// SPDX-License-Identifier: BSD-2-Clause
// The OpenCL DWT backend's internals, shared by the runner (runner.cpp), the benchmark
// (bench/opencl_bench.cpp) and the OpenCL-specific tests (tests/opencl_test.cpp).
// Not part of the public API.
#pragma once
#include "device/opencl/opencl_device.hpp"  // CL/cl.h, cl(), devices, errors, buffers

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transform/common/constants.hpp"
#include "transform/dwt.hpp"
#include "tiling/geometry.hpp"

namespace j2k::ocl {

// How many times a DWT program has been compiled in this process (programs are cached per
// device and build options, so engines after the first on a device add nothing).
uint64_t program_builds();

// Tile and window sizes of the kernels, from BackendOptions::opencl_tuning: a comma-separated
// list of items. `small` shrinks them so that small test images cross every strip, segment,
// window and chunk boundary; `key=value` overrides one (keys: the member names below), e.g.
// "hp=2,hgroup=128" or "small,hcpg=1", for tuning experiments; `buildlog` prints the program's
// build log to stderr when it is compiled; `max_alloc=N` is the device's (max_alloc_option(),
// device/opencl/opencl_device.hpp), kept here for the runner. An unknown
// item or a value the kernels cannot take throws Error(InvalidArgument).
struct Tuning {
  int vcols = 32;  // vertical: strip width = work-group width
  int vr = 8;      // vertical: work-group height
  int vwin = 120;  // vertical: rows per window position
  int vcap = 128;  // vertical: ring-buffer rows (power of two >= vwin + 6)
  int vseg = 0;    // vertical: rows per segment (0 = chosen from the device size)
  int hp = 4;      // horizontal: output pairs per work-item
  int hx_min = 16, hx_max = 64;  // horizontal: work-group width range (power of two)
  int hgroup = 256;              // horizontal: work-items per group (GPUs: 128)
  int hcpg = 0;    // horizontal: chunks of a row per group (0: GPUs 1, else the whole row)
  int vgpc = 0;    // vertical: work-groups per compute unit aimed at (0: 2; GPUs: 16)
  bool build_log = false;  // not a build option: the cached program is shared
  uint64_t max_alloc = 0;  // not a build option: the largest buffer, if below the device's (0: the device's)
  // The device's defaults with `spec` applied, shrunk to the work-group sizes `device` can
  // run. Throws Error(InvalidArgument) naming both figures when the kernels would then need
  // more local memory than the device has (a driver would fail at launch, or worse).
  static Tuning for_device(const DeviceInfo& device, const std::string& spec = {});
  // Bytes of local memory the kernels take: the vertical pass's ring buffer; the horizontal
  // pass's input rows (with the 2 * steps + 2 border samples) and output rows, for groups `hx`
  // wide and `hy` high (dwt.cl); and the most the horizontal pass takes over the group widths
  // it may choose.
  uint64_t vertical_local_bytes() const;
  static uint64_t horizontal_in_bytes(int hx, int hy, int hp, int steps);
  static uint64_t horizontal_out_bytes(int hx, int hy, int hp);
  uint64_t horizontal_local_bytes() const;
  std::string build_options() const;
  std::string describe() const;  // "vcols=32,vr=8,..."
};

// One device's queue and kernels (the program and context are shared, cached per device).
// Not thread-safe: one Runner per thread.
class Runner {
 public:
  // `tuning`: BackendOptions::opencl_tuning.
  explicit Runner(int device_index, const std::string& tuning = {}, bool profiling = false);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // The device as listed, its max_alloc lowered to the tuning's max_alloc where that is less.
  const DeviceInfo& device() const;
  const Tuning& tuning() const;
  cl_context context() const;
  cl_command_queue queue() const;
  cl_program program() const;  // also holds the shift and MCT kernels of dwt.cl

  // One pass of one level on the top-left width x height block; src and dst are different
  // buffers with the same stride (in elements). Asynchronous; `event` (if given) receives
  // the kernel's event, which the caller releases.
  // `scale`: how the inverse 9/7 scales, the standard's or OpenJPEG's decoder's (a kernel of
  // its own each; any other is refused).
  void vertical(Wavelet w, bool forward, cl_mem src, cl_mem dst, size_t stride, int64_t width,
                int64_t height, int cas, cl_event* event = nullptr,
                const constants::Inverse97Scale& scale = constants::kInverse97Standard);
  void horizontal(Wavelet w, bool forward, cl_mem src, cl_mem dst, size_t stride,
                  int64_t width, int64_t height, int cas, cl_event* event = nullptr,
                  const constants::Inverse97Scale& scale = constants::kInverse97Standard);
  // Every level (as dwt_levels returns them, largest first): data in `a`, `b` is scratch of
  // the same size; the result is back in `a`. Asynchronous.
  void transform(Wavelet w, bool forward, cl_mem a, cl_mem b, size_t stride,
                 const std::vector<DwtLevel>& levels,
                 const constants::Inverse97Scale& scale = constants::kInverse97Standard);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k::ocl
