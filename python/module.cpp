// SPDX-License-Identifier: BSD-2-Clause
// j2kfront._j2kfront: the Python binding's native part, over the C++ layer (j2kfront.hpp).
// It is deliberately thin: keyword arguments, dtype checks and the result objects are in
// j2kfront/__init__.py; here are plans and DWT engines that read numpy arrays where they lie
// (strides and all, no copy) and write coefficients straight into numpy arrays.
//
// Threads: every call that works releases the GIL. A plan or DWT engine may be shared by
// Python threads: a mutex per object serialises them (the C handles are one thread at a time);
// different objects run side by side.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "j2kfront/j2kfront.hpp"

namespace py = pybind11;

namespace {

// What __init__.py passes: the fields of j2k_settings it exposes, by name. Per-component
// levels go to `levels` (which must outlive the settings' use), checked against `channels`.
j2kfront::Settings settings_from(const py::dict& d, int channels, std::vector<int>& levels) {
  j2kfront::Settings s;
  s.wavelet = static_cast<j2k_wavelet>(d["wavelet"].cast<int>());
  s.levels = d["levels"].cast<int>();
  s.tile_w = d["tile_w"].cast<uint32_t>();
  s.tile_h = d["tile_h"].cast<uint32_t>();
  s.tile_x0 = d["tile_x0"].cast<uint32_t>();
  s.tile_y0 = d["tile_y0"].cast<uint32_t>();
  s.mct = static_cast<j2k_mct>(d["mct"].cast<int>());
  s.backend = static_cast<j2k_backend>(d["backend"].cast<int>());
  s.device = d["device"].cast<int>();
  s.threads = d["threads"].cast<int>();
  s.narrow_output = d["narrow_output"].cast<int>();
  if (d.contains("component_levels") && !d["component_levels"].is_none()) {
    levels = d["component_levels"].cast<std::vector<int>>();
    if (levels.size() != static_cast<size_t>(channels))
      throw py::value_error("levels: " + std::to_string(levels.size()) + " given for " + std::to_string(channels) + " components");
    s.component_levels = levels.data();
  }
  return s;
}

// Bytes from `a`'s first element to the end of its last, for non-negative strides (the Python
// side makes arrays with negative strides contiguous first).
size_t extent_bytes(const py::array& a) {
  size_t end = static_cast<size_t>(a.itemsize());
  for (py::ssize_t d = 0; d < a.ndim(); ++d) {
    if (a.shape(d) == 0) return 0;
    end += static_cast<size_t>(a.shape(d) - 1) * static_cast<size_t>(a.strides(d));
  }
  return end;
}

// A view of a 2-D (H, W) or 3-D (H, W, C) array: C interleaved components, each read in
// place through the array's own strides.
j2kfront::ImageView view_of(const py::array& a, j2k_sample_type type, int precision,
                            uint32_t x0, uint32_t y0) {
  const size_t extent = extent_bytes(a);
  const int channels = a.ndim() == 3 ? static_cast<int>(a.shape(2)) : 1;
  std::vector<j2k_component_view> c(static_cast<size_t>(channels));
  const auto* base = static_cast<const unsigned char*>(a.data());
  for (int i = 0; i < channels; ++i) {
    const size_t offset = a.ndim() == 3 ? static_cast<size_t>(i) * static_cast<size_t>(a.strides(2)) : 0;
    j2k_component_view& v = c[static_cast<size_t>(i)];
    v.data = base + offset;
    v.type = type;
    v.precision = precision;
    v.dx = v.dy = 1;
    v.row_stride = a.strides(0);
    v.pixel_stride = a.strides(1);
    v.bytes = extent - offset;
  }
  j2kfront::ImageView view(static_cast<uint32_t>(a.shape(1)), static_cast<uint32_t>(a.shape(0)),
                           std::move(c));
  view.at_origin(x0, y0);
  return view;
}

py::tuple rect_tuple(const j2k_rect& r) { return py::make_tuple(r.x0, r.y0, r.x1, r.y1); }

py::array new_coefficients(j2k_sample_type type, int64_t height, int64_t width) {
  const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(height), static_cast<py::ssize_t>(width)};
  switch (type) {
    case J2K_SAMPLE_I16: return py::array_t<int16_t>(shape);
    case J2K_SAMPLE_I32: return py::array_t<int32_t>(shape);
    case J2K_SAMPLE_F32: return py::array_t<float>(shape);
    default: throw std::logic_error("unexpected coefficient type " + std::to_string(type));
  }
}

