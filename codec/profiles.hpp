// SPDX-License-Identifier: BSD-2-Clause
// The profiles of ISO/IEC 15444-1 Table A.10 that a codestream can be made to keep to, as
// opj_compress writes them: digital cinema 2K and 4K (Amd 1, Rsiz 3 and 4, DCI's
// specification: -cinema2K, -cinema4K) and the IMF profiles (Amd 8, SMPTE ST 2067-21: 2K,
// 4K, 8K and their reversible _R forms, with a main level and a sub level in Rsiz: -IMF).
// What the encoder's settings become for a profile, and every constraint a codestream's header
// breaks: the encoder and `j2kfront check` read the one table of limits here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "codec/codestream/codestream_reader.hpp"
#include "codec/params/coding_params.hpp"
#include "j2kfront/j2kfront.h"
#include "pipeline/plan.hpp"

namespace j2k::codec {

// The values are Rsiz's (IMF's without its levels).
enum class Profile {
  None = 0,
  Cinema2k = 3,
  Cinema4k = 4,
  Imf2k = 0x0400,
  Imf4k = 0x0500,
  Imf8k = 0x0600,
  Imf2kR = 0x0700,
  Imf4kR = 0x0800,
  Imf8kR = 0x0900,
};

struct ProfileRequest {
  Profile profile = Profile::None;
  // Frames a second, for the byte limits: cinema 2K 24 or 48, 4K 24 (0: 24); IMF any above 0
  // (0: none given, so no rate limits and no sample-rate check).
  double fps = 0;
  int mainlevel = 0, sublevel = 0;  // IMF's (Table A.53): 0..11, 0..9 as the main level allows
};

// What a profile allows.
struct ProfileLimits {
  std::string name;                 // "cinema2k", "imf4k_r", ...
  bool cinema = false, reversible = false;
  uint32_t max_width = 0, max_height = 0;
  int max_levels = 0;
  double stream_bytes = 0, component_bytes = 0;  // a frame's and one component's (0: none)
  double max_samples_per_second = 0;             // IMF's main level at fps (0: none)
};
// Throws InvalidArgument for a frame rate or level the profile does not have.
ProfileLimits profile_limits(const ProfileRequest& request);

// The profile a name spells ("cinema2k", "cinema4k", "imf2k", "imf4k", "imf8k", "imf2k_r",
// "imf4k_r", "imf8k_r", any case); None for any other.
Profile profile_from_name(const std::string& name);
// IMF's 2K, 4K, 8K and _R.
bool is_imf(Profile profile);

// Makes the plan and the coding keep to the profile for an image of `shape`; throws
// InvalidArgument naming what the image or the settings break. Cinema: three unsigned 12-bit
// components (X'Y'Z') without subsampling; IMF: 1 to 3 unsigned components of 8 to 16 bits,
// the second and third subsampled alike by 1 or 2 across (4:2:2). Both: at most the profile's
// width and height at the canvas's origin, one layer for IMF, Part 1 code-blocks, byte targets
// only. Set: the 9/7 (IMF _R: the 5/3), the ICT for cinema, one tile (IMF _R: or tiles of
// 1024, 2048 for 4K_R and 8K_R, 4096 for 8K_R, as given), at most the profile's levels (the
// settings' levels otherwise kept), 32 x 32 code-blocks without mode switches, precincts of
// 2^7 at the lowest resolution and 2^8 above, CPRL (cinema 4K: in two progression changes,
// the highest resolution last), a tile-part per component, TLM and Rsiz.
void apply_profile(const ProfileRequest& request, const j2k_image_view& shape, PlanSettings& plan, CodingParams& params);

// The byte targets after the rates were turned into them (set_layer_bytes): each layer at
// most the profile's frame size where it has one (a lossless last layer too), and the
// per-component limit.
void cap_profile_bytes(const ProfileRequest& request, CodingParams& params);

// Every constraint of the profile that a codestream breaks, each a sentence naming the
// field, what it holds and what the profile asks; empty: it keeps to the profile. For IMF
// the main and sub level are the stream's own (its Rsiz), checked against `request.fps` where
// given. `stream_bytes`: the codestream's size.
std::vector<std::string> profile_violations(const ProfileRequest& request, const Codestream& cs, size_t stream_bytes);

}  // namespace j2k::codec
