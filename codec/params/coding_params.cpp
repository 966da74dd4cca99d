// SPDX-License-Identifier: BSD-2-Clause
#include "codec/params/coding_params.hpp"

#include <cmath>
#include <string>

#include "common/error.hpp"
#include "common/file_names.hpp"
#include "tiling/limits.hpp"

namespace j2k::codec {
namespace {

[[noreturn]] void bad(const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); }

void check_style(const ComponentStyle& s, const std::string& whose) {
  if (s.levels < 0 || s.levels > kMaxLevels) bad(whose + "decomposition levels must be 0 to 32, not " + std::to_string(s.levels));
  if (!s.precincts.empty()) {
    if (s.precincts.size() != static_cast<size_t>(s.levels + 1)) bad(whose + "precinct sizes: one per resolution");
    for (size_t r = 0; r < s.precincts.size(); ++r) {
      const auto [x, y] = s.precincts[r];
      const int least = r == 0 ? 0 : 1;  // B.6: a band's precincts are half the resolution's
      if (x < least || x > 15 || y < least || y > 15)
        bad(whose + "precinct sizes must be powers of two from " + std::to_string(1 << least) + " to 32768 (resolution " + std::to_string(r) + ")");
    }
  }
  if (!valid_block_log2(s.block_w_log2, s.block_h_log2))
    bad(whose + "code-blocks must be 4 to 1024 samples a side, powers of two, with at most 4096 samples");
}

}  // namespace

bool parse_progression(const std::string& name, Progression& out) {
  static const std::pair<const char*, Progression> kNames[] = {{"LRCP", Progression::LRCP},
                                                              {"RLCP", Progression::RLCP},
                                                              {"RPCL", Progression::RPCL},
                                                              {"PCRL", Progression::PCRL},
                                                              {"CPRL", Progression::CPRL}};
  for (const auto& [text, value] : kNames)
    if (name == text) {
      out = value;
      return true;
    }
  return false;
}

bool is_ht_file_name(const std::string& path) {
  const std::string e = lower_extension(path);
  return e == ".jhc" || e == ".jph";
}

std::optional<FileFormat> file_format_from_name(const std::string& path) {
  const std::string e = lower_extension(path);
  if (e == ".j2k" || e == ".j2c" || e == ".jpc" || e == ".jhc") return FileFormat::Codestream;
  if (e == ".jp2" || e == ".jph") return FileFormat::Jp2;
  return std::nullopt;
}

ComponentStyle component_style(const CodingParams& p, size_t c) {
  return p.components.empty() ? ComponentStyle{p.levels, p.precincts, p.block_w_log2, p.block_h_log2} : p.components[c];
}


void check_params(const CodingParams& p, size_t components) {
  if (components == 0 || components > static_cast<size_t>(kMaxComponents)) bad("a codestream holds 1 to 16384 components");
  const ComponentStyle cod{p.levels, p.precincts, p.block_w_log2, p.block_h_log2};
  check_style(cod, "");
  if (!p.components.empty()) {
    if (p.components.size() != components) bad("component styles: one per component");
    if (!(p.components[0] == cod)) throw Error(ErrorCode::Internal, "codestream: component 0's style is not COD's");
    for (size_t c = 1; c < components; ++c) check_style(p.components[c], "component " + std::to_string(c) + ": ");
  }
  if (p.layers < 1 || p.layers > 65535) bad("quality layers must be 1 to 65535");
  if (!p.layer_bytes.empty() && !p.layer_psnr.empty()) bad("rate targets: either bytes (-r) or PSNR (-q), not both");
  const std::vector<double>& targets = p.layer_bytes.empty() ? p.layer_psnr : p.layer_bytes;
  if (!targets.empty() && targets.size() != static_cast<size_t>(p.layers)) bad("rate targets: one per quality layer");
  if (targets.empty() && p.layers != 1) bad("several quality layers need a rate or quality target per layer");
  for (size_t l = 0; l < targets.size(); ++l) {
    if (!(targets[l] >= 0) || !std::isfinite(targets[l])) bad("rate targets must be finite and not negative");
    if (targets[l] == 0 && l + 1 != targets.size()) bad("only the last quality layer may be lossless (0)");
    if (l > 0 && targets[l] != 0 && targets[l] < targets[l - 1])
      bad("rate targets must grow from layer to layer (each layer adds to the ones before)");
  }
  if (p.modes & ~0x3F) bad("mode switches are the sum of 1, 2, 4, 8, 16 and 32");
  if (p.tile_parts != 0 && p.tile_parts != 'R' && p.tile_parts != 'L' && p.tile_parts != 'C') bad("tile-parts are divided by R, L or C");
  if (p.guard_bits < -1 || p.guard_bits > 7) bad("guard bits must be 0 to 7");
  if (!p.reversible && !(p.base_step > 0 && std::isfinite(p.base_step))) bad("the quantisation step must be positive");
  if (p.mct && components < 3) bad("the component transform needs 3 or more components");
  auto check_change = [&](const PocEntry& e, const std::string& whose) {
    if (e.res_start < 0 || e.res_end <= e.res_start || e.res_end > 33 || e.comp_start < 0 || e.comp_end <= e.comp_start ||
        static_cast<size_t>(e.comp_end) > components || e.layer_end < 1 || e.layer_end > 65535 ||
        static_cast<int>(e.order) < 0 || static_cast<int>(e.order) > 4)
      bad(whose + "a progression order change has an empty or impossible range of resolutions, components or layers");
  };
  for (const PocEntry& e : p.poc) check_change(e, "");
  if (!p.poc.empty() && !p.tile_poc.empty()) bad("progression order changes go in the main header or in tiles' headers, not both");
  for (size_t k = 0; k < p.tile_poc.size(); ++k) {
    const TileChanges& t = p.tile_poc[k];
    const std::string whose = "tile " + std::to_string(t.tile) + ": ";
    if (t.tile < 0 || t.tile > 65534) bad("progression order changes of tile " + std::to_string(t.tile) + ": tiles are 0 to 65534");
    for (size_t j = 0; j < k; ++j)
      if (p.tile_poc[j].tile == t.tile) bad(whose + "its progression order changes come in one list");
    if (t.changes.empty()) bad(whose + "a list of progression order changes holds one at least");
    for (const PocEntry& e : t.changes) check_change(e, whose);
  }
  if (!p.roi_shift.empty() && p.roi_shift.size() != components) bad("ROI shifts: one per component");
  for (size_t c = 0; c < p.roi_shift.size(); ++c) {
    if (p.roi_shift[c] < 0 || p.roi_shift[c] > 255)
      bad("component " + std::to_string(c) + "'s ROI shift must be 0 to 255 (RGN's SPrgn), not " + std::to_string(p.roi_shift[c]));
    if (p.roi_shift[c] > 0 && p.block_coding == BlockCoding::HighThroughput)
      bad("a region of interest (RGN) with HT code-blocks: OpenJPEG does not decode those; RGN is written with EBCOT's alone");
  }
  if (p.comment.size() > 65531) bad("a comment holds at most 65531 bytes, not " + std::to_string(p.comment.size()));
}

}  // namespace j2k::codec