py::dict info_dict(const j2k_plan_info& info) {
  py::dict d;
  d["backend"] = j2k_backend_name(info.backend);
  d["description"] = info.description ? info.description : "";
  d["mct"] = info.mct != 0;
  d["tiles"] = py::make_tuple(info.tiles_x, info.tiles_y);
  d["streams"] = info.streams;
  return d;
}

// The shape a plan or an encoder is made for, and the checks and views of arrays of it.
struct ImageShape {
  j2k_sample_type type;
  int precision;
  uint32_t x0, y0;
  int channels;
  py::ssize_t height, width;

  // A view with no samples (the shape alone, for creation).
  j2kfront::ImageView empty_view() const {
    std::vector<j2k_component_view> shape(static_cast<size_t>(channels));
    for (j2k_component_view& v : shape) {
      v.type = type;
      v.precision = precision;
      v.dx = v.dy = 1;
    }
    j2kfront::ImageView view(static_cast<uint32_t>(width), static_cast<uint32_t>(height), std::move(shape));
    view.at_origin(x0, y0);
    return view;
  }
  j2kfront::ImageView view(const py::array& image, const char* what) const {
    const int c = image.ndim() == 3 ? static_cast<int>(image.shape(2)) : 1;
    if (image.ndim() < 2 || image.ndim() > 3 || image.shape(0) != height || image.shape(1) != width || c != channels)
      throw py::value_error(std::string("this ") + what + " was made for images of " + std::to_string(height) + " x " +
                            std::to_string(width) + " x " + std::to_string(channels) +
                            " samples (height x width x components)");
    return view_of(image, type, precision, x0, y0);
  }
};

// One front stage for one image shape (j2k_plan): run() returns a fresh list of numpy arrays,
// one per tile-component, written by the plan directly.
class PyPlan {
 public:
  PyPlan(const py::dict& settings, py::ssize_t height, py::ssize_t width, int channels,
         int type, int precision, uint32_t x0, uint32_t y0)
      : shape_{static_cast<j2k_sample_type>(type), precision, x0, y0, channels, height, width} {
    std::vector<int> levels;
    const j2kfront::Settings s = settings_from(settings, channels, levels);
    const j2kfront::ImageView view = shape_.empty_view();
    py::gil_scoped_release unlocked;
    plan_ = std::make_unique<j2kfront::Plan>(s, view);
    info_ = plan_->info();
  }

  py::dict info() const { return info_dict(info_); }

  // Per tile-component: its tile, component, rectangle, levels and bands (type, level,
  // rectangle on the band's grid, top-left in the tile-component's array, size).
  py::list layout() const {
    py::list out;
    for (size_t i = 0; i < info_.tile_components; ++i) {
      const j2k_tile_component tc = plan_->tile_component(i);
      py::list bands;
      for (int b = 0; b < tc.bands; ++b) {
        const j2k_band band = plan_->band(i, b);
        bands.append(py::make_tuple(static_cast<int>(band.type), band.level, rect_tuple(band.rect),
                                    band.row, band.col, band.coefficients.height,
                                    band.coefficients.width));
      }
      out.append(py::make_tuple(tc.tile, tc.component, rect_tuple(tc.rect), tc.levels, bands));
    }
    return out;
  }

