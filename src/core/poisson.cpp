#include "poisson.h"

#include <algorithm>
#include <cmath>

namespace tidepool {
namespace {

constexpr float kJacobiWeight = 2.0f / 3.0f;  // damped Jacobi: smooths every high frequency
constexpr int kSmoothSweeps = 2;              // before and after the coarse correction
constexpr int kCoarsestSweeps = 40;
constexpr int kCoarsest = 4;                  // cells along a side at which coarsening stops

bool open_cell(uint8_t t) { return t != kSolidCell; }

// The 5-point Laplacian in cell units at fluid cell (i, j): x_c times the
// open neighbours, minus the fluid neighbours' x (air is 0).
template <class X>
inline float laplacian_at(const uint8_t* type, const X* x, int nx, int ny, int i, int j, float* diag) {
  const int c = j * nx + i;
  float sum = 0.0f, d = 0.0f;
  auto add = [&](int n) {
    if (!open_cell(type[n])) return;
    d += 1.0f;
    if (type[n] == kFluidCell) sum += x[n];
  };
  if (i > 0) add(c - 1);
  if (i + 1 < nx) add(c + 1);
  if (j > 0) add(c - nx);
  if (j + 1 < ny) add(c + nx);
  *diag = d;
  return d * x[c] - sum;
}

// One damped Jacobi sweep of A x = b on a level: x += w D^-1 (b - A x),
// through r (the residual of the old x).
void jacobi(int nx, int ny, const std::vector<uint8_t>& type, const std::vector<float>& b, std::vector<float>* x,
            std::vector<float>* r, const Loops& loops) {
  loops.parallel(ny, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j)
      for (int i = 0; i < nx; ++i) {
        const int c = j * nx + i;
        float d = 0.0f;
        (*r)[c] = type[c] == kFluidCell ? b[c] - laplacian_at(type.data(), x->data(), nx, ny, i, j, &d) : 0.0f;
        if (type[c] == kFluidCell) (*r)[c] = d > 0.0f ? (*r)[c] / d : 0.0f;
      }
  });
  loops.parallel(ny, [&](int j0, int j1) {
    for (int c = j0 * nx; c < j1 * nx; ++c) (*x)[c] += kJacobiWeight * (*r)[c];
  });
}

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

void PoissonSolver::set_cells(int nx, int ny, const std::vector<uint8_t>& types) {
  if (!levels_.empty() && levels_[0].nx == nx && levels_[0].ny == ny && levels_[0].type == types) return;
  levels_.clear();
  Level fine;
  fine.nx = nx;
  fine.ny = ny;
  fine.type = types;
  levels_.push_back(std::move(fine));
  // A coarse cell is air if any child is, else fluid if any child is, else solid.
  while (std::min(levels_.back().nx, levels_.back().ny) > kCoarsest) {
    const Level& f = levels_.back();
    Level c;
    c.nx = (f.nx + 1) / 2;
    c.ny = (f.ny + 1) / 2;
    c.type.assign(static_cast<size_t>(c.nx) * c.ny, kSolidCell);
    for (int j = 0; j < f.ny; ++j)
      for (int i = 0; i < f.nx; ++i) {
        uint8_t& t = c.type[(j / 2) * c.nx + i / 2];
        const uint8_t child = f.type[j * f.nx + i];
        if (child == kAirCell) t = kAirCell;
        else if (child == kFluidCell && t == kSolidCell) t = kFluidCell;
      }
    levels_.push_back(std::move(c));
  }
  for (Level& l : levels_) {
    const size_t n = static_cast<size_t>(l.nx) * l.ny;
    l.x.assign(n, 0.0f);
    l.b.assign(n, 0.0f);
    l.r.assign(n, 0.0f);
  }
  const std::vector<uint8_t>& t = levels_[0].type;
  fluid_ = static_cast<int>(std::count(t.begin(), t.end(), kFluidCell));
  singular_ = std::find(t.begin(), t.end(), kAirCell) == t.end();
  const size_t n = t.size();
  for (auto* v : {&r_, &z_, &d_, &q_}) v->assign(n, 0.0f);
}

float PoissonSolver::residual(const std::vector<float>& b, const std::vector<float>& p, std::vector<float>* r,
                              const Loops& loops) const {
  const Level& l = levels_[0];
  const int nx = l.nx, ny = l.ny;
  return static_cast<float>(loops.max_over(ny, [&](int j0, int j1) {
    float most = 0.0f;
    for (int j = j0; j < j1; ++j)
      for (int i = 0; i < nx; ++i) {
        const int c = j * nx + i;
        float d;
        (*r)[c] = l.type[c] == kFluidCell ? b[c] - laplacian_at(l.type.data(), p.data(), nx, ny, i, j, &d) : 0.0f;
        most = std::max(most, std::fabs((*r)[c]));
      }
    return static_cast<double>(most);
  }));
}

void PoissonSolver::remove_mean(std::vector<float>* v) const {
  if (!singular_ || fluid_ == 0) return;
  const std::vector<uint8_t>& t = levels_[0].type;
  double sum = 0.0;
  for (size_t c = 0; c < v->size(); ++c)
    if (t[c] == kFluidCell) sum += (*v)[c];
  const float mean = static_cast<float>(sum / fluid_);
  for (size_t c = 0; c < v->size(); ++c)
    if (t[c] == kFluidCell) (*v)[c] -= mean;
}

