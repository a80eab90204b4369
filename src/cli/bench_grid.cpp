// `tidepool bench --solver stable`: the grid solver's cost per cell-step on
// the smoke scene (buoyant dye, an emitter, an obstacle, vorticity
// confinement) from 64 x 64 to the largest grid the engine takes (512),
// its spread over the sizes, and the largest grid that holds 60 fps.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_scene.h"
#include "cli.h"
#include "tidepool/scenes.h"
#include "tidepool/world.h"

using namespace tidepool;

namespace tidepool_cli {
namespace {

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// The bench's smoke scene on an n-cell grid (bench_scene.h); false if it
// cannot be built.
bool smoke_world(World& w, int n, const ParallelFor& hook) {
  std::string err;
  w.set_parallel_for(hook);
  if (!load_bench_grid(w, n, &err)) {
    std::fprintf(stderr, "tidepool bench: %s\n", err.c_str());
    return false;
  }
  return true;
}

struct GridRow {
  int grid = 0, cells = 0;
  double ms_per_step = 0.0, iterations = 0.0;
  double ns_per_cell_step() const { return 1e6 * ms_per_step / cells; }
};

// The median of `runs` timings of `steps` substeps of 1/120 s each.
GridRow measure_grid(int n, int steps, int runs, const ParallelFor& hook) {
  GridRow row;
  World start;
  if (!smoke_world(start, n, hook)) return row;
  std::vector<double> ms;
  double iterations = 0.0;
  for (int r = 0; r < runs; ++r) {
    World w = start;
    const double t0 = now_ms();
    for (int k = 0; k < steps; ++k) iterations += w.step(kBenchGridStep).solver_iterations;
    ms.push_back((now_ms() - t0) / steps);
  }
  std::sort(ms.begin(), ms.end());
  row.grid = n;
  row.cells = start.field()->nx * start.field()->ny;
  row.ms_per_step = ms[ms.size() / 2];
  row.iterations = iterations / (steps * runs);
  return row;
}

// The median time of a 1/60 s frame (as many substeps as the time step
// rule takes) over 15 frames.
double frame_ms(int n, const ParallelFor& hook) {
  World w;
  if (!smoke_world(w, n, hook)) return 1e9;
  std::vector<double> ms;
  for (int k = 0; k < 15; ++k) {
    const double t0 = now_ms();
    w.advance(1.0f / 60.0f);
    ms.push_back(now_ms() - t0);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int bench_stable(bool json, bool quick, int threads, const ParallelFor& hook) {
  // Sizes up to the largest grid the engine takes (Params' range).
  const int largest = static_cast<int>(find_param("grid")->max);
  std::vector<int> sizes = {64, 128};
  for (int n = 256; !quick && n <= largest; n *= 2) sizes.push_back(n);
  if (!json) {
    std::printf("tidepool bench: stable fluids (Stam 1999) on the smoke scene, %d thread%s\n", threads,
                threads == 1 ? "" : "s");
    std::printf("%6s %9s %14s %10s %12s %11s%s\n", "grid", "cells", "cell-steps/s", "ms/step", "ns/cell-step",
                "iterations", threads > 1 ? "  vs 1 thread" : "");
  }
  double lo = 1e30, hi = 0.0;
  for (int n : sizes) {
    const int steps = n >= 512 ? 4 : 12, runs = 3;
    const GridRow r = measure_grid(n, quick ? 3 : steps, quick ? 1 : runs, hook);
    if (r.cells == 0) return 2;
    // With threads, the same size on one thread right after: their ratio
    // is the threads' speed-up, both timed in the same phase of the machine.
    const double speedup = threads > 1 ? measure_grid(n, quick ? 3 : steps, quick ? 1 : runs, ParallelFor{}).ms_per_step / r.ms_per_step : 1.0;
    lo = std::min(lo, r.ns_per_cell_step());
    hi = std::max(hi, r.ns_per_cell_step());
    if (json) {
      std::printf("{\"solver\":\"stable\",\"threads\":%d,\"grid\":%d,\"cells\":%d,\"cell_steps_per_s\":%.0f,"
                  "\"ms_per_step\":%.3f,\"ns_per_cell_step\":%.2f,\"projection_iterations\":%.2f",
                  threads, r.grid, r.cells, 1e3 * r.cells / r.ms_per_step, r.ms_per_step, r.ns_per_cell_step(),
                  r.iterations);
      if (threads > 1) std::printf(",\"speedup_vs_1_thread\":%.3f", speedup);
      std::printf("}\n");
    } else {
      std::printf("%6d %9d %14.3g %10.3f %12.1f %11.1f", r.grid, r.cells, 1e3 * r.cells / r.ms_per_step,
                  r.ms_per_step, r.ns_per_cell_step(), r.iterations);
      if (threads > 1) std::printf("  %.2fx", speedup);
      std::printf("\n");
    }
    std::fflush(stdout);
  }
  // The largest grid whose frames take at most 1/60 s, in steps of 32 cells.
  int best = 0;
  double best_ms = 0.0;
  if (!quick) {
    for (int n = 64; n <= largest; n += 32) {
      const double ms = frame_ms(n, hook);
      if (ms > 1000.0 / 60.0) break;
      best = n;
      best_ms = ms;
    }
  }
  if (json) {
    std::printf("{\"summary\":\"stable\",\"threads\":%d,\"cost_spread\":%.3f,\"capacity_grid\":%d,"
                "\"capacity_frame_ms\":%.2f}\n",
                threads, hi / lo, best, best_ms);
  } else {
    std::printf("cost spread %.2fx per cell-step, slowest size over fastest\n", hi / lo);
    if (!quick) std::printf("60 fps capacity: %d cells along the longer side (%.1f ms a frame)\n", best, best_ms);
  }
  return 0;
}

}  // namespace tidepool_cli