  py::list run(const py::array& image) {
    const j2kfront::ImageView view = shape_.view(image, "plan");
    struct Target {
      void* data;
      size_t bytes;
      ptrdiff_t row_stride;
    };
    std::vector<py::array> outputs;
    std::vector<Target> targets;  // read while the GIL is held
    for (size_t i = 0; i < info_.tile_components; ++i) {
      const j2k_tile_component tc = plan_->tile_component(i);
      outputs.push_back(new_coefficients(info_.coefficient_type, tc.rect.y1 - tc.rect.y0, tc.rect.x1 - tc.rect.x0));
      py::array& a = outputs.back();
      targets.push_back({a.mutable_data(), static_cast<size_t>(a.nbytes()), a.strides(0)});
    }
    {
      py::gil_scoped_release unlocked;  // before the lock: a thread waiting on it holds no GIL
      std::lock_guard<std::mutex> lock(mutex_);
      struct Restore {  // the plan's own buffers again, so that no run writes a freed array
        j2kfront::Plan& plan;
        size_t count;
        ~Restore() {
          for (size_t i = 0; i < count; ++i) j2k_plan_set_output(plan.get(), i, nullptr, 0, 0, J2K_MEMORY_HOST);
        }
      } restore{*plan_, targets.size()};
      for (size_t i = 0; i < targets.size(); ++i)
        plan_->set_output(i, targets[i].data, targets[i].bytes, targets[i].row_stride);
      plan_->run(view);
    }
    py::list out;
    for (py::array& a : outputs) out.append(std::move(a));
    return out;
  }

 private:
  ImageShape shape_;
  std::unique_ptr<j2kfront::Plan> plan_;
  j2k_plan_info info_{};
  std::mutex mutex_;
};

// The bytes of a Python bytes object, copied.
std::vector<uint8_t> bytes_of(const py::handle& b) {
  const std::string s = b.cast<py::bytes>();
  return std::vector<uint8_t>(s.begin(), s.end());
}

// The whole encoder for one image shape (j2k_encoder): encode() returns the file as bytes.
class PyEncoder {
 public:
  PyEncoder(const py::dict& settings, const py::dict& coding, py::ssize_t height, py::ssize_t width, int channels,
            int type, int precision, uint32_t x0, uint32_t y0)
      : shape_{static_cast<j2k_sample_type>(type), precision, x0, y0, channels, height, width} {
    std::vector<int> levels;
    const j2kfront::Settings s = settings_from(settings, channels, levels);
    j2kfront::Coding c;
    c.format = static_cast<j2k_file_format>(coding["format"].cast<int>());
    c.rates = coding["rates"].cast<std::vector<double>>();
    c.psnr = coding["psnr"].cast<std::vector<double>>();
    c.block_w = coding["block_w"].cast<int>();
    c.block_h = coding["block_h"].cast<int>();
    c.precincts = coding["precincts"].cast<std::vector<std::pair<int, int>>>();
    c.progression = static_cast<j2k_progression>(coding["progression"].cast<int>());
    c.modes = coding["modes"].cast<unsigned>();
    c.sop = coding["sop"].cast<bool>();
    c.eph = coding["eph"].cast<bool>();
    c.plt = coding["plt"].cast<bool>();
    c.tlm = coding["tlm"].cast<bool>();
    c.tile_parts = coding["tile_parts"].cast<std::string>().empty() ? 0 : coding["tile_parts"].cast<std::string>()[0];
    c.guard_bits = coding["guard_bits"].cast<int>();
    c.comment = coding["comment"].cast<std::string>();
    c.max_bytes = coding["max_bytes"].cast<uint64_t>();
    c.profile = static_cast<j2k_profile>(coding["profile"].cast<int>());
    c.frame_rate = coding["frame_rate"].cast<double>();
    c.imf_mainlevel = coding["imf_mainlevel"].cast<int>();
    c.imf_sublevel = coding["imf_sublevel"].cast<int>();
    c.qstep = coding["qstep"].cast<double>();
    c.frames_in_flight = coding["frames_in_flight"].cast<int>();
    c.device_turns = coding["device_turns"].cast<int>();
    c.devices = coding["devices"].cast<std::vector<int>>();
    for (const auto& t : coding["pocs"].cast<std::vector<std::tuple<int, int, int, int, int, int, int>>>())
      c.pocs.push_back({std::get<0>(t), std::get<1>(t), std::get<2>(t), std::get<3>(t), std::get<4>(t), std::get<5>(t),
                        static_cast<j2k_progression>(std::get<6>(t))});
    c.roi_component = coding["roi_component"].cast<int>();
    c.roi_shift = coding["roi_shift"].cast<int>();
    // A JP2 file's metadata: the profile's bytes, (x, y) grid points per metre, (type, contents) boxes.
    c.icc_profile = bytes_of(coding["icc_profile"]);
    const auto resolution = coding["resolution"].cast<std::pair<double, double>>();
    c.resolution_x = resolution.first, c.resolution_y = resolution.second;
    const auto display = coding["display_resolution"].cast<std::pair<double, double>>();
    c.display_resolution_x = display.first, c.display_resolution_y = display.second;
    for (const py::handle box : coding["boxes"].cast<py::list>()) {
      const auto pair = box.cast<py::tuple>();
      c.boxes.push_back({pair[0].cast<uint32_t>(), bytes_of(pair[1])});
    }
    const j2kfront::ImageView view = shape_.empty_view();
    py::gil_scoped_release unlocked;
    encoder_ = std::make_unique<j2kfront::Encoder>(s, c, view);
    info_ = encoder_->info();
  }

