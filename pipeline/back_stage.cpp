// SPDX-License-Identifier: BSD-2-Clause
#include "pipeline/back_stage.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <utility>

#include "common/error.hpp"
#include "transform/common/constants.hpp"
#include "common/parallel/parallel_for.hpp"

namespace j2k {
namespace {

constexpr size_t kAlign = 256;  // what the queues align each plane of a tile to
size_t aligned(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

size_t plane_bytes(const Rect& r, size_t size) { return static_cast<size_t>(r.width() * r.height()) * size; }

j2k_sample_type coefficient_type(const BackStage::Component& c) {
  return j2k::coefficient_type(c.reversible ? Wavelet::Reversible53 : Wavelet::Irreversible97);
}

// The window of `all` (a plane of c.rect) that goes out.
Plane window_of(const Plane& all, const BackStage::Component& c) {
  Plane p = all;
  if (c.window.empty()) {
    p.width = p.height = 0;
    return p;
  }
  p.offset += static_cast<size_t>((c.window.y0 - c.rect.y0) * all.row_stride + (c.window.x0 - c.rect.x0) * all.pixel_stride);
  p.width = c.window.width();
  p.height = c.window.height();
  return p;
}

QueueNeeds& grow(QueueNeeds& a, const QueueNeeds& b) {
  a.staging_bytes = std::max(a.staging_bytes, b.staging_bytes);
  a.work_bytes = std::max(a.work_bytes, b.work_bytes);
  a.output_bytes = std::max(a.output_bytes, b.output_bytes);
  a.dwt_workspace = std::max(a.dwt_workspace, b.dwt_workspace);
  a.max_plane_bytes = std::max(a.max_plane_bytes, b.max_plane_bytes);
  a.components = std::max(a.components, b.components);
  return a;
}

bool covers(const QueueNeeds& a, const QueueNeeds& b) {
  return a.staging_bytes >= b.staging_bytes && a.work_bytes >= b.work_bytes && a.output_bytes >= b.output_bytes &&
         a.dwt_workspace >= b.dwt_workspace && a.max_plane_bytes >= b.max_plane_bytes && a.components >= b.components;
}

}  // namespace

struct BackStage::Impl {
  // One set of host buffers for a tile's coefficients.
  struct Slot {
    std::vector<void*> buffers;
    std::vector<size_t> bytes;
    std::vector<j2k_memory> where;
    std::vector<char> own;  // allocated here while the queue was starting, not by it
    bool in_flight = false;
    // GPU: the tile's samples on their way home, downloaded into `samples` (page-locked where
    // the backend has it: a download into pageable memory would hold the host until the
    // tile's work is done) and copied into their homes once the slot's work is.
    void* samples = nullptr;
    size_t samples_bytes = 0;
    j2k_memory samples_where = J2K_MEMORY_HOST;
    std::vector<std::pair<Plane, Plane>> pending;  // (in `samples`, home)
  };

  // CUDA's queue is made on a thread of its own (starting): the driver's start-up (its
  // context) takes a few hundred milliseconds, which the first tile's Tier-2 and Tier-1 hide.
  // Until it is there, begin() hands out host memory of its own. OpenCL's starts at once:
  // an OpenCL runtime may leave state of its own on the thread that first calls it (pocl
  // sets that thread a signal stack, which AddressSanitizer then fails to unmap as the
  // thread ends), so it is called from the caller's thread only.
  std::shared_ptr<Queue> queue;
  std::shared_future<std::shared_ptr<Queue>> starting;  // get() rethrows a failed start each time
  int threads = 0;
  bool device = false;  // a GPU queue: upload, download, two slots
  bool gpu_writes = false;  // CUDA's or OpenCL's: coefficients may be written on the device (on_stream)
  Slot slots[2];
  int current = 0;
  bool open = false;
  std::vector<Component> comps;
  bool mct = false;
  QueueNeeds reserved;

