// The boundary density map (boundary.cpp) against the fluid it stands for:
// a particle of a resting lattice beside a wall, or in a corner of the box,
// sees the density a particle in the bulk does.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "boundary.h"
#include "tidepool/kernels.h"

using namespace tidepool;

TEST_CASE("walls and corners stand in for the fluid behind them", "[walls]") {
  Params P;
  const float s = std::sqrt(P.mass / P.rest_density);
  P.h = 2.8f * s;
  for (DensityKernel kernel : {DensityKernel::Poly6, DensityKernel::Cubic}) {
    Walls walls;
    walls.build(P, kernel);
    const MullerKernels M(P.h);
    const CubicKernel C(P.h);
    auto W = [&](float r) { return kernel == DensityKernel::Cubic ? C.value(r) : M.poly6(r * r); };
    // The lattice at (i + 1/2) s: all of it, or only x, y > 0 (the box's
    // bottom-left corner at the origin).
    auto lattice = [&](float px, float py, bool inside_only) {
      double sum = 0.0;
      for (int j = -8; j < 24; ++j)
        for (int i = -8; i < 24; ++i) {
          const float x = (static_cast<float>(i) + 0.5f) * s, y = (static_cast<float>(j) + 0.5f) * s;
          if (inside_only && (x < 0.0f || y < 0.0f)) continue;
          const float r = std::hypot(x - px, y - py);
          if (r < P.h) sum += P.mass * W(r);
        }
      return sum;
    };
    const Box box{{0.0f, 0.0f}, {100.0f, 100.0f}};
    const double bulk = lattice(0.5f * s, 0.5f * s, false);
    auto seen = [&](float x, float y) {
      float rho, gx, gy, lap;
      walls.density(x, y, P, box, {}, &rho, &gx, &gy, &lap);
      return (lattice(x, y, true) + rho) / bulk;
    };
    INFO((kernel == DensityKernel::Cubic ? "cubic" : "poly6"));
    CHECK(seen(0.5f * s, 8.5f * s) == Approx(1.0).margin(0.005));  // beside the left wall
    CHECK(seen(8.5f * s, 0.5f * s) == Approx(1.0).margin(0.005));  // on the floor
    // The corner particle, and its neighbours along the diagonal: the
    // quadrant behind both walls counts once (counted twice, the corner
    // particle read about 2 % dense).
    CHECK(seen(0.5f * s, 0.5f * s) == Approx(1.0).margin(0.005));
    CHECK(seen(1.5f * s, 1.5f * s) == Approx(1.0).margin(0.005));
    CHECK(seen(0.5f * s, 1.5f * s) == Approx(1.0).margin(0.005));
  }
}

// The soak's disc at the wall (../repro/disc-at-wall.txt): a disc centred
// on the contact box's left edge, a thin capsule lying across its upper
// half, and a particle inside the disc below the capsule. The push out of
// the disc, straight up, crosses the capsule's core; taking that push for
// the particle's own crossing sent it back below the capsule, along the
// wall and into the disc again, pass after pass: it stayed 8 spacings deep
// at 2.6 rho0 for good. Only its own motion crosses a capsule, so it now
// leaves both.
TEST_CASE("a particle inside a disc at the wall, under a capsule, leaves both", "[walls][obstacles]") {
  using tidepool::Obstacle;
  const float radius = 0.0146f;  // half a spacing
  const tidepool::Box b{{radius, radius}, {3.0f - radius, 2.0f - radius}};
  Obstacle disc;
  disc.a = {radius, 0.636f};
  disc.radius = 0.362f;
  Obstacle bar;
  bar.kind = Obstacle::Kind::Capsule;
  bar.a = {-0.3f, 0.85f};
  bar.b = {0.3f, 0.85f};
  bar.radius = 0.02f;
  const std::vector<Obstacle> obstacles = {disc, bar};
  const glm::vec2 prev{radius, 0.765f};
  glm::vec2 pos{0.0199f, 0.784f};  // its own step, still inside the disc and below the bar
  const bool hit = tidepool::leave_obstacles(obstacles, b, prev, radius, 0.0f, &pos, [](const tidepool::Obstacle&, glm::vec2) {});
  glm::vec2 n;
  INFO("ended at (" << pos.x << ", " << pos.y << ")");
  CHECK(hit);
  CHECK(tidepool::obstacle_distance(disc, pos, &n) >= 0.999f * radius);
  CHECK(tidepool::obstacle_distance(bar, pos, &n) >= 0.999f * radius);
  CHECK(pos.x >= b.min.x);
  CHECK(pos.x <= b.max.x);
  CHECK(pos.y >= b.min.y);
  CHECK(pos.y <= b.max.y);
}
