// SPDX-License-Identifier: BSD-2-Clause
// j2kfront for C++: a thin, header-only RAII layer over the C interface (j2kfront.h).
// Failures throw j2kfront::Error carrying the j2k_status and the library's message.
//
//   j2kfront::Image image = ...;                   // or a view of your own buffers:
//   auto view = j2kfront::ImageView::interleaved(rgb, rgb_bytes, width, height, 3, J2K_SAMPLE_U8, 8);
//   j2kfront::Settings s;                          // 5/3, 5 levels, one tile, backend auto
//   s.tile_w = s.tile_h = 1024;
//   j2kfront::Plan plan(s, view);                  // allocates everything, once
//   plan.run(view);                                // any number of images of that shape
//   for (size_t i = 0; i < plan.tile_components(); ++i) {
//     j2k_tile_component tc = plan.tile_component(i);
//     for (int b = 0; b < tc.bands; ++b) { j2k_band band = plan.band(i, b); /* band.coefficients */ }
//   }
#ifndef J2KFRONT_HPP_
#define J2KFRONT_HPP_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "j2kfront/j2kfront.h"

namespace j2kfront {

class Error : public std::runtime_error {
 public:
  Error(j2k_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  j2k_status status() const { return status_; }

 private:
  j2k_status status_;
};

// Throws the last error of this thread when `status` is not J2K_OK.
inline void check(j2k_status status) {
  if (status != J2K_OK) throw Error(status, j2k_last_error());
}

struct Settings : j2k_settings {
  Settings() : j2k_settings() { j2k_settings_default(this); }
};

// An embedder's pool for j2kfront's CPU work from a C++ callable
// parallel_for(count, workers, body) that calls body(item, worker) for every item in
// [0, count), worker in [0, workers) (see j2k_thread_pool); it must outlive every plan and DWT
// made with it:
//   j2kfront::ThreadPool pool(my_parallel_for, my_thread_count);
//   settings.thread_pool = pool.get();
template <class ParallelFor>
class ThreadPool {
 public:
  ThreadPool(ParallelFor parallel_for, int workers) : parallel_for_(std::move(parallel_for)), pool_() {
    pool_.run = [](void* context, size_t count, int w, j2k_task_fn task, void* arg) {
      static_cast<ThreadPool*>(context)->parallel_for_(count, w, [task, arg](size_t item, int worker) {
        task(arg, item, worker);
      });
    };
    pool_.context = this;
    pool_.workers = workers;
  }
  ThreadPool(const ThreadPool&) = delete;  // pool_.context points here
  ThreadPool& operator=(const ThreadPool&) = delete;
  const j2k_thread_pool* get() const { return &pool_; }

 private:
  ParallelFor parallel_for_;
  j2k_thread_pool pool_;
};

// A view of an image in the caller's memory: the C view plus the storage of its component
// array, so that it can be passed around and copied freely.
class ImageView {
 public:
  ImageView() : view_() {}
  ImageView(uint32_t width, uint32_t height, std::vector<j2k_component_view> components,
            j2k_memory memory = J2K_MEMORY_HOST, int device = -1)
      : view_(), components_(std::move(components)) {
    view_.width = width;
    view_.height = height;
    view_.memory = memory;
    view_.device = device;
  }
  // `channels` components interleaved in one buffer of `bytes` bytes (gray, RGB, RGBA, ...).
  // row_stride 0: packed.
  static ImageView interleaved(const void* data, size_t bytes, uint32_t width, uint32_t height,
                               int channels, j2k_sample_type type, int precision,
                               ptrdiff_t row_stride = 0, j2k_memory memory = J2K_MEMORY_HOST,
                               int device = -1) {
    std::vector<j2k_component_view> c(static_cast<size_t>(channels > 0 ? channels : 0));
    if (row_stride == 0)
      row_stride = static_cast<ptrdiff_t>(width * j2k_sample_size(type) * c.size());
    if (!c.empty()) j2k_views_interleaved(c.data(), channels, data, bytes, type, precision, row_stride);
    return ImageView(width, height, std::move(c), memory, device);
  }
  // `channels` planes one after the other in one buffer of `bytes` bytes. row_stride 0:
  // packed rows; plane_stride 0: packed planes.
  static ImageView planar(const void* data, size_t bytes, uint32_t width, uint32_t height,
                          int channels, j2k_sample_type type, int precision,
                          ptrdiff_t row_stride = 0, ptrdiff_t plane_stride = 0,
                          j2k_memory memory = J2K_MEMORY_HOST, int device = -1) {
    std::vector<j2k_component_view> c(static_cast<size_t>(channels > 0 ? channels : 0));
    if (row_stride == 0) row_stride = static_cast<ptrdiff_t>(width * j2k_sample_size(type));
    if (plane_stride == 0) plane_stride = row_stride * static_cast<ptrdiff_t>(height);
    if (!c.empty())
      j2k_views_planar(c.data(), channels, data, bytes, type, precision, row_stride, plane_stride);
    return ImageView(width, height, std::move(c), memory, device);
  }

