// SPDX-License-Identifier: BSD-2-Clause
#include "pipeline/plan.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>

#include "common/buffer_size.hpp"
#include "common/c_enum.hpp"
#include "common/error.hpp"
#include "common/sample_type.hpp"
#include "transform/common/coefficient_range.hpp"
#include "common/parallel/parallel_for.hpp"

namespace j2k {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

[[noreturn]] void invalid(const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); }

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The component's size on its own grid (B-12 applied to the image area).
int64_t comp_width(const j2k_image_view& v, const j2k_component_view& c) {
  return ceil_div(int64_t{v.x0} + v.width, c.dx) - ceil_div(v.x0, c.dx);
}
int64_t comp_height(const j2k_image_view& v, const j2k_component_view& c) {
  return ceil_div(int64_t{v.y0} + v.height, c.dy) - ceil_div(v.y0, c.dy);
}


// How many components from `c` on interleave whole pixels of one buffer (RGB, RGBA: component
// i at byte i * sample size, the pixel stride their total, one row stride, type and
// subsampling), so that they can be uploaded as one block of rows; 1 when they do not.
int interleaved_group(const j2k_image_view& v, int c) {
  const j2k_component_view& a = v.components[c];
  const auto size = static_cast<ptrdiff_t>(j2k_sample_size(a.type));
  const ptrdiff_t group = a.pixel_stride / size;
  if (group < 2 || a.pixel_stride % size != 0 || c + group > v.num_components) return 1;
  for (ptrdiff_t i = 1; i < group; ++i) {
    const j2k_component_view& b = v.components[c + i];
    if (b.type != a.type || b.dx != a.dx || b.dy != a.dy || b.row_stride != a.row_stride ||
        b.pixel_stride != a.pixel_stride ||
        static_cast<const char*>(b.data) != static_cast<const char*>(a.data) + i * size)
      return 1;
  }
  return static_cast<int>(group);
}

constexpr size_t kPlaneAlign = 256;  // every plan-owned plane starts on its own 256 bytes
size_t align_up(size_t n) { return (n + kPlaneAlign - 1) / kPlaneAlign * kPlaneAlign; }

}  // namespace

CanvasSpec canvas_spec(const PlanSettings& s, const j2k_image_view& shape) {
  check_view(shape, false);
  if (s.levels < 0 || s.levels > kMaxLevels)
    invalid("levels must be 0.." + std::to_string(kMaxLevels) + ", got " + std::to_string(s.levels));
  if (!s.component_levels.empty() && s.component_levels.size() != static_cast<size_t>(shape.num_components))
    invalid("component levels: " + std::to_string(s.component_levels.size()) + " given for " +
            std::to_string(shape.num_components) + " components");
  for (size_t c = 0; c < s.component_levels.size(); ++c)
    if (s.component_levels[c] < 0 || s.component_levels[c] > kMaxLevels)
      invalid("component " + std::to_string(c) + "'s levels must be 0.." + std::to_string(kMaxLevels) + ", got " +
              std::to_string(s.component_levels[c]));
  if (s.tile_w < 0 || s.tile_h < 0 || (s.tile_w == 0) != (s.tile_h == 0))
    invalid("tile size must be two positive numbers, or 0,0 for one tile");
  if (s.tile_x0 < 0 || s.tile_y0 < 0) invalid("tile origin must be non-negative");
  CanvasSpec c;
  c.image_x0 = shape.x0;
  c.image_y0 = shape.y0;
  c.image_x1 = int64_t{shape.x0} + shape.width;
  c.image_y1 = int64_t{shape.y0} + shape.height;
  c.tile_x0 = s.tile_x0;
  c.tile_y0 = s.tile_y0;
  // No tile size: one tile from the tile origin to the end of the image.
  c.tile_w = s.tile_w > 0 ? s.tile_w : c.image_x1 - s.tile_x0;
  c.tile_h = s.tile_h > 0 ? s.tile_h : c.image_y1 - s.tile_y0;
  for (int i = 0; i < shape.num_components; ++i)
    c.components.push_back({shape.components[i].dx, shape.components[i].dy});
  return c;
}

