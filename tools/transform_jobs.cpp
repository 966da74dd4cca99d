// SPDX-License-Identifier: BSD-2-Clause
#include "tools/transform_jobs.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <map>

#include "common/error.hpp"
#include "tools/image_files.hpp"

namespace j2k::tools {

namespace fs = std::filesystem;

std::vector<TransformJob> transform_jobs(const std::vector<std::string>& inputs, const std::string& outdir,
                                         std::vector<std::string>* skipped) {
  std::vector<std::string> files;
  bool directory = false;
  for (const std::string& in : inputs) {
    if (in == "-") {  // standard input: one image, alone
      if (inputs.size() > 1)
        throw CLI::ValidationError("INPUT", "- (standard input) must be the only input");
      return {TransformJob{in, outdir}};
    }
    std::error_code ec;
    const fs::file_status st = fs::status(in, ec);
    if (fs::is_directory(st)) {
      directory = true;
      const std::vector<std::string> found = image_files_in(in, skipped);
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(st)) {
      files.push_back(in);
    } else {
      // A file that is not there is a failed run (exit 1), as in compress and decompress.
      throw Error(ErrorCode::Io, in + ": " + (fs::exists(st) ? "not a regular file or directory" : "no such file"));
    }
  }
  std::vector<TransformJob> jobs;
  if (files.size() == 1 && !directory) {
    jobs.push_back({files[0], outdir});
    return jobs;
  }
  std::map<std::string, std::string> seen;  // output directory -> the input that claimed it
  for (const std::string& f : files) {
    const std::string out = (fs::path(outdir) / fs::path(f).filename()).string();
    const auto [it, fresh] = seen.emplace(out, f);
    if (!fresh) throw CLI::ValidationError("INPUT", f + " and " + it->second + " would both write " + out);
    jobs.push_back({f, out});
  }
  return jobs;
}

}  // namespace j2k::tools
