// Tidepool app — entry point and the frame.
//
// frame(): poll events -> panel -> input to forces -> simulate (fixed ticks
// through a clamped accumulator) -> render -> panel on top -> swap.
// Natively a plain loop calls it; in the browser emscripten_set_main_loop
// does, once per requestAnimationFrame.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>

#include "imgui.h"
#include "imgui_impl_opengl3.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#endif

#include "app.h"
#include "gl.h"

namespace tidepool::app {

namespace {

// ---------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------
double now_ms() {
#ifdef __EMSCRIPTEN__
  return emscripten_get_now();
#else
  using clock = std::chrono::steady_clock;
  static const clock::time_point start = clock::now();
  return std::chrono::duration<double, std::milli>(clock::now() - start).count();
#endif
}
double clock_now_ms(void*) { return now_ms(); }

// The simulation advances in fixed ticks of real time. A frame owes the
// real time since the last one, clamped: after a hidden tab or a debugger
// pause we do not try to catch up (the spiral of death), and when a frame's
// ticks overrun the budget, the rest is dropped and the water runs in slow
// motion instead of the page freezing.
constexpr double kTick = 1.0 / 60.0;     // [s]
constexpr double kMaxFrameTime = 0.1;    // [s] most real time one frame may owe
constexpr int kMaxTicksPerFrame = 3;
constexpr double kTickBudgetMs = 30.0;   // stop ticking past this (slow devices)

void add_stats(tidepool::FrameStats& sum, const tidepool::FrameStats& st) {
  const int substeps = sum.substeps + st.substeps;
  const int iterations = sum.solver_iterations + st.solver_iterations;
  const int divergence = sum.divergence_iterations + st.divergence_iterations;
  const float max_err = std::max(sum.max_density_error, st.max_density_error);
  std::array<double, tidepool::kStageCount> stages = sum.stage_ms, stage_work = sum.stage_work;
  for (int k = 0; k < tidepool::kStageCount; ++k) {
    stages[k] += st.stage_ms[k];
    stage_work[k] += st.stage_work[k];
  }
  const bool cap = sum.substep_cap_hit || st.substep_cap_hit;
  const bool work_cap = sum.work_cap_hit || st.work_cap_hit;
  // The ticks' work and their limits add up (an empty sum has no limit).
  const bool empty = sum.substeps == 0 && sum.work == 0.0;
  const double work = sum.work + st.work, limit = (empty ? 0.0 : sum.work_limit) + st.work_limit;
  sum = st;  // latest values for everything else
  sum.substeps = substeps;
  sum.solver_iterations = iterations;
  sum.divergence_iterations = divergence;
  sum.max_density_error = max_err;
  sum.stage_ms = stages;
  sum.stage_work = stage_work;
  sum.substep_cap_hit = cap;
  sum.work_cap_hit = work_cap;
  sum.work = work;
  sum.work_limit = limit;
}

// Auto quality's choice (quality.h), taken in place: the running water is
// resampled at the new count (World::resample), a grid's flow onto the new
// size (stable.cpp). Time, obstacles, emitters and the frame count go on,
// so a device that slows down never sees its water start over. A
// lid-driven cavity keeps the grid of its benchmark.
void resize_for_quality(App& app, double ms, int ticks, int substeps) {
  const tidepool::FieldView* field = app.world.field();
  if (field && (app.world.params().lid_speed != 0.0f || app.overrides.count("grid"))) return;
  using Method = AutoQuality::Method;
  AutoQuality::Load work;
  work.method = field ? Method::Grid : app.world.params().solver == tidepool::Solver::Flip ? Method::Flip : Method::Sph;
  work.count = field ? field->nx * field->ny : app.world.count();
  const int next = app.quality.record(now_ms(), ms, ticks, substeps, work, !app.contacts.empty());
  if (next <= 0) return;
  if (!field) {
    if (!app.world.resample(next)) return;
    app.thread_choice.restart();  // other work: its timings start again
    app.quality.restart();
    return;
  }
  tidepool::Params p = app.world.params();
  const double grid = p.grid * std::sqrt(static_cast<double>(next) / work.count);
  const tidepool::ParamInfo* info = tidepool::find_param("grid");
  p.grid = static_cast<int>(std::clamp(std::lround(grid), static_cast<long>(info->min), static_cast<long>(info->max)));
  if (app.world.set_params(p).empty()) app.quality.grid = p.grid;
}

void simulate(App& app, double frame_time) {
  const tidepool::Clock clock{&clock_now_ms, nullptr};
  const double t0 = now_ms();
  tidepool::FrameStats sum;
  int ticks = 0;
  app.world.set_pointers(app.forces);
  // The pool, or this thread alone where its frames run faster (ThreadChoice).
  const bool choose = app.pool->threads() > 1 && !app.paused;
  if (choose)
    app.world.set_parallel_for(app.thread_choice.next_frame_pooled() ? app.pool->hook() : tidepool::ParallelFor{});
  if (!app.paused) {
    app.accumulator += std::min(frame_time, kMaxFrameTime);
    while (app.accumulator >= kTick && ticks < kMaxTicksPerFrame) {
      add_stats(sum, app.world.advance(static_cast<float>(kTick), clock));
      app.accumulator -= kTick;
      ++ticks;
      if (now_ms() - t0 > kTickBudgetMs) break;
    }
    if (app.accumulator >= kTick) app.accumulator = 0.0;  // drop what we could not do
  } else if (app.step_once) {
    add_stats(sum, app.world.step(app.world.stable_dt(), clock));
    ticks = 1;
  }
  app.step_once = false;
  if (!app.paused) {
    // Averaged over a quarter second: single frames owe 0 or 2 ticks.
    app.scale_sim += ticks * kTick;
    app.scale_real += std::min(frame_time, kMaxFrameTime);
    if (app.scale_real >= 0.25) {
      app.time_scale = static_cast<float>(std::clamp(app.scale_sim / app.scale_real, 0.05, 1.0));
      app.scale_sim = app.scale_real = 0.0;
    }
  }
  const double ms = now_ms() - t0;
  if (choose && sum.substeps > 0) app.thread_choice.record(ms / sum.substeps);
  app.stats.ticks = ticks;
  app.stats.substeps = sum.substeps;
  if (ticks > 0) app.stats.last = sum;
  // Smoothed, so the number can be read.
  app.stats.sim_ms = app.stats.sim_ms == 0.0f ? static_cast<float>(ms)
                                              : 0.9f * app.stats.sim_ms + 0.1f * static_cast<float>(ms);
  resize_for_quality(app, ms, ticks, sum.substeps);
}

// A grid's share of measure(): the fluid cells each pointer reaches, and
// their mean velocity.
void measure_grid(App& app, const tidepool::FieldView& g) {
  app.stats.mean = glm::vec2(0.0f);
  app.stats.pointers.clear();
  for (const tidepool::PointerForce& f : app.forces) {
    int affected = 0;
    glm::vec2 v(0.0f);
    const float r2 = f.radius * f.radius;
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const int c = j * g.nx + i;
        const glm::vec2 d = g.origin + (glm::vec2(i, j) + 0.5f) * g.cell - f.position;
        if (d.x * d.x + d.y * d.y > r2 || (g.solid && g.solid[c])) continue;
        ++affected;
        v += glm::vec2(g.u[c], g.v[c]);
      }
    app.stats.pointers.push_back(
        {f.position, affected, affected > 0 ? v / static_cast<float>(affected) : v, f.velocity});
  }
}

// Mean position, and how many particles (cells of a grid) each pointer
// reaches (tests use both to see that input acts on the fluid).
void measure(App& app) {
  if (const tidepool::FieldView* g = app.world.field()) {
    measure_grid(app, *g);
    return;
  }
  const tidepool::Particles& p = app.world.particles();
  const int n = p.size();
  double sx = 0.0, sy = 0.0;
  for (int i = 0; i < n; ++i) {
    sx += p.x[i];
    sy += p.y[i];
  }
  app.stats.mean = n > 0 ? glm::vec2(static_cast<float>(sx / n), static_cast<float>(sy / n)) : glm::vec2(0.0f);
  app.stats.pointers.clear();
  for (const tidepool::PointerForce& f : app.forces) {
    int affected = 0;
    glm::vec2 v(0.0f);
    const float r2 = f.radius * f.radius;
    for (int i = 0; i < n; ++i) {
      const float dx = p.x[i] - f.position.x, dy = p.y[i] - f.position.y;
      if (dx * dx + dy * dy <= r2) {
        ++affected;
        v += glm::vec2(p.vx[i], p.vy[i]);
      }
    }
    app.stats.pointers.push_back(
        {f.position, affected, affected > 0 ? v / static_cast<float>(affected) : v, f.velocity});
  }
}

// ---------------------------------------------------------------------------
// Sizes: canvas pixels, the view onto the container, the UI scale
// ---------------------------------------------------------------------------
void rebuild_fonts(App& app, float ui_scale, float pixel_ratio) {
  ImGuiIO& io = ImGui::GetIO();
  // Rasterise the font at framebuffer resolution and scale it back by the
  // pixel ratio: crisp text on HiDPI screens. ui_scale / pixel_ratio is the
  // extra size for small (phone) screens.
  io.Fonts->Clear();
  ImFontConfig cfg;
  cfg.SizePixels = std::round(13.0f * ui_scale);
  io.Fonts->AddFontDefault(&cfg);
  io.FontGlobalScale = 1.0f / pixel_ratio;
  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();
  ImGui::StyleColorsDark(&style);
  style.WindowRounding = 6.0f;
  style.FrameRounding = 3.0f;
  style.Colors[ImGuiCol_WindowBg].w = 0.88f;
  style.ScaleAllSizes(ui_scale / pixel_ratio);
  // Before the backend's first NewFrame it builds the texture itself.
  if (app.gl_ready && app.imgui_gl_objects) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  app.ui_scale = ui_scale;
}

// The tank's room: the framebuffer (pixels, y down) less the page's
// controls and, on a wide screen, the open panel docked at the left. On a
// narrow one the panel, when opened, is drawn over the water and moves
// nothing. Before the panel's first frame its width is estimated.
struct Room {
  float x0, y0, x1, y1;
  float width() const { return std::max(x1 - x0, 1.0f); }
  float height() const { return std::max(y1 - y0, 1.0f); }
  // Less a small margin for the walls, smaller on small screens.
  Room inset(float pixel_ratio) const {
    const float m = std::clamp(0.02f * std::min(width(), height()), 6.0f * pixel_ratio, 16.0f * pixel_ratio);
    return {x0 + m, y0 + m, x1 - m, y1 - m};
  }
};
constexpr float kDockWidth = 900.0f;  // [CSS px] narrower screens overlay the panel

Room tank_room(const App& app, int dw, int dh) {
  const float pr = app.pixel_ratio;
  Room r{app.insets[3] * pr, app.insets[0] * pr, dw - app.insets[1] * pr, dh - app.insets[2] * pr};
  if (app.panel_open && dw / pr >= kDockWidth) {
    float right = 0.0f;
    for (const auto& rect : app.ui_rects) right = std::max(right, (rect[0] + rect[2]) * pr);
    if (app.ui_rects.empty()) right = 23.0f * 13.0f * app.ui_scale;  // 21 em of content, margins
    if (right <= 0.4f * dw) r.x0 = std::max(r.x0, right);
  }
  return r;
}

void update_sizes(App& app) {
  int ww = 1, wh = 1, dw = 1, dh = 1;
  platform_sizes(app, &ww, &wh, &dw, &dh);
  app.pixel_ratio = std::max(static_cast<float>(dw) / ww, 0.25f);
  // Phones: a larger panel (fingers are wider than a mouse pointer).
  const float ui = app.pixel_ratio * (std::min(ww, wh) < 600 ? 1.3f : 1.0f);
  if (std::fabs(ui - app.ui_scale) > 0.01f) rebuild_fonts(app, ui, app.pixel_ratio);

  // The container fitted to its room, centred in it.
  const Room outer = tank_room(app, dw, dh), room = outer.inset(app.pixel_ratio);
  const tidepool::Box& b = app.world.box();
  const float bw = std::max(b.max.x - b.min.x, 1e-3f), bh = std::max(b.max.y - b.min.y, 1e-3f);
  app.view.width = std::max(dw, 1);
  app.view.height = std::max(dh, 1);
  app.view.room = {outer.x0, outer.y0, outer.x1, outer.y1};
  app.view.scale = std::max(std::min(room.width() / bw, room.height() / bh), 1e-3f);
  const glm::vec2 shift(0.5f * (room.x0 + room.x1) - 0.5f * dw, 0.5f * dh - 0.5f * (room.y0 + room.y1));
  app.view.center = 0.5f * (b.min + b.max) - shift / app.view.scale;
}

// The room's shape, as a tank aspect.
float room_aspect(const App& app) {
  const Room room = tank_room(app, app.view.width, app.view.height).inset(app.pixel_ratio);
  return std::clamp(room.width() / room.height(), tidepool::kMinAspect, tidepool::kMaxAspect);
}

}  // namespace

