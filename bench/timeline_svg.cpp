// SPDX-License-Identifier: BSD-2-Clause
#include "bench/timeline_svg.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "common/error.hpp"

namespace j2k::bench {
namespace {

constexpr double kLeft = 90, kRight = 20, kTop = 58, kLane = 34, kGap = 6, kWidth = 1200;

const char* stage_name(j2k_stage s) {
  switch (s) {
    case J2K_STAGE_UPLOAD: return "upload";
    case J2K_STAGE_TRANSFORM: return "shift + MCT + DWT";
    case J2K_STAGE_DOWNLOAD: return "download";
    case J2K_STAGE_FRONT: return "front stage (upload, shift + MCT + DWT)";
    case J2K_STAGE_TIER1: return "Tier-1 (block coding, bytes back)";
    case J2K_STAGE_RATE: return "rate control";
    default: return "Tier-2 (packets, file)";
  }
}

const char* colour(j2k_stage s) {
  switch (s) {
    case J2K_STAGE_UPLOAD: return "#4c78a8";
    case J2K_STAGE_TRANSFORM: return "#59a14f";
    case J2K_STAGE_FRONT: return "#59a14f";
    case J2K_STAGE_TIER1: return "#e15759";
    case J2K_STAGE_RATE: return "#b07aa1";
    case J2K_STAGE_TIER2: return "#4c78a8";
    default: return "#f28e2b";
  }
}

// 1, 2 or 5 times a power of ten: about eight ticks over `span` milliseconds.
double tick_step(double span) {
  const double raw = span / 8;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

std::string svg(const std::string& title, const std::vector<j2k_span>& spans, int lanes) {
  lanes = std::max(lanes, 1);
  double end = 0;
  uint64_t first_frame = spans.empty() ? 0 : spans[0].frame;
  for (const j2k_span& s : spans) {
    lanes = std::max(lanes, s.queue + 1);
    end = std::max(end, s.end_ms);
    first_frame = std::min(first_frame, s.frame);
  }
  if (end <= 0) end = 1;
  const double plot = kWidth - kLeft - kRight;
  const double axis_y = kTop + lanes * (kLane + kGap);
  const double height = axis_y + 40;
  auto x_of = [&](double ms) { return kLeft + ms / end * plot; };

  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(1);
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << kLeft << "\" y=\"18\" font-size=\"13\">" << escape(title) << "</text>\n";
  // Legend. An encoder's timeline (frames in flight, stages FRONT..TIER2) has a lane per
  // encoder and a box per frame and stage, timed on the lane's host thread; a plan's has a
  // lane per queue and a box per tile and stage, timed on the GPU's streams.
  bool encoder = false;
  for (const j2k_span& s : spans) encoder = encoder || s.stage >= J2K_STAGE_FRONT;
  double lx = kLeft;
  const std::vector<j2k_stage> stages =
      encoder ? std::vector<j2k_stage>{J2K_STAGE_FRONT, J2K_STAGE_TIER1, J2K_STAGE_RATE, J2K_STAGE_TIER2}
              : std::vector<j2k_stage>{J2K_STAGE_UPLOAD, J2K_STAGE_TRANSFORM, J2K_STAGE_DOWNLOAD};
  for (j2k_stage s : stages) {
    const char* name = stage_name(s);
    o << "<rect x=\"" << lx << "\" y=\"28\" width=\"12\" height=\"12\" fill=\"" << colour(s) << "\"/>"
      << "<text x=\"" << lx + 16 << "\" y=\"38\">" << name << "</text>\n";
    lx += 28 + 6.0 * static_cast<double>(std::strlen(name));
  }
  // A box runs from when its stream reaches the stage to its end: a copy waiting for the copy
  // engine that another stream holds is inside it.
  if (encoder)
    o << "<text x=\"" << lx << "\" y=\"38\" fill=\"#555\">numbers: frames; lighter: every other frame</text>\n";
  else
    o << "<text x=\"" << lx << "\" y=\"38\" fill=\"#555\">numbers: tiles; lighter: every other frame; boxes include waits for a busy copy engine</text>\n";
  // Each queue's downloads have a stream of their own (they overlap its next upload): they
  // take the lower half of its lane.
  // Lanes.
  for (int q = 0; q < lanes; ++q) {
    const double y = kTop + q * (kLane + kGap);
    o << "<text x=\"8\" y=\"" << y + kLane / 2 + 4 << "\">" << (encoder ? "encoder " : "queue ") << q << "</text>\n"
      << "<rect x=\"" << kLeft << "\" y=\"" << y << "\" width=\"" << plot << "\" height=\"" << kLane
      << "\" fill=\"#f4f4f4\"/>\n";
  }
  for (const j2k_span& s : spans) {
    const double half = encoder ? kLane - 4 : (kLane - 4) / 2;
    const double y = kTop + s.queue * (kLane + kGap) + (s.stage == J2K_STAGE_DOWNLOAD ? half : 0);
    const double x0 = x_of(s.begin_ms), w = std::max(0.5, x_of(s.end_ms) - x0);
    const bool odd = (s.frame - first_frame) % 2 == 1;
    o << "<rect x=\"" << x0 << "\" y=\"" << y + 2 << "\" width=\"" << w << "\" height=\"" << half
      << "\" fill=\"" << colour(s.stage) << "\" fill-opacity=\"" << (odd ? "0.55" : "1") << "\" stroke=\"white\" stroke-width=\"0.5\">"
      << "<title>frame " << s.frame << (encoder ? "" : ", tile " + std::to_string(s.tile)) << ", " << stage_name(s.stage) << ": "
      << s.begin_ms << " .. " << s.end_ms << " ms</title></rect>\n";
    if (w >= 16)
      o << "<text x=\"" << x0 + w / 2 << "\" y=\"" << y + 2 + half / 2 + 4 << "\" text-anchor=\"middle\" fill=\"white\">"
        << (encoder ? static_cast<int64_t>(s.frame - first_frame) : s.tile) << "</text>\n";
  }
  // Time axis.
  o << "<line x1=\"" << kLeft << "\" y1=\"" << axis_y << "\" x2=\"" << kLeft + plot << "\" y2=\"" << axis_y
    << "\" stroke=\"#333\"/>\n";
  const double step = tick_step(end);
  for (double t = 0; t <= end + 1e-9; t += step) {
    const double x = x_of(t);
    o << "<line x1=\"" << x << "\" y1=\"" << axis_y << "\" x2=\"" << x << "\" y2=\"" << axis_y + 5
      << "\" stroke=\"#333\"/><text x=\"" << x << "\" y=\"" << axis_y + 18 << "\" text-anchor=\"middle\">"
      << (step < 1 ? t : std::round(t)) << "</text>\n";
  }
  o << "<text x=\"" << kLeft + plot << "\" y=\"" << axis_y + 34 << "\" text-anchor=\"end\">ms</text>\n</svg>\n";
  return o.str();
}

[[noreturn]] void io_error(const std::string& path, const char* what) {
  throw Error(ErrorCode::Io, "cannot write " + path + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

void write_timeline_svg(const std::string& path, const std::string& title, const std::vector<j2k_span>& spans, int lanes) {
  const std::string text = svg(title, spans, lanes);
  // A new file beside the target, renamed over it when complete: never a half-written picture.
  std::string tmp = path + ".XXXXXX";
  const int fd = mkstemp(tmp.data());
  if (fd < 0) io_error(path, "creating a temporary file");
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      io_error(path, "writing");
    }
    done += static_cast<size_t>(n);
  }
  if (::fchmod(fd, 0644) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    io_error(path, "closing");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    io_error(path, "renaming the temporary file into place");
  }
}

}  // namespace j2k::bench
