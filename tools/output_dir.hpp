// SPDX-License-Identifier: BSD-2-Clause
// Writing the CLI's outputs safely: never overwrite a file that j2kfront did not write (unless
// forced), never the input; never follow a link planted where a file is written; never leave
// a half-written file behind, and never leave a mix of two runs' files that looks complete.
#pragma once
#include <cstdio>
#include <functional>
#include <set>
#include <string>

namespace j2k::tools {

class OutputDir {
 public:
  // Names the tool generates in a directory (its arrays and layout.json); nothing else in the
  // directory is ever replaced without `force`, or removed.
  using NamePredicate = std::function<bool(const std::string&)>;

  // The manifest of a complete set, and the marker of a set being (or left half) written.
  static constexpr const char* kManifest = "layout.json";
  static constexpr const char* kIncomplete = "layout.json.incomplete";

  // Creates `dir` if needed (`create`; else it must be there). Files it may replace without
  // `force`: generated names listed in an existing manifest or marker written by j2kfront
  // (their "generator" and "files" keys). `input` is never replaced, even with force.
  OutputDir(const std::string& dir, const std::string& input, bool force, NamePredicate generated, bool create = true);
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  // Throws Error(Io) if `name` exists and may not be replaced. Call for every output before
  // writing any, so a refused run writes nothing.
  void check_writable(const std::string& name) const;

  // Starts a set of outputs: writes the marker (listing these names and the previous run's)
  // and removes the old manifest, so that until finish() the directory says it is incomplete.
  void begin(const std::set<std::string>& names);

  // Writes `name` through `write(stream, name)` into a new file of a unique temporary name
  // (created with O_EXCL | O_NOFOLLOW: a link planted there is never followed), then renames
  // it onto `name`. A failure removes the temporary file and, inside a set, says that the
  // directory holds an incomplete set.
  void write(const std::string& name, const std::function<void(std::FILE*, const std::string&)>& write);
  // write() of a text.
  void write_text(const std::string& name, const std::string& text);

  // Ends the set: removes files of the previous run that this one did not write (generated
  // names only), then the marker. Write the manifest with write() before calling this.
  void finish(const std::set<std::string>& written);

  std::string path(const std::string& name) const;

 private:
  std::string dir_, input_;
  bool force_;
  NamePredicate generated_;
  int dir_fd_ = -1;
  bool in_set_ = false;
  std::set<std::string> previous_outputs_;
};

// One file the user named (a codestream, a picture), written as OutputDir writes: through a
// temporary file renamed into place. check() refuses, before any work, a name whose directory
// is missing (it is not created), the input, a directory, and an existing file unless `force`
// or `ours(path)` says j2kfront wrote it (no `ours`: only with `force`). The name "-" is
// standard output: refused when it is a terminal, and written whole once the file is complete
// (from a temporary file, which a seeking writer such as libtiff needs), so that a run that
// fails writes nothing to it.
class OutputFile {
 public:
  OutputFile(std::string path, std::string input, bool force,
             std::function<bool(const std::string&)> ours = nullptr);
  void check() const;
  // check(), then writes through `write(stream, path)`.
  void write(const std::function<void(std::FILE*, const std::string&)>& write) const;

 private:
  std::string path_, input_;
  bool force_;
  std::function<bool(const std::string&)> ours_;
};

}  // namespace j2k::tools