  ~Impl() {
    try {
      ready();
    } catch (...) {  // a queue that failed to start: nothing of it to release
    }
    if (queue) {
      try {
        queue->finish();  // no copy may still use the buffers
      } catch (...) {
      }
    }
    for (Slot& s : slots) {
      for (size_t c = 0; c < s.buffers.size(); ++c) release(s.buffers[c], s.where[c], s.own[c] != 0);
      release(s.samples, s.samples_where, false);
    }
  }

  // The queue, once it has started; throws why it could not.
  Queue& ready() {
    if (!queue) queue = starting.get();
    return *queue;
  }
  bool started() const {
    return queue || starting.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }
  // A slot's coefficient buffer: from the queue, or while it starts host memory of our own
  // (`own`).
  void* allocate(size_t bytes, j2k_memory& where, bool& own) {
    own = !started();
    if (!own) return ready().allocate(bytes, where);
    return allocate_host_coefficients(bytes, where, "back stage");
  }
  void release(void* p, j2k_memory where, bool own) noexcept {
    if (!p) return;
    if (own) std::free(p);
    else if (queue) queue->release(p, where);
  }

  // Waits for the slot's work, then copies its samples home.
  void wait(int slot) {
    Slot& s = slots[slot];
    if (!s.in_flight) return;
    s.in_flight = false;
    std::vector<std::pair<Plane, Plane>> copies;
    copies.swap(s.pending);
    ready().wait(slot);
    for (const auto& [from, to] : copies) copy_rows(from, to);
  }

  void copy_rows(const Plane& from, const Plane& to) const {
    const auto row = static_cast<size_t>(from.width) * j2k_sample_size(from.type);
    const auto* src = static_cast<const char*>(from.base) + from.offset;
    auto* dst = static_cast<char*>(to.base) + to.offset;
    parallel_for(static_cast<ptrdiff_t>(from.height), copy_threads(row * static_cast<size_t>(from.height), threads),
                 [&](ptrdiff_t y) { std::memcpy(dst + y * to.row_stride, src + y * from.row_stride, row); });
  }

  // The slot's sample buffer, at least `bytes` (once the slot is idle).
  void* samples_buffer(Slot& s, size_t bytes) {
    if (s.samples_bytes >= bytes) return s.samples;
    release(s.samples, s.samples_where, false);
    s.samples = nullptr;
    s.samples_bytes = 0;
    s.samples_where = J2K_MEMORY_HOST;
    s.samples = ready().allocate(bytes, s.samples_where);
    s.samples_bytes = bytes;
    return s.samples;
  }

  // The queue's buffers for this tile, reserved anew (once the queue is idle) when it is
  // larger than every tile before it.
  void reserve_for(const std::vector<Component>& cs) {
    Queue& q = ready();
    QueueNeeds n;
    n.components = static_cast<int>(cs.size());
    for (const Component& c : cs) {
      n.dwt_workspace = std::max(n.dwt_workspace, q.dwt_workspace_bytes(c.reversible ? Wavelet::Reversible53
                                                                                         : Wavelet::Irreversible97,
                                                                           c.rect, c.levels));
      if (!device) continue;
      const size_t plane = plane_bytes(c.rect, 4);
      n.work_bytes += aligned(plane);
      n.output_bytes += aligned(plane);
      n.max_plane_bytes = std::max(n.max_plane_bytes, plane);
      n.staging_bytes += aligned(plane_bytes(c.window, j2k_sample_size(c.home.type)));
    }
    // OpenCL packs uploads through its host staging, at the plane's offset (0).
    n.staging_bytes = std::max(n.staging_bytes, n.max_plane_bytes);
    if (covers(reserved, n)) return;
    for (int s = 0; s < 2; ++s) wait(s);
    q.reserve(grow(reserved, n));
  }

