// j2k_settings checked at the edge and turned into the library's own settings.
#pragma once
#include "j2kfront/j2kfront.h"
#include "pipeline/plan.hpp"
#include "transform/backend.hpp"

namespace j2k::api {

BackendOptions backend_options(const j2k_settings& s);  // backend, threads, device, tuning
PlanSettings plan_settings(const j2k_settings& s);      // everything

}  // namespace j2k::api
