// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench --compress --frames N --folder`: the frames of `--frames` as N PPM files in a
// folder, compressed folder to folder by `j2kfront compress -i DIR -o DIR`, one process a
// configuration timed from start to exit (reading the files, the GPU's start-up, writing the
// codestreams, all in), in rounds (time_in_rounds): the CPU backend; CUDA over every GPU of the
// host (a directory's default: three frames in flight a GPU, one with HT), on one GPU, three
// and one frame at a time on it; OpenCL on a GPU. Reported: the median time, frames and samples a second, the speed over
// the CPU backend's in the same rounds, the peak memory, and whether every file is the CPU
// backend's byte for byte. The frames and modes are those of the in-memory rows
// (frames_bench.cpp): 4096 x 2160 RGB at 8 and 12 bits, HT and EBCOT, lossless (5/3) and
// lossy (HT: the 9/7 at --qstep; EBCOT: the 9/7 at DCI's 250 Mbit/s at 24 fps, -r).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "bench/bench_images.hpp"
#include "common/error.hpp"
#include "j2kfront/config.h"
#include "transform/backend.hpp"
#if J2KFRONT_HAVE_CUDA || J2KFRONT_HAVE_OPENCL
#include "device/available.hpp"
#endif

namespace j2k::bench {
namespace {
namespace fs = std::filesystem;

struct Run {
  std::string name;                // the row's backend column
  std::vector<std::string> flags;  // after compress -i DIR -o OUT
};

}  // namespace

int run_compress_frames_folder(const CompressOptions& o, int frames, bool ht_only) {
  start_launcher();  // before the frames are made: each process's peak its own
  const std::string threads = std::to_string(o.threads);
  std::vector<Run> runs{{"cpu", {"--backend", "cpu"}}};
  if (backend_available(Backend::Cuda)) {
    int gpus = 1;
#if J2KFRONT_HAVE_CUDA
    gpus = cuda_device_count();
#endif
    runs.push_back({"cuda " + std::to_string(gpus) + "gpu", {"--backend", "cuda"}});
    if (gpus > 1) runs.push_back({"cuda 1gpu", {"--backend", "cuda", "--devices", "0"}});
    runs.push_back({"cuda 3 in flight", {"--backend", "cuda", "--devices", "0", "--frames-in-flight", "3"}});
    runs.push_back({"cuda 1 at a time", {"--backend", "cuda", "--devices", "0", "--frames-in-flight", "1"}});
  } else {
    std::printf("no CUDA device here: no CUDA rows\n");
  }
#if J2KFRONT_HAVE_OPENCL
  if (opencl_gpu_available()) runs.push_back({"opencl", {"--backend", "opencl"}});
#endif
  const ScratchDir scratch;
  const std::string in = scratch.path + "/frames";
  const int64_t width = o.size, height = std::max<int64_t>(1, o.size * 2160 / 4096);
  const std::string sample = o.samples + "/astronaut.ppm";
  std::printf("frames folder to folder: %d files of %lld x %lld RGB from %s, one `j2kfront compress -i DIR -o DIR` process a "
              "row, %d rounds after one untimed; threads %d%s\n",
              frames, static_cast<long long>(width), static_cast<long long>(height), sample.c_str(), o.repeats, o.threads,
              o.threads == 0 ? " (one per core)" : "");
  std::printf("lossless: 5/3; lossy EBCOT: 9/7 -r at 250 Mbit/s at 24 fps; lossy HT: 9/7 --qstep %g; 6 resolutions, 64x64 blocks, LRCP\n\n",
              o.qstep);
  std::printf("%-5s %-8s %4s %-17s %9s %8s %9s %7s %9s %12s  %s\n", "coder", "mode", "bits", "backend", "ms", "fps", "Gsample/s",
              "vs cpu", "peak MiB", "bytes", "files");
  CsvFile csv(o.csv, {"frame_w", "frame_h", "bits", "coder", "mode", "backend", "threads", "frames", "ms", "fps", "gsamples_s",
                      "vs_cpu", "peak_mib", "bytes", "same_as_cpu"});
  const std::string log = scratch.path + "/log.txt";
  for (const int bits : {8, 12}) {
    {
      fs::remove_all(in);
      fs::create_directories(in);
      const Upscaled frame = upscale(sample, width, height, bits);
      write_pnm(frame, in + "/0000.ppm");
      for (int f = 1; f < frames; ++f) {
        char name[32];
        std::snprintf(name, sizeof name, "/%04d.ppm", f);
        fs::copy_file(in + "/0000.ppm", in + name);
      }
    }
    const double samples = static_cast<double>(width * height * 3);
    for (const bool ht : {true, false}) {
      if (ht_only && !ht) continue;
      for (const bool lossless : {true, false}) {
        std::vector<std::string> mode{"-n", "6", "--threads", threads, "--quiet", "--force"};
        if (ht) mode.push_back("--ht");
        if (!lossless) {
          char value[32];
          if (ht) std::snprintf(value, sizeof value, "%g", o.qstep);
          else std::snprintf(value, sizeof value, "%.4f", bits / 8.0 * kDci4kSamples / kDciFrameBytes);
          mode.insert(mode.end(), {"-I", ht ? "--qstep" : "-r", value});
        }
        auto out_of = [&](size_t k) { return scratch.path + "/out" + std::to_string(k); };
        const Rounds rounds = time_in_rounds(runs.size(), o.repeats, [&](size_t k) {
          std::vector<std::string> args{o.cli, "compress", "-i", in, "-o", out_of(k)};
          args.insert(args.end(), runs[k].flags.begin(), runs[k].flags.end());
          args.insert(args.end(), mode.begin(), mode.end());
          const Timed t = run_process(args, log);
          if (t.status != 0)
            throw Error(ErrorCode::Internal, runs[k].name + " failed (exit " + std::to_string(t.status) + "):\n" + slurp(log));
          return t;
        });
        const char* coder = ht ? "HT" : "EBCOT";
        const char* mode_name = lossless ? "lossless" : "lossy";
        for (size_t k = 0; k < runs.size(); ++k) {
          double bytes = 0;
          bool same = true;
          for (const auto& e : fs::directory_iterator(out_of(0))) {
            const std::string name = e.path().filename().string();
            bytes += static_cast<double>(fs::file_size(out_of(k) + "/" + name));
            if (k > 0) same = same && slurp(out_of(k) + "/" + name) == slurp(e.path().string());
          }
          const double ms = median(rounds.ms[k]), fps = frames * 1000 / ms;
          const double speed = median_ratio(rounds.ms, 0, k), peak = median(rounds.peak_mib[k]);
          std::printf("%-5s %-8s %4d %-17s %9.1f %8.2f %9.3f %7.2f %9.0f %12.0f  %s\n", coder, mode_name, bits, runs[k].name.c_str(), ms,
                      fps, fps * samples / 1e9, speed, peak, bytes, same ? "same" : "DIFFERENT");
          std::fflush(stdout);
          csv.row({width, height, bits, coder, mode_name, runs[k].name, o.threads, frames, ms, fps, fps * samples / 1e9, speed, peak,
                   bytes, same ? 1 : 0});
          if (!same)
            throw Error(ErrorCode::Internal, std::string(coder) + " " + mode_name + " " + std::to_string(bits) + "-bit on " + runs[k].name +
                                                 ": the files differ from the CPU backend's");
        }
      }
    }
  }
  csv.commit();
  std::printf("\nms: one process compressing the folder, from start to exit (reading, start-up, coding, writing), the "
              "median of the rounds, each round every row once in turn; vs cpu: the median over the rounds of the CPU "
              "backend's time over this one's; \"Ngpu\": a directory's default on cuda, three frames in flight a GPU (one with "
              "HT) over N GPUs (--devices 0: one); \"3 in flight\", \"1 at a time\": --frames-in-flight 3, 1 on one GPU; peak MiB: the process's largest resident set; "
              "files: every codestream the CPU backend's, byte for byte\n");
  return 0;
}

}  // namespace j2k::bench
