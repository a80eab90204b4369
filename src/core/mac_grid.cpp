#include "mac_grid.h"

#include <algorithm>
#include <cmath>

namespace tidepool {

float MacGrid::divergence(int i, int j) const {
  return (u[u_index(i + 1, j)] - u[u_index(i, j)] + v[v_index(i, j + 1)] - v[v_index(i, j)]) / dx;
}

// lap phi = div u* on the fluid cells, then u = u* - grad phi: the
// Helmholtz-Hodge decomposition (Stam 1999). In cell units:
//   sum over open neighbours n of (phi_c - phi_n) = -dx^2 div_c,
// with phi = 0 in air cells (a free surface) and no flux through solid
// ones (their faces are left as they are). Then every face with a fluid
// cell on one side and no solid on either loses dx^-1 times the jump of
// phi across it.
ProjectionResult project(MacGrid* grid, const std::vector<uint8_t>& type, float tolerance, int max_iterations,
                         const Loops& loops, PoissonSolver* solver, std::vector<float>* phi, std::vector<float>* rhs) {
  MacGrid& g = *grid;
  const int nx = g.nx, ny = g.ny;
  const size_t cells = static_cast<size_t>(nx) * ny;
  rhs->resize(cells);
  phi->resize(cells, 0.0f);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      (*rhs)[g.cell(i, j)] = type[g.cell(i, j)] == kFluidCell ? -g.dx * g.dx * g.divergence(i, j) : 0.0f;
  solver->set_cells(nx, ny, type);
  const PoissonResult res = solver->solve(*rhs, phi, tolerance, max_iterations, loops);
  auto moves = [&](int a, int b) {
    return type[a] != kSolidCell && type[b] != kSolidCell && (type[a] == kFluidCell || type[b] == kFluidCell);
  };
  const std::vector<float>& p = *phi;
  for (int j = 0; j < ny; ++j)
    for (int i = 1; i < nx; ++i)
      if (moves(g.cell(i - 1, j), g.cell(i, j))) g.u[g.u_index(i, j)] -= (p[g.cell(i, j)] - p[g.cell(i - 1, j)]) / g.dx;
  for (int j = 1; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      if (moves(g.cell(i, j - 1), g.cell(i, j))) g.v[g.v_index(i, j)] -= (p[g.cell(i, j)] - p[g.cell(i, j - 1)]) / g.dx;
  ProjectionResult out;
  out.iterations = res.iterations;
  out.residual = res.residual;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      if (type[g.cell(i, j)] == kFluidCell) out.max_divergence = std::max(out.max_divergence, std::fabs(g.divergence(i, j)));
  return out;
}

}  // namespace tidepool
