// SPDX-License-Identifier: BSD-2-Clause
#include "tools/transform_rows.hpp"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "tools/frame_output.hpp"
#include "tools/layout_json.hpp"
#include "tools/output_dir.hpp"

namespace j2k::tools {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

std::vector<TileRow> tile_rows(const j2k_settings& s, int64_t x0, int64_t y0, int64_t width, int64_t height) {
  CanvasSpec spec;
  spec.image_x0 = x0;
  spec.image_y0 = y0;
  spec.image_x1 = x0 + width;
  spec.image_y1 = y0 + height;
  spec.tile_x0 = s.tile_x0;
  spec.tile_y0 = s.tile_y0;
  const bool tiled = s.tile_w != 0 && s.tile_h != 0;  // else one tile from the grid's origin
  spec.tile_w = tiled ? int64_t{s.tile_w} : spec.image_x1 - s.tile_x0;
  spec.tile_h = tiled ? int64_t{s.tile_h} : spec.image_y1 - s.tile_y0;
  spec.components = {{}};
  const Canvas canvas(spec);
  std::vector<TileRow> rows;
  for (int64_t q = 0; q < canvas.tiles_y(); ++q) rows.push_back(canvas.tile_row(q));
  return rows;
}

uint64_t whole_image_bytes(const io::ImageReader& reader) {
  uint64_t samples = 0;
  for (const j2kfront::Image::Component& c : reader.shape().components)
    samples += static_cast<uint64_t>(c.width) * static_cast<uint64_t>(c.height);
  return reader.sample_bytes() + 4 * samples;
}

void return_large_buffers_at_once() {
#ifdef M_MMAP_THRESHOLD
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}

void transform_by_tile_rows(io::ImageReader& reader, const RowsJob& job) {
  return_large_buffers_at_once();
  j2kfront::Image shape = reader.shape();  // the whole image's size and components
  shape.x0 = static_cast<uint32_t>(job.x0);
  shape.y0 = static_cast<uint32_t>(job.y0);
  const std::vector<TileRow> rows = tile_rows(job.settings, job.x0, job.y0, shape.width, shape.height);
  const int64_t tiles_x = rows.size() > 1 ? rows[1].first_tile : 0;  // known from the first plan otherwise

  Summary summary;
  summary.input = job.input;
  summary.outdir = job.outdir;
  summary.image = &shape;
  summary.settings = &job.settings;
  summary.how = "in " + std::to_string(rows.size()) + " rows of tiles";

  OutputDir out(job.outdir, job.input, job.force, is_generated_name);
  // Every name is checked before any is written, so that a refused run leaves the directory
  // as it was; the tiles of a row are as many as the first row's plan has.
  std::set<std::string> names;
  nlohmann::json layout;
  for (const TileRow& row : rows) {
    const auto rows_here = static_cast<uint32_t>(row.y1 - row.y0);
    const uint64_t band_bytes = reader.row_bytes() * rows_here;
    const std::string which = "the row of tiles at canvas rows " + std::to_string(row.y0) + ".." +
                              std::to_string(row.y1 - 1);
    const std::string budget = std::to_string(job.budget) + " that --max-memory allows; use smaller tiles";
    if (job.budget && band_bytes >= job.budget)
      throw j2kfront::Error(J2K_OUT_OF_MEMORY, job.input + ": " + which + " needs " + std::to_string(band_bytes) +
                                                   " bytes for its samples alone, more than the " + budget);
    auto t0 = Clock::now();
    j2kfront::Image band = reader.read_rows(rows_here, job.budget);
    band.x0 = shape.x0;
    band.y0 = static_cast<uint32_t>(row.y0);
    summary.read_ms += ms_since(t0);

    j2k_settings s = job.settings;
    s.tile_y0 = static_cast<uint32_t>(row.top);
    s.max_host_memory = job.budget ? job.budget - band_bytes : 0;
    const j2kfront::ImageView view = band.view();
    std::unique_ptr<j2kfront::Plan> plan;
    try {
      plan = std::make_unique<j2kfront::Plan>(s, view);
    } catch (const j2kfront::Error& e) {
      if (e.status() != J2K_OUT_OF_MEMORY) throw;
      // The plan's buffers grow with the threads (each has its scratch rows): fewer may fit.
      throw j2kfront::Error(J2K_OUT_OF_MEMORY, job.input + ": " + which + ": " + e.what() + "; its samples take " +
                                                   std::to_string(band_bytes) + " bytes of the " + budget +
                                                   " or fewer --threads");
    }
    const j2k_plan_info info = plan->info();
    if (info.tiles_y != 1 || (tiles_x && info.tiles_x != tiles_x))
      throw j2kfront::Error(J2K_INTERNAL_ERROR, job.input + ": " + which + " was planned as " +
                                                    std::to_string(info.tiles_x) + "x" + std::to_string(info.tiles_y) +
                                                    " tiles");
    if (names.empty()) {
      names = output_names(info.tiles_x * static_cast<int64_t>(rows.size()), shape.components.size());
      for (const std::string& n : names) out.check_writable(n);
      out.begin(names);
      j2k_plan_info whole = info;
      whole.tiles_y = static_cast<int64_t>(rows.size());
      layout = layout_json(whole, job.settings, shape, job.input);
      summary.info = whole;
      summary.description = info.description;
    }
    std::vector<j2k_coefficients> coefficients;
    for (size_t i = 0; i < info.tile_components; ++i) coefficients.push_back(plan->tile_component(i).coefficients);

    plan->wait(plan->submit(view));  // its time is in the plan's stage times
    const j2k_stage_times times = plan->times();
    summary.times.split_ms += times.split_ms;
    summary.times.shift_mct_ms += times.shift_mct_ms;
    summary.times.dwt_ms += times.dwt_ms;

    t0 = Clock::now();
    write_tile_components(out, *plan, coefficients, row.first_tile);
    add_tile_components(layout, *plan, row.first_tile);
    summary.write_ms += ms_since(t0);
  }
  const auto t0 = Clock::now();
  // The manifest last: while it is absent, the marker says the set is incomplete.
  out.write_text(OutputDir::kManifest, layout.dump(1) + "\n");
  out.finish(names);
  summary.write_ms += ms_since(t0);
  if (!job.quiet) print_summary(summary);
}

}  // namespace j2k::tools
