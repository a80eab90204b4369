#include "poisson.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

namespace tidepool {
namespace {

constexpr float kJacobiWeight = 2.0f / 3.0f;  // damped Jacobi: smooths every high frequency
constexpr int kSmoothSweeps = 2;              // before and after the coarse correction
constexpr int kCoarsestSweeps = 40;
constexpr int kCoarsest = 4;                  // cells along a side at which coarsening stops

bool open_cell(uint8_t t) { return t != kSolidCell; }

// The cell-centred bilinear weights of fine cell (i, j) on the coarse cells
// around it: 3/4 on its parent and 1/4 on the next one out along each axis,
// the products in 2D. Solid and outside coarse cells are left out and the
// rest renormalised, so a constant interpolates to itself up to a wall;
// air cells keep their weight (their value is 0). Prolongation gathers with
// these weights and restriction scatters with them: transposes, so the
// V-cycle is a symmetric preconditioner.
struct Links {
  int cell[4];
  float weight[4];
  int count;
};
Links links_of(int i, int j, int cnx, int cny, const std::vector<uint8_t>& coarse) {
  const int I = i / 2, J = j / 2;
  const int di = (i % 2) ? 1 : -1, dj = (j % 2) ? 1 : -1;
  const int ci[2] = {I, I + di}, cj[2] = {J, J + dj};
  const float wi[2] = {0.75f, 0.25f}, wj[2] = {0.75f, 0.25f};
  Links l{};
  float total = 0.0f;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      if (ci[a] < 0 || ci[a] >= cnx || cj[b] < 0 || cj[b] >= cny) continue;
      const int c = cj[b] * cnx + ci[a];
      if (!open_cell(coarse[c])) continue;
      l.cell[l.count] = c;
      l.weight[l.count] = wi[a] * wj[b];
      total += l.weight[l.count];
      ++l.count;
    }
  for (int k = 0; k < l.count; ++k) l.weight[k] /= total;
  return l;
}

}  // namespace

namespace {
// The window's entries of a grid-sized array, row by row, into a compact one.
template <class T>
void gather_window(const std::vector<T>& grid, int grid_nx, CellWindow w, std::vector<T>* out, const Loops& loops) {
  out->resize(w.cells());
  loops.rows(w.ny(), w.nx(), [&](int r0, int r1) {
    for (int j = w.j0 + r0; j < w.j0 + r1; ++j)
      std::copy(grid.begin() + j * grid_nx + w.i0, grid.begin() + j * grid_nx + w.i1,
                out->begin() + (j - w.j0) * w.nx());
  });
}
}  // namespace

void PoissonSolver::set_cells(int nx, int ny, const std::vector<uint8_t>& types, const std::vector<float>* surface,
                              CellWindow window, const FaceShares& shares, const Loops& loops) {
  window_ = window.or_whole(nx, ny);
  grid_nx_ = nx;
  gather_window(types, nx, window_, &window_types_, loops);
  const int wx = window_.nx(), wy = window_.ny();
  const bool same = !levels_.empty() && levels_[0].nx == wx && levels_[0].ny == wy && levels_[0].type == window_types_;
  if (!same) build_levels(wx, wy, window_types_, loops);
  Level& fine = levels_[0];
  if (shares.u) {
    share_faces(shares, loops);
  } else if (shared_) {  // back to whole faces
    build_operator(&fine, loops);
    open_ = fine.diag;
    shared_ = surface_ = false;
  }
  if (!surface && !surface_) return;
  if (surface) gather_window(*surface, nx, window_, &window_surface_, loops);
  loops.parallel(
      static_cast<int>(fine.diag.size()),
      [&](int begin, int end) {
        for (int c = begin; c < end; ++c) {
          const float d = open_[c] + (surface && fine.type[c] == kFluidCell ? std::max(window_surface_[c], 0.0f) : 0.0f);
          fine.diag[c] = d;
          fine.inv_diag[c] = d > 0.0f ? 1.0f / d : 0.0f;
        }
      },
      1);
  surface_ = surface != nullptr;
}

