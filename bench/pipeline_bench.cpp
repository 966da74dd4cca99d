// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench --pipeline`: the whole front stage on the CUDA backend, host to host, through
// the public API (a plan run on an image view), against the link it has to cross: pinned
// host-to-device copies of the input's bytes and device-to-host copies of the coefficients'
// bytes, alone and together on two streams, timed in the same run. t_link is the time of both
// copies together: a pipeline that hides its transform behind the transfers reaches
// t_link / t_pipeline = 1.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "bench/timeline_svg.hpp"
#include "common/error.hpp"
#include "j2kfront/j2kfront.hpp"

namespace j2k::bench {
namespace {

using Clock = std::chrono::steady_clock;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(ErrorCode::BackendFailure, std::string(what) + ": " + cudaGetErrorString(e));
}

// Pinned host and device buffers for the link's own copies, freed on scope exit.
struct LinkBuffers {
  void *h_in = nullptr, *d_in = nullptr, *h_out = nullptr, *d_out = nullptr;
  LinkBuffers(size_t in, size_t out) {
    check(cudaMallocHost(&h_in, in), "cudaMallocHost");
    check(cudaMallocHost(&h_out, out), "cudaMallocHost");
    check(cudaMalloc(&d_in, in), "cudaMalloc");
    check(cudaMalloc(&d_out, out), "cudaMalloc");
  }
  ~LinkBuffers() {
    cudaFreeHost(h_in);
    cudaFreeHost(h_out);
    cudaFree(d_in);
    cudaFree(d_out);
  }
};

struct Link {
  double h2d_ms, d2h_ms, both_ms;
};

// Median times of the copies alone and of both at once (two streams), wall clock.
Link measure_link(size_t in, size_t out, int repeats) {
  LinkBuffers b(in, out);
  cudaStream_t s1, s2;
  check(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "cudaStreamCreate");
  auto time = [&](bool h2d, bool d2h) {
    std::vector<double> t;
    for (int r = 0; r <= repeats; ++r) {
      const auto t0 = Clock::now();
      if (h2d) check(cudaMemcpyAsync(b.d_in, b.h_in, in, cudaMemcpyHostToDevice, s1), "cudaMemcpyAsync");
      if (d2h) check(cudaMemcpyAsync(b.h_out, b.d_out, out, cudaMemcpyDeviceToHost, s2), "cudaMemcpyAsync");
      check(cudaStreamSynchronize(s1), "cudaStreamSynchronize");
      check(cudaStreamSynchronize(s2), "cudaStreamSynchronize");
      if (r > 0) t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    return median(t);
  };
  const Link l{time(true, false), time(false, true), time(true, true)};
  cudaStreamDestroy(s1);
  cudaStreamDestroy(s2);
  return l;
}

struct Input {
  const char* name;
  int channels;
  j2k_sample_type type;
  int precision;
};

// Caller-owned output sets in pinned memory, one per frame in flight: tile-component after
// tile-component, rows packed (the coefficients' bytes, no padding).
struct OutputSets {
  std::vector<void*> sets;
  size_t bytes;
  OutputSets(int count, size_t b) : bytes(b) {
    for (int i = 0; i < count; ++i) {
      void* p = nullptr;
      check(cudaMallocHost(&p, bytes), "cudaMallocHost");
      sets.push_back(p);
    }
  }
  ~OutputSets() {
    for (void* p : sets) cudaFreeHost(p);
  }
  void point(j2kfront::Plan& plan, size_t set) const {
    char* const begin = static_cast<char*>(sets[set]);
    char* at = begin;
    for (size_t i = 0; i < plan.tile_components(); ++i) {
      const j2k_coefficients c = plan.tile_component(i).coefficients;
      const auto size = static_cast<int64_t>(j2k_sample_size(c.type));
      plan.set_output(i, at, bytes - static_cast<size_t>(at - begin), c.width * size, J2K_MEMORY_PINNED);
      at += c.width * c.height * size;
    }
  }
};

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// A sequence of `frames` frames through the output sets, as many in flight as there are sets.
// Returns the frames' total time in ms; `submit_ms` gets the host's time inside submit() (the
// enqueueing of every copy and launch: where it nears the total, the host is the limit).
double run_frames(j2kfront::Plan& plan, const j2kfront::ImageView& view, const OutputSets& out, int frames,
                  double* submit_ms = nullptr) {
  const size_t depth = out.sets.size();
  std::vector<j2k_ticket> tickets;
  double submitting = 0;
  const auto t0 = Clock::now();
  for (int f = 0; f < frames; ++f) {
    const auto i = static_cast<size_t>(f);
    if (i >= depth) plan.wait(tickets[i - depth]);
    out.point(plan, i % depth);
    const auto s0 = Clock::now();
    tickets.push_back(plan.submit(view));
    submitting += ms_between(s0, Clock::now());
  }
  for (size_t i = tickets.size() > depth ? tickets.size() - depth : 0; i < tickets.size(); ++i) plan.wait(tickets[i]);
  if (submit_ms) *submit_ms = submitting;
  return ms_between(t0, Clock::now());
}

// Milliseconds during which at least one span of `stage` ran (on any stream).
double busy_ms(std::vector<j2k_span> spans, j2k_stage stage) {
  spans.erase(std::remove_if(spans.begin(), spans.end(), [&](const j2k_span& s) { return s.stage != stage; }),
              spans.end());
  std::sort(spans.begin(), spans.end(), [](const j2k_span& a, const j2k_span& b) { return a.begin_ms < b.begin_ms; });
  double total = 0, from = 0, to = -1;
  for (const j2k_span& s : spans) {
    if (s.begin_ms > to) {
      total += std::max(0.0, to - from);
      from = s.begin_ms;
    }
    to = std::max(to, s.end_ms);
  }
  return total + std::max(0.0, to - from);
}

// The timeline of three frames of `plan`, drawn into `path`, with how much of the time each
// stage was running somewhere.
void draw_timeline(j2kfront::Plan& plan, const j2kfront::ImageView& view, const OutputSets& out,
                   const std::string& path, const std::string& title) {
  plan.trace(true);
  run_frames(plan, view, out, 3);
  const std::vector<j2k_span> spans = plan.timeline();
  plan.trace(false);
  double end = 0;
  for (const j2k_span& s : spans) end = std::max(end, s.end_ms);
  write_timeline_svg(path, title, spans);
  std::printf("\ntimeline of 3 frames written to %s: %.2f ms, %zu spans; some upload running %.0f%% of the time, "
              "some transform %.0f%%, some download %.0f%%\n",
              path.c_str(), end, spans.size(), 100 * busy_ms(spans, J2K_STAGE_UPLOAD) / end,
              100 * busy_ms(spans, J2K_STAGE_TRANSFORM) / end, 100 * busy_ms(spans, J2K_STAGE_DOWNLOAD) / end);
}

}  // namespace

int run_pipeline(const Options& o) {
  const Input inputs[] = {{"RGB 8-bit", 3, J2K_SAMPLE_U8, 8}, {"gray 16-bit", 1, J2K_SAMPLE_U16, 16}};
  constexpr int kDepth = 3;  // frames in flight in the sequence rows
  const int frames = std::max(9, 2 * o.repeats);
  std::printf("front stage host to host on the cuda backend, %d levels; t_link = pinned H2D of the input\n"
              "and D2H of the coefficients (int32/float32, or int16) at once, same run.\n"
              "image: plan.run on one image at a time (coefficients int32/float32 into the plan's pinned\n"
              "buffers), median of %d runs. frames: a sequence of %d frames, %d in flight (submit/wait),\n"
              "each into its own pinned output set; time per frame, and the host's time in submit() per\n"
              "frame (copies of pageable input into pinned staging, and the enqueueing of every copy and\n"
              "launch). Streams per plan: %s.\n",
              o.levels, o.repeats, frames, kDepth,
              o.streams ? std::to_string(o.streams).c_str() : "the plan's default (3; 2 untiled)");
  // One row per printed row, with the link's times it is measured against; tile 0 is untiled.
  CsvFile csv(o.csv, {"backend", "device", "size", "input", "levels", "repeats", "frames", "in_flight", "streams",
                      "tile", "wavelet", "output", "memory", "bytes_in", "bytes_out", "link_h2d_ms", "link_d2h_ms",
                      "link_ms", "image_ms", "image_gb_per_s", "image_link_over_t", "frame_ms", "frame_gb_per_s",
                      "frame_link_over_t", "submit_ms_per_frame"});
  bool drawn = false;
  for (int64_t n : o.sizes) {
    for (const Input& in : inputs) {
      const size_t size = j2k_sample_size(in.type);
      const size_t bytes_in = static_cast<size_t>(n * n) * in.channels * size;
      const size_t bytes_out = static_cast<size_t>(n * n) * in.channels * 4;
      const Link link = measure_link(bytes_in, bytes_out, o.repeats);
      // int16 output where it fits (8-bit samples): the link's copies of those bytes too.
      const bool narrow_fits = in.precision <= 11;
      const Link narrow_link = narrow_fits ? measure_link(bytes_in, bytes_out / 2, o.repeats) : link;
      std::printf("\n%lldx%lld %s: %.0f MB in, %.0f MB out; link: H2D %.2f ms (%.1f GB/s), D2H %.2f ms (%.1f GB/s), "
                  "both %.2f ms (%.1f GB/s)\n",
                  static_cast<long long>(n), static_cast<long long>(n), in.name, bytes_in / 1e6, bytes_out / 1e6,
                  link.h2d_ms, bytes_in / link.h2d_ms / 1e6, link.d2h_ms, bytes_out / link.d2h_ms / 1e6,
                  link.both_ms, (bytes_in + bytes_out) / link.both_ms / 1e6);
      if (narrow_fits)
        std::printf("with int16 output (%.0f MB out): link both %.2f ms (%.1f GB/s)\n", bytes_out / 2e6,
                    narrow_link.both_ms, (bytes_in + bytes_out / 2) / narrow_link.both_ms / 1e6);
      std::printf("%-8s %-5s %-9s %-5s | %10s %8s %8s | %10s %8s %8s %9s\n", "tiles", "wav", "input", "out", "image ms",
                  "GB/s", "link/t", "frame ms", "GB/s", "link/t", "submit ms");
      // The pattern once, as the caller's samples: pageable, and a pinned copy.
      const std::vector<int32_t> pattern = test_pattern(n, n, in.precision);
      std::vector<unsigned char> pageable(bytes_in);
      for (size_t i = 0; i < static_cast<size_t>(n * n); ++i)
        for (int c = 0; c < in.channels; ++c) {
          const int32_t v = (pattern[i] + c * 37) & ((1 << in.precision) - 1);
          if (size == 1) pageable[i * in.channels + c] = static_cast<unsigned char>(v);
          else std::memcpy(&pageable[(i * in.channels + c) * 2], &v, 2);  // little-endian host
        }
      void* pinned = nullptr;
      check(cudaMallocHost(&pinned, bytes_in), "cudaMallocHost");
      std::memcpy(pinned, pageable.data(), bytes_in);
      const OutputSets sets(kDepth, bytes_out);
      for (int64_t tile : o.tiles)
        for (const std::string& output : o.outputs)
          for (j2k_memory m : {J2K_MEMORY_HOST, J2K_MEMORY_PINNED}) {
            const j2k_wavelet w = output == "f32" ? J2K_WAVELET_97 : J2K_WAVELET_53;
            const bool narrow = output == "i16";
            if (narrow && !narrow_fits) continue;
            const Link& l = narrow ? narrow_link : link;
            const void* data = m == J2K_MEMORY_HOST ? static_cast<const void*>(pageable.data()) : pinned;
            const auto view = j2kfront::ImageView::interleaved(data, bytes_in, static_cast<uint32_t>(n), static_cast<uint32_t>(n),
                                                                in.channels, in.type, in.precision, 0, m);
            j2kfront::Settings s;
            s.backend = J2K_BACKEND_CUDA;
            s.device = o.device;
            s.levels = o.levels;
            s.wavelet = w;
            s.tile_w = s.tile_h = static_cast<uint32_t>(tile);
            s.narrow_output = narrow ? 1 : 0;
            s.streams = o.streams;
            j2kfront::Plan plan(s, view);
            std::vector<double> t;
            for (int r = 0; r <= o.repeats; ++r) {  // the first run warms up
              const auto t0 = Clock::now();
              plan.run(view);
              if (r > 0) t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
            }
            const double ms = median(t);
            run_frames(plan, view, sets, kDepth);  // warm up the output sets
            double submit_ms = 0;
            const double frame_ms = run_frames(plan, view, sets, frames, &submit_ms) / frames;
            const size_t out_bytes = narrow ? bytes_out / 2 : bytes_out;
            const double bytes = static_cast<double>(bytes_in + out_bytes);
            const char* wavelet = w == J2K_WAVELET_53 ? "5/3" : "9/7";
            const char* memory = m == J2K_MEMORY_HOST ? "pageable" : "pinned";
            const char* out_type = narrow ? "i16" : w == J2K_WAVELET_53 ? "i32" : "f32";
            std::printf("%-8s %-5s %-9s %-5s | %10.2f %8.1f %8.3f | %10.2f %8.1f %8.3f %9.2f\n",
                        tile ? std::to_string(tile).c_str() : "untiled", wavelet, memory, out_type,
                        ms, bytes / ms / 1e6, l.both_ms / ms, frame_ms, bytes / frame_ms / 1e6, l.both_ms / frame_ms,
                        submit_ms / frames);
            csv.row({"cuda", plan.info().description, n, in.name, o.levels, o.repeats, frames, kDepth,
                     plan.info().streams, tile, wavelet, out_type, memory, bytes_in, out_bytes, l.h2d_ms, l.d2h_ms,
                     l.both_ms, ms, bytes / ms / 1e6, l.both_ms / ms, frame_ms, bytes / frame_ms / 1e6,
                     l.both_ms / frame_ms, submit_ms / frames});
            if (!o.timeline.empty() && !drawn && m == J2K_MEMORY_PINNED) {
              const std::string title = std::to_string(n) + "x" + std::to_string(n) + " " + in.name + ", " +
                                        (tile ? "tiles " + std::to_string(tile) + "^2" : std::string("untiled")) +
                                        (narrow ? ", 5/3 int16, " : w == J2K_WAVELET_53 ? ", 5/3 int32, " : ", 9/7, ") +
                                        std::to_string(o.levels) + " levels, pinned input: 3 frames on " +
                                        std::to_string(plan.info().streams) + " queues, " + plan.info().description;
              draw_timeline(plan, view, sets, o.timeline, title);
              drawn = true;
            }
          }
      cudaFreeHost(pinned);
    }
  }
  csv.commit();
  return 0;
}

}  // namespace j2k::bench