void check_view(const j2k_image_view& v, bool need_data) {
  if (v.width == 0 || v.height == 0) invalid("the image is empty (width and height must be positive)");
  if (int64_t{v.x0} + v.width > kMaxCoordinate || int64_t{v.y0} + v.height > kMaxCoordinate)
    invalid("the image extends past 2^32-1 on the canvas (origin + size)");
  const int memory = c_enum(v.memory);
  if (memory != J2K_MEMORY_HOST && memory != J2K_MEMORY_PINNED && memory != J2K_MEMORY_DEVICE)
    invalid("image memory " + std::to_string(memory) + " is not a j2k_memory value");
  if (v.num_components < 1 || v.num_components > kMaxComponents)
    invalid("an image has 1.." + std::to_string(kMaxComponents) + " components, got " +
            std::to_string(v.num_components));
  if (v.components == nullptr) invalid("the image's component array is null");
  for (int i = 0; i < v.num_components; ++i) {
    const j2k_component_view& c = v.components[i];
    const std::string name = "component " + std::to_string(i) + ": ";
    const int type = c_enum(c.type);
    if (type < J2K_SAMPLE_U8 || type >= J2K_SAMPLE_F32)
      invalid(name + "sample type " + std::to_string(type) +
              " is not an image sample type (U8, I8, U16, I16, U32, I32)");
    const size_t size = j2k_sample_size(c.type);
    const int bits = std::min(static_cast<int>(size * 8), kMaxPrecision);
    if (c.precision < 1 || c.precision > bits)
      invalid(name + "precision must be 1.." + std::to_string(bits) + " for " + sample_type_name(c.type) +
              " samples, got " + std::to_string(c.precision));
    if (c.dx < 1 || c.dx > kMaxSubsampling || c.dy < 1 || c.dy > kMaxSubsampling)
      invalid(name + "subsampling must be 1..255, got " + std::to_string(c.dx) + "," + std::to_string(c.dy));
    if (!need_data) continue;
    if (c.data == nullptr) invalid(name + "data is null");
    const auto s = static_cast<ptrdiff_t>(size);
    if (c.pixel_stride < s || c.pixel_stride % s != 0)
      invalid(name + "pixel stride " + std::to_string(c.pixel_stride) +
              " must be a positive multiple of the sample size " + std::to_string(size));
    const int64_t w = comp_width(v, c);
    if (c.row_stride % s != 0 || c.row_stride < (w - 1) * c.pixel_stride + s)
      invalid(name + "row stride " + std::to_string(c.row_stride) + " is too small for " +
              std::to_string(w) + " samples " + std::to_string(c.pixel_stride) +
              " bytes apart (or not a multiple of the sample size)");
    if (reinterpret_cast<uintptr_t>(c.data) % size != 0)
      invalid(name + "data is not aligned to its " + std::to_string(size) + "-byte samples");
    check_buffer_size("component " + std::to_string(i), w, comp_height(v, c), c.row_stride, c.pixel_stride, s,
                      c.bytes);
  }
}

// The plan's own coefficients: one allocation from the queue, released through it.
struct Plan::OwnedBuffer {
  Queue* queue = nullptr;
  void* data = nullptr;
  size_t bytes = 0;
  j2k_memory memory = J2K_MEMORY_HOST;
  ~OwnedBuffer() {
    if (data) queue->release(data, memory);
  }
};

