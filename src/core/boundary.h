// Walls and obstacles: the boundary density map both solvers read (Akinci
// et al. 2012's boundary particles as a 1D table, boundary.cpp), and the
// collisions that keep particles inside the box and outside the obstacles.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include <glm/vec2.hpp>

#include "tidepool/geometry.h"
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
  // whether an obstacle lies within h of (x, y). *moving (if given) gets
  // sum_o v_o.grad rho_b,o over the moving obstacles (the bodies): the
  // rate at which they raise the density at (x, y), as moving boundary
  // particles do (Akinci et al. 2012).
  bool density(float x, float y, const Params& params, const Box& box,
               const std::vector<Obstacle>& obstacles, float* rho, float* gx, float* gy,
               float* lap, float* moving = nullptr) const;
  // Obstacle o's share of grad rho_b at `at` (zero beyond h): a fluid
  // particle's boundary pressure force -m (p / rho^2) grad rho_b has the
  // reaction m (p / rho^2) grad rho_b on o (coupling.cpp).
  glm::vec2 gradient(const Obstacle& o, glm::vec2 at, const Params& params) const;

 private:
  struct Sample {
    float phi, slope, visc;  // Phi(d), dPhi/dd, Psi(d)
  };
  Sample sample(float d, float h) const;
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

// The obstacle's bounding box.
void obstacle_bounds(const Obstacle& o, glm::vec2* lo, glm::vec2* hi);

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
// Where the particle's own path (`own_path`: *pos is where its motion took
// it, no obstacle has moved it yet) crosses a capsule's core, it belongs on
// the side it came from.
bool push_out(const Obstacle& o, glm::vec2 prev, float radius, float e, bool own_path, glm::vec2* pos,
              glm::vec2* normal);

// Moves *pos, which a push out of obstacle o left outside the box b, back
// onto the wall it crossed and along that wall out of o to `radius` off
// o's surface, trying first the way o's normal points. The distance to a
// convex obstacle is convex along a wall, so the part of the wall inside o
// is one interval, which a bisection bounds. Where o covers the wall to
// both ends, the clamped position stands.
void slide_along_wall(const Obstacle& o, const Box& b, float radius, glm::vec2* pos);

// How many times leave_obstacles() goes over the obstacles at most.
constexpr int kObstaclePasses = 8;

// Moves *pos, reached from prev in this step, out of every obstacle and
// keeps it in the contact box b, calling hit(obstacle, normal) at each contact;
// returns whether any obstacle touched it. The obstacles are projected on
// in turn, and again while a pass still moves the particle (Gauss-Seidel,
// as position-based dynamics does, Müller et al. 2007), so a particle in
// the crevice where two overlap ends on the surface of both instead of
// pushed from one into the other. Restitution acts on the first pass only.
// A push out of the box slides along the wall instead, so an obstacle over
// a wall or a corner cannot hold a particle against the container. Only the
// particle's own motion counts as crossing a capsule: a push out of another
// obstacle that crosses one is a push, or a particle inside a disc under a
// capsule would be sent back into the disc at every pass.
template <class Hit>
bool leave_obstacles(const std::vector<Obstacle>& obstacles, const Box& b, glm::vec2 prev, float radius, float e,
                     glm::vec2* pos, Hit&& hit) {
  bool touched = false;
  const float still = 1e-4f * radius;
  const glm::vec2 reached = *pos;
  for (int pass = 0; pass < kObstaclePasses; ++pass) {
    bool moved = false;
    for (const Obstacle& o : obstacles) {
      const glm::vec2 before = *pos;
      glm::vec2 normal;
      if (!push_out(o, prev, radius, pass == 0 ? e : 0.0f, *pos == reached, pos, &normal)) continue;
      hit(o, normal);
      touched = true;
      if (pos->x < b.min.x || pos->x > b.max.x || pos->y < b.min.y || pos->y > b.max.y)
        slide_along_wall(o, b, radius, pos);
      const glm::vec2 step = *pos - before;
      moved = moved || std::fabs(step.x) + std::fabs(step.y) > still;
    }
    if (!moved) break;
  }
  return touched;
}

// Moves every particle inside the container, then out of the obstacles
// (leave_obstacles), reflecting its velocity (Müller 2003 sec. 3.6;
// boundary.cpp); off a body, its velocity relative to the body's there.
// A body's contact leaves the particle's velocity to body_contacts()
// (coupling.cpp): s.body_hit gets the body each particle last touched (-1
// for none) and s.hit_nx/ny the body's outward normal there.
void collide(WorldState& s);

// Moves apart the particles of an SPH solver closer than min_separation
// rest spacings, and stops them closing (separation.cpp): the bound on
// density, and on neighbours. Returns its work. With cap > 0 (the work
// bound's backstop, World's substep) it runs whatever the density, and a
// particle scans at most cap + 1 candidates: one with more (a cell as
// crowded as a pile) only those within cap / 2 of it in sorted order in its
// own cell, and every other skips those, so that each pair is kept or
// dropped at both ends and momentum is kept; *capped gets how many
// particles the cap cut.
double keep_apart(WorldState& s, int cap = 0, int* capped = nullptr);

// Obstacles by shape, with ids from *next_id; -1 when the shape is invalid
// (not finite, radius <= 0).
int add_obstacle(std::vector<Obstacle>& obstacles, Obstacle o, int* next_id);

}  // namespace tidepool