// ---------------------------------------------------------------------------
// Scene and parameters
// ---------------------------------------------------------------------------
std::vector<std::pair<std::string, float>> override_list(const App& app) {
  return {app.overrides.begin(), app.overrides.end()};
}

namespace {

// The world's gravity: the scene's, or under tilt its magnitude along the
// device's down.
void apply_gravity(App& app) {
  const float g = std::sqrt(app.gravity.x * app.gravity.x + app.gravity.y * app.gravity.y);
  const glm::vec2 want = app.tilt ? g * app.tilt_down : app.gravity;
  tidepool::Params p = app.world.params();
  if (p.gravity_x == want.x && p.gravity_y == want.y) return;
  p.gravity_x = want.x;
  p.gravity_y = want.y;
  app.world.set_params(p);  // within range: |want| <= |gravity|
}

}  // namespace

int chosen_particles(const App& app, int requested) {
  return requested > 0 ? requested : app.quality.on ? app.quality.particles : 0;
}

bool load(App& app, const std::string& scene, int particles) {
  const tidepool::SceneInfo* info = tidepool::find_scene(scene);
  if (!info) {
    warn("unknown scene \"" + scene.substr(0, 40) + "\" ignored");
    return false;
  }
  if (scene != app.scene) {
    const auto picked = app.overrides.find("solver");
    if (picked != app.overrides.end() && picked->second != static_cast<float>(tidepool::Solver::Stable))
      app.liquid_solver = picked->second;
    app.overrides.clear();  // tweaks belong to one scene, the liquid's method to every particle scene
    app.link_bodies.reset();
  }
  // A grid scene (no default count) has no particles to count.
  const bool grid = info->default_particles == 0;
  if (!grid && app.liquid_solver >= 0.0f && !app.overrides.count("solver"))
    app.overrides["solver"] = app.liquid_solver;
  if (grid && particles > 0) {
    warn("particles " + std::to_string(particles) + " ignored: " + scene + " is a grid scene, without particles");
    particles = 0;
  }
  const int chosen = grid ? 0 : chosen_particles(app, particles);
  const int n = chosen > 0 ? chosen : info->default_particles;
  tidepool::World fresh;
  // load_scene keeps the hook of the world it fills: the threads go on.
  fresh.set_parallel_for(app.world.parallel_for());
  std::string error;
  tidepool::SceneSetup setup;
  setup.particles = n;
  setup.aspect = app.tank_aspect;
  setup.overrides = override_list(app);
  if (app.link_bodies) setup.bodies = *app.link_bodies;
  if (!tidepool::load_scene(fresh, scene, setup, &error)) {
    // A tweak or a link's body may be what does not fit: try once more without them.
    warn("scene " + scene + ": " + error);
    if (app.overrides.empty() && !app.link_bodies) return false;
    app.overrides.clear();
    setup.overrides.clear();
    app.link_bodies.reset();
    setup.bodies.clear();
    if (!tidepool::load_scene(fresh, scene, setup, &error)) {
      warn("scene " + scene + ": " + error);
      return false;
    }
  }
  // A link's bodies stand in for the scene's own, which load_scene added first.
  if (app.link_bodies) {
    const std::vector<tidepool::Body> all = fresh.bodies();
    for (size_t k = 0; k + setup.bodies.size() < all.size(); ++k) fresh.remove_body(all[k].id);
  }
  release_held_bodies(app);  // the holds name the old world's bodies
  app.world = std::move(fresh);
  // A grid auto quality sized (not the cavity's, nor one the user set).
  if (grid && app.quality.on && app.quality.grid > 0 && app.world.params().lid_speed == 0.0f &&
      !app.overrides.count("grid")) {
    tidepool::Params p = app.world.params();
    p.grid = app.quality.grid;
    app.world.set_params(p);
  }
  app.gravity = {app.world.params().gravity_x, app.world.params().gravity_y};
  apply_gravity(app);
  app.thread_choice.restart();  // other work: its timings start again
  app.quality.restart();
  app.scene = scene;
  app.particles_requested = particles;
  app.accumulator = 0.0;
  app.stats.last = tidepool::FrameStats{};
  app.stats.last.particles = app.world.count();
  // Tools sized to the container.
  const tidepool::Box& b = app.world.box();
  const float size = std::min(b.max.x - b.min.x, b.max.y - b.min.y);
  app.pointer_radius = 0.1f * size;
  app.obstacle_radius = 0.015f * size;
  // A colour mode that shows nothing here (dye for particles, water for a
  // grid) gives way to the kind's own.
  const bool has_field = app.world.field() != nullptr || grid;
  if (!color_mode_fits(app.render.color, has_field)) app.render.color = default_color_mode(has_field);
  return true;
}