Plan::Plan(const PlanSettings& settings, const j2k_image_view& shape)
    : settings_(settings), shape_(shape), canvas_(canvas_spec(settings, shape)) {
  shape_components_.assign(shape.components, shape.components + shape.num_components);
  for (j2k_component_view& c : shape_components_) c.data = nullptr;  // the shape keeps no pointers
  shape_.components = shape_components_.data();
  const int nc = shape.num_components;

  // MCT on components 0..2 when asked (or, with Auto, when possible): they must share one
  // subsampling so that their samples line up, and one number of levels (the standard allows
  // others, but OpenJPEG refuses to decode them).
  mct_ = settings.mct == Mct::On || (settings.mct == Mct::Auto && nc >= 3);
  if (mct_) {
    if (nc < 3)
      invalid("MCT needs at least 3 components, the image has " + std::to_string(nc));
    for (size_t c = 1; c < 3; ++c) {
      if (shape_components_[c].dx != shape_components_[0].dx || shape_components_[c].dy != shape_components_[0].dy) {
        if (settings.mct == Mct::On) invalid("MCT needs components 0..2 with the same subsampling");
        mct_ = false;
      }
      if (component_levels(settings, c) != component_levels(settings, 0)) {
        if (settings.mct == Mct::On) invalid("MCT needs components 0..2 with the same levels (OpenJPEG decodes no others)");
        mct_ = false;
      }
    }
  }

  if (settings.narrow_output) check_narrow_output();

  queues_.push_back(make_queue(settings.backend));
  // On the CPU, many tiles run side by side, one thread each (a team inside a small tile costs
  // more than it saves): one single-threaded queue per worker thread, when there are at least
  // twice as many tiles as workers and the caller left the queue count to the plan.
  const int workers = worker_count(settings.backend.threads);
  if (!queues_[0]->asynchronous() && settings.streams == 0 && workers > 1 && canvas_.tile_count() >= 2 * workers) {
    BackendOptions one = settings.backend;
    one.threads = 1;
    queues_.clear();
    for (int i = 0; i < workers; ++i) queues_.push_back(make_queue(one));
    tiles_side_by_side_ = true;
  }
  Queue& lead = *queues_[0];
  const bool upload = !lead.reads(shape.memory);
  if (upload && shape.memory == J2K_MEMORY_DEVICE)
    invalid(std::string("the ") + backend_name(lead.kind()) +
            " backend cannot read samples in CUDA device memory");

  // Every tile-component's geometry, and what the largest tile needs of the queue.
  QueueNeeds needs;
  needs.components = nc;
  const size_t coeff = 4;  // int32 or float32 while transforming
  const size_t out_size = j2k_sample_size(coefficient_type());
  size_t owned_bytes = 0;
  for (int64_t t = 0; t < canvas_.tile_count(); ++t) {
    size_t staging = 0, work = 0, narrow = 0;
    for (int c = 0; c < nc; ++c) {
      PlanTileComponent tc;
      tc.tile = t;
      tc.component = c;
      tc.rect = canvas_.tile_component(t, c);
      tc.levels = component_levels(settings, static_cast<size_t>(c));
      tc.bands = band_layout(tc.rect, tc.levels);
      const auto n = static_cast<size_t>(tc.rect.width() * tc.rect.height());
      staging += align_up(n * j2k_sample_size(shape_components_[c].type));
      work += align_up(n * coeff);
      narrow += align_up(n * 2);
      needs.max_plane_bytes = std::max(needs.max_plane_bytes, n * coeff);
      needs.dwt_workspace = std::max(needs.dwt_workspace,
                                     lead.dwt_workspace_bytes(settings.wavelet, tc.rect, tc.levels));
      own_offset_.push_back(owned_bytes);
      owned_bytes += align_up(n * out_size);
      tcs_.push_back(std::move(tc));
    }
    if (upload) needs.staging_bytes = std::max(needs.staging_bytes, staging);
    if (!lead.in_place()) needs.work_bytes = std::max(needs.work_bytes, work);
    // Int32 planes in queue memory: for out-of-place DWTs, and for narrowing to int16.
    if (!lead.in_place() || settings.narrow_output) needs.output_bytes = std::max(needs.output_bytes, work);
    if (settings.narrow_output) needs.narrow_bytes = std::max(needs.narrow_bytes, narrow);
  }
  // More queues only where they overlap work: by default 3 on asynchronous backends, or 2 for
  // an image of one tile (so that consecutive frames overlap); on the CPU, those made above.
  const int64_t tiles = canvas_.tile_count();
  const auto count = static_cast<size_t>(settings.streams > 0 ? settings.streams
                                         : lead.asynchronous() ? std::min<int64_t>(3, std::max<int64_t>(tiles, 2))
                                                               : 1);
  while (queues_.size() < count) queues_.push_back(make_queue(settings.backend));
  for (auto& q : queues_) q->reserve(needs);
  check_host_memory(owned_bytes);

  owned_ = std::make_unique<OwnedBuffer>();
  owned_->queue = &lead;
  owned_->memory = settings.output_memory;
  owned_->data = lead.allocate(owned_bytes, owned_->memory);
  owned_->bytes = owned_bytes;
  for (size_t i = 0; i < tcs_.size(); ++i) tcs_[i].home = own_home(i);

  // One lane of per-tile state for each queue (tiles side by side on the CPU use them at once).
  Lane lane;
  lane.samples.in.resize(static_cast<size_t>(nc));
  lane.samples.offset.resize(static_cast<size_t>(nc));
  lane.samples.lo.resize(static_cast<size_t>(nc));
  lane.samples.hi.resize(static_cast<size_t>(nc));
  lane.samples.fused.assign(static_cast<size_t>(nc), 0);
  lane.samples.mct = mct_;
  for (int c = 0; c < nc; ++c) {
    const j2k_component_view& k = shape_components_[c];
    const bool sign = sample_is_signed(k.type);
    lane.samples.offset[c] = sign ? 0 : int32_t{1} << (k.precision - 1);
    lane.samples.lo[c] = sign ? -(int64_t{1} << (k.precision - 1)) : 0;
    lane.samples.hi[c] = sign ? (int64_t{1} << (k.precision - 1)) - 1 : (int64_t{1} << k.precision) - 1;
  }
  lane.work.resize(static_cast<size_t>(nc));
  lane.out.resize(static_cast<size_t>(nc));
  lanes_.assign(queues_.size(), lane);
  for (Lane& l : lanes_) {  // (a copy does not keep capacity)
    l.uploads.reserve(static_cast<size_t>(nc));
    l.rows.reserve(static_cast<size_t>(nc));
  }
  // The DC shift, and the MCT of components 0..2, in the DWT's first read where the backend
  // can: unsigned 8/16-bit samples at full precision (no range to check); the MCT's three
  // components of one type (and, per tile, one layout: fuse_components()).
  fusable_.assign(static_cast<size_t>(nc), 0);
  auto full = [&](int c) {
    const j2k_component_view& k = shape_components_[static_cast<size_t>(c)];
    return (k.type == J2K_SAMPLE_U8 && k.precision == 8) || (k.type == J2K_SAMPLE_U16 && k.precision == 16);
  };
  const bool mct_fusable = mct_ && full(0) && full(1) && full(2) &&
                           shape_components_[1].type == shape_components_[0].type &&
                           shape_components_[2].type == shape_components_[0].type;
  for (int c = 0; c < nc; ++c)
    fusable_[static_cast<size_t>(c)] = lead.fuses_shift() && full(c) && (!mct_ || c >= 3 || mct_fusable);
}

