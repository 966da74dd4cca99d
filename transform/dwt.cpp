// SPDX-License-Identifier: BSD-2-Clause
// j2k::Dwt: the public face of the DWT engines; checks arguments once for every backend.
#include "transform/dwt.hpp"

#include <string>

#include "common/error.hpp"
#include "common/parallel/worker_pool.hpp"
#include "transform/dwt_engine.hpp"

namespace j2k {

class Dwt::Impl {
 public:
  std::unique_ptr<DwtEngine> engine;
  j2k_thread_pool thread_pool{};  // the embedder's, for the CPU engine's runs
};

namespace {
void check(const void* data, size_t stride, const Rect& tc, int levels) {
  if (levels < 0 || levels > kMaxLevels)
    throw Error(ErrorCode::InvalidArgument, "levels must be 0.." + std::to_string(kMaxLevels) +
                                                ", got " + std::to_string(levels));
  if (tc.x0 < 0 || tc.y0 < 0 || tc.x1 < tc.x0 || tc.y1 < tc.y0)
    throw Error(ErrorCode::InvalidArgument, "tile-component rectangle is invalid");
  if (static_cast<int64_t>(stride) < tc.width())
    throw Error(ErrorCode::InvalidArgument, "stride " + std::to_string(stride) +
                                                " is smaller than the width " +
                                                std::to_string(tc.width()));
  if (data == nullptr && !tc.empty())
    throw Error(ErrorCode::InvalidArgument, "null buffer for a non-empty tile-component");
}
}  // namespace

Dwt::Dwt(const BackendOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->engine = make_engine(options);
  impl_->thread_pool = options.thread_pool;
}
Dwt::~Dwt() = default;
Dwt::Dwt(Dwt&&) noexcept = default;
Dwt& Dwt::operator=(Dwt&&) noexcept = default;

Backend Dwt::backend() const { return impl_->engine->kind(); }
std::string Dwt::description() const { return impl_->engine->description(); }

void Dwt::forward53(int32_t* data, size_t stride, const Rect& tc, int levels) {
  const ScopedThreadPool pool(impl_->thread_pool);
  check(data, stride, tc, levels);
  if (!tc.empty()) impl_->engine->forward53(data, stride, tc, levels);
}
void Dwt::inverse53(int32_t* data, size_t stride, const Rect& tc, int levels) {
  const ScopedThreadPool pool(impl_->thread_pool);
  check(data, stride, tc, levels);
  if (!tc.empty()) impl_->engine->inverse53(data, stride, tc, levels);
}
void Dwt::forward97(float* data, size_t stride, const Rect& tc, int levels) {
  const ScopedThreadPool pool(impl_->thread_pool);
  check(data, stride, tc, levels);
  if (!tc.empty()) impl_->engine->forward97(data, stride, tc, levels);
}
void Dwt::inverse97(float* data, size_t stride, const Rect& tc, int levels) {
  const ScopedThreadPool pool(impl_->thread_pool);
  check(data, stride, tc, levels);
  if (!tc.empty()) impl_->engine->inverse97(data, stride, tc, levels);
}

}  // namespace j2k