// The finest level's operator from the faces' open shares: a_f toward a
// fluid neighbour, a_f on the diagonal toward any open one.
void PoissonSolver::share_faces(const FaceShares& shares, const Loops& loops) {
  Level& l = levels_[0];
  const std::vector<float>& u = *shares.u;
  const std::vector<float>& v = *shares.v;
  const int nx = l.nx, ny = l.ny, un = grid_nx_ + 1;
  loops.rows(l.ny, nx, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j)
      for (int i = 0; i < nx; ++i) {
        const int c = j * nx + i, gi = i + window_.i0, gj = j + window_.j0;
        l.west[c] = l.east[c] = l.south[c] = l.north[c] = 0.0f;
        float d = 0.0f;
        if (l.type[c] == kFluidCell) {
          auto link = [&](bool inside, int nb, float share, float* coefficient) {
            if (!inside || !open_cell(l.type[nb])) return;
            d += share;
            *coefficient = l.type[nb] == kFluidCell ? share : 0.0f;
          };
          link(i > 0, c - 1, u[gj * un + gi], &l.west[c]);
          link(i + 1 < nx, c + 1, u[gj * un + gi + 1], &l.east[c]);
          link(j > 0, c - nx, v[gj * grid_nx_ + gi], &l.south[c]);
          link(j + 1 < ny, c + nx, v[(gj + 1) * grid_nx_ + gi], &l.north[c]);
        }
        l.diag[c] = d;
        l.inv_diag[c] = d > 0.0f ? 1.0f / d : 0.0f;
      }
  });
  open_ = l.diag;
  shared_ = true;
  surface_ = false;
}

void PoissonSolver::set_rigid(const std::vector<RigidColumns>* bodies, float scale) {
  rigid_.clear();
  rigid_scale_ = scale;
  if (!bodies) return;
  const Level& l = levels_[0];
  for (const RigidColumns& b : *bodies) {
    RigidColumns local;
    local.inverse_mass = b.inverse_mass;
    local.inverse_inertia = b.inverse_inertia;
    for (size_t k = 0; k < b.cells.size(); ++k) {
      const int gi = b.cells[k] % grid_nx_, gj = b.cells[k] / grid_nx_;
      if (gi < window_.i0 || gi >= window_.i1 || gj < window_.j0 || gj >= window_.j1) continue;
      const int c = (gj - window_.j0) * l.nx + (gi - window_.i0);
      if (l.type[c] != kFluidCell) continue;
      local.cells.push_back(c);
      local.j.push_back(b.j[k]);
    }
    if (!local.cells.empty()) rigid_.push_back(std::move(local));
  }
}

glm::vec3 RigidColumns::gather(const std::vector<float>& p) const {
  double x = 0.0, y = 0.0, w = 0.0;
  for (size_t k = 0; k < cells.size(); ++k) {
    const double v = p[static_cast<size_t>(cells[k])];
    x += v * j[k].x;
    y += v * j[k].y;
    w += v * j[k].z;
  }
  return {static_cast<float>(x), static_cast<float>(y), static_cast<float>(w)};
}

