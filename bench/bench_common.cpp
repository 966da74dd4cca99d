// SPDX-License-Identifier: BSD-2-Clause
// Shared pieces of the benchmarks: the input pattern, the statistics and the CSV files.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.hpp"
#include "common/error.hpp"

extern char** environ;

namespace j2k::bench {

namespace {

// A copy of the environment, made before main() (before any OpenCL runtime is loaded).
struct Snapshot {
  std::vector<std::string> strings;
  std::vector<char*> pointers;
  Snapshot() {
    for (char** e = environ; e && *e; ++e) strings.emplace_back(*e);
    for (std::string& s : strings) pointers.push_back(s.data());
    pointers.push_back(nullptr);
  }
};
const Snapshot g_start_environment;

}  // namespace

char* const* start_environment() { return g_start_environment.pointers.data(); }

std::vector<int32_t> test_pattern(int64_t w, int64_t h, int bits, uint32_t seed) {
  std::vector<int32_t> v(static_cast<size_t>(w * h));
  const int32_t max = (int32_t{1} << bits) - 1;
  uint32_t state = seed * 2654435761u + 1;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      state = state * 1664525u + 1013904223u;  // LCG noise
      const double smooth = 0.5 + 0.25 * std::sin(x * 0.013) * std::cos(y * 0.021);
      const double texture = 0.15 * std::sin((x + 2 * y) * 0.4);
      const double noise = 0.05 * ((state >> 8) / 16777216.0 - 0.5);
      const double s = std::clamp(smooth + texture + noise, 0.0, 1.0);
      v[static_cast<size_t>(y * w + x)] = static_cast<int32_t>(s * max);
    }
  return v;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

Rounds time_in_rounds(size_t commands, int repeats, const std::function<Timed(size_t)>& run) {
  Rounds rounds;
  rounds.ms.resize(commands);
  rounds.peak_mib.resize(commands);
  for (int r = 0; r <= repeats; ++r)
    for (size_t k = 0; k < commands; ++k) {
      const Timed t = run(k);
      if (r == 0) continue;
      rounds.ms[k].push_back(t.ms);
      rounds.peak_mib[k].push_back(t.peak_mib);
    }
  return rounds;
}

std::vector<int> sweep(const CompressOptions& o) { return o.thread_counts.empty() ? std::vector<int>{o.threads} : o.thread_counts; }

std::string sweep_text(const CompressOptions& o) {
  std::string text;
  for (int t : sweep(o)) text += (text.empty() ? "" : ",") + std::to_string(t);
  return text;
}

double median_ratio(const std::vector<std::vector<double>>& times, size_t reference, size_t k) {
  std::vector<double> ratios;
  for (size_t r = 0; r < times[k].size() && r < times[reference].size(); ++r) ratios.push_back(times[reference][r] / times[k][r]);
  return median(ratios);
}

CsvField::CsvField(const std::string& s) : text(s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return;
  text = "\"";
  for (char c : s) text += c == '"' ? std::string("\"\"") : std::string(1, c);
  text += '"';
}

std::string CsvField::number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

namespace {

[[noreturn]] void csv_error(const std::string& path, const char* what) {
  throw Error(ErrorCode::Io, "cannot write the CSV file " + path + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

CsvFile::CsvFile(const std::string& path, std::vector<std::string> columns) : path_(path), columns_(columns.size()) {
  if (path_.empty()) return;
  // rename() would refuse a directory only at the end, after the benchmark.
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error(ErrorCode::Io, "cannot write the CSV file " + path_ + ": it is a directory");
  tmp_ = path_ + ".XXXXXX";
  // Close-on-exec: the CPU bench starts a second j2kfront while the file is open.
  fd_ = ::mkostemp(tmp_.data(), O_CLOEXEC);
  if (fd_ < 0) csv_error(path_, "creating a temporary file beside it");
  for (size_t i = 0; i < columns.size(); ++i) text_ += (i ? "," : "") + CsvField(columns[i]).text;
  text_ += '\n';
}

CsvFile::~CsvFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

void CsvFile::row(std::initializer_list<CsvField> fields) { row(std::vector<CsvField>(fields)); }

void CsvFile::row(const std::vector<CsvField>& fields) {
  if (path_.empty()) return;
  if (fields.size() != columns_)
    throw Error(ErrorCode::Internal, "a CSV row of " + std::to_string(fields.size()) + " fields for " +
                                         std::to_string(columns_) + " columns (" + path_ + ")");
  bool first = true;
  for (const CsvField& f : fields) {
    text_ += (first ? "" : ",") + f.text;
    first = false;
  }
  text_ += '\n';
}

void CsvFile::commit() {
  if (fd_ < 0) return;
  const int fd = std::exchange(fd_, -1);  // from here on, a failure removes the file itself
  // Removes the temporary file and throws, with the errno of the call that failed.
  auto fail = [&](const char* what, bool open) {
    const int err = errno;
    if (open) ::close(fd);
    ::unlink(tmp_.c_str());
    errno = err;
    csv_error(path_, what);
  };
  for (size_t done = 0; done < text_.size();) {
    const ssize_t n = ::write(fd, text_.data() + done, text_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;
    if (n <= 0) fail("writing", true);
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0) fail("setting its mode", true);  // mkostemp's is 0600
  if (::close(fd) != 0) fail("closing", false);
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail("renaming the temporary file into place", false);
}

std::string csv_sibling(const std::string& path, const std::string& tag) {
  if (path.empty()) return path;
  const std::string ext = ".csv";
  const bool csv = path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  return csv ? path.substr(0, path.size() - ext.size()) + "-" + tag + ext : path + "-" + tag;
}

DwtCsv::DwtCsv(const Options& o, std::string backend, std::string device)
    : file_(o.csv, {"backend", "device", "size", "levels", "repeats", "variant", "yardstick", "ms", "copy_ms",
                    "x_copy", "msamples_per_s"}),
      backend_(std::move(backend)),
      device_(std::move(device)),
      levels_(o.levels),
      repeats_(o.repeats) {}

void DwtCsv::row(int64_t size, const std::string& variant, double ms, double copy_ms, bool yardstick) {
  file_.row({backend_, device_, size, levels_, repeats_, variant, yardstick ? 1 : 0, ms, copy_ms, ms / copy_ms,
             static_cast<double>(size * size) / ms / 1e3});
}

}  // namespace j2k::bench
