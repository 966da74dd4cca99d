// SPDX-License-Identifier: BSD-2-Clause
// j2k_coding and j2k_encoder_*: the codec's encoder (codec/encoder.hpp) behind the C interface.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/guard.hpp"
#include "api/settings.hpp"
#include "codec/codestream/jp2_writer.hpp"
#include "codec/encoder.hpp"
#include "codec/frame_encoder.hpp"
#include "codec/tier1/block_coder.hpp"
#include "common/icc_profile.hpp"
#include "tiling/limits.hpp"

struct j2k_encoder {
  std::unique_ptr<j2k::codec::Encoder> encoder;
  std::string description;
  // Frames in flight: their encoders, made from these as the frames need them (the first is
  // `encoder` itself, where it is on the first device).
  j2k::codec::EncoderSettings settings;
  j2k_image_view shape{};
  std::vector<j2k_component_view> shape_components;  // shape.components points here
  int lanes = 2;
  int device_turns = 0;  // coding.device_turns
  std::vector<int> devices;
  std::unique_ptr<j2k::codec::FrameEncoder> frames;
  std::vector<uint8_t> waited;  // the last wait's file
  // What get_report says: the last run's (encoder's own) or the last wait's.
  bool report_of_wait = false;
  j2k::codec::EncodeReport wait_report;
};

