// Tidepool app — time and the fixed tick: the clock, the accumulator that
// turns a frame's real time into whole simulation ticks, auto quality's
// resizing between them, and the loop's pause while the page is away.
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#endif

#include "app.h"

namespace tidepool::app {

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

namespace {

double clock_now_ms(void*) { return now_ms(); }

// The simulation advances in fixed ticks of real time. A frame owes the
// real time since the last one, clamped: after a hidden tab or a debugger
// pause we do not try to catch up (the spiral of death), and when a frame's
// ticks overrun the budget, the rest is dropped and the water runs in slow
// motion instead of the page freezing.
constexpr double kTick = 1.0 / 60.0;     // [s]
// kMaxFrameTime, the most real time one frame may owe, is in app.h: frame()
// clamps the input's time step with it too.
constexpr int kMaxTicksPerFrame = 3;
constexpr double kTickBudgetMs = 30.0;   // stop ticking past this (slow devices)

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

// The sharp dye's texels along the tank's long side: its pixels on the
// screen, in steps of 128, from 128 to 1 024; on a device where auto
// quality shrank the grid, eight texels a cell at most.
int dye_side(const App& app) {
  const tidepool::Box& b = app.world.box();
  const float pixels = std::max(b.max.x - b.min.x, b.max.y - b.min.y) * app.view.scale;
  int side = 128 * static_cast<int>(std::ceil(std::max(pixels, 1.0f) / 128.0f));
  if (app.quality.on && app.quality.grid > 0) side = std::min(side, 8 * app.quality.grid);
  return std::clamp(side, SharpDye::kMinSide, SharpDye::kMaxSide);
}

// The page's sharp dye follows the scene: started over when a scene loads
// (or the graphics come back), drawn again at a new size when the tank's
// pixels or auto quality's grid call for one.
void sync_dye(App& app) {
  if (!app.setup.gpu_dye || !app.gl_ready || !app.world.field()) return;
  const int side = dye_side(app);
  if (app.dye_loads != app.loads) {
    app.dye_loads = app.loads;
    app.dye_side = app.sharp_dye.reset(app.world, side) ? side : -1;  // -1: no float targets here
  } else if (app.sharp_dye.ready() && side != app.dye_side) {
    app.sharp_dye.resize(app.world, side);
    app.dye_side = side;
  }
}

// One tick: the pointers and the show's splat at this moment, the world's
// step (a fixed tick, or once, paused, its own stable step), and the
// page's sharp dye carried through the same time with the same pointers.
tidepool::FrameStats tick(App& app, const tidepool::Clock& clock, bool once) {
  const std::vector<tidepool::PointerForce> forces = tick_forces(app, app.world.time());
  app.world.set_pointers(forces);
  const double t0 = app.world.time();
  const tidepool::FrameStats st =
      once ? app.world.step(app.world.stable_dt(), clock) : app.world.advance(static_cast<float>(kTick), clock);
  sync_dye(app);  // after the step: a grid scene's first one makes its grid
  if (drawn_dye(app)) app.sharp_dye.step(app.world, forces, static_cast<float>(app.world.time() - t0));
  return st;
}

}  // namespace

void simulate(App& app, double frame_time) {
  const tidepool::Clock clock{&clock_now_ms, nullptr};
  const double t0 = now_ms();
  tidepool::FrameStats sum;
  int ticks = 0;
  sync_dye(app);  // also while paused: the page draws its copy from the start
  // The pool, or this thread alone where its frames run faster (ThreadChoice).
  const bool choose = app.pool->threads() > 1 && !app.paused;
  if (choose)
    app.world.set_parallel_for(app.thread_choice.next_frame_pooled() ? app.pool->hook() : tidepool::ParallelFor{});
  if (!app.paused) {
    app.accumulator += std::min(frame_time, kMaxFrameTime);
    while (app.accumulator >= kTick && ticks < kMaxTicksPerFrame) {
      tidepool::add_frame_stats(sum, tick(app, clock, false));
      app.accumulator -= kTick;
      ++ticks;
      if (now_ms() - t0 > kTickBudgetMs) break;
    }
    if (app.accumulator >= kTick) app.accumulator = 0.0;  // drop what we could not do
  } else if (app.step_once) {
    const double t = app.world.time();
    tidepool::add_frame_stats(sum, tick(app, clock, true));
    app.input_clock += app.world.time() - t;
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

void advance_frames(App& app, int frames) {
  const tidepool::Clock clock{&clock_now_ms, nullptr};
  tidepool::FrameStats sum;
  const double t = app.world.time();
  for (int k = 0; k < frames; ++k) tidepool::add_frame_stats(sum, tick(app, clock, false));
  app.input_clock += app.world.time() - t;  // the drags' clock, paused or not
  if (frames > 0) app.stats.last = sum;
}

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

}  // namespace tidepool::app