Plan::~Plan() { finish_all_quietly(); }

void Plan::finish_all_quietly() noexcept {
  for (auto& q : queues_) {
    try {
      q->finish();  // nothing may still use buffers that go away, or the caller's
    } catch (...) {
    }
  }
}

j2k_sample_type Plan::coefficient_type() const {
  if (settings_.narrow_output) return J2K_SAMPLE_I16;
  return j2k::coefficient_type(settings_.wavelet);
}

// The budget of host memory, checked once the queues hold their (per-tile) buffers and before
// the coefficients of the whole image are allocated.
void Plan::check_host_memory(size_t owned_bytes) const {
  if (settings_.max_host_memory == 0) return;
  size_t held = 0;
  for (const auto& q : queues_) {
    const j2k_memory_report m = q->memory_held();
    held += m.host + m.pinned;
  }
  // Coefficients kept on the device (DEVICE output memory) take no host memory.
  const size_t owned_host = settings_.output_memory == J2K_MEMORY_DEVICE ? 0 : owned_bytes;
  if (held + owned_host > settings_.max_host_memory)
    throw Error(ErrorCode::OutOfMemory,
                "the plan needs " + std::to_string(held + owned_host) + " bytes of host memory (" +
                    std::to_string(owned_host) + " for the coefficients, " + std::to_string(held) +
                    " for the buffers of " + std::to_string(queues_.size()) + " queue(s)), more than the " +
                    "limit of " + std::to_string(settings_.max_host_memory) + " (max_host_memory)");
}

// Int16 output only where no coefficient can leave [-32768, 32767] (coefficient_range.hpp).
void Plan::check_narrow_output() const {
  if (settings_.wavelet != Wavelet::Reversible53)
    invalid("int16 coefficients are for the 5/3 (the 9/7's are float)");
  for (int c = 0; c < shape_.num_components; ++c) {
    const int p = shape_components_[static_cast<size_t>(c)].precision;
    const bool chroma = mct_ && (c == 1 || c == 2);
    const int levels = component_levels(settings_, static_cast<size_t>(c));
    const double bound = max_53_coefficient(max_shifted_sample(p, chroma), levels);
    if (bound > 32767)
      invalid("int16 coefficients cannot hold the 5/3 of component " + std::to_string(c) + " (" +
              std::to_string(p) + "-bit" + (chroma ? ", after the RCT" : "") + ", " +
              std::to_string(levels) + " levels: up to " + std::to_string(static_cast<int64_t>(bound)) +
              "); they fit up to 12-bit samples, 11-bit with the RCT");
  }
}

