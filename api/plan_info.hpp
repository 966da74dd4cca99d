// SPDX-License-Identifier: BSD-2-Clause
// j2k_plan_info of a plan, for j2k_plan_get_info and j2k_encoder_get_plan_info.
#pragma once
#include <string>

#include "j2kfront/j2kfront.h"
#include "pipeline/plan.hpp"

namespace j2k::api {

// `description` must outlive the info (its description points into it).
j2k_plan_info plan_info(const Plan& plan, const std::string& description);

}  // namespace j2k::api
