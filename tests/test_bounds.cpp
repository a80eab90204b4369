// The bounds on a frame's work (World::advance, FrameStats::work): a frame
// ends early rather than pass work_bound ordinary frames, and the particles'
// minimum distance (separation.cpp) bounds the neighbours each pass visits.
// Without the bounds each of these cases passes them (docs/physics.md,
// "Robustness", gives by how much).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "neighbour_grid.h"
#include "solver.h"
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

// The candidates the sort's scans visit for the particles as they are, by a
// grid of the test's own: a step's minimum distance scans them twice, so a
// frame that runs a step meters at least twice this many.
double candidates(const World& w) {
  const Particles& p = w.particles();
  Grid g;
  g.build(p.x.data(), p.y.data(), w.count(), w.params().h);
  double sum = 0.0;
  for (int i = 0; i < w.count(); ++i) g.for_each_range(i, [&](int b, int e) { sum += e - b; });
  return sum;
}

}  // namespace

// Plays `frames` frames, checking each one's work against its limit from
// above and against its first step's scans from below (a meter that
// under-counts fails here), and returns the most work one took, in
// ordinary frames; *ended_early (if given) gets whether a frame ended on
// its bound.
double most_work(World& w, int frames, bool* ended_early = nullptr) {
  double most = 0.0;
  for (int f = 0; f < frames; ++f) {
    const double least = 2.0 * candidates(w);
    const FrameStats st = w.advance(1.0f / 60.0f);
    INFO("frame " << f << ": work " << st.work << " of " << st.work_limit << ", at least " << least << ", "
                  << st.substeps << " substeps");
    REQUIRE(st.work <= st.work_limit);
    if (st.substeps > 0) REQUIRE(st.work >= least);
    REQUIRE(all_inside_and_finite(w));
    most = std::max(most, ordinary_frames(st, w.params()));
    if (ended_early) *ended_early = *ended_early || st.work_cap_hit;
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
  bool muller_early = false, dfsph_early = false;
  const double muller = most_work(w, 60, &muller_early);
  Params P = w.params();
  P.solver = Solver::DFSPH;
  REQUIRE(w.set_params(P).empty());
  const double dfsph = most_work(w, 20, &dfsph_early);
  INFO("most work: Muller " << muller << ", DFSPH " << dfsph << " ordinary frames");
  // DFSPH's full lists and hundred iterations reach the bound: frames end
  // early, each within it and above its scans (most_work).
  CHECK(dfsph_early);
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
  const double most = most_work(w, 30, &ended_early);
  INFO("most work " << most << " ordinary frames");
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

// Piles of 600 and 20 000 particles at a point, on a line and in a corner:
// every particle a candidate of every other (of its row's, on the line),
// up to 400 million candidates a scan. For each solver and at both ends of
// work_bound, no frame passes its bound, its first one included (the
// backstop, World's substep); a frame that takes a whole step counts at
// least the candidates its two scans visit, as a grid of the test's own
// counts them; and DFSPH's lists stay within what the bound lets a step
// scan.
TEST_CASE("piles at a point, on a line and in a corner stay within the work bound, for every solver",
          "[bounds][piles]") {
#ifdef NDEBUG
  constexpr int kFrames = 3;
#else
  constexpr int kFrames = 1;  // the sanitizers' build is some 30 times slower
#endif
  const float s = 0.02f;  // 20 000 particles at 2 cm cover 8 m^2 of the 12
  for (const SolverEntry& solver : solver_registry()) {
    for (const float bound : {1.0f, 8.0f}) {
      for (const int n : {600, 20000}) {
        for (const char* shape : {"point", "line", "corner"}) {
          INFO(solver.name << ", work_bound " << bound << ", " << n << " particles at a " << shape);
          Params P;
          P.solver = solver.id;
          P.work_bound = bound;
          P.mass = P.rest_density * s * s;
          P.h = kSupportPerSpacing * s;
          World w(P);
          w.set_box(Box{{0.0f, 0.0f}, {4.0f, 3.0f}});
          const std::string where = shape;
          for (int k = 0; k < n; ++k) {
            const float t = static_cast<float>(k) / static_cast<float>(n);
            const glm::vec2 at = where == "point"  ? glm::vec2(2.0f + 1e-4f * t, 1.5f)
                                 : where == "line" ? glm::vec2(1.0f + 2.0f * t, 1.5f)
                                                   : glm::vec2(1e-4f * t, 1e-4f * (1.0f - t));
            w.add_particle(at);
          }
          REQUIRE(w.count() == n);
          // The candidates of the first step's scans, by a grid of the test's own.
          const double scanned = candidates(w);
          for (int f = 0; f < kFrames; ++f) {
            const FrameStats st = w.advance(1.0f / 60.0f);
            INFO("frame " << f << ": work " << st.work << " of " << st.work_limit << ", " << st.substeps
                          << " substeps, " << st.cap_hits << " capped");
            CHECK(st.work <= st.work_limit);
            CHECK(st.substeps >= 1);
            if (f == 0 && solver.id != Solver::Stable && solver.id != Solver::Flip && st.cap_hits == 0)
              CHECK(st.work >= 2.0 * scanned);
            CHECK(static_cast<double>(w.bytes_per_particle()) * n <= 4096.0 * n + 2.0 * st.work_limit);
          }
          CHECK(all_inside_and_finite(w));
        }
      }
    }
  }
}
