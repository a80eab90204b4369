// What a density pass leaves per particle, for either solver's pass
// (muller.cpp, dfsph.cpp):
//   rho_i = sum_j m W_ij (self included) + rho_b(d_i)      (Müller 2003 eq. 3)
// with the walls' rho_b from the boundary density map (boundary.cpp), 1/rho_i,
// and the surface normal from the same sum of gradients,
//   n_i = (h / rho0) sum_j m grad W_ij,
// Akinci et al. 2013's n_i = h sum_j m_j / rho_j grad W_ij (eq. 4) with
// rho_j ~ rho0: the solvers hold rho_j within about 1 % of rho0 in the
// bulk, where n is noise anyway; at the surface 1/rho0 makes n a little
// shorter than 1/rho_j would. It feeds the cohesion model's curvature term
// and the surface flag (|n| / h is the colour-field gradient |grad c| of
// Müller eq. 15-16), and saves a pass over the pairs.
#pragma once

#include <cstdint>

#include "state.h"

namespace tidepool {

// The pass's outputs as raw pointers and constants, which a copy in a loop
// keeps in registers (the surface flag's byte stores could alias anything
// reached through a pointer).
struct DensityOut {
  float* density;
  float* inv_rho;
  float* nx;
  float* ny;
  uint8_t* surface;
  float normal_scale;  // h m / rho0
  float flag2;         // (h surface_threshold)^2: |n|^2 above it flags the surface

  void set_density(int i, float rho) const {
    density[i] = rho;
    inv_rho[i] = 1.0f / rho;
  }
  void set_normal(int i, float sx, float sy) const {
    nx[i] = normal_scale * sx;
    ny[i] = normal_scale * sy;
  }
  void set_surface(int i) const { surface[i] = nx[i] * nx[i] + ny[i] * ny[i] > flag2; }
};

// Sizes the outputs for the particles and points at them.
inline DensityOut density_outputs(WorldState& s) {
  Particles& p = s.particles;
  const size_t n = static_cast<size_t>(p.size());
  const Params& P = s.params;
  s.inv_rho.resize(n);
  s.normal_x.resize(n);
  s.normal_y.resize(n);
  p.surface.resize(n);
  const float h = P.h, threshold = P.surface_threshold;
  return {p.density.data(), s.inv_rho.data(), s.normal_x.data(), s.normal_y.data(), p.surface.data(),
          h * P.mass / P.rest_density, h * h * threshold * threshold};
}

// The walls' terms at particle i: their density rho_b (returned), its
// gradient and viscosity sum (*w), for the particles the sort flagged near
// a wall; the others get zeros without the lookup. Narrows the flag to the
// particles a wall or an obstacle reaches (with obstacles the sort flags
// every particle), for the forces pass's wall terms.
struct WallSample {
  float gx = 0.0f, gy = 0.0f, lap = 0.0f;
  float moving = 0.0f;  // sum over the bodies of v_b.grad rho_b (Walls::density)
  bool near_obstacle = false;
};
inline float wall_terms(WorldState& s, int i, WallSample* w) {
  float rho = 0.0f;
  if (s.near_wall[i]) {
    const Particles& p = s.particles;
    w->near_obstacle = s.walls.density(p.x[i], p.y[i], s.params, s.box, s.solids, &rho, &w->gx, &w->gy, &w->lap,
                                        &w->moving);
    s.near_wall[i] = w->gx != 0.0f || w->gy != 0.0f || w->lap != 0.0f;
  }
  return rho;
}

}  // namespace tidepool
