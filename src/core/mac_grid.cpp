#include "mac_grid.h"

#include <algorithm>
#include <cmath>

namespace tidepool {

float MacGrid::divergence(int i, int j) const {
  return (u[u_index(i + 1, j)] - u[u_index(i, j)] + v[v_index(i, j + 1)] - v[v_index(i, j)]) / dx;
}

int MacGrid::contain(float vmax) {
  int hits = 0;
  for (std::vector<float>* f : {&u, &v})
    for (float& x : *f)
      if (!(std::fabs(x) <= vmax)) {
        x = x > vmax ? vmax : x < -vmax ? -vmax : 0.0f;
        ++hits;
      }
  return hits;
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
float surface_fraction(const std::vector<float>& fill, int fluid, int air) {
  const float theta = fill[fluid] + fill[air] - 0.5f;
  return theta > kMinTheta ? std::min(theta, 1.0f) : kMinTheta;
}
}  // namespace

// lap phi = div u* on the fluid cells, then u = u* - grad phi: the
// Helmholtz-Hodge decomposition (Stam 1999). In cell units:
//   sum over open neighbours n of (phi_c - phi_n) = -dx^2 div_c,
// with phi = 0 in air cells (a free surface) and no flux through solid
// ones (their faces are left as they are). Then every face with a fluid
// cell on one side and no solid on either loses dx^-1 times the jump of
// phi across it, over theta where a fill places the surface.
ProjectionResult project(MacGrid* grid, const std::vector<uint8_t>& type, float tolerance, int max_iterations,
                         const Loops& loops, PoissonSolver* solver, std::vector<float>* phi, std::vector<float>* rhs,
                         const std::vector<float>* source, float max_speed, const FreeSurface& surface) {
  MacGrid& g = *grid;
  const int contained = g.contain(max_speed);
  const int nx = g.nx, ny = g.ny;
  const size_t cells = static_cast<size_t>(nx) * ny;
  rhs->resize(cells);
  phi->resize(cells, 0.0f);
  auto excess = [&](int i, int j) { return g.divergence(i, j) - (source ? (*source)[g.cell(i, j)] : 0.0f); };
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      (*rhs)[g.cell(i, j)] = type[g.cell(i, j)] == kFluidCell ? -g.dx * g.dx * excess(i, j) : 0.0f;
  // 1 / theta of the face between cells a and b: 1 unless one is fluid and
  // the other air, with fills.
  const std::vector<float>* fill = surface.fill;
  auto inverse_theta = [&](int a, int b) {
    if (!fill) return 1.0f;
    if (type[a] == kFluidCell && type[b] == kAirCell) return 1.0f / surface_fraction(*fill, a, b);
    if (type[b] == kFluidCell && type[a] == kAirCell) return 1.0f / surface_fraction(*fill, b, a);
    return 1.0f;
  };
  // The surface's potential beside fluid cell c (0 without a value).
  auto held = [&](int c) { return surface.value ? (*surface.value)[c] : 0.0f; };
  if (fill) {
    std::vector<float>& extra = *surface.scratch;
    extra.assign(cells, 0.0f);
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const int c = g.cell(i, j);
        if (type[c] != kFluidCell) continue;
        // Each air neighbour's term (phi_c - held) / theta: 1 / theta on
        // the diagonal, held / theta to the right-hand side.
        const int nb[4] = {i > 0 ? c - 1 : -1, i + 1 < nx ? c + 1 : -1, j > 0 ? c - nx : -1, j + 1 < ny ? c + nx : -1};
        for (int n : nb) {
          if (n < 0 || type[n] != kAirCell) continue;
          const float w = inverse_theta(c, n);
          extra[c] += w - 1.0f;
          (*rhs)[c] += w * held(c);
        }
      }
  }
  solver->set_cells(nx, ny, type, fill ? surface.scratch : nullptr);
  const PoissonResult res = solver->solve(*rhs, phi, tolerance, max_iterations, loops);
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
  for (int j = 0; j < ny; ++j)
    for (int i = 1; i < nx; ++i) {
      const int a = g.cell(i - 1, j), b = g.cell(i, j);
      if (moves(a, b)) g.u[g.u_index(i, j)] -= jump(a, b) / g.dx;
    }
  for (int j = 1; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int a = g.cell(i, j - 1), b = g.cell(i, j);
      if (moves(a, b)) g.v[g.v_index(i, j)] -= jump(a, b) / g.dx;
    }
  ProjectionResult out;
  out.contained = contained + g.contain(max_speed);
  out.iterations = res.iterations;
  out.residual = res.residual;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      if (type[g.cell(i, j)] == kFluidCell) out.max_divergence = std::max(out.max_divergence, std::fabs(excess(i, j)));
  return out;
}