bool set_page_controls(App& app, const std::array<float, 4>& insets) {
  for (float v : insets)
    if (!(v >= 0.0f && v <= 4096.0f)) return false;
  app.page_controls = true;
  app.insets = insets;
  return true;
}

namespace {

// Lays the tank out again when the screen's shape has left it for a moment
// (a rotation, a resize once the hand lets go, the panel docked or closed):
// the particles are carried into the new tank (fit_tank), a grid scene is
// built again in it. Only a reset starts the water over.
constexpr double kRelayoutDelayMs = 300.0;
constexpr float kRelayoutTolerance = 0.04f;  // |log(aspect ratio)| left alone

void follow_screen(App& app, double now) {
  const float want = room_aspect(app);
  if (std::fabs(std::log(want / app.tank_aspect)) < kRelayoutTolerance) {
    app.want_since_ms = -1.0;
    return;
  }
  if (app.want_since_ms < 0.0 || std::fabs(std::log(want / app.want_aspect)) > 0.01f) {
    app.want_aspect = want;  // still moving: wait for it to rest
    app.want_since_ms = now;
    return;
  }
  if (now - app.want_since_ms < kRelayoutDelayMs) return;
  app.tank_aspect = want;
  app.want_since_ms = -1.0;
  if (!tidepool::fit_tank(app.world, want)) load(app, app.scene, app.particles_requested);
  update_sizes(app);
}

}  // namespace