Plane Plan::own_home(size_t i) const {
  const PlanTileComponent& tc = tcs_[i];
  Plane p;
  p.base = owned_->data;
  p.offset = own_offset_[i];
  p.type = coefficient_type();
  p.width = tc.rect.width();
  p.height = tc.rect.height();
  p.pixel_stride = static_cast<ptrdiff_t>(j2k_sample_size(p.type));
  p.row_stride = p.pixel_stride * p.width;
  p.memory = owned_->memory;
  return p;
}

void Plan::set_output(size_t index, void* data, size_t bytes, ptrdiff_t row_stride, j2k_memory memory) {
  if (index >= tcs_.size())
    invalid("tile-component " + std::to_string(index) + " does not exist (the plan has " +
            std::to_string(tcs_.size()) + ")");
  if (data == nullptr) {
    tcs_[index].home = own_home(index);
    return;
  }
  const int where = c_enum(memory);
  if (where != J2K_MEMORY_HOST && where != J2K_MEMORY_PINNED && where != J2K_MEMORY_DEVICE)
    invalid("output memory " + std::to_string(where) + " is not a j2k_memory value");
  if (memory == J2K_MEMORY_DEVICE && !queues_[0]->reads(memory))
    invalid(std::string("the ") + backend_name(queues_[0]->kind()) +
            " backend cannot write coefficients to CUDA device memory");
  Plane p = own_home(index);
  const ptrdiff_t size = p.pixel_stride;
  if (row_stride % size != 0 || row_stride < size * p.width)
    invalid("output row stride " + std::to_string(row_stride) + " must be a multiple of " + std::to_string(size) +
            " and at least " + std::to_string(size * p.width) + " bytes");
  if (reinterpret_cast<uintptr_t>(data) % static_cast<uintptr_t>(size) != 0)
    invalid("output data must be " + std::to_string(size) + "-byte aligned");
  check_buffer_size("output " + std::to_string(index), p.width, p.height, row_stride, size, size, bytes);
  p.base = data;
  p.offset = 0;
  p.row_stride = row_stride;
  p.memory = memory;
  tcs_[index].home = p;
}

j2k_memory_report Plan::memory() const {
  j2k_memory_report r{};
  for (const auto& q : queues_) {
    const j2k_memory_report m = q->memory_held();
    r.host += m.host;
    r.pinned += m.pinned;
    r.device += m.device;
  }
  switch (owned_->memory) {
    case J2K_MEMORY_HOST: r.host += owned_->bytes; break;
    case J2K_MEMORY_PINNED: r.pinned += owned_->bytes; break;
    case J2K_MEMORY_DEVICE: r.device += owned_->bytes; break;
  }
  return r;
}

void check_shape(const j2k_image_view& image, const j2k_image_view& shape) {
  check_view(image, true);
  auto differs = [&](const std::string& what) {
    invalid("the image's " + what + " differs from the plan's shape; make a plan for this shape");
  };
  if (image.x0 != shape.x0 || image.y0 != shape.y0 || image.width != shape.width || image.height != shape.height)
    differs("area (origin and size)");
  if (image.num_components != shape.num_components) differs("component count");
  if (image.memory != shape.memory) differs("memory");
  for (int c = 0; c < image.num_components; ++c) {
    const j2k_component_view& a = image.components[c];
    const j2k_component_view& b = shape.components[c];
    if (a.type != b.type || a.precision != b.precision || a.dx != b.dx || a.dy != b.dy)
      differs("component " + std::to_string(c) + " (type, precision or subsampling)");
  }
}

void Plan::check_image(const j2k_image_view& image) const { check_shape(image, shape_); }

void Plan::run(const j2k_image_view& image) {
  const uint64_t ticket = submit(image);
  const auto t0 = Clock::now();
  wait(ticket);
  times_.dwt_ms += ms_since(t0);
}

int Plan::frames_in_flight() const {
  int n = 0;
  for (const Frame& f : frames_) n += f.ticket != 0;
  return n;
}

