// The CPU backend's queue: the host queue with the reference DWT and its reserved scratch.
#include "transform/host_queue.hpp"

namespace j2k {

std::unique_ptr<Queue> make_cpu_queue(const BackendOptions& options) {
  return std::make_unique<HostQueue>(Backend::Cpu, nullptr, options.threads);
}

}  // namespace j2k
