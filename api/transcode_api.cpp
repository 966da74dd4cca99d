// SPDX-License-Identifier: BSD-2-Clause
// j2k_transcode_settings and j2k_transcoder_*: the codec's transcoder (codec/transcoder.hpp)
// behind the C interface; the bytes it returns are the transcoder's own.
#include <chrono>
#include <string>
#include <vector>

#include "api/guard.hpp"
#include "codec/transcoder.hpp"
#include "common/parallel/thread_limit.hpp"

struct j2k_transcoder {
  j2k_transcode_settings settings;
  std::vector<uint8_t> bytes;  // the last run's file
  std::string warnings;
  j2k_transcode_report report{};
};

namespace {

using j2k::api::guard;
using j2k::api::require;

}  // namespace

extern "C" {

void j2k_transcode_settings_default(j2k_transcode_settings* settings) {
  if (!settings) return;
  *settings = j2k_transcode_settings{};
  settings->target = J2K_CODER_HT;
  settings->format = J2K_FORMAT_J2K;
}

j2k_status j2k_transcoder_create(const j2k_transcode_settings* settings, j2k_transcoder** transcoder) {
  return guard([&] {
    require(settings != nullptr && transcoder != nullptr, "j2k_transcoder_create: settings and transcoder must not be null");
    const int target = static_cast<int>(j2k::c_enum(settings->target));
    require(target == J2K_CODER_EBCOT || target == J2K_CODER_HT,
            "target must be J2K_CODER_EBCOT or J2K_CODER_HT, got " + std::to_string(target));
    const int format = static_cast<int>(j2k::c_enum(settings->format));
    require(format == J2K_FORMAT_J2K || format == J2K_FORMAT_JP2,
            "format must be J2K_FORMAT_J2K or J2K_FORMAT_JP2, got " + std::to_string(format));
    require(j2k::thread_count_problem(settings->threads).empty(), j2k::thread_count_problem(settings->threads));
    *transcoder = new j2k_transcoder{*settings, {}, {}, {}};
  });
}

void j2k_transcoder_destroy(j2k_transcoder* transcoder) { delete transcoder; }

j2k_status j2k_transcoder_run(j2k_transcoder* transcoder, const void* data, size_t size, const uint8_t** out, size_t* out_size) {
  return guard([&] {
    require(transcoder != nullptr && out != nullptr && out_size != nullptr,
            "j2k_transcoder_run: transcoder, out and out_size must not be null");
    require(data != nullptr || size == 0, "j2k_transcoder_run: data is null");
    const auto start = std::chrono::steady_clock::now();
    *out = nullptr;
    *out_size = 0;
    j2k::codec::TranscodeSettings s;
    s.target = transcoder->settings.target == J2K_CODER_HT ? j2k::codec::BlockCoding::HighThroughput : j2k::codec::BlockCoding::Ebcot;
    s.format = transcoder->settings.format == J2K_FORMAT_JP2 ? j2k::codec::FileFormat::Jp2 : j2k::codec::FileFormat::Codestream;
    s.threads = transcoder->settings.threads;
    s.max_bytes = transcoder->settings.max_bytes;
    j2k::codec::TranscodeReport r;
    transcoder->bytes = std::vector<uint8_t>();  // the last run's bytes go first
    transcoder->bytes = j2k::codec::transcode(static_cast<const uint8_t*>(data), size, s, &r);
    transcoder->warnings.clear();
    for (const std::string& w : r.warnings) transcoder->warnings += w + "\n";
    transcoder->report = j2k_transcode_report{};
    transcoder->report.blocks = r.blocks;
    transcoder->report.layers = r.layers;
    transcoder->report.warnings = transcoder->warnings.c_str();
    transcoder->report.read_ms = r.tier2_read_ms;
    transcoder->report.tier1_ms = r.tier1_ms;
    transcoder->report.write_ms = r.tier2_write_ms;
    transcoder->report.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    *out = transcoder->bytes.data();
    *out_size = transcoder->bytes.size();
  });
}

j2k_status j2k_transcoder_get_report(const j2k_transcoder* transcoder, j2k_transcode_report* report) {
  return guard([&] {
    require(transcoder != nullptr && report != nullptr, "j2k_transcoder_get_report: transcoder and report must not be null");
    *report = transcoder->report;
  });
}

}  // extern "C"