// One V-cycle on levels_[level] for its b, from x = 0.
void PoissonSolver::v_cycle(int level, const Loops& loops) {
  Level& l = levels_[level];
  std::fill(l.x.begin(), l.x.end(), 0.0f);
  const bool coarsest = level + 1 == static_cast<int>(levels_.size());
  for (int s = 0; s < (coarsest ? kCoarsestSweeps : kSmoothSweeps); ++s) jacobi(l.nx, l.ny, l.type, l.b, &l.x, &l.r, loops);
  if (coarsest) return;
  Level& c = levels_[level + 1];
  // Restriction: each fine residual scattered to its coarse cells.
  float d;
  for (int j = 0; j < l.ny; ++j)
    for (int i = 0; i < l.nx; ++i) {
      const int f = j * l.nx + i;
      l.r[f] = l.type[f] == kFluidCell ? l.b[f] - laplacian_at(l.type.data(), l.x.data(), l.nx, l.ny, i, j, &d) : 0.0f;
    }
  std::fill(c.b.begin(), c.b.end(), 0.0f);
  for (int j = 0; j < l.ny; ++j)
    for (int i = 0; i < l.nx; ++i) {
      const int f = j * l.nx + i;
      if (l.type[f] != kFluidCell) continue;
      const Links k = links_of(i, j, c.nx, c.ny, c.type);
      for (int m = 0; m < k.count; ++m)
        if (c.type[k.cell[m]] == kFluidCell) c.b[k.cell[m]] += k.weight[m] * l.r[f];
    }
  v_cycle(level + 1, loops);
  // Prolongation: each fine cell gathers the coarse correction.
  loops.parallel(l.ny, [&](int j0, int j1) {
    for (int j = j0; j < j1; ++j)
      for (int i = 0; i < l.nx; ++i) {
        const int f = j * l.nx + i;
        if (l.type[f] != kFluidCell) continue;
        const Links k = links_of(i, j, c.nx, c.ny, c.type);
        float e = 0.0f;
        for (int m = 0; m < k.count; ++m)
          if (c.type[k.cell[m]] == kFluidCell) e += k.weight[m] * c.x[k.cell[m]];
        l.x[f] += e;
      }
  });
  for (int s = 0; s < kSmoothSweeps; ++s) jacobi(l.nx, l.ny, l.type, l.b, &l.x, &l.r, loops);
}

void PoissonSolver::precondition(const std::vector<float>& r, std::vector<float>* z, const Loops& loops) {
  levels_[0].b = r;
  v_cycle(0, loops);
  *z = levels_[0].x;
  remove_mean(z);
}

PoissonResult PoissonSolver::solve(const std::vector<float>& b_in, std::vector<float>* p, float tolerance,
                                   int max_iterations, const Loops& loops) {
  PoissonResult result;
  const Level& top = levels_[0];
  const int n = top.nx * top.ny;
  std::vector<float>& r = r_;
  std::vector<float> b = b_in;  // its mean removed where A is singular
  for (int c = 0; c < n; ++c)
    if (top.type[c] != kFluidCell) b[c] = 0.0f, (*p)[c] = 0.0f;
  remove_mean(&b);
  float b_max = 0.0f;
  for (int c = 0; c < n; ++c) b_max = std::max(b_max, std::fabs(b[c]));
  if (b_max == 0.0f || fluid_ == 0) {
    std::fill(p->begin(), p->end(), 0.0f);
    return result;
  }
  auto dot = [&](const std::vector<float>& a, const std::vector<float>& c) {
    return loops.sum_over(n, [&](int begin, int end) {
      double s = 0.0;
      for (int k = begin; k < end; ++k) s += static_cast<double>(a[k]) * c[k];
      return s;
    });
  };
  float r_max = residual(b, *p, &r, loops);
  result.residual = r_max / b_max;
  if (result.residual <= tolerance) return result;
  precondition(r, &z_, loops);
  d_ = z_;
  double rz = dot(r, z_);
  for (int it = 1; it <= max_iterations; ++it) {
    // q = A d
    loops.parallel(top.ny, [&](int j0, int j1) {
      float diag;
      for (int j = j0; j < j1; ++j)
        for (int i = 0; i < top.nx; ++i) {
          const int c = j * top.nx + i;
          q_[c] = top.type[c] == kFluidCell ? laplacian_at(top.type.data(), d_.data(), top.nx, top.ny, i, j, &diag) : 0.0f;
        }
    });
    const double dq = dot(d_, q_);
    if (!(dq > 0.0)) break;
    const float alpha = static_cast<float>(rz / dq);
    r_max = static_cast<float>(loops.max_over(n, [&](int begin, int end) {
      float most = 0.0f;
      for (int k = begin; k < end; ++k) {
        (*p)[k] += alpha * d_[k];
        r[k] -= alpha * q_[k];
        most = std::max(most, std::fabs(r[k]));
      }
      return static_cast<double>(most);
    }));
    result.iterations = it;
    result.residual = r_max / b_max;
    if (result.residual <= tolerance) break;
    precondition(r, &z_, loops);
    const double rz_next = dot(r, z_);
    const float beta = static_cast<float>(rz_next / rz);
    rz = rz_next;
    loops.parallel(n, [&](int begin, int end) {
      for (int k = begin; k < end; ++k) d_[k] = z_[k] + beta * d_[k];
    });
  }
  remove_mean(p);
  return result;
}

}  // namespace tidepool
