// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench --backend cpu`: our CPU DWT on host buffers, against a memcpy of the same
// bytes in the same run (OpenJPEG's own transform is timed by bench/cpu_vs_openjpeg); then the
// whole front stage on a plan by tile size, against the same image untiled.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.hpp"
#include "common/error.hpp"
#include "j2kfront/j2kfront.hpp"

namespace j2k::bench {
namespace {

using Clock = std::chrono::steady_clock;

template <class Fn>
double time_ms(int repeats, Fn fn) {
  fn();  // warm-up: page faults, thread pool start
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = Clock::now();
    fn();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return median(t);
}

// A second process on the machine until destroyed: `spin` keeps one core busy (as a compile
// job would); otherwise it is this program running the same CPU DWT benchmark on all cores
// (as a second encoder would), the case where workers that spin or share work out statically
// slow down by orders of magnitude.
class BusyProcess {
 public:
  explicit BusyProcess(bool spin) {
    int err = 0;
    if (spin) {
      pid_ = fork();
      if (pid_ == 0)
        for (volatile uint64_t i = 0;; i = i + 1) {
        }
      err = errno;
    } else {
      char exe[] = "/proc/self/exe";
      char* argv[] = {exe, const_cast<char*>("bench"), const_cast<char*>("--backend"), const_cast<char*>("cpu"),
                      const_cast<char*>("--busy-loop"), nullptr};
      posix_spawn_file_actions_t quiet;
      posix_spawn_file_actions_init(&quiet);
      posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
      err = posix_spawn(&pid_, exe, &quiet, nullptr, argv, start_environment());  // returns the error
      posix_spawn_file_actions_destroy(&quiet);
      if (err != 0) pid_ = -1;
    }
    if (pid_ < 0) throw Error(ErrorCode::Io, std::string("starting a busy process: ") + std::strerror(err));
  }
  ~BusyProcess() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  BusyProcess(const BusyProcess&) = delete;
  BusyProcess& operator=(const BusyProcess&) = delete;

 private:
  pid_t pid_;
};

// The 5/3 forward on an idle machine and beside each BusyProcess, in the same run.
void busy_machine(j2kfront::Dwt& dwt, const Options& o, CsvFile& csv, const std::string& device) {
  std::printf("\nCPU DWT beside a busy process, 5/3 forward, %d levels: 'spin' keeps one core busy,\n"
              "'dwt' is a second j2kfront running this benchmark's 512^2 DWT on every core\n", o.levels);
  std::printf("%-7s %10s %10s %9s %10s %9s\n", "size", "idle ms", "spin ms", "x idle", "dwt ms", "x idle");
  std::vector<int64_t> sizes{512};
  if (!o.sizes.empty() && o.sizes[0] != 512) sizes.push_back(std::min<int64_t>(o.sizes[0], 4096));
  for (int64_t n : sizes) {
    const j2k_rect tc{0, 0, n, n};
    const std::vector<int32_t> pattern = test_pattern(n, n, 8);
    std::vector<int32_t> ints(pattern.size());
    const size_t bytes = ints.size() * sizeof(int32_t);
    // Each run restores its input first; that copy is timed separately, in the same
    // conditions, and subtracted (as in the table above).
    auto restore = [&] { std::memcpy(ints.data(), pattern.data(), bytes); };
    auto run = [&] {
      restore();
      dwt.forward(ints.data(), ints.size(), static_cast<ptrdiff_t>(n), tc, o.levels);
    };
    const int repeats = std::max(o.repeats, n <= 512 ? 50 : 5);
    auto dwt_ms = [&] { return time_ms(repeats, run) - time_ms(repeats, restore); };
    const double idle = dwt_ms();
    double busy[2] = {0, 0};
    for (int kind = 0; kind < 2; ++kind) {
      const BusyProcess other(kind == 0);
      if (kind == 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));  // it starts up
      busy[kind] = dwt_ms();
    }
    std::printf("%-7lld %10.2f %10.2f %9.2f %10.2f %9.2f\n", static_cast<long long>(n), idle, busy[0],
                busy[0] / idle, busy[1], busy[1] / idle);
    csv.row({"cpu", device, n, o.levels, repeats, idle, busy[0], busy[0] / idle, busy[1], busy[1] / idle});
  }
}

// The processor's name, which the backend's description ("cpu (2 threads)") leaves out: a CSV
// row has to say which machine it was measured on. Empty where /proc/cpuinfo does not say.
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
      return line.substr(line.find_first_not_of(" \t", line.find(':') + 1));
  return "";
}

}  // namespace

