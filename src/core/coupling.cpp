// The water and the rigid bodies, both ways.
//
// The bodies push the water: each is a moving obstacle of the step
// (gather_solids), in the boundary density map with its own velocity
// (Walls::density: its boundary particles, Akinci et al. 2012, moving with
// it, so it raises the density ahead of it and the pressure solve answers
// at once), on the faces of FLIP's grid (cut_faces.h), and in collide(),
// which pushes particles out of it.
//
// The water pushes the bodies. Under the SPH solvers, with exactly the
// forces the bodies put on it, reversed, so the two together keep their
// momentum: the boundary pressure force on particle i,
// -m (p_i / rho_i^2) grad rho_b,i, taken where the step computed it
// (x_prev: the solvers read the walls before they integrate), each along
// its line through the particle, which gives the torque about the
// centroid; an added-mass share (body_share) keeps the partitioned step
// stable. FLIP solves each body's velocity with its pressure (flip.cpp)
// and hands over the change (solved_bodies). Box2D then steps the bodies
// with these forces and gravity (bodies.cpp), before collide(), so that no
// particle ends a step inside a body where the body has moved to; each of
// collide()'s contacts then trades an impulse between the particle and
// the body through their reduced mass (body_contacts).
//
// The sums run over the particles in index order, in double precision, so
// the thread count changes none of them.
#include "coupling.h"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "boundary.h"
#include "solver.h"
#include "state.h"
#include "tidepool/kernels.h"  // kPi

