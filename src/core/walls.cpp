// The boundary density map (both SPH solvers).
//
// A wall stands for the rows of boundary
// particles of Akinci et al. 2012 behind it, at depths (k + 1/2) spacing,
// each row taken as continuous along the wall. For a particle at distance d
// from the wall
//   rho_b(d)      = rho0 Phi(d),  Phi(d) = s sum_k L(d + (k + 1/2) s)
//   grad rho_b(d) = rho0 G(d) n,  G(d)   = s sum_k L'(d + (k + 1/2) s)
// where L(t) is the line integral of W at distance t, s the spacing and n
// the wall normal into the fluid (a 1D density map in the spirit of Koschier
// & Bender 2017, tabulated once per h and spacing). A particle of a resting
// lattice at s/2 from a wall then sees the density of its mirror image to
// within 0.1 %, where the continuous half-plane would be 3.5 % too dense.
// The same rows give the wall's share of the viscosity Laplacian,
// Psi(d) = s sum_k integral of lap W_visc, for no-slip walls.
// Circles and capsules use the same tables with their signed distance.
// Where two of the box's walls meet, each wall's rows run on behind the
// other, so the quadrant behind both would count twice: a table of that
// quadrant's share Q(a, b), for distances a and b to the two walls, takes
// it off once (the mean of the two walls' versions of it, so that Q is
// symmetric).
#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "boundary.h"
#include "simd.h"
#include "tidepool/kernels.h"

namespace tidepool {
namespace {

constexpr int kWallSamples = 256;

}  // namespace

// L(t) = 2 int_0^sqrt(h^2-t^2) W(sqrt(x^2+t^2)) dx and
// L'(t) = 2 int_0^sqrt(h^2-t^2) W'(r) t / r dx, by Simpson's rule, then
// summed over the boundary rows at d = h k / (kWallSamples - 1).
void Walls::build(const Params& params, DensityKernel density_kernel) {
  const MullerKernels M(params.h);
  const CubicKernel C(params.h);
  const bool cubic = density_kernel == DensityKernel::Cubic;
  auto kernel = [&](float r) { return cubic ? C.value(r) : M.poly6(r * r); };
  auto kernel_grad = [&](float r) { return cubic ? C.grad(r) : M.poly6_grad(r * r); };
  const double h = params.h;
  const double s = std::sqrt(static_cast<double>(params.mass) / params.rest_density);
  auto line = [&](double t, double* value, double* slope, double* lap) {
    *value = *slope = *lap = 0.0;
    if (t >= h) return;
    const double half = std::sqrt(h * h - t * t);
    const int steps = 128;  // even, for Simpson
    for (int k = 0; k <= steps; ++k) {
      const double x = half * k / steps;
      const double r = std::sqrt(x * x + t * t);
      const double wgt = (k == 0 || k == steps ? 1.0 : (k % 2 ? 4.0 : 2.0)) * half / (3.0 * steps);
      *value += 2.0 * wgt * kernel(static_cast<float>(r));
      // W'(r) t / r = grad(r) * t, with grad() = W'(r) / r.
      if (r > 0.0) *slope += 2.0 * wgt * kernel_grad(static_cast<float>(r)) * t;
      *lap += 2.0 * wgt * M.viscosity_laplacian(static_cast<float>(r));
    }
  };
  build_corner(h, s, kernel, [&](float r) { return M.viscosity_laplacian(r); });
  phi_.assign(kWallSamples, 0.0f);
  line_.assign(kWallSamples, 0.0f);
  visc_.assign(kWallSamples, 0.0f);
  for (int k = 0; k < kWallSamples; ++k) {
    const double d = h * k / (kWallSamples - 1);
    double phi = 0.0, grad = 0.0, lap = 0.0;
    for (double depth = d + 0.5 * s; depth < h; depth += s) {
      double v, sl, lp;
      line(depth, &v, &sl, &lp);
      phi += s * v;
      grad += s * sl;
      lap += s * lp;
    }
    phi_[k] = static_cast<float>(phi);
    line_[k] = static_cast<float>(grad);  // dPhi/dd, <= 0
    visc_[k] = static_cast<float>(lap);   // Psi(d) = sum_b V_b lap W_visc
  }
}

// q(a, b): the rows of a wall at distance b, (k + 1/2) s deep, over the
// part of their length that lies behind a second wall at distance a (t >= a
// along the row), by Simpson's rule; Q = (q(a, b) + q(b, a)) / 2, with its
// viscosity share likewise, and its derivatives by central differences.
template <class Kernel, class Lap>
void Walls::build_corner(double h, double s, const Kernel& kernel, const Lap& lap) {
  auto q = [&](double a, double b, double* value, double* visc) {
    *value = *visc = 0.0;
    for (double depth = b + 0.5 * s; depth < h; depth += s) {
      const double end = std::sqrt(h * h - depth * depth);
      if (a >= end) continue;
      const int steps = 64;  // even, for Simpson
      for (int k = 0; k <= steps; ++k) {
        const double t = a + (end - a) * k / steps;
        const double r = std::sqrt(t * t + depth * depth);
        const double wgt = (k == 0 || k == steps ? 1.0 : (k % 2 ? 4.0 : 2.0)) * (end - a) / (3.0 * steps);
        *value += s * wgt * kernel(static_cast<float>(r));
        *visc += s * wgt * lap(static_cast<float>(r));
      }
    }
  };
  const int n = kCornerSamples;
  corner_.assign(static_cast<size_t>(n) * n, 0.0f);
  corner_visc_.assign(static_cast<size_t>(n) * n, 0.0f);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const double a = h * i / (n - 1), b = h * j / (n - 1);
      double v1, l1, v2, l2;
      q(a, b, &v1, &l1);
      q(b, a, &v2, &l2);
      corner_[j * n + i] = static_cast<float>(0.5 * (v1 + v2));
      corner_visc_[j * n + i] = static_cast<float>(0.5 * (l1 + l2));
    }
  corner_da_.assign(corner_.size(), 0.0f);
  corner_db_.assign(corner_.size(), 0.0f);
  const float step = static_cast<float>(h / (n - 1));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const int i0 = std::max(i - 1, 0), i1 = std::min(i + 1, n - 1), j0 = std::max(j - 1, 0), j1 = std::min(j + 1, n - 1);
      corner_da_[j * n + i] = (corner_[j * n + i1] - corner_[j * n + i0]) / (float(i1 - i0) * step);
      corner_db_[j * n + i] = (corner_[j1 * n + i] - corner_[j0 * n + i]) / (float(j1 - j0) * step);
    }
}

