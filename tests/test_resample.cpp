// World::resample: the running water at another particle count, in place
// (auto quality's move, src/app/tick.cpp). The water must stay where it
// was, moving as it was, with its volume, its time and what is around it.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "test_support.h"

using namespace tidepool;
using namespace tidepool_test;

namespace {

struct Summary {
  glm::dvec2 centre{0.0}, velocity{0.0};  // mass-weighted means
  double area = 0.0;                      // count * spacing^2
};

Summary summary(const World& w) {
  const Particles& p = w.particles();
  Summary s;
  for (int i = 0; i < p.size(); ++i) {
    s.centre += glm::dvec2(p.x[i], p.y[i]);
    s.velocity += glm::dvec2(p.vx[i], p.vy[i]);
  }
  s.centre /= p.size();
  s.velocity /= p.size();
  s.area = p.size() * static_cast<double>(w.spacing()) * w.spacing();
  return s;
}

}  // namespace

TEST_CASE("resampling a running dam break keeps its water, motion, time and obstacles", "[resample]") {
  const char* preset = GENERATE("water", "wcsph");
  const double factor = GENERATE(0.5, 2.0);
  CAPTURE(preset, factor);
  World w;
  std::string err;
  REQUIRE(load_scene(w, "dam-break", SceneSetup{3000, preset, {}}, &err));
  const int obstacle = w.add_circle({2.6f, 0.3f}, 0.2f);
  for (int f = 0; f < 45; ++f) w.advance(1.0f / 60.0f);  // the surge is running
  const Summary before = summary(w);
  const double time = w.time();
  const float h = w.params().h, spacing = w.spacing();
  const int count = w.count(), target = static_cast<int>(factor * count);

  REQUIRE(w.resample(target));
  const Summary after = summary(w);
  INFO("count " << w.count() << " for " << target << "; centre moved "
                << (after.centre.x - before.centre.x) * 100.0 << ", " << (after.centre.y - before.centre.y) * 100.0 << " cm; mean velocity ("
                << before.velocity.x << ", " << before.velocity.y << ") -> (" << after.velocity.x << ", "
                << after.velocity.y << "); area " << before.area << " -> " << after.area);
  CHECK(w.time() == time);
  CHECK(w.obstacles().size() == 1);
  CHECK(w.obstacles()[0].id == obstacle);
  // The lattice fills the region to within a spacing along its edge, and
  // a little more around spray, whose discs are wider than the sheets they
  // stand for: the water's area (its mass) within 2 % under DFSPH, 3.4 %
  // in Müller's splash, where 5 % is allowed.
  CHECK(std::abs(w.count() - target) < 0.05 * target);
  CHECK(std::abs(after.area / before.area - 1.0) < 0.05);
  // The spacing, h and mass move together: h stays 2.8 spacings, and the
  // spacing is the one that keeps the area, rounded to whole cells across
  // the tank (a hundred here).
  CHECK(w.spacing() == Approx(spacing * std::sqrt(static_cast<double>(count) / target)).epsilon(0.01));
  CHECK(w.params().h / w.spacing() == Approx(h / spacing).epsilon(1e-4));
  // Where the water is, and how it moves, stay: the centre within a
  // spacing (at most 0.9 of one), the mean velocity (the momentum per
  // mass) within 5 % of the surge's speed (at most 3 %, Müller's splash).
  CHECK(glm::length(after.centre - before.centre) < spacing);
  CHECK(glm::length(after.velocity - before.velocity) < 0.05 * glm::length(before.velocity));

  // And it runs on from there as water: no frame needs the safety net, and
  // the surge goes on towards the far wall.
  int contained = 0;
  for (int f = 0; f < 60; ++f) contained += w.advance(1.0f / 60.0f).contained ? 1 : 0;
  CHECK(contained == 0);
  CHECK(all_inside_and_finite(w));
  CHECK(summary(w).centre.x > after.centre.x);
  CHECK(w.time() == Approx(time + 1.0).margin(1e-3));
}

TEST_CASE("resampling refuses what it cannot do and changes nothing", "[resample]") {
  World w;
  std::string err;
  REQUIRE(load_scene(w, "drop", SceneSetup{1000, "", {}}, &err));
  w.advance(1.0f / 60.0f);
  const uint64_t hash = w.state_hash();
  const int n = w.count();
  CHECK_FALSE(w.resample(0));
  CHECK_FALSE(w.resample(-5));
  CHECK_FALSE(w.resample(kMaxParticles + 1));
  // So few particles that their spacing would pass a quarter of the tank's
  // short side (fit_problems): two particles in the drop's tank.
  CHECK_FALSE(w.resample(2));
  CHECK(w.count() == n);
  CHECK(w.state_hash() == hash);

  World grid;
  REQUIRE(load_scene(grid, "stir", SceneSetup{}, &err));
  CHECK_FALSE(grid.resample(1000));
}
