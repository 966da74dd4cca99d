// The encoder front stage on a whole image: tiles, DC level shift, RCT/ICT, DWT.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "transform/backend.hpp"
#include "tiling/canvas.hpp"
#include "tiling/geometry.hpp"
#include "pipeline/image.hpp"
#include "pipeline/plan.hpp"

namespace j2k {


struct Settings {
  Wavelet wavelet = Wavelet::Reversible53;
  int levels = 5;                        // 0..32
  int64_t tile_w = 0, tile_h = 0;        // 0 = one tile covering the image
  int64_t tile_x0 = 0, tile_y0 = 0;      // tile grid origin, at most the image origin
  Mct mct = Mct::Auto;
  BackendOptions backend;
};

struct TileComponent {
  int64_t tile = 0;
  int component = 0;
  Rect rect;   // tile-component on the component's grid (B-12)
  int levels = 0;
  std::vector<BandInfo> bands;  // LL first, then HL, LH, HH from the coarsest level down
  // Coefficients in OpenJPEG's pyramid layout, rect.height() rows of rect.width():
  // int32 for the 5/3, float32 for the 9/7 (the other vector is empty).
  std::vector<int32_t> coeffs_i32;
  std::vector<float> coeffs_f32;
};

struct StageTimes {
  double split_ms = 0;  // tiling: copying samples into tile-components
  double shift_mct_ms = 0;
  double dwt_ms = 0;
};

struct Result {
  CanvasSpec canvas;
  int64_t tiles_x = 0, tiles_y = 0;
  bool mct = false;
  Backend backend = Backend::Cpu;
  std::string backend_description;
  std::vector<TileComponent> tile_components;  // tile-major, then component
  StageTimes times;
};

class FrontStage {
 public:
  explicit FrontStage(const Settings& settings);  // validates settings, builds the backend
  ~FrontStage();
  FrontStage(FrontStage&&) noexcept;
  FrontStage& operator=(FrontStage&&) noexcept;

  Result run(const Image& image);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace j2k
