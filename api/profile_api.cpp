// SPDX-License-Identifier: BSD-2-Clause
// j2k_check_profile: a codestream's or JP2 file's headers and tile-part sizes against a
// profile's constraints (codec/profiles.hpp), without decoding a packet.
#include <cstring>
#include <string>
#include <vector>

#include "api/guard.hpp"
#include "api/settings.hpp"
#include "codec/codestream/codestream_reader.hpp"
#include "codec/codestream/jp2_reader.hpp"
#include "codec/profiles.hpp"

using j2k::api::guard;
using j2k::api::require;

extern "C" j2k_status j2k_check_profile(const void* data, size_t size, j2k_profile profile, double frame_rate, int* violations,
                                        char* report, size_t report_size) {
  return guard([&] {
    require(violations != nullptr, "violations is null");
    *violations = 0;
    if (report_size > 0) {
      require(report != nullptr, "report is null with report_size above 0");
      report[0] = '\0';
    }
    require(data != nullptr || size == 0, "data is null");
    const j2k::codec::ProfileRequest request = j2k::api::profile_request(profile, frame_rate, 0, 0);
    require(request.profile != j2k::codec::Profile::None, "J2K_PROFILE_NONE is no profile to check");
    j2k::codec::profile_limits(request);  // the frame rate
    const auto* bytes = static_cast<const uint8_t*>(data);
    const uint8_t* stream = bytes;
    size_t stream_size = size;
    if (j2k::codec::is_jp2(bytes, size)) {
      const j2k::codec::Jp2File jp2 = j2k::codec::read_jp2(bytes, size, /*allow_partial=*/false);
      stream = bytes + jp2.codestream;
      stream_size = jp2.codestream_length;
    }
    const j2k::codec::Codestream cs = j2k::codec::read_codestream(stream, stream_size);
    const std::vector<std::string> found = j2k::codec::profile_violations(request, cs, stream_size);
    *violations = static_cast<int>(found.size());
    std::string text;
    for (const std::string& v : found) text += v + "\n";
    if (report_size > 0) {
      const size_t n = std::min(text.size(), report_size - 1);
      std::memcpy(report, text.data(), n);
      report[n] = '\0';
    }
  });
}
