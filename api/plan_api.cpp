// SPDX-License-Identifier: BSD-2-Clause
// j2k_plan_*: the plan (pipeline/plan.hpp) behind the C interface.
#include <memory>
#include <string>
#include <vector>

#include "api/guard.hpp"
#include "api/plan_info.hpp"
#include "api/settings.hpp"
#include "pipeline/plan.hpp"

static_assert(J2K_MAX_FRAMES_IN_FLIGHT == j2k::Plan::kFramesInFlight, "one limit in the header and the plan");

struct j2k_plan {
  std::unique_ptr<j2k::Plan> plan;
  std::string description;
};

namespace {

using j2k::api::guard;
using j2k::api::require;

j2k_rect to_c(const j2k::Rect& r) { return j2k_rect{r.x0, r.y0, r.x1, r.y1}; }

j2k_coefficients coefficients(const j2k::Plane& p) {
  j2k_coefficients c{};
  c.data = static_cast<char*>(p.base) + p.offset;
  c.type = p.type;
  c.row_stride = p.row_stride;
  c.width = p.width;
  c.height = p.height;
  c.memory = p.memory;
  return c;
}

const j2k::PlanTileComponent& tile_component(const j2k_plan* plan, size_t index) {
  require(plan != nullptr, "plan is null");
  const auto& tcs = plan->plan->tile_components();
  require(index < tcs.size(), "tile-component " + std::to_string(index) + " does not exist (the plan has " +
                                  std::to_string(tcs.size()) + ")");
  return tcs[index];
}

// j2k_plan_submit and j2k_plan_submit_after: a refused frame leaves no ticket.
j2k_status submit(j2k_plan* plan, const j2k_image_view* image, bool after, void* stream, j2k_ticket* ticket) {
  if (ticket) *ticket = 0;
  return guard([&] {
    require(plan != nullptr, "plan is null");
    require(image != nullptr, "image is null");
    require(ticket != nullptr, "the ticket pointer to fill is null");
    *ticket = plan->plan->submit(*image, after, stream);
  });
}

}  // namespace

j2k_plan_info j2k::api::plan_info(const Plan& p, const std::string& description) {
  j2k_plan_info info{};
  info.backend = static_cast<j2k_backend>(p.backend());
  info.description = description.c_str();
  info.mct = p.mct() ? 1 : 0;
  info.tiles_x = p.canvas().tiles_x();
  info.tiles_y = p.canvas().tiles_y();
  info.tile_components = p.tile_components().size();
  info.coefficient_type = p.coefficient_type();
  info.streams = p.streams();
  return info;
}