  py::dict info() const { return info_dict(info_); }

  // The file, and what the run measured.
  py::tuple encode(const py::array& image) {
    const j2kfront::ImageView view = shape_.view(image, "encoder");
    std::string file;
    j2k_encode_report r{};
    std::vector<double> psnr;
    {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> lock(mutex_);
      const auto [data, size] = encoder_->encode_in_place(view);
      file.assign(reinterpret_cast<const char*>(data), size);  // the encoder's buffer is reused by the next run
      r = encoder_->report();
      psnr.assign(r.layer_psnr, r.layer_psnr + r.layers);
    }
    return py::make_tuple(py::bytes(file), report_dict(r, psnr));
  }

  // Frames in flight (j2k_encoder_submit): the array is kept until its frame is waited for.
  j2k_ticket submit(const py::array& image) {
    const j2kfront::ImageView view = shape_.view(image, "encoder");
    j2k_ticket t = 0;
    {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> lock(mutex_);
      t = encoder_->submit(view);
    }
    held_[t] = image;
    return t;
  }
  py::tuple wait(j2k_ticket ticket) {
    std::string file;
    j2k_encode_report r{};
    std::vector<double> psnr;
    try {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> lock(mutex_);
      const auto [data, size] = encoder_->wait_in_place(ticket);
      file.assign(reinterpret_cast<const char*>(data), size);
      r = encoder_->report();
      psnr.assign(r.layer_psnr, r.layer_psnr + r.layers);
    } catch (...) {
      held_.erase(ticket);  // the frame is over, failed or not
      throw;
    }
    held_.erase(ticket);
    return py::make_tuple(py::bytes(file), report_dict(r, psnr));
  }

 private:
  static py::dict report_dict(const j2k_encode_report& r, const std::vector<double>& psnr) {
    py::dict report;
    report["front_ms"] = r.front_ms;
    report["tier1_ms"] = r.tier1_ms;
    report["rate_ms"] = r.rate_ms;
    report["tier2_ms"] = r.tier2_ms;
    report["layer_psnr"] = psnr;
    report["tier1_on"] = std::string(r.tier1_on ? r.tier1_on : "");
    // For timelines of frames in flight: when each stage began (ms on one steady clock of
    // the process) and which encoder coded the frame.
    report["front_begin_ms"] = r.front_begin_ms;
    report["tier1_begin_ms"] = r.tier1_begin_ms;
    report["rate_begin_ms"] = r.rate_begin_ms;
    report["tier2_begin_ms"] = r.tier2_begin_ms;
    report["lane"] = r.lane;
    return report;
  }

