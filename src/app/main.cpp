// Tidepool app — entry point and the frame.
//
// frame(): poll events -> panel -> input to forces -> simulate (fixed ticks
// through a clamped accumulator) -> render -> panel on top -> swap.
// Natively a plain loop calls it; in the browser emscripten_set_main_loop
// does, once per requestAnimationFrame.
#include <algorithm>
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

void warn(const std::string& text) {
#ifdef __EMSCRIPTEN__
  // console.warn: visible in the browser console, and not an error.
  emscripten_log(EM_LOG_CONSOLE | EM_LOG_WARN, "tidepool: %s", text.c_str());
#else
  std::fprintf(stderr, "tidepool: %s\n", text.c_str());
#endif
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

  Frame f;
  f.width = app.view.width;
  f.height = app.view.height;
  f.center = app.view.center;
  f.scale = app.view.scale;
  f.spacing = app.world.spacing();
  if (drawn_dye(app)) f.dye = &app.sharp_dye;
  app.render.water = app.look.water;
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
  if (!app.setup.screenshot.empty() &&
      (app.setup.frames <= 0 || app.stats.frame + 1 >= static_cast<uint64_t>(app.setup.frames))) {
    std::string error;
    if (!save_screenshot(app.setup.screenshot, app.view.width, app.view.height, &error)) {
      warn("screenshot: " + error);
      app.setup.screenshot.clear();
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

// One thread per core up to kMaxThreads, fewer with --threads; 1 in a build
// without threads (the web build for pages that are not cross-origin
// isolated). In the threads web build hardware_concurrency() is the page's
// navigator.hardwareConcurrency, the number its worker pool was sized from.
int thread_count(const Setup& setup) {
  if (!tidepool::kThreadsAvailable) return 1;
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int most = std::min(cores, kMaxThreads);
  return setup.threads > 0 ? std::min(setup.threads, most) : most;
}

#ifndef __EMSCRIPTEN__
// Natively: frames until the window closes or --frames are done, a summary
// line (the smoke tests read it), then everything torn down.
void run_native(App* app) {
  while (!app->quit) {
    frame(*app);
    if (app->setup.frames > 0 && app->stats.frame >= static_cast<uint64_t>(app->setup.frames)) break;
  }
  const tidepool::FieldView* grid = app->world.field();
  char body[96];
  if (grid)
    std::snprintf(body, sizeof body, "%dx%d cells, max |div u| %.2g /s", grid->nx, grid->ny,
                  app->stats.last.max_divergence);
  else {
    const glm::vec2 mean = water_mean(app->world);
    std::snprintf(body, sizeof body, "%d particles, mean (%.3f, %.3f)", app->world.count(), mean.x, mean.y);
  }
  std::printf("tidepool_app: %llu frames, %s, %.1f fps, sim %.2f ms a frame, %d thread%s (%d in use)\n",
              static_cast<unsigned long long>(app->stats.frame), body, app->stats.fps, app->stats.sim_ms,
              app->pool->threads(), app->pool->threads() > 1 ? "s" : "", threads_in_use(*app));
  ImGui_ImplOpenGL3_Shutdown();
  app->renderer.shutdown();
  app->sharp_dye.shutdown();
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
  std::vector<std::string> warnings;
  const bool go = read_args(argc, argv, &app->setup, &warnings);
  for (const std::string& w : warnings) warn(w);
  if (!go) return 0;
  if (app->setup.threads > 1 && !tidepool::kThreadsAvailable)
    warn("threads " + std::to_string(app->setup.threads) +
         ": this build has no threads (the page is not cross-origin isolated), using 1");
  app->pool = std::make_unique<tidepool::ThreadPool>(thread_count(app->setup));
  app->world.set_parallel_for(app->pool->hook());
  app->paused = app->setup.paused;
  app->panel_open = !app->setup.embed;
#ifdef __EMSCRIPTEN__
  // The page picks the count for the device, unless ?particles=N fixed it.
  app->quality.on = app->setup.particles == 0;
#endif
  app->render.color = app->setup.color;
  app->render.transparent = app->setup.transparent;
  app->render.walls = app->setup.walls;
  app->look = app->setup.look;
  app->liquid_solver = app->setup.solver;

  if (!start_graphics(*app)) return 1;
  // The tank takes the screen's shape (or a share link's, laid out for
  // this screen a moment later).
  update_sizes(*app);
  app->tank_aspect = app->setup.aspect > 0.0f ? app->setup.aspect : room_aspect(*app);
  // The world, built once from the Setup: its parameters and bodies go
  // into the load as the Setup's scene's own (load() drops them on a change
  // of scene), its obstacles in place of the scene's.
  app->scene = app->setup.scene;
  app->overrides = {app->setup.params.begin(), app->setup.params.end()};
  app->link_bodies = app->setup.bodies;
  if (!load(*app, app->setup.scene, app->setup.particles) && !load(*app, "dam-break", 0)) {
    web_error("Could not load a scene.");
    return 1;
  }
  if (app->setup.obstacles) {
    app->world.clear_obstacles();
    for (const tidepool::Obstacle& o : *app->setup.obstacles) add_obstacle(*app, o);
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
