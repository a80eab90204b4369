// One side of scripts/ab.sh: compiled once per build of the core, with
// -Dtidepool=<namespace> and -DAB_SIDE=<prefix>, so that two builds link
// into one program (main.cpp) and step copies of one state in turn. The
// machine's phase then falls on both alike, which separate runs cannot
// promise here (a row of `tidepool bench` wanders by up to 1.4x).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "bench_scene.h"

#define AB_CAT2(a, b) a##b
#define AB_CAT(a, b) AB_CAT2(a, b)

namespace {
std::unique_ptr<tidepool::World> start, world;
float dt = 0.0f;
}  // namespace

// The bench's dam break (src/cli/bench_scene.h) after 21 frames, or for
// "stable" its smoke scene on a grid of `particles` cells, stepped with the
// ParallelFor hook (run, user) that main.cpp's thread pool gives (run null:
// inline). False if the scene cannot be built.
bool AB_CAT(AB_SIDE, _setup)(int particles, const char* solver, decltype(tidepool::ParallelFor::run) run,
                             void* user) {
  using namespace tidepool;
  auto w = std::make_unique<World>();
  w->set_parallel_for(ParallelFor{run, user});
  std::string err;
  const bool grid = std::string(solver) == "stable";
  if (grid ? !tidepool_cli::load_bench_grid(*w, particles, &err)
           : !tidepool_cli::load_bench_scene(*w, particles, solver, &err)) {
    std::fprintf(stderr, "ab: %s\n", err.c_str());
    return false;
  }
  if (!grid)
    for (int f = 0; f < 21; ++f) w->advance(1.0f / 60.0f);
  dt = grid ? tidepool_cli::kBenchGridStep : w->stable_dt();
  world = std::make_unique<World>(*w);
  start = std::move(w);
  return true;
}

// One step from the saved state: its time in microseconds, each stage's
// (stages[tidepool::kStageCount], World::step's own clock), and the state
// hash after it (*hash).
double AB_CAT(AB_SIDE, _step)(uint64_t* hash, double* stages) {
  *world = *start;
  const tidepool::Clock clock{[](void*) {
                                return std::chrono::duration<double, std::milli>(
                                           std::chrono::steady_clock::now().time_since_epoch())
                                    .count();
                              },
                              nullptr};
  const auto t0 = std::chrono::steady_clock::now();
  const tidepool::FrameStats st = world->step(dt, clock);
  const auto t1 = std::chrono::steady_clock::now();
  *hash = world->state_hash();
  for (int s = 0; s < tidepool::kStageCount; ++s) stages[s] = 1000.0 * st.stage_ms[s];
  return std::chrono::duration<double, std::micro>(t1 - t0).count();
}

int AB_CAT(AB_SIDE, _stages)() { return tidepool::kStageCount; }
const char* AB_CAT(AB_SIDE, _stage_name)(int stage) { return tidepool::stage_name(stage); }
