// SPDX-License-Identifier: BSD-2-Clause
// `j2kfront compress -i IN -o OUT.j2k|.j2c|.jp2`: a JPEG 2000 file from an image file (or
// every image of a directory into another), through the front stage (any backend) and the
// codec (codec/), with opj_compress's flags: -r / -q quality layers, -n, -b, -c, -t, -T, -d,
// -s, -p, -POC, -I, -mct, -M, -SOP, -EPH, -PLT, -TLM, -TP, -ROI, -OutFor. Every flag and every
// output name is checked before any work; each file is written under a temporary name and
// renamed.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "codec/dci_xyz.hpp"
#include "common/error.hpp"
#include "common/icc_profile.hpp"
#include "common/memory_budget.hpp"
#include "io/image_io.hpp"
#include "io/image_writers.hpp"
#include "io/raw_reader.hpp"
#include "j2kfront/j2kfront.hpp"
#include "tools/commands.hpp"
#include "tools/env_options.hpp"
#include "tools/frames_in_flight.hpp"
#include "tools/image_files.hpp"
#include "tools/memory_size.hpp"
#include "tools/output_dir.hpp"
#include "tools/progress.hpp"
#include "tools/read_ahead.hpp"
#include "tools/writer_thread.hpp"
#include "tools/stdin_file.hpp"
#include "tools/transform_rows.hpp"
#include "transform/backend.hpp"
#if J2KFRONT_HAVE_CUDA
#include "device/available.hpp"
#endif

namespace j2k::tools {
namespace {

namespace fs = std::filesystem;

struct CompressArgs {
  std::string input, output, tile_size, tile_origin = "0,0", image_origin = "0,0", backend = "auto";
  std::string raw_layout;  // -F: a .raw/.rawl input's layout (io/raw_reader.hpp)
  std::string out_format, rates, psnr, block = "64,64", precincts, order = "LRCP", tile_parts, comment = "Created by j2kfront";
  int resolutions = 0, device = -1,  // resolutions: -n; 0 = not given (6, fewer for small tiles)
      threads = 0, mct = -1, guard_bits = -1;
  double qstep = 0;  // --qstep: the 9/7's base step as a fraction of the range (0: not given)
  std::string xyz;   // --xyz: RGB to 12-bit X'Y'Z' from this transfer (srgb, bt709) first
  int cinema2k = 0;  // --cinema2K FPS (0: not given)
  bool cinema4k = false;
  std::string imf;   // --IMF PROFILE[,mainlevel=X][,sublevel=Y][,framerate=FPS]
  std::string modes = "0";  // -M: the sum of the mode switches, or HT
  std::string max_memory;   // --max-memory; empty: half the RAM
  std::string subsampling;  // -s DX,DY: the image subsampled on the canvas
  std::string poc;          // -POC T<tile>=RS,CS,LE,RE,CE,PROG[/...]: tiles' progression order changes
  std::string roi;          // -ROI c=N,U=S: a whole component a region of interest (RGN)
  std::string display_resolution;  // --display-resolution X,Y[dpi]: a JP2 file's resd
  int frames_in_flight = 0;  // --frames-in-flight: a directory's images coded at once (0: by backend)
  std::string devices;       // --devices all|I,J,...: the GPUs a directory's images are spread over
  bool irreversible = false, ht = false, sop = false, eph = false, plt = false, tlm = false, force = false, quiet = false;
};

// "a,b,c" -> numbers, each checked.
std::vector<double> parse_list(const std::string& option, const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || !std::isfinite(v) || v < 0)
      throw CLI::ValidationError(option, "expected numbers >= 0 separated by commas, got '" + text + "'");
    out.push_back(v);
  }
  if (out.empty()) throw CLI::ValidationError(option, "expected at least one number");
  return out;
}

// -c "[W,H],[W,H],...": the sizes as given, the first for the highest resolution (the
// library checks them and fills in the rest).
std::vector<std::pair<int, int>> parse_precincts(const std::string& text) {
  std::vector<std::pair<int, int>> out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t close = text.find(']', i);
    if (text[i] != '[' || close == std::string::npos)
      throw CLI::ValidationError("-c", "expected [W,H],[W,H],..., got '" + text + "'");
    const auto [w, h] = parse_pair("-c", text.substr(i + 1, close - i - 1), 1, 32768);
    out.push_back({static_cast<int>(w), static_cast<int>(h)});
    i = close + 1;
    if (i < text.size() && text[i] == ',') ++i;
  }
  if (out.empty()) throw CLI::ValidationError("-c", "expected at least one [W,H]");
  return out;
}

