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

// The state's own promises (World::problem): "" while they hold, else the
// first one broken, in words.
EMSCRIPTEN_KEEPALIVE const char* tp_check() {
  if (!g_app) return "";
  tidepool::app::g_json = g_app->world.problem();
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
