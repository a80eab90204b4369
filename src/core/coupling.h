// The water and the rigid bodies, coupled both ways (coupling.cpp).
#pragma once

#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

namespace tidepool {

struct WorldState;

// The step's solids: the static obstacles, then each body where it is now,
// as a moving one (body_obstacle).
void gather_solids(WorldState& s);
// Starts a substep's force sums on the bodies at zero.
void start_sums(WorldState& s);
// A grid solver that solved the bodies' velocities with its pressure
// (flip.cpp) gives each body's change of velocity (x, y, spin) from the
// water, indexed as the bodies: step_bodies then takes it as the water's
// whole answer, with no added mass.
void solved_bodies(WorldState& s, const std::vector<glm::vec3>& change);
// After a particle solver's step: the reaction of the boundary pressure
// each particle near a body felt, summed onto the body (Akinci et al.
// 2012: the boundary's force on the fluid, reversed). Returns its work.
double body_pressure(WorldState& s);
// After collide(): each particle it pushed out of a body trades an impulse
// with the body through their reduced mass (coupling.cpp).
void body_contacts(WorldState& s);
// Box2D's step of the bodies under gravity and the water's forces.
void step_bodies(WorldState& s, float dt);

}  // namespace tidepool
