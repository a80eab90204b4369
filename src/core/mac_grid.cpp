#include "mac_grid.h"

#include "boundary.h"  // obstacle_distance
#include "cut_faces.h"

#include <algorithm>
#include <cmath>

#include <glm/common.hpp>
#include <glm/geometric.hpp>

namespace tidepool {

float MacGrid::divergence(int i, int j) const {
  return (u[u_index(i + 1, j)] - u[u_index(i, j)] + v[v_index(i, j + 1)] - v[v_index(i, j)]) / dx;
}

int MacGrid::contain(float vmax, CellWindow window, const Loops& loops) {
  const CellWindow w = window.or_whole(nx, ny);
  // Each row's count of faces held (a count: exact in a double).
  auto hold = [&](float* x, int n) {
    int hits = 0;
    for (int k = 0; k < n; ++k)
      if (!(std::fabs(x[k]) <= vmax)) {
        x[k] = x[k] > vmax ? vmax : x[k] < -vmax ? -vmax : 0.0f;
        ++hits;
      }
    return static_cast<double>(hits);
  };
  const int wu = w.nx() + 1, wv = w.nx();
  const double hits = loops.sum_rows(w.ny(), wu, [&](int j) { return hold(&u[u_index(w.i0, w.j0 + j)], wu); }) +
                      loops.sum_rows(w.ny() + 1, wv, [&](int j) { return hold(&v[v_index(w.i0, w.j0 + j)], wv); });
  return static_cast<int>(hits);
}

namespace {
bool same_obstacles(const std::vector<Obstacle>& a, const std::vector<Obstacle>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k].kind != b[k].kind || a[k].a != b[k].a || a[k].b != b[k].b || a[k].radius != b[k].radius ||
        a[k].points != b[k].points)
      return false;
  return true;
}
}  // namespace

const std::vector<uint8_t>& SolidMask::update(const MacGrid& g, const std::vector<Obstacle>& obstacles) {
  if (g.nx == nx_ && g.ny == ny_ && g.dx == dx_ && g.origin == origin_ && same_obstacles(obstacles, obstacles_))
    return mask_;
  nx_ = g.nx;
  ny_ = g.ny;
  dx_ = g.dx;
  origin_ = g.origin;
  obstacles_ = obstacles;
  mask_.assign(static_cast<size_t>(g.nx) * g.ny, 0);
  for (const Obstacle& o : obstacles) for_cells_inside(g, o, [&](int c) { mask_[c] = 1; });
  return mask_;
}

// Between fluid cell f and air cell a the surface lies theta cells from
// f's centre toward a's (Gibou et al. 2002; the ghost pressure beyond it is
// linear through p = 0 there). The liquid of the two cells, fill_f +
// fill_a cells of it, stacked from f's far face, ends at
// theta = fill_f + fill_a - 1/2: for a flat pool whose top is f's top face,
// 1/2. It is held within [1/2, 1]: a cell that holds a particle is fluid,
// so the surface lies no nearer its centre than its face (a thinner share
// would make the surface cells' pressure follow every particle that
// crosses a face, and a resting pool shimmer), and past 1 the air cell
// would be the fluid one.
namespace {
constexpr float kMinTheta = 0.5f;
float liquid_end(const std::vector<float>& fill, int fluid, int air) { return fill[fluid] + fill[air] - 0.5f; }
float surface_fraction(const std::vector<float>& fill, int fluid, int air) {
  return std::clamp(liquid_end(fill, fluid, air), kMinTheta, 1.0f);
}
}  // namespace

float surface_offset(const std::vector<float>& fill, int fluid, int air, float dx, float along) {
  return dx * (surface_fraction(fill, fluid, air) - liquid_end(fill, fluid, air)) * along;
}

