// Time integration of the particles, shared by the solvers.
#pragma once

#include "tidepool/array.h"

namespace tidepool {

struct WorldState;

enum class Integration {
  SymplecticEuler,  // v += a dt; x += v dt                        (seed 002)
  // Half-step velocities h: h += a dt; x += h dt, and the time-centred
  // v = average of the two halves, which viscosity reads (seed 000).
  Leapfrog,
  PositionsOnly,    // x += v dt: the solver has already set v (DFSPH)
};

// Moves the particles by dt, keeping x_prev and the largest |a| (s.max_accel,
// for the next step's force bound). half_vx, half_vy: the leapfrog's.
void integrate(WorldState& s, float dt, Integration scheme, Array<float>* half_vx = nullptr,
               Array<float>* half_vy = nullptr);

}  // namespace tidepool
