// The bounds on a frame's work (World::advance, FrameStats::work): a frame
// ends early rather than pass work_bound ordinary frames, and the particles'
// minimum distance (separation.cpp) bounds the neighbours each pass visits.
// Without the bounds each of these cases passes them (docs/physics.md,
// "Robustness", gives by how much).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "test_support.h"
#include "tidepool/kernels.h"

using namespace tidepool;
using namespace tidepool_test;

namespace {

// The most particles one particle has within h, itself left out.
int most_neighbours(const World& w) {
  const Particles& p = w.particles();
  const float h2 = w.params().h * w.params().h;
  int most = 0;
  for (int i = 0; i < w.count(); ++i) {
    int k = 0;
    for (int j = 0; j < w.count(); ++j) {
      const float dx = p.x[i] - p.x[j], dy = p.y[i] - p.y[j];
      k += j != i && dx * dx + dy * dy < h2;
    }
    most = std::max(most, k);
  }
  return most;
}

// A frame's work in ordinary frames: its limit is work_bound of them.
double ordinary_frames(const FrameStats& st, const Params& P) { return st.work / (st.work_limit / P.work_bound); }

}  // namespace

// Plays `frames` frames and returns the most work one took, in ordinary
// frames, checking each against its limit.
double most_work(World& w, int frames) {
  double most = 0.0;
  for (int f = 0; f < frames; ++f) {
    const FrameStats st = w.advance(1.0f / 60.0f);
    INFO("frame " << f << ": work " << st.work << " of " << st.work_limit << ", " << st.substeps << " substeps");
    REQUIRE(st.work <= st.work_limit);
    REQUIRE(all_inside_and_finite(w));
    most = std::max(most, ordinary_frames(st, w.params()));
  }
  return most;
}

// Gravity at the end of its range, a hundred times the Earth's, with an
// emitter running: Müller's EOS packs the water on the floor, and DFSPH,
// switched in, meets it with full neighbour lists and a hundred
// iterations a solve.
TEST_CASE("extreme gravity with an emitter stays within the work bound, under Muller and after a switch to DFSPH",
          "[bounds]") {
  World w;
  std::string err;
  REQUIRE(load_scene(w, "dam-break", SceneSetup{1500, "wcsph", {{"gravity_y", -1000.0f}}}, &err));
  Emitter e;
  e.position = {2.0f, 2.6f};
  e.velocity = {0.0f, -5.0f};
  e.width = 0.5f;
  e.limit = 3000;
  REQUIRE(w.add_emitter(e) >= 0);
  const double muller = most_work(w, 60);
  Params P = w.params();
  P.solver = Solver::DFSPH;
  REQUIRE(w.set_params(P).empty());
  const double dfsph = most_work(w, 20);
  INFO("most work: Muller " << muller << ", DFSPH " << dfsph << " ordinary frames");
  CHECK(muller <= P.work_bound);
  CHECK(dfsph <= P.work_bound);
}

// A jet at the speed cap into a Müller tank (whose preset allows 400
// substeps a frame), at the smallest CFL factor a slider gives: the step
// bounds ask for hundreds of substeps a frame, where an ordinary frame
// takes 15.
TEST_CASE("a jet at the speed cap into Muller's water ends frames early, within the work bound", "[bounds]") {
  World w;
  std::string err;
  REQUIRE(load_scene(w, "dam-break", SceneSetup{1000, "wcsph", {{"cfl", 0.02f}}}, &err));
  Emitter e;
  e.position = {3.0f, 2.0f};
  e.velocity = {0.0f, -200.0f};  // held to max_speed, 50 m/s
  e.width = 0.3f;
  e.limit = 2500;
  REQUIRE(w.add_emitter(e) >= 0);
  bool ended_early = false;
  double most = 0.0;
  for (int f = 0; f < 30; ++f) {
    most = std::max(most, most_work(w, 1));
    ended_early = ended_early || w.last_stats().work_cap_hit;
  }
  INFO("most work " << most << " ordinary frames");
  CHECK(most <= w.params().work_bound);
  CHECK(ended_early);
}

// 600 particles within a tenth of h: 599 neighbours each, some twenty-five
// times a resting particle's. DFSPH holds such a pile as it is (coincident
// pairs have no gradient to push along), so that every pass over it costs
// as much as over twenty-five times the water; the minimum distance parts
// it, and the pressure then spreads it.
TEST_CASE("a pile of coincident particles comes apart", "[bounds]") {
  for (const char* preset : {"water", "wcsph"}) {
    INFO(preset);
    World w;
    std::string err;
    REQUIRE(load_scene(w, "dam-break", SceneSetup{500, preset, {}}, &err));
    const float h = w.params().h;
    add_pile(w, 600, {2.0f, 1.5f});
    most_work(w, 30);
    const float ratio = h / w.spacing();
    const double rest = kPi * ratio * ratio;  // neighbours at rest, about
    const int most = most_neighbours(w);
    INFO("most neighbours " << most << ", at rest about " << rest);
    CHECK(most < 3.0 * rest);
  }
}
