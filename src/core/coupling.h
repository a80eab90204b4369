// The water and the rigid bodies, coupled both ways (coupling.cpp).
#pragma once

#include <glm/vec2.hpp>

namespace tidepool {

struct WorldState;

// The step's solids: the static obstacles, then each body where it is now,
// as a moving one (body_obstacle).
void gather_solids(WorldState& s);
// Starts a substep's force sums on the bodies at zero.
void start_sums(WorldState& s);
// Adds force f, acting along its line through `at`, to body k's sums.
void push_body(WorldState& s, int k, glm::vec2 at, glm::dvec2 f);
// Tells the coupling how much of body k is in the water: the share of its
// outline the water touches, in [0, 1].
void set_wet(WorldState& s, int k, float share);
// After a particle solver's step: the reaction of the boundary pressure
// each particle near a body felt, summed onto the body (Akinci et al.
// 2012: the boundary's force on the fluid, reversed). Returns its work.
double body_pressure(WorldState& s);
// After collide(): the reaction of the velocity the bodies gave the
// particles they pushed out, as impulses on the bodies.
void body_contacts(WorldState& s);
// Box2D's step of the bodies under gravity and the water's forces.
void step_bodies(WorldState& s, float dt);

}  // namespace tidepool