  ImageView& at_origin(uint32_t x0, uint32_t y0) {
    view_.x0 = x0;
    view_.y0 = y0;
    return *this;
  }
  std::vector<j2k_component_view>& components() { return components_; }
  const std::vector<j2k_component_view>& components() const { return components_; }
  const j2k_image_view* get() const {
    view_.num_components = static_cast<int>(components_.size());
    view_.components = components_.data();
    return &view_;
  }
  uint32_t x0() const { return view_.x0; }
  uint32_t y0() const { return view_.y0; }
  uint32_t width() const { return view_.width; }
  uint32_t height() const { return view_.height; }

 private:
  mutable j2k_image_view view_;
  std::vector<j2k_component_view> components_;
};

// An image that owns its samples: one packed buffer per component, each sample at its own
// width (U8/I8, U16/I16, U32/I32). What the image readers return.
class Image {
 public:
  struct Component {
    j2k_sample_type type = J2K_SAMPLE_U8;
    int precision = 8;
    int dx = 1, dy = 1;
    int64_t width = 0, height = 0;  // as the canvas implies (B-12)
    std::vector<unsigned char> bytes;  // height rows of width samples, packed

    size_t sample_size() const { return j2k_sample_size(type); }
    ptrdiff_t row_stride() const { return static_cast<ptrdiff_t>(width * sample_size()); }
    template <class T>
    T* row(int64_t y) {
      return reinterpret_cast<T*>(bytes.data() + y * row_stride());
    }
    template <class T>
    const T* row(int64_t y) const {
      return reinterpret_cast<const T*>(bytes.data() + y * row_stride());
    }
  };

  uint32_t x0 = 0, y0 = 0, width = 0, height = 0;
  std::vector<Component> components;

  // Appends a component of `type` sized for the image area and subsampling, zero-filled.
  Component& add_component(j2k_sample_type type, int precision, int dx = 1, int dy = 1) {
    Component c;
    c.type = type;
    c.precision = precision;
    c.dx = dx;
    c.dy = dy;
    auto cdiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
    c.width = cdiv(int64_t{x0} + width, dx) - cdiv(x0, dx);
    c.height = cdiv(int64_t{y0} + height, dy) - cdiv(y0, dy);
    c.bytes.assign(static_cast<size_t>(c.width * c.height) * c.sample_size(), 0);
    components.push_back(std::move(c));
    return components.back();
  }

  ImageView view() const {
    std::vector<j2k_component_view> v;
    for (const Component& c : components) {
      j2k_component_view k{};
      k.data = c.bytes.data();
      k.type = c.type;
      k.precision = c.precision;
      k.dx = c.dx;
      k.dy = c.dy;
      k.row_stride = c.row_stride();
      k.pixel_stride = static_cast<ptrdiff_t>(c.sample_size());
      k.bytes = c.bytes.size();
      v.push_back(k);
    }
    ImageView out(width, height, std::move(v));
    out.at_origin(x0, y0);
    return out;
  }
};

// The front stage for one image shape: allocates at construction, never per image.
class Plan {
 public:
  Plan(const j2k_settings& settings, const ImageView& shape) {
    j2k_plan* p = nullptr;
    check(j2k_plan_create(&settings, shape.get(), &p));
    plan_.reset(p);
  }