bool set_tilt(App& app, bool on, glm::vec2 down) {
  if (!std::isfinite(down.x) || !std::isfinite(down.y) || down.x * down.x + down.y * down.y > 1.0001f) return false;
  app.tilt = on;
  app.tilt_down = down;
  apply_gravity(app);
  return true;
}

bool set_param(App& app, const std::string& name, float value, std::string* error) {
  const tidepool::ParamInfo* info = tidepool::find_param(name);
  if (!info) {
    *error = "unknown parameter \"" + name.substr(0, 40) + "\"";
    return false;
  }
  if (!std::isfinite(value)) {
    *error = name + ": not a finite number";
    return false;
  }
  tidepool::Params p = app.world.params();
  info->set(p, value);
  const std::vector<std::string> problems = app.world.set_params(p);
  if (!problems.empty()) {
    *error = problems.front();
    return false;
  }
  app.overrides[name] = info->get(app.world.params());
  if (name == "gravity_x" || name == "gravity_y") {
    app.gravity = {app.world.params().gravity_x, app.world.params().gravity_y};
    apply_gravity(app);
  }
  return true;
}

bool set_param_text(App& app, const std::string& name, const std::string& text, std::string* error) {
  const tidepool::ParamInfo* info = tidepool::find_param(name);
  if (!info) {
    *error = "unknown parameter \"" + name.substr(0, 40) + "\"";
    return false;
  }
  float value = 0.0f;
  if (!tidepool::parse_param_value(*info, text, &value, error)) return false;
  return set_param(app, name, value, error);
}