int run_cpu(const Options& o) {
  j2kfront::Settings settings;
  settings.backend = J2K_BACKEND_CPU;
  settings.threads = o.threads;
  j2kfront::Dwt dwt(settings);
  if (o.busy_loop) {
    const std::vector<int32_t> pattern = test_pattern(512, 512, 8);
    std::vector<int32_t> ints(pattern.size());
    for (;;) {
      std::memcpy(ints.data(), pattern.data(), ints.size() * sizeof(int32_t));
      dwt.forward(ints.data(), ints.size(), 512, j2k_rect{0, 0, 512, 512}, o.levels);
    }
  }
  const std::string model = cpu_model();
  const std::string device = dwt.description() + (model.empty() ? "" : " on " + model);
  // The three tables' CSV files, created before the first measurement (see CsvFile).
  DwtCsv csv(o, "cpu", device);
  CsvFile busy_csv(csv_sibling(o.csv, "busy"), {"backend", "device", "size", "levels", "repeats", "idle_ms",
                                                "spin_ms", "spin_x_idle", "dwt_ms", "dwt_x_idle"});
  CsvFile tiles_csv(csv_sibling(o.csv, "tiles"),
                    {"backend", "device", "image", "size", "levels", "repeats", "tile", "ms", "x_untiled"});
  std::printf("backend: %s, %d levels, median of %d runs\n", dwt.description().c_str(), o.levels,
              o.repeats);
  std::printf("%-7s %-16s %10s %12s %9s\n", "size", "variant", "ms", "Msamples/s", "x memcpy");
  for (int64_t n : o.sizes) {
    const j2k_rect tc{0, 0, n, n};
    const std::vector<int32_t> pattern = test_pattern(n, n, 8);
    std::vector<int32_t> src(pattern.size()), ints(pattern.size());
    for (size_t i = 0; i < pattern.size(); ++i) src[i] = pattern[i] - 128;
    std::vector<float> floats(src.begin(), src.end()), floats_src = floats;
    const size_t bytes = src.size() * sizeof(int32_t);
    // Yardstick: copying the same int32 image once (read + write of every sample).
    const double copy = time_ms(o.repeats, [&] { std::memcpy(ints.data(), src.data(), bytes); });
    auto row = [&](const char* variant, double ms, bool yardstick = false) {
      std::printf("%-7lld %-16s %10.2f %12.1f %9.2f\n", static_cast<long long>(n), variant, ms,
                  static_cast<double>(n * n) / ms / 1e3, ms / copy);
      csv.row(n, variant, ms, copy, yardstick);
    };
    row("memcpy (yard)", copy, true);
    const auto s = static_cast<ptrdiff_t>(n);
    // Each run restores its input first; that copy is timed separately and subtracted.
    const double restore_i = time_ms(o.repeats, [&] { std::memcpy(ints.data(), src.data(), bytes); });
    const double restore_f = time_ms(o.repeats, [&] { std::memcpy(floats.data(), floats_src.data(), bytes); });
    row("5/3 forward", time_ms(o.repeats, [&] {
          std::memcpy(ints.data(), src.data(), bytes);
          dwt.forward(ints.data(), ints.size(), s, tc, o.levels);
        }) - restore_i);
    row("5/3 inverse", time_ms(o.repeats, [&] {
          std::memcpy(ints.data(), src.data(), bytes);
          dwt.inverse(ints.data(), ints.size(), s, tc, o.levels);
        }) - restore_i);
    row("9/7 forward", time_ms(o.repeats, [&] {
          std::memcpy(floats.data(), floats_src.data(), bytes);
          dwt.forward(floats.data(), floats.size(), s, tc, o.levels);
        }) - restore_f);
    row("9/7 inverse", time_ms(o.repeats, [&] {
          std::memcpy(floats.data(), floats_src.data(), bytes);
          dwt.inverse(floats.data(), floats.size(), s, tc, o.levels);
        }) - restore_f);
  }
  busy_machine(dwt, o, busy_csv, device);
  // The whole front stage on a plan, by tile size: the cost of many small tiles, against the
  // same image untiled in the same run.
  const int64_t n = o.sizes.empty() ? 2048 : std::min<int64_t>(o.sizes[0], 4096);
  const std::vector<int32_t> pattern = test_pattern(n, n, 8);
  std::vector<unsigned char> rgb(pattern.size() * 3);
  for (size_t i = 0; i < pattern.size(); ++i)
    for (size_t c = 0; c < 3; ++c) rgb[i * 3 + c] = static_cast<unsigned char>((pattern[i] + 37 * c) & 255);
  const auto view = j2kfront::ImageView::interleaved(rgb.data(), rgb.size(), static_cast<uint32_t>(n), static_cast<uint32_t>(n), 3,
                                                      J2K_SAMPLE_U8, 8);
  std::printf("\nfront stage (plan.run) on %lldx%lld RGB 8-bit, 5/3, %d levels, by tile size\n",
              static_cast<long long>(n), static_cast<long long>(n), o.levels);
  std::printf("%-9s %10s %12s\n", "tiles", "ms", "x untiled");
  double untiled = 0;
  for (uint32_t tile : {0u, 512u, 128u, 64u, 32u}) {
    settings.levels = o.levels;
    settings.tile_w = settings.tile_h = tile;
    j2kfront::Plan plan(settings, view);
    const double ms = time_ms(o.repeats, [&] { plan.run(view); });
    if (tile == 0) untiled = ms;
    std::printf("%-9s %10.2f %12.2f\n", tile ? (std::to_string(tile) + "^2").c_str() : "untiled", ms, ms / untiled);
    tiles_csv.row({"cpu", device, "RGB 8-bit", n, o.levels, o.repeats, tile, ms, ms / untiled});  // tile 0: untiled
  }
  csv.commit();
  busy_csv.commit();
  tiles_csv.commit();
  return 0;
}

}  // namespace j2k::bench
