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

#include "tidepool/scenes.h"
#include "tidepool/world.h"

#define AB_CAT2(a, b) a##b
#define AB_CAT(a, b) AB_CAT2(a, b)

namespace {
std::unique_ptr<tidepool::World> start, world;
float dt = 0.0f;
}  // namespace

// The bench's dam break (src/cli/bench.cpp, bench_world) after 21 frames,
// with Müller's surface tension as the bench runs it. False if the scene
// cannot be built.
bool AB_CAT(AB_SIDE, _setup)(int particles, bool dfsph) {
  using namespace tidepool;
  auto w = std::make_unique<World>();
  SceneSetup s{particles, dfsph ? "" : "wcsph", {{"gravity_y", -10.0f}}};
  if (!dfsph) {
    s.overrides.emplace_back("tension", static_cast<float>(Tension::ColourField));
    s.overrides.emplace_back("surface_tension", 0.0728f);
  }
  std::string err;
  if (!build_dam_break(*w, 1.6f, 2.0f, 4.0f, 3.0f, s, &err)) {
    std::fprintf(stderr, "ab: %s\n", err.c_str());
    return false;
  }
  for (int f = 0; f < 21; ++f) w->advance(1.0f / 60.0f);
  dt = w->stable_dt();
  world = std::make_unique<World>(*w);
  start = std::move(w);
  return true;
}

// One step from the saved state: its time in microseconds, and the state
// hash after it (*hash).
double AB_CAT(AB_SIDE, _step)(uint64_t* hash) {
  *world = *start;
  const auto t0 = std::chrono::steady_clock::now();
  world->step(dt);
  const auto t1 = std::chrono::steady_clock::now();
  *hash = world->state_hash();
  return std::chrono::duration<double, std::micro>(t1 - t0).count();
}