int pool_threads(const App& app) { return app.pool ? app.pool->threads() : 1; }

int threads_in_use(const App& app) {
  const int pool = pool_threads(app);
  return pool > 1 && !app.thread_choice.pooled() ? 1 : pool;
}

void advance_frames(App& app, int frames) {
  const tidepool::Clock clock{&clock_now_ms, nullptr};
  tidepool::FrameStats sum;
  for (int k = 0; k < frames; ++k) add_stats(sum, app.world.advance(static_cast<float>(kTick), clock));
  if (frames > 0) app.stats.last = sum;
}

// ---------------------------------------------------------------------------
// GL lifetime
// ---------------------------------------------------------------------------
namespace {
const char* const kGlslVersion = "#version 300 es";

bool gl_create(App& app, std::string* error) {
  if (!app.renderer.init(error)) return false;
  if (!ImGui_ImplOpenGL3_Init(kGlslVersion)) {
    *error = "Dear ImGui's OpenGL backend failed to start";
    return false;
  }
  app.gl_ready = true;
  app.imgui_gl_objects = false;
  return true;
}
}  // namespace

void gl_lost(App& app) {
  if (!app.gl_ready) return;
  app.gl_ready = false;
  // Every GL name died with the context: drop them without deleting.
  ImGui_ImplOpenGL3_Shutdown();
  app.renderer.forget();
  release_all_contacts(app);
}

