// SPDX-License-Identifier: BSD-2-Clause
// The digital cinema profiles (ISO/IEC 15444-1 Amd 1, Table A.10: Rsiz 3 and 4, as DCI's
// specification sets them and opj_compress -cinema2K / -cinema4K writes them): what the
// encoder's settings become for a profile, and every constraint a codestream's header breaks.
// The encoder and `j2kfront check` read the one table of limits here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codec/codestream/codestream_reader.hpp"
#include "codec/params/coding_params.hpp"
#include "j2kfront/j2kfront.h"
#include "pipeline/plan.hpp"

namespace j2k::codec {

enum class Profile { None = 0, Cinema2k = 3, Cinema4k = 4 };  // the values are Rsiz's

struct ProfileRequest {
  Profile profile = Profile::None;
  int fps = 24;  // frames per second: 24 or 48 for 2K, 24 for 4K (the byte limits follow)
};

// What a profile allows: the image, the levels, the bytes of a frame and of one component.
struct CinemaLimits {
  uint32_t max_width = 0, max_height = 0;
  int max_levels = 0;
  double stream_bytes = 0, component_bytes = 0;
};
// Throws InvalidArgument for a frame rate the profile does not have.
CinemaLimits cinema_limits(const ProfileRequest& request);

// The profile's name as the CLI spells it ("cinema2k", "cinema4k").
std::string profile_name(Profile profile);

// Makes the plan and the coding keep to the profile for an image of `shape`: the 9/7 with
// the ICT, one tile, at most the profile's levels (the settings' levels otherwise kept),
// 32 x 32 code-blocks without mode switches, precincts of 2^7 at the lowest resolution and
// 2^8 above, CPRL (for 4K in two progression changes, the highest resolution last), a
// tile-part per component, TLM and Rsiz. Throws InvalidArgument naming what the image or the
// settings break: three unsigned 12-bit components without subsampling (X'Y'Z'), at most the
// profile's width and height, at the canvas's origin; Part 1 code-blocks; byte targets only.
void apply_profile(const ProfileRequest& request, const j2k_image_view& shape, PlanSettings& plan, CodingParams& params);

// The byte targets after the rates were turned into them (set_layer_bytes): each layer at
// most the profile's frame size (a lossless last layer too), and the per-component limit.
void cap_profile_bytes(const ProfileRequest& request, CodingParams& params);

// Every constraint of the profile that a codestream breaks, each a sentence naming the
// field, what it holds and what the profile asks; empty: it keeps to the profile.
// `stream_bytes`: the codestream's size.
std::vector<std::string> profile_violations(const ProfileRequest& request, const Codestream& cs, size_t stream_bytes);

}  // namespace j2k::codec
