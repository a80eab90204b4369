// Tidepool app — the JSON the page reads: stats(), info(), bodies() and
// dye(), each made when asked (web_api.cpp hands them to JavaScript).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app.h"

namespace tidepool::app {

namespace {

// JSON string literal: quotes, backslashes and control characters escaped.
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// JSON has no NaN or infinity.
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

// "max_density_error" -> "maxDensityError".
std::string camel_case(const std::string& name) {
  std::string out;
  for (size_t k = 0; k < name.size(); ++k)
    out += name[k] == '_' && k + 1 < name.size() ? static_cast<char>(std::toupper(name[++k])) : name[k];
  return out;
}

}  // namespace

std::string stats_json(const App& app) {
  const Stats& s = app.stats;
  const tidepool::FrameStats& f = s.last;
  std::string j = "{";
  j += "\"frame\":" + std::to_string(s.frame);
  j += ",\"particles\":" + std::to_string(app.world.count());
  j += ",\"threads\":" + std::to_string(pool_threads(app));
  j += ",\"threadsInUse\":" + std::to_string(threads_in_use(app));
  j += ",\"fps\":" + json_number(s.fps);
  j += ",\"simMs\":" + json_number(s.sim_ms);
  j += ",\"frameMs\":" + json_number(s.frame_ms);
  const glm::vec2 mean = water_mean(app.world);
  j += ",\"mean\":{\"x\":" + json_number(mean.x) + ",\"y\":" + json_number(mean.y) + "}";
  j += ",\"time\":" + json_number(app.world.time());
  j += ",\"timeScale\":" + json_number(app.time_scale);
  // The last frame's FrameStats, summed over its ticks (add_frame_stats),
  // each field by its table's name in camelCase: work and workLimit (the
  // frame's work and its bound), workCapHit (a tick ended early on the
  // bound), capHits (particles whose scans the bound's backstop cut), ...
  // The count, the time, a grid's cells and the bodies are the world's as
  // it is now.
  for (const tidepool::FrameStatField& field : tidepool::frame_stat_fields()) {
    const std::string name = field.name;
    if (name == "particles" || name == "time" || name == "cells" || name == "bodies") continue;
    const double v = field.get(f);
    j += "," + json_string(camel_case(name)) + ":" +
         (field.type == tidepool::FrameStatField::Type::Bool ? (v != 0.0 ? "true" : "false") : json_number(v));
  }
  // On the bound or the substep cap: simulated time fell behind.
  j += std::string(",\"slowMotion\":") + (f.work_cap_hit || f.substep_cap_hit ? "true" : "false");
  const tidepool::FieldView* grid = app.world.field();
  j += ",\"cells\":" + std::to_string(grid ? grid->nx * grid->ny : 0);
  // The WebAssembly heap's size [bytes] (0 natively): it only grows, so a
  // long session that keeps it flat holds no leak.
#ifdef __EMSCRIPTEN__
  j += ",\"memory\":" + std::to_string(static_cast<unsigned long long>(__builtin_wasm_memory_size(0)) * 65536ull);
#else
  j += ",\"memory\":0";
#endif
  j += ",\"scene\":" + json_string(app.scene);
  // The method by its parameter name ("flip", "dfsph", "muller2003", "stable").
  const tidepool::ParamInfo* solver = tidepool::find_param("solver");
  j += ",\"solver\":" + json_string(tidepool::format_param_value(*solver, solver->get(app.world.params())));
  j += ",\"color\":" + json_string(color_mode_name(app.render.color));
  j += std::string(",\"paused\":") + (app.paused ? "true" : "false");
  j += std::string(",\"tilt\":") + (app.tilt ? "true" : "false");
  j += ",\"gravity\":{\"x\":" + json_number(app.world.params().gravity_x) + ",\"y\":" +
       json_number(app.world.params().gravity_y) + "}";
  j += std::string(",\"awake\":") + (app.awake ? "true" : "false");
  j += std::string(",\"panelOpen\":") + (app.panel_open ? "true" : "false");
  j += ",\"tool\":" + json_string(tool_name(app.tool));
  j += ",\"aspect\":" + json_number(app.tank_aspect);
  j += std::string(",\"idle\":") + (app.idle ? "true" : "false");
  // Auto quality: on or not, the count it chose (0: none yet), why, the
  // last judged second's median simulation cost per tick, and the cost per
  // tick for water in motion it judged against the budget.
  j += std::string(",\"quality\":{\"auto\":") + (app.quality.on ? "true" : "false");
  j += ",\"particles\":" + std::to_string(app.quality.particles);
  j += ",\"grid\":" + std::to_string(app.quality.grid);
  j += ",\"reason\":" + json_string(app.quality.reason);
  j += ",\"medianMs\":" + json_number(app.quality.median_ms);
  j += ",\"costMs\":" + json_number(app.quality.cost_ms);
  j += ",\"budgetMs\":" + json_number(AutoQuality::kBudgetMs) + "}";
  j += std::string(",\"glReady\":") + (app.gl_ready ? "true" : "false");
  j += ",\"obstacles\":" + std::to_string(app.world.obstacles().size());
  j += ",\"bodies\":" + std::to_string(app.world.bodies().size());
  j += ",\"box\":{\"min\":{\"x\":" + json_number(app.world.box().min.x) + ",\"y\":" +
       json_number(app.world.box().min.y) + "},\"max\":{\"x\":" + json_number(app.world.box().max.x) +
       ",\"y\":" + json_number(app.world.box().max.y) + "}}";
  // The view, in CSS pixels, so a page (or a test) can map world to screen:
  // x_css = width/2 + (x - centerX) * scale, y_css = height/2 - (y - centerY) * scale.
  const float pr = app.pixel_ratio;
  j += ",\"view\":{\"centerX\":" + json_number(app.view.center.x) + ",\"centerY\":" +
       json_number(app.view.center.y) + ",\"scale\":" + json_number(app.view.scale / pr) +
       ",\"width\":" + json_number(app.view.width / pr) + ",\"height\":" + json_number(app.view.height / pr);
  const std::array<float, 4>& room = app.view.room;
  j += ",\"room\":{\"x0\":" + json_number(room[0] / pr) + ",\"y0\":" + json_number(room[1] / pr) + ",\"x1\":" +
       json_number(room[2] / pr) + ",\"y1\":" + json_number(room[3] / pr) + "}}";
  // "affected": the particles, or a grid's fluid cells, within the radius.
  j += ",\"pointers\":[";
  const std::vector<PointerReport> pointers = pointer_reports(app);
  for (size_t i = 0; i < pointers.size(); ++i) {
    const PointerReport& p = pointers[i];
    j += (i ? "," : "");
    j += "{\"x\":" + json_number(p.position.x) + ",\"y\":" + json_number(p.position.y) +
         ",\"affected\":" + std::to_string(p.affected) + ",\"vx\":" + json_number(p.velocity.x) +
         ",\"vy\":" + json_number(p.velocity.y) + ",\"dragX\":" + json_number(p.drag.x) +
         ",\"dragY\":" + json_number(p.drag.y) + "}";
  }
  j += "]}";
  return j;
}

std::string info_json(const tidepool::Params& params) {
  std::string j = "{\"scenes\":[";
  bool first = true;
  for (const tidepool::SceneInfo& s : tidepool::scenes()) {
    j += (first ? "" : ",") + json_string(s.name);
    first = false;
  }
  j += "],\"colors\":[";
  for (int i = 0; i < static_cast<int>(ColorMode::Count); ++i)
    j += (i ? "," : "") + json_string(color_mode_name(static_cast<ColorMode>(i)));
  j += "],\"params\":[";
  first = true;
  for (const tidepool::ParamInfo& p : tidepool::param_table()) {
    j += (first ? "" : ",") + std::string("{\"name\":") + json_string(p.name) + ",\"help\":" + json_string(p.help) +
         ",\"min\":" + json_number(p.min) + ",\"max\":" + json_number(p.max) +
         ",\"value\":" + json_number(p.get(params)) + "}";
    first = false;
  }
  return j + "]}";
}

// tidepool.dye(): the drawn dye against the core's, for the tests: where
// it is held and in how many bits a value (the core's: 32), each colour's
// amount (values times area), and the correlation of the drawn dye,
// averaged over each core cell, with the core's dye. Null outside the grid
// scenes.
std::string dye_json(const App& app) {
  const tidepool::FieldView* f = app.world.field();
  if (!f || !f->dye[0]) return "null";
  const int cells = f->nx * f->ny;
  const double cell_area = static_cast<double>(f->cell) * f->cell;
  double core[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < 3; ++k)
    for (int c = 0; c < cells; ++c) core[k] += f->dye[k][c] * cell_area;
  std::vector<float> texels;
  const bool sharp = drawn_dye(app) && app.sharp_dye.read(&texels);
  std::string j = std::string("{\"mode\":\"") + (sharp ? "gpu" : "core") + "\",\"bits\":" +
                  std::to_string(sharp ? app.sharp_dye.bits() : 32) + ",\"grid\":[" +
                  std::to_string(f->nx) + "," + std::to_string(f->ny) + "],\"coreTotals\":[" +
                  json_number(core[0]) + "," + json_number(core[1]) + "," + json_number(core[2]) + "]";
  if (!sharp) return j + ",\"size\":[" + std::to_string(f->nx) + "," + std::to_string(f->ny) + "],\"totals\":[" +
                     json_number(core[0]) + "," + json_number(core[1]) + "," + json_number(core[2]) +
                     "],\"correlation\":1}";
  const int w = app.sharp_dye.width(), h = app.sharp_dye.height();
  const double texel_area = cell_area * cells / (static_cast<double>(w) * h);
  double sums[3] = {0.0, 0.0, 0.0};
  std::vector<double> mean(3 * static_cast<size_t>(cells), 0.0), count(static_cast<size_t>(cells), 0.0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float* t = &texels[4 * (static_cast<size_t>(y) * w + x)];
      const int c = std::min(f->ny - 1, (y * f->ny) / h) * f->nx + std::min(f->nx - 1, (x * f->nx) / w);
      for (int k = 0; k < 3; ++k) {
        sums[k] += t[k] * texel_area;
        mean[3 * static_cast<size_t>(c) + k] += t[k];
      }
      count[c] += 1.0;
    }
  // Pearson's r over every cell and channel.
  double sa = 0.0, sb = 0.0, saa = 0.0, sbb = 0.0, sab = 0.0, n = 0.0;
  for (int c = 0; c < cells; ++c)
    for (int k = 0; k < 3; ++k) {
      if (count[c] == 0.0) continue;
      const double a = mean[3 * static_cast<size_t>(c) + k] / count[c], b = f->dye[k][c];
      sa += a, sb += b, saa += a * a, sbb += b * b, sab += a * b, n += 1.0;
    }
  const double cov = sab - sa * sb / n, va = saa - sa * sa / n, vb = sbb - sb * sb / n;
  const double r = va > 0.0 && vb > 0.0 ? cov / std::sqrt(va * vb) : 0.0;
  return j + ",\"size\":[" + std::to_string(w) + "," + std::to_string(h) + "],\"totals\":[" + json_number(sums[0]) +
         "," + json_number(sums[1]) + "," + json_number(sums[2]) + "],\"correlation\":" + json_number(r) + "}";
}

// The bodies for tidepool.bodies(): each one's id, shape, pose,
// velocities and material (mass, density, friction, restitution), whether
// a drag holds it, and the water beside it: the particles within three
// particle spacings of its outline, and their mean velocity.
std::string bodies_json(const App& app) {
  const tidepool::Particles& p = app.world.particles();
  const int n = app.world.field() ? 0 : p.size();
  const float band = 3.0f * app.world.spacing();
  std::string j = "[";
  bool first = true;
  for (const tidepool::Body& b : app.world.bodies()) {
    const float reach = b.def.shape.reach();
    const float r2 = (reach + band) * (reach + band);
    int near = 0;
    double vx = 0.0, vy = 0.0;
    for (int i = 0; i < n; ++i) {
      const float dx = p.x[i] - b.position.x, dy = p.y[i] - b.position.y;
      if (dx * dx + dy * dy > r2 || tidepool::body_distance(b, {p.x[i], p.y[i]}) > band) continue;
      ++near;
      vx += p.vx[i];
      vy += p.vy[i];
    }
    if (near) {
      vx /= near;
      vy /= near;
    }
    j += first ? "" : ",";
    first = false;
    j += "{\"id\":" + std::to_string(b.id) + ",\"shape\":" + json_string(tidepool::body_kind_name(b.def.shape.kind)) +
         ",\"x\":" + json_number(b.position.x) + ",\"y\":" + json_number(b.position.y) +
         ",\"angle\":" + json_number(b.angle) + ",\"vx\":" + json_number(b.velocity.x) +
         ",\"vy\":" + json_number(b.velocity.y) + ",\"omega\":" + json_number(b.omega) +
         ",\"mass\":" + json_number(b.mass) + ",\"density\":" + json_number(b.def.density) +
         ",\"friction\":" + json_number(b.def.friction) +
         ",\"restitution\":" + json_number(b.def.restitution) + ",\"dragged\":" + (b.dragged ? "true" : "false") +
         ",\"water\":{\"particles\":" + std::to_string(near) + ",\"vx\":" + json_number(vx) +
         ",\"vy\":" + json_number(vy) + "}}";
  }
  return j + "]";
}

}  // namespace tidepool::app