namespace {

// A ratio as a user wrote it: 20, 12.5 (std::to_string would print 20.000000).
std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

using j2k::c_enum;
using j2k::api::guard;
using j2k::api::require;
using j2k::api::profile_request;

int log2_of_power_of_two(const std::string& what, int v, int least, int most) {
  require(v >= least && v <= most, what + " must be " + std::to_string(least) + " to " + std::to_string(most) + ", got " + std::to_string(v));
  int k = 0;
  while ((1 << k) < v) ++k;
  require((1 << k) == v, what + " " + std::to_string(v) + " is not a power of two");
  return k;
}

// Sizes per resolution, [0] the lowest, from opj_compress's list (the highest first, the last
// one halved for each resolution left, never below 2, or 1 at the lowest resolution).
std::vector<std::pair<int, int>> precincts_per_resolution(const j2k_coding& c, int levels) {
  require(c.num_precincts >= 0, "num_precincts must not be negative");
  if (c.num_precincts == 0) return {};
  require(c.precincts != nullptr, "num_precincts is " + std::to_string(c.num_precincts) + " but precincts is null");
  const int resolutions = levels + 1;
  const int given = std::min(c.num_precincts, resolutions);  // sizes beyond the resolutions are unused
  std::vector<std::pair<int, int>> out(static_cast<size_t>(resolutions));
  std::pair<int, int> last;
  for (int k = 0; k < resolutions; ++k) {
    const int r = resolutions - 1 - k;
    if (k < given) {
      last = {log2_of_power_of_two("precinct width", c.precincts[2 * k], 1, 32768),
              log2_of_power_of_two("precinct height", c.precincts[2 * k + 1], 1, 32768)};
      require(r == 0 || (last.first >= 1 && last.second >= 1),
              "precincts above the lowest resolution must be at least 2 x 2 (B.6: a band's precincts are half the resolution's)");
      out[static_cast<size_t>(r)] = last;
    } else {
      const int halvings = k - given + 1, least = r == 0 ? 0 : 1;
      out[static_cast<size_t>(r)] = {std::max(least, last.first - halvings), std::max(least, last.second - halvings)};
    }
  }
  return out;
}

// j2k_coding's progression order changes checked, as one list per tile in the order given;
// each change's end component clamped to the image's, as OpenJPEG writes it.
std::vector<j2k::codec::TileChanges> tile_changes(const j2k_coding& c, int num_components) {
  require(c.num_pocs >= 0, "num_pocs must not be negative");
  if (c.num_pocs == 0) return {};
  require(c.pocs != nullptr, "num_pocs is " + std::to_string(c.num_pocs) + " but pocs is null");
  std::vector<j2k::codec::TileChanges> out;
  for (int k = 0; k < c.num_pocs; ++k) {
    const j2k_poc& e = c.pocs[k];
    const std::string which = "pocs[" + std::to_string(k) + "]: ";
    require(e.tile >= 0 && e.tile <= 65534, which + "tile must be 0 to 65534, got " + std::to_string(e.tile));
    require(e.res_start >= 0 && e.res_start <= 32, which + "res_start must be 0 to 32, got " + std::to_string(e.res_start));
    require(e.res_end > e.res_start && e.res_end <= 33,
            which + "res_end must be res_start + 1 (" + std::to_string(e.res_start + 1) + ") to 33, got " + std::to_string(e.res_end));
    require(e.comp_start >= 0 && e.comp_start < num_components,
            which + "comp_start " + std::to_string(e.comp_start) + " is not a component of the image (0 to " +
                std::to_string(num_components - 1) + ")");
    require(e.comp_end > e.comp_start, which + "comp_end must be above comp_start (" + std::to_string(e.comp_start) + "), got " +
                                           std::to_string(e.comp_end));
    require(e.layer_end >= 1 && e.layer_end <= 65535, which + "layer_end must be 1 to 65535, got " + std::to_string(e.layer_end));
    const int order = c_enum(e.progression);
    require(order >= J2K_LRCP && order <= J2K_CPRL, which + "progression " + std::to_string(order) + " is not a j2k_progression value");
    auto tile = std::find_if(out.begin(), out.end(), [&](const j2k::codec::TileChanges& t) { return t.tile == e.tile; });
    if (tile == out.end()) tile = out.insert(out.end(), j2k::codec::TileChanges{e.tile, {}});
    tile->changes.push_back({e.res_start, e.comp_start, e.layer_end, e.res_end, std::min(e.comp_end, num_components),
                             static_cast<j2k::codec::Progression>(order)});
  }
  return out;
}

// A JP2 file's ICC profile, capture and display resolutions and boxes, checked and copied (the encoder keeps
// no pointer of the caller's).
void jp2_metadata(const j2k_coding& c, int num_components, j2k::codec::EncoderSettings& e) {
  require(c.icc_profile != nullptr || c.icc_profile_size == 0, "icc_profile is null but icc_profile_size is " +
                                                                   std::to_string(c.icc_profile_size));
  require(c.num_boxes >= 0 && (c.num_boxes == 0 || c.boxes != nullptr), "num_boxes must be 0 or the count of the `boxes` array");
  require(std::isfinite(c.resolution_x) && std::isfinite(c.resolution_y) && c.resolution_x >= 0 && c.resolution_y >= 0 &&
              (c.resolution_x > 0) == (c.resolution_y > 0),
          "resolution_x and resolution_y are both 0 (none) or both grid points per metre above 0, got " + number(c.resolution_x) +
              " and " + number(c.resolution_y));
  require(std::isfinite(c.display_resolution_x) && std::isfinite(c.display_resolution_y) && c.display_resolution_x >= 0 &&
              c.display_resolution_y >= 0 && (c.display_resolution_x > 0) == (c.display_resolution_y > 0),
          "display_resolution_x and display_resolution_y are both 0 (none) or both grid points per metre above 0, got " +
              number(c.display_resolution_x) + " and " + number(c.display_resolution_y));
  const bool any = c.icc_profile_size > 0 || c.resolution_x > 0 || c.display_resolution_x > 0 || c.num_boxes > 0;
  require(!any || e.format == j2k::codec::FileFormat::Jp2,
          "an ICC profile, a resolution or boxes need J2K_FORMAT_JP2: a codestream has no place for them");
  if (c.icc_profile_size > 0) {
    const std::string why = j2k::icc_profile_problem(c.icc_profile, c.icc_profile_size, static_cast<size_t>(num_components));
    require(why.empty(), "icc_profile: " + why);
    e.icc.assign(c.icc_profile, c.icc_profile + c.icc_profile_size);
  }
  if (c.resolution_x > 0) {
    j2k::codec::jp2_detail::resolution_fields(c.resolution_x);  // throws InvalidArgument beyond the box's range
    j2k::codec::jp2_detail::resolution_fields(c.resolution_y);
    e.capture = {c.resolution_x, c.resolution_y};
  }
  if (c.display_resolution_x > 0) {
    j2k::codec::jp2_detail::resolution_fields(c.display_resolution_x);
    j2k::codec::jp2_detail::resolution_fields(c.display_resolution_y);
    e.display = {c.display_resolution_x, c.display_resolution_y};
  }
  for (int k = 0; k < c.num_boxes; ++k) {
    const j2k_box& b = c.boxes[k];
    const std::string which = "boxes[" + std::to_string(k) + "] ('" + j2k::codec::jp2_box_name(b.type) + "')";
    require(b.data != nullptr || b.size == 0, which + ": data is null but size is " + std::to_string(b.size));
    require(!j2k::codec::is_jp2_structure_box(b.type), which + " is one of the file's own boxes (jP, ftyp, jp2h, jp2c)");
    require(b.type != J2K_BOX_UUID || b.size >= 16, which + ": a UUID box starts with its 16-byte UUID, and has " +
                                                        std::to_string(b.size) + " bytes");
    e.boxes.push_back({b.type, std::vector<uint8_t>(b.data, b.data + b.size)});
  }
}

// Everything of j2k_coding checked and turned into the encoder's settings for an image of
// `num_components` components.
j2k::codec::EncoderSettings encoder_settings(const j2k_settings& s, const j2k_coding& c, int num_components) {
  j2k::codec::EncoderSettings e;
  e.plan = j2k::api::plan_settings(s, num_components);
  const int format = c_enum(c.format);
  require(format == J2K_FORMAT_J2K || format == J2K_FORMAT_JP2, "format " + std::to_string(format) + " is not a j2k_file_format value");
  e.format = format == J2K_FORMAT_JP2 ? j2k::codec::FileFormat::Jp2 : j2k::codec::FileFormat::Codestream;
  j2k::codec::CodingParams& p = e.coding;
  require(c.layers >= 1 && c.layers <= 65535, "layers must be 1 to 65535, got " + std::to_string(c.layers));
  p.layers = c.layers;
  require(!(c.rates && c.psnr), "give rates or psnr targets, not both");
  if (c.rates) {
    for (int l = 0; l < c.layers; ++l) {
      const double r = c.rates[l];
      require(std::isfinite(r) && r >= 0, "rates: layer " + std::to_string(l) + "'s ratio must be finite and not negative");
      require(r > 1 || l + 1 == c.layers, "rates: only the last quality layer may be lossless (a ratio of 1 or less)");
      if (l > 0 && !(r < c.rates[l - 1] || r <= 1))  // (the message reads rates[l - 1]: only for l > 0)
        require(false, "rates: the ratios must fall from layer to layer (each layer adds to the ones before), got " +
                           number(c.rates[l - 1]) + " then " + number(r));
      e.layer_rates.push_back(r);
    }
  }
  if (c.psnr) p.layer_psnr.assign(c.psnr, c.psnr + c.layers);
  p.block_w_log2 = log2_of_power_of_two("code-block width", c.block_w, 1 << j2k::kMinBlockLog2, j2k::kMaxBlockSide);
  p.block_h_log2 = log2_of_power_of_two("code-block height", c.block_h, 1 << j2k::kMinBlockLog2, j2k::kMaxBlockSide);
  require(j2k::valid_block_log2(p.block_w_log2, p.block_h_log2), "a code-block has at most 4096 samples, not " +
                                                     std::to_string(c.block_w) + " x " + std::to_string(c.block_h));
  require(s.levels >= 0 && s.levels <= j2k::kMaxLevels, "levels must be 0 to 32, got " + std::to_string(s.levels));
  // Each component's levels and precincts (COD: component 0's; COC where another differs).
  const std::vector<int>& levels = e.plan.component_levels;
  for (size_t k = 0; k < levels.size(); ++k) {
    require(levels[k] >= 0 && levels[k] <= j2k::kMaxLevels, "component " + std::to_string(k) + "'s levels must be 0 to 32, got " + std::to_string(levels[k]));
    p.components.push_back({levels[k], precincts_per_resolution(c, levels[k]), p.block_w_log2, p.block_h_log2});
  }
  p.levels = j2k::component_levels(e.plan, 0);
  p.precincts = precincts_per_resolution(c, p.levels);
  const int order = c_enum(c.progression);
  require(order >= J2K_LRCP && order <= J2K_CPRL, "progression " + std::to_string(order) + " is not a j2k_progression value");
  p.order = static_cast<j2k::codec::Progression>(order);
  require(c.modes <= 127, "modes are J2K_MODE_* bits (1 to 64), got " + std::to_string(c.modes));
  p.modes = static_cast<uint8_t>(c.modes & 63);
  if (c.modes & J2K_MODE_HT) {
    // HT code-blocks: Part 15's coder, whose passes no EBCOT mode switch changes; rates and
    // PSNR targets choose each block's cleanup plane (codec/rate/ht_planes.hpp).
    require((c.modes & 63) == 0, "J2K_MODE_HT (--ht) takes no other mode switch (-M), got modes " + std::to_string(c.modes));
    p.block_coding = j2k::codec::BlockCoding::HighThroughput;
  }
  for (const auto& [flag, name] : {std::pair{c.sop, "sop"}, {c.eph, "eph"}, {c.plt, "plt"}, {c.tlm, "tlm"}})
    require(flag == 0 || flag == 1, std::string(name) + " must be 0 or 1, got " + std::to_string(flag));
  p.sop = c.sop, p.eph = c.eph, p.plt = c.plt, p.tlm = c.tlm;
  require(c.tile_parts == 0 || c.tile_parts == 'R' || c.tile_parts == 'L' || c.tile_parts == 'C',
          "tile_parts must be 0, 'R', 'L' or 'C'");
  p.tile_parts = c.tile_parts;
  require(c.guard_bits >= -1 && c.guard_bits <= 7, "guard_bits must be -1 (automatic) or 0 to 7, got " + std::to_string(c.guard_bits));
  p.guard_bits = c.guard_bits;
  p.comment = c.comment ? c.comment : "";
  e.profile = profile_request(c.profile, c.frame_rate, c.imf_mainlevel, c.imf_sublevel);
  if (e.profile.profile != j2k::codec::Profile::None) {
    const std::string name = j2k::codec::profile_limits(e.profile).name;  // the rate and levels checked
    require(p.block_coding == j2k::codec::BlockCoding::Ebcot, "the " + name + " profile is Part 1's: EBCOT code-blocks, not J2K_MODE_HT");
    require(p.layer_psnr.empty(), "the " + name + " profile limits the bytes of a frame: give rates, not PSNR targets");
  }
  e.max_bytes = c.max_bytes;
  require(std::isfinite(c.qstep) && c.qstep >= 0 && c.qstep <= 1,
          "qstep must be 0 (a step of one sample value) or a fraction of the range up to 1, got " + std::to_string(c.qstep));
  p.relative_step = c.qstep;
  p.tile_poc = tile_changes(c, num_components);
  if (c.roi_shift != 0) {
    require(c.roi_shift > 0 && c.roi_shift < j2k::codec::kMaxDecodedBitplanes,
            "roi_shift must be 0 (none) or 1 to " + std::to_string(j2k::codec::kMaxDecodedBitplanes - 1) +
                " (a code-block's bit planes and the shift together at most " + std::to_string(j2k::codec::kMaxDecodedBitplanes) +
                ", what decoders take), got " + std::to_string(c.roi_shift));
    require(c.roi_component >= 0 && c.roi_component < num_components,
            "roi_component " + std::to_string(c.roi_component) + " is not a component of the image (0 to " +
                std::to_string(num_components - 1) + ")");
    p.roi_shift.assign(static_cast<size_t>(num_components), 0);
    p.roi_shift[static_cast<size_t>(c.roi_component)] = c.roi_shift;
  }
  require(c.last_is_alpha == 0 || c.last_is_alpha == 1, "last_is_alpha must be 0 or 1, got " + std::to_string(c.last_is_alpha));
  require(!c.last_is_alpha || num_components >= 2, "last_is_alpha needs a colour component before the alpha channel");
  e.last_is_alpha = c.last_is_alpha != 0;
  jp2_metadata(c, num_components, e);
  return e;
}

// j2k_coding's frames in flight: how many encoders side by side, on which devices, how many
// of one device's in their device stages at once.
void frames_options(const j2k_coding& c, int& lanes, std::vector<int>& devices, int& turns) {
  require(c.frames_in_flight >= 0 && c.frames_in_flight <= J2K_MAX_FRAMES_IN_FLIGHT,
          "frames_in_flight must be 0 (2) to " + std::to_string(J2K_MAX_FRAMES_IN_FLIGHT) + ", got " + std::to_string(c.frames_in_flight));
  lanes = c.frames_in_flight == 0 ? 2 : c.frames_in_flight;
  require(c.device_turns >= 0 && c.device_turns <= J2K_MAX_FRAMES_IN_FLIGHT,
          "device_turns must be 0 (no limit) to " + std::to_string(J2K_MAX_FRAMES_IN_FLIGHT) + ", got " + std::to_string(c.device_turns));
  turns = c.device_turns;
  require(c.num_devices >= 0 && (c.num_devices == 0 || c.devices != nullptr),
          "devices must hold num_devices (" + std::to_string(c.num_devices) + ") device indices");
  devices.clear();
  for (int k = 0; k < c.num_devices; ++k) {
    require(c.devices[k] >= 0, "devices[" + std::to_string(k) + "] must be a device index (0 and up), got " + std::to_string(c.devices[k]));
    devices.push_back(c.devices[k]);
  }
}

j2k_status create(const j2k_settings* settings, const j2k_coding* coding, const j2k_image_view* shape, j2k_encoder** encoder,
                  bool by_rows) {
  if (encoder) *encoder = nullptr;
  return guard([&] {
    require(settings != nullptr, "settings is null");
    require(coding != nullptr, "coding is null");
    require(shape != nullptr, "shape is null");
    require(encoder != nullptr, "the encoder pointer to fill is null");
    auto e = std::make_unique<j2k_encoder>();
    e->settings = encoder_settings(*settings, *coding, shape->num_components);
    e->settings.by_tile_rows = by_rows;
    frames_options(*coding, e->lanes, e->devices, e->device_turns);
    e->encoder = std::make_unique<j2k::codec::Encoder>(e->settings, *shape);
    e->description = e->encoder->front().description;
    e->shape = *shape;
    e->shape_components.assign(shape->components, shape->components + shape->num_components);
    e->shape.components = e->shape_components.data();
    *encoder = e.release();
  });
}

// A callback's status other than J2K_OK as an error naming it and what it was doing.
void check_callback(j2k_status status, const std::string& what) {
  if (status == J2K_OK) return;
  const int code = j2k::c_enum(status);
  require(code >= J2K_INVALID_ARGUMENT && code <= J2K_INTERNAL_ERROR,
          what + " returned " + std::to_string(code) + ", not a j2k_status value");
  throw j2k::Error(static_cast<j2k::ErrorCode>(code), what + " returned " + j2k_status_name(status));
}

}  // namespace

