#include "tools/transform_jobs.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

namespace j2k::tools {
namespace {

namespace fs = std::filesystem;

// The image files the readers take (io/read_image.cpp picks the reader by signature).
bool image_extension(const fs::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e == ".tif" || e == ".tiff" || e == ".png" || e == ".pgm" || e == ".ppm" || e == ".pnm" || e == ".pgx";
}

}  // namespace

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
      std::vector<std::string> found;
      for (const fs::directory_entry& e : fs::directory_iterator(in, ec))
        if (e.is_regular_file(ec) && image_extension(e.path())) found.push_back(e.path().string());
        else if (skipped) skipped->push_back(e.path().string());
      if (ec) throw CLI::ValidationError("INPUT", in + ": cannot list the directory: " + ec.message());
      if (found.empty())
        throw CLI::ValidationError("INPUT", in + ": no image files (.tif .tiff .png .pgm .ppm .pnm .pgx) in the directory");
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(st)) {
      files.push_back(in);
    } else {
      throw CLI::ValidationError("INPUT", in + ": " + (fs::exists(st) ? "not a regular file or directory" : "no such file"));
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