  ImageShape shape_;
  std::map<j2k_ticket, py::array> held_;  // the frames in flight's arrays
  std::unique_ptr<j2kfront::Encoder> encoder_;
  j2k_plan_info info_{};
  std::mutex mutex_;
};

// The DWT alone (j2k_dwt) on a 2-D int32 (5/3) or float32 (9/7) array, in place.
class PyDwt {
 public:
  explicit PyDwt(const py::dict& settings) {
    std::vector<int> levels;  // a DWT's levels come with each run
    const j2kfront::Settings s = settings_from(settings, 1, levels);
    py::gil_scoped_release unlocked;
    dwt_ = std::make_unique<j2kfront::Dwt>(s);
  }
  std::string description() const { return dwt_->description(); }
  void run(int direction, py::array& data, int64_t x0, int64_t y0, int levels) {
    const bool is53 = data.dtype().is(py::dtype::of<int32_t>());
    if (!(is53 || data.dtype().is(py::dtype::of<float>())) || data.ndim() != 2 || data.strides(1) != data.itemsize())
      throw py::value_error("the DWT works on a 2-D int32 (5/3) or float32 (9/7) array with contiguous rows");
    const j2k_rect rect{x0, y0, x0 + data.shape(1), y0 + data.shape(0)};
    void* p = data.mutable_data();
    const size_t bytes = extent_bytes(data);
    const ptrdiff_t stride = data.strides(0);
    py::gil_scoped_release unlocked;
    std::lock_guard<std::mutex> lock(mutex_);
    dwt_->run(static_cast<j2k_direction>(direction), is53 ? J2K_WAVELET_53 : J2K_WAVELET_97, p, bytes,
              stride, rect, levels);
  }

 private:
  std::unique_ptr<j2kfront::Dwt> dwt_;
  std::mutex mutex_;
};

// info(data): what a JPEG 2000 file's headers say (j2k_read_info), as a dict.
py::dict read_info(const py::bytes& data) {
  char* bytes = nullptr;
  py::ssize_t size = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &bytes, &size) != 0) throw py::error_already_set();
  j2k_stream_info i{};
  j2kfront::check(j2k_read_info(bytes, static_cast<size_t>(size), &i, nullptr, 0));
  std::vector<j2k_component_info> cs(static_cast<size_t>(i.num_components));
  j2kfront::check(j2k_read_info(bytes, static_cast<size_t>(size), &i, cs.data(), i.num_components));
  static const char* const kOrders[] = {"LRCP", "RLCP", "RPCL", "PCRL", "CPRL"};
  py::dict d;
  d["format"] = i.format == J2K_FORMAT_JP2 ? "jp2" : "j2k";
  d["origin"] = py::make_tuple(i.x0, i.y0);
  d["size"] = py::make_tuple(i.width, i.height);
  d["tile_origin"] = py::make_tuple(i.tile_x0, i.tile_y0);
  d["tile_size"] = py::make_tuple(i.tile_w, i.tile_h);
  d["tiles"] = py::make_tuple(i.tiles_x, i.tiles_y);
  d["tile_parts"] = i.tile_parts;
  d["layers"] = i.layers;
  d["progression"] = static_cast<int>(i.progression) >= 0 && static_cast<int>(i.progression) < 5
                         ? kOrders[static_cast<int>(i.progression)] : "?";
  d["mct"] = i.mct != 0;
  d["sop"] = i.sop != 0;
  d["eph"] = i.eph != 0;
  d["truncated"] = i.truncated != 0;
  if (i.format == J2K_FORMAT_JP2) {
    d["enum_cs"] = i.enum_cs;
    d["icc"] = i.icc != 0;
  }
  py::list components;
  for (const j2k_component_info& c : cs) {
    py::dict k;
    k["precision"] = c.precision;
    k["signed"] = c.is_signed != 0;
    k["subsampling"] = py::make_tuple(c.dx, c.dy);
    k["size"] = py::make_tuple(c.width, c.height);
    k["levels"] = c.levels;
    k["wavelet"] = c.reversible ? "5/3" : "9/7";
    k["block_size"] = py::make_tuple(c.block_w, c.block_h);
    k["modes"] = c.modes;
    components.append(k);
  }
  d["components"] = components;
  return d;
}

