// SPDX-License-Identifier: BSD-2-Clause
// The OpenCL DWT's runner: its tuning, a process-wide program cache and the per-pass kernel
// launches (kernels in dwt.cl, embedded at build time). Devices, errors and buffers are
// device/opencl's; the queue (queue.cpp) drives the runner.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "transform/common/constants.hpp"
#include "transform/dwt_engine.hpp"
#include "transform/opencl/dwt_cl_source.hpp"  // generated: kDwtClSource
#include "device/opencl/opencl_device.hpp"
#include "transform/opencl/opencl_dwt.hpp"

namespace j2k {
namespace ocl {

// ---------------------------------------------------------------- tuning

Tuning Tuning::for_device(const DeviceInfo& device, const std::string& spec) {
  Tuning t;
  if (device.gpu) {
    // Measured on the H100 (NVIDIA OpenCL, 8192^2, docs/maintainers/experiments.md "OpenCL"): groups of 128
    // in the horizontal pass (its kernels need 80-92 registers: finer-grained occupancy; the
    // 9/7 inverse pass 1.35x faster), and 16 vertical groups per compute unit.
    t.hgroup = 128;
    t.vgpc = 16;
  }
  for (const std::string& item : tuning_items(spec)) {
    if (item == "small") {
      t.vcols = 4;
      t.vr = 2;
      t.vwin = 8;
      t.vcap = 16;
      t.vseg = 11;
      t.hp = 1;
      t.hx_min = t.hx_max = 8;
      t.hgroup = 16;
      t.hcpg = 2;  // groups of two chunks: both the shared and the re-read chunk border
      continue;
    }
    if (item == "buildlog") {
      t.build_log = true;
      continue;
    }
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    if (key == "max_alloc" && eq != std::string::npos) {  // the device's (device/opencl)
      t.max_alloc = max_alloc_option(item);
      continue;
    }
    char* stop = nullptr;
    const long v = eq == std::string::npos ? -1 : std::strtol(item.c_str() + eq + 1, &stop, 10);
    int* field = key == "vcols"    ? &t.vcols
                 : key == "vr"     ? &t.vr
                 : key == "vwin"   ? &t.vwin
                 : key == "vcap"   ? &t.vcap
                 : key == "vseg"   ? &t.vseg
                 : key == "vgpc"   ? &t.vgpc
                 : key == "hp"     ? &t.hp
                 : key == "hx_min" ? &t.hx_min
                 : key == "hx_max" ? &t.hx_max
                 : key == "hgroup" ? &t.hgroup
                 : key == "hcpg"   ? &t.hcpg
                                   : nullptr;
    if (!field || v < 0 || v > 1 << 20 || (stop && *stop != '\0'))
      throw Error(ErrorCode::InvalidArgument,
                  "OpenCL tuning: cannot use '" + item + "'");
    *field = static_cast<int>(v);
  }
  auto pow2 = [](int v) { return v > 0 && (v & (v - 1)) == 0; };
  if (t.vcols < 1 || t.vr < 1 || t.vwin < t.vr || !pow2(t.vcap) || t.vcap < t.vwin + 6 ||
      t.hp < 1 || !pow2(t.hx_min) || !pow2(t.hx_max) || t.hx_min < 8 || t.hx_min > t.hx_max ||
      t.hgroup < 1)
    throw Error(ErrorCode::InvalidArgument,
                "OpenCL tuning '" + spec + "' gives sizes the kernels cannot run");
  // OpenCL 1.2 guarantees no work-group size; the defaults need 256 work-items.
  const auto max_wg = static_cast<int>(std::min<size_t>(device.max_work_group, 1 << 20));
  if (max_wg > 0) {
    while (t.vcols * t.vr > max_wg && t.vr > 1) t.vr /= 2;
    while (t.vcols * t.vr > max_wg && t.vcols > 1) t.vcols /= 2;
    t.hgroup = std::min(t.hgroup, max_wg);
    t.hx_max = std::min(t.hx_max, std::max(t.hgroup, 8));
    t.hx_min = std::min(t.hx_min, t.hx_max);
  }
  // And to the work-items along each dimension: x is the strip or chunk width, y the rows.
  const auto max_x = static_cast<int>(std::min<size_t>(device.max_items[0], 1 << 20));
  const auto max_y = static_cast<int>(std::min<size_t>(device.max_items[1], 1 << 20));
  if (max_x > 0) {
    while (t.vcols > max_x && t.vcols > 1) t.vcols /= 2;
    while (t.hx_max > max_x && t.hx_max > 8) t.hx_max /= 2;
    t.hx_min = std::min(t.hx_min, t.hx_max);
  }
  if (max_y > 0) {
    while (t.vr > max_y && t.vr > 1) t.vr /= 2;
    t.hgroup = std::min(t.hgroup, t.hx_min * max_y);  // rows of the narrowest groups
  }
  if (device.local_mem > 0) {
    const uint64_t v = t.vertical_local_bytes(), h = t.horizontal_local_bytes();
    if (std::max(v, h) > device.local_mem)
      throw Error(ErrorCode::InvalidArgument,
                  "OpenCL tuning '" + t.describe() + "' needs " + std::to_string(std::max(v, h)) +
                      " bytes of local memory in the " + (v >= h ? "vertical" : "horizontal") +
                      " pass, more than the device's " + std::to_string(device.local_mem) +
                      (spec.empty() ? "" : " (tuning given: '" + spec + "')"));
  }
  return t;
}

uint64_t Tuning::vertical_local_bytes() const {
  return uint64_t{4} * static_cast<uint64_t>(vcap) * static_cast<uint64_t>(vcols);  // int32 and float32 alike
}

namespace {
// Rows in local memory skip a word in every 32 (dwt.cl: PADDED); int32 and float32 alike.
uint64_t padded_row_bytes(uint64_t words) { return 4 * (words + words / 32 + 1); }
}  // namespace

uint64_t Tuning::horizontal_in_bytes(int hx, int hy, int hp, int steps) {
  const uint64_t chunk = uint64_t{2} * static_cast<uint64_t>(hx) * static_cast<uint64_t>(hp);
  return static_cast<uint64_t>(hy) * padded_row_bytes(chunk + 2 * static_cast<uint64_t>(steps) + 2);
}

uint64_t Tuning::horizontal_out_bytes(int hx, int hy, int hp) {
  return static_cast<uint64_t>(hy) * padded_row_bytes(uint64_t{2} * static_cast<uint64_t>(hx) * static_cast<uint64_t>(hp));
}

uint64_t Tuning::horizontal_local_bytes() const {
  uint64_t most = 0;
  for (int hx = hx_min; hx <= hx_max && hx > 0; hx *= 2) {
    const int hy = std::max(1, hgroup / hx);
    most = std::max(most, horizontal_in_bytes(hx, hy, hp, 4) + horizontal_out_bytes(hx, hy, hp));  // 9/7: 4 steps
  }
  return most;
}

std::string Tuning::describe() const {
  return "vcols=" + std::to_string(vcols) + ",vr=" + std::to_string(vr) +
         ",vwin=" + std::to_string(vwin) + ",vcap=" + std::to_string(vcap) +
         ",vseg=" + std::to_string(vseg) + ",vgpc=" + std::to_string(vgpc) +
         ",hp=" + std::to_string(hp) + ",hx_min=" + std::to_string(hx_min) +
         ",hx_max=" + std::to_string(hx_max) + ",hgroup=" + std::to_string(hgroup) +
         ",hcpg=" + std::to_string(hcpg) + (max_alloc ? ",max_alloc=" + std::to_string(max_alloc) : "");
}

std::string Tuning::build_options() const {
  // The 9/7 constants as exact hexadecimal float literals, from the CPU reference itself.
  auto hex = [](float v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "(%af)", static_cast<double>(v));
    return std::string(buf);
  };
  std::string o = "-cl-std=CL1.2";
  o += " -DVCOLS=" + std::to_string(vcols) + " -DVR=" + std::to_string(vr) +
       " -DVWIN=" + std::to_string(vwin) + " -DVCAP=" + std::to_string(vcap) +
       " -DHP=" + std::to_string(hp);
  o += " -DK97_A=" + hex(constants::kAlpha) + " -DK97_B=" + hex(constants::kBeta) +
       " -DK97_G=" + hex(constants::kGamma) + " -DK97_D=" + hex(constants::kDelta) +
       " -DK97_K=" + hex(constants::kK) + " -DK97_INVK=" + hex(constants::kInvK) +
       " -DK97_OJP_HIGH=" + hex(constants::kInverse97OpenJpeg.high);
  using namespace constants;
  o += " -DICT_YR=" + hex(kIctYR) + " -DICT_YG=" + hex(kIctYG) + " -DICT_YB=" + hex(kIctYB) +
       " -DICT_UR=" + hex(kIctUR) + " -DICT_UG=" + hex(kIctUG) + " -DICT_UB=" + hex(kIctUB) +
       " -DICT_VR=" + hex(kIctVR) + " -DICT_VG=" + hex(kIctVG) + " -DICT_VB=" + hex(kIctVB) +
       " -DICT_RV=" + hex(kIctRV) + " -DICT_GU=" + hex(kIctGU) + " -DICT_GV=" + hex(kIctGV) + " -DICT_BU=" + hex(kIctBU);
  return o;
}

// ---------------------------------------------------------------- program cache

namespace {

// One program per (device, build options), in the device's one context (context_for), for
// the whole process. They are never released: the process keeps them to its end (releasing them from
// static destructors races the ICD loader's own teardown).
struct Compiled {
  cl_context context = nullptr;
  cl_program program = nullptr;
};

std::mutex g_cache_mutex;
uint64_t g_builds = 0;

Compiled compiled_for(const DeviceInfo& dev, const std::string& options, bool show_log) {
  static std::map<std::pair<cl_device_id, std::string>, cl_program> programs;
  cl_context ctx = context_for(dev);  // the device's, shared with Tier-1's batches
  std::lock_guard<std::mutex> lock(g_cache_mutex);
  cl_program& prog = programs[{dev.id, options}];
  if (!prog) {
    cl_int err = CL_SUCCESS;
    const char* src = kDwtClSource;
    cl_program p = cl().clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
    check(err, "clCreateProgramWithSource");
    // On NVIDIA, first with explicitly rounded PTX arithmetic (see dwt.cl); should that
    // compiler refuse inline PTX, the portable source relies on FP_CONTRACT OFF alone.
    // show_log (tuning "buildlog") prints the build log (on NVIDIA with -cl-nv-verbose:
    // registers, spills and shared memory of every kernel) to stderr.
    const bool nvidia = dev.platform_name.find("NVIDIA") != std::string::npos;
    err = nvidia ? cl().clBuildProgram(p, 1, &dev.id,
                                  (options + " -DJ2K_PTX_RN=1" + (show_log ? " -cl-nv-verbose" : ""))
                                      .c_str(),
                                  nullptr, nullptr)
                 : CL_BUILD_PROGRAM_FAILURE;
    if (!nvidia || err != CL_SUCCESS)
      err = cl().clBuildProgram(p, 1, &dev.id, options.c_str(), nullptr, nullptr);
    if (err != CL_SUCCESS) {
      std::string log;
      size_t n = 0;
      if (cl().clGetProgramBuildInfo(p, dev.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) == CL_SUCCESS &&
          n > 0) {
        log.resize(n);
        cl().clGetProgramBuildInfo(p, dev.id, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
        log.resize(log.find('\0') == std::string::npos ? log.size() : log.find('\0'));
      }
      cl().clReleaseProgram(p);
      throw Error(ErrorCode::BackendFailure, "clBuildProgram: " + error_name(err) + " on " +
                                                 dev.name + "; build log:\n" + log);
    }
    if (show_log) {
      size_t n = 0;
      if (cl().clGetProgramBuildInfo(p, dev.id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) == CL_SUCCESS &&
          n > 1) {
        std::string log(n, '\0');
        cl().clGetProgramBuildInfo(p, dev.id, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
        std::fprintf(stderr, "OpenCL build log (%s):\n%s\n", options.c_str(), log.c_str());
      }
    }
    prog = p;
    ++g_builds;
  }
  return Compiled{ctx, prog};
}

}  // namespace

uint64_t program_builds() {
  std::lock_guard<std::mutex> lock(g_cache_mutex);
  return g_builds;
}

// ---------------------------------------------------------------- runner

namespace {
constexpr int kVertical = 0, kHorizontal = 1;
constexpr int kKernels = 10;
const char* const kKernelNames[kKernels] = {"vertical_f53",   "vertical_i53",   "vertical_f97",   "vertical_i97",
                                            "horizontal_f53", "horizontal_i53", "horizontal_f97", "horizontal_i97",
                                            "vertical_i97o",  "horizontal_i97o"};
// The kernel of a pass: slots 8 and 9 are the inverse 9/7 with OpenJPEG's decoder's scaling.
int kernel_slot(int pass, Wavelet w, bool forward, const constants::Inverse97Scale& scale) {
  if (!forward && w == Wavelet::Irreversible97 && scale != constants::kInverse97Standard) {
    if (scale != constants::kInverse97OpenJpeg)
      throw Error(ErrorCode::InvalidArgument, "OpenCL DWT: an inverse 9/7 scaling other than the standard's or OpenJPEG's");
    return 8 + pass;
  }
  return pass * 4 + (w == Wavelet::Irreversible97 ? 2 : 0) + (forward ? 0 : 1);
}

int lifting_steps(Wavelet w) { return w == Wavelet::Irreversible97 ? 4 : 2; }

int to_int(int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX / 2)
    throw Error(ErrorCode::InvalidArgument,
                std::string("OpenCL DWT: ") + what + " " + std::to_string(v) + " is too large");
  return static_cast<int>(v);
}
}  // namespace

struct Runner::Impl {
  DeviceInfo dev;
  Tuning tuning;
  Compiled compiled;
  cl_command_queue queue = nullptr;
  cl_kernel kernels[kKernels] = {};