// The levels are rebuilt in place: a liquid's cells change every step, and
// the vectors keep their storage from one build to the next.
void PoissonSolver::build_levels(int nx, int ny, const std::vector<uint8_t>& types, const Loops& loops) {
  size_t depth = 1;
  if (levels_.empty()) levels_.emplace_back();
  levels_[0].nx = nx;
  levels_[0].ny = ny;
  levels_[0].type.assign(types.begin(), types.end());
  // A coarse cell is air if any child is, else fluid if any child is, else solid.
  while (std::min(levels_[depth - 1].nx, levels_[depth - 1].ny) > kCoarsest) {
    if (levels_.size() == depth) levels_.emplace_back();
    const Level& f = levels_[depth - 1];
    Level& c = levels_[depth];
    c.nx = (f.nx + 1) / 2;
    c.ny = (f.ny + 1) / 2;
    c.type.assign(static_cast<size_t>(c.nx) * c.ny, kSolidCell);
    // By coarse rows: each reads its own two fine rows.
    loops.rows(c.ny, 4 * c.nx, [&](int J0, int J1) {
      for (int j = 2 * J0; j < std::min(f.ny, 2 * J1); ++j)
        for (int i = 0; i < f.nx; ++i) {
          uint8_t& t = c.type[(j / 2) * c.nx + i / 2];
          const uint8_t child = f.type[j * f.nx + i];
          if (child == kAirCell) t = kAirCell;
          else if (child == kFluidCell && t == kSolidCell) t = kFluidCell;
        }
    });
    ++depth;
  }
  levels_.resize(depth);
  for (Level& l : levels_) build_operator(&l, loops);
  for (size_t k = 0; k + 1 < levels_.size(); ++k) build_links(&levels_[k], levels_[k + 1], loops);
  // A coarse level's right-hand side, which the restriction writes whole;
  // the finest level's is v_cycle's argument.
  for (size_t k = 1; k < levels_.size(); ++k)
    levels_[k].b.resize(static_cast<size_t>(levels_[k].nx) * levels_[k].ny);
  levels_[0].b.clear();
  open_ = levels_[0].diag;
  surface_ = shared_ = false;
  const std::vector<uint8_t>& t = levels_[0].type;
  fluid_ = static_cast<int>(std::count(t.begin(), t.end(), kFluidCell));
  singular_ = std::find(t.begin(), t.end(), kAirCell) == t.end();
  const size_t n = t.size();
  for (auto* v : {&r_, &q_}) v->resize(n);  // each written whole before it is read
  d_.assign(n + 2 * static_cast<size_t>(levels_[0].pad()), 0.0f);
}

void PoissonSolver::build_operator(Level* level, const Loops& loops) {
  Level& l = *level;
  const int nx = l.nx, ny = l.ny;
  const size_t n = static_cast<size_t>(nx) * ny, padded = n + 2 * static_cast<size_t>(l.pad());
  for (auto* v : {&l.west, &l.east, &l.south, &l.north, &l.diag, &l.inv_diag}) {
    v->resize(n);
    loops.fill(v->data(), static_cast<int>(n), 0.0f);
  }
  for (auto* v : {&l.x, &l.r}) {
    v->resize(padded);
    loops.fill(v->data(), static_cast<int>(padded), 0.0f);
  }
  loops.rows(ny, nx, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j)
      for (int i = 0; i < nx; ++i) {
        const int c = j * nx + i;
        if (l.type[c] != kFluidCell) continue;
        float d = 0.0f;
        auto link = [&](bool inside, int nb, float* coefficient) {
          if (!inside || !open_cell(l.type[nb])) return;
          d += 1.0f;
          *coefficient = l.type[nb] == kFluidCell ? 1.0f : 0.0f;
        };
        link(i > 0, c - 1, &l.west[c]);
        link(i + 1 < nx, c + 1, &l.east[c]);
        link(j > 0, c - nx, &l.south[c]);
        link(j + 1 < ny, c + nx, &l.north[c]);
        l.diag[c] = d;
        l.inv_diag[c] = d > 0.0f ? 1.0f / d : 0.0f;
      }
  });
}