extern "C" {

j2k_status j2k_plan_create(const j2k_settings* settings, const j2k_image_view* shape, j2k_plan** plan) {
  if (plan) *plan = nullptr;
  return guard([&] {
    require(settings != nullptr, "settings is null");
    require(shape != nullptr, "shape is null");
    require(plan != nullptr, "the plan pointer to fill is null");
    auto p = std::make_unique<j2k_plan>();
    p->plan = std::make_unique<j2k::Plan>(j2k::api::plan_settings(*settings, shape->num_components), *shape);
    // The OpenCL queue keeps DEVICE coefficients in a cl_mem, for the encoder's Tier-1 alone: a
    // caller gets pointers, which only CUDA's device memory has.
    require(settings->output_memory != J2K_MEMORY_DEVICE || p->plan->backend() == j2k::Backend::Cuda,
            std::string("output_memory DEVICE: the ") + j2k::backend_name(p->plan->backend()) +
                " backend keeps coefficients in host memory; device memory needs the cuda backend");
    p->description = p->plan->description();
    *plan = p.release();
  });
}

void j2k_plan_destroy(j2k_plan* plan) { delete plan; }

j2k_status j2k_plan_get_info(const j2k_plan* plan, j2k_plan_info* info) {
  return guard([&] {
    require(plan != nullptr, "plan is null");
    require(info != nullptr, "info is null");
    *info = j2k::api::plan_info(*plan->plan, plan->description);
  });
}

j2k_status j2k_plan_get_memory(const j2k_plan* plan, j2k_memory_report* report) {
  return guard([&] {
    require(plan != nullptr, "plan is null");
    require(report != nullptr, "report is null");
    *report = plan->plan->memory();
  });
}

j2k_status j2k_plan_get_tile_component(const j2k_plan* plan, size_t index, j2k_tile_component* out) {
  return guard([&] {
    const j2k::PlanTileComponent& tc = tile_component(plan, index);
    require(out != nullptr, "out is null");
    *out = j2k_tile_component{};
    out->tile = tc.tile;
    out->component = tc.component;
    out->rect = to_c(tc.rect);
    out->levels = tc.levels;
    out->bands = static_cast<int>(tc.bands.size());
    out->coefficients = coefficients(tc.home);
  });
}

j2k_status j2k_plan_get_band(const j2k_plan* plan, size_t index, int band, j2k_band* out) {
  return guard([&] {
    const j2k::PlanTileComponent& tc = tile_component(plan, index);
    require(out != nullptr, "out is null");
    require(band >= 0 && static_cast<size_t>(band) < tc.bands.size(),
            "band " + std::to_string(band) + " does not exist (the tile-component has " +
                std::to_string(tc.bands.size()) + ")");
    const j2k::BandInfo& b = tc.bands[static_cast<size_t>(band)];
    *out = j2k_band{};
    out->type = static_cast<j2k_band_type>(b.type);
    out->level = b.level;
    out->rect = to_c(b.rect);
    out->col = b.col;
    out->row = b.row;
    j2k::Plane p = tc.home;
    p.offset += static_cast<size_t>(b.row * p.row_stride + b.col * p.pixel_stride);
    p.width = b.rect.width();
    p.height = b.rect.height();
    out->coefficients = coefficients(p);
  });
}

j2k_status j2k_plan_set_output(j2k_plan* plan, size_t index, void* data, size_t bytes, ptrdiff_t row_stride,
                               j2k_memory memory) {
  return guard([&] {
    require(plan != nullptr, "plan is null");
    plan->plan->set_output(index, data, bytes, row_stride, memory);
  });
}

j2k_status j2k_plan_run(j2k_plan* plan, const j2k_image_view* image) {
  return guard([&] {
    require(plan != nullptr, "plan is null");
    require(image != nullptr, "image is null");
    plan->plan->run(*image);
  });
}

j2k_status j2k_plan_submit(j2k_plan* plan, const j2k_image_view* image, j2k_ticket* ticket) {
  return submit(plan, image, false, nullptr, ticket);
}

j2k_status j2k_plan_submit_after(j2k_plan* plan, const j2k_image_view* image, void* stream, j2k_ticket* ticket) {
  return submit(plan, image, true, stream, ticket);
}

j2k_status j2k_plan_signal(j2k_plan* plan, j2k_ticket ticket, void* stream) {
  return guard([&] {
    require(plan != nullptr, "plan is null");
    plan->plan->signal(ticket, stream);
  });
}

j2k_status j2k_plan_wait(j2k_plan* plan, j2k_ticket ticket) {
  return guard([&] {
    require(plan != nullptr, "plan is null");
    plan->plan->wait(ticket);
  });
}

j2k_status j2k_plan_set_tracing(j2k_plan* plan, int on) {
  return guard([&] {
    require(plan != nullptr, "plan is null");
    plan->plan->trace(on != 0);
  });
}

j2k_status j2k_plan_get_timeline(const j2k_plan* plan, j2k_span* spans, size_t capacity, size_t* count) {
  if (count) *count = 0;
  return guard([&] {
    require(plan != nullptr, "plan is null");
    require(count != nullptr, "count is null");
    require(spans != nullptr || capacity == 0, "spans is null with a capacity");
    const std::vector<j2k_span> all = plan->plan->timeline();
    for (size_t i = 0; i < all.size() && i < capacity; ++i) spans[i] = all[i];
    *count = all.size();
  });
}

j2k_status j2k_plan_get_times(const j2k_plan* plan, j2k_stage_times* times) {
  return guard([&] {
    require(plan != nullptr, "plan is null");
    require(times != nullptr, "times is null");
    *times = plan->plan->times();
  });
}

}  // extern "C"
