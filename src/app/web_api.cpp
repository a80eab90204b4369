// Tidepool app — the JavaScript boundary. shell/index.html wraps these
// EMSCRIPTEN_KEEPALIVE functions (through ccall) into window.tidepool and
// the postMessage API. They take and return plain strings and numbers; the
// page validates types, these validate values.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <glm/common.hpp>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#endif

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
  j += ",\"mean\":{\"x\":" + json_number(s.mean.x) + ",\"y\":" + json_number(s.mean.y) + "}";
  j += ",\"time\":" + json_number(app.world.time());
  j += ",\"timeScale\":" + json_number(app.time_scale);
  j += ",\"substeps\":" + std::to_string(s.substeps);
  j += ",\"densityError\":" + json_number(f.mean_density_error);
  j += ",\"maxDensityError\":" + json_number(f.max_density_error);
  j += ",\"spray\":" + std::to_string(f.spray);
  j += ",\"solverIterations\":" + std::to_string(f.solver_iterations);
  // The frame's work (FrameStats::work) and its bound, summed over its
  // ticks; workCapHit: a tick ended early on the bound; capHits: particles
  // whose scans the bound's backstop cut (a pile); slowMotion: on the
  // bound or the substep cap, and simulated time fell behind.
  j += ",\"work\":" + json_number(f.work);
  j += ",\"workLimit\":" + json_number(f.work_limit);
  j += std::string(",\"workCapHit\":") + (f.work_cap_hit ? "true" : "false");
  j += ",\"capHits\":" + std::to_string(f.cap_hits);
  j += std::string(",\"slowMotion\":") + (f.work_cap_hit || f.substep_cap_hit ? "true" : "false");
  // Grid solvers: their cells and the largest |div u| the projection left
  // [1/s], both 0 for particles; solverError is the last substep's final
  // error (DFSPH: mean density error; grids: the projection's residual,
  // relative to the divergence it started from).
  const tidepool::FieldView* grid = app.world.field();
  j += ",\"cells\":" + std::to_string(grid ? grid->nx * grid->ny : 0);
  j += ",\"solverError\":" + json_number(f.solver_error);
  j += ",\"maxDivergence\":" + json_number(f.max_divergence);
  j += ",\"kineticEnergy\":" + json_number(f.kinetic_energy);
  j += ",\"maxSpeed\":" + json_number(f.max_speed);
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
  for (size_t i = 0; i < s.pointers.size(); ++i) {
    const PointerReport& p = s.pointers[i];
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

// tidepool.dye(): the drawn dye against the core's, for the tests: each
// colour's amount (values times area), and the correlation of the drawn
// dye, averaged over each core cell, with the core's dye. Null outside the
// grid scenes.
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
  std::string j = std::string("{\"mode\":\"") + (sharp ? "gpu" : "core") + "\",\"grid\":[" +
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

// The bodies for tidepool.bodies(): each one's id, shape, pose and
// velocities, whether a drag holds it, and the water beside it: the
// particles within three particle spacings of its outline, and their mean
// velocity.
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
         ",\"mass\":" + json_number(b.mass) + ",\"friction\":" + json_number(b.def.friction) +
         ",\"restitution\":" + json_number(b.def.restitution) + ",\"dragged\":" + (b.dragged ? "true" : "false") +
         ",\"water\":{\"particles\":" + std::to_string(near) + ",\"vx\":" + json_number(vx) +
         ",\"vy\":" + json_number(vy) + "}}";
  }
  return j + "]";
}

#ifdef __EMSCRIPTEN__

namespace {
// The one global: JavaScript calls in with no context, and the App lives
// as long as the page.
App* g_app = nullptr;
std::string g_json;  // keeps the returned string alive until the next call
}  // namespace

void web_started(App& app) {
  g_app = &app;
  EM_ASM({
    if (Module.tidepoolStarted) Module.tidepoolStarted();
  });
}

void web_error(const std::string& text) {
  EM_ASM(
      {
        var text = UTF8ToString($0);
        if (Module.tidepoolError) Module.tidepoolError(text);
        else console.warn('tidepool: ' + text);
      },
      text.c_str());
}

#else

void web_started(App&) {}
void web_error(const std::string& text) { warn(text); }

#endif

}  // namespace tidepool::app

#ifdef __EMSCRIPTEN__
using tidepool::app::g_app;

