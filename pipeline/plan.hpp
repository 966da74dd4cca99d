// SPDX-License-Identifier: BSD-2-Clause
// The front stage planned once for one image shape, run on any number of images of it:
// the canvas and every tile-component's geometry are computed and checked at construction,
// the backend's queue and all buffers are allocated then, and run() allocates nothing.
// Per tile, in the queue's order: upload (when the queue cannot read the samples where they
// are), DC shift + RCT/ICT, DWT, download (when the coefficients' home is not in the queue's
// memory); the shift and MCT go into the DWT's first read where the queue can (fuses_shift()),
// and an image of one tile goes through the queue by rows where it can (by_rows()), so that
// its own upload and download overlap. Nothing here depends on which backend runs the queue.
// Frames in flight: submit() enqueues an image and returns a ticket, wait(ticket) returns when
// that frame's coefficients are written, or throws what went wrong in that frame alone. Up to
// kFramesInFlight frames, each writing where the outputs pointed when it was submitted.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "j2kfront/j2kfront.h"
#include "tiling/canvas.hpp"
#include "transform/backend.hpp"
#include "transform/queue.hpp"

namespace j2k {

enum class Mct { Auto, On, Off };  // Auto: on when components 0..2 exist with one subsampling

struct PlanSettings {
  Wavelet wavelet = Wavelet::Reversible53;
  int levels = 5;                    // 0..32
  std::vector<int> component_levels; // per component (replacing `levels`), or empty
  int64_t tile_w = 0, tile_h = 0;    // 0,0 = one tile covering the image
  int64_t tile_x0 = 0, tile_y0 = 0;  // tile grid origin, at most the image origin
  Mct mct = Mct::Auto;
  BackendOptions backend;
  j2k_memory output_memory = J2K_MEMORY_HOST;  // where the plan's own coefficients live
  size_t max_host_memory = 0;  // 0: no limit (j2k_settings.max_host_memory)
  bool narrow_output = false;  // int16 coefficients (5/3, where the range provably fits)
  int streams = 0;  // queues with tiles in flight; 0 = 3 on asynchronous backends (2 for one tile), on
                    // the CPU one per worker thread with at least twice as many tiles, else 1
};

// Component c's decomposition levels.
inline int component_levels(const PlanSettings& s, size_t c) {
  return s.component_levels.empty() ? s.levels : s.component_levels[c];
}

struct PlanTileComponent {
  int64_t tile = 0;
  int component = 0;
  Rect rect;   // on the component's grid (B-12)
  int levels = 0;
  std::vector<BandInfo> bands;  // LL first, then HL, LH, HH from the coarsest level down
  Plane home;                   // where its coefficients are written
};

class Plan {
 public:
  // Throws Error(InvalidArgument) naming the first problem of the settings or the shape.
  Plan(const PlanSettings& settings, const j2k_image_view& shape);
  ~Plan();
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  static constexpr int kFramesInFlight = Queue::kFrameSlots;

  // `image` must have the plan's shape; its data pointers and strides may change between runs.
  // run() is submit() and wait().
  void run(const j2k_image_view& image);
  // The image and the outputs must stay valid until wait() for the ticket returns. Throws
  // Error(InvalidArgument) when kFramesInFlight frames are waiting already, or when this frame
  // and one in flight would both write the plan's own buffer.
  // after_stream: a cudaStream_t (nullptr: the legacy default one) whose work so far the
  // frame waits for on the device, e.g. the kernel that wrote its samples; nothing to wait for
  // when not given (has_after false).
  uint64_t submit(const j2k_image_view& image, bool has_after = false, void* after_stream = nullptr);
  void wait(uint64_t ticket);
  // Makes `stream` wait on the device for frame `ticket`; the frame is still waited for with wait().
  void signal(uint64_t ticket, void* stream);
  int frames_in_flight() const;

