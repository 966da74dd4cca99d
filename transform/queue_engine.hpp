// SPDX-License-Identifier: BSD-2-Clause
// The DWT on host buffers (DwtEngine) through a backend's queue: upload, DWT, download,
// finish. Buffers grow to the largest geometry seen and are kept.
#pragma once
#include <memory>

#include "transform/dwt_engine.hpp"
#include "transform/queue.hpp"

namespace j2k {

std::unique_ptr<DwtEngine> make_queue_engine(std::unique_ptr<Queue> queue);

}  // namespace j2k