namespace tidepool {

void gather_solids(WorldState& s) {
  s.solids.assign(s.obstacles.begin(), s.obstacles.end());
  const std::vector<Body>& bodies = s.bodies.bodies();
  for (size_t k = 0; k < bodies.size(); ++k) s.solids.push_back(body_obstacle(bodies[k], static_cast<int>(k)));
}

void start_sums(WorldState& s) {
  const size_t n = s.bodies.bodies().size();
  s.body_force.assign(n, glm::dvec2(0.0));
  s.body_torque.assign(n, 0.0);
  s.body_wet.assign(n, 0.0f);
  s.body_solved.clear();
}

void solved_bodies(WorldState& s, const std::vector<glm::vec3>& change) {
  s.body_solved = change;
  s.body_solved.resize(s.bodies.bodies().size(), glm::vec3(0.0f));
}

namespace {

// Tells the coupling how much of body k is in the water: the share of its
// outline the water touches, in [0, 1].
void set_wet(WorldState& s, int k, float share) {
  s.body_wet[static_cast<size_t>(k)] = std::clamp(share, 0.0f, 1.0f);
}

// Adds force f, acting along its line through `at`, to body k's sums.
void push_body(WorldState& s, int k, glm::vec2 at, glm::dvec2 f) {
  const glm::vec2 c = s.bodies.bodies()[static_cast<size_t>(k)].position;
  s.body_force[static_cast<size_t>(k)] += f;
  s.body_torque[static_cast<size_t>(k)] += static_cast<double>(at.x - c.x) * f.y - static_cast<double>(at.y - c.y) * f.x;
}

}  // namespace

double body_pressure(WorldState& s) {
  if (s.bodies.empty()) return 0.0;
  const Particles& p = s.particles;
  const Params& P = s.params;
  const int n = p.size();
  const size_t first = s.obstacles.size();  // the bodies follow the static obstacles in solids
  // Each body's reach: its bounding circle (a disc's radius, a polygon's
  // reach) grown by h.
  std::vector<float> reach2;
  for (size_t k = first; k < s.solids.size(); ++k) {
    const Obstacle& o = s.solids[k];
    const float r = std::max(o.radius, o.reach) + P.h;
    reach2.push_back(r * r);
  }
  std::vector<int> touching(reach2.size(), 0);
  for (int i = 0; i < n; ++i) {
    if (!s.near_wall[i]) continue;
    const glm::vec2 at(p.x_prev[i], p.y_prev[i]);
    const float rho = p.density[i];
    if (!(rho > 0.0f)) continue;
    const double scale = static_cast<double>(P.mass) * p.pressure[i] / (static_cast<double>(rho) * rho);
    for (size_t k = first; k < s.solids.size(); ++k) {
      const Obstacle& o = s.solids[k];
      const glm::vec2 d = at - o.a;
      if (d.x * d.x + d.y * d.y > reach2[k - first]) continue;
      const glm::vec2 g = s.walls.gradient(o, at, P);
      if (g.x == 0.0f && g.y == 0.0f) continue;
      ++touching[k - first];
      push_body(s, o.body, at, scale * glm::dvec2(g));
    }
  }
  // Wet: the particles within h of the body, over the number a lattice
  // around its whole outline puts there (rows from s/2 to h out).
  const float spacing = s.spacing();
  for (size_t k = first; k < s.solids.size(); ++k) {
    const Obstacle& o = s.solids[k];
    float perimeter = 2.0f * kPi * o.radius;
    for (int c = 0; c < o.count; ++c) perimeter += glm::length(o.points[(c + 1) % o.count] - o.points[c]);
    const float full = perimeter * (P.h - 0.5f * spacing) / (spacing * spacing);
    set_wet(s, o.body, float(touching[k - first]) / full);
  }
  return n;
}

namespace {

// The added mass: a body moved through water moves water with it, as if it
// were heavier by m_a = rho0 A for a disc (Lamb 1932, sec. 68) when whole
// under water. The water's answer to a body's motion comes within the same
// step, and a body lighter than the water it moves would overshoot that
// answer at each step and grow without bound (the added-mass instability
// of a coupling that steps body and water apart: Causin, Gerbeau & Nobile
// 2005). So the body and the water beside it (within h of its outline)
// take each impulse J the coupling gives the body as one mass m + m_a
// would: the body m / (m + m_a) of it, and the particles beside it the
// rest, in equal shares, so that the momentum traded is still kept. m_a is
// the body's wet share (set_wet) of rho0 A. Returns the body's share.
float body_share(const WorldState& s, size_t k) {
  const Body& b = s.bodies.bodies()[k];
  const float added = s.params.rest_density * b.def.shape.area() * s.body_wet[k];
  return b.mass / (b.mass + added);
}

// Gives the impulse `rest` to the particles within h of body k's outline,
// in equal shares.
void give_water(WorldState& s, size_t k, glm::vec2 rest) {
  if (rest == glm::vec2(0.0f)) return;
  Particles& p = s.particles;
  const float reach = s.params.h;
  const Obstacle o = body_obstacle(s.bodies.bodies()[k], static_cast<int>(k));
  glm::vec2 lo, hi;
  obstacle_bounds(o, &lo, &hi);
  lo -= reach;
  hi += reach;
  std::vector<int>& beside = s.beside;
  beside.clear();
  for (int i = 0; i < p.size(); ++i) {
    if (p.x[i] < lo.x || p.x[i] > hi.x || p.y[i] < lo.y || p.y[i] > hi.y) continue;
    glm::vec2 n;
    if (obstacle_distance(o, {p.x[i], p.y[i]}, &n) < reach) beside.push_back(i);
  }
  if (beside.empty()) return;
  const glm::vec2 dv = rest / (s.params.mass * float(beside.size()));
  const Carried carried = s.solver->carried();  // the leapfrog's half-step velocities take dv too
  for (const int i : beside) {
    p.vx[i] += dv.x;
    p.vy[i] += dv.y;
    if (carried.half_vx) {
      (*carried.half_vx)[i] += dv.x;
      (*carried.half_vy)[i] += dv.y;
    }
  }
}

}  // namespace

// Each contact is an impulse between the particle (mass m) and the body
// (M, I) along the normal n at the contact, r from the body's centroid:
// it takes away (1 + e) of their approach v_n, and friction of their
// sliding speed, through the pair's reduced mass, 1 / (1/m + 1/M +
// (r x n)^2 / I) (as LiquidFun's particle-body contacts do, and as two
// rigid bodies' would: Mirtich 1996, "Impulse-based dynamic simulation of
// rigid body systems"). Neither bounces off an infinite mass,
// and the two keep their momentum. The contacts are taken one after
// another in the particles' order, each seeing the body's velocity the
// ones before it left (Gauss-Seidel): serially, so the result does not
// depend on the threads.
void body_contacts(WorldState& s) {
  if (s.bodies.empty() || s.body_hit.empty()) return;
  Particles& p = s.particles;
  const std::vector<Body>& bodies = s.bodies.bodies();
  const Params& P = s.params;
  const float m = P.mass, e = P.restitution, slide = P.friction;
  const Carried carried = s.solver->carried();  // the leapfrog's half-step velocities take dv too
  std::vector<glm::vec2> velocity(bodies.size());
  std::vector<float> omega(bodies.size()), inverse_mass(bodies.size()), inverse_inertia(bodies.size());
  for (size_t k = 0; k < bodies.size(); ++k) {
    const Body& b = bodies[k];
    velocity[k] = b.velocity;
    omega[k] = b.omega;
    inverse_mass[k] = b.inverse_mass();
    inverse_inertia[k] = b.inverse_inertia();
  }
  // Along unit direction d at lever r, the pair's inverse reduced mass.
  auto inverse_reduced = [&](size_t k, glm::vec2 r, glm::vec2 d) {
    const float arm = r.x * d.y - r.y * d.x;
    return 1.0f / m + inverse_mass[k] + arm * arm * inverse_inertia[k];
  };
  std::vector<glm::vec2> impulse(bodies.size(), glm::vec2(0.0f));
  std::vector<float> angular(bodies.size(), 0.0f);
  for (int i = 0; i < p.size(); ++i) {
    const int hit = s.body_hit[i];
    if (hit < 0) continue;
    const size_t k = static_cast<size_t>(hit);
    const glm::vec2 n(s.hit_nx[i], s.hit_ny[i]), at(p.x[i], p.y[i]);
    const glm::vec2 r = at - bodies[k].position;
    const glm::vec2 vb = velocity[k] + omega[k] * glm::vec2(-r.y, r.x);
    const glm::vec2 rel = glm::vec2(p.vx[i], p.vy[i]) - vb;
    const float vn = glm::dot(rel, n);
    // A particle the step left not finite (the safety net repairs it), or
    // one already leaving the body, trades nothing.
    if (!(vn < 0.0f) || !std::isfinite(rel.x) || !std::isfinite(rel.y)) continue;
    glm::vec2 j = (-(1.0f + e) * vn / inverse_reduced(k, r, n)) * n;
    const glm::vec2 tangent = rel - vn * n;
    const float sliding = glm::length(tangent);
    if (slide > 0.0f && sliding > 0.0f) {
      const glm::vec2 t = tangent / sliding;
      j -= (slide * sliding / inverse_reduced(k, r, t)) * t;
    }
    const glm::vec2 dv = j / m;
    p.vx[i] += dv.x;
    p.vy[i] += dv.y;
    if (carried.half_vx) {
      (*carried.half_vx)[i] += dv.x;
      (*carried.half_vy)[i] += dv.y;
    }
    const float turn = r.x * j.y - r.y * j.x;
    velocity[k] -= inverse_mass[k] * j;
    omega[k] -= inverse_inertia[k] * turn;
    impulse[k] -= j;
    angular[k] -= turn;
  }
  for (size_t k = 0; k < bodies.size(); ++k)
    if (impulse[k] != glm::vec2(0.0f) || angular[k] != 0.0f)
      s.bodies.apply_impulse(static_cast<int>(k), impulse[k], angular[k]);
}

void step_bodies(WorldState& s, float dt) {
  if (s.bodies.empty()) return;
  s.bodies.set_scenery(s.box, s.obstacles, s.spacing());
  const std::vector<Body>& bodies = s.bodies.bodies();
  const glm::vec2 g(s.params.gravity_x, s.params.gravity_y);
  if (!s.body_solved.empty()) {
    // The projection's answer: the body's momentum changes by M dv, as
    // Box2D's step applies a force M dv / dt beside gravity.
    for (size_t k = 0; k < bodies.size(); ++k) {
      const Body& b = bodies[k];
      const glm::vec3 dv = s.body_solved[k];
      const bool finite = std::isfinite(dv.x) && std::isfinite(dv.y) && std::isfinite(dv.z);
      s.bodies.set_fluid_force(static_cast<int>(k), finite ? b.mass / dt * glm::vec2(dv.x, dv.y) : glm::vec2(0.0f),
                               finite ? b.inertia / dt * dv.z : 0.0f);
    }
    s.bodies.step(dt, g, s.params.max_speed);
    return;
  }
  for (size_t k = 0; k < bodies.size(); ++k) {
    const Body& b = bodies[k];
    // A non-finite sum (a particle's pressure overflowed: the safety net
    // repairs the particle) moves no body.
    const bool finite = std::isfinite(s.body_force[k].x) && std::isfinite(s.body_force[k].y) &&
                        std::isfinite(s.body_torque[k]);
    const glm::vec2 f = finite ? glm::vec2(s.body_force[k]) : glm::vec2(0.0f);
    const float torque = finite ? static_cast<float>(s.body_torque[k]) : 0.0f;
    // The step's impulse is (F + m g) dt, gravity's part included: Box2D's
    // step, dv = dt (F' / m + g), gets F' = keep (F + m g) - m g. A body at
    // rest (F = -m g) is unchanged.
    const float keep = body_share(s, k);
    const glm::vec2 net = f + b.mass * g;
    s.bodies.set_fluid_force(static_cast<int>(k), keep * net - b.mass * g, keep * torque);
    give_water(s, k, (1.0f - keep) * dt * net);
  }
  s.bodies.step(dt, g, s.params.max_speed);
}

}  // namespace tidepool