  // For benchmarks: with tracing on (it waits for all work first, and allocates as it goes),
  // GPU queues time each tile's upload, transform and download; timeline() reads the spans
  // of every frame since, once they have been waited for.
  void trace(bool on);
  std::vector<j2k_span> timeline() const;

  // Coefficients of tile-component `index` go to the caller's buffer from the next run on
  // (data == nullptr: back to the plan's own).
  void set_output(size_t index, void* data, size_t bytes, ptrdiff_t row_stride, j2k_memory memory);

  Backend backend() const { return queues_[0]->kind(); }
  std::string description() const { return queues_[0]->description(); }
  int streams() const { return static_cast<int>(queues_.size()); }
  bool mct() const { return mct_; }
  const Canvas& canvas() const { return canvas_; }
  j2k_sample_type coefficient_type() const;
  const std::vector<PlanTileComponent>& tile_components() const { return tcs_; }
  j2k_memory_report memory() const;
  const j2k_stage_times& times() const { return times_; }

 private:
  struct OwnedBuffer;
  // The per-tile state of one queue's work (reused by every tile, sized at construction).
  struct Lane {
    TileSamples samples;
    std::vector<Plane> work, out;
    std::vector<std::pair<Plane, Plane>> uploads;  // host plane -> staging plane, per tile
    std::vector<Queue::RowsJob> rows;               // a tile by rows (Queue::rows_begin)
    j2k_stage_times times{};
  };
  struct Frame {
    uint64_t ticket = 0;    // 0: the slot is free
    bool uses_own = false;  // some tile-component writes the plan's own buffer
  };
  void check_image(const j2k_image_view& image) const;
  void check_narrow_output() const;
  void check_host_memory(size_t owned_bytes) const;
  void enqueue(const j2k_image_view& image, uint64_t frame);
  void fuse_components(TileSamples& samples) const;  // sets samples.fused for this tile
  // Rows per stripe where the tile goes through the queue by rows (Queue::by_rows), with
  // lane.rows set for it; else 0.
  int64_t rows_stripe(const Queue& q, Lane& lane, const PlanTileComponent* tc, int nc) const;
  void enqueue_tile(const j2k_image_view& image, int64_t tile, Queue& q, Lane& lane, uint64_t frame);
  int slot_of(uint64_t ticket) const;
  void finish_all_quietly() noexcept;
  Plane own_home(size_t index) const;

  PlanSettings settings_;
  j2k_image_view shape_{};
  std::vector<j2k_component_view> shape_components_;
  Canvas canvas_;
  bool mct_ = false;
  // Tile t runs on queues_[t % size]: each queue has its own buffers, so tiles overlap.
  std::vector<std::unique_ptr<Queue>> queues_;
  std::vector<PlanTileComponent> tcs_;
  std::vector<size_t> own_offset_;  // each tile-component's place in the owned buffer
  std::unique_ptr<OwnedBuffer> owned_;
  std::vector<Lane> lanes_;        // one per queue
  bool tiles_side_by_side_ = false;  // CPU: tiles run on the queues at once, one thread each
  std::vector<uint8_t> fusable_;  // per component: its DC shift can go into the DWT's first read
  j2k_stage_times times_{};
  Frame frames_[kFramesInFlight];
  uint64_t next_ticket_ = 1;
  size_t next_queue_ = 0;  // the queue of the next tile
};

// Checks a view's geometry, types and memory (and, with `need_data`, its pointers and
// strides) against the standard's limits; throws Error(InvalidArgument) naming the problem.
void check_view(const j2k_image_view& view, bool need_data);

// Checks an image's view (with its data) and that it has `shape`'s geometry, memory and
// components' formats; throws Error(InvalidArgument) naming what differs.
void check_shape(const j2k_image_view& image, const j2k_image_view& shape);

// The canvas a plan with `settings` makes of `shape` (the view checked first; Canvas checks
// the rest): for a caller's own limits before a plan allocates anything.
CanvasSpec canvas_spec(const PlanSettings& settings, const j2k_image_view& shape);

}  // namespace j2k