// lap phi = div u* on the fluid cells, then u = u* - grad phi: the
// Helmholtz-Hodge decomposition (Stam 1999). In cell units:
//   sum over open neighbours n of (phi_c - phi_n) = -dx^2 div_c,
// with phi = 0 in air cells (a free surface) and no flux through solid
// ones (their faces are left as they are). Then every face with a fluid
// cell on one side and no solid on either loses dx^-1 times the jump of
// phi across it, over theta where a fill places the surface.
ProjectionResult project(MacGrid* grid, const std::vector<uint8_t>& type, float tolerance, int max_iterations,
                         const Loops& loops, PoissonSolver* solver, std::vector<float>* phi, std::vector<float>* rhs,
                         const std::vector<float>* source, float max_speed, const FreeSurface& surface,
                         CellWindow window, CutFaces* cut, RigidSolve* rigid, float density) {
  MacGrid& g = *grid;
  const CellWindow w = window.or_whole(g.nx, g.ny);
  const int contained = g.contain(max_speed, w, loops);
  const int nx = g.nx, ny = g.ny;
  const size_t cells = static_cast<size_t>(nx) * ny;
  rhs->resize(cells);
  phi->resize(cells, 0.0f);
  // A face's open share (1 without cut).
  auto u_share = [&](int i, int j) { return cut ? cut->u_share()[g.u_index(i, j)] : 1.0f; };
  auto v_share = [&](int i, int j) { return cut ? cut->v_share()[g.v_index(i, j)] : 1.0f; };
  // The divergence of cell (i, j) less its source [1/s]; with cut, its
  // faces' fluxes a u + (1 - a) u_solid (the bodies' solid parts left to
  // J where rigid is given), and the source on its open share.
  auto excess = [&](int i, int j) {
    const float s = source ? (*source)[g.cell(i, j)] : 0.0f;
    if (!cut) return g.divergence(i, j) - s;
    auto solid = [&](int owner, float velocity) {
      return rigid && owner >= 0 && (*rigid->solids)[static_cast<size_t>(owner)].body >= 0 ? 0.0f : velocity;
    };
    auto flux_u = [&](int k) { return cut->u_share()[k] * g.u[k] + (1.0f - cut->u_share()[k]) * solid(cut->u_owner(k), cut->u_solid(k)); };
    auto flux_v = [&](int k) { return cut->v_share()[k] * g.v[k] + (1.0f - cut->v_share()[k]) * solid(cut->v_owner(k), cut->v_solid(k)); };
    return (flux_u(g.u_index(i + 1, j)) - flux_u(g.u_index(i, j)) + flux_v(g.v_index(i, j + 1)) -
            flux_v(g.v_index(i, j))) / g.dx -
           s * cut->open(g.cell(i, j));
  };
  // Adds to f, per cell, scale times the flux the bodies' velocities v push
  // into it through J.
  auto body_flux = [&](const std::vector<glm::vec3>& v, float scale, std::vector<float>* f) {
    for (size_t b = 0; b < rigid->columns.size(); ++b) {
      const RigidColumns& col = rigid->columns[b];
      for (size_t k = 0; k < col.cells.size(); ++k)
        (*f)[static_cast<size_t>(col.cells[k])] += scale * glm::dot(col.j[k], v[b]);
    }
  };
  for_cells(loops, w, [&](int i, int j) {
    (*rhs)[g.cell(i, j)] = type[g.cell(i, j)] == kFluidCell ? -g.dx * g.dx * excess(i, j) : 0.0f;
  });
  if (rigid) body_flux(rigid->start, -1.0f, rhs);  // the bodies' flux, -J U*
  // 1 / theta of the face between cells a and b: 1 unless one is fluid and
  // the other air, with fills.
  const std::vector<float>* fill = surface.fill;
  auto inverse_theta = [&](int a, int b) {
    if (!fill) return 1.0f;
    if (type[a] == kFluidCell && type[b] == kAirCell) return 1.0f / surface_fraction(*fill, a, b);
    if (type[b] == kFluidCell && type[a] == kAirCell) return 1.0f / surface_fraction(*fill, b, a);
    return 1.0f;
  };
  // The surface's potential beside fluid cell c toward air cell a, whose
  // offset along x or y is (di, dj): surface tension's value, and
  // gravity's where the surface is placed past the liquid's end.
  auto held = [&](int c) { return surface.value ? (*surface.value)[c] : 0.0f; };
  if (fill) {
    std::vector<float>& extra = *surface.scratch;
    extra.resize(cells);
    for_cells(loops, w, [&](int i, int j) {
      const int c = g.cell(i, j);
      extra[c] = 0.0f;
      if (type[c] != kFluidCell) return;
      // Each air neighbour's term a (phi_c - held) / theta: a / theta on
      // the diagonal (a of it there already), a held / theta to the
      // right-hand side.
      const int nb[4] = {i > 0 ? c - 1 : -1, i + 1 < nx ? c + 1 : -1, j > 0 ? c - nx : -1, j + 1 < ny ? c + nx : -1};
      const float share[4] = {u_share(i, j), u_share(i + 1, j), v_share(i, j), v_share(i, j + 1)};
      for (int k = 0; k < 4; ++k) {
        const int n = nb[k];
        if (n < 0 || type[n] != kAirCell) continue;
        const float t = inverse_theta(c, n);
        extra[c] += share[k] * (t - 1.0f);
        (*rhs)[c] += share[k] * t * held(c);
      }
    });
  }
  solver->set_cells(nx, ny, type, fill ? surface.scratch : nullptr, w, cut ? cut->shares() : FaceShares{}, loops);
  solver->set_rigid(rigid ? &rigid->columns : nullptr, density);
  const PoissonResult res = solver->solve(*rhs, phi, tolerance, max_iterations, loops);
  solver->set_rigid(nullptr, 0.0f);
  std::vector<glm::vec3> velocity;  // the bodies' after the solve
  if (rigid) {
    // Each body's velocity change, rho0 M^-1 J^T phi (poisson.h), and its
    // faces' new flux.
    const size_t n = rigid->columns.size();
    rigid->change.assign(n, glm::vec3(0.0f));
    velocity.assign(n, glm::vec3(0.0f));
    for (size_t b = 0; b < n; ++b) {
      const RigidColumns& col = rigid->columns[b];
      const glm::vec3 m = density * col.gather(*phi);
      rigid->change[b] = {col.inverse_mass * m.x, col.inverse_mass * m.y, col.inverse_inertia * m.z};
      velocity[b] = rigid->start[b] + rigid->change[b];
    }
    cut->move_bodies(g, *rigid->solids, velocity);
  }
  auto moves = [&](int a, int b) {
    return type[a] != kSolidCell && type[b] != kSolidCell && (type[a] == kFluidCell || type[b] == kFluidCell);
  };
  const std::vector<float>& p = *phi;
  // phi's jump from cell a to cell b across their face; an air side holds
  // the surface's potential.
  auto jump = [&](int a, int b) {
    const float pa = type[a] == kAirCell ? held(b) : p[a], pb = type[b] == kAirCell ? held(a) : p[b];
    return (pb - pa) * inverse_theta(a, b);
  };
  // The faces between two of the window's cells (the walls' are closed).
  for_cells(loops, {w.i0 + 1, w.j0, w.i1, w.j1}, [&](int i, int j) {
    const int a = g.cell(i - 1, j), b = g.cell(i, j);
    if (moves(a, b) && u_share(i, j) > 0.0f) g.u[g.u_index(i, j)] -= jump(a, b) / g.dx;
  });
  for_cells(loops, {w.i0, w.j0 + 1, w.i1, w.j1}, [&](int i, int j) {
    const int a = g.cell(i, j - 1), b = g.cell(i, j);
    if (moves(a, b) && v_share(i, j) > 0.0f) g.v[g.v_index(i, j)] -= jump(a, b) / g.dx;
  });
  ProjectionResult out;
  out.contained = contained + g.contain(max_speed, w, loops);
  out.iterations = res.iterations;
  out.residual = res.residual;
  out.work = static_cast<double>(w.cells()) * (res.iterations + 2);  // with the divergence and the gradient
  std::vector<float>& bodies = *rhs;  // free now: the bodies' share of each cell's divergence
  if (rigid) {
    for_rows(w, nx, [&](int c0, int c1) { std::fill(bodies.begin() + c0, bodies.begin() + c1, 0.0f); });
    body_flux(velocity, 1.0f / (g.dx * g.dx), &bodies);
  }
  out.max_divergence = static_cast<float>(loops.max_rows(w.ny(), w.nx(), [&](int r) {
    const int j = w.j0 + r;
    float most = 0.0f;
    for (int i = w.i0; i < w.i1; ++i) {
      const int c = g.cell(i, j);
      if (type[c] == kFluidCell) most = std::max(most, std::fabs(excess(i, j) + (rigid ? bodies[c] : 0.0f)));
    }
    return static_cast<double>(most);
  }));
  return out;
}