// The corner's quadrant at distances (a, b) from two walls with inward
// normals na, nb, taken off: its density, gradient and viscosity sum.
void Walls::subtract_corner(float a, float b, glm::vec2 na, glm::vec2 nb, float h, float* r, float* ax, float* ay,
                            float* visc) const {
  if (a >= h || b >= h) return;
  const int n = kCornerSamples;
  const float scale = float(n - 1) / h;
  const float fa = std::max(a, 0.0f) * scale, fb = std::max(b, 0.0f) * scale;
  const int i = std::min(static_cast<int>(fa), n - 2), j = std::min(static_cast<int>(fb), n - 2);
  const float ta = fa - float(i), tb = fb - float(j);
  auto at = [&](const std::vector<float>& t) {
    const float* r0 = t.data() + j * n + i;
    const float* r1 = r0 + n;
    return (1.0f - tb) * ((1.0f - ta) * r0[0] + ta * r0[1]) + tb * ((1.0f - ta) * r1[0] + ta * r1[1]);
  };
  *r -= at(corner_);
  *visc -= at(corner_visc_);
  const float da = at(corner_da_), db = at(corner_db_);  // <= 0: the quadrant thins with distance
  *ax -= da * na.x + db * nb.x;
  *ay -= da * na.y + db * nb.y;
}

Walls::Sample Walls::sample(float d, float h) const {
  const float u = std::max(d, 0.0f) * ((kWallSamples - 1) / h);
  const int k = std::min(static_cast<int>(u), kWallSamples - 2);
  const float f = u - static_cast<float>(k);
  return {phi_[k] + f * (phi_[k + 1] - phi_[k]), line_[k] + f * (line_[k + 1] - line_[k]),
          visc_[k] + f * (visc_[k + 1] - visc_[k])};
}

bool Walls::density(float x, float y, const Params& params, const Box& box,
                    const std::vector<Obstacle>& obstacles, float* rho, float* gx, float* gy,
                    float* lap, float* moving) const {
  const float h = params.h, rho0 = params.rest_density;
  float r = 0.0f, ax = 0.0f, ay = 0.0f, visc = 0.0f, vg = 0.0f;
  // Adds the half-plane at distance d with inward normal (nx, ny); returns
  // its gradient's factor along the normal.
  auto add = [&](float d, float nx, float ny) {
    if (!(d < h)) return 0.0f;  // beyond h, or not a number
    const Sample w = sample(d, h);
    r += w.phi;
    visc += w.visc;
    ax += w.slope * nx;  // slope < 0: the gradient points into the wall
    ay += w.slope * ny;
    return w.slope;
  };
  const float left = x - box.min.x, right = box.max.x - x, bottom = y - box.min.y, top = box.max.y - y;
  add(left, 1.0f, 0.0f);
  add(right, -1.0f, 0.0f);
  add(bottom, 0.0f, 1.0f);
  add(top, 0.0f, -1.0f);
  const glm::vec2 nl(1.0f, 0.0f), nr(-1.0f, 0.0f), nb(0.0f, 1.0f), nt(0.0f, -1.0f);
  subtract_corner(left, bottom, nl, nb, h, &r, &ax, &ay, &visc);
  subtract_corner(right, bottom, nr, nb, h, &r, &ax, &ay, &visc);
  subtract_corner(left, top, nl, nt, h, &r, &ax, &ay, &visc);
  subtract_corner(right, top, nr, nt, h, &r, &ax, &ay, &visc);
  bool near_obstacle = false;
  for (const Obstacle& o : obstacles) {
    glm::vec2 n;
    const glm::vec2 at(x, y);
    const float d = obstacle_distance(o, at, &n);
    near_obstacle = near_obstacle || d < h;
    const float slope = add(d, n.x, n.y);
    if (o.body >= 0) vg += slope * glm::dot(o.velocity_at(at), n);
  }
  *rho = rho0 * r;
  *gx = rho0 * ax;
  *gy = rho0 * ay;
  *lap = rho0 * visc;
  if (moving) *moving = rho0 * vg;
  return near_obstacle;
}

glm::vec2 Walls::gradient(const Obstacle& o, glm::vec2 at, const Params& params) const {
  glm::vec2 n;
  const float d = obstacle_distance(o, at, &n);
  if (!(d < params.h)) return glm::vec2(0.0f);
  return params.rest_density * sample(d, params.h).slope * n;
}
}  // namespace tidepool