  j2k_plan_info info() const {
    j2k_plan_info i{};
    check(j2k_plan_get_info(plan_.get(), &i));
    return i;
  }
  j2k_memory_report memory() const {
    j2k_memory_report m{};
    check(j2k_plan_get_memory(plan_.get(), &m));
    return m;
  }
  size_t tile_components() const { return info().tile_components; }
  j2k_tile_component tile_component(size_t index) const {
    j2k_tile_component t{};
    check(j2k_plan_get_tile_component(plan_.get(), index, &t));
    return t;
  }
  j2k_band band(size_t tile_component, int band) const {
    j2k_band b{};
    check(j2k_plan_get_band(plan_.get(), tile_component, band, &b));
    return b;
  }
  // `data`: `bytes` bytes; see j2k_plan_set_output.
  void set_output(size_t index, void* data, size_t bytes, ptrdiff_t row_stride,
                  j2k_memory memory = J2K_MEMORY_HOST) {
    check(j2k_plan_set_output(plan_.get(), index, data, bytes, row_stride, memory));
  }
  void run(const ImageView& image) { check(j2k_plan_run(plan_.get(), image.get())); }
  // Frames in flight (see j2k_plan_submit): the image must outlive wait(ticket).
  j2k_ticket submit(const ImageView& image) {
    j2k_ticket t = 0;
    check(j2k_plan_submit(plan_.get(), image.get(), &t));
    return t;
  }
  void wait(j2k_ticket ticket) { check(j2k_plan_wait(plan_.get(), ticket)); }
  // CUDA: order frames against the caller's streams (see j2k_plan_submit_after).
  j2k_ticket submit_after(const ImageView& image, void* cuda_stream) {
    j2k_ticket t = 0;
    check(j2k_plan_submit_after(plan_.get(), image.get(), cuda_stream, &t));
    return t;
  }
  void signal(j2k_ticket ticket, void* cuda_stream) { check(j2k_plan_signal(plan_.get(), ticket, cuda_stream)); }
  // A timeline of the device's work (see j2k_plan_set_tracing).
  void trace(bool on) { check(j2k_plan_set_tracing(plan_.get(), on ? 1 : 0)); }
  std::vector<j2k_span> timeline() const {
    size_t n = 0;
    check(j2k_plan_get_timeline(plan_.get(), nullptr, 0, &n));
    std::vector<j2k_span> spans(n);
    check(j2k_plan_get_timeline(plan_.get(), spans.data(), n, &n));
    spans.resize(n);
    return spans;
  }
  j2k_stage_times times() const {
    j2k_stage_times t{};
    check(j2k_plan_get_times(plan_.get(), &t));
    return t;
  }
  j2k_plan* get() const { return plan_.get(); }