void PoissonSolver::build_links(Level* fine, const Level& coarse, const Loops& loops) {
  Level& f = *fine;
  const size_t n = static_cast<size_t>(f.nx) * f.ny;
  f.link_cell.resize(4 * n);
  f.link_weight.resize(4 * n);
  // A link left unused has weight 0 and the cell's parent: its (zero)
  // term then falls on a coarse cell whose rows always see the fine cell
  // (v_cycle's restriction).
  loops.rows(f.ny, f.nx, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j)
      for (int i = 0; i < f.nx; ++i) {
        const int c = j * f.nx + i;
        std::fill_n(&f.link_cell[4 * static_cast<size_t>(c)], 4, (j / 2) * coarse.nx + i / 2);
        std::fill_n(&f.link_weight[4 * static_cast<size_t>(c)], 4, 0.0f);
        if (f.type[c] != kFluidCell) continue;
        const Links k = links_of(i, j, coarse.nx, coarse.ny, coarse.type);
        for (int m = 0; m < k.count; ++m) {
          if (coarse.type[k.cell[m]] != kFluidCell) continue;  // air: its value is 0
          f.link_cell[4 * c + m] = k.cell[m];
          f.link_weight[4 * c + m] = k.weight[m];
        }
      }
  });
}

// y = A x over a level's cells (0 off the fluid); x padded.
void PoissonSolver::apply(const Level& l, const float* x_padded, float* y, const Loops& loops) {
  const int nx = l.nx;
  const float* x = x_padded + l.pad();
  loops.rows(l.ny, nx, [&](int j0, int j1) {
    const float *w = l.west.data(), *e = l.east.data(), *s = l.south.data(), *nn = l.north.data();
    const float* d = l.diag.data();
    for (int c = j0 * nx; c < j1 * nx; ++c)
      y[c] = d[c] * x[c] - (w[c] * x[c - 1] + e[c] * x[c + 1] + s[c] * x[c - nx] + nn[c] * x[c + nx]);
  });
}

void PoissonSolver::apply_top(const float* x_padded, float* y, const Loops& loops) {
  const Level& l = levels_[0];
  apply(l, x_padded, y, loops);
  const float* x = x_padded + l.pad();
  // In the bodies' order, serially: the sums do not depend on the threads.
  for (const RigidColumns& b : rigid_) {
    glm::dvec3 sum(0.0);
    for (size_t k = 0; k < b.cells.size(); ++k) sum += static_cast<double>(x[b.cells[k]]) * glm::dvec3(b.j[k]);
    const glm::vec3 m = rigid_scale_ * glm::vec3(static_cast<float>(sum.x) * b.inverse_mass,
                                                 static_cast<float>(sum.y) * b.inverse_mass,
                                                 static_cast<float>(sum.z) * b.inverse_inertia);
    for (size_t k = 0; k < b.cells.size(); ++k) y[b.cells[k]] += glm::dot(b.j[k], m);
  }
}

// One damped Jacobi sweep of A x = b on a level: x += w D^-1 (b - A x),
// in one pass that writes the new x into r's storage (padded alike, its
// pads 0, which no sweep writes) and then swaps the two: no caller reads r
// after a sweep (v_cycle computes its residual afresh). From x = 0 (the
// V-cycle's first sweep on a level) A x is 0 and x is not read: the sweep
// is 0 + w D^-1 b, the same values as the general sweep on a zeroed x.
void PoissonSolver::jacobi(Level* level, const float* b, bool from_zero, const Loops& loops) {
  Level& l = *level;
  const int nx = l.nx;
  const float* x = l.x.data() + l.pad();
  float* out = l.r.data() + l.pad();
  loops.rows(l.ny, nx, [&](int j0, int j1) {
    const float *w = l.west.data(), *e = l.east.data(), *s = l.south.data(), *nn = l.north.data();
    const float *d = l.diag.data(), *inv = l.inv_diag.data();
    if (from_zero) {
      for (int c = j0 * nx; c < j1 * nx; ++c) out[c] = 0.0f + kJacobiWeight * inv[c] * b[c];
      return;
    }
    for (int c = j0 * nx; c < j1 * nx; ++c) {
      const float ax = d[c] * x[c] - (w[c] * x[c - 1] + e[c] * x[c + 1] + s[c] * x[c - nx] + nn[c] * x[c + nx]);
      out[c] = x[c] + kJacobiWeight * inv[c] * (b[c] - ax);
    }
  });
  std::swap(l.x, l.r);
}

