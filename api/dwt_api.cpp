// SPDX-License-Identifier: BSD-2-Clause
// j2k_dwt_*: the DWT alone (transform/dwt.hpp) behind the C interface.
#include <memory>
#include <string>

#include "api/guard.hpp"
#include "common/buffer_size.hpp"
#include "common/c_enum.hpp"
#include "api/settings.hpp"
#include "transform/dwt.hpp"

struct j2k_dwt {
  std::unique_ptr<j2k::Dwt> dwt;
  std::string description;
};

namespace {
using j2k::api::guard;
using j2k::api::require;
}  // namespace

extern "C" {

j2k_status j2k_dwt_create(const j2k_settings* settings, j2k_dwt** dwt) {
  if (dwt) *dwt = nullptr;
  return guard([&] {
    require(settings != nullptr, "settings is null");
    require(dwt != nullptr, "the DWT pointer to fill is null");
    auto d = std::make_unique<j2k_dwt>();
    d->dwt = std::make_unique<j2k::Dwt>(j2k::api::backend_options(*settings));
    d->description = d->dwt->description();
    *dwt = d.release();
  });
}

void j2k_dwt_destroy(j2k_dwt* dwt) { delete dwt; }

j2k_status j2k_dwt_get_info(const j2k_dwt* dwt, j2k_backend* backend, const char** description) {
  return guard([&] {
    require(dwt != nullptr, "dwt is null");
    if (backend) *backend = static_cast<j2k_backend>(dwt->dwt->backend());
    if (description) *description = dwt->description.c_str();
  });
}

j2k_status j2k_dwt_run(j2k_dwt* dwt, j2k_direction direction, j2k_wavelet wavelet, void* data,
                       size_t bytes, ptrdiff_t row_stride, const j2k_rect* rect, int levels) {
  return guard([&] {
    require(dwt != nullptr, "dwt is null");
    require(rect != nullptr, "rect is null");
    const int dir = j2k::c_enum(direction), wav = j2k::c_enum(wavelet);
    require(dir == J2K_FORWARD || dir == J2K_INVERSE,
            "direction " + std::to_string(dir) + " is not J2K_FORWARD or J2K_INVERSE");
    require(wav == J2K_WAVELET_53 || wav == J2K_WAVELET_97,
            "wavelet " + std::to_string(wav) + " is not J2K_WAVELET_53 or J2K_WAVELET_97");
    require(row_stride > 0 && row_stride % 4 == 0,
            "row stride " + std::to_string(row_stride) + " must be a positive multiple of 4 bytes");
    require(reinterpret_cast<uintptr_t>(data) % 4 == 0, "data must be 4-byte aligned");
    const j2k::Rect r{rect->x0, rect->y0, rect->x1, rect->y1};
    if (data != nullptr && r.x0 >= 0 && r.y0 >= 0 && r.x0 <= r.x1 && r.y0 <= r.y1)  // else Dwt names the fault
      j2k::check_buffer_size("data", r.width(), r.height(), row_stride, 4, 4, bytes);
    const auto stride = static_cast<size_t>(row_stride / 4);  // Dwt checks it against the width
    const bool fwd = direction == J2K_FORWARD;
    j2k::Dwt& d = *dwt->dwt;
    if (wavelet == J2K_WAVELET_53) {
      auto* p = static_cast<int32_t*>(data);
      fwd ? d.forward53(p, stride, r, levels) : d.inverse53(p, stride, r, levels);
    } else {
      auto* p = static_cast<float*>(data);
      fwd ? d.forward97(p, stride, r, levels) : d.inverse97(p, stride, r, levels);
    }
  });
}

}  // extern "C"
