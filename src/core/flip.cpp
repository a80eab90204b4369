// A particle-in-cell liquid: FLIP blended with PIC (Zhu & Bridson 2005,
// "Animating sand as a fluid"). The particles carry the fluid; a MAC grid
// whose cells are flip_cell particle spacings wide solves its pressure, so
// the step needs no neighbour search for it and can be as long as the CFL
// condition allows. One step:
//   density      particles to grid: each face's velocity is the particles'
//                average, weighted by the bilinear kernel; cells with a
//                particle are fluid, those inside an obstacle solid, the
//                rest air; the particles per fluid cell, for the volume
//   forces       gravity and pointer forces on the faces
//   pressure     the projection of mac_grid.cpp with the free surface: p = 0
//                between a fluid and an air cell where the liquid of the
//                two ends (each cell's share of it from the particles per
//                cell), by the ghost fluid method (Gibou et al. 2002;
//                Enright et al. 2003), which holds surface tension's
//                sigma kappa there (Young-Laplace); walls and obstacles no
//                flux.
//                Cells denser than the rest state get a divergence source
//                that spreads them (a density-based volume correction in the
//                spirit of Kugelstadt et al. 2019), so the particles neither
//                bunch up nor drift apart over time
//   integrate    grid to particles, v = r v_flip + (1 - r) v_pic with
//                v_flip = v_p + (u_new - u_old)(x_p), v_pic = u_new(x_p), and
//                the particles moved through the new grid velocity by the
//                midpoint rule (RK2)
// The container and obstacles then act on the particles as for the SPH
// solvers (boundary.cpp).
//
// Why the FLIP/PIC blend rather than APIC (Jiang et al. 2015): it carries
// no per-particle matrix (16 bytes a particle fewer, and no extra term in
// either transfer), and a small PIC share damps the noise FLIP alone keeps;
// docs/physics.md gives the figures it reaches.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "boundary.h"
#include "mac_grid.h"
#include "poisson.h"
#include "pointers.h"
#include "solver.h"
#include "state.h"

namespace tidepool {
namespace {

class FlipSolver final : public SolverBase<FlipSolver> {
 public:
  void step(WorldState& s, float dt, StageClock& clock, FrameStats& st) override;
  Carried carried() override { return {}; }
  DensityKernel density_kernel() const override { return DensityKernel::Cubic; }
  // The flow crosses at most grid_cfl cells a step: the particles' RK2
  // path through the grid stays accurate. That is the only bound: the
  // projection and the viscosity are implicit, stable at any step, and
  // no force acts on the particles directly.
  float dt_limit(const Params& P, float vmax) const override {
    return vmax > 0.0f ? P.grid_cfl * g_.dx / vmax : std::numeric_limits<float>::infinity();
  }
  bool sph_bounds() const override { return false; }
  float mean_neighbours(int) const override { return 0.0f; }
  size_t bytes() const override;

 private:
  void fit(const WorldState& s);
  void particles_to_grid(const WorldState& s);
  void add_forces(const WorldState& s, float dt);
  void viscosity(const WorldState& s, float dt);
  void surface_tension(const WorldState& s, float dt);
  void extrapolate(std::vector<float>* f, std::vector<uint8_t>* known, int w, int h);
  void grid_to_particles(WorldState& s, float dt);
  float sample(const std::vector<float>& f, int w, int h, float fx, float fy) const;
  glm::vec2 velocity(const std::vector<float>& u, const std::vector<float>& v, glm::vec2 p) const;

