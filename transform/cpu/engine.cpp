// SPDX-License-Identifier: BSD-2-Clause
// The CPU backend as a DwtEngine.
#include <string>

#include "j2kfront/config.h"
#include "transform/cpu/dwt_cpu.hpp"
#include "common/parallel/parallel_for.hpp"
#include "transform/dwt_engine.hpp"


namespace j2k {
namespace {

class CpuEngine final : public DwtEngine {
 public:
  explicit CpuEngine(int threads) : threads_(threads) {}
  Backend kind() const override { return Backend::Cpu; }
  std::string description() const override { return cpu::describe(threads_); }
  void forward53(int32_t* d, size_t s, const Rect& tc, int l) override { cpu::forward53(d, s, tc, l, threads_); }
  void inverse53(int32_t* d, size_t s, const Rect& tc, int l) override { cpu::inverse53(d, s, tc, l, threads_); }
  void forward97(float* d, size_t s, const Rect& tc, int l) override { cpu::forward97(d, s, tc, l, threads_); }
  void inverse97(float* d, size_t s, const Rect& tc, int l) override { cpu::inverse97(d, s, tc, l, threads_); }

 private:
  int threads_;
};

}  // namespace

std::unique_ptr<DwtEngine> make_cpu_engine(const BackendOptions& options) {
  return std::make_unique<CpuEngine>(options.threads);
}

}  // namespace j2k
