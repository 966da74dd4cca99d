// SPDX-License-Identifier: BSD-2-Clause
// The tools the compress and decompress benchmarks time, each a process of its own: run_process
// and the launcher that starts them (bench.hpp).
//
// A process's peak memory (ru_maxrss, from wait4) counts memory of the process it was started
// from, up to its exec: a child made with fork() starts from its parent's resident anonymous
// pages, one made with posix_spawn() (which shares its parent's memory until it execs) from
// what its parent has resident of its mapped files (libraries: a GPU runtime's). Started
// straight from the benchmark, which holds its images and has probed the GPU runtimes, every
// decoder of `bench --decompress` read about the benchmark's own size on the development
// machine: 66 MiB through posix_spawn (the OpenCL loader and PoCL loaded), 14 MiB forked, where
// GNU time gives them 6 to 9. So the tools are started by a launcher: a process forked from the
// benchmark before it makes or reads anything, which forks each tool from its own few pages
// and reports its exit status, wall time and ru_maxrss through a pipe (bench_peers_test's
// RunProcess cases: a benchmark holding 96 MiB, `true` under 16).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "common/error.hpp"

namespace j2k::bench {
namespace {

// Where `tool` is: itself where it names a path, else the first executable of that name on
// PATH; empty where there is none.
std::string find_tool(const std::string& tool) {
  if (tool.empty()) return "";
  if (tool.find('/') != std::string::npos) return access(tool.c_str(), X_OK) == 0 ? tool : "";
  std::stringstream path(getenv("PATH") ? getenv("PATH") : "");
  for (std::string dir; std::getline(path, dir, ':');)
    if (!dir.empty() && access((dir + "/" + tool).c_str(), X_OK) == 0) return dir + "/" + tool;
  return "";
}

bool read_all(int fd, void* data, size_t size) {
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n, size -= static_cast<size_t>(n);
  }
  return true;
}
bool write_all(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n, size -= static_cast<size_t>(n);
  }
  return true;
}

// What the launcher sends back for one run.
struct Reply {
  int32_t status;      // exit status; 128 + signal; -1: not started
  double ms;           // from before the fork to the end of wait4
  int64_t maxrss_kib;  // the child's ru_maxrss (Linux: KiB)
};

// Runs `file` with `argv` (argv[0] as given) and its output into `log`, in the environment the
// benchmark started with; in the process that calls it.
Reply run_here(const char* file, const std::vector<char*>& argv, const char* log) {
  Reply r{-1, 0, 0};
  const int out = ::open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) return r;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    if (dup2(out, 1) >= 0 && dup2(out, 2) >= 0) execve(file, argv.data(), start_environment());
    _exit(127);
  }
  ::close(out);
  if (pid < 0) return r;
  int status = 0;
  struct rusage usage {};
  while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.maxrss_kib = usage.ru_maxrss;
  return r;
}

// The launcher's loop: a request is its length (uint32) and then the file, the log and the
// arguments, each ended by a NUL; the reply a Reply. Ends when the benchmark closes the pipe.
[[noreturn]] void serve(int requests, int replies) {
  for (;;) {
    uint32_t size = 0;
    if (!read_all(requests, &size, sizeof size)) _exit(0);
    std::string text(size, '\0');
    if (!read_all(requests, text.data(), size)) _exit(0);
    std::vector<char*> fields;  // each NUL-terminated in `text`
    for (size_t at = 0, end; at < text.size() && (end = text.find('\0', at)) != std::string::npos; at = end + 1)
      fields.push_back(&text[at]);
    Reply r{-1, 0, 0};
    if (fields.size() >= 3) {
      std::vector<char*> argv(fields.begin() + 2, fields.end());
      argv.push_back(nullptr);
      r = run_here(fields[0], argv, fields[1]);
    }
    if (!write_all(replies, &r, sizeof r)) _exit(0);
  }
}

class Launcher {
 public:
  Launcher() {
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) != 0) return;
    if (pipe2(from, O_CLOEXEC) != 0) {
      ::close(to[0]), ::close(to[1]);
      return;
    }
    pid_ = fork();
    if (pid_ == 0) {
      ::close(to[1]), ::close(from[0]);
      serve(to[0], from[1]);
    }
    ::close(to[0]), ::close(from[1]);
    if (pid_ < 0) {
      ::close(to[1]), ::close(from[0]);
      return;
    }
    requests_ = to[1], replies_ = from[0];
  }
  ~Launcher() {
    if (pid_ <= 0) return;
    ::close(requests_), ::close(replies_);  // its read ends: it exits
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  // Through the launcher, or where it could not be started, from here.
  Reply run(const std::string& file, const std::vector<std::string>& args, const std::string& log) {
    if (pid_ <= 0) {
      std::vector<char*> argv;
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      return run_here(file.c_str(), argv, log.c_str());
    }
    std::string text = file + '\0' + log + '\0';
    for (const std::string& a : args) text += a + '\0';
    const auto size = static_cast<uint32_t>(text.size());
    Reply r{-1, 0, 0};
    if (!write_all(requests_, &size, sizeof size) || !write_all(requests_, text.data(), text.size()) ||
        !read_all(replies_, &r, sizeof r))
      throw Error(ErrorCode::Internal, "the benchmark's launcher process has gone: " + std::string(std::strerror(errno)));
    return r;
  }

 private:
  pid_t pid_ = -1;
  int requests_ = -1, replies_ = -1;
};

Launcher& launcher() {
  static Launcher the_launcher;
  return the_launcher;
}

}  // namespace

void start_launcher() { launcher(); }

Timed run_process(const std::vector<std::string>& args, const std::string& log) {
  Timed t;
  const std::string file = args.empty() ? "" : find_tool(args[0]);
  if (file.empty()) return t;
  const Reply r = launcher().run(file, args, log);
  t.status = r.status;
  t.ms = r.ms;
  t.peak_mib = r.status < 0 ? NAN : static_cast<double>(r.maxrss_kib) / 1024.0;
  return t;
}

bool tool_on_path(const std::string& tool) { return !find_tool(tool).empty(); }

}  // namespace j2k::bench