  MacGrid g_;
  Box box_;
  float cell_ = 0.0f;
  std::vector<float> u_old_, v_old_, wu_, wv_;
  std::vector<uint8_t> type_, known_u_, known_v_;
  std::vector<float> count_;  // particles per cell (kernel-weighted)
  std::vector<float> phi_, rhs_, source_, work_;
  std::vector<float> fill_, surface_;  // each cell's share of liquid, the ghost fluid's terms
  std::vector<float> smooth_, normal_x_, normal_y_, held_;  // surface tension's curvature and potential
  std::vector<uint8_t> free_;
  PoissonSolver poisson_;
};

// The grid: cells of flip_cell spacings over the box, at least 4 and at
// most kMaxCells a side (the largest `grid` the stable solver takes): a
// tiny particle mass makes a tiny spacing, and the grid must not grow with
// it past what memory holds; the cells then hold more particles each.
constexpr int kMaxCells = 1024;
void FlipSolver::fit(const WorldState& s) {
  const glm::vec2 extent = s.box.max - s.box.min;
  const float cell = std::max(s.params.flip_cell * s.spacing(), std::max(extent.x, extent.y) / float(kMaxCells));
  if (cell != cell_ || s.box.min != box_.min || s.box.max != box_.max) {
    cell_ = cell;
    box_ = s.box;
    const glm::vec2 size = s.box.max - s.box.min;
    const int nx = std::max(4, static_cast<int>(std::ceil(size.x / cell)));
    const int ny = std::max(4, static_cast<int>(std::ceil(size.y / cell)));
    g_.resize(nx, ny, std::max(size.x / float(nx), size.y / float(ny)), s.box.min);
    phi_.assign(static_cast<size_t>(nx) * ny, 0.0f);
  }
}

// A face coordinate clamped into [0, n - 1]; NaN becomes 0, so that an
// index made from it is always in the grid.
inline float clamp_coordinate(float f, int n) { return f > 0.0f ? std::min(f, float(n - 1)) : 0.0f; }

// Bilinear weights of particle p on the faces of one component: the face
// grid is w x h, its entry (i, j) at origin + dx (i + ox, j + oy).
template <class F>
inline void for_weights(const MacGrid& g, glm::vec2 p, int w, int h, float ox, float oy, F&& f) {
  const float fx = clamp_coordinate((p.x - g.origin.x) / g.dx - ox, w);
  const float fy = clamp_coordinate((p.y - g.origin.y) / g.dx - oy, h);
  const int i = std::min(static_cast<int>(fx), w - 2), j = std::min(static_cast<int>(fy), h - 2);
  const float tx = fx - float(i), ty = fy - float(j);
  f(j * w + i, (1.0f - tx) * (1.0f - ty));
  f(j * w + i + 1, tx * (1.0f - ty));
  f((j + 1) * w + i, (1.0f - tx) * ty);
  f((j + 1) * w + i + 1, tx * ty);
}

void FlipSolver::particles_to_grid(const WorldState& s) {
  const Particles& p = s.particles;
  const int nx = g_.nx, ny = g_.ny, n = p.size();
  std::fill(g_.u.begin(), g_.u.end(), 0.0f);
  std::fill(g_.v.begin(), g_.v.end(), 0.0f);
  wu_.assign(g_.u.size(), 0.0f);
  wv_.assign(g_.v.size(), 0.0f);
  count_.assign(static_cast<size_t>(nx) * ny, 0.0f);
  type_.assign(static_cast<size_t>(nx) * ny, kAirCell);
  for (int k = 0; k < n; ++k) {
    const glm::vec2 x(p.x[k], p.y[k]);
    for_weights(g_, x, nx + 1, ny, 0.0f, 0.5f, [&](int f, float w) {
      g_.u[f] += w * p.vx[k];
      wu_[f] += w;
    });
    for_weights(g_, x, nx, ny + 1, 0.5f, 0.0f, [&](int f, float w) {
      g_.v[f] += w * p.vy[k];
      wv_[f] += w;
    });
    for_weights(g_, x, nx, ny, 0.5f, 0.5f, [&](int c, float w) { count_[c] += w; });
    const int i = std::clamp(static_cast<int>((x.x - g_.origin.x) / g_.dx), 0, nx - 1);
    const int j = std::clamp(static_cast<int>((x.y - g_.origin.y) / g_.dx), 0, ny - 1);
    type_[g_.cell(i, j)] = kFluidCell;
  }
  known_u_.assign(g_.u.size(), 0);
  known_v_.assign(g_.v.size(), 0);
  for (size_t f = 0; f < g_.u.size(); ++f)
    if (wu_[f] > 0.0f) g_.u[f] /= wu_[f], known_u_[f] = 1;
  for (size_t f = 0; f < g_.v.size(); ++f)
    if (wv_[f] > 0.0f) g_.v[f] /= wv_[f], known_v_[f] = 1;
  // Obstacles: cells whose centre lies inside one are solid.
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      glm::vec2 normal;
      for (const Obstacle& o : s.obstacles)
        if (obstacle_distance(o, g_.centre(i, j), &normal) < 0.0f) type_[g_.cell(i, j)] = kSolidCell;
    }
}

// Copies into each unknown face the mean of its known neighbours, layer by
// layer (two layers): the particles near the surface sample faces that no
// particle reached.
void FlipSolver::extrapolate(std::vector<float>* f, std::vector<uint8_t>* known, int w, int h) {
  std::vector<uint8_t> next;
  for (int layer = 0; layer < 2; ++layer) {
    next = *known;
    for (int j = 0; j < h; ++j)
      for (int i = 0; i < w; ++i) {
        const int k = j * w + i;
        if ((*known)[k]) continue;
        float sum = 0.0f;
        int m = 0;
        const int nb[4] = {i > 0 ? k - 1 : -1, i + 1 < w ? k + 1 : -1, j > 0 ? k - w : -1, j + 1 < h ? k + w : -1};
        for (int q : nb)
          if (q >= 0 && (*known)[q]) sum += (*f)[q], ++m;
        if (m > 0) (*f)[k] = sum / float(m), next[k] = 1;
      }
    known->swap(next);
  }
}

// Gravity and the pointers' pushes on the faces that carry fluid; no flow
// through the walls or into a solid.
void FlipSolver::add_forces(const WorldState& s, float dt) {
  const Params& P = s.params;
  const int nx = g_.nx, ny = g_.ny;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      float& u = g_.u[g_.u_index(i, j)];
      const bool open = i > 0 && i < nx && type_[g_.cell(i - 1, j)] != kSolidCell && type_[g_.cell(i, j)] != kSolidCell;
      u = open ? u + dt * (P.gravity_x + pointer_accel(s.pointers, g_.u_face(i, j), u, {1.0f, 0.0f}, dt)) : 0.0f;
    }
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i < nx; ++i) {
      float& v = g_.v[g_.v_index(i, j)];
      const bool open = j > 0 && j < ny && type_[g_.cell(i, j - 1)] != kSolidCell && type_[g_.cell(i, j)] != kSolidCell;
      v = open ? v + dt * (P.gravity_y + pointer_accel(s.pointers, g_.v_face(i, j), v, {0.0f, 1.0f}, dt)) : 0.0f;
    }
}

