// The benchmark's reference: seed 000's algorithm as written there, with the
// 2D kernels — a hash map from cell coordinates to particle lists, rebuilt
// every step, per-particle neighbour lists, density with the pair symmetry
// trick, Tait pressure, Müller forces (pressure, viscosity, colour-field
// surface tension), leapfrog, reflecting walls. Kept deliberately plain:
// it is the yardstick the engine's speed is measured against, in one run.
#include "reference.h"

#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "tidepool/kernels.h"

namespace tidepool_cli {

namespace {

struct RefParticle {
  float x, y, vx, vy, hvx, hvy;  // position, velocity, half-step velocity
  float density, pressure, fx, fy;
  std::vector<int> neighbours;
};

int64_t cell_key(int cx, int cy) {
  return (static_cast<int64_t>(cx) << 32) ^ static_cast<uint32_t>(cy);
}

using CellMap = std::unordered_map<int64_t, std::vector<int>>;

// (1) Neighbour search: a hash map of cells of side h, rebuilt from
// scratch, and lists built "forward" (seed 000): each particle looks at the
// higher-numbered particles of its own cell and at four of the cells around
// it (half of the eight), and a pair found goes into both lists.
void find_neighbours(std::vector<RefParticle>& ps, CellMap& grid, float h) {
  const float h2 = h * h;
  const int n = static_cast<int>(ps.size());
  grid.clear();
  for (int i = 0; i < n; ++i) {
    const int cx = static_cast<int>(std::floor(ps[i].x / h));
    const int cy = static_cast<int>(std::floor(ps[i].y / h));
    grid[cell_key(cx, cy)].push_back(i);
    ps[i].neighbours.clear();
  }
  for (int i = 0; i < n; ++i) {
    RefParticle& a = ps[i];
    const int cx = static_cast<int>(std::floor(a.x / h));
    const int cy = static_cast<int>(std::floor(a.y / h));
    const int offsets[5][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {-1, 1}};
    for (const auto& o : offsets) {
      const auto it = grid.find(cell_key(cx + o[0], cy + o[1]));
      if (it == grid.end()) continue;
      for (int j : it->second) {
        if (o[0] == 0 && o[1] == 0 && j <= i) continue;
        const float dx = a.x - ps[j].x, dy = a.y - ps[j].y;
        if (dx * dx + dy * dy < h2) {
          a.neighbours.push_back(j);
          ps[j].neighbours.push_back(i);
        }
      }
    }
  }
}

// (2+3) Density (Müller 2003 eq. 3, each pair's term added to both ends)
// and pressure from the Tait equation of state (exponent 7).
void density_and_pressure(std::vector<RefParticle>& ps, const tidepool::Params& P,
                          const tidepool::MullerKernels& K) {
  const float m = P.mass;
  const int n = static_cast<int>(ps.size());
  for (RefParticle& a : ps) a.density = m * K.poly6(0.0f);
  for (int i = 0; i < n; ++i) {
    for (int j : ps[i].neighbours) {
      if (j < i) continue;
      const float dx = ps[i].x - ps[j].x, dy = ps[i].y - ps[j].y;
      const float w = m * K.poly6(dx * dx + dy * dy);
      ps[i].density += w;
      ps[j].density += w;
    }
  }
  for (RefParticle& a : ps) {
    const float r = a.density / P.rest_density;
    a.pressure = P.stiffness * P.rest_density / 7.0f * (std::pow(r, 7.0f) - 1.0f);
  }
}

// (4) Forces: pressure (Müller 2003 eq. 10), viscosity (eq. 14) and
// colour-field surface tension (eq. 15-19).
void forces(std::vector<RefParticle>& ps, const tidepool::Params& P, const tidepool::MullerKernels& K) {
  const float m = P.mass;
  for (RefParticle& a : ps) {
    float px = 0, py = 0, vx = 0, vy = 0, nx = 0, ny = 0, lap = 0;
    for (int j : a.neighbours) {
      const RefParticle& b = ps[j];
      const float dx = a.x - b.x, dy = a.y - b.y, r2 = dx * dx + dy * dy, r = std::sqrt(r2);
      const float g = K.spiky_grad(r) * m * (a.pressure + b.pressure) / (2.0f * b.density);
      px -= g * dx;
      py -= g * dy;
      const float l = K.viscosity_laplacian(r) * m / b.density;
      vx += (b.vx - a.vx) * l;
      vy += (b.vy - a.vy) * l;
      const float gp = K.poly6_grad(r2) * m / b.density;
      nx += gp * dx;
      ny += gp * dy;
      lap += K.poly6_laplacian(r2) * m / b.density;
    }
    a.fx = px + P.viscosity * vx;
    a.fy = py + P.viscosity * vy;
    const float nl = std::sqrt(nx * nx + ny * ny);
    if (nl > P.surface_threshold) {
      a.fx -= P.surface_tension * lap * nx / nl;
      a.fy -= P.surface_tension * lap * ny / nl;
    }
  }
}

// (5) Leapfrog and reflecting walls.
void integrate(std::vector<RefParticle>& ps, const tidepool::Params& P, const tidepool::Box& b, float dt) {
  for (RefParticle& a : ps) {
    const float ax = a.fx / a.density + P.gravity_x, ay = a.fy / a.density + P.gravity_y;
    const float nvx = a.hvx + ax * dt, nvy = a.hvy + ay * dt;
    a.vx = 0.5f * (a.hvx + nvx);
    a.vy = 0.5f * (a.hvy + nvy);
    a.hvx = nvx;
    a.hvy = nvy;
    a.x += nvx * dt;
    a.y += nvy * dt;
    if (a.x < b.min.x) { a.x = b.min.x; a.hvx = a.vx = std::fabs(a.hvx) * P.restitution; }
    if (a.x > b.max.x) { a.x = b.max.x; a.hvx = a.vx = -std::fabs(a.hvx) * P.restitution; }
    if (a.y < b.min.y) { a.y = b.min.y; a.hvy = a.vy = std::fabs(a.hvy) * P.restitution; }
    if (a.y > b.max.y) { a.y = b.max.y; a.hvy = a.vy = -std::fabs(a.hvy) * P.restitution; }
  }
}

}  // namespace

struct Reference::Impl {
  std::vector<RefParticle> p;
  CellMap grid;
  tidepool::Params params;
  tidepool::Box box;
};

Reference::Reference(const tidepool::World& world) : impl_(new Impl) {
  impl_->params = world.params();
  impl_->box = world.box();
  const tidepool::Particles& q = world.particles();
  for (int i = 0; i < q.size(); ++i) {
    RefParticle r{};
    r.x = q.x[i];
    r.y = q.y[i];
    r.vx = r.hvx = q.vx[i];
    r.vy = r.hvy = q.vy[i];
    impl_->p.push_back(r);
  }
}

Reference::~Reference() { delete impl_; }

double Reference::mean_neighbours() const {
  double n = 0;
  for (const RefParticle& r : impl_->p) n += static_cast<double>(r.neighbours.size());
  return impl_->p.empty() ? 0.0 : n / static_cast<double>(impl_->p.size());
}

void Reference::step(float dt) {
  const tidepool::Params& P = impl_->params;
  const tidepool::MullerKernels K(P.h);
  find_neighbours(impl_->p, impl_->grid, P.h);
  density_and_pressure(impl_->p, P, K);
  forces(impl_->p, P, K);
  integrate(impl_->p, P, impl_->box, dt);
}

}  // namespace tidepool_cli
