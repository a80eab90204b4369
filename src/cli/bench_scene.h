// Internal to the tidepool CLI: the benchmark's scene, which `tidepool bench`
// (bench.cpp) and scripts/ab.sh (scripts/ab/side.cpp) both measure.
#pragma once

#include <string>

#include "tidepool/scenes.h"
#include "tidepool/world.h"

namespace tidepool_cli {

constexpr float kWaterSigma = 0.0728f;  // water's surface tension at 20 C [N/m]
constexpr float kBenchGridStep = 1.0f / 120.0f;  // the stable-fluids bench's step [s]

// The dam break of a 1.6 m x 2 m column in a 4 m x 3 m tank, g = 10 m/s^2,
// for `solver` ("muller2003", "dfsph" or "flip"), into w; `tank` scales the
// tank's sides (the column stays). False, with *error set, if the scene
// cannot be built.
inline bool load_bench_scene(tidepool::World& w, int particles, const char* solver,
                             std::string* error, float tank = 1.0f) {
  using namespace tidepool;
  SceneSetup s{particles, "", {{"gravity_y", -10.0f}}, 0.0f, {}};
  if (std::string(solver) == "flip") s.overrides.emplace_back("solver", static_cast<float>(Solver::Flip));
  if (std::string(solver) == "muller2003") {
    // The seeds' solver as the performance issue lists it: neighbours,
    // density, pressure, viscosity, surface tension, integration,
    // boundaries. The wcsph preset has no surface tension (the water
    // defaults'), so the seeds' colour field (Müller 2003 eq. 15-19) is
    // switched on at water's surface tension; the reference implementation
    // computes the same term, so the two do the same work.
    s.preset = "wcsph";
    s.overrides.emplace_back("tension", static_cast<float>(Tension::ColourField));
    s.overrides.emplace_back("surface_tension", kWaterSigma);
  }
  return build_dam_break(w, 1.6f, 2.0f, 4.0f * tank, 3.0f * tank, s, error);
}

// The stable-fluids bench's scene: smoke (buoyant dye, an emitter, an
// obstacle, vorticity confinement) on a grid of `grid` cells along its
// longer side, run 60 steps of 1/120 s so that the plume is moving. False,
// with *error set, if it cannot be built.
inline bool load_bench_grid(tidepool::World& w, int grid, std::string* error) {
  using namespace tidepool;
  SceneSetup setup;
  setup.overrides = {{"grid", static_cast<float>(grid)}};
  if (!load_scene(w, "smoke", setup, error)) return false;
  for (int k = 0; k < 60; ++k) w.step(kBenchGridStep);
  return true;
}

}  // namespace tidepool_cli