// Viscosity, implicitly on the faces that carry fluid (mac_grid.cpp), with
// nu = mu / rho0 and no-slip walls: the bed friction that slows a real
// surge.
void FlipSolver::viscosity(const WorldState& s, float dt) {
  const float nu = s.params.viscosity / s.params.rest_density;
  const float a = nu * dt / (g_.dx * g_.dx);
  if (!(a > 1e-7f)) return;
  const int nx = g_.nx, ny = g_.ny;
  auto carries = [&](int c0, int c1) {
    return type_[c0] != kSolidCell && type_[c1] != kSolidCell && (type_[c0] == kFluidCell || type_[c1] == kFluidCell);
  };
  const float walls[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  free_.assign(g_.u.size(), 0);
  for (int j = 0; j < ny; ++j)
    for (int i = 1; i < nx; ++i) free_[g_.u_index(i, j)] = carries(g_.cell(i - 1, j), g_.cell(i, j));
  implicit_viscosity(&g_.u, nx + 1, ny, free_, walls, a, &work_);
  free_.assign(g_.v.size(), 0);
  for (int j = 1; j < ny; ++j)
    for (int i = 0; i < nx; ++i) free_[g_.v_index(i, j)] = carries(g_.cell(i, j - 1), g_.cell(i, j));
  implicit_viscosity(&g_.v, nx, ny + 1, free_, walls, a, &work_);
}

// Surface tension as the pressure jump sigma kappa across the surface
// (Young-Laplace; in 2D sigma is a force, N), which the ghost fluid holds
// where p = 0 would lie. kappa = div n, with n = -grad F / |grad F| the
// outward normal of the fill F smoothed by a 3 x 3 binomial filter
// (Brackbill et al. 1992 take the same normal from a colour function), by
// central differences; |kappa| is held to 1 / dx, the sharpest corner the
// grid resolves. held_ gets sigma kappa dt / rho0 on the fluid cells
// (phi's units).
void FlipSolver::surface_tension(const WorldState& s, float dt) {
  const int nx = g_.nx, ny = g_.ny;
  const size_t cells = static_cast<size_t>(nx) * ny;
  auto at = [&](const std::vector<float>& f, int i, int j) {
    return f[g_.cell(std::clamp(i, 0, nx - 1), std::clamp(j, 0, ny - 1))];
  };
  smooth_.resize(cells);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      float sum = 0.0f;
      for (int b = -1; b <= 1; ++b)
        for (int a = -1; a <= 1; ++a) sum += float((2 - std::abs(a)) * (2 - std::abs(b))) * at(fill_, i + a, j + b);
      smooth_[g_.cell(i, j)] = sum / 16.0f;
    }
  normal_x_.assign(cells, 0.0f);
  normal_y_.assign(cells, 0.0f);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const float gx = at(smooth_, i + 1, j) - at(smooth_, i - 1, j);
      const float gy = at(smooth_, i, j + 1) - at(smooth_, i, j - 1);
      const float len = std::sqrt(gx * gx + gy * gy);
      if (!(len > 1e-3f)) continue;
      normal_x_[g_.cell(i, j)] = -gx / len;
      normal_y_[g_.cell(i, j)] = -gy / len;
    }
  held_.assign(cells, 0.0f);
  const float scale = s.params.surface_tension * dt / s.params.rest_density;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      if (type_[g_.cell(i, j)] != kFluidCell) continue;
      const float div = (at(normal_x_, i + 1, j) - at(normal_x_, i - 1, j) + at(normal_y_, i, j + 1) -
                         at(normal_y_, i, j - 1)) / (2.0f * g_.dx);
      held_[g_.cell(i, j)] = scale * std::clamp(div, -1.0f / g_.dx, 1.0f / g_.dx);
    }
}

