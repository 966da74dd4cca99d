// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench --compress --frames N`: a sequence of frames of one shape compressed in this
// process, host memory to codestreams in host memory (no files, no process start-up in the
// figures): one encoder per configuration (coder, mode, bit depth, backend), made once, then
// one untimed frame (the GPU's start-up, its buffers, the page cache of the encoder's own),
// then N frames each timed alone. Reported: milliseconds a frame (the mean), frames and
// samples a second, the speed over the CPU backend's with the same coder, mode and depth, the
// encoder's own split (front stage, Tier-1, rate control, Tier-2; its report), where Tier-1
// ran, and whether each backend's codestream is the CPU's byte for byte. With --in-flight K,
// each backend again with frames in flight (j2k_encoder_submit / wait through K encoders side
// by side, up to 2K frames queued, after three times as many untimed), and over every GPU of
// the host where it has several.
//
// The frames are 4096 x 2160 RGB (DCI 4K; --size another width, the same shape) made from the
// sample image at 8 and 12 bits; every frame is the same samples (the encoder keeps nothing
// from one frame to the next). Lossless is the 5/3; lossy EBCOT is the 9/7 at DCI's 250 Mbit/s
// at 24 frames a second (1,302,083 bytes a 4K frame, opj_compress -r's ratio; as many bits a
// sample at other sizes), lossy HT the 9/7 at --qstep (no rate target, so that the GPU codes
// the blocks: rate control is on the CPU for now).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "bench/timeline_svg.hpp"
#include "common/error.hpp"
#include "j2kfront/config.h"
#include "j2kfront/j2kfront.hpp"
#include "transform/backend.hpp"
#if J2KFRONT_HAVE_CUDA || J2KFRONT_HAVE_OPENCL
#include "device/available.hpp"
#endif
#if J2KFRONT_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace j2k::bench {
namespace {

struct Config {
  bool ht = false, lossless = true;
  int bits = 8;
  std::string backend;
  int in_flight = 0;         // 0: encode() frame after frame; else submit/wait with this many encoders
  int device_turns = 0;      // with in_flight on a GPU: coding.device_turns (0: no limit)
  std::vector<int> devices;  // with in_flight: the GPUs they go to (empty: the first)
  bool pinned = false;       // the frame's planes in page-locked memory (CUDA), else interleaved pageable
};

std::string row_name(const Config& c) {
  if (c.in_flight == 0) return c.backend;
  return c.backend + " " + std::to_string(c.in_flight) + "fl" + (c.devices.size() > 1 ? " " + std::to_string(c.devices.size()) + "gpu" : "") +
         (c.device_turns > 0 ? " " + std::to_string(c.device_turns) + "turn" : "") + (c.pinned ? " pinned" : "");
}

#if J2KFRONT_HAVE_CUDA
// The frame's components as planes in page-locked memory, as a capture card or a decoder on
// the GPU's host would hand them over: the copy engine reads them directly, so the host's
// threads do not pack each frame into the encoder's staging first.
class PinnedPlanes {
 public:
  explicit PinnedPlanes(const Upscaled& frame) : bytes_(frame.bytes.size()) {
    if (cudaMallocHost(&data_, bytes_) != cudaSuccess) throw Error(ErrorCode::OutOfMemory, "cudaMallocHost of a frame");
    const size_t size = frame.bits > 8 ? 2 : 1, pixels = static_cast<size_t>(frame.width * frame.height);
    const auto comps = static_cast<size_t>(frame.components);
    auto* to = static_cast<uint8_t*>(data_);
    for (size_t c = 0; c < comps; ++c)
      for (size_t i = 0; i < pixels; ++i)
        std::memcpy(to + (c * pixels + i) * size, frame.bytes.data() + (i * comps + c) * size, size);
  }
  ~PinnedPlanes() { cudaFreeHost(data_); }
  PinnedPlanes(const PinnedPlanes&) = delete;
  PinnedPlanes& operator=(const PinnedPlanes&) = delete;
  const void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_;
};
#endif

struct Measured {
  double first_ms = 0, ms = 0;               // the untimed first frame; the timed ones' mean
  double front_ms = 0, tier1_ms = 0, rate_ms = 0, tier2_ms = 0;  // the report's, their mean
  size_t bytes = 0;                          // the last frame's codestream
  std::string tier1_on;
  std::vector<uint8_t> codestream;           // the last frame's
  std::vector<j2k_span> spans;               // in flight: the timed frames' stages (j2k_encode_report)
};

// A frame's four stages as timeline spans on its encoder's lane (begin_ms on the process's
// clock until timeline() moves them to its own origin).
void add_spans(const j2k_encode_report& r, j2k_ticket ticket, std::vector<j2k_span>& spans) {
  const std::pair<j2k_stage, std::pair<double, double>> stages[] = {
      {J2K_STAGE_FRONT, {r.front_begin_ms, r.front_ms}},
      {J2K_STAGE_TIER1, {r.tier1_begin_ms, r.tier1_ms}},
      {J2K_STAGE_RATE, {r.rate_begin_ms, r.rate_ms}},
      {J2K_STAGE_TIER2, {r.tier2_begin_ms, r.tier2_ms}}};
  for (const auto& [stage, at] : stages) {
    j2k_span s{};
    s.queue = r.lane;
    s.frame = ticket;
    s.stage = stage;
    s.begin_ms = at.first;
    s.end_ms = at.first + at.second;
    spans.push_back(s);
  }
}

// The spans of the last `frames` frames, from the first one's beginning.
std::vector<j2k_span> timeline(const std::vector<j2k_span>& spans, size_t frames) {
  std::vector<j2k_span> last(spans.end() - static_cast<ptrdiff_t>(std::min(spans.size(), 4 * frames)), spans.end());
  double origin = INFINITY;
  for (const j2k_span& s : last) origin = std::min(origin, s.begin_ms);
  for (j2k_span& s : last) s.begin_ms -= origin, s.end_ms -= origin;
  return last;
}

j2k_backend backend_code(const std::string& name) {
  if (name == "cuda") return J2K_BACKEND_CUDA;
  if (name == "opencl") return J2K_BACKEND_OPENCL;
  return J2K_BACKEND_CPU;
}

Measured run_config(const Config& c, const Upscaled& frame, int frames, int threads, double qstep) {
  using clock = std::chrono::steady_clock;
  const auto type = frame.bits > 8 ? J2K_SAMPLE_U16 : J2K_SAMPLE_U8;
  auto view = j2kfront::ImageView::interleaved(frame.bytes.data(), frame.bytes.size(), static_cast<uint32_t>(frame.width),
                                               static_cast<uint32_t>(frame.height), frame.components, type, frame.bits);
#if J2KFRONT_HAVE_CUDA
  std::unique_ptr<PinnedPlanes> pinned;
  if (c.pinned) {
    pinned = std::make_unique<PinnedPlanes>(frame);
    view = j2kfront::ImageView::planar(pinned->data(), pinned->bytes(), static_cast<uint32_t>(frame.width),
                                       static_cast<uint32_t>(frame.height), frame.components, type, frame.bits, 0, 0,
                                       J2K_MEMORY_PINNED);
  }
#endif
  j2kfront::Settings s;
  s.wavelet = c.lossless ? J2K_WAVELET_53 : J2K_WAVELET_97;
  s.levels = 5;
  s.backend = backend_code(c.backend);
  s.threads = threads;
  j2kfront::Coding coding;
  coding.modes = c.ht ? J2K_MODE_HT : 0;
  if (!c.lossless) {
    if (c.ht) {
      coding.qstep = qstep;
    } else {
      // DCI 4K's bits a sample at this frame's size.
      const double samples = static_cast<double>(frame.width * frame.height * frame.components);
      coding.rates = {samples * frame.bits / 8.0 / (kDciFrameBytes * samples / kDci4kSamples)};
    }
  }
  coding.frames_in_flight = c.in_flight;
  coding.devices = c.devices;
  coding.device_turns = c.device_turns;
  j2kfront::Encoder encoder(s, coding, view);
  Measured m;
  auto t0 = clock::now();
  if (c.in_flight > 0) {
    // Frames in flight: up to twice as many submitted as there are encoders (so that each has
    // the next frame queued), the oldest waited for first; the time a frame is the whole
    // sequence's over its frames. Untimed first: three windows of frames through the same
    // loop, so that every encoder has started up and every codestream's storage has been
    // written once (one an encoder, one a frame in the window and the caller's circulate, a
    // frame that finds none spare making one); the timed frames then meet neither a start-up
    // nor a fresh page.
    std::vector<j2k_ticket> tickets;
    const size_t window = static_cast<size_t>(std::min(2 * c.in_flight, J2K_MAX_FRAMES_IN_FLIGHT));
    size_t waited = 0;
    bool timed = false;
    auto wait_one = [&] {
      const j2k_ticket ticket = tickets[waited++];
      const auto [data, size] = encoder.wait_in_place(ticket);
      m.bytes = size;
      const j2k_encode_report r = encoder.report();
      if (timed) add_spans(r, ticket, m.spans);
      m.tier1_on = r.tier1_on ? r.tier1_on : "?";
      if (waited == tickets.size()) m.codestream.assign(data, data + size);
    };
    auto run_frames = [&](size_t count) {
      tickets.clear();
      waited = 0;
      for (size_t f = 0; f < count; ++f) {
        if (tickets.size() - waited >= window) wait_one();
        tickets.push_back(encoder.submit(view));
      }
      while (waited < tickets.size()) wait_one();
    };
    run_frames(3 * window);
    m.first_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    timed = true;
    t0 = clock::now();
    run_frames(static_cast<size_t>(frames));
    m.ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count() / frames;
    m.front_ms = m.tier1_ms = m.rate_ms = m.tier2_ms = NAN;  // overlapped: no split
    return m;
  }
  encoder.encode_in_place(view);
  m.first_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  for (int f = 0; f < frames; ++f) {
    t0 = clock::now();
    const auto [data, size] = encoder.encode_in_place(view);
    m.ms += std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    const j2k_encode_report r = encoder.report();
    m.front_ms += r.front_ms, m.tier1_ms += r.tier1_ms, m.rate_ms += r.rate_ms, m.tier2_ms += r.tier2_ms;
    m.bytes = size;
    m.tier1_on = r.tier1_on ? r.tier1_on : "?";
    if (f == frames - 1) m.codestream.assign(data, data + size);
  }
  for (double* v : {&m.ms, &m.front_ms, &m.tier1_ms, &m.rate_ms, &m.tier2_ms}) *v /= frames;
  return m;
}

}  // namespace

