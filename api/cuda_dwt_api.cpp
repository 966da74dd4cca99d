// SPDX-License-Identifier: BSD-2-Clause
// j2k_cuda_dwt and its workspace query (include/j2kfront/j2kfront.h): the C face of
// transform/device_dwt.hpp (CUDA's cuda_dwt where built, which checks every argument before
// any CUDA call; BackendUnavailable in a build without CUDA).
#include <string>

#include "api/guard.hpp"
#include "common/buffer_size.hpp"
#include "common/c_enum.hpp"
#include "common/error.hpp"
#include "j2kfront/j2kfront.h"
#include "transform/device_dwt.hpp"

namespace {

using j2k::api::require;

j2k::Wavelet wavelet_from(j2k_wavelet w) {
  switch (j2k::c_enum(w)) {
    case J2K_WAVELET_53: return j2k::Wavelet::Reversible53;
    case J2K_WAVELET_97: return j2k::Wavelet::Irreversible97;
  }
  throw j2k::Error(j2k::ErrorCode::InvalidArgument,
                   "unknown wavelet value " + std::to_string(j2k::c_enum(w)));
}

j2k::Rect rect_from(const j2k_rect* r, const char* call) {
  require(r != nullptr, std::string(call) + ": rect is NULL");
  return j2k::Rect{r->x0, r->y0, r->x1, r->y1};
}

// The plane once its type is known and its rows of the rect's width lie within its bytes
// (strides, pointers and the rect itself are checked by cuda_dwt).
j2k::DevicePlane plane_from(const j2k_device_plane* p, const char* which, const j2k::Rect& r) {
  const std::string name = std::string("j2k_cuda_dwt: ") + which;
  require(p != nullptr, name + " is NULL");
  const int type = j2k::c_enum(p->type);
  require(type >= J2K_SAMPLE_U8 && type <= J2K_SAMPLE_F32,
          name + " has an unknown type (" + std::to_string(type) + ")");
  const auto elem = static_cast<int64_t>(j2k_sample_size(p->type));
  const bool checked_by_cuda_dwt =  // null data, a bad rect or stride: cuda_dwt names them
      p->data == nullptr || r.x0 < 0 || r.y0 < 0 || r.x1 < r.x0 || r.y1 < r.y0 || p->row_stride < 0 ||
      p->row_stride % elem != 0;
  if (!checked_by_cuda_dwt)
    j2k::check_buffer_size(name, r.width(), r.height(), p->row_stride, elem, elem, p->bytes);
  j2k::DevicePlane plane;
  plane.data = p->data;
  plane.type = p->type;
  plane.row_stride = p->row_stride;
  return plane;
}

}  // namespace

using j2k::api::guard;

extern "C" {

j2k_status j2k_cuda_dwt_workspace_size(j2k_wavelet wavelet, const j2k_rect* rect, int levels,
                                       size_t* bytes) {
  if (bytes) *bytes = 0;
  return guard([&] {
    require(bytes != nullptr, "j2k_cuda_dwt_workspace_size: bytes is NULL");
    *bytes = j2k::device_dwt_workspace_bytes(
        wavelet_from(wavelet), rect_from(rect, "j2k_cuda_dwt_workspace_size"), levels);
  });
}

j2k_status j2k_cuda_dwt(j2k_direction direction, j2k_wavelet wavelet,
                        const j2k_device_plane* src, int32_t dc_shift,
                        const j2k_device_plane* dst, const j2k_rect* rect, int levels,
                        void* workspace, size_t workspace_bytes, void* stream) {
  return guard([&] {
    const int dir = j2k::c_enum(direction);
    require(dir == J2K_FORWARD || dir == J2K_INVERSE,
            "j2k_cuda_dwt: direction " + std::to_string(dir) + " is not J2K_FORWARD or J2K_INVERSE");
    const j2k::Rect r = rect_from(rect, "j2k_cuda_dwt");
    j2k::device_dwt(direction, wavelet_from(wavelet), plane_from(src, "src", r), dc_shift,
                    plane_from(dst, "dst", r), r, levels, workspace, workspace_bytes, stream);
  });
}

}  // extern "C"