 private:
  struct Deleter {
    void operator()(j2k_plan* p) const { j2k_plan_destroy(p); }
  };
  std::unique_ptr<j2k_plan, Deleter> plan_;
};

// A JP2 file's box beside the image (j2k_box), owning its contents: a UUID box's start with its
// 16-byte UUID (J2K_UUID_XMP, J2K_UUID_EXIF, J2K_UUID_GEOJP2, ...).
struct Box {
  uint32_t type = J2K_BOX_UUID;  // J2K_BOX_UUID, J2K_BOX_XML, ...
  std::vector<uint8_t> data;
};

// A UUID box of `uuid` (16 bytes, e.g. J2K_UUID_XMP) around `payload`.
inline Box uuid_box(const char* uuid, const std::vector<uint8_t>& payload) {
  Box b;
  b.type = J2K_BOX_UUID;
  b.data.resize(16 + payload.size());  // sized once: GCC 12 misreads an insert after 16 bytes
  std::copy(uuid, uuid + 16, b.data.begin());
  std::copy(payload.begin(), payload.end(), b.data.begin() + 16);
  return b;
}

// How an encoder codes (j2k_coding), owning its lists: set the vectors and strings, not the
// C struct's pointers (get() points them here).
struct Coding {
  j2k_file_format format = J2K_FORMAT_J2K;
  std::vector<double> rates;  // compression ratio per layer (as opj_compress -r), or
  std::vector<double> psnr;   // PSNR per layer (as -q); both empty: one lossless layer
  int block_w = 64, block_h = 64;
  std::vector<std::pair<int, int>> precincts;  // (w, h) from the highest resolution
  j2k_progression progression = J2K_LRCP;
  unsigned modes = 0;         // J2K_MODE_* bits
  bool sop = false, eph = false, plt = false, tlm = false;
  char tile_parts = 0;        // 0, 'R', 'L' or 'C'
  int guard_bits = -1;
  std::string comment;
  j2k_profile profile = J2K_PROFILE_NONE;
  double frame_rate = 0;  // the profile's frames a second (cinema 0: 24; IMF 0: none)
  int imf_mainlevel = 0, imf_sublevel = 0;
  bool last_is_alpha = false;  // the last component is an alpha channel (JP2: cdef)
  uint64_t max_bytes = 0;     // host memory the encoder may take (0: no limit)
  double qstep = 0;           // the 9/7's base step as a fraction of the range (0: one sample value)
  int frames_in_flight = 0;   // Encoder::submit: encoders side by side (0: 2)
  std::vector<int> devices;   // Encoder::submit: the GPUs they run on in turn (empty: the settings')
  std::vector<j2k_poc> pocs;  // progression order changes of single tiles (as opj_compress -POC)
  int roi_component = 0, roi_shift = 0;  // RGN's max-shift over one component (as -ROI; 0: none)
  // JP2 only: an ICC profile (colr method 2), the capture and default display resolutions in
  // grid points per metre (res/resc, res/resd; 0, 0: none) and boxes after the JP2 Header box
  // (XMP, Exif, XML, ...).
  std::vector<uint8_t> icc_profile;
  double resolution_x = 0, resolution_y = 0;
  std::vector<Box> boxes;
  double display_resolution_x = 0, display_resolution_y = 0;
  int device_turns = 0;       // Encoder::submit on a GPU: its encoders in device stages at once (0: any)

  const j2k_coding* get() const {
    j2k_coding_default(&c_);
    c_.format = format;
    c_.layers = static_cast<int>(rates.empty() ? (psnr.empty() ? 1 : psnr.size()) : rates.size());
    c_.rates = rates.empty() ? nullptr : rates.data();
    c_.psnr = psnr.empty() ? nullptr : psnr.data();
    c_.block_w = block_w;
    c_.block_h = block_h;
    flat_.clear();
    for (const auto& p : precincts) flat_.insert(flat_.end(), {p.first, p.second});
    c_.num_precincts = static_cast<int>(precincts.size());
    c_.precincts = flat_.empty() ? nullptr : flat_.data();
    c_.progression = progression;
    c_.modes = modes;
    c_.sop = sop, c_.eph = eph, c_.plt = plt, c_.tlm = tlm;
    c_.tile_parts = tile_parts;
    c_.guard_bits = guard_bits;
    c_.comment = comment.c_str();
    c_.profile = profile;
    c_.frame_rate = frame_rate;
    c_.imf_mainlevel = imf_mainlevel;
    c_.imf_sublevel = imf_sublevel;
    c_.last_is_alpha = last_is_alpha ? 1 : 0;
    c_.max_bytes = max_bytes;
    c_.qstep = qstep;
    c_.frames_in_flight = frames_in_flight;
    c_.devices = devices.empty() ? nullptr : devices.data();
    c_.num_devices = static_cast<int>(devices.size());
    c_.num_pocs = static_cast<int>(pocs.size());
    c_.pocs = pocs.empty() ? nullptr : pocs.data();
    c_.roi_component = roi_component;
    c_.roi_shift = roi_shift;
    c_.icc_profile = icc_profile.empty() ? nullptr : icc_profile.data();
    c_.icc_profile_size = icc_profile.size();
    c_.resolution_x = resolution_x;
    c_.resolution_y = resolution_y;
    box_views_.clear();
    for (const Box& b : boxes) box_views_.push_back({b.type, b.data.empty() ? nullptr : b.data.data(), b.data.size()});
    c_.num_boxes = static_cast<int>(box_views_.size());
    c_.boxes = box_views_.empty() ? nullptr : box_views_.data();
    c_.display_resolution_x = display_resolution_x;
    c_.display_resolution_y = display_resolution_y;
    c_.device_turns = device_turns;
    return &c_;
  }

