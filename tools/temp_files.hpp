// SPDX-License-Identifier: BSD-2-Clause
// Temporary files that a signal must not leave behind. The CLI writes each output under a
// temporary name, then renames it; a run killed on the way (Ctrl-C, `kill`, a `ulimit -f` that
// the output passes, a closed pipe) would leave that file. Each temporary file is registered in
// a fixed table while it exists; a handler for SIGINT, SIGTERM, SIGHUP, SIGXFSZ and SIGPIPE
// removes the registered files with unlinkat(2), which is async-signal-safe (no allocation, no
// lock), then raises the signal again with its default action: the process still ends as the
// signal says (its exit status too), only without the files. SIGBUS (a mapped input file cut
// short by another process, input_file.hpp) removes them too, then says so and exits with
// status 1.
#pragma once
#include <csignal>
#include <string>

namespace j2k::tools {

// Installs the handlers, once per process (main() calls it first). A signal that the process
// was started with ignored (nohup's SIGHUP, a parent's SIGPIPE) stays ignored.
void install_temp_file_cleanup();

// Blocks the handled signals in this thread while it lives, so that a file created and then
// registered inside is never left by a signal between the two. (A signal sent to the process
// may reach another of its threads in those microseconds; SIGXFSZ and SIGPIPE reach the
// thread that writes.)
class HandledSignalsBlocked {
 public:
  HandledSignalsBlocked();
  ~HandledSignalsBlocked();
  HandledSignalsBlocked(const HandledSignalsBlocked&) = delete;
  HandledSignalsBlocked& operator=(const HandledSignalsBlocked&) = delete;

 private:
  sigset_t previous_;
};

// A file the handler removes, `name` relative to the directory `dir_fd` (AT_FDCWD: the working
// directory, or an absolute name), from construction until release() or destruction. Create
// the file before this, under HandledSignalsBlocked. Throws j2k::Error(Io) when the table is
// full or the name is longer than a path may be.
class TempFileRegistration {
 public:
  TempFileRegistration(int dir_fd, const std::string& name);
  ~TempFileRegistration() { release(); }
  TempFileRegistration(const TempFileRegistration&) = delete;
  TempFileRegistration& operator=(const TempFileRegistration&) = delete;
  // After the file is renamed or removed: the handler forgets it.
  void release();

 private:
  int slot_ = -1;
};

}  // namespace j2k::tools
