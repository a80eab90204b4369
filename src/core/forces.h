// The forces pass: every acceleration but the pressure solve's, in one pass
// over the pairs and one over the particles (forces.cpp, with the terms of
// pair_terms.h): viscosity, surface tension (colour field or cohesion),
// XSPH, gravity, pointer forces and the walls' friction; for Müller 2003
// also the pressure force and the walls' pressure.
#pragma once

namespace tidepool {

struct WorldState;

struct ForceOptions {
  // Müller 2003's pressure force from the particles' pressure and
  // p_i / rho_i (its density pass), and the walls' mirrored pressure; off
  // for DFSPH, whose solves add pressure afterwards.
  bool pressure = false;
  const float* pressure_over_rho = nullptr;
  // The walls' density gradient and viscosity sum per particle, if the
  // density pass kept them; null: found again (Walls::density) for the
  // particles near a wall.
  const float* wall_gx = nullptr;
  const float* wall_gy = nullptr;
  const float* wall_lap = nullptr;
};

// Sets particles.ax, ay for the step of dt seconds.
void compute_forces(WorldState& s, float dt, const ForceOptions& options);

// Whether the surface tension acts through the colour field (Müller 2003
// eq. 15-19) or through cohesion (Akinci et al. 2013).
bool colour_field_on(const WorldState& s);
bool cohesion_on(const WorldState& s);

}  // namespace tidepool
