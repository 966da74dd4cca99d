// SPDX-License-Identifier: BSD-2-Clause
#include "tools/temp_files.hpp"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "common/error.hpp"

namespace j2k::tools {
namespace {

constexpr int kHandled[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ, SIGPIPE};

// A slot is free, being filled (only its filler touches it), or armed (the handler reads it).
// The table is static: the handler allocates nothing and takes no lock.
enum : int { kFree = 0, kFilling = 1, kArmed = 2 };
struct Slot {
  std::atomic<int> state{kFree};
  int dir_fd = AT_FDCWD;
  char name[PATH_MAX] = {};
};
// More than the files the CLI holds open at once (one output per writing thread, the stdin
// copy's moment).
constexpr int kSlots = 32;
Slot g_slots[kSlots];
static_assert(std::atomic<int>::is_always_lock_free, "the handler reads the slots' states");

// Async-signal-safe: unlinkat only.
void remove_registered_files() {
  for (Slot& s : g_slots)
    if (s.state.load(std::memory_order_acquire) == kArmed) ::unlinkat(s.dir_fd, s.name, 0);
}

extern "C" void remove_temp_files_then_die(int sig) {
  remove_registered_files();
  // The default action: the signal, blocked while its handler runs, is pending again and ends
  // the process as the handler returns, as it would have without us (its exit status too).
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// SIGBUS: a mapped input file (input_file.hpp) cut short by another process while it is read.
// The outputs being written are removed as above; then the cause is said, and the process ends
// as a failed run does (status 1), not as a crash.
extern "C" void remove_temp_files_after_bus_error(int) {
  remove_registered_files();
  static const char kSaid[] =
      "j2kfront: error: a mapped file could not be read (SIGBUS): an input file was cut short while it was being read\n";
  (void)!::write(STDERR_FILENO, kSaid, sizeof kSaid - 1);
  ::_exit(1);
}

sigset_t handled_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kHandled) sigaddset(&set, sig);
  return set;
}

}  // namespace

void install_temp_file_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kHandled) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
      struct sigaction act {};
      act.sa_handler = remove_temp_files_then_die;
      sigfillset(&act.sa_mask);  // one handler at a time, whichever signals come
      ::sigaction(sig, &act, nullptr);
    }
    struct sigaction bus {};
    bus.sa_handler = remove_temp_files_after_bus_error;
    sigfillset(&bus.sa_mask);
    ::sigaction(SIGBUS, &bus, nullptr);
  });
}

HandledSignalsBlocked::HandledSignalsBlocked() {
  const sigset_t set = handled_set();
  ::pthread_sigmask(SIG_BLOCK, &set, &previous_);
}

HandledSignalsBlocked::~HandledSignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

TempFileRegistration::TempFileRegistration(int dir_fd, const std::string& name) {
  if (name.size() >= sizeof(Slot::name))
    throw Error(ErrorCode::Io, name + ": a temporary file's name longer than " + std::to_string(PATH_MAX - 1) + " bytes");
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kFilling, std::memory_order_acquire)) continue;
    g_slots[i].dir_fd = dir_fd;
    std::memcpy(g_slots[i].name, name.c_str(), name.size() + 1);
    g_slots[i].state.store(kArmed, std::memory_order_release);
    slot_ = i;
    return;
  }
  throw Error(ErrorCode::Io, name + ": more than " + std::to_string(kSlots) + " temporary files at once");
}

void TempFileRegistration::release() {
  if (slot_ < 0) return;
  g_slots[slot_].state.store(kFree, std::memory_order_release);
  slot_ = -1;
}

}  // namespace j2k::tools
