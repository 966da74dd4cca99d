// SPDX-License-Identifier: BSD-2-Clause
// The decoder's back stage on a backend's queue (transform/queue.hpp), tile after tile: the
// tile's dequantised coefficients, written by Tier-1 into host buffers that this stage hands
// out, go through the inverse DWT (OpenJPEG's 9/7 scaling), the inverse RCT / ICT, the DC
// level shift and the clamp, and land as samples in the caller's image.
//
// On the CPU each tile runs when it is handed in, in place. On a GPU the coefficients go up,
// the samples come home, and the work of a tile runs while the caller decodes the next one's
// code-blocks: two sets of host buffers (coefficients going up, samples coming home;
// page-locked where the backend has it) take turns, and begin() waits only for the tile that
// used its set two tiles before, then copies that tile's samples into the image. Every
// backend gives the same samples, bit for bit (tests/back_stage_test.cpp). On CUDA and OpenCL
// the caller may instead write the coefficients on the device (begin_on_device(),
// end_on_device(): the decoder's Tier-1 on the GPU), and only the samples cross the bus.
//
//   BackStage stage(options);
//   for each tile:
//     std::vector<BackStage::Component> comps = ...;      // geometry, range, where samples go
//     const std::vector<void*>& coef = stage.begin(comps); // Tier-1 writes these
//     ...
//     stage.end();                                          // enqueued (GPU) or done (CPU)
//   stage.finish();                                          // every sample is home
// A home must stay valid until the tile's samples are there: finish(), cancel(), or the
// begin() two tiles later.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "tiling/geometry.hpp"
#include "transform/backend.hpp"
#include "transform/queue.hpp"

namespace j2k {

class BackStage {
 public:
  // One tile-component.
  struct Component {
    Rect rect;              // the decoded resolution's rectangle on the component's grid
    int levels = 0;         // inverse DWT levels
    bool reversible = true; // 5/3 on int32, else 9/7 on float
    // The part of `rect` that goes out (may be empty: nothing of it is wanted) and where its
    // samples go: a host plane of U8 / I8 / U16 / I16 samples of window's size.
    Rect window;
    Plane home;
    int32_t offset = 0;  // the DC offset (0 when signed)
    int32_t lo = 0, hi = 0;  // the range of the component's precision
  };

  // Builds the backend's queue (Auto: the CPU; the caller picks a GPU by name); throws naming
  // why it cannot. CUDA's queue starts on a thread of its own while the caller decodes the
  // first tile's code-blocks (into host memory of the stage's own until it is there); where
  // it cannot start, the first begin() or end() after its attempt throws naming why, and so
  // does every later call.
  explicit BackStage(const BackendOptions& options);
  ~BackStage();
  BackStage(const BackStage&) = delete;
  BackStage& operator=(const BackStage&) = delete;

  // Host buffers for the tile's coefficients, one per component: rect.height() rows of
  // rect.width() int32 (reversible) or float values, packed, not zeroed. `mct`: the inverse
  // RCT / ICT on components 0..2 (which must then share size, window and wavelet).
  const std::vector<void*>& begin(const std::vector<Component>& components, bool mct);
  // Runs (CPU) or enqueues (GPU) the tile handed out by begin().
  void end();

  // Whether a tile's coefficients can be written on the device instead (the CUDA and OpenCL
  // backends): then begin_on_device() and end_on_device() may take the place of begin() and
  // end().
  bool on_device() const;
  // begin() without host buffers; waits for the queue to start.
  void begin_on_device(const std::vector<Component>& components, bool mct);
  // end() for a tile opened by begin_on_device(): write(planes, stream) enqueues on `stream`
  // (a cudaStream_t whose device is current, or a cl_command_queue) the work that writes
  // component c's coefficients into planes[c] (the queue's device memory, transform/queue.hpp,
  // laid out as begin()'s buffers), ahead of the inverse DWT.
  using DeviceWriter = std::function<void(const std::vector<Plane>& planes, void* stream)>;
  void end_on_device(const DeviceWriter& write);
  // Waits until every tile's samples are home; throws what the device reported.
  void finish();
  // After an error: waits for whatever is in flight (its errors dropped) and forgets the open
  // tile, so that the stage can serve the next image. The samples of the image are undefined.
  void cancel() noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k