 private:
  mutable j2k_coding c_{};
  mutable std::vector<int> flat_;
  mutable std::vector<j2k_box> box_views_;
};

// Compress images of one shape to JPEG 2000 files in memory:
//   j2kfront::Coding coding;
//   coding.rates = {40, 20, 10};                   // three quality layers
//   j2kfront::Encoder encoder(settings, coding, view);
//   std::vector<uint8_t> file = encoder.encode(view);
// or, frames in flight: j2k_ticket t = encoder.submit(view); ... file = encoder.wait(t);
// Or an image larger than memory, a row of tiles at a time (j2k_encoder_create_by_rows):
//   j2kfront::Encoder encoder(settings, coding, shape, j2kfront::Encoder::by_tile_rows);
//   encoder.encode_by_rows([&](uint32_t y0, uint32_t rows) { return view_of_rows(y0, rows); },
//                          [&](const uint8_t* data, size_t size) { out.write(data, size); });
class Encoder {
 public:
  struct ByTileRows {};
  static constexpr ByTileRows by_tile_rows{};

  Encoder(const j2k_settings& settings, const Coding& coding, const ImageView& shape) {
    j2k_encoder* e = nullptr;
    check(j2k_encoder_create(&settings, coding.get(), shape.get(), &e));
    encoder_.reset(e);
  }
  // By rows: the shape's samples are not read.
  Encoder(const j2k_settings& settings, const Coding& coding, const ImageView& shape, ByTileRows) {
    j2k_encoder* e = nullptr;
    check(j2k_encoder_create_by_rows(&settings, coding.get(), shape.get(), &e));
    encoder_.reset(e);
  }
  // By rows: read(y0, rows) gives the view of the image's canvas rows [y0, y0 + rows), its
  // samples valid until the next call; write(data, size) takes the file's next bytes. Returns
  // the file's size. What read or write throw comes out of here as it was thrown.
  using RowReader = std::function<ImageView(uint32_t y0, uint32_t rows)>;
  using ByteWriter = std::function<void(const uint8_t* data, size_t size)>;
  uint64_t encode_by_rows(const RowReader& read, const ByteWriter& write) {
    struct Calls {
      const RowReader& read;
      const ByteWriter& write;
      ImageView band;  // the last row's view, kept until the next call
      std::exception_ptr error;
    } calls{read, write, ImageView(), nullptr};
    auto on_read = [](void* user, uint32_t y0, uint32_t rows, j2k_image_view* band) -> j2k_status {
      Calls& c = *static_cast<Calls*>(user);
      try {
        c.band = c.read(y0, rows);
        *band = *c.band.get();
        return J2K_OK;
      } catch (...) {
        c.error = std::current_exception();
        return J2K_IO_ERROR;
      }
    };
    auto on_write = [](void* user, const uint8_t* data, size_t size) -> j2k_status {
      Calls& c = *static_cast<Calls*>(user);
      try {
        c.write(data, size);
        return J2K_OK;
      } catch (...) {
        c.error = std::current_exception();
        return J2K_IO_ERROR;
      }
    };
    uint64_t size = 0;
    const j2k_status status = j2k_encoder_run_by_rows(encoder_.get(), on_read, &calls, on_write, &calls, &size);
    if (calls.error) std::rethrow_exception(calls.error);
    check(status);
    return size;
  }
  // The file's bytes, copied out.
  std::vector<uint8_t> encode(const ImageView& image) {
    const uint8_t* data = nullptr;
    size_t size = 0;
    check(j2k_encoder_run(encoder_.get(), image.get(), &data, &size));
    return std::vector<uint8_t>(data, data + size);
  }
  // The same without a copy: valid until the next encode.
  std::pair<const uint8_t*, size_t> encode_in_place(const ImageView& image) {
    std::pair<const uint8_t*, size_t> out{nullptr, 0};
    check(j2k_encoder_run(encoder_.get(), image.get(), &out.first, &out.second));
    return out;
  }
  // Frames in flight (j2k_encoder_submit): the image's samples stay valid until its wait.
  j2k_ticket submit(const ImageView& image) {
    j2k_ticket t = 0;
    check(j2k_encoder_submit(encoder_.get(), image.get(), &t));
    return t;
  }
  std::vector<uint8_t> wait(j2k_ticket ticket) {
    const auto [data, size] = wait_in_place(ticket);
    return std::vector<uint8_t>(data, data + size);
  }
  // The same without a copy: valid until the next wait or encode.
  std::pair<const uint8_t*, size_t> wait_in_place(j2k_ticket ticket) {
    std::pair<const uint8_t*, size_t> out{nullptr, 0};
    check(j2k_encoder_wait(encoder_.get(), ticket, &out.first, &out.second));
    return out;
  }
  j2k_encode_report report() const {
    j2k_encode_report r{};
    check(j2k_encoder_get_report(encoder_.get(), &r));
    return r;
  }
  j2k_plan_info info() const {
    j2k_plan_info i{};
    check(j2k_encoder_get_plan_info(encoder_.get(), &i));
    return i;
  }
  j2k_encoder* get() const { return encoder_.get(); }

