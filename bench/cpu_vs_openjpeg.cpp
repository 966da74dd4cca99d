// SPDX-License-Identifier: BSD-2-Clause
// Our CPU forward DWT against OpenJPEG 2.5.0's opj_dwt_encode / opj_dwt_encode_real, same
// machine, same thread count, same input, and checks that both give the same bits.
// Usage: cpu_vs_openjpeg [threads=2] [repeats=5] [sizes=4096,8192] [levels=5]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include "bench/bench.hpp"
#include "conformance/openjpeg_oracle.hpp"
#include "transform/dwt.hpp"

namespace {

using Clock = std::chrono::steady_clock;

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<int64_t> sizes{4096, 8192};
  if (argc > 3) {
    sizes.clear();
    std::stringstream ss(argv[3]);
    for (std::string s; std::getline(ss, s, ',');) sizes.push_back(std::stoll(s));
  }
  const int levels = argc > 4 ? std::atoi(argv[4]) : 5;
  if (threads < 1 || repeats < 1 || levels < 0) {
    std::fprintf(stderr, "usage: cpu_vs_openjpeg [threads>=1] [repeats>=1] [sizes] [levels]\n");
    return 2;
  }
  const std::string problem = oracle::version_problem();
  if (!problem.empty()) {
    std::fprintf(stderr, "cpu_vs_openjpeg: %s\n", problem.c_str());
    return 1;
  }
  j2k::Dwt dwt(j2k::BackendOptions{j2k::Backend::Cpu, threads, -1});
  std::printf("OpenJPEG %s vs %s, %d levels, median of %d\n", "2.5.0", dwt.description().c_str(),
              levels, repeats);
  std::printf("%-6s %-4s %12s %12s %8s %s\n", "size", "wav", "openjpeg ms", "j2kfront ms", "speedup", "bit-exact");
  int status = 0;
  for (int64_t n : sizes) {
    const j2k::Rect tc{0, 0, n, n};
    std::vector<int32_t> pattern = j2k::bench::test_pattern(n, n, 8);
    for (auto& v : pattern) v -= 128;
    for (bool rev : {true, false}) {
      std::vector<double> t_opj, t_ours;
      bool exact = true;
      for (int r = 0; r < repeats + 1; ++r) {  // the first round is a warm-up
        double opj_ms, our_ms;
        if (rev) {
          std::vector<int32_t> a = pattern, b = pattern;
          opj_ms = oracle::timed_forward53(a, tc, levels, threads);
          const auto t0 = Clock::now();
          dwt.forward53(b.data(), static_cast<size_t>(n), tc, levels);
          our_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
          exact = exact && same_bits(a, b);
        } else {
          std::vector<float> a(pattern.begin(), pattern.end()), b = a;
          opj_ms = oracle::timed_forward97(a, tc, levels, threads);
          const auto t0 = Clock::now();
          dwt.forward97(b.data(), static_cast<size_t>(n), tc, levels);
          our_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
          exact = exact && same_bits(a, b);
        }
        if (r > 0) {
          t_opj.push_back(opj_ms);
          t_ours.push_back(our_ms);
        }
      }
      const double mo = j2k::bench::median(t_opj), mu = j2k::bench::median(t_ours);
      std::printf("%-6lld %-4s %12.1f %12.1f %7.2fx %s\n", static_cast<long long>(n),
                  rev ? "5/3" : "9/7", mo, mu, mo / mu, exact ? "yes" : "NO");
      if (!exact) status = 1;
    }
  }
  return status;
}
