// SPDX-License-Identifier: BSD-2-Clause
#include "transform/host_rows.hpp"

#include "transform/cpu/dwt_cpu.hpp"
#include "transform/cpu/shift_mct.hpp"
#include "transform/cpu/to_samples.hpp"

namespace j2k {

size_t host_rows_scratch(const Rect& tc) { return cpu::scratch_per_thread(tc); }

void host_inverse_levels(int32_t* data, ptrdiff_t stride, const DwtLevel* levels, int count, int threads, int32_t* scratch,
                         size_t per_thread) {
  cpu::dwt(J2K_INVERSE, data, stride, levels, count, threads, cpu::Scratch<int32_t>{scratch, per_thread});
}
void host_inverse_levels(float* data, ptrdiff_t stride, const DwtLevel* levels, int count, int threads, float* scratch,
                         size_t per_thread) {
  cpu::dwt(J2K_INVERSE, data, stride, levels, count, threads, cpu::Scratch<float>{scratch, per_thread},
           constants::kInverse97OpenJpeg);
}

void host_inverse_row(const int32_t* low, const int32_t* high, int32_t* out, ptrdiff_t w, int cas, int32_t* scratch) {
  cpu::inverse_row(low, high, out, w, cas, scratch);
}
void host_inverse_row(const float* low, const float* high, float* out, ptrdiff_t w, int cas, float* scratch) {
  cpu::inverse_row(low, high, out, w, cas, scratch, constants::kInverse97OpenJpeg);
}

void host_inverse_vertical(int32_t* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads, int32_t* scratch,
                           size_t per_thread) {
  cpu::inverse_vertical(data, stride, w, h, cas, threads, cpu::Scratch<int32_t>{scratch, per_thread});
}
void host_inverse_vertical(float* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads, float* scratch,
                           size_t per_thread) {
  cpu::inverse_vertical(data, stride, w, h, cas, threads, cpu::Scratch<float>{scratch, per_thread},
                        constants::kInverse97OpenJpeg);
}

bool host_shift_mct(const TileSamples& tile, bool reversible, const std::vector<Plane>& out, int threads) {
  return cpu::shift_mct(tile, reversible ? Wavelet::Reversible53 : Wavelet::Irreversible97, out, threads);
}

void host_forward_vertical(int32_t* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads, int32_t* scratch,
                           size_t per_thread) {
  cpu::forward_vertical(data, stride, w, h, cas, threads, cpu::Scratch<int32_t>{scratch, per_thread});
}
void host_forward_vertical(float* data, ptrdiff_t stride, ptrdiff_t w, ptrdiff_t h, int cas, int threads, float* scratch,
                           size_t per_thread) {
  cpu::forward_vertical(data, stride, w, h, cas, threads, cpu::Scratch<float>{scratch, per_thread});
}
void host_forward_row(const int32_t* in, int32_t* low, int32_t* high, ptrdiff_t w, int cas) {
  cpu::forward_row(in, low, high, w, cas);
}
void host_forward_row(const float* in, float* low, float* high, ptrdiff_t w, int cas) {
  cpu::forward_row(in, low, high, w, cas);
}
void host_forward_levels(int32_t* data, ptrdiff_t stride, const DwtLevel* levels, int count, int threads, int32_t* scratch,
                         size_t per_thread) {
  cpu::dwt(J2K_FORWARD, data, stride, levels, count, threads, cpu::Scratch<int32_t>{scratch, per_thread});
}
void host_forward_levels(float* data, ptrdiff_t stride, const DwtLevel* levels, int count, int threads, float* scratch,
                         size_t per_thread) {
  cpu::dwt(J2K_FORWARD, data, stride, levels, count, threads, cpu::Scratch<float>{scratch, per_thread});
}
std::string host_description(int threads) { return cpu::describe(threads); }

void host_to_samples(const std::vector<Plane>& in, const TileOutput& out, int threads) { cpu::to_samples(in, out, threads); }

}  // namespace j2k