 private:
  struct Deleter {
    void operator()(j2k_encoder* e) const { j2k_encoder_destroy(e); }
  };
  std::unique_ptr<j2k_encoder, Deleter> encoder_;
};

// Decode settings with the defaults of j2k_decode_settings_default.
struct DecodeSettings : j2k_decode_settings {
  DecodeSettings() : j2k_decode_settings() { j2k_decode_settings_default(this); }
};

// A codestream or JP2 file back to its image (j2k_decoder_run).
class Decoder {
 public:
  explicit Decoder(const j2k_decode_settings& settings = DecodeSettings()) {
    j2k_decoder* d = nullptr;
    check(j2k_decoder_create(&settings, &d));
    decoder_.reset(d);
  }
  // Views of the decoder's buffers: valid until the next decode or the decoder's end.
  j2k_image_view decode(const void* data, size_t size) {
    j2k_image_view image{};
    check(j2k_decoder_run(decoder_.get(), data, size, &image));
    return image;
  }
  // The same copied into an Image of its own.
  Image decode_image(const void* data, size_t size) {
    const j2k_image_view v = decode(data, size);
    Image out;
    out.x0 = v.x0, out.y0 = v.y0, out.width = v.width, out.height = v.height;
    for (int i = 0; i < v.num_components; ++i) {
      const j2k_component_view& k = v.components[i];
      Image::Component c;
      c.type = k.type, c.precision = k.precision, c.dx = k.dx, c.dy = k.dy;
      c.width = k.row_stride / k.pixel_stride;
      c.height = k.row_stride > 0 ? static_cast<int64_t>(k.bytes) / k.row_stride : 0;
      const auto* p = static_cast<const unsigned char*>(k.data);
      c.bytes.assign(p, p + k.bytes);
      out.components.push_back(std::move(c));
    }
    return out;
  }
  // j2k_decoder_run_rows: `take(image, first_row, rows)` for each band of rows, top to bottom;
  // what it throws ends the decode and comes out of this call.
  template <class Take>
  void decode_rows(const void* data, size_t size, Take&& take) {
    struct Call {
      Take& take;
      std::exception_ptr thrown;
      static j2k_status thunk(void* user, const j2k_image_view* image, uint32_t first_row, uint32_t rows) {
        Call& call = *static_cast<Call*>(user);
        try {
          call.take(*image, first_row, rows);
          return J2K_OK;
        } catch (...) {
          call.thrown = std::current_exception();
          return J2K_IO_ERROR;
        }
      }
    } call{take, nullptr};
    const j2k_status status = j2k_decoder_run_rows(decoder_.get(), data, size, &Call::thunk, &call);
    if (call.thrown) std::rethrow_exception(call.thrown);
    check(status);
  }
  j2k_decode_report report() const {
    j2k_decode_report r{};
    check(j2k_decoder_get_report(decoder_.get(), &r));
    return r;
  }
  j2k_decoder* get() const { return decoder_.get(); }