uint64_t Plan::submit(const j2k_image_view& image, bool has_after, void* after_stream) {
  const ScopedThreadPool pool(settings_.backend.thread_pool);  // the embedder's, if it gave one
  check_image(image);
  if (has_after && queues_[0]->kind() != Backend::Cuda) no_cuda_streams();
  int slot = -1;
  for (int i = 0; i < kFramesInFlight && slot < 0; ++i)
    if (frames_[i].ticket == 0) slot = i;
  if (slot < 0)
    invalid(std::to_string(kFramesInFlight) + " frames are in flight already; wait for one before submitting another");
  bool uses_own = false;
  for (const PlanTileComponent& tc : tcs_) uses_own = uses_own || tc.home.base == owned_->data;
  if (uses_own)
    for (const Frame& f : frames_)
      if (f.ticket != 0 && f.uses_own)
        invalid("frame " + std::to_string(f.ticket) +
                " still writes the plan's own coefficient buffer; wait for it first, or give each "
                "frame in flight its own outputs (set_output)");
  try {
    if (has_after)
      for (auto& q : queues_) q->after(after_stream);
    enqueue(image, next_ticket_);
    for (auto& q : queues_) q->mark(slot);
  } catch (...) {
    finish_all_quietly();  // drain: no copy may still be reading the caller's buffers
    throw;
  }
  frames_[slot] = Frame{next_ticket_, uses_own};
  return next_ticket_++;
}

int Plan::slot_of(uint64_t ticket) const {
  for (int i = 0; i < kFramesInFlight; ++i)
    if (ticket != 0 && frames_[i].ticket == ticket) return i;
  invalid("frame " + std::to_string(ticket) + " is not in flight (never submitted, or already waited for)");
}

void Plan::signal(uint64_t ticket, void* stream) {
  const int slot = slot_of(ticket);
  for (auto& q : queues_) q->signal(slot, stream);
}