void gl_restored(App& app) {
  if (app.gl_ready) return;
  std::string error;
  if (!gl_create(app, &error)) {
    web_error("Could not rebuild the graphics after the context was restored: " + error);
    return;
  }
  app.ui_scale = 0.0f;  // rebuild the font atlas on the next frame
}

// ---------------------------------------------------------------------------
// The frame
// ---------------------------------------------------------------------------
namespace {

void frame(App& app) {
  const double now = now_ms();
  const double frame_time = app.last_time_ms < 0.0 ? 0.0 : (now - app.last_time_ms) / 1000.0;
  app.last_time_ms = now;

  std::vector<InputEvent> events;
  platform_poll(app, app.gl_ready, &events);
  for (const InputEvent& e : events) handle_input(app, e, app.gl_ready && ImGui::GetIO().WantCaptureMouse);
  if (!app.gl_ready) return;  // context lost: nothing to draw with until it is back

  update_sizes(app);
  follow_screen(app, now);
  ImGui_ImplOpenGL3_NewFrame();
  app.imgui_gl_objects = true;
  platform_new_frame(app);
  ImGui::NewFrame();
  draw_panel(app);

  update_forces(app, static_cast<float>(std::min(frame_time, kMaxFrameTime)));
  simulate(app, frame_time);
  measure(app);

  Frame f;
  f.width = app.view.width;
  f.height = app.view.height;
  f.center = app.view.center;
  f.scale = app.view.scale;
  f.spacing = app.world.spacing();
  for (const auto& [id, c] : app.contacts) {
    if (c.captured || !app.render.show_pointers) continue;
    if (app.tool == Tool::Push || app.tool == Tool::Pull)
      f.rings.push_back({c.world, app.pointer_radius, pulls(app, c)});
    else if (app.tool == Tool::Erase) f.rings.push_back({c.world, eraser_radius(app), true});
  }
  app.renderer.draw(app.world, app.render, f);

  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
#ifndef __EMSCRIPTEN__
  // --screenshot: the last frame of a --frames run (else each one, the
  // file left holding the last).
  if (!app.options.screenshot.empty() &&
      (app.options.frames <= 0 || app.stats.frame + 1 >= static_cast<uint64_t>(app.options.frames))) {
    std::string error;
    if (!save_screenshot(app.options.screenshot, app.view.width, app.view.height, &error)) {
      warn("screenshot: " + error);
      app.options.screenshot.clear();
    }
  }
#endif
  platform_swap(app);

  const float cpu = static_cast<float>(now_ms() - now);
  app.stats.frame_ms = app.stats.frame_ms == 0.0f ? cpu : 0.9f * app.stats.frame_ms + 0.1f * cpu;
  ++app.stats.frame;
  ++app.fps_window_frames;
  if (now - app.fps_window_start >= 500.0) {
    app.stats.fps = static_cast<float>(1000.0 * app.fps_window_frames / (now - app.fps_window_start));
    app.fps_window_start = now;
    app.fps_window_frames = 0;
  }
}

#ifdef __EMSCRIPTEN__
void frame_callback(void* arg) { frame(*static_cast<App*>(arg)); }
#endif

}  // namespace

