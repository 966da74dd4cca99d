// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront info FILE...`: what a codestream's or JP2 file's headers say, without decoding
// (j2k_read_info), as text or (--json) one JSON object per file; as opj_dump does.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codec/codestream/jp2_reader.hpp"
#include "common/error.hpp"
#include "common/icc_profile.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tools/commands.hpp"

namespace j2k::tools {
namespace {

struct InfoArgs {
  std::vector<std::string> inputs;
  bool json = false;
};

const char* progression_name(j2k_progression p) {
  static const char* const kNames[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  const int i = static_cast<int>(p);
  return i >= 0 && i < 5 ? kNames[i] : "?";
}

std::string modes_text(unsigned modes) {
  static const std::pair<unsigned, const char*> kModes[] = {
      {J2K_MODE_BYPASS, "BYPASS"}, {J2K_MODE_RESET, "RESET"},     {J2K_MODE_RESTART, "RESTART"},
      {J2K_MODE_VSC, "VSC"},       {J2K_MODE_ERTERM, "ERTERM"},   {J2K_MODE_SEGMARK, "SEGMARK"},
      {J2K_MODE_HT, "HT"}};
  std::string out;
  for (const auto& [bit, name] : kModes)
    if (modes & bit) out += (out.empty() ? "" : "|") + std::string(name);
  return out.empty() ? "none" : out;
}

// What a JP2 file holds beside the image: its colour specification's ICC profile, its
// resolutions, its other top-level boxes (UUIDs named where known), and the boxes skipped as
// malformed; from the JP2 reader (j2k_read_info gives the colour space only).
struct Jp2Extras {
  size_t icc_bytes = 0;
  std::string icc_space;
  codec::Jp2Resolution capture, display;
  struct Box {
    std::string type, uuid;
    size_t bytes = 0;
  };
  std::vector<Box> boxes;
  std::vector<std::string> warnings;
};

Jp2Extras jp2_extras(const std::vector<char>& bytes) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const codec::Jp2File f = codec::read_jp2(data, bytes.size(), /*allow_partial=*/true);
  Jp2Extras e;
  e.icc_bytes = f.icc.size();
  e.icc_space = icc_colour_space(f.icc.data(), f.icc.size());
  e.capture = f.capture;
  e.display = f.display;
  for (const codec::Jp2BoxRef& b : f.boxes)
    e.boxes.push_back({codec::jp2_box_name(b.type), codec::jp2_uuid_name(data + b.contents, b.type == codec::jp2_fourcc("uuid") ? b.length : 0),
                       b.length});
  e.warnings = f.warnings;
  return e;
}

nlohmann::json resolution_json(const codec::Jp2Resolution& r) {
  return r.given() ? nlohmann::json{r.x, r.y} : nlohmann::json(nullptr);
}

nlohmann::json info_json(const std::string& path, const j2k_stream_info& i, const std::vector<j2k_component_info>& cs,
                         const Jp2Extras& x) {
  nlohmann::json j = {{"file", path},
                      {"format", i.format == J2K_FORMAT_JP2 ? "jp2" : "j2k"},
                      {"origin", {i.x0, i.y0}},
                      {"size", {i.width, i.height}},
                      {"tile_origin", {i.tile_x0, i.tile_y0}},
                      {"tile_size", {i.tile_w, i.tile_h}},
                      {"tiles", {i.tiles_x, i.tiles_y}},
                      {"tile_parts", i.tile_parts},
                      {"layers", i.layers},
                      {"progression", progression_name(i.progression)},
                      {"mct", i.mct != 0},
                      {"sop", i.sop != 0},
                      {"eph", i.eph != 0},
                      {"truncated", i.truncated != 0}};
  if (i.format == J2K_FORMAT_JP2) {
    j["enum_cs"] = i.enum_cs;
    j["icc"] = i.icc != 0;
    if (i.icc) {
      j["icc_bytes"] = x.icc_bytes;
      j["icc_colour_space"] = x.icc_space;
    }
    // Grid points per metre, across and down (null: no such box).
    j["capture_resolution"] = resolution_json(x.capture);
    j["display_resolution"] = resolution_json(x.display);
    j["boxes"] = nlohmann::json::array();
    for (const Jp2Extras::Box& b : x.boxes) {
      nlohmann::json box = {{"type", b.type}, {"bytes", b.bytes}};
      if (!b.uuid.empty()) box["uuid"] = b.uuid;
      j["boxes"].push_back(box);
    }
    j["warnings"] = x.warnings;
  }
  j["components"] = nlohmann::json::array();
  for (const j2k_component_info& c : cs)
    j["components"].push_back({{"precision", c.precision},
                               {"signed", c.is_signed != 0},
                               {"subsampling", {c.dx, c.dy}},
                               {"size", {c.width, c.height}},
                               {"levels", c.levels},
                               {"wavelet", c.reversible ? "5/3" : "9/7"},
                               {"block_size", {c.block_w, c.block_h}},
                               {"modes", modes_text(c.modes)}});
  return j;
}

// "11811 x 11811 per metre (300 x 300 dpi)"
std::string resolution_text(const codec::Jp2Resolution& r) {
  char text[160];
  std::snprintf(text, sizeof text, "%.6g x %.6g per metre (%.6g x %.6g dpi)", r.x, r.y, r.x * 0.0254, r.y * 0.0254);
  return text;
}

void print_text(const std::string& path, const j2k_stream_info& i, const std::vector<j2k_component_info>& cs, const Jp2Extras& x) {
  const bool ht = !cs.empty() && (cs[0].modes & J2K_MODE_HT) != 0;  // HT code-blocks (Part 15): a JPH file, an HTJ2K codestream
  std::printf("%s: %s, %u x %u at (%u,%u), %d component%s%s\n", path.c_str(),
              i.format == J2K_FORMAT_JP2 ? (ht ? "JPH file" : "JP2 file") : (ht ? "HTJ2K codestream" : "codestream"), i.width, i.height, i.x0, i.y0, i.num_components,
              i.num_components == 1 ? "" : "s", i.truncated ? ", cut short (its headers are whole)" : "");
  if (i.format == J2K_FORMAT_JP2) {
    if (i.icc) std::printf("  colour: an ICC profile (method 2), %zu bytes, colour space '%s'\n", x.icc_bytes, x.icc_space.c_str());
    else std::printf("  colour: EnumCS %d\n", i.enum_cs);
    if (x.capture.given()) std::printf("  capture resolution: %s\n", resolution_text(x.capture).c_str());
    if (x.display.given()) std::printf("  display resolution: %s\n", resolution_text(x.display).c_str());
    for (const Jp2Extras::Box& b : x.boxes)
      std::printf("  box '%s'%s: %zu bytes\n", b.type.c_str(), b.uuid.empty() ? "" : (" " + b.uuid).c_str(), b.bytes);
    for (const std::string& w : x.warnings) std::printf("  warning: %s\n", w.c_str());
  }
  std::printf("  tiles: %u x %u of %u x %u from (%u,%u), %d tile-part%s\n", i.tiles_x, i.tiles_y, i.tile_w, i.tile_h,
              i.tile_x0, i.tile_y0, i.tile_parts, i.tile_parts == 1 ? "" : "s");
  std::printf("  coding (first tile): %d layer%s, %s, MCT %s, SOP %s, EPH %s\n", i.layers, i.layers == 1 ? "" : "s",
              progression_name(i.progression), i.mct ? "on" : "off", i.sop ? "on" : "off", i.eph ? "on" : "off");
  for (size_t c = 0; c < cs.size(); ++c) {
    const j2k_component_info& k = cs[c];
    std::printf("  component %zu: %d-bit %s, %u x %u, subsampling %d x %d, %s, %d levels, code-blocks %d x %d, modes %s\n",
                c, k.precision, k.is_signed ? "signed" : "unsigned", k.width, k.height, k.dx, k.dy,
                k.reversible ? "5/3" : "9/7", k.levels, k.block_w, k.block_h, modes_text(k.modes).c_str());
  }
}

}  // namespace

std::function<int()> add_info_command(CLI::App& app) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = app.add_subcommand("info", "Print what JPEG 2000 files' headers say (as opj_dump), without decoding");
  cmd->add_option("FILE", args->inputs, "codestreams (.j2k .j2c .jpc) or JP2 files, found by their signature")
      ->required();
  cmd->add_flag("--json", args->json, "one JSON object per file, a line each");
  return [args] {
    int status = 0;
    for (const std::string& path : args->inputs) {
      std::ifstream f(path, std::ios::binary);
      if (!f) {
        std::fprintf(stderr, "j2kfront: error: %s: cannot open\n", path.c_str());
        status = 1;
        continue;
      }
      const std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      j2k_stream_info info{};
      if (j2k_read_info(bytes.data(), bytes.size(), &info, nullptr, 0) != J2K_OK) {
        std::fprintf(stderr, "j2kfront: error: %s: %s\n", path.c_str(), j2k_last_error());
        status = 1;
        continue;
      }
      std::vector<j2k_component_info> components(static_cast<size_t>(info.num_components));
      j2kfront::check(j2k_read_info(bytes.data(), bytes.size(), &info, components.data(), info.num_components));
      const Jp2Extras extras = info.format == J2K_FORMAT_JP2 ? jp2_extras(bytes) : Jp2Extras{};
      if (args->json) std::printf("%s\n", info_json(path, info, components, extras).dump().c_str());
      else print_text(path, info, components, extras);
    }
    return status;
  };
}

}  // namespace j2k::tools