float FlipSolver::sample(const std::vector<float>& f, int w, int h, float fx, float fy) const {
  fx = clamp_coordinate(fx, w);
  fy = clamp_coordinate(fy, h);
  const int i = std::min(static_cast<int>(fx), w - 2), j = std::min(static_cast<int>(fy), h - 2);
  const float tx = fx - float(i), ty = fy - float(j);
  const float* r0 = f.data() + j * w + i;
  const float* r1 = r0 + w;
  return (1.0f - ty) * ((1.0f - tx) * r0[0] + tx * r0[1]) + ty * ((1.0f - tx) * r1[0] + tx * r1[1]);
}

glm::vec2 FlipSolver::velocity(const std::vector<float>& u, const std::vector<float>& v, glm::vec2 p) const {
  const float fx = (p.x - g_.origin.x) / g_.dx, fy = (p.y - g_.origin.y) / g_.dx;
  return {sample(u, g_.nx + 1, g_.ny, fx, fy - 0.5f), sample(v, g_.nx, g_.ny + 1, fx - 0.5f, fy)};
}

void FlipSolver::grid_to_particles(WorldState& s, float dt) {
  Particles& p = s.particles;
  const float r = s.params.flip_ratio;
  // u_old_ becomes the change the step made on the grid.
  for (size_t f = 0; f < u_old_.size(); ++f) u_old_[f] = g_.u[f] - u_old_[f];
  for (size_t f = 0; f < v_old_.size(); ++f) v_old_[f] = g_.v[f] - v_old_[f];
  float a2max = 0.0f;
  s.loops.parallel(p.size(), [&](int begin, int end) {
    for (int k = begin; k < end; ++k) {
      const glm::vec2 x(p.x[k], p.y[k]);
      const glm::vec2 pic = velocity(g_.u, g_.v, x);
      const glm::vec2 flip = glm::vec2(p.vx[k], p.vy[k]) + velocity(u_old_, v_old_, x);
      const glm::vec2 v = r * flip + (1.0f - r) * pic;
      p.ax[k] = (v.x - p.vx[k]) / dt;
      p.ay[k] = (v.y - p.vy[k]) / dt;
      p.vx[k] = v.x;
      p.vy[k] = v.y;
      // RK2 through the new grid velocity.
      const glm::vec2 mid = x + 0.5f * dt * pic;
      const glm::vec2 to = x + dt * velocity(g_.u, g_.v, mid);
      p.x_prev[k] = x.x;
      p.y_prev[k] = x.y;
      p.x[k] = to.x;
      p.y[k] = to.y;
    }
  });
  for (int k = 0; k < p.size(); ++k) a2max = std::max(a2max, p.ax[k] * p.ax[k] + p.ay[k] * p.ay[k]);
  s.max_accel = std::sqrt(a2max);
}

