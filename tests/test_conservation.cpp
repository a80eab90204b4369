// Conservation: internal forces are pairwise antisymmetric, so with gravity,
// walls and surface tension off the total momentum stays put (to round-off);
// with viscosity and no energy input, kinetic energy never grows.
#include <catch2/catch.hpp>

#include "test_support.h"

using namespace tidepool;
using namespace tidepool_test;

namespace {

Params free_fluid(Solver solver) {
  Params p;
  p.solver = solver;
  p.gravity_x = p.gravity_y = 0.0f;
  p.surface_tension = 0.0f;
  p.viscosity = 1.0f;
  p.adaptive_dt = false;
  p.dt = 5e-4f;
  p.stiffness = 200.0f;
  p.negative_pressure = 1.0f;
  const float s = 0.02f;
  p.h = kSupportPerSpacing * s;
  p.mass = p.rest_density * s * s;
  return p;
}

}  // namespace

TEST_CASE("linear momentum is conserved with gravity and walls off", "[physics][momentum]") {
  struct Case {
    const char* name;
    Solver solver;
    PressureForce form;
    Integrator integrator;
  };
  const Case cases[] = {
      {"muller2003 symmetric euler", Solver::Muller2003, PressureForce::Symmetric, Integrator::SymplecticEuler},
      {"muller2003 muller-form leapfrog", Solver::Muller2003, PressureForce::Muller, Integrator::Leapfrog},
      {"dfsph", Solver::DFSPH, PressureForce::Symmetric, Integrator::SymplecticEuler},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    Params p = free_fluid(c.solver);
    p.pressure_force = c.form;
    p.integrator = c.integrator;
    p.xsph = c.solver == Solver::DFSPH ? 0.1f : 0.0f;
    World w(p);
    REQUIRE(w.params().solver == c.solver);
    w.set_box(Box{{-100.0f, -100.0f}, {100.0f, 100.0f}});
    // Compressed (23 % over rest density, 5 % for DFSPH), so pressure acts. (DFSPH removes it in one
    // step; with this small dt that would be a needlessly violent start.)
    random_block(w, 24, c.solver == Solver::DFSPH ? 0.0195f : 0.018f, 0.0f, 0.0f, 1.0f, 42);
    const Momentum before = momentum(w);
    for (int k = 0; k < 200; ++k) {
      const FrameStats st = w.step(p.dt);
      INFO("step " << k << " max speed " << st.max_speed);
      REQUIRE_FALSE(st.contained);
    }
    const Momentum after = momentum(w);
    // The fluid moved a lot (pressure pushed it apart) ...
    CHECK(after.scale > 0.2 * before.scale);
    // ... but the sum of m v did not: float round-off over 200 steps only.
    CHECK(std::fabs(after.x - before.x) < 1e-5 * before.scale);
    CHECK(std::fabs(after.y - before.y) < 1e-5 * before.scale);
  }
}

TEST_CASE("viscosity only removes kinetic energy", "[physics][energy]") {
  Params p = free_fluid(Solver::Muller2003);
  p.stiffness = 0.0f;  // no pressure: the only internal force is viscosity
  p.viscosity = 5.0f;
  World w(p);
  w.set_box(Box{{-100.0f, -100.0f}, {100.0f, 100.0f}});
  random_block(w, 20, 0.02f, 0.0f, 0.0f, 1.0f, 3);
  double ke = w.step(p.dt).kinetic_energy;
  const double ke0 = ke;
  for (int k = 0; k < 200; ++k) {
    const double next = w.step(p.dt).kinetic_energy;
    CHECK(next <= ke * (1.0 + 1e-6));
    ke = next;
  }
  CHECK(ke < 0.9 * ke0);
}
