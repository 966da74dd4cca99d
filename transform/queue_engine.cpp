// SPDX-License-Identifier: BSD-2-Clause
#include "transform/queue_engine.hpp"

#include <algorithm>

namespace j2k {
namespace {

class QueueEngine final : public DwtEngine {
 public:
  explicit QueueEngine(std::unique_ptr<Queue> queue) : queue_(std::move(queue)) {}
  Backend kind() const override { return queue_->kind(); }
  std::string description() const override { return queue_->description(); }
  void forward53(int32_t* d, size_t s, const Rect& tc, int l) override {
    run(J2K_FORWARD, Wavelet::Reversible53, d, s, tc, l);
  }
  void inverse53(int32_t* d, size_t s, const Rect& tc, int l) override {
    run(J2K_INVERSE, Wavelet::Reversible53, d, s, tc, l);
  }
  void forward97(float* d, size_t s, const Rect& tc, int l) override {
    run(J2K_FORWARD, Wavelet::Irreversible97, d, s, tc, l);
  }
  void inverse97(float* d, size_t s, const Rect& tc, int l) override {
    run(J2K_INVERSE, Wavelet::Irreversible97, d, s, tc, l);
  }

 private:
  void run(j2k_direction dir, Wavelet w, void* data, size_t stride, const Rect& tc, int levels) {
    if (tc.empty()) return;
    const j2k_sample_type type = coefficient_type(w);
    QueueNeeds needs;
    needs.components = 1;
    needs.staging_bytes = needs.output_bytes = static_cast<size_t>(tc.width() * tc.height()) * 4;
    needs.max_plane_bytes = needs.output_bytes;
    needs.dwt_workspace = queue_->dwt_workspace_bytes(w, tc, levels);
    if (needs.staging_bytes > reserved_.staging_bytes || needs.dwt_workspace > reserved_.dwt_workspace) {
      reserved_.staging_bytes = reserved_.output_bytes = std::max(reserved_.staging_bytes, needs.staging_bytes);
      reserved_.max_plane_bytes = reserved_.output_bytes;
      reserved_.dwt_workspace = std::max(reserved_.dwt_workspace, needs.dwt_workspace);
      reserved_.components = 1;
      queue_->reserve(reserved_);
    }
    Plane host;
    host.base = data;
    host.type = type;
    host.pixel_stride = 4;
    host.row_stride = static_cast<ptrdiff_t>(stride * 4);
    host.width = tc.width();
    host.height = tc.height();
    host.memory = J2K_MEMORY_HOST;
    const Plane out = queue_->output(0, type, host.width, host.height);
    const Plane in = queue_->in_place() ? out : queue_->staging(0, type, host.width, host.height);
    try {
      queue_->upload(host, in);
      queue_->dwt(dir, w, in, out, tc, levels, constants::kInverse97Standard);
      queue_->download(out, host);
      queue_->finish();
    } catch (...) {
      try {
        queue_->finish();  // no copy may still be using the caller's buffer
      } catch (...) {
      }
      throw;
    }
  }

  std::unique_ptr<Queue> queue_;
  QueueNeeds reserved_;
};

}  // namespace

std::unique_ptr<DwtEngine> make_queue_engine(std::unique_ptr<Queue> queue) {
  return std::make_unique<QueueEngine>(std::move(queue));
}

}  // namespace j2k