  // What begin() and begin_on_device() share: the checks, the slot's previous tile home,
  // the queue's buffers reserved (once it has started; `wait_for_queue`: now).
  void open_tile(const std::vector<Component>& cs, bool with_mct, bool wait_for_queue) {
    if (open) throw Error(ErrorCode::Internal, "back stage: begin() twice without end()");
    if (with_mct && cs.size() >= 3)
      for (size_t c = 1; c < 3; ++c)
        if (cs[c].rect.width() != cs[0].rect.width() || cs[c].rect.height() != cs[0].rect.height() ||
            cs[c].window.width() != cs[0].window.width() || cs[c].window.height() != cs[0].window.height() ||
            cs[c].reversible != cs[0].reversible)
          throw Error(ErrorCode::Internal, "back stage: components 0 to 2 of an MCT tile differ");
    wait(current);
    // While a GPU's queue starts, its reservation waits for end().
    reserved_tile = wait_for_queue || started();
    if (reserved_tile) reserve_for(cs);
    comps = cs;
    mct = with_mct && cs.size() >= 3;
    open = true;
    writes_on_device = wait_for_queue;
  }

  const std::vector<void*>& begin(const std::vector<Component>& cs, bool with_mct) {
    open_tile(cs, with_mct, false);
    Slot& slot = slots[current];
    slot.buffers.resize(std::max(slot.buffers.size(), cs.size()), nullptr);
    slot.bytes.resize(slot.buffers.size(), 0);
    slot.where.resize(slot.buffers.size(), J2K_MEMORY_HOST);
    slot.own.resize(slot.buffers.size(), 0);
    for (size_t c = 0; c < cs.size(); ++c) {
      const size_t bytes = std::max<size_t>(plane_bytes(cs[c].rect, 4), 4);
      // A buffer of our own makes way for the queue's (page-locked, faster to upload) once it
      // has started.
      if (slot.bytes[c] >= bytes && !(slot.own[c] && started())) continue;
      release(slot.buffers[c], slot.where[c], slot.own[c] != 0);
      slot.buffers[c] = nullptr;
      slot.bytes[c] = 0;
      slot.where[c] = J2K_MEMORY_HOST;
      bool own = false;
      slot.buffers[c] = allocate(bytes, slot.where[c], own);
      slot.own[c] = own ? 1 : 0;
      slot.bytes[c] = bytes;
    }
    // The caller sees exactly one pointer per component.
    handed.assign(slot.buffers.begin(), slot.buffers.begin() + static_cast<ptrdiff_t>(cs.size()));
    return handed;
  }
  std::vector<void*> handed;
  bool reserved_tile = false;  // begin() reserved the queue's buffers for the open tile
  bool writes_on_device = false;  // the open tile came from begin_on_device()

  // Component c's coefficients in the slot's host buffer (none for a tile on the device).
  Plane host_plane(size_t c) const {
    const Slot& slot = slots[current];
    Plane p;
    p.base = writes_on_device ? nullptr : slot.buffers[c];
    p.type = coefficient_type(comps[c]);
    p.pixel_stride = 4;
    p.row_stride = 4 * comps[c].rect.width();
    p.width = comps[c].rect.width();
    p.height = comps[c].rect.height();
    p.memory = writes_on_device ? J2K_MEMORY_DEVICE : slot.where[c];
    return p;
  }

  TileOutput output_to(std::vector<Plane> planes) const {
    TileOutput out;
    out.out = std::move(planes);
    out.mct = mct;
    for (const Component& c : comps) {
      out.offset.push_back(c.offset);
      out.lo.push_back(c.lo);
      out.hi.push_back(c.hi);
    }
    return out;
  }

