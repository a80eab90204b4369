// World::resample: the running water at another particle count, in place;
// and World::relay, the same water at its own spacing on a fresh lattice.
//
// A particle stands for a square of side s (mass = rho0 s^2, 2D), so the
// water's area is N s^2. At n particles the spacing that keeps that area is
// s' = s sqrt(N / n), rounded to whole lattice cells across the box. The water's region is taken as the union of discs of
// radius s / sqrt(pi) around the particles (each disc a particle's area)
// and where their volume fraction is at least half (the gaps between the
// discs, in the bulk), and the new
// particles are the points of a square lattice of spacing s' inside it,
// each at rest density as a scene's lattice is (scenes.cpp). Each takes the
// water's velocity there: a Shepard average of the old particles within
// the old support h, weighted by (1 - r^2/h^2)^3, which reproduces a
// uniform flow exactly. h and mass follow the spacing as the scenes derive
// them (h in spacings, mass = rho0 s'^2), and the colour field's threshold,
// a curvature in 1/m, follows 1/h. relay keeps the spacing, the count
// (to the lattice's rounding) and the parameters.
#include <algorithm>
#include <cmath>
#include <vector>

#include "boundary.h"
#include "coupling.h"
#include "state.h"
#include "tidepool/world.h"

namespace tidepool {

namespace {

// The old particles binned by cells of side `cell` over `box`, for the
// searches within a cell's reach.
struct Bins {
  Box box;
  float cell = 1.0f;
  int nx = 1, ny = 1;
  std::vector<int> start, index;

