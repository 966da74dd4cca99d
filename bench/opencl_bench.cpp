// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench --backend opencl`: the OpenCL DWT kernels on device buffers, timed with
// OpenCL profiling events (median of `repeats` after one warm-up), against a
// clEnqueueCopyBuffer of the same int32 image in the same run. Picoseconds per pixel as
// Kucis et al. report them (their GTX 580, one 9/7 level at ~10 Mpixel: ~57 ps/pixel
// horizontal, ~64 ps/pixel vertical).
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "transform/dwt.hpp"
#include "common/error.hpp"
#include "transform/opencl/opencl_dwt.hpp"

namespace j2k::bench {
namespace {

// Start of the first and end of the last of `events`, in nanoseconds; releases them.
double span_ns(std::vector<cl_event>& events) {
  if (events.empty()) return 0;
  ocl::check(ocl::cl().clWaitForEvents(static_cast<cl_uint>(events.size()), events.data()),
             "clWaitForEvents");
  cl_ulong start = 0, end = 0;
  ocl::check(ocl::cl().clGetEventProfilingInfo(events.front(), CL_PROFILING_COMMAND_START, sizeof start,
                                     &start, nullptr),
             "clGetEventProfilingInfo");
  ocl::check(ocl::cl().clGetEventProfilingInfo(events.back(), CL_PROFILING_COMMAND_END, sizeof end, &end,
                                     nullptr),
             "clGetEventProfilingInfo");
  for (cl_event e : events) ocl::cl().clReleaseEvent(e);
  events.clear();
  return static_cast<double>(end - start);
}

// `enqueue` appends the events of one run; `prepare` (untimed) restores the input first.
double median_ms(int repeats, const std::function<void()>& prepare,
                 const std::function<void(std::vector<cl_event>&)>& enqueue) {
  std::vector<double> t;
  for (int i = -1; i < repeats; ++i) {  // i == -1: warm-up
    if (prepare) prepare();
    std::vector<cl_event> events;
    enqueue(events);
    const double ns = span_ns(events);
    if (i >= 0) t.push_back(ns * 1e-6);
  }
  return median(t);
}

}  // namespace

int run_opencl(const Options& o) {
  ocl::Runner runner(ocl::select_device(o.device), o.opencl_tuning, /*profiling=*/true);
  const ocl::DeviceInfo& dev = runner.device();
  cl_command_queue q = runner.queue();
  std::printf("backend: opencl (%s, %s, %s), %d levels, kernel time by profiling events, "
              "median of %d runs\n",
              dev.name.c_str(), dev.platform_name.c_str(), dev.version.c_str(), o.levels,
              o.repeats);
  std::printf("tuning: %s\n", runner.tuning().describe().c_str());
  // The tuning changes the times as much as the device does: both in every CSV row.
  DwtCsv csv(o, "opencl", dev.name + ", " + dev.platform_name + ", " + dev.version + "; tuning " +
                              runner.tuning().describe());
  std::printf("%-7s %-24s %10s %10s %9s\n", "size", "variant", "ms", "ps/pixel", "x copy");
  for (int64_t n : o.sizes) {
    const auto count = static_cast<size_t>(n * n);
    const size_t bytes = count * 4;
    if (dev.max_alloc && bytes > dev.max_alloc) {
      std::printf("%-7lld skipped: %zu bytes exceed the device's largest buffer (%llu)\n",
                  static_cast<long long>(n), bytes, static_cast<unsigned long long>(dev.max_alloc));
      continue;
    }
    const std::vector<int32_t> pattern = test_pattern(n, n, 8);
    std::vector<int32_t> ints(count);
    std::vector<float> floats(count);
    for (size_t i = 0; i < count; ++i) {
      ints[i] = pattern[i] - 128;
      floats[i] = static_cast<float>(ints[i]);
    }
    ocl::Buffer pristine(runner.context(), bytes), a(runner.context(), bytes),
        b(runner.context(), bytes);
    const auto stride = static_cast<size_t>(n);
    const std::vector<DwtLevel> levels = dwt_levels(Rect{0, 0, n, n}, o.levels);
    const double pixels = static_cast<double>(count);

    auto upload = [&](const void* host) {
      ocl::check(ocl::cl().clEnqueueWriteBuffer(q, pristine.get(), CL_TRUE, 0, bytes, host, 0, nullptr,
                                      nullptr),
                 "clEnqueueWriteBuffer");
    };
    auto restore = [&] {
      ocl::check(ocl::cl().clEnqueueCopyBuffer(q, pristine.get(), a.get(), 0, 0, bytes, 0, nullptr, nullptr),
                 "clEnqueueCopyBuffer");
    };

    // Yardstick: one device-to-device copy of the int32 image (read + write of every sample).
    upload(ints.data());
    restore();
    const double copy = median_ms(o.repeats, nullptr, [&](std::vector<cl_event>& ev) {
      ev.emplace_back();
      ocl::check(ocl::cl().clEnqueueCopyBuffer(q, a.get(), b.get(), 0, 0, bytes, 0, nullptr, &ev.back()),
                 "clEnqueueCopyBuffer");
    });
    auto row = [&](const std::string& variant, double ms, bool yardstick = false) {
      std::printf("%-7lld %-24s %10.3f %10.1f %9.2f\n", static_cast<long long>(n),
                  variant.c_str(), ms, ms * 1e9 / pixels, ms / copy);
      csv.row(n, variant, ms, copy, yardstick);
    };
    row("copy (yardstick)", copy, true);

    for (Wavelet w : {Wavelet::Reversible53, Wavelet::Irreversible97}) {
      const std::string name = w == Wavelet::Reversible53 ? "5/3 " : "9/7 ";
      if (w == Wavelet::Reversible53)
        upload(ints.data());
      else
        upload(floats.data());
      const DwtLevel l0 = levels.empty() ? DwtLevel{n, n, 0, 0} : levels.front();
      // One pass of the first level: reads `a` (restored once; passes are out of place).
      restore();
      for (bool fwd : {true, false}) {
        const std::string dir = fwd ? "forward" : "inverse";
        row(name + "vertical " + dir, median_ms(o.repeats, nullptr, [&](auto& ev) {
              ev.emplace_back();
              runner.vertical(w, fwd, a.get(), b.get(), stride, l0.width, l0.height, l0.cas_y,
                              &ev.back());
            }));
        row(name + "horizontal " + dir, median_ms(o.repeats, nullptr, [&](auto& ev) {
              ev.emplace_back();
              runner.horizontal(w, fwd, a.get(), b.get(), stride, l0.width, l0.height, l0.cas_x,
                                &ev.back());
            }));
      }
      row(name + "one level forward", median_ms(o.repeats, restore, [&](auto& ev) {
            ev.resize(2);
            runner.vertical(w, true, a.get(), b.get(), stride, l0.width, l0.height, l0.cas_y,
                            &ev[0]);
            runner.horizontal(w, true, b.get(), a.get(), stride, l0.width, l0.height, l0.cas_x,
                              &ev[1]);
          }));
      // The whole transform, first kernel's start to last kernel's end.
      for (bool fwd : {true, false}) {
        row(name + std::to_string(o.levels) + " levels " + (fwd ? "forward" : "inverse"),
            median_ms(o.repeats, restore, [&](auto& ev) {
              auto pass = [&](bool vertical, const DwtLevel& lv, cl_mem src, cl_mem dst) {
                if (lv.width == 0 || lv.height == 0) return;
                ev.emplace_back();
                if (vertical)
                  runner.vertical(w, fwd, src, dst, stride, lv.width, lv.height, lv.cas_y,
                                  &ev.back());
                else
                  runner.horizontal(w, fwd, src, dst, stride, lv.width, lv.height, lv.cas_x,
                                    &ev.back());
              };
              if (fwd) {
                for (const DwtLevel& lv : levels) {
                  pass(true, lv, a.get(), b.get());
                  pass(false, lv, b.get(), a.get());
                }
              } else {
                for (auto lv = levels.rbegin(); lv != levels.rend(); ++lv) {
                  pass(false, *lv, a.get(), b.get());
                  pass(true, *lv, b.get(), a.get());
                }
              }
            }));
      }
    }
  }
  csv.commit();
  return 0;
}

}  // namespace j2k::bench
