// SPDX-License-Identifier: BSD-2-Clause
// j2k_settings checked at the edge and turned into the library's own settings.
#pragma once
#include "j2kfront/j2kfront.h"
#include "pipeline/plan.hpp"
#include "transform/backend.hpp"

namespace j2k::api {

BackendOptions backend_options(const j2k_settings& s);  // backend, threads, device, tuning
// Everything; component_levels (when not NULL) read for `num_components` components.
PlanSettings plan_settings(const j2k_settings& s, int num_components);

}  // namespace j2k::api
