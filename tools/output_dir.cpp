#include "tools/output_dir.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/error.hpp"

namespace fs = std::filesystem;

namespace j2k::tools {
namespace {

// The files a previous run listed, if `layout.json` there is ours; otherwise none.
std::set<std::string> read_previous_outputs(const fs::path& dir) {
  std::set<std::string> out;
  std::ifstream in(dir / "layout.json");
  if (!in) return out;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("generator") || !j["generator"].is_string() ||
      j["generator"].get<std::string>().rfind("j2kfront", 0) != 0 || !j.contains("files") ||
      !j["files"].is_array())
    return out;
  for (const auto& f : j["files"])
    if (f.is_string() && fs::path(f.get<std::string>()).filename() == f.get<std::string>())
      out.insert(f.get<std::string>());  // plain names only: never reach outside the directory
  out.insert("layout.json");
  return out;
}

}  // namespace

OutputDir::OutputDir(const std::string& dir, const std::string& input, bool force)
    : dir_(dir), input_(input), force_(force) {
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
    throw Error(ErrorCode::Io, dir_ + ": exists and is not a directory");
  fs::create_directories(dir_, ec);
  if (ec) throw Error(ErrorCode::Io, dir_ + ": cannot create directory: " + ec.message());
  previous_outputs_ = read_previous_outputs(dir_);
}

std::string OutputDir::path(const std::string& name) const { return (fs::path(dir_) / name).string(); }

void OutputDir::check_writable(const std::string& name) const {
  const fs::path p = path(name);
  std::error_code ec;
  if (!fs::exists(p, ec)) return;
  if (fs::equivalent(p, input_, ec))
    throw Error(ErrorCode::Io, p.string() + ": is the input file; choose another output directory");
  if (fs::is_directory(p, ec)) throw Error(ErrorCode::Io, p.string() + ": is a directory");
  if (!force_ && !previous_outputs_.count(name))
    throw Error(ErrorCode::Io, p.string() +
                                   ": exists and was not written by j2kfront; use --force to replace it");
}

void OutputDir::write(const std::string& name,
                      const std::function<void(const std::string&)>& write_to) {
  check_writable(name);
  const std::string final_path = path(name);
  const std::string tmp = final_path + ".partial";
  try {
    write_to(tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  std::error_code ec;
  fs::rename(tmp, final_path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw Error(ErrorCode::Io, final_path + ": " + ec.message());
  }
}

void OutputDir::remove_stale(const std::set<std::string>& written) const {
  for (const std::string& name : previous_outputs_) {
    if (written.count(name)) continue;
    const fs::path p = path(name);
    std::error_code ec;
    if (fs::is_regular_file(p, ec) && !fs::equivalent(p, input_, ec)) fs::remove(p, ec);
  }
}

}  // namespace j2k::tools
