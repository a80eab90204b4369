// The boundary density map (boundary.cpp) against the fluid it stands for:
// a particle of a resting lattice beside a wall, or in a corner of the box,
// sees the density a particle in the bulk does.
#include <catch2/catch.hpp>

#include <cmath>

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