  ~Impl() {
    for (cl_kernel k : kernels)
      if (k) cl().clReleaseKernel(k);
    if (queue) cl().clReleaseCommandQueue(queue);
  }

  template <class A>
  void arg(cl_kernel k, cl_uint i, const A& v) {
    check(cl().clSetKernelArg(k, i, sizeof(A), &v), "clSetKernelArg");
  }

  void launch(cl_kernel k, const size_t global[2], const size_t local[2], cl_event* ev) {
    check(cl().clEnqueueNDRangeKernel(queue, k, 2, nullptr, global, local, 0, nullptr, ev),
          "clEnqueueNDRangeKernel");
  }
};

Runner::Runner(int device_index, const std::string& tuning, bool profiling)
    : impl_(std::make_unique<Impl>()) {
  std::string why;
  std::vector<DeviceInfo> devs = list_devices(&why);
  if (devs.empty()) throw Error(ErrorCode::BackendUnavailable, "backend 'opencl' is not available: " + why);
  if (device_index < 0 || device_index >= static_cast<int>(devs.size()))
    throw Error(ErrorCode::InvalidArgument, "OpenCL device index " + std::to_string(device_index) +
                                                " is out of range: " + std::to_string(devs.size()) +
                                                " devices exist");
  Impl& m = *impl_;
  m.dev = devs[static_cast<size_t>(device_index)];
  if (!m.dev.usable)
    throw Error(ErrorCode::BackendUnavailable, "OpenCL device " + std::to_string(device_index) +
                                                   " (" + m.dev.name + ", " + m.dev.version +
                                                   ") is unavailable or older than OpenCL 1.2");
  m.tuning = Tuning::for_device(m.dev, tuning);
  m.dev.max_alloc = largest_buffer(m.dev, m.tuning.max_alloc);
  m.compiled = compiled_for(m.dev, m.tuning.build_options(), m.tuning.build_log);
  cl_int err = CL_SUCCESS;
  m.queue = cl().clCreateCommandQueue(m.compiled.context, m.dev.id,
                                 profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
  check(err, "clCreateCommandQueue");
  for (int i = 0; i < kKernels; ++i) {
    m.kernels[i] = cl().clCreateKernel(m.compiled.program, kKernelNames[i], &err);
    check(err, "clCreateKernel");
  }
}

Runner::~Runner() = default;

const DeviceInfo& Runner::device() const { return impl_->dev; }
const Tuning& Runner::tuning() const { return impl_->tuning; }
cl_context Runner::context() const { return impl_->compiled.context; }
cl_command_queue Runner::queue() const { return impl_->queue; }
cl_program Runner::program() const { return impl_->compiled.program; }

void Runner::vertical(Wavelet w, bool forward, cl_mem src, cl_mem dst, size_t stride,
                      int64_t width, int64_t height, int cas, cl_event* event,
                      const constants::Inverse97Scale& scale) {
  if (width <= 0 || height <= 0) return;
  Impl& m = *impl_;
  const Tuning& t = m.tuning;
  const int wi = to_int(width, "width"), n = to_int(height, "height");
  const int64_t strips = (width + t.vcols - 1) / t.vcols;
  // Segments of rows, so that narrow images and the coarse levels still fill the device;
  // each costs S rows read twice and a pipeline start, so keep them at least 64 rows long.
  int seg = n;
  if (t.vseg > 0) {
    seg = t.vseg;
  } else {
    const int64_t target = int64_t{m.dev.compute_units} * (t.vgpc > 0 ? t.vgpc : 2);
    const int64_t max_segs = std::max<int64_t>(1, n / 64);
    const int64_t segs = std::clamp<int64_t>((target + strips - 1) / strips, 1, max_segs);
    seg = static_cast<int>((n + segs - 1) / segs);
  }
  const int64_t segs = n == 1 ? 1 : (n + seg - 1) / seg;
  cl_kernel k = m.kernels[kernel_slot(kVertical, w, forward, scale)];
  const cl_long s = static_cast<cl_long>(stride);
  const cl_int casv = cas, wv = wi, nv = n, segv = seg;
  m.arg(k, 0, src);
  m.arg(k, 1, dst);
  m.arg(k, 2, s);
  m.arg(k, 3, wv);
  m.arg(k, 4, nv);
  m.arg(k, 5, casv);
  m.arg(k, 6, segv);
  const size_t global[2] = {static_cast<size_t>(strips * t.vcols),
                            static_cast<size_t>(segs * t.vr)};
  const size_t local[2] = {static_cast<size_t>(t.vcols), static_cast<size_t>(t.vr)};
  m.launch(k, global, local, event);
}

void Runner::horizontal(Wavelet w, bool forward, cl_mem src, cl_mem dst, size_t stride,
                        int64_t width, int64_t height, int cas, cl_event* event,
                        const constants::Inverse97Scale& scale) {
  if (width <= 0 || height <= 0) return;
  Impl& m = *impl_;
  const Tuning& t = m.tuning;
  const int n = to_int(width, "width"), h = to_int(height, "height");
  // Group width: the smallest power of two whose chunk covers the row, within limits.
  int hx = t.hx_min;
  while (hx < t.hx_max && int64_t{hx} * 2 * t.hp < n) hx *= 2;
  const int hy = std::max(1, t.hgroup / hx);
  const int S = lifting_steps(w);
  const size_t chunk = static_cast<size_t>(hx) * 2 * static_cast<size_t>(t.hp);
  const auto in_bytes = static_cast<size_t>(Tuning::horizontal_in_bytes(hx, hy, t.hp, S));
  const auto out_bytes = static_cast<size_t>(Tuning::horizontal_out_bytes(hx, hy, t.hp));
  cl_kernel k = m.kernels[kernel_slot(kHorizontal, w, forward, scale)];
  const cl_long s = static_cast<cl_long>(stride);
  const cl_int nv = n, hv = h, casv = cas;
  m.arg(k, 0, src);
  m.arg(k, 1, dst);
  m.arg(k, 2, s);
  m.arg(k, 3, nv);
  m.arg(k, 4, hv);
  m.arg(k, 5, casv);
  // Chunks of a row per work-group: on a GPU one (many independent groups; each re-reads the
  // 2S+2 border samples of its chunk, from L2), elsewhere the whole row (as few groups as rows).
  const int64_t chunks = (int64_t{n} + static_cast<int64_t>(chunk) - 1) / static_cast<int64_t>(chunk);
  const int64_t cpg = std::min<int64_t>(chunks, t.hcpg > 0 ? t.hcpg : m.dev.gpu ? 1 : chunks);
  const cl_int cpgv = static_cast<cl_int>(cpg);
  m.arg(k, 6, cpgv);
  check(cl().clSetKernelArg(k, 7, in_bytes, nullptr), "clSetKernelArg");
  check(cl().clSetKernelArg(k, 8, out_bytes, nullptr), "clSetKernelArg");
  const int64_t groups = (int64_t{h} + hy - 1) / hy;
  const int64_t xgroups = n == 1 ? 1 : (chunks + cpg - 1) / cpg;
  const size_t global[2] = {static_cast<size_t>(xgroups * hx), static_cast<size_t>(groups * hy)};
  const size_t local[2] = {static_cast<size_t>(hx), static_cast<size_t>(hy)};
  m.launch(k, global, local, event);
}

void Runner::transform(Wavelet w, bool forward, cl_mem a, cl_mem b, size_t stride,
                       const std::vector<DwtLevel>& levels, const constants::Inverse97Scale& scale) {
  // Each pass reads one buffer and writes the other over the level's whole block, so two
  // passes per level leave the result in `a`; outside the block `a` already holds the finer
  // levels' subbands, which no later pass touches.
  if (forward) {
    for (const DwtLevel& lv : levels) {
      if (lv.width == 0 || lv.height == 0) continue;
      vertical(w, true, a, b, stride, lv.width, lv.height, lv.cas_y);
      horizontal(w, true, b, a, stride, lv.width, lv.height, lv.cas_x);
    }
  } else {
    for (auto lv = levels.rbegin(); lv != levels.rend(); ++lv) {
      if (lv->width == 0 || lv->height == 0) continue;
      horizontal(w, false, a, b, stride, lv->width, lv->height, lv->cas_x, nullptr, scale);
      vertical(w, false, b, a, stride, lv->width, lv->height, lv->cas_y, nullptr, scale);
    }
  }
}

}  // namespace ocl

}  // namespace j2k
