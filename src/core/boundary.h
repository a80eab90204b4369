// Walls and obstacles: the boundary density map both solvers read (Akinci
// et al. 2012's boundary particles as a 1D table, boundary.cpp), and the
// collisions that keep particles inside the box and outside the obstacles.
#pragma once

#include <algorithm>
#include <vector>

#include <glm/vec2.hpp>

#include "tidepool/params.h"
#include "tidepool/types.h"

namespace tidepool {

struct WorldState;

// Which kernel the density sums use, so that the walls' density matches it.
enum class DensityKernel { Poly6, Cubic };

class Walls {
 public:
  // Tabulates Phi(d), dPhi/dd and Psi(d) for this h, spacing and kernel.
  void build(const Params& params, DensityKernel kernel);
  // The boundary density rho_b at (x, y), its gradient and the viscosity
  // Laplacian sum of the box's walls and the obstacles within h; returns
  // whether an obstacle lies within h of (x, y).
  bool density(float x, float y, const Params& params, const Box& box,
               const std::vector<Obstacle>& obstacles, float* rho, float* gx, float* gy,
               float* lap) const;

 private:
  static constexpr int kCornerSamples = 33;
  template <class Kernel, class Lap>
  void build_corner(double h, double s, const Kernel& kernel, const Lap& lap);
  void subtract_corner(float a, float b, glm::vec2 na, glm::vec2 nb, float h, float* r, float* ax, float* ay,
                       float* visc) const;

  std::vector<float> phi_, line_, visc_;  // Phi(d), dPhi/dd, Psi(d)
  // The box's corners: Q(a, b), dQ/da, dQ/db and the viscosity share, on a
  // kCornerSamples^2 grid over [0, h]^2 (boundary.cpp).
  std::vector<float> corner_, corner_da_, corner_db_, corner_visc_;
};

// Signed distance from p to the obstacle's surface (negative inside) and the
// outward unit normal at the closest point.
float obstacle_distance(const Obstacle& o, glm::vec2 p, glm::vec2* normal);

// How far collide() keeps particle centres off every wall and obstacle:
// half a spacing (boundary.cpp says why).
float contact_radius(float spacing);
// The box the container keeps particle centres in: `radius` inside its
// walls (its centre, along an axis the box is too narrow for).
Box contact_box(const Box& box, float radius);

// Where collide() puts one coordinate c of a particle: inside [lo, hi]
// it stays; past a side it comes back by e (the restitution) times its
// overshoot, at most hi - lo.
inline float keep_inside(float c, float lo, float hi, float e) {
  return c < lo ? lo + std::min(e * (lo - c), hi - lo) : (c > hi ? hi - std::min(e * (c - hi), hi - lo) : c);
}

// collide()'s rule for one obstacle: *pos, reached from prev in this
// step, leaves obstacle o to `radius` off its surface plus e times its
// penetration; returns whether it was in contact, with the outward normal.
bool push_out(const Obstacle& o, glm::vec2 prev, float radius, float e, glm::vec2* pos, glm::vec2* normal);

// Moves every particle out of the obstacles, then inside the container,
// reflecting its velocity (Müller 2003 sec. 3.6; boundary.cpp).
void collide(WorldState& s);

// Obstacles by shape, with ids from *next_id; -1 when the shape is invalid
// (not finite, radius <= 0).
int add_obstacle(std::vector<Obstacle>& obstacles, Obstacle o, int* next_id);

}  // namespace tidepool