void FlipSolver::step(WorldState& s, float dt, StageClock& clock, FrameStats& st) {
  const Params& P = s.params;
  Particles& p = s.particles;
  p.ax.resize(static_cast<size_t>(p.size()));
  p.ay.resize(static_cast<size_t>(p.size()));
  fit(s);
  particles_to_grid(s);
  extrapolate(&g_.u, &known_u_, g_.nx + 1, g_.ny);
  extrapolate(&g_.v, &known_v_, g_.nx, g_.ny + 1);
  u_old_ = g_.u;
  v_old_ = g_.v;
  clock.lap(kStageDensity);
  // Viscosity before the forces: gravity's hydrostatic part is a gradient
  // that the projection removes whole, where a viscous step after it would
  // turn it into currents along the no-slip walls.
  viscosity(s, dt);
  add_forces(s, dt);
  clock.lap(kStageForces);
  // The volume: a fluid cell holds (cell / spacing)^2 particles at rest
  // (flip_cell^2 but on the largest grids); one denser is spread by a
  // divergence source, volume_correction of its excess a step, through the
  // same projection.
  const float per_side = cell_ / s.spacing();
  const float rest = per_side * per_side;
  const int nx = g_.nx, ny = g_.ny;
  source_.assign(static_cast<size_t>(nx) * ny, 0.0f);
  fill_.resize(count_.size());
  for (size_t c = 0; c < count_.size(); ++c) fill_[c] = std::min(count_[c] / rest, 1.0f);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int c = g_.cell(i, j);
      if (type_[c] != kFluidCell) continue;
      // Below the surface (no air beside it) a cell is full at rest: one
      // emptier draws its neighbours in. Surface cells are partly full.
      const bool inside = (i == 0 || type_[c - 1] != kAirCell) && (i + 1 == nx || type_[c + 1] != kAirCell) &&
                          (j == 0 || type_[c - nx] != kAirCell) && (j + 1 == ny || type_[c + nx] != kAirCell);
      const float excess = count_[c] / rest - 1.0f;
      if (excess > 0.0f || inside) source_[c] = P.volume_correction * excess / dt;
    }
  const bool tension = P.surface_tension > 0.0f;
  if (tension) surface_tension(s, dt);
  project(&g_, type_, P.pressure_tolerance, P.pressure_iterations, s.loops, &poisson_, &phi_, &rhs_, &source_,
          P.max_speed, FreeSurface{&fill_, tension ? &held_ : nullptr, &surface_})
      .record(st);
  st.cells = nx * ny;
  // The pressure at the particles: p = rho0 phi / dt in their cell.
  for (int k = 0; k < p.size(); ++k) {
    const int i = std::clamp(static_cast<int>((p.x[k] - g_.origin.x) / g_.dx), 0, nx - 1);
    const int j = std::clamp(static_cast<int>((p.y[k] - g_.origin.y) / g_.dx), 0, ny - 1);
    p.pressure[k] = finite_float(double(P.rest_density) * phi_[g_.cell(i, j)] / dt);
    p.density[k] = P.rest_density * count_[g_.cell(i, j)] / rest;
  }
  clock.lap(kStagePressure);
  known_u_.assign(g_.u.size(), 0);
  known_v_.assign(g_.v.size(), 0);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      const bool fluid = (i > 0 && type_[g_.cell(i - 1, j)] == kFluidCell) || (i < nx && type_[g_.cell(i, j)] == kFluidCell);
      known_u_[g_.u_index(i, j)] = fluid;
    }
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const bool fluid = (j > 0 && type_[g_.cell(i, j - 1)] == kFluidCell) || (j < ny && type_[g_.cell(i, j)] == kFluidCell);
      known_v_[g_.v_index(i, j)] = fluid;
    }
  extrapolate(&g_.u, &known_u_, nx + 1, ny);
  extrapolate(&g_.v, &known_v_, nx, ny + 1);
  grid_to_particles(s, dt);
  clock.lap(kStageIntegrate);
}

size_t FlipSolver::bytes() const {
  const size_t floats = g_.u.size() + g_.v.size() + u_old_.size() + v_old_.size() + wu_.size() + wv_.size() +
                        count_.size() + phi_.size() + rhs_.size() + fill_.size() + surface_.size() + smooth_.size() +
                        normal_x_.size() + normal_y_.size() + held_.size();
  return floats * sizeof(float) + type_.size() + known_u_.size() + known_v_.size();
}

}  // namespace

std::unique_ptr<FluidSolver> make_flip(const Params&) { return std::make_unique<FlipSolver>(); }

}  // namespace tidepool
