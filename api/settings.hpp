// SPDX-License-Identifier: BSD-2-Clause
// j2k_settings checked at the edge and turned into the library's own settings.
#pragma once
#include "codec/profiles.hpp"
#include "j2kfront/j2kfront.h"
#include "pipeline/plan.hpp"
#include "transform/backend.hpp"

namespace j2k::api {

BackendOptions backend_options(const j2k_settings& s);  // backend, threads, device, tuning
// Everything; component_levels (when not NULL) read for `num_components` components.
PlanSettings plan_settings(const j2k_settings& s, int num_components);
// j2k_coding's profile fields (or j2k_check_profile's), checked: a known profile, a frame rate
// of 0 or more, IMF levels only with an IMF profile (their ranges: codec::profile_limits).
codec::ProfileRequest profile_request(j2k_profile profile, double frame_rate, int mainlevel, int sublevel);

}  // namespace j2k::api