  Bins(const Particles& p, const Box& b, float c) : box(b), cell(c) {
    nx = std::max(1, static_cast<int>(std::ceil((b.max.x - b.min.x) / c)));
    ny = std::max(1, static_cast<int>(std::ceil((b.max.y - b.min.y) / c)));
    start.assign(static_cast<size_t>(nx * ny + 1), 0);
    const int n = p.size();
    std::vector<int> of(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      of[i] = cell_of(p.x[i], p.y[i]);
      ++start[of[i] + 1];
    }
    for (int c2 = 0; c2 < nx * ny; ++c2) start[c2 + 1] += start[c2];
    index.resize(static_cast<size_t>(n));
    std::vector<int> fill(start.begin(), start.end() - 1);
    for (int i = 0; i < n; ++i) index[fill[of[i]]++] = i;
  }
  int clamp_x(float x) const { return std::clamp(static_cast<int>((x - box.min.x) / cell), 0, nx - 1); }
  int clamp_y(float y) const { return std::clamp(static_cast<int>((y - box.min.y) / cell), 0, ny - 1); }
  int cell_of(float x, float y) const { return clamp_y(y) * nx + clamp_x(x); }
  // Calls f(i) for every old particle in the cells that (x, y) +- r touches.
  template <class F>
  void near(float x, float y, float r, F f) const {
    for (int j = clamp_y(y - r); j <= clamp_y(y + r); ++j)
      for (int i = clamp_x(x - r); i <= clamp_x(x + r); ++i) {
        const int c = j * nx + i;
        for (int k = start[c]; k < start[c + 1]; ++k) f(index[k]);
      }
  }
};

// The lattice step nearest `want` that fits whole cells across a box of
// `size`, so that the lattice meets every wall as a scene's does.
glm::vec2 fitted_step(glm::vec2 size, float want) {
  return size / glm::vec2(std::max(1L, std::lround(size.x / want)), std::max(1L, std::lround(size.y / want)));
}

}  // namespace

bool World::resample(int particles) {
  WorldState& s = *s_;
  if (s.solver->field() || s.particles.size() == 0 || particles < 1 || particles > kMaxParticles) return false;
  // The lattice: as near the spacing that keeps the area as whole cells
  // across the box allow.
  const float spacing = s.spacing();
  const float want = spacing * std::sqrt(static_cast<float>(s.particles.size()) / static_cast<float>(particles));
  const glm::vec2 step = fitted_step(s.box.max - s.box.min, want);
  const float k = std::sqrt(step.x * step.y) / spacing;
  Params p = s.params;
  p.h *= k;
  p.mass *= k * k;
  p.surface_threshold /= k;
  if (!validate(p).empty() || !fit_problems(p, s.box, particles).empty()) return false;
  return relay(step, p);
}

// The same water on a lattice of its own spacing (a method change, from
// particles that do not keep one; World::set_params), in whole cells
// across the box as resample's, with the parameters as they are: the
// lattice's cells differ from the spacing's square by well under a percent
// (half a cell over the box), which the solver takes up as a density error
// of as much.
bool World::relay() {
  WorldState& s = *s_;
  if (s.solver->field() || s.particles.size() == 0) return false;
  return relay(fitted_step(s.box.max - s.box.min, s.spacing()), s.params);
}

bool World::relay(glm::vec2 step, const Params& p) {
  gather_solids(*s_);  // the bodies where they are now
  WorldState& s = *s_;
  const Particles& old = s.particles;
  const int n_old = old.size();
  const float spacing = s.spacing();
  const glm::vec2 size = s.box.max - s.box.min;
  const int nx = std::max(1, static_cast<int>(size.x / step.x + 1e-3f));
  const int ny = std::max(1, static_cast<int>(size.y / step.y + 1e-3f));
  const float k = std::sqrt(step.x * step.y) / spacing;

  const float reach = spacing / std::sqrt(3.14159265f);  // the region: discs of area s^2
  const float support = s.params.h;                      // the velocity's average
  const Bins bins(old, s.box, std::max(reach, support));
  glm::vec2 lo = s.box.max, hi = s.box.min;  // the water's bounds
  for (int i = 0; i < n_old; ++i) {
    lo = glm::min(lo, glm::vec2(old.x[i], old.y[i]));
    hi = glm::max(hi, glm::vec2(old.x[i], old.y[i]));
  }
  const auto cell = [&](float c, float origin, float d, int n) {
    return std::clamp(static_cast<int>((c - origin) / d), 0, n - 1);
  };
  // Points stay the distance collide() keeps off the walls and obstacles
  // (boundary.h); a point inside an obstacle is not water.
  const float radius = contact_radius(k * spacing);
  const Box inner = contact_box(s.box, radius);
  std::vector<glm::vec2> pos, vel;
  const float reach2 = reach * reach, support2 = support * support;
  const double volume = 4.0 / (3.14159265358979 * support2) * spacing * spacing;
  for (int j = cell(lo.y - reach, s.box.min.y, step.y, ny); j <= cell(hi.y + reach, s.box.min.y, step.y, ny); ++j)
    for (int i = cell(lo.x - reach, s.box.min.x, step.x, nx); i <= cell(hi.x + reach, s.box.min.x, step.x, nx); ++i) {
      glm::vec2 q = s.box.min + (glm::vec2(i, j) + 0.5f) * step;
      bool inside = false;
      double w_sum = 0.0, u = 0.0, v = 0.0;
      bins.near(q.x, q.y, bins.cell, [&](int o) {
        const float dx = old.x[o] - q.x, dy = old.y[o] - q.y, r2 = dx * dx + dy * dy;
        inside |= r2 <= reach2;
        if (r2 >= support2) return;
        const double t = 1.0 - r2 / support2, w = t * t * t;
        w_sum += w;
        u += w * old.vx[o];
        v += w * old.vy[o];
      });
      // Holes in the discs' union, which disordered water has, are filled
      // where the old particles' volume fraction sum_j s^2 W(r_j, h) (the
      // 2D poly6 kernel, 4 / (pi h^2) (1 - r^2/h^2)^3) is at least half,
      // the free surface's value.
      if (!inside && volume * w_sum < 0.5) continue;
      bool solid = false;
      for (const Obstacle& o : s.solids) {
        glm::vec2 normal;
        const float d = obstacle_distance(o, q, &normal);
        solid |= d < 0.0f;
        if (d < radius) q += (radius - d) * normal;
      }
      if (solid) continue;
      pos.push_back(glm::clamp(q, inner.min, inner.max));
      vel.push_back(glm::vec2(static_cast<float>(u / w_sum), static_cast<float>(v / w_sum)));
    }
  if (pos.empty() || static_cast<int>(pos.size()) > kMaxParticles) return false;

  // Only now is anything changed: the parameters, then the particles, their
  // solver state starting as a new particle's (add_particle). Time, the
  // next id, obstacles, emitters and sinks go on.
  set_params(p);
  s.particles.resize(0);
  for (Array<float>* field : s.solver->carried()) field->resize(0);
  s.particles.reserve(static_cast<int>(pos.size()));
  for (size_t i = 0; i < pos.size(); ++i) s.add_particle(pos[i], vel[i]);
  s.max_accel = 0.0f;
  return true;
}

}  // namespace tidepool