  void end(const BackStage::DeviceWriter* write) {
    if (!open) throw Error(ErrorCode::Internal, "back stage: end() without begin()");
    if ((write != nullptr) != writes_on_device)
      throw Error(ErrorCode::Internal, "back stage: a tile ends as it began, on the device or not");
    open = false;
    Queue& q = ready();
    if (!reserved_tile) reserve_for(comps);
    const size_t n = comps.size();
    std::vector<Plane> dwt_out(n), src(n), in(n), samples(n), homes(n);
    for (size_t c = 0; c < n; ++c) {
      const Plane host = host_plane(c);
      const auto ci = static_cast<int>(c);
      if (device) {
        dwt_out[c] = q.output(ci, host.type, host.width, host.height);
        src[c] = q.in_place() ? dwt_out[c] : q.work(ci, host.type, host.width, host.height);
        if (!write) q.upload(host, src[c]);
      } else {
        dwt_out[c] = src[c] = host;
      }
    }
    if (write) q.on_stream([&](void* stream) { (*write)(src, stream); });
    for (size_t c = 0; c < n; ++c) {
      const Component& k = comps[c];
      const Wavelet w = k.reversible ? Wavelet::Reversible53 : Wavelet::Irreversible97;
      const auto ci = static_cast<int>(c);
      // OpenJPEG's decoder's 9/7 scaling, so that the samples are OpenJPEG's.
      q.dwt(J2K_INVERSE, w, src[c], dwt_out[c], k.rect, k.levels, constants::kInverse97OpenJpeg);
      in[c] = window_of(dwt_out[c], k);
      homes[c] = k.home;
      samples[c] = device ? q.staging(ci, k.home.type, k.window.width(), k.window.height()) : k.home;
    }
    q.to_samples(in, output_to(samples));
    if (device) {
      Slot& slot = slots[current];
      size_t total = 0;
      for (size_t c = 0; c < n; ++c) total += aligned(plane_bytes(comps[c].window, j2k_sample_size(homes[c].type)));
      void* base = samples_buffer(slot, std::max<size_t>(total, 4));
      size_t at = 0;
      for (size_t c = 0; c < n; ++c) {
        Plane staged = homes[c];  // packed rows in the slot's buffer
        staged.base = base;
        staged.offset = at;
        staged.row_stride = staged.pixel_stride * staged.width;
        staged.memory = slot.samples_where;
        q.download(samples[c], staged);
        slot.pending.emplace_back(staged, homes[c]);
        at += aligned(plane_bytes(comps[c].window, j2k_sample_size(homes[c].type)));
      }
      q.mark(current);
      slots[current].in_flight = true;
      current ^= 1;
    }
  }

  void cancel() noexcept {
    open = false;
    for (int s = 0; s < 2; ++s) {
      try {
        wait(s);
      } catch (...) {
      }
    }
    try {
      ready().finish();  // and whatever a failed end() enqueued before it threw
    } catch (...) {
    }
  }

  void finish() {
    if (open) throw Error(ErrorCode::Internal, "back stage: finish() inside a tile");
    // The older slot first: its work was enqueued first.
    const int older = current;
    wait(older);
    wait(older ^ 1);
  }
};

BackStage::BackStage(const BackendOptions& options) : impl_(std::make_unique<Impl>()) {
  BackendOptions o = options;
  o.backend = resolve_backend(o.backend, Job::Decompress);  // no stream size: the CPU
  impl_->threads = o.threads;
  impl_->device = o.backend != Backend::Cpu;
  impl_->gpu_writes = o.backend == Backend::Cuda || o.backend == Backend::OpenCL;
  if (o.backend == Backend::Cuda)
    impl_->starting = std::async(std::launch::async, [o] { return std::shared_ptr<Queue>(make_queue(o)); }).share();
  else
    impl_->queue = make_queue(o);
}

BackStage::~BackStage() = default;

const std::vector<void*>& BackStage::begin(const std::vector<Component>& components, bool mct) {
  return impl_->begin(components, mct);
}
void BackStage::end() { impl_->end(nullptr); }
bool BackStage::on_device() const { return impl_->gpu_writes; }
void BackStage::begin_on_device(const std::vector<Component>& components, bool mct) {
  if (!impl_->gpu_writes)
    throw Error(ErrorCode::Internal, "back stage: coefficients are written on the device with CUDA or OpenCL only");
  impl_->open_tile(components, mct, true);
}
void BackStage::end_on_device(const DeviceWriter& write) { impl_->end(&write); }
void BackStage::finish() { impl_->finish(); }
void BackStage::cancel() noexcept { impl_->cancel(); }

}  // namespace j2k
