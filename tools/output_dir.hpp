// Writing the CLI's outputs safely: never overwrite a file that j2kfront did not write (unless
// forced), never the input, and never leave a half-written file behind.
#pragma once
#include <functional>
#include <set>
#include <string>

namespace j2k::tools {

class OutputDir {
 public:
  // Creates `dir` if needed. Files it may replace without `force`: those named in an existing
  // `layout.json` written by j2kfront (its "generator" and "files" keys). `input` is never
  // replaced, even with force.
  OutputDir(const std::string& dir, const std::string& input, bool force);

  // Throws Error(Io) if `name` exists and may not be replaced. Call for every output before
  // writing any, so a refused run writes nothing.
  void check_writable(const std::string& name) const;

  // Writes through `write(temporary_path)`, then renames onto the final name.
  void write(const std::string& name, const std::function<void(const std::string&)>& write);

  // Removes files of the previous j2kfront run in this directory that this run did not write.
  void remove_stale(const std::set<std::string>& written) const;

  std::string path(const std::string& name) const;

 private:
  std::string dir_, input_;
  bool force_;
  std::set<std::string> previous_outputs_;
};

}  // namespace j2k::tools