j2k_progression progression_from(const std::string& name) {
  const char* names[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  for (int i = 0; i < 5; ++i)
    if (name == names[i]) return static_cast<j2k_progression>(i);
  throw CLI::ValidationError("-p", "the progression is LRCP, RLCP, RPCL, PCRL or CPRL, not '" + name + "'");
}

// -M: EBCOT's mode switches (their sum, 0..63), or HT (any case) for HT code-blocks, as --ht.
unsigned modes_from(const CompressArgs& a) {
  std::string m = a.modes;
  std::transform(m.begin(), m.end(), m.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  unsigned modes = 0;
  if (m == "HT") {
    modes = J2K_MODE_HT;
  } else {
    char* end = nullptr;
    const long v = std::strtol(a.modes.c_str(), &end, 10);
    if (a.modes.empty() || *end != '\0' || v < 0 || v > 63)
      throw CLI::ValidationError("-M", "the sum of the mode switches (0 to 63) or HT, not '" + a.modes + "'");
    modes = static_cast<unsigned>(v);
  }
  return modes | (a.ht ? J2K_MODE_HT : 0u);
}

// --IMF PROFILE[,mainlevel=X][,sublevel=Y][,framerate=FPS], as opj_compress -IMF: the profile
// (2K, 4K, 8K, 2K_R, 4K_R, 8K_R) and its levels and frame rate into `c`.
void imf_from(const std::string& text, j2kfront::Coding& c) {
  static const std::map<std::string, j2k_profile> kProfiles = {
      {"2K", J2K_PROFILE_IMF_2K},     {"4K", J2K_PROFILE_IMF_4K},     {"8K", J2K_PROFILE_IMF_8K},
      {"2K_R", J2K_PROFILE_IMF_2K_R}, {"4K_R", J2K_PROFILE_IMF_4K_R}, {"8K_R", J2K_PROFILE_IMF_8K_R}};
  std::stringstream in(text);
  std::string item;
  std::getline(in, item, ',');
  std::string upper = item;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  const auto it = kProfiles.find(upper);
  if (it == kProfiles.end()) throw CLI::ValidationError("--IMF", "the profile is 2K, 4K, 8K, 2K_R, 4K_R or 8K_R, not '" + item + "'");
  c.profile = it->second;
  while (std::getline(in, item, ',')) {
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    const bool number = !value.empty() && *end == '\0' && std::isfinite(v);
    if (key == "mainlevel" && number && v == std::floor(v) && v >= 0 && v <= 11) c.imf_mainlevel = static_cast<int>(v);
    else if (key == "sublevel" && number && v == std::floor(v) && v >= 0 && v <= 9) c.imf_sublevel = static_cast<int>(v);
    else if (key == "framerate" && number && v > 0) c.frame_rate = v;
    else
      throw CLI::ValidationError("--IMF", "expected mainlevel=0..11, sublevel=0..9 or framerate=FPS (above 0) after the profile, not '" +
                                              item + "'");
  }
}

// A whole number in `text` within [least, most]; nullopt where it is not one or outside.
std::optional<int64_t> whole_number(const std::string& text, int64_t least, int64_t most) {
  if (text.empty() || text.size() > 18 || !std::all_of(text.begin(), text.end(), [](unsigned char ch) { return std::isdigit(ch); }))
    return std::nullopt;
  const int64_t v = std::stoll(text);
  if (v < least || v > most) return std::nullopt;
  return v;
}

// -POC T<tile>=resStart,compStart,layerEnd,resEnd,compEnd,PROG[/T...], as opj_compress: each
// change of tile <tile> (T1 the first, raster order). Every part is checked, and named where
// it is wrong.
std::vector<j2k_poc> pocs_from(const std::string& text) {
  static const char* kForm = "T<tile>=resStart,compStart,layerEnd,resEnd,compEnd,PROG";
  std::vector<j2k_poc> out;
  std::stringstream in(text);
  std::string change;
  while (std::getline(in, change, '/')) {
    const size_t eq = change.find('=');
    std::vector<std::string> f;
    if (eq != std::string::npos) {
      std::stringstream values(change.substr(eq + 1));
      for (std::string v; std::getline(values, v, ',');) f.push_back(v);
    }
    if (change.size() < 2 || change[0] != 'T' || eq == std::string::npos || f.size() != 6 || change.back() == ',')
      throw CLI::ValidationError("-POC", "each change is " + std::string(kForm) + ", changes apart by '/', not '" + change + "'");
    auto field = [&](const std::string& value, const char* name, int64_t least, int64_t most) {
      const std::optional<int64_t> v = whole_number(value, least, most);
      if (!v)
        throw CLI::ValidationError("-POC", change + ": " + name + " is a whole number " + std::to_string(least) + " to " +
                                               std::to_string(most) + ", not '" + value + "'");
      return static_cast<int>(*v);
    };
    j2k_poc e{};
    e.tile = field(change.substr(1, eq - 1), "the tile (T1 the first)", 1, 65535) - 1;
    e.res_start = field(f[0], "resStart", 0, 32);
    e.comp_start = field(f[1], "compStart", 0, 16383);
    e.layer_end = field(f[2], "layerEnd", 1, 65535);
    e.res_end = field(f[3], "resEnd (above resStart)", e.res_start + 1, 33);
    e.comp_end = field(f[4], "compEnd (above compStart)", e.comp_start + 1, 16384);
    try {
      e.progression = progression_from(f[5]);
    } catch (const CLI::ValidationError&) {
      throw CLI::ValidationError("-POC", change + ": the progression is LRCP, RLCP, RPCL, PCRL or CPRL, not '" + f[5] + "'");
    }
    out.push_back(e);
  }
  if (out.empty() || text.back() == '/')
    throw CLI::ValidationError("-POC", "expected " + std::string(kForm) + "[/...], not '" + text + "'");
  return out;
}

// -ROI c=N,U=S, as opj_compress: component N (0 the first) a region of interest, its
// coefficients taken S bit planes up (RGN's max-shift; 0: none).
void roi_from(const std::string& text, j2kfront::Coding& c) {
  const size_t comma = text.find(',');
  const std::string n = text.substr(0, comma), u = comma == std::string::npos ? "" : text.substr(comma + 1);
  if (n.rfind("c=", 0) != 0 || u.rfind("U=", 0) != 0)
    throw CLI::ValidationError("-ROI", "expected c=<component>,U=<shift>, not '" + text + "'");
  const std::optional<int64_t> component = whole_number(n.substr(2), 0, 16383);
  if (!component) throw CLI::ValidationError("-ROI", "c is a component, 0 the first, not '" + n.substr(2) + "'");
  const std::optional<int64_t> shift = whole_number(u.substr(2), 0, 29);
  if (!shift)
    throw CLI::ValidationError("-ROI", "U is the shift in bit planes, 0 to 29 (a code-block's bit planes and the shift together at "
                                       "most 30, what decoders take), not '" + u.substr(2) + "'");
  c.roi_component = static_cast<int>(*component);
  c.roi_shift = static_cast<int>(*shift);
}

// --display-resolution X,Y: grid points per metre across and down, as the C API's
// display_resolution_x/_y and `info` print them; X,Ydpi: dots per inch (300,300dpi is
// 11811.02 per metre). The library refuses what a Default Display Resolution box cannot hold.
std::pair<double, double> display_resolution_from(const std::string& text) {
  const bool dpi = text.size() > 3 && text.compare(text.size() - 3, 3, "dpi") == 0;
  const std::string numbers = dpi ? text.substr(0, text.size() - 3) : text;
  const size_t comma = numbers.find(',');
  const auto number = [&](const std::string& item) {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || !std::isfinite(v) || v <= 0)
      throw CLI::ValidationError("--display-resolution", "expected X,Y, two numbers above 0 (grid points per metre, or "
                                                         "dots per inch with 'dpi' after them: 300,300dpi), got '" + text + "'");
    return dpi ? v / 0.0254 : v;
  };
  if (comma == std::string::npos) number("");  // the message
  return {number(numbers.substr(0, comma)), number(numbers.substr(comma + 1))};
}

j2kfront::Coding coding_from(const CompressArgs& a) {
  j2kfront::Coding c;
  if (!a.rates.empty() && !a.psnr.empty()) throw CLI::ValidationError("-q", "give -r (rates) or -q (PSNR), not both");
  if (!a.rates.empty()) c.rates = parse_list("-r", a.rates);
  if (!a.psnr.empty()) c.psnr = parse_list("-q", a.psnr);
  const auto [bw, bh] = parse_pair("-b", a.block, 4, 1024);
  c.block_w = static_cast<int>(bw);
  c.block_h = static_cast<int>(bh);
  if (!a.precincts.empty()) c.precincts = parse_precincts(a.precincts);
  c.progression = progression_from(a.order);
  c.modes = modes_from(a);
  c.sop = a.sop, c.eph = a.eph, c.plt = a.plt, c.tlm = a.tlm;
  if (!a.tile_parts.empty()) c.tile_parts = a.tile_parts[0];
  c.guard_bits = a.guard_bits;
  c.comment = a.comment;
  if (a.qstep > 0 && !a.irreversible) throw CLI::ValidationError("--qstep", "a quantisation step is the 9/7's: add -I");
  c.qstep = a.qstep;
  if ((a.cinema2k != 0) + a.cinema4k + !a.imf.empty() > 1) throw CLI::ValidationError("--IMF", "give one profile: --cinema2K, --cinema4K or --IMF");
  if (!a.imf.empty()) imf_from(a.imf, c);
  if (a.cinema2k) c.profile = J2K_PROFILE_CINEMA_2K, c.frame_rate = a.cinema2k;
  if (a.cinema4k) c.profile = J2K_PROFILE_CINEMA_4K, c.frame_rate = 24;
  if (!a.poc.empty()) c.pocs = pocs_from(a.poc);
  if (!a.display_resolution.empty())
    std::tie(c.display_resolution_x, c.display_resolution_y) = display_resolution_from(a.display_resolution);
  if (!a.roi.empty()) {
    roi_from(a.roi, c);
    if (c.roi_shift > 0 && (c.modes & J2K_MODE_HT))
      throw CLI::ValidationError("-ROI", "a region of interest with HT code-blocks (--ht): OpenJPEG decodes no ROI in those");
  }
  return c;
}

// The components the flags name (-POC, -ROI), 3 at least: the count the flags are checked
// for before an image is read (then again for each image).
int components_named(const j2kfront::Coding& c) {
  int n = 3;
  for (const j2k_poc& e : c.pocs) n = std::max(n, e.comp_start + 1);
  if (c.roi_shift > 0) n = std::max(n, c.roi_component + 1);
  return n;
}

// -s DX,DY, as opj_compress: the image's samples DX and DY reference-grid units apart, each
// component's dx and dy (a raw input's own too) multiplied by them, the image area from its
// origin across (width - 1) * DX + 1 columns and (height - 1) * DY + 1 rows. Each component
// must keep its samples there, which needs an origin on the components' grid (opj_compress
// would code one row and column fewer of it, shifted).
void subsample(j2kfront::Image& image, std::pair<int64_t, int64_t> by) {
  const auto [sx, sy] = by;
  const int64_t width = (int64_t{image.width} - 1) * sx + 1, height = (int64_t{image.height} - 1) * sy + 1;
  if (image.x0 + width > UINT32_MAX || image.y0 + height > UINT32_MAX)
    throw CLI::ValidationError("-s", "the subsampled image does not fit on the canvas at its origin (-d)");
  auto cdiv = [](int64_t v, int64_t d) { return (v + d - 1) / d; };
  for (size_t k = 0; k < image.components.size(); ++k) {
    j2kfront::Image::Component& c = image.components[k];
    const int64_t dx = c.dx * sx, dy = c.dy * sy;
    if (dx > 255 || dy > 255)
      throw CLI::ValidationError("-s", "component " + std::to_string(k) + " would be subsampled " + std::to_string(dx) + " x " +
                                           std::to_string(dy) + "; a codestream holds 1 to 255 each way");
    const int64_t w = cdiv(image.x0 + width, dx) - cdiv(image.x0, dx), h = cdiv(image.y0 + height, dy) - cdiv(image.y0, dy);
    if (w != c.width || h != c.height)
      throw CLI::ValidationError("-s", "at the image origin " + std::to_string(image.x0) + "," + std::to_string(image.y0) +
                                           " (-d), component " + std::to_string(k) + " subsampled " + std::to_string(dx) + " x " +
                                           std::to_string(dy) + " would hold " + std::to_string(w) + " x " + std::to_string(h) +
                                           " of its " + std::to_string(c.width) + " x " + std::to_string(c.height) +
                                           " samples: the origin must be a multiple of the subsampling");
    c.dx = static_cast<int>(dx);
    c.dy = static_cast<int>(dy);
  }
  image.width = static_cast<uint32_t>(width);
  image.height = static_cast<uint32_t>(height);
}

// What -POC leaves out, which opj_compress warns of too ("Missing packets"): for each tile with
// changes, the component-resolutions (of `resolutions` in each of `components`) whose
// `layers` its changes do not all send. Empty where they send every packet.
std::string poc_gaps(const j2kfront::Coding& c, int components, int resolutions, int layers) {
  std::map<int, std::vector<int>> sent;  // per tile, per component-resolution: the layers sent (a prefix)
  for (const j2k_poc& e : c.pocs) {
    std::vector<int>& s = sent[e.tile];
    s.resize(static_cast<size_t>(components * resolutions), 0);
    for (int k = e.comp_start; k < std::min(e.comp_end, components); ++k)
      for (int r = e.res_start; r < std::min(e.res_end, resolutions); ++r) {
        int& n = s[static_cast<size_t>(k * resolutions + r)];
        n = std::max(n, std::min(e.layer_end, layers));
      }
  }
  std::string out;
  for (const auto& [tile, s] : sent) {
    const auto first = std::find_if(s.begin(), s.end(), [&](int n) { return n < layers; });
    if (first == s.end()) continue;
    const auto at = static_cast<int>(first - s.begin());
    out += std::string(out.empty() ? "" : "; ") + "T" + std::to_string(tile + 1) + ": " +
           std::to_string(std::count_if(s.begin(), s.end(), [&](int n) { return n < layers; })) + " of its " +
           std::to_string(s.size()) + " component-resolutions, the first component " + std::to_string(at / resolutions) +
           " resolution " + std::to_string(at % resolutions);
  }
  return out;
}

// The flags that depend on the image, checked against it and named where they do not fit:
// -POC's tiles and components, -ROI's component.
void check_flags_for(const j2kfront::Coding& c, const j2k_settings& s, const j2kfront::Image& image) {
  const auto n = static_cast<int>(image.components.size());
  auto across = [](int64_t x0, int64_t x1, int64_t t0, int64_t size) { return size == 0 ? 1 : (x1 - t0 + size - 1) / size - (x0 - t0) / size; };
  const int64_t tiles = across(image.x0, int64_t{image.x0} + image.width, s.tile_x0, s.tile_w) *
                        across(image.y0, int64_t{image.y0} + image.height, s.tile_y0, s.tile_h);
  for (const j2k_poc& e : c.pocs) {
    const std::string which = "T" + std::to_string(e.tile + 1) + ": ";
    if (e.tile >= tiles)
      throw CLI::ValidationError("-POC", which + "the image has " + std::to_string(tiles) + " tile" + (tiles == 1 ? "" : "s") +
                                             " (T1 to T" + std::to_string(tiles) + ")");
    if (e.comp_start >= n)
      throw CLI::ValidationError("-POC", which + "compStart " + std::to_string(e.comp_start) + ", but the image has " +
                                             std::to_string(n) + " component" + (n == 1 ? "" : "s") + " (0 to " + std::to_string(n - 1) + ")");
  }
  if (c.roi_shift > 0 && c.roi_component >= n)
    throw CLI::ValidationError("-ROI", "c=" + std::to_string(c.roi_component) + ", but the image has " + std::to_string(n) + " component" +
                                           (n == 1 ? "" : "s") + " (0 to " + std::to_string(n - 1) + ")");
}

// Without -n: opj_compress's 6 resolutions, or as many as the image's nominal tile allows in
// every component where that is fewer (2^levels samples a side at least, as the encoder
// requires), so that a small image compresses as users expect rather than being refused.
constexpr int kDefaultResolutions = 6;
int default_levels(const j2k_settings& s, const j2kfront::Image& image) {
  const int64_t tile_w = s.tile_w ? int64_t{s.tile_w} : int64_t{image.x0} + image.width - s.tile_x0;
  const int64_t tile_h = s.tile_h ? int64_t{s.tile_h} : int64_t{image.y0} + image.height - s.tile_y0;
  int levels = kDefaultResolutions - 1;
  for (const auto& c : image.components) {
    const int64_t side = std::min(tile_w / std::max(1, int{c.dx}), tile_h / std::max(1, int{c.dy}));
    int most = 0;
    while (most < levels && (int64_t{2} << most) <= side) ++most;
    levels = std::min(levels, most);
  }
  return levels;
}

// The front stage's settings from the flags, and the image origin (-d) into `origin`.
j2kfront::Settings settings_from(const CompressArgs& a, std::pair<int64_t, int64_t>& origin) {
  j2kfront::Settings s;
  s.wavelet = a.irreversible ? J2K_WAVELET_97 : J2K_WAVELET_53;
  s.levels = (a.resolutions ? a.resolutions : kDefaultResolutions) - 1;
  s.backend = backend_from_name(a.backend);
  s.threads = a.threads;
  s.device = a.device;
  s.mct = a.mct < 0 ? J2K_MCT_AUTO : a.mct == 1 ? J2K_MCT_ON : J2K_MCT_OFF;
  origin = parse_pair("-d", a.image_origin, 0, (int64_t{1} << 31) - 1);
  const auto [tx, ty] = parse_pair("-T", a.tile_origin, 0, (int64_t{1} << 31) - 1);
  if (tx > origin.first || ty > origin.second) throw CLI::ValidationError("-T", "the tile origin must not exceed the image origin (-d)");
  s.tile_x0 = static_cast<uint32_t>(tx);
  s.tile_y0 = static_cast<uint32_t>(ty);
  if (!a.tile_size.empty()) {
    const auto [w, h] = parse_pair("-t", a.tile_size, 1, (int64_t{1} << 32) - 1);
    s.tile_w = static_cast<uint32_t>(w);
    s.tile_h = static_cast<uint32_t>(h);
  }
  return s;
}

// --xyz: the image's RGB as the 12-bit X'Y'Z' digital cinema codes (codec/dci_xyz.hpp).
j2kfront::Image to_dci_xyz(const j2kfront::Image& rgb, const std::string& transfer) {
  std::vector<uint16_t> planes[3];
  codec::rgb_to_dci_xyz(*rgb.view().get(), transfer == "bt709" ? codec::RgbTransfer::Bt709 : codec::RgbTransfer::Srgb, planes);
  j2kfront::Image xyz;
  xyz.x0 = rgb.x0, xyz.y0 = rgb.y0, xyz.width = rgb.width, xyz.height = rgb.height;
  for (const std::vector<uint16_t>& plane : planes) {
    j2kfront::Image::Component& c = xyz.add_component(J2K_SAMPLE_U16, 12);
    std::memcpy(c.bytes.data(), plane.data(), plane.size() * sizeof(uint16_t));
  }
  return xyz;
}

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct CompressJob {
  std::string input, output;
  std::string format_name;  // a name whose extension says the format (for "-", standard output)
};

// Whether the flags ask for HT code-blocks: --ht, or -M HT.
bool wants_ht(const CompressArgs& a) { return (modes_from(a) & J2K_MODE_HT) != 0; }

// One image to the file -o names, or (batch: -i is a directory) every image file in it to the
// directory -o names (created if missing), each as <its name without extension>.<--OutFor>.
// Every output is checked before any is written: a run that would replace a file without
// --force, or write two images to one name, stops before any work.
std::vector<CompressJob> compress_jobs(const CompressArgs& a, bool batch, std::vector<std::string>* skipped) {
  std::error_code ec;
  if (!batch && a.output == "-") {
    // Standard output: --OutFor says the format (a codestream by default).
    std::string format = a.out_format.empty() ? "j2k" : a.out_format;
    std::transform(format.begin(), format.end(), format.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!j2k_file_format_from_name(("any." + format).c_str(), nullptr))
      throw CLI::ValidationError("--OutFor", "the format of -o - is j2k, j2c, jpc, jp2, or with --ht jhc or jph, not '" + a.out_format + "'");
    if (j2k_file_format_is_ht(("any." + format).c_str()) && !wants_ht(a))
      throw CLI::ValidationError("--OutFor", "a ." + format + " file holds HT code-blocks: add --ht");
    return {{a.input, "-", "any." + format}};
  }
  if (!batch) {
    if (!a.out_format.empty())
      throw CLI::ValidationError("--OutFor", "names the format of -o - or of a directory's outputs; for one file, -o's extension does");
    if (!j2k_file_format_from_name(a.output.c_str(), nullptr))
      throw CLI::ValidationError("-o", "the output must end in .j2k, .j2c or .jpc (a codestream), .jp2 (a JP2 file), or with --ht "
                                       ".jhc (an HTJ2K codestream) or .jph (a JPH file), not '" + lower_extension(a.output) + "'");
    if (j2k_file_format_is_ht(a.output.c_str()) && !wants_ht(a))
      throw CLI::ValidationError("-o", "a " + lower_extension(a.output) + " file holds HT code-blocks: add --ht");
    return {{a.input, a.output, a.output}};
  }
  if (a.output == "-" || (fs::exists(a.output, ec) && !fs::is_directory(a.output, ec)))
    throw CLI::ValidationError("-o", a.output + ": -i is a directory, so -o must be one too (it is created if missing)");
  std::string format = a.out_format.empty() ? "j2k" : a.out_format;
  std::transform(format.begin(), format.end(), format.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!j2k_file_format_from_name(("any." + format).c_str(), nullptr))
    throw CLI::ValidationError("--OutFor", "the outputs' format is j2k, j2c, jpc, jp2, or with --ht jhc or jph, not '" +
                                               a.out_format + "'");
  if (j2k_file_format_is_ht(("any." + format).c_str()) && !wants_ht(a))
    throw CLI::ValidationError("--OutFor", "a ." + format + " file holds HT code-blocks: add --ht");
  std::vector<CompressJob> jobs;
  std::map<std::string, std::string> seen;  // output -> the input that claimed it
  for (const std::string& in : image_files_in(a.input, skipped)) {
    const std::string out = (fs::path(a.output) / fs::path(in).stem()).string() + "." + format;
    const auto [it, fresh] = seen.emplace(out, in);
    if (!fresh) throw CLI::ValidationError("-i", in + " and " + it->second + " would both write " + out);
    jobs.push_back({in, out, out});
  }
  return jobs;
}

// Whether the image's last component is an alpha channel: a PNG's or TIFF's grey + alpha or
// RGB + alpha (their readers give 2 or 4 components only so), which a JP2 file then says, as
// opj_compress writes it.
bool last_is_alpha(const std::string& input, const j2kfront::Image& image) {
  const size_t n = image.components.size();
  const std::optional<io::ImageFormat> f = io::image_format_of(input);
  return (n == 2 || n == 4) && f && (*f == io::ImageFormat::Png || *f == io::ImageFormat::Tiff);
}

// What of the image file's metadata the output carries, into `coding`: a JP2 file its ICC
// profile (where it fits the components), resolution, XMP packet and Exif (UUID boxes, as Adobe
// and Exiv2 write them) and a GeoTIFF's georeferencing (a GeoJP2 UUID box, OGC 08-085); a
// codestream none of them. Whatever is left out is said on standard
// error, as is what the reader could not take.
void carry_metadata(const io::ImageMetadata& meta, const j2kfront::Image& image, bool xyz, const std::string& input,
                    j2kfront::Coding& coding) {
  const char* name = input == "-" ? "standard input" : input.c_str();
  for (const std::string& w : meta.warnings) std::fprintf(stderr, "j2kfront: warning: %s: %s\n", name, w.c_str());
  coding.icc_profile.clear();
  coding.resolution_x = coding.resolution_y = 0;
  coding.boxes.clear();
  if (meta.empty()) return;
  if (coding.format != J2K_FORMAT_JP2) {
    std::vector<std::string> items;
    for (const auto& [has, item] : {std::pair{!meta.icc.empty(), "ICC profile"}, {meta.has_resolution(), "resolution"},
                                    {!meta.xmp.empty(), "XMP packet"}, {!meta.exif.empty(), "Exif"},
                                    {!meta.geotiff.empty(), "georeferencing (GeoTIFF tags)"}})
      if (has) items.push_back(item);
    std::string what;  // "a, b and c"
    for (size_t k = 0; k < items.size(); ++k) what += (k == 0 ? "" : k + 1 == items.size() ? " and " : ", ") + items[k];
    std::fprintf(stderr, "j2kfront: warning: %s: its %s %s not written: a bare codestream has no place for %s (write .jp2 or .jph)\n",
                 name, what.c_str(), items.size() == 1 ? "is" : "are", items.size() == 1 ? "it" : "them");
    return;
  }
  if (!meta.icc.empty()) {
    const std::string why = xyz ? "--xyz codes X'Y'Z', which it does not describe"
                                : icc_profile_problem(meta.icc.data(), meta.icc.size(), image.components.size());
    if (why.empty()) coding.icc_profile = meta.icc;
    else std::fprintf(stderr, "j2kfront: warning: %s: its ICC profile is not carried: %s\n", name, why.c_str());
  }
  if (meta.has_resolution()) coding.resolution_x = meta.x_per_metre, coding.resolution_y = meta.y_per_metre;
  if (!meta.xmp.empty()) coding.boxes.push_back(j2kfront::uuid_box(J2K_UUID_XMP, meta.xmp));
  if (!meta.exif.empty()) coding.boxes.push_back(j2kfront::uuid_box(J2K_UUID_EXIF, meta.exif));
  if (!meta.geotiff.empty()) coding.boxes.push_back(j2kfront::uuid_box(J2K_UUID_GEOJP2, meta.geotiff));
}

// The metadata an encoder writes, as a key: an image with other metadata needs another encoder.
std::string metadata_key(const j2kfront::Coding& coding) {
  std::string key(coding.icc_profile.begin(), coding.icc_profile.end());
  key += ';' + std::to_string(coding.resolution_x) + ',' + std::to_string(coding.resolution_y);
  for (const j2kfront::Box& b : coding.boxes) key += ';' + std::to_string(b.type) + ':' + std::string(b.data.begin(), b.data.end());
  return key;
}

// What decides whether an encoder made for one image can code the next.
std::string shape_key(const j2kfront::Image& image) {
  std::ostringstream key;
  key << image.x0 << ',' << image.y0 << ',' << image.width << ',' << image.height;
  for (const auto& c : image.components) key << ';' << c.type << ',' << c.precision << ',' << c.dx << ',' << c.dy;
  return key.str();
}

// A directory's images in flight: how many are coded at once and on which devices. As
// --frames-in-flight and --devices say; else on cuda every CUDA GPU of the host (unless
// --device or J2KFRONT_DEVICE picks one), on opencl the settings' device, three images a
// device (at most J2K_MAX_FRAMES_IN_FLIGHT); on the CPU one image after another (its threads
// are busy with one image already).
struct InFlight {
  int lanes = 1;             // images coded at once (1: one after another)
  std::vector<int> devices;  // the lanes' devices in turn (empty: the settings')
};
InFlight in_flight_from(const CompressArgs& a, const j2k_settings& s, bool batch) {
  InFlight f;
  if (!batch) {
    if (a.frames_in_flight > 0)
      throw CLI::ValidationError("--frames-in-flight", "codes a directory's images several at once, and -i is one image");
    if (!a.devices.empty())
      throw CLI::ValidationError("--devices", "spreads a directory's images over GPUs, and -i is one image (--device picks its GPU)");
    return f;
  }
  const bool gpu = s.backend != J2K_BACKEND_CPU;
  int cuda_devices = 0;
#if J2KFRONT_HAVE_CUDA
  if (s.backend == J2K_BACKEND_CUDA) cuda_devices = cuda_device_count();
#endif
  if (!a.devices.empty()) {
    if (!gpu) throw CLI::ValidationError("--devices", "names GPUs, and the backend is the CPU");
    if (a.device >= 0) throw CLI::ValidationError("--devices", "and --device both pick GPUs: give one of them");
    if (a.devices == "all") {
      if (s.backend != J2K_BACKEND_CUDA)
        throw CLI::ValidationError("--devices", "all counts CUDA GPUs: on opencl, name the devices (e.g. 0,1)");
      for (int d = 0; d < cuda_devices; ++d) f.devices.push_back(d);
    } else {
      for (const double d : parse_list("--devices", a.devices)) {
        if (d != std::floor(d) || d > 4096) throw CLI::ValidationError("--devices", "expected all or device indices, got '" + a.devices + "'");
        if (s.backend == J2K_BACKEND_CUDA && d >= cuda_devices)
          throw CLI::ValidationError("--devices", "no CUDA device " + std::to_string(static_cast<int>(d)) + ": this host has " +
                                                      std::to_string(cuda_devices));
        f.devices.push_back(static_cast<int>(d));
      }
    }
  } else if (s.backend == J2K_BACKEND_CUDA && s.device < 0) {
    for (int d = 0; d < cuda_devices; ++d) f.devices.push_back(d);
  }
  const int count = std::max<int>(1, static_cast<int>(f.devices.size()));
  // EBCOT on a GPU: three a GPU, whose block coding is long enough to overlap (a folder of
  // 4096x2160 frames 1.3x to 1.5x faster than one at a time). HT: one a GPU, the GPU's part of
  // a frame (3 to 5 ms) short beside the files' reading and writing, which more encoders only
  // slow down (three a GPU: the same folders 0.8x to 0.9x the speed of one at a time, in twice the memory).
  if (a.frames_in_flight > 0) f.lanes = a.frames_in_flight;
  else f.lanes = gpu ? std::min((a.ht ? 1 : 3) * count, J2K_MAX_FRAMES_IN_FLIGHT) : 1;
  return f;
}

// How many images one lane count holds in flight: one queued beyond those being coded, so
// that a lane that finishes finds the next one.
size_t window_of(int lanes) { return static_cast<size_t>(std::min(lanes + 1, J2K_MAX_FRAMES_IN_FLIGHT)); }

// Compresses the jobs' images in turn, one encoder per image shape (a GPU's start-up and
// buffers are paid once per shape). A single image's failure is thrown; in a batch each is
// reported and the others go on, and the exit status says whether all succeeded.
int run_compress(CompressArgs a) {
  const auto t_start = Clock::now();
  // The profiles' wavelet (the library sets it too), for what is printed.
  if (a.cinema2k || a.cinema4k) a.irreversible = true;
  if (!a.imf.empty()) a.irreversible = a.imf.find("_R") == std::string::npos && a.imf.find("_r") == std::string::npos;
  std::vector<std::string> skipped;
  std::error_code ec;
  // An input that is not there fails the run (exit 1) naming it, before the outputs' names
  // are checked against what it would have been (a file or a directory).
  if (a.input != "-" && !fs::exists(a.input, ec))
    throw Error(ErrorCode::Io, a.input + ": no such file or directory");
  const bool batch = fs::is_directory(a.input, ec);
  // Raw samples have no header: -F says what they are, for one .raw or .rawl input.
  std::optional<io::RawLayout> raw;
  if (!a.raw_layout.empty()) {
    if (batch || !io::is_raw_name(a.input))
      throw CLI::ValidationError("-F", "describes one raw input, a .raw (big-endian) or .rawl (little-endian) file, and -i is " +
                                           a.input);
    raw = io::parse_raw_layout(a.raw_layout);
  } else if (!batch && io::is_raw_name(a.input)) {
    throw CLI::ValidationError("-F", a.input + " is raw samples: -F W,H,COMPONENTS,BITS,s|u[@DXxDY:...] must say what they are");
  }
  const std::vector<CompressJob> jobs = compress_jobs(a, batch, &skipped);
  // auto: the library's rule for one image (by its file's size) or a batch (resolve_backend).
  std::error_code size_error;
  const uint64_t input_bytes = batch || a.input == "-" ? 0 : fs::file_size(a.input, size_error);
  a.backend = backend_name(resolve_backend(parse_backend(a.backend), batch ? Job::CompressBatch : Job::CompressOne,
                                           size_error ? 0 : input_bytes, a.threads));
  std::pair<int64_t, int64_t> origin;
  j2kfront::Settings s = settings_from(a, origin);
  const int64_t ix = origin.first, iy = origin.second;  // (not a structured binding: lambdas below capture them)
  std::string tuning;  // what s.backend_options points to
  apply_env_options(s, tuning);
#if J2KFRONT_HAVE_CUDA
  // The GPU's start-up on a thread of its own while the flags are checked and the images read;
  // the encoder's first CUDA call then finds the context made.
  std::future<void> cuda_started;
  if (s.backend == J2K_BACKEND_CUDA) cuda_started = start_cuda(std::max(s.device, 0));
#endif
  j2kfront::Coding coding = coding_from(a);
  const InFlight in_flight = in_flight_from(a, s, batch);
  coding.devices = in_flight.devices;
  // The encoder a shape's images start on is on the first of them (its frames' first lane).
  if (!in_flight.devices.empty() && s.device < 0) s.device = in_flight.devices[0];
  const uint64_t max_memory = a.max_memory.empty() ? default_memory_budget() : parse_memory_size(a.max_memory);
  // .jp2, and .jph with --ht: the JP2 boxes (brand 'jph ' around HT code-blocks).
  j2k_file_format_from_name(jobs[0].format_name.c_str(), &coding.format);
  if (coding.display_resolution_x > 0 && coding.format != J2K_FORMAT_JP2)
    throw CLI::ValidationError("--display-resolution", "a bare codestream has no place for it (write .jp2 or .jph)");
  std::optional<std::pair<int64_t, int64_t>> subsampling;
  if (!a.subsampling.empty()) subsampling = parse_pair("-s", a.subsampling, 1, 255);
  // Every flag before an image is read (the component count, for -mct, once it is), then the
  // outputs: never an input, an existing file only with --force.
  j2kfront::check(j2k_coding_check(&s, coding.get(), components_named(coding)));
  // A directory's outputs go to OUTDIR, created if missing; a single output's directory must be
  // there (OutputFile::check).
  if (batch) {
    fs::create_directories(a.output, ec);
    if (ec) throw Error(ErrorCode::Io, a.output + ": cannot create the directory: " + ec.message());
  }
  std::vector<OutputFile> outputs;
  for (const CompressJob& job : jobs) outputs.emplace_back(job.output, job.input, a.force);
  for (const OutputFile& o : outputs) o.check();

  // What is said of the run goes to standard error when the codestream goes to standard output.
  std::FILE* info = a.output == "-" ? stderr : stdout;
  Progress progress(a.quiet ? 0 : jobs.size());
  std::unique_ptr<j2kfront::Encoder> encoder;
  std::string encoder_key, encoder_metadata;
  int lanes = 1;  // the encoder's images in flight (1: one after another)
  size_t failed = 0;
  uint64_t bytes_in = 0, bytes_out = 0;
  bool warned_gaps = false;  // -POC's (once a run)
  // What is said of an image compressed: its line (and alone, the stages' times and layers).
  std::mutex said_mutex;  // what is said and counted (a directory's files are written, and said,
                          // on a thread of their own)
  auto raw_bytes_of = [](const j2kfront::Image& image) {
    double raw_bytes = 0;
    for (const auto& c : image.components) raw_bytes += static_cast<double>(c.width) * c.height * c.precision / 8.0;
    return raw_bytes;
  };
  // The line said of an image compressed, but for its time (the encoder's report is its).
  auto line_of = [&](const CompressJob& job, const j2kfront::Image& image, size_t size, const j2kfront::Encoder& e, int resolutions) {
    const j2k_encode_report r = e.report();
    const std::string rows = r.tile_rows > 0 ? ", by " + std::to_string(r.tile_rows) + " rows of tiles" : std::string();
    const char* format = "j2kfront: %s %ux%u x%zu -> %s: %zu bytes (%.2f:1, %s, %d resolutions, %d layer%s, %s%s)";
    auto print = [&](char* to, size_t room) {
      return std::snprintf(to, room, format, job.input == "-" ? "standard input" : job.input.c_str(), image.width, image.height,
                           image.components.size(), job.output == "-" ? "standard output" : job.output.c_str(), size,
                           raw_bytes_of(image) / static_cast<double>(size), a.irreversible ? "9/7" : "5/3", resolutions, r.layers,
                           r.layers == 1 ? "" : "s", e.info().description, rows.c_str());
    };
    std::string line(static_cast<size_t>(std::max(print(nullptr, 0), 0)) + 1, '\0');
    print(line.data(), line.size());
    line.pop_back();
    return line;
  };
  auto tell = [&](const std::string& line, double raw_bytes, size_t size, Clock::time_point t0) {
    std::lock_guard<std::mutex> lock(said_mutex);
    bytes_in += static_cast<uint64_t>(raw_bytes);
    bytes_out += size;
    if (a.quiet) return;
    progress.clear();
    std::fprintf(info, "%s in %.1f ms\n", line.c_str(), ms_since(t0));
    std::fflush(info);
  };
  // What is said of an image compressed: its line (and alone, the stages' times and layers).
  auto said = [&](const CompressJob& job, const j2kfront::Image& image, size_t size, const j2kfront::Encoder& e, double read_ms,
                  double write_ms, Clock::time_point t0, int resolutions) {
    tell(line_of(job, image, size, e, resolutions), raw_bytes_of(image), size, t0);
    if (batch || a.quiet) return;
    const j2k_encode_report r = e.report();
    std::fprintf(info, "  read %.1f ms, front stage %.1f, Tier-1 %.1f, rate control %.1f, Tier-2 %.1f, write %.1f\n", read_ms,
                 r.front_ms, r.tier1_ms, r.rate_ms, r.tier2_ms, write_ms);
    std::fprintf(info, "  Tier-1 on %s\n", r.tier1_on ? r.tier1_on : "cpu");
    if (!coding.rates.empty() || !coding.psnr.empty())
      for (int l = 0; l < r.layers; ++l) std::fprintf(info, "  layer %d: estimated PSNR %.2f dB\n", l, r.layer_psnr[l]);
    std::fflush(info);
  };
  // A batch's failed image: said, counted, and the others go on.
  auto report_failure = [&](const CompressJob& job, const std::exception& e) {
    std::lock_guard<std::mutex> lock(said_mutex);
    progress.clear();
    const std::string what = e.what();  // readers' messages start with the file already
    if (what.rfind(job.input, 0) == 0) std::fprintf(stderr, "j2kfront: error: %s\n", what.c_str());
    else std::fprintf(stderr, "j2kfront: error: %s: %s\n", job.input.c_str(), what.c_str());
    ++failed;
  };
  // A directory's files written on a thread of their own, then said (a write's error is that
  // image's): one codestream written and one waiting at most.
  std::mutex written_mutex;
  std::vector<std::vector<uint8_t>> written;  // buffers of codestreams written, for the next ones
  WriterThread writer(1);
  auto write_now = [&](size_t k, const uint8_t* data, size_t size, const std::string& line, double raw_bytes, Clock::time_point t0) {
    try {
      outputs[k].write([&](std::FILE* f, const std::string& name) {
        if (std::fwrite(data, 1, size, f) != size || std::fflush(f) != 0) throw Error(ErrorCode::Io, name + ": cannot write the file");
      });
      tell(line, raw_bytes, size, t0);
    } catch (const std::exception& e) {
      report_failure(jobs[k], e);
    }
  };
  // A copy of the codestream for the writer (the encoder's storage is the next frame's), in a
  // buffer the writer handed back: no fresh pages a file (a 12-bit lossless 4096x2160 frame's
  // codestream is 25 MB).
  auto write_later = [&](size_t k, const uint8_t* data, size_t size, std::string line, double raw_bytes, Clock::time_point t0) {
    auto file = std::make_shared<std::vector<uint8_t>>();
    {
      std::lock_guard<std::mutex> lock(written_mutex);
      if (!written.empty()) *file = std::move(written.back()), written.pop_back();
    }
    if (file->capacity() < size) file->reserve(size + size / 8);  // (the next one may be a little larger)
    file->assign(data, data + size);
    writer.push([&, k, file, line = std::move(line), raw_bytes, t0] {
      write_now(k, file->data(), file->size(), line, raw_bytes, t0);
      std::lock_guard<std::mutex> lock(written_mutex);
      if (written.size() < 2) written.push_back(std::move(*file));  // the writer holds two at most
    });
  };
  // A directory of untiled images reads the next file while this one is coded (a tiled one may
  // go a row of tiles at a time, read as it is coded), where the budget allows (`overlap`).
  const bool reads_ahead = batch && a.tile_size.empty() && a.raw_layout.empty();
  bool encoder_overlap = false;  // the encoder's frames written on the writer thread
  // The last image coded, whose planes the next file read ahead takes (where it has their
  // shape) instead of fresh zeroed ones; held only until that read starts.
  j2kfront::Image spare;
  // A directory's images coded several at once (declared after the encoder: on the way out
  // it waits for them while the encoder is still there).
  std::vector<FramesInFlight::Frame> over_budget;  // in flight, over --max-memory
  std::set<std::string> one_at_a_time;             // the shapes of such images
  std::string made_key;                            // the encoder's shape, settings, coding
  j2kfront::Settings made_settings;
  j2kfront::Coding made_coding;
  FramesInFlight frames(
      [&](FramesInFlight::Frame& f, const uint8_t* data, size_t size, const j2kfront::Encoder& e) {
        std::string line = line_of(jobs[f.job], f.image, size, e, f.resolutions);
        if (encoder_overlap) write_later(f.job, data, size, std::move(line), raw_bytes_of(f.image), f.t0);
        else write_now(f.job, data, size, line, raw_bytes_of(f.image), f.t0);
        if (encoder_overlap && reads_ahead) spare = std::move(f.image);
      },
      [&](FramesInFlight::Frame& f, const std::exception& e) {
        const auto* coded = dynamic_cast<const j2kfront::Error*>(&e);
        if (coded && coded->status() == J2K_OUT_OF_MEMORY) over_budget.push_back(std::move(f));  // coded again, alone
        else report_failure(jobs[f.job], e);
      });
  // The encoder gone, its frames in flight first. Those that did not fit --max-memory beside
  // the others are then coded again one at a time, by an encoder of their own alone in the
  // budget (their settings the gone encoder's), and so is the rest of their shape.
  auto drop_encoder = [&] {
    frames.finish();
    encoder.reset();
    encoder_key.clear();
    if (over_budget.empty()) return;
    one_at_a_time.insert(made_key);
    std::unique_ptr<j2kfront::Encoder> single;
    for (FramesInFlight::Frame& f : over_budget) {
      try {
        uint64_t samples = 0;
        for (const auto& c : f.image.components) samples += c.bytes.size();
        made_coding.frames_in_flight = 0;
        made_coding.max_bytes = max_memory == 0 ? 0 : max_memory - std::min(samples, max_memory - 1);
        if (!single) single = std::make_unique<j2kfront::Encoder>(made_settings, made_coding, f.image.view());
        const auto [data, size] = single->encode_in_place(f.image.view());
        write_now(f.job, data, size, line_of(jobs[f.job], f.image, size, *single, f.resolutions), raw_bytes_of(f.image), f.t0);
      } catch (const std::exception& e) {
        report_failure(jobs[f.job], e);
      }
    }
    over_budget.clear();
  };
  ReadAhead read_ahead;
  for (size_t k = 0; k < jobs.size(); ++k) {
    const CompressJob& job = jobs[k];
    frames.make_room();  // before the next image is read: the oldest written
    if (!over_budget.empty()) drop_encoder();
    try {
      const auto t0 = Clock::now();
      auto t = Clock::now();
      // "-": standard input, copied to a file the readers open (its format found by its signature).
      std::unique_ptr<StdinFile> from_stdin;
      if (job.input == "-") from_stdin = std::make_unique<StdinFile>(max_memory);
      const std::string path = from_stdin ? from_stdin->path() : job.input;
      auto named = [&](const auto& body) {  // the readers' errors name standard input as such
        try {
          return body();
        } catch (const std::exception& e) {
          if (from_stdin) from_stdin->rethrow_named(e);
          throw;
        }
      };
      auto check_origin = [&](uint32_t width, uint32_t height) {
        if (ix + width > UINT32_MAX || iy + height > UINT32_MAX)
          throw CLI::ValidationError("-d", "the image does not fit on the canvas at that origin");
        if (!a.tile_size.empty() && (s.tile_x0 + int64_t{s.tile_w} <= ix || s.tile_y0 + int64_t{s.tile_h} <= iy))
          throw CLI::ValidationError("-t", "the first tile must overlap the image: tile origin + tile size must exceed the image origin");
      };
      // The image (or, by rows, its shape) put on the canvas: its origin, -s, the flags that
      // depend on it checked, the default levels, -POC's gaps said once.
      auto on_canvas = [&](j2kfront::Image& image) {
        check_origin(image.width, image.height);
        image.x0 = static_cast<uint32_t>(ix);
        image.y0 = static_cast<uint32_t>(iy);
        if (subsampling) subsample(image, *subsampling);
        check_flags_for(coding, s, image);
        if (a.resolutions == 0) s.levels = default_levels(s, image);  // a function of the shape (the key)
        if (!warned_gaps) {
          const int layers = static_cast<int>(std::max<size_t>({1, coding.rates.size(), coding.psnr.size()}));
          const std::string gaps = poc_gaps(coding, static_cast<int>(image.components.size()), s.levels + 1, layers);
          if (!gaps.empty()) {
            std::lock_guard<std::mutex> lock(said_mutex);
            progress.clear();
            std::fprintf(stderr, "j2kfront: warning: -POC leaves packets unsent (%s): the image loses them, as in opj_compress's file\n",
                         gaps.c_str());
            warned_gaps = true;
          }
        }
      };
      // The header first (a raw input has none: -F says it): a tiled image whose samples and
      // coefficients are over --max-memory goes a row of tiles at a time, and so does one whose
      // encoder then turns out not to fit whole.
      std::unique_ptr<io::ImageReader> reader;
      std::optional<ReadAhead::Read> read_before = read_ahead.take(k);  // (its error is this image's)
      if (read_before) reader = std::move(read_before->reader);
      else if (!raw) reader = named([&] { return std::make_unique<io::ImageReader>(path, a.threads); });
      // The canvas an image file's samples cover (-s spreads them: an image file's components
      // are never subsampled themselves).
      const int64_t sx = subsampling ? subsampling->first : 1, sy = subsampling ? subsampling->second : 1;
      const bool rows_possible = reader && !a.tile_size.empty() &&
                                 tile_rows(s, ix, iy, (int64_t{reader->shape().width} - 1) * sx + 1,
                                           (int64_t{reader->shape().height} - 1) * sy + 1)
                                         .size() > 1;
      bool by_rows = rows_possible && max_memory != 0 && whole_image_bytes(*reader) > max_memory;
      bool metadata_carried = false;  // into `coding`, from the whole file
      std::string why_rows;  // why the image goes by rows, for what refuses it then
      if (by_rows)
        why_rows = "its samples and coefficients need " + mib_text(whole_image_bytes(*reader)) + " whole, more than --max-memory " +
                   mib_text(max_memory);
      if (!by_rows) {
        io::ReadOptions read_options;
        read_options.max_bytes = max_memory;  // the samples alone
        read_options.threads = a.threads;
        j2kfront::Image image = read_before ? std::move(read_before->image) : named([&] {
          return raw ? io::read_raw(job.input, *raw, read_options) : reader->read_rows(reader->shape().height, max_memory);
        });
        carry_metadata(reader ? reader->metadata() : io::ImageMetadata(), image, !a.xyz.empty(), job.input, coding);  // none for raw samples
        metadata_carried = true;
        if (!a.xyz.empty()) image = to_dci_xyz(image, a.xyz);
        const double read_ms = ms_since(t);  // (said for a single image only)
        on_canvas(image);
        const j2kfront::ImageView view = image.view();
        const std::string key = shape_key(image);
        // The image's samples are held while it is encoded: the encoder may take the rest.
        uint64_t samples = 0;
        for (const auto& c : image.components) samples += c.bytes.size();
        // A directory reads the next image and writes the last one beside this one's coding,
        // which holds up to four images' worth more (the next one's samples, the spare, two
        // codestreams): only where --max-memory holds that four times over.
        const bool overlap = batch && (max_memory == 0 || 16 * samples <= max_memory);
        if (overlap && reads_ahead && k + 1 < jobs.size()) read_ahead.start(k + 1, jobs[k + 1].input, max_memory, a.threads, std::move(spare));
        spare = j2kfront::Image();  // (not kept beyond the next read)
        // Where the coefficients are what does not fit, what would take less: a row of tiles at
        // a time.
        uint64_t coefficients = 0;
        for (const auto& c : image.components) coefficients += 4 * static_cast<uint64_t>(c.width * c.height);
        const std::string instead = max_memory == 0 || samples + coefficients <= max_memory ? std::string()
                                    : raw ? "; a raw input (-F) is read whole, never a row of tiles at a time"
                                    : a.tile_size.empty() ? "; with tiles (-t W,H) it would go a row of tiles at a time"
                                    : rows_possible ? std::string() : "; this is one row of tiles: use tiles fewer rows high";
        auto refused = [&](const j2kfront::Error& e) {
          if (e.status() != J2K_OUT_OF_MEMORY || max_memory == 0) return e;
          return j2kfront::Error(e.status(), std::string(e.what()) + " (--max-memory " + mib_text(max_memory) +
                                                 " less the image's samples, " + mib_text(samples) + ")" + instead);
        };
        std::pair<const uint8_t*, size_t> out{nullptr, 0};
        bool submitted = false;  // in flight: written once it is coded
        // The encoder for this shape (where the last image had another) codes the image: in
        // flight with `wanted` encoders side by side where --max-memory holds twice the
        // samples they keep, each encoder getting its share of what those leave.
        auto code = [&](int wanted) {
          const std::string carried = metadata_key(coding);
          if (!encoder || key != encoder_key || coding.last_is_alpha != last_is_alpha(job.input, image) || carried != encoder_metadata) {
            drop_encoder();  // the frames in flight are the old encoder's
            coding.last_is_alpha = last_is_alpha(job.input, image);
            lanes = one_at_a_time.count(key) ? 1 : wanted;
            const uint64_t beside = overlap ? 4 : 0;  // the next image's samples, the spare, two codestreams
            while (lanes > 1 && max_memory != 0 && 2 * (window_of(lanes) + beside) * samples > max_memory) --lanes;
            const uint64_t held = ((lanes > 1 ? window_of(lanes) : 1) + beside) * samples;
            coding.frames_in_flight = lanes > 1 ? lanes : 0;
            coding.max_bytes = max_memory == 0 ? 0 : (max_memory - std::min(held, max_memory - 1)) / static_cast<uint64_t>(lanes);
            encoder = std::make_unique<j2kfront::Encoder>(s, coding, view);
            made_key = key, made_settings = s, made_coding = coding;
            encoder_overlap = overlap;
            frames.set_window(window_of(lanes));
            encoder_key = key;
            encoder_metadata = carried;
          }
          if (lanes > 1) {
            FramesInFlight::Frame frame{k, std::move(image), t0, s.levels + 1};
            try {
              frames.submit(*encoder, std::move(frame));
            } catch (...) {
              image = std::move(frame.image);  // not taken: the samples are still the caller's
              throw;
            }
            submitted = true;
          } else {
            out = encoder->encode_in_place(view);
          }
        };
        try {
          try {
            code(in_flight.lanes);
          } catch (const j2kfront::Error& e) {
            // Its encoders side by side (made at the first frame) are over --max-memory: this
            // shape's images one at a time.
            if (e.status() != J2K_OUT_OF_MEMORY || lanes == 1) throw;
            drop_encoder();
            one_at_a_time.insert(key);
            code(1);
          }
        } catch (const j2kfront::Error& e) {
          if (e.status() != J2K_OUT_OF_MEMORY || !rows_possible) throw refused(e);
          by_rows = true;  // it does not fit whole: its memory back, then the rows
          why_rows = refused(e).what();
          drop_encoder();
        }
        if (!by_rows && !submitted && overlap) {
          const auto [data, size] = out;
          write_later(k, data, size, line_of(job, image, size, *encoder, s.levels + 1), raw_bytes_of(image),
                      t0);
          if (reads_ahead) spare = std::move(image);
        } else if (!by_rows && !submitted) {
          const auto [data, size] = out;
          t = Clock::now();
          outputs[k].write([&, data = data, size = size](std::FILE* f, const std::string& name) {
            if (std::fwrite(data, 1, size, f) != size || std::fflush(f) != 0)
              throw Error(ErrorCode::Io, name + ": cannot write the file");
          });
          said(job, image, size, *encoder, read_ms, ms_since(t), t0, s.levels + 1);
        }
      }
      if (by_rows) {
        drop_encoder();  // one encoder's memory at a time
        encoder_metadata.clear();
        return_large_buffers_at_once();
        if (!reader || reader->next_row() != 0) reader = named([&] { return std::make_unique<io::ImageReader>(path, a.threads); });
        double read_ms = 0, write_ms = 0;
        // The shape without samples on the canvas: the file's, or the X'Y'Z' it becomes.
        j2kfront::Image shape = reader->shape();
        if (!a.xyz.empty()) {
          if (shape.components.size() != 3) throw CLI::ValidationError("--xyz", "needs an RGB image (3 components)");
          for (auto& c : shape.components) c.type = J2K_SAMPLE_U16, c.precision = 12;
        }
        on_canvas(shape);
        // What the file says beside its samples, as far as its header (a PNG's chunks after
        // the image data are read with the last rows, after the encoder is made): said where
        // that leaves something behind, once the rows are read.
        const io::ImageMetadata header_metadata = reader->metadata();
        if (!metadata_carried) carry_metadata(header_metadata, shape, !a.xyz.empty(), job.input, coding);
        // The file's rows in canvas rows [y0, y1) (with -s, every sy-th canvas row has one),
        // and the first of them.
        auto cdiv = [](int64_t v, int64_t d) { return (v + d - 1) / d; };
        auto file_rows = [&](int64_t y0, int64_t y1) { return cdiv(y1, sy) - cdiv(y0, sy); };
        auto file_row = [&](int64_t y0) { return cdiv(y0, sy) - cdiv(iy, sy); };
        // The caller holds one row's samples (and, with --xyz, its X'Y'Z' beside them): the
        // encoder may take the rest.
        const std::vector<TileRow> rows = tile_rows(s, ix, iy, shape.width, shape.height);
        int64_t tallest = 0;
        for (const TileRow& r : rows) {
          if (file_rows(r.y0, r.y1) == 0)
            throw CLI::ValidationError("-s", "the row of tiles at canvas rows " + std::to_string(r.y0) + ".." + std::to_string(r.y1 - 1) +
                                                 " holds no row of samples subsampled " + std::to_string(sy) +
                                                 " apart: use tiles at least that high");
          tallest = std::max(tallest, file_rows(r.y0, r.y1));
        }
        const uint64_t row_samples =
            static_cast<uint64_t>(tallest) * (reader->row_bytes() + (a.xyz.empty() ? 0 : uint64_t{6} * reader->shape().width));
        if (max_memory != 0 && row_samples >= max_memory)
          throw j2kfront::Error(J2K_OUT_OF_MEMORY, job.input + ": a row of tiles (" + std::to_string(tallest) + " rows) needs " +
                                                       mib_text(row_samples) + " for its samples alone, more than the " +
                                                       mib_text(max_memory) + " of --max-memory; use tiles fewer rows high");
        coding.last_is_alpha = last_is_alpha(job.input, shape);
        coding.max_bytes = max_memory == 0 ? 0 : max_memory - row_samples;
        auto refused = [&](const j2kfront::Error& e) {
          if (e.status() != J2K_OUT_OF_MEMORY || max_memory == 0) return e;
          return j2kfront::Error(e.status(), std::string(e.what()) + " (--max-memory " + mib_text(max_memory) +
                                                 " less a row of tiles' samples, " + mib_text(row_samples) + ")");
        };
        std::unique_ptr<j2kfront::Encoder> rows_encoder;
        try {
          rows_encoder = std::make_unique<j2kfront::Encoder>(s, coding, shape.view(), j2kfront::Encoder::by_tile_rows);
        } catch (const j2kfront::Error& e) {
          throw j2kfront::Error(e.status(), "the image does not fit whole (" + why_rows + "), and a row of tiles at a time: " +
                                                refused(e).what());
        }
        j2kfront::Image band;
        auto read = [&](uint32_t y0, uint32_t height) {
          const auto t_read = Clock::now();
          if (reader->next_row() != file_row(y0))
            throw Error(ErrorCode::Internal, "compress: canvas rows from " + std::to_string(y0) + " asked for at image row " +
                                                 std::to_string(reader->next_row()));
          band = j2kfront::Image();  // the last row's samples go first
          band = named([&] { return reader->read_rows(static_cast<uint32_t>(file_rows(y0, int64_t{y0} + height))); });
          if (!a.xyz.empty()) {
            j2kfront::Image xyz = to_dci_xyz(band, a.xyz);
            band = std::move(xyz);
          }
          // On the canvas as the shape: its columns, these rows, the components' subsampling.
          band.x0 = shape.x0;
          band.width = shape.width;
          band.y0 = y0;
          band.height = height;
          for (size_t c = 0; c < band.components.size(); ++c) {
            band.components[c].dx = shape.components[c].dx;
            band.components[c].dy = shape.components[c].dy;
          }
          read_ms += ms_since(t_read);
          return band.view();
        };
        uint64_t size = 0;
        outputs[k].write([&](std::FILE* f, const std::string& name) {
          try {
            size = rows_encoder->encode_by_rows(read, [&](const uint8_t* data, size_t n) {
              const auto t_write = Clock::now();
              if (std::fwrite(data, 1, n, f) != n) throw Error(ErrorCode::Io, name + ": cannot write the file");
              write_ms += ms_since(t_write);
            });
          } catch (const j2kfront::Error& e) {
            throw refused(e);
          }
          if (std::fflush(f) != 0) throw Error(ErrorCode::Io, name + ": cannot write the file");
        });
        if (!metadata_carried) {
          const io::ImageMetadata& late = reader->metadata();
          std::vector<std::string> left;
          if (late.icc != header_metadata.icc) left.push_back("ICC profile");
          if (late.x_per_metre != header_metadata.x_per_metre || late.y_per_metre != header_metadata.y_per_metre)
            left.push_back("resolution");
          if (late.xmp != header_metadata.xmp) left.push_back("XMP packet");
          if (late.exif != header_metadata.exif) left.push_back("Exif");
          for (size_t w = header_metadata.warnings.size(); w < late.warnings.size(); ++w)
            std::fprintf(stderr, "j2kfront: warning: %s: %s\n", job.input == "-" ? "standard input" : job.input.c_str(),
                         late.warnings[w].c_str());
          for (const std::string& item : left)
            std::fprintf(stderr, "j2kfront: warning: %s: its %s is not written: %s\n", job.input == "-" ? "standard input" : job.input.c_str(),
                         item.c_str(),
                         coding.format == J2K_FORMAT_JP2
                             ? "it comes after the image data, read a row of tiles at a time after the encoder was made (a "
                               "whole-image run, with more --max-memory, carries it)"
                             : "a bare codestream has no place for it (write .jp2 or .jph)");
        }
        said(job, shape, static_cast<size_t>(size), *rows_encoder, read_ms, write_ms, t0, s.levels + 1);
      }
    } catch (const std::exception& e) {
      if (!batch) throw;  // main() reports it
      report_failure(job, e);
    }
    std::lock_guard<std::mutex> lock(said_mutex);
    progress.show(k + 1, job.input);
  }
  drop_encoder();
  writer.finish();
  progress.clear();
  if (batch && !a.quiet)
    std::printf("j2kfront: %zu of %zu images compressed (%.2f:1 in all) in %.1f ms%s\n", jobs.size() - failed, jobs.size(),
                bytes_out ? static_cast<double>(bytes_in) / static_cast<double>(bytes_out) : 0.0, ms_since(t_start),
                skipped.empty() ? "" : (", " + std::to_string(skipped.size()) + " other files skipped").c_str());
  if (failed) std::fprintf(stderr, "j2kfront: %zu of %zu images failed\n", failed, jobs.size());
  return failed ? 1 : 0;
}

}  // namespace

