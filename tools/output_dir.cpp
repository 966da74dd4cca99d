// SPDX-License-Identifier: BSD-2-Clause
#include "tools/output_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "j2kfront/j2kfront.h"
#include "tools/temp_files.hpp"

namespace fs = std::filesystem;

namespace j2k::tools {
namespace {

// The generated names that a manifest or marker of ours lists; none if the file is not ours.
void read_listed(const fs::path& file, const OutputDir::NamePredicate& generated, std::set<std::string>& out) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(file, ec))) return;  // never read through a link
  std::ifstream in(file);
  if (!in) return;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("generator") || !j["generator"].is_string() ||
      j["generator"].get<std::string>().rfind("j2kfront", 0) != 0 || !j.contains("files") ||
      !j["files"].is_array())
    return;
  // Only names the tool itself generates: a forged list cannot make it replace or remove
  // anything else (nor reach outside the directory, as no generated name has a '/').
  for (const auto& f : j["files"])
    if (f.is_string() && generated(f.get<std::string>())) out.insert(f.get<std::string>());
}

std::string random_suffix() {
  static thread_local std::mt19937_64 rng(std::random_device{}() ^ static_cast<uint64_t>(::getpid()));
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(rng()));
  return text;
}

}  // namespace

OutputDir::OutputDir(const std::string& dir, const std::string& input, bool force, NamePredicate generated, bool create)
    : dir_(dir), input_(input), force_(force), generated_(std::move(generated)) {
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
    throw Error(ErrorCode::Io, dir_ + ": exists and is not a directory");
  if (create) fs::create_directories(dir_, ec);
  if (ec) throw Error(ErrorCode::Io, dir_ + ": cannot create directory: " + ec.message());
  // Every file is created and renamed relative to this handle: the directory the checks saw.
  dir_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) throw Error(ErrorCode::Io, dir_ + ": " + std::strerror(errno));
  read_listed(fs::path(dir_) / kManifest, generated_, previous_outputs_);
  read_listed(fs::path(dir_) / kIncomplete, generated_, previous_outputs_);
}

OutputDir::~OutputDir() {
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

std::string OutputDir::path(const std::string& name) const { return (fs::path(dir_) / name).string(); }

OutputFile::OutputFile(std::string path, std::string input, bool force, std::function<bool(const std::string&)> ours)
    : path_(std::move(path)), input_(std::move(input)), force_(force), ours_(std::move(ours)) {}

void OutputFile::check() const {
  if (path_ == "-") {
    if (::isatty(STDOUT_FILENO))
      throw Error(ErrorCode::Io, "-o -: standard output is a terminal; redirect it to a file or a pipe, or give -o FILE");
    return;
  }
  std::error_code ec;
  // Its directory must be there, as opj_decompress and opj_compress want it: a mistyped path
  // is reported, not made.
  const fs::path parent = fs::path(path_).parent_path();
  if (!parent.empty()) {
    const fs::file_status dir = fs::status(parent, ec);
    if (dir.type() == fs::file_type::not_found)
      throw Error(ErrorCode::Io, path_ + ": the directory " + parent.string() + " does not exist; create it first");
    if (ec) throw Error(ErrorCode::Io, path_ + ": " + parent.string() + ": " + ec.message());  // e.g. no permission
    if (!fs::is_directory(dir)) throw Error(ErrorCode::Io, path_ + ": " + parent.string() + " is not a directory");
    ec.clear();
  }
  const fs::file_status st = fs::symlink_status(path_, ec);
  if (!fs::exists(st)) return;
  if (fs::equivalent(path_, input_, ec)) throw Error(ErrorCode::Io, path_ + ": is the input file; choose another name");
  if (fs::is_directory(st)) throw Error(ErrorCode::Io, path_ + ": is a directory; give a file name");
  if (force_) return;
  if (!ours_) throw Error(ErrorCode::Io, path_ + ": exists; use --force to replace it");
  if (!(fs::is_regular_file(st) && ours_(path_)))
    throw Error(ErrorCode::Io, path_ + ": exists and was not written by j2kfront; use --force to replace it");
}

void OutputFile::write(const std::function<void(std::FILE*, const std::string&)>& write_to) const {
  check();
  if (path_ == "-") {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> whole(std::tmpfile(), std::fclose);  // removed when closed
    if (!whole) throw Error(ErrorCode::Io, std::string("standard output: cannot make a temporary file: ") + std::strerror(errno));
    write_to(whole.get(), "standard output");
    if (std::fflush(whole.get()) != 0 || std::fseek(whole.get(), 0, SEEK_SET) != 0)
      throw Error(ErrorCode::Io, std::string("standard output: cannot read back the temporary file: ") + std::strerror(errno));
    char buffer[1 << 16];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, whole.get())) > 0)
      if (std::fwrite(buffer, 1, n, stdout) != n) break;
    if (std::ferror(whole.get()) || std::fflush(stdout) != 0 || std::ferror(stdout))
      throw Error(ErrorCode::Io, std::string("standard output: cannot write: ") + std::strerror(errno));
    return;
  }
  const fs::path target(path_);
  // Replacing is allowed by now: OutputDir still never replaces the input.
  OutputDir dir(target.has_parent_path() ? target.parent_path().string() : ".", input_, /*force=*/true,
                [](const std::string&) { return false; }, /*create=*/false);
  dir.write(target.filename().string(), write_to);
}