// decompress(data, settings): the components as numpy arrays (the decoder's samples copied
// out, at their own type), and the report.
py::tuple decompress(const py::bytes& data, const py::dict& d) {
  j2kfront::DecodeSettings s;
  s.reduce = d["reduce"].cast<int>();
  s.layers = d["layers"].cast<int>();
  s.tile = d["tile"].cast<int>();
  s.allow_partial = d["allow_partial"].cast<bool>() ? 1 : 0;
  s.threads = d["threads"].cast<int>();
  s.max_bytes = d["max_bytes"].cast<uint64_t>();
  s.backend = static_cast<j2k_backend>(d["backend"].cast<int>());
  s.device = d["device"].cast<int>();
  s.convert_colour = d["convert_colour"].cast<bool>() ? 1 : 0;
  s.keep_icc = d["keep_icc"].cast<bool>() ? 1 : 0;
  if (!d["region"].is_none()) {
    const auto r = d["region"].cast<std::vector<int64_t>>();
    if (r.size() != 4) throw py::value_error("region: (x0, y0, x1, y1)");
    s.region = j2k_rect{r[0], r[1], r[2], r[3]};
  }
  const std::vector<int> components = d["components"].is_none() ? std::vector<int>{} : d["components"].cast<std::vector<int>>();
  s.num_components = static_cast<int>(components.size());
  s.components = components.data();
  char* bytes = nullptr;
  py::ssize_t size = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &bytes, &size) != 0) throw py::error_already_set();
  j2kfront::Decoder decoder(s);
  j2k_image_view v{};
  j2k_decode_report r{};
  {
    py::gil_scoped_release unlocked;
    v = decoder.decode(bytes, static_cast<size_t>(size));
    r = decoder.report();
  }
  // A JP2 file's metadata, copied out of the decoder's buffers (valid until it goes).
  auto as_bytes = [](const uint8_t* p, size_t n) { return py::bytes(reinterpret_cast<const char*>(p), static_cast<py::ssize_t>(n)); };
  py::list boxes;
  for (int k = 0; k < r.num_boxes; ++k) boxes.append(py::make_tuple(r.boxes[k].type, as_bytes(r.boxes[k].data, r.boxes[k].size)));
  py::list planes;
  for (int c = 0; c < v.num_components; ++c) {
    const j2k_component_view& k = v.components[c];
    const py::ssize_t w = k.row_stride / k.pixel_stride, h = k.row_stride > 0 ? static_cast<py::ssize_t>(k.bytes) / k.row_stride : 0;
    py::dtype dtype = k.type == J2K_SAMPLE_U8    ? py::dtype::of<uint8_t>()
                      : k.type == J2K_SAMPLE_I8  ? py::dtype::of<int8_t>()
                      : k.type == J2K_SAMPLE_U16 ? py::dtype::of<uint16_t>()
                      : k.type == J2K_SAMPLE_I16 ? py::dtype::of<int16_t>()
                      : k.type == J2K_SAMPLE_U32 ? py::dtype::of<uint32_t>()
                                                 : py::dtype::of<int32_t>();
    py::array a(dtype, {h, w});
    if (k.bytes > 0) std::memcpy(a.mutable_data(), k.data, k.bytes);  // an empty component has no data
    planes.append(a);
  }
  py::dict report;
  report["truncated"] = r.truncated != 0;
  report["jp2"] = r.jp2 != 0;
  report["enum_cs"] = r.enum_cs;
  report["warnings"] = std::string(r.warnings ? r.warnings : "");
  report["ms"] = r.ms;
  report["icc_profile"] = r.icc_profile ? py::object(as_bytes(r.icc_profile, r.icc_profile_size)) : py::object(py::none());
  report["icc_applied"] = r.icc_applied != 0;
  report["resolution"] = r.resolution_x > 0 ? py::object(py::make_tuple(r.resolution_x, r.resolution_y)) : py::object(py::none());
  report["display_resolution"] =
      r.display_resolution_x > 0 ? py::object(py::make_tuple(r.display_resolution_x, r.display_resolution_y)) : py::object(py::none());
  report["boxes"] = boxes;
  report["origin"] = py::make_tuple(v.x0, v.y0);
  report["precision"] = [&] {
    py::list p;
    for (int c = 0; c < v.num_components; ++c) p.append(v.components[c].precision);
    return p;
  }();
  return py::make_tuple(planes, report);
}