extern "C" {

// Every call that changes the state ends the idle motion (end_idle()): a
// script, or the page's own controls, has taken over.

EMSCRIPTEN_KEEPALIVE const char* tp_stats_json() {
  if (!g_app) return "null";
  tidepool::app::g_json = tidepool::app::stats_json(*g_app);
  return tidepool::app::g_json.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* tp_info_json() {
  if (!g_app) return "null";
  tidepool::app::g_json = tidepool::app::info_json(g_app->world.params());
  return tidepool::app::g_json.c_str();
}

// Value as text: "0.5", "true", or a choice name ("tait").
EMSCRIPTEN_KEEPALIVE int tp_set_param(const char* name, const char* value) {
  if (!g_app || !name || !value) return 0;
  tidepool::app::end_idle(*g_app);
  std::string error;
  if (tidepool::app::set_param_text(*g_app, name, value, &error)) return 1;
  tidepool::app::warn("setParam: " + error);
  return 0;
}

// "" reloads the current scene.
EMSCRIPTEN_KEEPALIVE int tp_reset(const char* scene) {
  if (!g_app) return 0;
  tidepool::app::end_idle(*g_app);
  const std::string name = scene && *scene ? scene : g_app->scene;
  const int particles = name == g_app->scene ? g_app->particles_requested : 0;
  return tidepool::app::load(*g_app, name, particles) ? 1 : 0;
}

// The state hash as 16 hex digits (a JS number cannot hold 64 bits): equal
// across builds and thread counts for the same steps.
EMSCRIPTEN_KEEPALIVE const char* tp_state_hash() {
  if (!g_app) return "";
  char buf[20];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(g_app->world.state_hash()));
  tidepool::app::g_json = buf;
  return tidepool::app::g_json.c_str();
}

// Runs `frames` fixed ticks now; 1..600 (the page is blocked meanwhile), else refused.
EMSCRIPTEN_KEEPALIVE int tp_advance(int frames) {
  if (!g_app || frames < 1 || frames > 600) return 0;
  tidepool::app::end_idle(*g_app);
  tidepool::app::advance_frames(*g_app, frames);
  return 1;
}

// Tilt on (1) or off (0), with the down direction projected on the screen
// (x right, y up, length <= 1): see set_tilt().
EMSCRIPTEN_KEEPALIVE int tp_set_tilt(int on, float x, float y) {
  if (!g_app) return 0;
  return tidepool::app::set_tilt(*g_app, on != 0, {x, y}) ? 1 : 0;
}

// Share links (shell/index.html): the setup as JSON, and what applying one
// needs beyond setParam and reset. Every value is checked here.
// A share link's hash (without '#') for the running toy: format_link.
EMSCRIPTEN_KEEPALIVE const char* tp_share_link() {
  if (!g_app) return "";
  tidepool::app::g_json = tidepool::app::format_link(tidepool::app::running_setup(*g_app));
  return tidepool::app::g_json.c_str();
}

// A colour mode by name; refused (warned) if unknown or if it does not fit
// the scene (dye on particles, water on a grid).
EMSCRIPTEN_KEEPALIVE const char* tp_dye_json() {
  if (!g_app) return "null";
  tidepool::app::g_json = tidepool::app::dye_json(*g_app);
  return tidepool::app::g_json.c_str();
}

EMSCRIPTEN_KEEPALIVE int tp_set_color(const char* name) {
  if (!g_app || !name) return 0;
  tidepool::app::ColorMode mode;
  if (!tidepool::app::parse_color_mode(name, &mode) ||
      !tidepool::app::color_mode_fits(mode, g_app->world.field() != nullptr)) {
    tidepool::app::warn("color \"" + std::string(name).substr(0, 40) + "\" ignored: not a colour mode of this scene");
    return 0;
  }
  g_app->render.color = mode;
  return 1;
}

EMSCRIPTEN_KEEPALIVE void tp_clear_obstacles() {
  if (!g_app) return;
  tidepool::app::end_idle(*g_app);
  g_app->world.clear_obstacles();
}

// kind 0: a disc at (ax, ay); 1: a capsule from (ax, ay) to (bx, by). Both
// must lie within the container (with a margin of its size) and be no
// thicker than it. Returns the obstacle's id, or -1 (warned).
EMSCRIPTEN_KEEPALIVE int tp_add_obstacle(int kind, double ax, double ay, double bx, double by, double radius) {
  if (!g_app) return -1;
  tidepool::app::end_idle(*g_app);
  tidepool::Obstacle o;
  o.kind = kind == 0 ? tidepool::Obstacle::Kind::Circle : kind == 1 ? tidepool::Obstacle::Kind::Capsule
                                                                     : tidepool::Obstacle::Kind::Polygon;
  o.a = {static_cast<float>(ax), static_cast<float>(ay)};
  o.b = kind == 0 ? o.a : glm::vec2(static_cast<float>(bx), static_cast<float>(by));
  o.radius = static_cast<float>(radius);
  return tidepool::app::add_obstacle(*g_app, o);
}

// Rigid bodies. A body from its parse_body text ("box,W,H,DENSITY,X,Y",
// "disc,R,DENSITY,X,Y", "boat,LENGTH,DENSITY,X,Y"): its id, or -1 with a
// warning naming the problem, nothing changed.
EMSCRIPTEN_KEEPALIVE int tp_add_body(const char* spec) {
  if (!g_app || !spec) return -1;
  tidepool::app::end_idle(*g_app);
  tidepool::BodyDef def;
  std::string why;
  int id = -1;
  if (tidepool::parse_body(spec, &def, &why)) id = g_app->world.add_body(def, &why);
  if (id < 0) tidepool::app::warn("addBody: " + why.substr(0, 200));
  return id;
}

EMSCRIPTEN_KEEPALIVE int tp_remove_body(int id) {
  if (!g_app) return 0;
  tidepool::app::end_idle(*g_app);
  if (g_app->world.remove_body(id)) return 1;
  tidepool::app::warn("removeBody: there is no body " + std::to_string(id));
  return 0;
}

EMSCRIPTEN_KEEPALIVE const char* tp_bodies_json() {
  if (!g_app) return "null";
  tidepool::app::g_json = tidepool::app::bodies_json(*g_app);
  return tidepool::app::g_json.c_str();
}

// Pulls body `id` toward (x, y) with a drag joint held at its centroid
// (the first call takes hold there; later calls move the target) until
// tp_release_body. 0 (warned) for no such body or a target that is not finite.
EMSCRIPTEN_KEEPALIVE int tp_drag_body(int id, double x, double y) {
  if (!g_app) return 0;
  tidepool::app::end_idle(*g_app);
  const tidepool::Body* body = nullptr;
  for (const tidepool::Body& b : g_app->world.bodies())
    if (b.id == id) body = &b;
  const glm::vec2 target(static_cast<float>(x), static_cast<float>(y));
  if (!body || !std::isfinite(target.x) || !std::isfinite(target.y)) {
    tidepool::app::warn(body ? "dragBody: the target is not a finite point"
                             : "dragBody: there is no body " + std::to_string(id));
    return 0;
  }
  if (!body->dragged && !g_app->world.drag_body(id, body->position)) return 0;
  return g_app->world.drag_body(id, target) ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE int tp_release_body(int id) {
  if (!g_app) return 0;
  if (g_app->world.release_body(id)) return 1;
  tidepool::app::warn("releaseBody: there is no body " + std::to_string(id));
  return 0;
}

// The touch bar's calls. A tool by number (Tool: 0 push, 1 draw, 2 erase,
// 3 pull, 4 body); the panel open or folded; the CSS pixels the page's controls
// cover along the top, right, bottom and left edges, which also hands the
// folded panel's button over to the page.
EMSCRIPTEN_KEEPALIVE int tp_set_tool(int tool) {
  if (!g_app || tool < 0 || tool > static_cast<int>(tidepool::app::Tool::Body)) return 0;
  tidepool::app::end_idle(*g_app);
  if (static_cast<int>(g_app->tool) != tool) tidepool::app::release_all_contacts(*g_app);
  g_app->tool = static_cast<tidepool::app::Tool>(tool);
  return 1;
}

EMSCRIPTEN_KEEPALIVE void tp_set_panel(int open) {
  if (g_app) g_app->panel_open = open != 0;
}

EMSCRIPTEN_KEEPALIVE int tp_set_controls(float top, float right, float bottom, float left) {
  return g_app && tidepool::app::set_page_controls(*g_app, {top, right, bottom, left}) ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE void tp_pause(int paused) {
  if (!g_app) return;
  tidepool::app::end_idle(*g_app);
  g_app->paused = paused != 0;
}

EMSCRIPTEN_KEEPALIVE void tp_set_awake(int awake) {
  if (g_app) tidepool::app::set_awake(*g_app, awake != 0);
}

EMSCRIPTEN_KEEPALIVE void tp_gl_lost() {
  if (g_app) tidepool::app::gl_lost(*g_app);
}

EMSCRIPTEN_KEEPALIVE void tp_gl_restored() {
  if (g_app) tidepool::app::gl_restored(*g_app);
}

}  // extern "C"
#endif