int run_compress_frames(const CompressOptions& o, int frames, bool ht_only, int in_flight, const std::string& timelines) {
  std::vector<Config> runs{Config{}};  // (the coder, mode and depth filled in below)
  runs.back().backend = "cpu";
  if (in_flight > 0) {
    runs.push_back(runs[0]);
    runs.back().in_flight = in_flight;
  }
  if (backend_available(Backend::Cuda)) {
    runs.push_back(Config{});
    runs.back().backend = "cuda";
    if (in_flight > 0) {
      runs.push_back(runs.back());
      runs.back().in_flight = in_flight;
      // The same encoders taking turns on the GPU, one in its device stages at a time.
      runs.push_back(runs.back());
      runs.back().device_turns = 1;
#if J2KFRONT_HAVE_CUDA
      // Every GPU of the host, each with in_flight encoders (at most 8 in all).
      const int gpus = std::min(cuda_device_count(), J2K_MAX_FRAMES_IN_FLIGHT);
      // Frames in page-locked memory: the host's packing gone.
      runs.push_back(runs[runs.size() - 2]);
      runs.back().pinned = true;
      if (gpus > 1) {
        runs.push_back(runs.back());
        runs.back().in_flight = std::min(in_flight * gpus, J2K_MAX_FRAMES_IN_FLIGHT);
        for (int d = 0; d < gpus; ++d) runs.back().devices.push_back(d);
        runs.push_back(runs.back());
        runs.back().pinned = false;
      }
#endif
    }
  } else {
    std::printf("no CUDA device here: no CUDA rows\n");
  }
#if J2KFRONT_HAVE_OPENCL
  // OpenCL on a GPU (not a CPU's OpenCL, which only adds a slower CPU row), one frame after
  // another and in flight.
  if (opencl_gpu_available()) {
    runs.push_back(Config{});
    runs.back().backend = "opencl";
    if (in_flight > 0) {
      runs.push_back(runs.back());
      runs.back().in_flight = in_flight;
    }
  }
#endif
  // DCI 4K's shape at --size's width (4096 unless given).
  const int64_t width = o.size, height = std::max<int64_t>(1, o.size * 2160 / 4096);
  const std::string sample = o.samples + "/astronaut.ppm";
  std::printf("frames: %lld x %lld RGB from %s, %d timed a configuration after one untimed; threads %d%s\n",
              static_cast<long long>(width), static_cast<long long>(height), sample.c_str(), frames, o.threads,
              o.threads == 0 ? " (one per core)" : "");
  std::printf("lossless: 5/3; lossy EBCOT: 9/7 at %.0f bytes a 4K frame (250 Mbit/s at 24 fps), as many bits a sample here; lossy HT: 9/7 at --qstep %g; "
              "5 levels, 64x64 blocks, LRCP, codestream in memory\n\n",
              kDciFrameBytes, o.qstep);
  std::printf("%-5s %-8s %4s %-15s %9s %8s %8s %9s %7s %11s  %s\n", "coder", "mode", "bits", "backend", "first ms", "ms", "fps",
              "Gsample/s", "vs cpu", "bytes", "front / Tier-1 (on) / rate / Tier-2 ms, same as cpu");
  CsvFile csv(o.csv, {"frame_w", "frame_h", "bits", "coder", "mode", "backend", "threads", "frames", "first_ms", "ms", "fps",
                      "gsamples_s", "vs_cpu", "bytes", "front_ms", "tier1_ms", "tier1_on", "rate_ms", "tier2_ms", "same_as_cpu"});
  for (const int bits : {8, 12}) {
    const Upscaled frame = upscale(sample, width, height, bits);
    const double samples = static_cast<double>(width * height * frame.components);
    for (const bool ht : {true, false}) {
      if (ht_only && !ht) continue;
      for (const bool lossless : {true, false}) {
        Measured cpu;
        for (Config c : runs) {
          c.ht = ht, c.lossless = lossless, c.bits = bits;
          const std::string backend = row_name(c);
          const Measured m = run_config(c, frame, frames, o.threads, o.qstep);
          if (backend == "cpu") cpu = m;
          const bool same = m.codestream == cpu.codestream;
          const char* coder = ht ? "HT" : "EBCOT";
          const char* mode = lossless ? "lossless" : "lossy";
          std::printf("%-5s %-8s %4d %-15s %9.1f %8.2f %8.2f %9.3f %7.2f %11zu  %.1f / %.1f (%s) / %.1f / %.1f, %s\n", coder, mode,
                      bits, backend.c_str(), m.first_ms, m.ms, 1000 / m.ms, samples / m.ms / 1e6, cpu.ms / m.ms, m.bytes,
                      m.front_ms, m.tier1_ms, m.tier1_on.c_str(), m.rate_ms, m.tier2_ms, same ? "same" : "DIFFERENT");
          std::fflush(stdout);
          csv.row({width, height, bits, coder, mode, backend, o.threads, frames, m.first_ms, m.ms, 1000 / m.ms,
                   samples / m.ms / 1e6, cpu.ms / m.ms, m.bytes, m.front_ms, m.tier1_ms, m.tier1_on, m.rate_ms, m.tier2_ms,
                   same ? 1 : 0});
          if (!timelines.empty() && c.in_flight > 0) {
            // The last frames in flight (at most three an encoder), one picture a row.
            std::string name = backend;
            std::replace(name.begin(), name.end(), ' ', '-');
            const std::string path = timelines + "/frames-" + std::to_string(bits) + "bit-" + (ht ? "ht" : "ebcot") + "-" + mode + "-" + name + ".svg";
            const size_t shown = std::min<size_t>(static_cast<size_t>(frames), 3 * static_cast<size_t>(c.in_flight));
            write_timeline_svg(path, std::string(coder) + " " + mode + " " + std::to_string(bits) + "-bit " + std::to_string(width) + "x" +
                                         std::to_string(height) + " RGB frames on " + backend + ": the last " + std::to_string(shown) +
                                         " frames in flight",
                               timeline(m.spans, shown), c.in_flight);
            std::printf("  timeline: %s\n", path.c_str());
          }
          if (!same)
            throw Error(ErrorCode::Internal, std::string(coder) + " " + mode + " " + std::to_string(bits) + "-bit on " + backend +
                                                 ": the codestream differs from the CPU backend's");
        }
      }
    }
  }
  csv.commit();
  std::printf("\nms: a frame's encode (samples in host memory to the codestream in host memory), the mean of the timed "
              "frames; first ms: the untimed first frame after the encoder was made (a GPU's start-up and buffers); "
              "vs cpu: the CPU backend's ms over this one's, same coder, mode and depth; \"Nfl\": frames in flight through "
              "N encoders side by side (submit/wait, twice as many frames queued; first ms: the untimed frames before, "
              "three times as many as are queued; no split, the stages overlap), \"Mgpu\": spread over M GPUs, "
              "\"pinned\": each frame's planes in page-locked memory (else interleaved in pageable memory, packed by the "
              "host's threads)\n");
  return 0;
}

}  // namespace j2k::bench