// transcode(data, target, format, threads, max_bytes): the file re-coded between EBCOT (0) and
// HT (1) code-blocks (j2k_transcoder), as bytes, and the report.
py::tuple transcode(const py::bytes& data, int target, int format, int threads, uint64_t max_bytes) {
  j2kfront::TranscodeSettings s;
  s.target = static_cast<j2k_coder>(target);
  s.format = static_cast<j2k_file_format>(format);
  s.threads = threads;
  s.max_bytes = max_bytes;
  char* bytes = nullptr;
  py::ssize_t size = 0;
  if (PyBytes_AsStringAndSize(data.ptr(), &bytes, &size) != 0) throw py::error_already_set();
  j2kfront::Transcoder transcoder(s);
  std::pair<const uint8_t*, size_t> out{nullptr, 0};
  j2k_transcode_report r{};
  {
    py::gil_scoped_release unlocked;
    out = transcoder.transcode_in_place(bytes, static_cast<size_t>(size));
    r = transcoder.report();
  }
  py::dict report;
  report["blocks"] = r.blocks;
  report["layers"] = r.layers;
  report["warnings"] = std::string(r.warnings ? r.warnings : "");
  report["ms"] = r.ms;
  return py::make_tuple(py::bytes(reinterpret_cast<const char*>(out.first), static_cast<py::ssize_t>(out.second)), report);
}

}  // namespace

PYBIND11_MODULE(_j2kfront, m) {
  m.doc() = "j2kfront's native part; use the j2kfront package";
  // j2kfront.Error(RuntimeError) with the library's status name in .status. Never destroyed:
  // exception objects may outlive the module at interpreter exit.
  static auto* error = new py::exception<j2kfront::Error>(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const j2kfront::Error& e) {
      py::object instance = py::reinterpret_borrow<py::object>(error->ptr())(e.what());
      instance.attr("status") = j2k_status_name(e.status());
      PyErr_SetObject(error->ptr(), instance.ptr());
    }
  });

  m.def("version", [] { return std::string(j2k_version()); });
  m.def("decompress", &decompress);
  m.def("info", &read_info);
  m.def("transcode", &transcode);
  m.def("backend_available", [](int backend) {
    const char* why = nullptr;
    const bool ok = j2k_backend_available(static_cast<j2k_backend>(backend), &why) != 0;
    return py::make_tuple(ok, ok || !why ? std::string() : std::string(why));
  });

  py::class_<PyPlan>(m, "Plan")
      .def(py::init<const py::dict&, py::ssize_t, py::ssize_t, int, int, int, uint32_t, uint32_t>())
      .def("info", &PyPlan::info)
      .def("layout", &PyPlan::layout)
      .def("run", &PyPlan::run);
  py::class_<PyEncoder>(m, "Encoder")
      .def(py::init<const py::dict&, const py::dict&, py::ssize_t, py::ssize_t, int, int, int, uint32_t, uint32_t>())
      .def("info", &PyEncoder::info)
      .def("encode", &PyEncoder::encode)
      .def("submit", &PyEncoder::submit)
      .def("wait", &PyEncoder::wait);
  py::class_<PyDwt>(m, "Dwt")
      .def(py::init<const py::dict&>())
      .def("description", &PyDwt::description)
      .def("run", &PyDwt::run);
}