float PoissonSolver::residual(const std::vector<float>& b, const std::vector<float>& p, std::vector<float>* r,
                              const Loops& loops) {
  const Level& l = levels_[0];
  const int n = l.nx * l.ny, pad = l.pad();
  loops.copy(p.data(), n, d_.data() + pad);  // d_ is free here: A reads a padded vector
  apply_top(d_.data(), r->data(), loops);
  return static_cast<float>(loops.max_over(n, [&](int begin, int end) {
    float most = 0.0f;
    for (int c = begin; c < end; ++c) {
      (*r)[c] = l.type[c] == kFluidCell ? b[c] - (*r)[c] : 0.0f;
      most = std::max(most, std::fabs((*r)[c]));
    }
    return static_cast<double>(most);
  }));
}

void PoissonSolver::remove_mean(float* v) const {
  if (!singular_ || fluid_ == 0) return;
  const std::vector<uint8_t>& t = levels_[0].type;
  double sum = 0.0;
  for (size_t c = 0; c < t.size(); ++c)
    if (t[c] == kFluidCell) sum += v[c];
  const float mean = static_cast<float>(sum / fluid_);
  for (size_t c = 0; c < t.size(); ++c)
    if (t[c] == kFluidCell) v[c] -= mean;
}

// One V-cycle on levels_[level] for the right-hand side b (the level's
// own b but on the finest), from x = 0.
void PoissonSolver::v_cycle(int level, const float* b, const Loops& loops) {
  Level& l = *&levels_[level];
  const bool coarsest = level + 1 == static_cast<int>(levels_.size());
  for (int s = 0; s < (coarsest ? kCoarsestSweeps : kSmoothSweeps); ++s) jacobi(&l, b, s == 0, loops);
  if (coarsest) return;
  Level& c = levels_[level + 1];
  // Restriction: each fine residual scattered to its coarse cells.
  float* r = l.r.data() + l.pad();
  apply(l, l.x.data(), r, loops);
  // Only fluid cells carry a residual. By coarse rows: rows [J0, J1)
  // gather from the fine rows that link into them (fine row j reaches
  // coarse rows j / 2 - 1 to j / 2 + 1), in the fine cells' order, so each
  // coarse cell sums its terms in the same order for any split.
  loops.rows(c.ny, 4 * c.nx, [&](int J0, int J1) {
    const int lo = J0 * c.nx, hi = J1 * c.nx;
    std::fill(c.b.begin() + lo, c.b.begin() + hi, 0.0f);
    for (int f = std::max(0, 2 * J0 - 2) * l.nx; f < std::min(l.ny, 2 * J1 + 2) * l.nx; ++f) {
      if (l.type[f] != kFluidCell) continue;
      const float res = b[f] - r[f];
      for (int m = 0; m < 4; ++m) {
        const int k = l.link_cell[4 * f + m];
        const float w = l.link_weight[4 * f + m];
        if (k >= lo && k < hi) c.b[k] += w * res;
      }
    }
  });
  v_cycle(level + 1, c.b.data(), loops);
  // Prolongation: each fine cell gathers the coarse correction.
  const float* cx = c.x.data() + c.pad();
  float* x = l.x.data() + l.pad();
  loops.rows(l.ny, l.nx, [&](int j0, int j1) {
    for (int f = j0 * l.nx; f < j1 * l.nx; ++f) {
      const int* k = &l.link_cell[4 * static_cast<size_t>(f)];
      const float* w = &l.link_weight[4 * static_cast<size_t>(f)];
      x[f] += w[0] * cx[k[0]] + w[1] * cx[k[1]] + w[2] * cx[k[2]] + w[3] * cx[k[3]];
    }
  });
  for (int s = 0; s < kSmoothSweeps; ++s) jacobi(&l, b, false, loops);
}