std::function<int()> add_compress_command(CLI::App& app) {
  auto args = std::make_shared<CompressArgs>();
  CLI::App* cmd = app.add_subcommand("compress", "Write a JPEG 2000 file (.j2k/.j2c codestream or .jp2) with opj_compress's options");
  cmd->add_option("-i,--input", args->input, "the image (TIFF, PNG, PGM/PPM or PGX; - reads standard input), or a directory of them")->required();
  cmd->add_option("-o,--output", args->output,
                  "OUT.j2k, OUT.j2c or OUT.jpc (a codestream), OUT.jp2 (a JP2 file), with --ht OUT.jhc or OUT.jph; "
                  "- for standard output (the format from --OutFor, j2k by default); for a directory -i, a directory")
      ->required();
  cmd->add_option("--OutFor", args->out_format,
                  "with -o - or a directory -i: the outputs' format, j2k (default), j2c, jpc, jp2, or with --ht jhc or jph");
  cmd->add_option("-r", args->rates, "compression ratio per quality layer, e.g. 40,20,10 (1 or 0: lossless); default lossless");
  cmd->add_option("-q", args->psnr, "PSNR in dB per quality layer, e.g. 30,40 (0: lossless)");
  cmd->add_option("-F", args->raw_layout,
                  "a .raw (big-endian) or .rawl (little-endian) input's layout, as opj_compress: "
                  "W,H,COMPONENTS,BITS,s|u[@DXxDY:...], the components one after another");
  cmd->add_option("-n", args->resolutions,
                  "resolutions: decomposition levels + 1 (default 6, or fewer where the tiles are under 32 samples a side)")
      ->check(CLI::Range(1, 33));
  cmd->add_option("-b", args->block, "code-block size W,H: powers of two, 4..1024, W*H <= 4096")->capture_default_str();
  cmd->add_option("-c", args->precincts, "precinct sizes [W,H],[W,H],... from the highest resolution (default: 2^15)");
  cmd->add_option("-t", args->tile_size, "tile size W,H (default: one tile)");
  cmd->add_option("-T", args->tile_origin, "tile grid origin X,Y on the canvas")->capture_default_str();
  cmd->add_option("-d", args->image_origin, "image origin X,Y on the canvas")->capture_default_str();
  cmd->add_option("-s", args->subsampling,
                  "subsampling DX,DY (1..255) as opj_compress -s: every component's samples DX, DY apart on the canvas "
                  "(the image area (width-1)*DX+1 x (height-1)*DY+1 from -d, which must fall on that grid)");
  cmd->add_option("-p", args->order, "progression order: LRCP, RLCP, RPCL, PCRL or CPRL")->capture_default_str();
  cmd->add_option("--POC", args->poc,
                  "progression order changes as opj_compress -POC: T<tile>=resStart,compStart,layerEnd,resEnd,compEnd,PROG[/...], "
                  "tiles from T1; each tile's in its first tile-part header, a tile-part each change, each packet sent once "
                  "(where changes overlap, opj_compress sends it again); packets no change covers are left out");
  cmd->add_flag("-I", args->irreversible, "the irreversible 9/7 wavelet (lossy), with the ICT");
  cmd->add_option("--qstep", args->qstep,
                  "with -I: the base quantisation step as a fraction of the samples' range, each band's the base over its "
                  "norm, as ojph_compress -qstep (default: one sample value, 1/2^bits); without -r/-q every block is coded "
                  "down to it")
      ->check(CLI::Range(1e-9, 1.0));
  cmd->add_option("--mct", args->mct, "1: the component transform on components 0..2 (default with 3 or more), 0: none")
      ->check(CLI::Range(0, 1));
  cmd->add_option("-M", args->modes,
                  "mode switches, the sum of: 1 BYPASS, 2 RESET, 4 RESTART, 8 VSC, 16 ERTERM, 32 SEGMARK; or HT (as --ht)");
  cmd->add_flag("--ht", args->ht,
                "HTJ2K (ISO/IEC 15444-15): HT code-blocks instead of EBCOT, with CAP; no -M. -r/-q choose each block's "
                "cleanup bit plane (then SigProp and MagRef passes); several layers share one HT set per block");
  cmd->add_option("--cinema2K", args->cinema2k,
                  "digital cinema 2K at FPS (24 or 48) frames a second, as opj_compress -cinema2K: 3 unsigned 12-bit "
                  "X'Y'Z' components of at most 2048x1080; sets -I, one tile, -n 6 at most, -b 32,32, precincts, CPRL, "
                  "--TP C, --TLM, and keeps -r (default: the largest frame) within DCI's bytes a frame and a component")
      ->check(CLI::IsMember({24, 48}));
  cmd->add_option("--xyz", args->xyz,
                  "code RGB as digital cinema's 12-bit X'Y'Z' (white at 48 cd/m^2, gamma 2.6), the RGB read as srgb or "
                  "bt709 (gamma 2.4): what --cinema2K/--cinema4K take from an 8- or 16-bit RGB image")
      ->check(CLI::IsMember({"srgb", "bt709"}));
  cmd->add_flag("--cinema4K", args->cinema4k,
                "digital cinema 4K at 24 frames a second, as opj_compress -cinema4K: as --cinema2K, of at most "
                "4096x2160, -n 7 at most, the highest resolution in a second progression change");
  cmd->add_option("--IMF", args->imf,
                  "an IMF profile, as opj_compress -IMF: PROFILE[,mainlevel=X][,sublevel=Y][,framerate=FPS] with PROFILE 2K, 4K, "
                  "8K (9/7) or 2K_R, 4K_R, 8K_R (5/3); 1 to 3 unsigned 8- to 16-bit components, one layer; sets one tile, at most "
                  "5, 6 or 7 levels, -b 32,32, precincts, CPRL, --TP C, --TLM; with framerate, the sub level caps the frame's bytes");
  cmd->add_flag("--SOP", args->sop, "a start-of-packet marker before each packet");
  cmd->add_flag("--EPH", args->eph, "an end-of-packet-header marker after each packet header");
  cmd->add_flag("--PLT", args->plt, "packet lengths in each tile-part header");
  cmd->add_flag("--TLM", args->tlm, "tile-part lengths in the main header");
  cmd->add_option("--TP", args->tile_parts, "tile-parts: a new one at each resolution (R), layer (L) or component (C)")
      ->check(CLI::IsMember({"R", "L", "C"}));
  cmd->add_option("--ROI", args->roi,
                  "c=N,U=S as opj_compress -ROI: component N a region of interest, RGN's max-shift by S bit planes (0..29; "
                  "0: none); the blocks coded as without it (a decoder shifts them up and back), a block's planes plus S at most 30");
  cmd->add_option("--display-resolution", args->display_resolution,
                  "a .jp2 or .jph file's default display resolution X,Y in grid points per metre across and down, or "
                  "X,Ydpi in dots per inch (a Default Display Resolution box, resd, beside the capture resolution the "
                  "input's own carries)");
  cmd->add_option("--guard-bits", args->guard_bits, "guard bits 0..7 (default 2, more where the 5/3 needs them)")
      ->check(CLI::Range(0, 7));
  cmd->add_option("-C,--comment", args->comment, "the COM marker's text (empty: none)")->capture_default_str();
  cmd->add_option("--backend", args->backend, "the front stage's backend: cpu, cuda, opencl or auto (one image: the CPU, or CUDA where there is a CUDA "
                  "GPU and the input file holds more than 8 MiB a thread; a directory: a GPU where there is one); "
                  "cuda codes the code-blocks on the GPU too, opencl the HT ones")
      ->check(CLI::IsMember({"auto", "cpu", "cuda", "opencl"}))->capture_default_str();
  cmd->add_option("--threads", args->threads, "CPU threads (default, 0: all cores)")->check(thread_count_check());
  cmd->add_option("--device", args->device, "GPU/OpenCL device index (default: J2KFRONT_DEVICE or the first)")->check(CLI::Range(0, 4096));
  cmd->add_option("--devices", args->devices,
                  "a directory's images spread over these GPUs: all, or indices I,J,... (default on cuda: all, unless "
                  "--device or J2KFRONT_DEVICE picks one)");
  cmd->add_option("--frames-in-flight", args->frames_in_flight,
                  "a directory's images coded this many at once, 1 to 8, each by an encoder of its own while the next "
                  "file is read and the last written (default on a GPU backend: 3 a GPU, 1 a GPU with --ht; 1 on the CPU); the same files")
      ->check(CLI::Range(1, J2K_MAX_FRAMES_IN_FLIGHT));
  cmd->add_option("--max-memory", args->max_memory,
                  "host memory one image may take, its samples included, e.g. 800M, 4G (default: half the RAM): a tiled "
                  "image (-t) that needs more goes a row of tiles at a time, into the same file; settings or an image that "
                  "need more even so are refused before the work");
  cmd->add_flag("--force", args->force, "replace an existing output file");
  cmd->add_flag("--quiet", args->quiet, "print nothing but errors and warnings");
  cmd->footer("opj_compress's spellings -mct, -SOP, -EPH, -PLT, -TLM, -TP, -GuardBits, -threads, -OutFor, -ImgDir, -quiet, -force,\n"
              "-cinema2K, -cinema4K, -IMF, -POC and -ROI are accepted too; -jpip and -x are refused as not supported.");
  return [args] { return run_compress(*args); };
}

