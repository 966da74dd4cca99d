// SPDX-License-Identifier: BSD-2-Clause
// The host memory one decode or encode may take (--max-memory, max_bytes), and what it has
// taken so far. Every large allocation of the codec is reserved here first, from an estimate
// made before the work (a few header bytes can describe millions of code-blocks): a stream or
// image that needs more than the limit is refused with an error that says what for, how much
// and the limit, before its memory is touched. Reservations may come from worker threads.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

#include "common/error.hpp"

namespace j2k {

// A byte count as MiB, for messages: "3.2 MiB", "1520 MiB".
inline std::string mib_text(uint64_t bytes) {
  const double m = static_cast<double>(bytes) / (1 << 20);
  char text[32];
  std::snprintf(text, sizeof text, m >= 100 ? "%.0f MiB" : "%.3g MiB", m);
  return text;
}

// What a heap block of `bytes` takes from the system with glibc's malloc: the request, its
// 8-byte header, rounded up to 16, at least 32. Estimates of many small vectors count this
// rather than the bytes asked, or they under-count several times over.
constexpr uint64_t heap_bytes(uint64_t bytes) {
  return bytes == 0 ? 0 : (bytes + 8 + 15) / 16 * 16 < 32 ? 32 : (bytes + 8 + 15) / 16 * 16;
}

class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t limit = 0) : limit_(limit) {}  // 0: no limit (still counted)
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // Takes `bytes` for `what` ("tile 3's code-blocks (5000000 of them)"); throws
  // Error(OutOfMemory) naming it, the bytes, what is taken already and the limit, leaving
  // the budget as it was, when that would pass the limit.
  void reserve(uint64_t bytes, const std::string& what) {
    if (!try_reserve(bytes)) refuse(bytes, what);
  }
  // reserve() for hot paths: false, and nothing taken, past the limit; then refuse().
  bool try_reserve(uint64_t bytes) {
    uint64_t now = reserved_.load(std::memory_order_relaxed);
    do {
      if (limit_ != 0 && (now + bytes > limit_ || now + bytes < now)) return false;
    } while (!reserved_.compare_exchange_weak(now, now + bytes, std::memory_order_relaxed));
    uint64_t peak = peak_.load(std::memory_order_relaxed);
    while (peak < now + bytes && !peak_.compare_exchange_weak(peak, now + bytes, std::memory_order_relaxed)) {
    }
    return true;
  }
  [[noreturn]] void refuse(uint64_t bytes, const std::string& what) const {
    const uint64_t now = reserved();
    throw Error(ErrorCode::OutOfMemory, what + " needs " + mib_text(bytes) +
                                            (now ? " beyond the " + mib_text(now) + " taken already" : std::string()) +
                                            ", more than the " + mib_text(limit_) + " of memory allowed (max_bytes, --max-memory)");
  }
  void release(uint64_t bytes) { reserved_.fetch_sub(bytes, std::memory_order_relaxed); }

  uint64_t limit() const { return limit_; }
  uint64_t reserved() const { return reserved_.load(std::memory_order_relaxed); }
  uint64_t peak() const { return peak_.load(std::memory_order_relaxed); }  // the most reserved at once

 private:
  const uint64_t limit_;
  std::atomic<uint64_t> reserved_{0};
  std::atomic<uint64_t> peak_{0};
};

// Bytes reserved in a budget for as long as the structures they stand for live; more may be
// added (grow, from any thread) as they grow. Movable, so that it can travel with what it
// covers.
class Reservation {
 public:
  Reservation() = default;
  explicit Reservation(MemoryBudget* budget) : budget_(budget) {}
  template <class What>
  Reservation(MemoryBudget* budget, uint64_t bytes, const What& what) : budget_(budget) { grow(bytes, what); }
  Reservation(Reservation&& o) noexcept : budget_(o.budget_), bytes_(o.bytes_.exchange(0)) {}
  Reservation& operator=(Reservation&& o) noexcept {
    if (this != &o) {
      reset();
      budget_ = o.budget_;
      bytes_ = o.bytes_.exchange(0);
    }
    return *this;
  }
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation() { reset(); }

  // With no budget (null), nothing is counted. `what`: a string, or a function that makes
  // one (called only to refuse).
  template <class What>
  void grow(uint64_t bytes, const What& what) {
    if (try_grow(bytes)) return;
    if constexpr (std::is_invocable_v<What>) budget_->refuse(bytes, what());
    else budget_->refuse(bytes, what);
  }
  // grow() for what can be done without: false, and nothing taken, where the budget has no
  // room for it.
  bool try_grow(uint64_t bytes) {
    if (!budget_ || bytes == 0) return true;
    if (!budget_->try_reserve(bytes)) return false;
    bytes_.fetch_add(bytes, std::memory_order_relaxed);
    return true;
  }
  // Gives back `bytes` of it (at most what it holds) once what they stood for is freed.
  void release(uint64_t bytes) {
    uint64_t now = bytes_.load(std::memory_order_relaxed);
    while (!bytes_.compare_exchange_weak(now, now - std::min(now, bytes), std::memory_order_relaxed)) {
    }
    if (budget_) budget_->release(std::min(now, bytes));
  }
  void reset() {
    const uint64_t bytes = bytes_.exchange(0);
    if (budget_ && bytes) budget_->release(bytes);
  }
  uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  MemoryBudget* budget_ = nullptr;
  std::atomic<uint64_t> bytes_{0};
};

}  // namespace j2k
