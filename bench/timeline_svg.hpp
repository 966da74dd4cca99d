// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront bench --pipeline --timeline FILE.svg`: a plan's timeline (j2k_plan_get_timeline) as
// an SVG picture, one lane per queue, one box per tile and stage, so that the overlap of the
// uploads, transforms and downloads can be seen.
#pragma once
#include <string>
#include <vector>

#include "j2kfront/j2kfront.h"

namespace j2k::bench {

// Writes the picture to `path` (through a temporary file renamed into place), with at least
// `lanes` lanes (an idle one shown too); throws Error(IoError) naming the path when it cannot.
void write_timeline_svg(const std::string& path, const std::string& title, const std::vector<j2k_span>& spans, int lanes = 1);

}  // namespace j2k::bench
