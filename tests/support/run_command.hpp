// SPDX-License-Identifier: BSD-2-Clause
// Test helper: run a shell command, capture its combined output and exit code.
#pragma once
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern char** environ;

namespace test_support {

// The environment as this process started with it, copied before main(): the commands below
// run in it. The OpenCL runtimes may change the process's own once they are loaded (on the GPU
// machine OCL_ICD_FILENAMES lost NVIDIA's library once a test had listed the OpenCL devices),
// and a `j2kfront --backend opencl` started then would run on PoCL, not the GPU.
inline std::vector<std::string> environment_now() {
  std::vector<std::string> e;
  for (char** p = environ; p && *p; ++p) e.emplace_back(*p);
  return e;
}
inline const std::vector<std::string> g_start_environment = environment_now();
inline void restore_start_environment() {
  clearenv();
  for (const std::string& v : g_start_environment) putenv(const_cast<char*>(v.c_str()));
}

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  restore_start_environment();
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// Whether `tool` is on PATH (the outside codecs a test compares with may be missing).
inline bool on_path(const std::string& tool) { return run_command("command -v " + tool).exit_code == 0; }

// A whole file's bytes (empty when it cannot be read).
inline std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A command's result with what it cost: its peak resident memory and its CPU time (user +
// system), which unlike wall time does not depend on what else the machine is doing.
struct MeasuredResult : CommandResult {
  long peak_rss_kb = -1;
  double cpu_seconds = -1;
};

// Runs `command` (a shell command line; the shell execs its last program, so the figures are
// that program's) with its output in `log_path`.
inline MeasuredResult run_measured(const std::string& command, const std::string& log_path) {
  MeasuredResult r;
  restore_start_environment();
  const std::string line = "exec " + command + " >" + quote(log_path) + " 2>&1";
  const char* argv[] = {"sh", "-c", line.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0) return r;
  int status = 0;
  struct rusage ru {};
  if (wait4(pid, &status, 0, &ru) != pid) return r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.peak_rss_kb = ru.ru_maxrss;
  r.cpu_seconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                  static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  std::ifstream log(log_path);
  r.output.assign(std::istreambuf_iterator<char>(log), std::istreambuf_iterator<char>());
  return r;
}

}  // namespace test_support