static_assert(J2K_BOX_UUID == j2k::codec::jp2_fourcc("uuid") && J2K_BOX_XML == j2k::codec::jp2_fourcc("xml "),
              "the C box types are the codec's");
static_assert(static_cast<int>(j2k::codec::Progression::CPRL) == J2K_CPRL &&
                  static_cast<int>(j2k::codec::Progression::LRCP) == J2K_LRCP,
              "the C progression values are the codec's");
static_assert(static_cast<int>(j2k::codec::Profile::Cinema2k) == J2K_PROFILE_CINEMA_2K &&
                  static_cast<int>(j2k::codec::Profile::Cinema4k) == J2K_PROFILE_CINEMA_4K &&
                  static_cast<int>(j2k::codec::Profile::Imf2k) == J2K_PROFILE_IMF_2K &&
                  static_cast<int>(j2k::codec::Profile::Imf8kR) == J2K_PROFILE_IMF_8K_R,
              "the C profile values are the codec's (Rsiz's)");

extern "C" {

void j2k_coding_default(j2k_coding* coding) {
  if (!coding) return;
  *coding = j2k_coding{};
  coding->format = J2K_FORMAT_J2K;
  coding->layers = 1;
  coding->block_w = coding->block_h = 64;
  coding->progression = J2K_LRCP;
  coding->guard_bits = -1;
}

int j2k_file_format_from_name(const char* path, j2k_file_format* format) {
  if (path == nullptr) return 0;
  const std::optional<j2k::codec::FileFormat> f = j2k::codec::file_format_from_name(path);
  if (!f) return 0;
  if (format) *format = *f == j2k::codec::FileFormat::Jp2 ? J2K_FORMAT_JP2 : J2K_FORMAT_J2K;
  return 1;
}

int j2k_file_format_is_ht(const char* path) { return path != nullptr && j2k::codec::is_ht_file_name(path) ? 1 : 0; }

j2k_status j2k_coding_check(const j2k_settings* settings, const j2k_coding* coding, int num_components) {
  return guard([&] {
    require(settings != nullptr, "settings is null");
    require(coding != nullptr, "coding is null");
    require(num_components >= 1, "num_components must be at least 1");
    j2k::codec::EncoderSettings e = encoder_settings(*settings, *coding, num_components);
    int lanes = 0, turns = 0;
    std::vector<int> devices;
    frames_options(*coding, lanes, devices, turns);
    e.coding.reversible = e.plan.wavelet == j2k::Wavelet::Reversible53;  // the settings as plan_settings read them
    e.coding.mct = e.plan.mct == j2k::Mct::On || (e.plan.mct == j2k::Mct::Auto && num_components >= 3);
    j2k::codec::set_layer_bytes(e.coding, e.layer_rates, 1e15);  // any size: the ratios are checked already
    check_params(e.coding, static_cast<size_t>(num_components));
  });
}

j2k_status j2k_encoder_create(const j2k_settings* settings, const j2k_coding* coding, const j2k_image_view* shape,
                              j2k_encoder** encoder) {
  return create(settings, coding, shape, encoder, false);
}

j2k_status j2k_encoder_create_by_rows(const j2k_settings* settings, const j2k_coding* coding, const j2k_image_view* shape,
                                      j2k_encoder** encoder) {
  return create(settings, coding, shape, encoder, true);
}

void j2k_encoder_destroy(j2k_encoder* encoder) { delete encoder; }

j2k_status j2k_encoder_run(j2k_encoder* encoder, const j2k_image_view* image, const uint8_t** data, size_t* size) {
  if (data) *data = nullptr;
  if (size) *size = 0;
  return guard([&] {
    require(encoder != nullptr, "encoder is null");
    require(image != nullptr, "image is null");
    require(data != nullptr && size != nullptr, "the data and size pointers to fill must not be null");
    // The frames' first lane is this encoder (FrameEncoder's `first`).
    require(!encoder->frames || !encoder->frames->in_flight(),
            "frames are in flight on this encoder (j2k_encoder_submit): wait for them before a run");
    const std::vector<uint8_t>& bytes = encoder->encoder->encode(*image);
    encoder->report_of_wait = false;
    *data = bytes.data();
    *size = bytes.size();
  });
}

j2k_status j2k_encoder_submit(j2k_encoder* encoder, const j2k_image_view* image, j2k_ticket* ticket) {
  if (ticket) *ticket = 0;
  return guard([&] {
    require(encoder != nullptr, "encoder is null");
    require(image != nullptr, "image is null");
    require(ticket != nullptr, "the ticket pointer to fill is null");
    require(!encoder->settings.by_tile_rows,
            "this encoder was made for an image a row of tiles at a time (j2k_encoder_create_by_rows): run it by rows "
            "(j2k_encoder_run_by_rows), not as frames in flight");
    if (!encoder->frames)
      encoder->frames = std::make_unique<j2k::codec::FrameEncoder>(encoder->settings, encoder->shape, encoder->lanes, encoder->devices,
                                                                     encoder->device_turns, encoder->encoder.get());
    *ticket = encoder->frames->submit(*image);
  });
}

j2k_status j2k_encoder_wait(j2k_encoder* encoder, j2k_ticket ticket, const uint8_t** data, size_t* size) {
  if (data) *data = nullptr;
  if (size) *size = 0;
  return guard([&] {
    require(encoder != nullptr, "encoder is null");
    require(data != nullptr && size != nullptr, "the data and size pointers to fill must not be null");
    require(encoder->frames != nullptr, "ticket " + std::to_string(ticket) + " is not in flight: nothing was submitted");
    encoder->wait_report = encoder->frames->wait(ticket, encoder->waited);
    encoder->report_of_wait = true;
    *data = encoder->waited.data();
    *size = encoder->waited.size();
  });
}

j2k_status j2k_encoder_run_by_rows(j2k_encoder* encoder, j2k_row_reader read, void* read_user, j2k_byte_writer write,
                                   void* write_user, uint64_t* size) {
  if (size) *size = 0;
  return guard([&] {
    require(encoder != nullptr, "encoder is null");
    require(read != nullptr && write != nullptr, "the row reader and the byte writer must not be null");
    const uint64_t n = encoder->encoder->encode_rows(
        [&](uint32_t y0, uint32_t rows) {
          j2k_image_view band{};
          check_callback(read(read_user, y0, rows, &band),
                         "the row reader, asked for canvas rows " + std::to_string(y0) + ".." + std::to_string(y0 + rows - 1) + ",");
          return band;
        },
        [&](const uint8_t* data, size_t bytes) { check_callback(write(write_user, data, bytes), "the byte writer"); });
    encoder->report_of_wait = false;
    if (size) *size = n;
  });
}

j2k_status j2k_encoder_get_report(const j2k_encoder* encoder, j2k_encode_report* report) {
  return guard([&] {
    require(encoder != nullptr, "encoder is null");
    require(report != nullptr, "report is null");
    const j2k::codec::EncodeReport& r = encoder->report_of_wait ? encoder->wait_report : encoder->encoder->report();
    *report = j2k_encode_report{};
    report->front_ms = r.front_ms;
    report->tier1_ms = r.tier1_ms;
    report->rate_ms = r.rate_ms;
    report->tier2_ms = r.tier2_ms;
    report->bytes = encoder->report_of_wait ? encoder->waited.size() : static_cast<size_t>(r.bytes);
    report->layers = static_cast<int>(r.layer_psnr.size());
    report->layer_psnr = r.layer_psnr.data();
    report->tier1_on = r.tier1_on;
    report->tile_rows = r.tile_rows;
    report->front_begin_ms = r.front_at;
    report->tier1_begin_ms = r.tier1_at;
    report->rate_begin_ms = r.rate_at;
    report->tier2_begin_ms = r.tier2_at;
    report->lane = r.lane;
  });
}

j2k_status j2k_encoder_get_plan_info(const j2k_encoder* encoder, j2k_plan_info* info) {
  return guard([&] {
    require(encoder != nullptr, "encoder is null");
    require(info != nullptr, "info is null");
    const j2k::codec::FrontInfo& f = encoder->encoder->front();
    *info = j2k_plan_info{};
    info->backend = static_cast<j2k_backend>(f.backend);
    info->description = encoder->description.c_str();
    info->mct = f.mct ? 1 : 0;
    info->tiles_x = f.tiles_x;
    info->tiles_y = f.tiles_y;
    info->tile_components = f.tile_components;
    info->coefficient_type = f.coefficient_type;
    info->streams = f.streams;
  });
}

}  // extern "C"