// z = M^-1 r: the finest level's x after a V-cycle, valid until the next.
const float* PoissonSolver::precondition(const std::vector<float>& r, const Loops& loops) {
  v_cycle(0, r.data(), loops);
  float* z = levels_[0].x.data() + levels_[0].pad();
  remove_mean(z);
  return z;
}

PoissonResult PoissonSolver::solve(const std::vector<float>& b, std::vector<float>* p, float tolerance,
                                   int max_iterations, const Loops& loops) {
  gather_window(b, grid_nx_, window_, &b_, loops);
  gather_window(*p, grid_nx_, window_, &p_, loops);
  const PoissonResult result = solve_window(&p_, tolerance, max_iterations, loops);
  loops.rows(window_.ny(), window_.nx(), [&](int r0, int r1) {
    for (int j = window_.j0 + r0; j < window_.j0 + r1; ++j)
      std::copy(p_.begin() + (j - window_.j0) * window_.nx(), p_.begin() + (j - window_.j0 + 1) * window_.nx(),
                p->begin() + j * grid_nx_ + window_.i0);
  });
  return result;
}

// The solve on the window's vectors: b_ (its mean removed here where A is
// singular) and p.
PoissonResult PoissonSolver::solve_window(std::vector<float>* p, float tolerance, int max_iterations,
                                          const Loops& loops) {
  PoissonResult result;
  const Level& top = levels_[0];
  const int n = top.nx * top.ny;
  std::vector<float>& r = r_;
  std::vector<float>& b = b_;
  for (int c = 0; c < n; ++c)
    if (top.type[c] != kFluidCell) b[c] = 0.0f, (*p)[c] = 0.0f;
  remove_mean(b.data());
  float b_max = 0.0f;
  for (int c = 0; c < n; ++c) b_max = std::max(b_max, std::fabs(b[c]));
  if (b_max == 0.0f || fluid_ == 0) {
    std::fill(p->begin(), p->end(), 0.0f);
    return result;
  }
  auto dot = [&](const std::vector<float>& a, const float* c) {
    return loops.sum_over(n, [&](int begin, int end) {
      double s = 0.0;
      for (int k = begin; k < end; ++k) s += static_cast<double>(a[k]) * c[k];
      return s;
    });
  };
  float r_max = residual(b, *p, &r, loops);
  result.residual = r_max / b_max;
  if (result.residual <= tolerance) return result;
  const float* z = precondition(r, loops);
  // The search direction d, padded by a row and a cell at each end for A.
  float* const d = d_.data() + top.pad();
  loops.copy(z, n, d);
  double rz = dot(r, z);
  for (int it = 1; it <= max_iterations; ++it) {
    apply_top(d_.data(), q_.data(), loops);  // q = A d
    const double dq = loops.sum_over(n, [&](int begin, int end) {
      double s = 0.0;
      for (int k = begin; k < end; ++k) s += static_cast<double>(d[k]) * q_[k];
      return s;
    });
    if (!(dq > 0.0)) break;
    const float alpha = static_cast<float>(rz / dq);
    r_max = static_cast<float>(loops.max_over(n, [&](int begin, int end) {
      float most = 0.0f;
      for (int k = begin; k < end; ++k) {
        (*p)[k] += alpha * d[k];
        r[k] -= alpha * q_[k];
        most = std::max(most, std::fabs(r[k]));
      }
      return static_cast<double>(most);
    }));
    result.iterations = it;
    result.residual = r_max / b_max;
    if (result.residual <= tolerance) break;
    z = precondition(r, loops);
    const double rz_next = dot(r, z);
    const float beta = static_cast<float>(rz_next / rz);
    rz = rz_next;
    loops.parallel(
        n, [&](int begin, int end) {
          for (int k = begin; k < end; ++k) d[k] = z[k] + beta * d[k];
        },
        1);
  }
  remove_mean(p->data());
  return result;
}

}  // namespace tidepool
