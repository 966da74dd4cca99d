// SPDX-License-Identifier: BSD-2-Clause
// j2k_decode_settings and j2k_decoder_*: the codec's decoder (codec/decoder.hpp) behind the C
// interface; the images it returns are views of the decoder's buffers.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "api/guard.hpp"
#include "codec/decoder.hpp"
#include "common/parallel/thread_limit.hpp"

struct j2k_decoder {
  j2k_decode_settings settings;
  std::vector<int> components;  // the settings' array, copied
  std::vector<j2k::SampleBytes> buffers;  // per component
  std::vector<j2k_component_view> views;
  j2k_decode_report report{};
  std::string warnings;
  std::vector<uint8_t> icc;                  // the report's JP2 metadata
  std::vector<j2k::codec::Jp2Box> boxes;
  std::vector<j2k_box> box_views;
  // The back stage, made by the first run and kept: a GPU's queue and buffers serve every
  // image this decoder decodes.
  std::unique_ptr<j2k::BackStage> stage;
  j2k::Backend backend = j2k::Backend::Cpu;  // the stage's
};

namespace {

using j2k::api::guard;
using j2k::api::require;

}  // namespace

extern "C" {

void j2k_decode_settings_default(j2k_decode_settings* settings) {
  if (!settings) return;
  *settings = j2k_decode_settings{};
  settings->tile = -1;
  settings->backend = J2K_BACKEND_AUTO;
  settings->device = -1;
}

j2k_status j2k_decoder_create(const j2k_decode_settings* settings, j2k_decoder** decoder) {
  return guard([&] {
    require(settings != nullptr && decoder != nullptr, "j2k_decoder_create: settings and decoder must not be null");
    require(settings->reduce >= 0 && settings->reduce <= 32, "reduce must be 0 to 32, got " + std::to_string(settings->reduce));
    require(settings->layers >= 0 && settings->layers <= 65535, "layers must be 0 (all) to 65535, got " + std::to_string(settings->layers));
    require(j2k::thread_count_problem(settings->threads).empty(), j2k::thread_count_problem(settings->threads));
    require(settings->tile >= -1, "tile must be -1 (all) or a tile's index, got " + std::to_string(settings->tile));
    require(settings->backend == J2K_BACKEND_AUTO || settings->backend == J2K_BACKEND_CPU ||
                settings->backend == J2K_BACKEND_CUDA || settings->backend == J2K_BACKEND_OPENCL,
            "backend must be AUTO, CPU, CUDA or OPENCL, got " + std::to_string(static_cast<int>(settings->backend)));
    require(settings->device >= -1, "device must be -1 (the default) or a device index, got " + std::to_string(settings->device));
    require(settings->num_components >= 0 && (settings->num_components == 0 || settings->components != nullptr),
            "num_components must be 0 (all) or the count of the `components` array");
    *decoder = new j2k_decoder{*settings, {}, {}, {}, {}, {}, {}, {}, {}, {}};
    (*decoder)->components.assign(settings->components, settings->components + settings->num_components);
  });
}

void j2k_decoder_destroy(j2k_decoder* decoder) { delete decoder; }

namespace {

// Fills a view of `image`'s shape (its x0, y0, width, height, components) into `view`, whose
// components point into `views`; each component's data and bytes are left to the caller.
void view_of(const j2k::codec::DecodedImage& decoded, std::vector<j2k_component_view>& views, j2k_image_view& view) {
  const size_t n = decoded.components.size();
  views.assign(n, j2k_component_view{});
  for (size_t c = 0; c < n; ++c) {
    const j2k::codec::DecodedComponent& k = decoded.components[c];
    j2k_component_view& v = views[c];
    v.type = k.type;
    v.precision = k.precision;
    v.dx = k.dx;
    v.dy = k.dy;
    v.pixel_stride = static_cast<ptrdiff_t>(j2k_sample_size(k.type));
    v.row_stride = v.pixel_stride * static_cast<ptrdiff_t>(k.width);
  }
  view = j2k_image_view{};
  view.x0 = static_cast<uint32_t>(decoded.x0);
  view.y0 = static_cast<uint32_t>(decoded.y0);
  view.width = static_cast<uint32_t>(decoded.width);
  view.height = static_cast<uint32_t>(decoded.height);
  view.num_components = static_cast<int>(n);
  view.components = views.data();
  view.memory = J2K_MEMORY_HOST;
  view.device = -1;
}

// The decode of j2k_decoder_run and j2k_decoder_run_rows: the image (whole, or its shape when
// its rows went to `rows`), its report kept in the decoder.
j2k::codec::DecodedImage run(j2k_decoder* decoder, const void* data, size_t size, j2k::codec::RowSink rows) {
  const auto start = std::chrono::steady_clock::now();
  j2k::codec::DecodeSettings s;
  s.reduce = decoder->settings.reduce;
  s.layers = decoder->settings.layers;
  s.allow_partial = decoder->settings.allow_partial != 0;
  s.convert_colour = decoder->settings.convert_colour != 0;
  s.keep_cmyk = decoder->settings.keep_cmyk != 0;
  s.keep_icc = decoder->settings.keep_icc != 0;
  s.max_bytes = decoder->settings.max_bytes;
  s.tile = decoder->settings.tile;
  const j2k_rect& g = decoder->settings.region;
  s.region = j2k::Rect{g.x0, g.y0, g.x1, g.y1};
  s.components = decoder->components;
  const j2k_backend b = decoder->settings.backend;
  s.backend = j2k::BackendOptions(b == J2K_BACKEND_CUDA     ? j2k::Backend::Cuda
                                  : b == J2K_BACKEND_OPENCL ? j2k::Backend::OpenCL
                                  : b == J2K_BACKEND_CPU    ? j2k::Backend::Cpu
                                                            : j2k::Backend::Auto,
                                  decoder->settings.threads, decoder->settings.device);
  // AUTO is decided at the first image, by its size, and kept with the stage.
  if (!decoder->stage) {
    s.backend.backend = j2k::resolve_backend(s.backend.backend, j2k::Job::Decompress, size, s.backend.threads);
    decoder->backend = s.backend.backend;
    decoder->stage = std::make_unique<j2k::BackStage>(s.backend);
  }
  s.backend.backend = decoder->backend;
  s.rows = std::move(rows);
  j2k::codec::DecodedImage decoded = j2k::codec::decode(static_cast<const uint8_t*>(data), size, s, decoder->stage.get());

  decoder->warnings.clear();
  for (const std::string& w : decoded.warnings) decoder->warnings += w + "\n";
  decoder->report = j2k_decode_report{};
  decoder->report.truncated = decoded.truncated ? 1 : 0;
  decoder->report.jp2 = decoded.format == j2k::codec::FileFormat::Jp2 ? 1 : 0;
  decoder->report.enum_cs = decoded.enum_cs;
  decoder->report.warnings = decoder->warnings.c_str();
  decoder->icc = std::move(decoded.icc);
  decoder->boxes = std::move(decoded.boxes);
  decoder->box_views.clear();
  for (const j2k::codec::Jp2Box& box : decoder->boxes) decoder->box_views.push_back({box.type, box.contents.data(), box.contents.size()});
  decoder->report.icc_profile = decoder->icc.empty() ? nullptr : decoder->icc.data();
  decoder->report.icc_profile_size = decoder->icc.size();
  decoder->report.icc_applied = decoded.icc_applied ? 1 : 0;
  decoder->report.resolution_x = decoded.resolution.x;
  decoder->report.resolution_y = decoded.resolution.y;
  decoder->report.display_resolution_x = decoded.display.x;
  decoder->report.display_resolution_y = decoded.display.y;
  decoder->report.num_boxes = static_cast<int>(decoder->box_views.size());
  decoder->report.boxes = decoder->box_views.empty() ? nullptr : decoder->box_views.data();
  decoder->report.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return decoded;
}

}  // namespace

j2k_status j2k_decoder_run(j2k_decoder* decoder, const void* data, size_t size, j2k_image_view* image) {
  return guard([&] {
    require(decoder != nullptr && image != nullptr, "j2k_decoder_run: decoder and image must not be null");
    require(data != nullptr || size == 0, "j2k_decoder_run: data is null");
    j2k::codec::DecodedImage decoded = run(decoder, data, size, nullptr);
    view_of(decoded, decoder->views, *image);
    const size_t n = decoded.components.size();
    decoder->buffers.resize(n);
    for (size_t c = 0; c < n; ++c) {
      decoder->buffers[c] = std::move(decoded.components[c].bytes);
      decoder->views[c].data = decoder->buffers[c].data();
      decoder->views[c].bytes = decoder->buffers[c].size();
    }
  });
}

j2k_status j2k_decoder_run_rows(j2k_decoder* decoder, const void* data, size_t size, j2k_rows_callback take, void* user) {
  return guard([&] {
    require(decoder != nullptr && take != nullptr, "j2k_decoder_run_rows: decoder and take must not be null");
    require(data != nullptr || size == 0, "j2k_decoder_run_rows: data is null");
    // The decoder's whole buffers of a previous run go first: the rows are made to need none.
    decoder->buffers.clear();
    decoder->views.clear();
    std::vector<j2k_component_view> views;
    j2k_image_view view{};
    auto hand_out = [&](uint32_t first_row, uint32_t count) {
      const j2k_status status = take(user, &view, first_row, count);
      if (status == J2K_OK) return;
      const bool named = status >= J2K_INVALID_ARGUMENT && status <= J2K_INTERNAL_ERROR;
      throw j2k::Error(named ? static_cast<j2k::ErrorCode>(status) : j2k::ErrorCode::Io,
                       "the rows callback stopped the decode at row " + std::to_string(first_row));
    };
    j2k::codec::DecodedImage decoded = run(decoder, data, size, [&](const j2k::codec::DecodedImage& image, const j2k::codec::DecodedRows& rows) {
      if (views.empty()) view_of(image, views, view);
      for (size_t c = 0; c < views.size(); ++c) {
        views[c].data = rows.data[c];
        views[c].bytes = static_cast<size_t>(rows.count) * static_cast<size_t>(views[c].row_stride);
      }
      hand_out(static_cast<uint32_t>(rows.y), static_cast<uint32_t>(rows.count));
    });
    if (decoded.streamed) return;
    // Not made by rows: the whole image in one call.
    view_of(decoded, views, view);
    for (size_t c = 0; c < views.size(); ++c) {
      views[c].data = decoded.components[c].bytes.data();
      views[c].bytes = decoded.components[c].bytes.size();
    }
    hand_out(0, view.height);
  });
}

j2k_status j2k_decoder_get_report(const j2k_decoder* decoder, j2k_decode_report* report) {
  return guard([&] {
    require(decoder != nullptr && report != nullptr, "j2k_decoder_get_report: decoder and report must not be null");
    *report = decoder->report;
  });
}

}  // extern "C"