 private:
  struct Deleter {
    void operator()(j2k_decoder* d) const { j2k_decoder_destroy(d); }
  };
  std::unique_ptr<j2k_decoder, Deleter> decoder_;
};

// Transcode settings with the defaults of j2k_transcode_settings_default.
struct TranscodeSettings : j2k_transcode_settings {
  TranscodeSettings() : j2k_transcode_settings() { j2k_transcode_settings_default(this); }
};

// A codestream or JP2 file re-coded between EBCOT and HT code-blocks (j2k_transcoder_run).
//
//   j2kfront::TranscodeSettings s;
//   s.target = J2K_CODER_HT;
//   s.format = J2K_FORMAT_JP2;                                  // a .jph file
//   std::vector<uint8_t> jph = j2kfront::Transcoder(s).transcode(j2k.data(), j2k.size());
class Transcoder {
 public:
  explicit Transcoder(const j2k_transcode_settings& settings = TranscodeSettings()) {
    j2k_transcoder* t = nullptr;
    check(j2k_transcoder_create(&settings, &t));
    transcoder_.reset(t);
  }
  // The new file's bytes, copied out.
  std::vector<uint8_t> transcode(const void* data, size_t size) {
    const std::pair<const uint8_t*, size_t> out = transcode_in_place(data, size);
    return std::vector<uint8_t>(out.first, out.first + out.second);
  }
  // The same without a copy: valid until the next transcode.
  std::pair<const uint8_t*, size_t> transcode_in_place(const void* data, size_t size) {
    std::pair<const uint8_t*, size_t> out{nullptr, 0};
    check(j2k_transcoder_run(transcoder_.get(), data, size, &out.first, &out.second));
    return out;
  }
  j2k_transcode_report report() const {
    j2k_transcode_report r{};
    check(j2k_transcoder_get_report(transcoder_.get(), &r));
    return r;
  }
  j2k_transcoder* get() const { return transcoder_.get(); }

 private:
  struct Deleter {
    void operator()(j2k_transcoder* t) const { j2k_transcoder_destroy(t); }
  };
  std::unique_ptr<j2k_transcoder, Deleter> transcoder_;
};

// The DWT alone, on host buffers, in place.
class Dwt {
 public:
  explicit Dwt(const j2k_settings& settings = Settings()) {
    j2k_dwt* d = nullptr;
    check(j2k_dwt_create(&settings, &d));
    dwt_.reset(d);
  }
  j2k_backend backend() const {
    j2k_backend b = J2K_BACKEND_AUTO;
    check(j2k_dwt_get_info(dwt_.get(), &b, nullptr));
    return b;
  }
  std::string description() const {
    const char* d = nullptr;
    check(j2k_dwt_get_info(dwt_.get(), nullptr, &d));
    return d ? d : "";
  }
  // `count` coefficients at `data`, rows `stride` coefficients apart.
  void forward(int32_t* data, size_t count, ptrdiff_t stride, const j2k_rect& rect, int levels) {
    run(J2K_FORWARD, J2K_WAVELET_53, data, count * 4, stride * 4, rect, levels);
  }
  void inverse(int32_t* data, size_t count, ptrdiff_t stride, const j2k_rect& rect, int levels) {
    run(J2K_INVERSE, J2K_WAVELET_53, data, count * 4, stride * 4, rect, levels);
  }
  void forward(float* data, size_t count, ptrdiff_t stride, const j2k_rect& rect, int levels) {
    run(J2K_FORWARD, J2K_WAVELET_97, data, count * 4, stride * 4, rect, levels);
  }
  void inverse(float* data, size_t count, ptrdiff_t stride, const j2k_rect& rect, int levels) {
    run(J2K_INVERSE, J2K_WAVELET_97, data, count * 4, stride * 4, rect, levels);
  }
  // Sizes and strides in bytes.
  void run(j2k_direction direction, j2k_wavelet wavelet, void* data, size_t bytes,
           ptrdiff_t row_stride, const j2k_rect& rect, int levels) {
    check(j2k_dwt_run(dwt_.get(), direction, wavelet, data, bytes, row_stride, &rect, levels));
  }

 private:
  struct Deleter {
    void operator()(j2k_dwt* d) const { j2k_dwt_destroy(d); }
  };
  std::unique_ptr<j2k_dwt, Deleter> dwt_;
};

}  // namespace j2kfront

#endif  // J2KFRONT_HPP_
