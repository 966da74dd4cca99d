// SPDX-License-Identifier: BSD-2-Clause
#include "api/settings.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "api/guard.hpp"
#include "common/parallel/thread_limit.hpp"

namespace j2k::api {

BackendOptions backend_options(const j2k_settings& s) {
  BackendOptions o;
  o.backend = backend_from(s.backend);
  const int cap = max_threads();
  require(thread_count_problem(s.threads).empty(), thread_count_problem(s.threads));
  o.threads = s.threads;
  if (s.thread_pool != nullptr) {
    const j2k_thread_pool& p = *s.thread_pool;
    require(p.run != nullptr, "thread_pool->run is null");
    require(p.workers >= 1 && p.workers <= cap,
            "thread_pool->workers must be 1 to " + std::to_string(cap) + ", got " + std::to_string(p.workers));
    require(s.threads == 0, "threads must be 0 with a thread_pool (its workers are the thread count), got " +
                                std::to_string(s.threads));
    o.thread_pool = p;
    o.threads = p.workers;
  }
  require(s.device >= -1, "device must be -1 (the first) or an index, got " + std::to_string(s.device));
  o.device = s.device;
  if (s.backend_options != nullptr) apply_backend_options(o, s.backend_options);
  return o;
}

PlanSettings plan_settings(const j2k_settings& s, int num_components) {
  PlanSettings p;
  if (s.component_levels != nullptr) {
    require(num_components >= 1 && num_components <= 16384,
            "component_levels needs an image of 1 to 16384 components, not " + std::to_string(num_components));
    p.component_levels.assign(s.component_levels, s.component_levels + num_components);
  }
  const int wavelet = c_enum(s.wavelet);
  require(wavelet == J2K_WAVELET_53 || wavelet == J2K_WAVELET_97,
          "wavelet " + std::to_string(wavelet) + " is not J2K_WAVELET_53 or J2K_WAVELET_97");
  p.wavelet = wavelet == J2K_WAVELET_53 ? Wavelet::Reversible53 : Wavelet::Irreversible97;
  p.levels = s.levels;
  p.tile_w = s.tile_w;
  p.tile_h = s.tile_h;
  p.tile_x0 = s.tile_x0;
  p.tile_y0 = s.tile_y0;
  switch (c_enum(s.mct)) {
    case J2K_MCT_AUTO: p.mct = Mct::Auto; break;
    case J2K_MCT_ON: p.mct = Mct::On; break;
    case J2K_MCT_OFF: p.mct = Mct::Off; break;
    default: require(false, "mct " + std::to_string(c_enum(s.mct)) + " is not a j2k_mct value");
  }
  const int memory = c_enum(s.output_memory);
  require(memory == J2K_MEMORY_HOST || memory == J2K_MEMORY_PINNED || memory == J2K_MEMORY_DEVICE,
          "output_memory " + std::to_string(memory) + " is not a j2k_memory value");
  p.output_memory = s.output_memory;
  require(s.streams >= 0 && s.streams <= 16, "streams must be 0 (the backend's choice) to 16, got " + std::to_string(s.streams));
  p.streams = s.streams;
  require(s.narrow_output == 0 || s.narrow_output == 1,
          "narrow_output must be 0 (int32) or 1 (int16), got " + std::to_string(s.narrow_output));
  p.narrow_output = s.narrow_output == 1;
  p.max_host_memory = s.max_host_memory;
  p.backend = backend_options(s);
  return p;
}

j2k::codec::ProfileRequest profile_request(j2k_profile profile, double frame_rate, int mainlevel, int sublevel) {
  const int p = j2k::c_enum(profile);
  const bool known = p == J2K_PROFILE_NONE || p == J2K_PROFILE_CINEMA_2K || p == J2K_PROFILE_CINEMA_4K ||
                     (p >= J2K_PROFILE_IMF_2K && p <= J2K_PROFILE_IMF_8K_R && (p & 0xFF) == 0);
  require(known, "profile " + std::to_string(p) + " is not a j2k_profile value");
  require(frame_rate >= 0 && std::isfinite(frame_rate), "frame_rate must be 0 or more");
  j2k::codec::ProfileRequest r;
  r.profile = static_cast<j2k::codec::Profile>(p);
  r.fps = frame_rate;
  r.mainlevel = mainlevel;
  r.sublevel = sublevel;
  if (r.profile == j2k::codec::Profile::None)
    require(mainlevel == 0 && sublevel == 0, "IMF main and sub levels need an IMF profile");
  return r;
}

}  // namespace j2k::api