std::vector<std::string> opj_style_arguments(int argc, char** argv) {
  std::vector<std::string> out(argv, argv + argc);
  if (argc < 2 || (out[1] != "compress" && out[1] != "decompress")) return out;
  const bool compress = out[1] == "compress";
  // opj_compress's and opj_decompress's spellings that mean what one of ours means.
  static const std::map<std::string, std::string> kBoth = {
      {"-threads", "--threads"}, {"-OutFor", "--OutFor"}, {"-ImgDir", "-i"}, {"-quiet", "--quiet"}, {"-force", "--force"}};
  static const std::map<std::string, std::string> kCompress = {
      {"-mct", "--mct"}, {"-SOP", "--SOP"}, {"-EPH", "--EPH"}, {"-PLT", "--PLT"},
      {"-TLM", "--TLM"}, {"-TP", "--TP"},   {"-GuardBits", "--guard-bits"},
      {"-cinema2K", "--cinema2K"}, {"-cinema4K", "--cinema4K"}, {"-IMF", "--IMF"},
      {"-POC", "--POC"}, {"-ROI", "--ROI"}};
  static const std::map<std::string, std::string> kDecompress = {{"-allow-partial", "--allow-partial"}};
  // Theirs that j2kfront does not do: named as such, not misread as a cluster of short flags
  // (-IMF as -I -M F).
  static const std::map<std::string, std::string> kNotCompress = {
      {"-jpip", "JPIP index boxes (-jpip)"},
      {"-x", "index files (-x)"}};
  for (size_t k = 2; k < out.size(); ++k) {
    std::string& a = out[k];
    if (const auto it = kBoth.find(a); it != kBoth.end()) {
      a = it->second;
    } else if (const auto& ours = compress ? kCompress : kDecompress; ours.count(a)) {
      a = ours.at(a);
    } else if (compress && kNotCompress.count(a)) {
      throw CLI::ValidationError(a, "not supported: " + kNotCompress.at(a));
    }
  }
  return out;
}

}  // namespace j2k::tools
