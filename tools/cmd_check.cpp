// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront check --profile NAME [--fps N] FILE...`: whether JPEG 2000 files keep to a profile
// (digital cinema or IMF; j2k_check_profile), every constraint each one breaks named, without
// decoding.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "j2kfront/j2kfront.hpp"
#include "tools/commands.hpp"

namespace j2k::tools {
namespace {

const std::map<std::string, j2k_profile> kProfiles = {
    {"cinema2k", J2K_PROFILE_CINEMA_2K}, {"cinema4k", J2K_PROFILE_CINEMA_4K}, {"imf2k", J2K_PROFILE_IMF_2K},
    {"imf4k", J2K_PROFILE_IMF_4K},       {"imf8k", J2K_PROFILE_IMF_8K},       {"imf2k_r", J2K_PROFILE_IMF_2K_R},
    {"imf4k_r", J2K_PROFILE_IMF_4K_R},   {"imf8k_r", J2K_PROFILE_IMF_8K_R}};

struct CheckArgs {
  std::vector<std::string> inputs;
  std::string profile;
  double fps = 0;  // cinema: 0 is 24; IMF: 0 is none
};

int run_check(const CheckArgs& a) {
  const j2k_profile profile = kProfiles.at(a.profile);
  if (profile == J2K_PROFILE_CINEMA_2K && a.fps != 0 && a.fps != 24 && a.fps != 48)
    throw CLI::ValidationError("--fps", "the cinema2k profile is for 24 or 48 frames a second");
  if (profile == J2K_PROFILE_CINEMA_4K && a.fps != 0 && a.fps != 24) throw CLI::ValidationError("--fps", "the cinema4k profile is for 24 frames a second");
  const bool cinema = profile == J2K_PROFILE_CINEMA_2K || profile == J2K_PROFILE_CINEMA_4K;
  char rate[48] = "";
  if (a.fps > 0 || cinema) std::snprintf(rate, sizeof rate, " at %g fps", a.fps > 0 ? a.fps : 24.0);
  int status = 0;
  for (const std::string& path : a.inputs) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "j2kfront: error: %s: cannot open\n", path.c_str());
      status = 1;
      continue;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    int violations = 0;
    std::vector<char> report(1 << 16);
    if (j2k_check_profile(bytes.data(), bytes.size(), profile, a.fps, &violations, report.data(), report.size()) != J2K_OK) {
      std::fprintf(stderr, "j2kfront: error: %s: %s\n", path.c_str(), j2k_last_error());
      status = 1;
      continue;
    }
    if (violations == 0) {
      std::printf("%s: keeps to the %s profile%s\n", path.c_str(), a.profile.c_str(), rate);
      continue;
    }
    std::printf("%s: breaks the %s profile%s in %d place%s:\n", path.c_str(), a.profile.c_str(), rate, violations,
                violations == 1 ? "" : "s");
    std::string line;
    for (const char* p = report.data(); *p; ++p) {
      if (*p != '\n') {
        line += *p;
        continue;
      }
      std::printf("  %s\n", line.c_str());
      line.clear();
    }
    status = 1;
  }
  return status;
}

}  // namespace

std::function<int()> add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check", "Check JPEG 2000 files against a profile (digital cinema, IMF), naming every constraint each breaks (exit 1 if any file breaks it)");
  cmd->add_option("FILE", args->inputs, "codestreams or JP2 files")->required();
  cmd->add_option("--profile", args->profile, "the profile: cinema2k, cinema4k, imf2k, imf4k, imf8k, imf2k_r, imf4k_r or imf8k_r")
      ->required()
      ->check(CLI::IsMember(kProfiles));
  cmd->add_option("--fps", args->fps,
                  "frames a second, for the rate limits: 24 (default) or 48 for cinema2k, 24 for cinema4k; for IMF, the "
                  "stream's main and sub level are checked at this rate (default: none)")
      ->check(CLI::PositiveNumber);
  return [args] { return run_check(*args); };
}

}  // namespace j2k::tools