void set_awake(App& app, bool awake) {
  if (awake == app.awake) return;
  app.awake = awake;
#ifdef __EMSCRIPTEN__
  if (awake) emscripten_resume_main_loop();
  else emscripten_pause_main_loop();
#endif
  // Resume where it was: the time asleep is not owed to the simulation.
  app.last_time_ms = -1.0;
  app.accumulator = 0.0;
  if (!awake) release_all_contacts(app);
}

namespace {

// One thread per core up to kMaxThreads, fewer with --threads; 1 in a build
// without threads (the web build for pages that are not cross-origin
// isolated). In the threads web build hardware_concurrency() is the page's
// navigator.hardwareConcurrency, the number its worker pool was sized from.
int thread_count(const Options& options) {
  if (!tidepool::kThreadsAvailable) return 1;
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int most = std::min(cores, kMaxThreads);
  return options.threads > 0 ? std::min(options.threads, most) : most;
}

// Dear ImGui, the window and its context with ImGui's platform half on it
// (platform_open), and the GL objects of ImGui's renderer and of ours.
// False, reported through web_error(), if they cannot be made.
bool start_graphics(App& app) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini: nothing to write on the web, no litter natively
  if (!platform_open(app)) return false;
  std::string error;
  if (!gl_create(app, &error)) {
    web_error("Could not set up the graphics: " + error);
    return false;
  }
  return true;
}

#ifndef __EMSCRIPTEN__
// Natively: frames until the window closes or --frames are done, a summary
// line (the smoke tests read it), then everything torn down.
void run_native(App* app) {
  while (!app->quit) {
    frame(*app);
    if (app->options.frames > 0 && app->stats.frame >= static_cast<uint64_t>(app->options.frames)) break;
  }
  const tidepool::FieldView* grid = app->world.field();
  char body[96];
  if (grid)
    std::snprintf(body, sizeof body, "%dx%d cells, max |div u| %.2g /s", grid->nx, grid->ny,
                  app->stats.last.max_divergence);
  else
    std::snprintf(body, sizeof body, "%d particles, mean (%.3f, %.3f)", app->world.count(), app->stats.mean.x,
                  app->stats.mean.y);
  std::printf("tidepool_app: %llu frames, %s, %.1f fps, sim %.2f ms a frame, %d thread%s (%d in use)\n",
              static_cast<unsigned long long>(app->stats.frame), body, app->stats.fps, app->stats.sim_ms,
              app->pool->threads(), app->pool->threads() > 1 ? "s" : "", threads_in_use(*app));
  ImGui_ImplOpenGL3_Shutdown();
  app->renderer.shutdown();
  platform_close(*app);
  ImGui::DestroyContext();
  delete app;
}
#endif

}  // namespace

int run(int argc, char** argv) {
  // On the web main() never returns (the browser owns the loop), so the
  // app lives on the heap rather than in a stack frame that is abandoned.
  auto* app = new App;
  if (!parse_options(argc, argv, &app->options)) return 0;
  app->pool = std::make_unique<tidepool::ThreadPool>(thread_count(app->options));
  app->world.set_parallel_for(app->pool->hook());
  app->paused = app->options.paused;
  app->panel_open = !app->options.embed;
#ifdef __EMSCRIPTEN__
  // The page picks the count for the device, unless ?particles=N fixed it.
  app->quality.on = app->options.particles == 0;
#endif
  app->render.color = app->options.color;
  app->liquid_solver = app->options.solver;

  if (!start_graphics(*app)) return 1;
  // The tank takes the screen's shape (or a share link's, laid out for
  // this screen a moment later).
  update_sizes(*app);
  app->tank_aspect = app->options.aspect > 0.0f ? app->options.aspect : room_aspect(*app);
  if (!load(*app, app->options.scene, app->options.particles) && !load(*app, "dam-break", 0)) {
    web_error("Could not load a scene.");
    return 1;
  }
  update_sizes(*app);

#ifdef __EMSCRIPTEN__
  web_started(*app);
  emscripten_set_main_loop_arg(&frame_callback, app, 0, true);
#else
  run_native(app);
#endif
  return 0;
}

}  // namespace tidepool::app

int main(int argc, char** argv) { return tidepool::app::run(argc, argv); }