// The equations, per free face k of the rectangle: (1 + 4a + a g_k) f_k -
// a sum of its free neighbours = f*_k + 2 a sum of its ghosts' walls, g_k
// the number of its sides beyond the grid's edge. The explicit step is the
// same operator applied forward: f_k += a (sum of free neighbours - (4 +
// g_k) f_k + 2 sum of walls).
double diffuse_faces(std::vector<float>* field, int w, int h, const std::vector<uint8_t>& free, const float wall[4],
                     float a, int max_iterations, FaceRect rect, std::vector<float>* work, const Loops& loops) {
  const size_t n = field->size();
  std::vector<float>& x = *field;
  const uint8_t* const on = free.data();
  // Visits every free face of the rectangle's rows [r0, r1) (counted from
  // its first) with its index and grid position.
  auto each_in = [&](int r0, int r1, auto&& f) {
    for (int j = rect.j0 + r0; j < rect.j0 + r1; ++j)
      for (int i = rect.i0; i < rect.i1; ++i) {
        const int k = j * w + i;
        if (on[k]) f(k, i, j);
      }
  };
  // Every free face, the rows split over the threads: f writes only face k.
  auto each = [&](auto&& f) { loops.rows(rect.ny(), rect.nx(), [&](int r0, int r1) { each_in(r0, r1, f); }); };
  // The same, where f also returns two terms of two sums: each row's sums
  // are taken in order, and the rows' added in order, so the sums do not
  // depend on the split.
  auto each_sum = [&](auto&& f) {
    return loops.sum2_rows(rect.ny(), rect.nx(), [&](int r) {
      std::pair<double, double> sum{0.0, 0.0};
      each_in(r, r + 1, [&](int k, int i, int j) {
        const std::pair<double, double> t = f(k, i, j);
        sum.first += t.first;
        sum.second += t.second;
      });
      return sum;
    });
  };
  // Sum of the free neighbours of face k in the rectangle (the others are
  // fixed and hold 0).
  auto neighbours = [&](const float* in, int k, int i, int j) {
    float sum = 0.0f;
    if (i > rect.i0 && on[k - 1]) sum += in[k - 1];
    if (i + 1 < rect.i1 && on[k + 1]) sum += in[k + 1];
    if (j > rect.j0 && on[k - w]) sum += in[k - w];
    if (j + 1 < rect.j1 && on[k + w]) sum += in[k + w];
    return sum;
  };
  // Face k's ghosts: their count and the sum of their walls' velocities.
  auto ghosts = [&](int i, int j, float* walls) {
    const bool out[4] = {i == 0, i == w - 1, j == 0, j == h - 1};
    int count = 0;
    *walls = 0.0f;
    for (int s = 0; s < 4; ++s)
      if (out[s]) ++count, *walls += wall[s];
    return count;
  };
  work->resize(6 * n);
  float* b = work->data();
  const double faces = static_cast<double>(rect.cells());
  if (a <= kExplicitViscosityLimit) {
    each([&](int k, int, int) { b[k] = x[k]; });
    each([&](int k, int i, int j) {
      float walls;
      const int g = ghosts(i, j, &walls);
      x[k] = b[k] + a * (neighbours(b, k, i, j) - float(4 + g) * b[k] + 2.0f * walls);
    });
    return faces;
  }
  float* r = b + n;
  float* z = r + n;
  float* d = z + n;
  float* q = d + n;
  float* diag = q + n;
  each([&](int k, int i, int j) {
    float walls;
    const int g = ghosts(i, j, &walls);
    b[k] = x[k] + 2.0f * a * walls;
    diag[k] = 1.0f + float(4 + g) * a;
    d[k] = 0.0f;
  });
  // y = A in on the free faces.
  auto apply = [&](const float* in, float* y) {
    each([&](int k, int i, int j) { y[k] = diag[k] * in[k] - a * neighbours(in, k, i, j); });
  };
  apply(x.data(), q);
  const std::pair<double, double> start = each_sum([&](int k, int, int) {
    r[k] = b[k] - q[k];
    z[k] = r[k] / diag[k];
    d[k] = z[k];
    return std::make_pair(static_cast<double>(b[k]) * b[k], static_cast<double>(r[k]) * z[k]);
  });
  const double b2 = start.first;
  double rz = start.second;
  const double tolerance2 = 1e-10 * b2;  // 1e-5 of |b|
  int it = 0;
  for (; it < max_iterations; ++it) {
    apply(d, q);
    const double dq = each_sum([&](int k, int, int) { return std::make_pair(static_cast<double>(d[k]) * q[k], 0.0); }).first;
    if (!(dq > 0.0)) break;
    const float alpha = static_cast<float>(rz / dq);
    const std::pair<double, double> next = each_sum([&](int k, int, int) {
      x[k] += alpha * d[k];
      r[k] -= alpha * q[k];
      z[k] = r[k] / diag[k];
      return std::make_pair(static_cast<double>(r[k]) * r[k], static_cast<double>(r[k]) * z[k]);
    });
    const double r2 = next.first, rz_next = next.second;
    if (r2 <= tolerance2) break;
    const float beta = static_cast<float>(rz_next / rz);
    rz = rz_next;
    each([&](int k, int, int) { d[k] = z[k] + beta * d[k]; });
  }
  return faces * (it + 2);
}

}  // namespace tidepool