void OutputDir::check_writable(const std::string& name) const {
  const fs::path p = path(name);
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(p, ec);
  if (!fs::exists(st)) return;
  if (fs::equivalent(p, input_, ec))
    throw Error(ErrorCode::Io, p.string() + ": is the input file; choose another output directory");
  if (fs::is_directory(st)) throw Error(ErrorCode::Io, p.string() + ": is a directory");
  const bool ours = previous_outputs_.count(name) || name == kManifest || name == kIncomplete;
  if (!force_ && !(ours && fs::is_regular_file(st)))
    throw Error(ErrorCode::Io, p.string() +
                                   ": exists and was not written by j2kfront; use --force to replace it");
}

void OutputDir::begin(const std::set<std::string>& names) {
  std::set<std::string> listed = previous_outputs_;
  listed.insert(names.begin(), names.end());
  listed.erase(kManifest);
  nlohmann::json j;
  j["generator"] = std::string("j2kfront ") + j2k_version();
  j["note"] = "a j2kfront run is writing this directory, or failed while writing it: "
              "the files here may come from two runs; rerun to complete it";
  j["files"] = listed;
  write_text(kIncomplete, j.dump(1) + "\n");
  in_set_ = true;
  if (::unlinkat(dir_fd_, kManifest, 0) != 0 && errno != ENOENT)
    throw Error(ErrorCode::Io, path(kManifest) + ": cannot remove the previous manifest: " + std::strerror(errno));
}

void OutputDir::write(const std::string& name,
                      const std::function<void(std::FILE*, const std::string&)>& write_to) {
  check_writable(name);
  const std::string final_path = path(name);
  const std::string note =
      in_set_ ? " (" + dir_ + " now holds an incomplete set of outputs, marked by " + kIncomplete + ")" : "";
  auto failed = [&](const std::string& what) { throw Error(ErrorCode::Io, final_path + ": " + what + note); };
  // A name no other run chooses, created only if absent and never through a link.
  // Registered from its creation on (signals held between the two): a signal that ends the
  // run removes it.
  std::string tmp;
  int fd = -1;
  std::optional<TempFileRegistration> registered;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    tmp = "." + name + "." + random_suffix() + ".partial";
    int err = 0;
    {
      HandledSignalsBlocked blocked;
      fd = ::openat(dir_fd_, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      err = errno;
      if (fd >= 0) {
        try {
          registered.emplace(dir_fd_, tmp);
        } catch (...) {
          ::close(fd);
          ::unlinkat(dir_fd_, tmp.c_str(), 0);
          throw;
        }
      }
    }
    if (fd < 0 && err != EEXIST) failed(std::string("cannot create a temporary file: ") + std::strerror(err));
  }
  if (fd < 0) failed("cannot create a temporary file: every name tried exists");
  std::FILE* f = ::fdopen(fd, "wb");
  if (!f) {
    const int err = errno;
    ::close(fd);
    ::unlinkat(dir_fd_, tmp.c_str(), 0);
    failed(std::strerror(err));
  }
  try {
    write_to(f, final_path);
  } catch (const Error& e) {
    std::fclose(f);
    ::unlinkat(dir_fd_, tmp.c_str(), 0);
    throw Error(e.code(), e.what() + note);
  } catch (...) {
    std::fclose(f);
    ::unlinkat(dir_fd_, tmp.c_str(), 0);
    throw;
  }
  // fclose flushes what is buffered: a full disk often shows up only here.
  if (std::fclose(f) != 0) {
    const int err = errno;
    ::unlinkat(dir_fd_, tmp.c_str(), 0);
    failed(std::strerror(err));
  }
  // The new file takes the final name from whatever is there (a link itself, never its
  // target): the two exchanged, then the old one, now under the temporary name, removed. A
  // rename over a file would do the same in one call, but ext4 then allocates the new file's
  // blocks at once (its auto_da_alloc; a 32 MiB PGM on the development machine: 10 to 23 ms,
  // against 2 to 8 ms for the exchange and the old file's removal). Either way the final name
  // holds the old file or the new one at every moment. Nothing there, or a file system
  // without the exchange (EINVAL): the rename.
#if defined(__linux__) && defined(RENAME_EXCHANGE)
  if (::renameat2(dir_fd_, tmp.c_str(), dir_fd_, name.c_str(), RENAME_EXCHANGE) == 0) {
    if (::unlinkat(dir_fd_, tmp.c_str(), 0) != 0)
      failed("written, but the file it replaced could not be removed from " + path(tmp) + ": " + std::strerror(errno));
    return;
  }
#endif
  if (::renameat(dir_fd_, tmp.c_str(), dir_fd_, name.c_str()) != 0) {
    const int err = errno;
    ::unlinkat(dir_fd_, tmp.c_str(), 0);
    failed(std::strerror(err));
  }
}

void OutputDir::write_text(const std::string& name, const std::string& text) {
  write(name, [&](std::FILE* f, const std::string& shown) {
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size())
      throw Error(ErrorCode::Io, shown + ": " + std::strerror(errno));
  });
}

void OutputDir::finish(const std::set<std::string>& written) {
  for (const std::string& name : previous_outputs_) {
    if (written.count(name)) continue;
    struct stat st {};
    // Regular files only (a link of that name is left alone), and never the input.
    if (::fstatat(dir_fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    std::error_code ec;
    if (fs::equivalent(path(name), input_, ec)) continue;
    ::unlinkat(dir_fd_, name.c_str(), 0);
  }
  if (::unlinkat(dir_fd_, kIncomplete, 0) != 0 && errno != ENOENT)
    throw Error(ErrorCode::Io, path(kIncomplete) + ": " + std::strerror(errno));
  in_set_ = false;
}

}  // namespace j2k::tools