// (I - nu dt lap) f = f* for one velocity component on its faces (w x h of
// them), by conjugate gradients with a Jacobi preconditioner: the matrix is
// symmetric, positive definite and diagonally dominant, so a few
// iterations reach the tolerance. free (w x h) says which faces are unknowns;
// the others are fixed (0: the walls' normal flow, the solids' faces). A
// neighbour beyond the box's side is the no-slip ghost 2 wall - f, so the
// face's equation gains a on its diagonal and 2 a wall on its right side.
void implicit_viscosity(std::vector<float>* field, int w, int h, const std::vector<uint8_t>& free, const float wall[4],
                        float a, std::vector<float>* work) {
  const size_t n = field->size();
  work->assign(6 * n, 0.0f);
  float* b = work->data();
  float* r = b + n;
  float* z = r + n;
  float* d = z + n;
  float* q = d + n;
  float* diag = q + n;
  std::vector<float>& x = *field;
  const uint8_t* const on = free.data();
  // The diagonal (1 + 4a, and a more per ghost) and b (the ghosts' 2 a wall).
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      const int k = j * w + i;
      if (!on[k]) continue;
      b[k] = x[k];
      diag[k] = 1.0f + 4.0f * a;
      const bool out[4] = {i == 0, i == w - 1, j == 0, j == h - 1};
      for (int s = 0; s < 4; ++s)
        if (out[s]) {
          diag[k] += a;
          b[k] += 2.0f * a * wall[s];
        }
    }
  // y = A in on the free faces: fixed neighbours hold 0, ghosts are in diag.
  auto apply = [&](const float* in, float* y) {
    for (int j = 0; j < h; ++j)
      for (int i = 0; i < w; ++i) {
        const int k = j * w + i;
        if (!on[k]) continue;
        float sum = 0.0f;
        if (i > 0 && on[k - 1]) sum += in[k - 1];
        if (i + 1 < w && on[k + 1]) sum += in[k + 1];
        if (j > 0 && on[k - w]) sum += in[k - w];
        if (j + 1 < h && on[k + w]) sum += in[k + w];
        y[k] = diag[k] * in[k] - a * sum;
      }
  };
  apply(x.data(), q);
  double b2 = 0.0, rz = 0.0;
  for (size_t k = 0; k < n; ++k) {
    if (!on[k]) continue;
    r[k] = b[k] - q[k];
    z[k] = r[k] / diag[k];
    d[k] = z[k];
    b2 += static_cast<double>(b[k]) * b[k];
    rz += static_cast<double>(r[k]) * z[k];
  }
  const double tolerance2 = 1e-10 * b2;  // 1e-5 of |b|
  for (int it = 0; it < 100; ++it) {
    apply(d, q);
    double dq = 0.0;
    for (size_t k = 0; k < n; ++k)
      if (on[k]) dq += static_cast<double>(d[k]) * q[k];
    if (!(dq > 0.0)) break;
    const float alpha = static_cast<float>(rz / dq);
    double r2 = 0.0, rz_next = 0.0;
    for (size_t k = 0; k < n; ++k) {
      if (!on[k]) continue;
      x[k] += alpha * d[k];
      r[k] -= alpha * q[k];
      z[k] = r[k] / diag[k];
      r2 += static_cast<double>(r[k]) * r[k];
      rz_next += static_cast<double>(r[k]) * z[k];
    }
    if (r2 <= tolerance2) break;
    const float beta = static_cast<float>(rz_next / rz);
    rz = rz_next;
    for (size_t k = 0; k < n; ++k) d[k] = z[k] + beta * d[k];
  }
}

}  // namespace tidepool