void Plan::wait(uint64_t ticket) {
  const ScopedThreadPool pool(settings_.backend.thread_pool);
  const int slot = slot_of(ticket);
  frames_[slot] = Frame{};
  // Every queue's part of the frame is waited for, even after one reports a problem, so that
  // the slot is free and nothing of the frame still runs when this returns.
  std::exception_ptr first;
  for (auto& q : queues_) {
    try {
      q->wait(slot);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

void Plan::trace(bool on) {
  for (auto& q : queues_) q->finish();
  for (auto& q : queues_) q->trace(on);
}

std::vector<j2k_span> Plan::timeline() const {
  if (frames_in_flight() > 0) invalid("wait for every frame before reading the timeline");
  std::vector<j2k_span> out;
  for (size_t i = 0; i < queues_.size(); ++i) queues_[i]->spans(static_cast<int>(i), out);
  return out;
}

void Plan::enqueue(const j2k_image_view& image, uint64_t frame) {
  times_ = j2k_stage_times{};
  for (Lane& lane : lanes_) lane.times = j2k_stage_times{};
  const int64_t tiles = canvas_.tile_count();
  if (tiles_side_by_side_) {
    // Worker w takes tiles w, w + W, ... on its own queue and lane.
    const auto count = static_cast<ptrdiff_t>(queues_.size());
    parallel_for(count, static_cast<int>(count), [&](ptrdiff_t w) {
      for (int64_t t = w; t < tiles; t += count)
        enqueue_tile(image, t, *queues_[static_cast<size_t>(w)], lanes_[static_cast<size_t>(w)], frame);
    });
  } else {
    for (int64_t t = 0; t < tiles; ++t) {
      // Round-robin over tiles and frames: the next frame's first tile goes to the queue after
      // the one that has this frame's last tile.
      const size_t i = next_queue_;
      next_queue_ = (next_queue_ + 1) % queues_.size();
      enqueue_tile(image, t, *queues_[i], lanes_[i], frame);
    }
  }
  for (const Lane& lane : lanes_) {
    times_.split_ms += lane.times.split_ms;
    times_.shift_mct_ms += lane.times.shift_mct_ms;
    times_.dwt_ms += lane.times.dwt_ms;
  }
}

namespace {
constexpr int64_t kMinStripeRows = 256;
Plane rows_of(Plane p, int64_t r0, int64_t r1) {
  p.offset += static_cast<size_t>(r0 * p.row_stride);
  p.height = r1 - r0;
  return p;
}
}  // namespace

int64_t Plan::rows_stripe(const Queue& q, Lane& lane, const PlanTileComponent* tc, int nc) const {
  // An image of one tile (tiles of a tiled image overlap each other instead: there stripes
  // only add copies, 1024^2 tiles ran at 0.6 of the link by rows against 0.93 whole), of at
  // least two stripes, whose components all go home to the host from queue memory, each read
  // by its DWT (fused, so that its work plane is free to be its DWT workspace and, for int16
  // output, the plane it is narrowed into), with one geometry.
  if (!q.by_rows() || q.in_place() || canvas_.tile_count() != 1) return 0;
  const int64_t h = tc[0].rect.height();
  if (h < 2 * kMinStripeRows) return 0;
  lane.rows.clear();
  for (int c = 0; c < nc; ++c) {
    const auto i = static_cast<size_t>(c);
    const Plane& out = lane.out[i];
    const Plane& home = tc[c].home;
    if (!lane.samples.fused[i] || !(tc[c].rect == tc[0].rect) || tc[c].levels < 1 || q.reads(home.memory) ||
        (out.base == home.base && out.offset == home.offset))
      return 0;
    // The work plane: the int16 plane first (for int16 output), then the DWT's workspace.
    Queue::RowsJob job{out, home, lane.work[i], Plane{}, tc[c].rect, tc[c].levels};
    const auto bytes = static_cast<size_t>(job.scratch.row_stride * job.scratch.height);
    size_t used = 0;
    if (settings_.narrow_output) {
      job.narrow = job.scratch;
      job.narrow.type = J2K_SAMPLE_I16;
      job.narrow.pixel_stride = 2;
      job.narrow.row_stride = 2 * job.narrow.width;
      used = align_up(static_cast<size_t>(job.narrow.row_stride * job.narrow.height));
    }
    if (used + q.dwt_workspace_bytes(settings_.wavelet, tc[c].rect, tc[c].levels) > bytes) return 0;
    job.scratch.offset += used;
    job.scratch.type = J2K_SAMPLE_U8;
    job.scratch.pixel_stride = 1;
    job.scratch.width = job.scratch.row_stride = static_cast<ptrdiff_t>(bytes - used);
    job.scratch.height = 1;
    lane.rows.push_back(job);
  }
  // About 8 stripes: the first one's upload is the part of the link time not hidden.
  return std::max(kMinStripeRows, (h / 8 + 63) / 64 * 64);
}

void Plan::fuse_components(TileSamples& samples) const {
  // A DWT reads samples itself only at element-aligned addresses and strides.
  auto aligned = [](const Plane& p) {
    const auto e = static_cast<ptrdiff_t>(j2k_sample_size(p.type));
    return e > 0 && p.pixel_stride > 0 && p.pixel_stride % e == 0 && p.row_stride % e == 0 &&
           (reinterpret_cast<uintptr_t>(p.base) + p.offset) % static_cast<uintptr_t>(e) == 0;
  };
  const std::vector<Plane>& in = samples.in;
  for (size_t c = 0; c < in.size(); ++c) samples.fused[c] = fusable_[c] && aligned(in[c]);
  if (!mct_) return;
  // The MCT's components: together, from planes of one layout (the DWT of each reads all three).
  const bool together = samples.fused[0] && samples.fused[1] && samples.fused[2] &&
                        in[1].row_stride == in[0].row_stride && in[2].row_stride == in[0].row_stride &&
                        in[1].pixel_stride == in[0].pixel_stride && in[2].pixel_stride == in[0].pixel_stride;
  for (size_t c = 0; c < 3; ++c) samples.fused[c] = together;
}

void Plan::enqueue_tile(const j2k_image_view& image, int64_t t, Queue& q, Lane& lane, uint64_t frame) {
  const int nc = image.num_components;
  const bool upload = !q.reads(image.memory);
  const bool in_place = q.in_place();
  const Wavelet w = settings_.wavelet;
  const bool narrow = settings_.narrow_output;
  const j2k_sample_type dwt_type = j2k::coefficient_type(w);
  const PlanTileComponent* tc = &tcs_[static_cast<size_t>(t * nc)];
  auto t0 = Clock::now();
  if (upload) q.span_begin(J2K_STAGE_UPLOAD, t, frame);
  lane.uploads.clear();
  for (int c = 0; c < nc;) {
    const j2k_component_view& k = image.components[c];
    const Rect& r = tc[c].rect;
    Plane src;
    src.base = const_cast<void*>(k.data);
    src.offset = static_cast<size_t>((r.y0 - ceil_div(image.y0, k.dy)) * k.row_stride +
                                     (r.x0 - ceil_div(image.x0, k.dx)) * k.pixel_stride);
    src.type = k.type;
    src.row_stride = k.row_stride;
    src.pixel_stride = k.pixel_stride;
    src.width = r.width();
    src.height = r.height();
    src.memory = image.memory;
    const int group = upload ? interleaved_group(image, c) : 1;
    if (group == 1) {
      if (upload) {
        const Plane staged = q.staging(c, k.type, src.width, src.height);
        lane.uploads.push_back({src, staged});
        src = staged;
      }
      lane.samples.in[static_cast<size_t>(c)] = src;
      ++c;
      continue;
    }
    // Interleaved components cross the bus together, as rows of whole pixels (bytes); the
    // device reads each one strided out of them.
    Plane bytes = src;
    bytes.type = J2K_SAMPLE_U8;
    bytes.pixel_stride = 1;
    bytes.width = src.width * k.pixel_stride;
    const Plane staged = q.staging(c, J2K_SAMPLE_U8, bytes.width, src.height);
    lane.uploads.push_back({bytes, staged});
    const size_t size = j2k_sample_size(k.type);
    for (int i = 0; i < group; ++i) {
      Plane p = staged;
      p.offset += static_cast<size_t>(i) * size;
      p.type = k.type;
      p.pixel_stride = k.pixel_stride;
      p.width = src.width;
      lane.samples.in[static_cast<size_t>(c + i)] = p;
    }
    c += group;
  }
  fuse_components(lane.samples);
  for (int c = 0; c < nc; ++c) {
    const Plane& in = lane.samples.in[static_cast<size_t>(c)];
    const Plane& home = tc[c].home;
    // The DWT's output: the home itself where the queue can write it, else a plane in queue
    // memory that goes home after (for int16 output, always an int32 plane, narrowed after).
    lane.out[c] = q.reads(home.memory) && !narrow ? home : q.output(c, dwt_type, in.width, in.height);
    lane.work[c] = in_place ? lane.out[c] : q.work(c, dwt_type, in.width, in.height);
  }
  const int64_t stripe = upload ? rows_stripe(q, lane, tc, nc) : 0;
  if (stripe > 0) {
    // Stripes of rows: each goes up, the first DWT level runs on what has arrived, and what
    // that finishes goes home while the next stripe comes up.
    q.rows_begin(w, lane.samples, lane.rows, t, frame);
    const int64_t h = tc[0].rect.height();
    for (int64_t r0 = 0; r0 < h; r0 += stripe) {
      const int64_t r1 = std::min(h, r0 + stripe);
      for (const auto& u : lane.uploads) q.upload(rows_of(u.first, r0, r1), rows_of(u.second, r0, r1));
      q.rows_ready(r1);
    }
    q.span_end();
    lane.times.split_ms += ms_since(t0);
    t0 = Clock::now();
    q.span_begin(J2K_STAGE_TRANSFORM, t, frame);
    q.rows_end();
    q.span_end();
    lane.times.dwt_ms += ms_since(t0);
    return;
  }
  for (const auto& u : lane.uploads) q.upload(u.first, u.second);
  if (upload) q.span_end();
  lane.times.split_ms += ms_since(t0);
  t0 = Clock::now();
  q.span_begin(J2K_STAGE_TRANSFORM, t, frame);
  q.shift_mct(lane.samples, w, lane.work);
  lane.times.shift_mct_ms += ms_since(t0);
  t0 = Clock::now();
  for (int c = 0; c < nc; ++c) {
    const auto i = static_cast<size_t>(c);
    if (lane.samples.fused[i]) q.dwt_from_samples(w, lane.samples, c, lane.out[c], tc[c].rect, tc[c].levels);
    else q.dwt(J2K_FORWARD, w, lane.work[c], lane.out[c], tc[c].rect, tc[c].levels, constants::kInverse97Standard);
    if (!narrow) continue;
    const Plane& home = tc[c].home;
    const Plane to = q.reads(home.memory) ? home : q.narrow_plane(c, home.width, home.height);
    q.narrow(lane.out[c], to);
    lane.out[c] = to;
  }
  q.span_end();
  // Downloads after the tile's last DWT: on one queue they would not overlap it anyway.
  bool download = false;
  for (int c = 0; c < nc; ++c) {
    if (lane.out[c].base == tc[c].home.base && lane.out[c].offset == tc[c].home.offset) continue;
    if (!download) q.span_begin(J2K_STAGE_DOWNLOAD, t, frame);
    download = true;
    q.download(lane.out[c], tc[c].home);
  }
  if (download) q.span_end();
  lane.times.dwt_ms += ms_since(t0);
}

}  // namespace j2k
