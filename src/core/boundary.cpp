// Container and obstacles: collisions and the boundary density map.
//
// Collisions (Müller 2003 sec. 3.6 reflects; seed 000 mirrors the position,
// seed 002 projects it): a particle found inside a wall or obstacle goes back
// to the surface plus `restitution` times its penetration (0 = projection,
// 1 = mirror), its normal velocity is reversed and scaled by `restitution`,
// and its tangential velocity loses the fraction `friction`.
//
// Boundary density (both solvers): a wall stands for the rows of boundary
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
#include <limits>

#include "boundary.h"
#include "simd.h"
#include "state.h"
#include "tidepool/kernels.h"

namespace tidepool {
namespace {

constexpr int kWallSamples = 256;

float cross(glm::vec2 a, glm::vec2 b) { return a.x * b.y - a.y * b.x; }

// A convex polygon's signed distance: inside, the nearest side's (the
// largest of the distances to the sides' lines, all negative); outside,
// the distance to the nearest point of the outline.
float polygon_distance(const Obstacle& o, glm::vec2 p, glm::vec2* normal) {
  float inside = -std::numeric_limits<float>::infinity(), outside = std::numeric_limits<float>::infinity();
  glm::vec2 side_normal(0.0f, 1.0f), nearest = o.points[0];
  for (int k = 0; k < o.count; ++k) {
    const glm::vec2 a = o.points[k], b = o.points[k + 1 < o.count ? k + 1 : 0];
    const glm::vec2 ab = b - a;
    const float len = std::sqrt(ab.x * ab.x + ab.y * ab.y);
    const glm::vec2 n(ab.y / len, -ab.x / len);  // outward: the corners run counter-clockwise
    const float line = glm::dot(p - a, n);
    if (line > inside) {
      inside = line;
      side_normal = n;
    }
    const glm::vec2 c = closest_on_segment(p, a, b);
    const glm::vec2 pc = p - c;
    const float dist = pc.x * pc.x + pc.y * pc.y;
    if (dist < outside) {
      outside = dist;
      nearest = c;
    }
  }
  if (inside <= 0.0f) {
    *normal = side_normal;
    return inside;
  }
  const glm::vec2 d = p - nearest;
  const float len = std::sqrt(d.x * d.x + d.y * d.y);
  *normal = len > 0.0f ? d / len : side_normal;
  return len;
}

}  // namespace

float obstacle_distance(const Obstacle& o, glm::vec2 p, glm::vec2* normal) {
  if (o.kind == Obstacle::Kind::Polygon) return polygon_distance(o, p, normal);
  const glm::vec2 c = o.kind == Obstacle::Kind::Circle ? o.a : closest_on_segment(p, o.a, o.b);
  glm::vec2 d = p - c;
  float len = std::sqrt(d.x * d.x + d.y * d.y);
  if (len < 1e-12f) {
    // On the axis: any normal will do; pick the segment's left normal.
    const glm::vec2 ab = o.b - o.a;
    const float l = std::sqrt(ab.x * ab.x + ab.y * ab.y);
    d = l > 0.0f ? glm::vec2(-ab.y / l, ab.x / l) : glm::vec2(0.0f, 1.0f);
    len = 0.0f;
  } else {
    d /= len;
  }
  *normal = d;
  return len - o.radius;
}

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

// A particle stands for a square of fluid one spacing wide, so its centre
// keeps half a spacing from every surface: that is where a resting lattice
// sits against the boundary rows of the density map (header). Projected
// onto the wall itself, a particle reads as compressed by the nearest
// boundary row, and the pressure that builds up squirts it and its
// neighbours along the wall in bursts, where a resting column should rest.
float contact_radius(float spacing) { return 0.5f * spacing; }

Box contact_box(const Box& box, float radius) {
  Box b = box;
  b.min += glm::vec2(radius);
  b.max -= glm::vec2(radius);
  if (b.min.x > b.max.x) b.min.x = b.max.x = 0.5f * (box.min.x + box.max.x);
  if (b.min.y > b.max.y) b.min.y = b.max.y = 0.5f * (box.min.y + box.max.y);
  return b;
}

bool push_out(const Obstacle& o, glm::vec2 prev, float radius, float e, bool own_path, glm::vec2* pos,
              glm::vec2* normal) {
  // A polygon farther than its reach and the radius cannot touch: most
  // particles pass a body by this test alone, not its edges'.
  if (o.kind == Obstacle::Kind::Polygon && o.reach > 0.0f) {
    const glm::vec2 d = *pos - o.a;
    const float most = o.reach + radius;
    if (d.x * d.x + d.y * d.y > most * most) return false;
  }
  glm::vec2 nrm;
  float d = obstacle_distance(o, *pos, &nrm);
  if (own_path && o.kind == Obstacle::Kind::Capsule) {
    // A fast particle may cross a thin capsule in one step: if its path
    // crosses the core segment, it belongs on the side it came from.
    const glm::vec2 ab = o.b - o.a;
    const float s0 = cross(ab, prev - o.a), s1 = cross(ab, *pos - o.a);
    if ((s0 > 0.0f) != (s1 > 0.0f) && s0 != 0.0f) {
      const glm::vec2 path = *pos - prev;
      const float denom = cross(path, ab);
      if (denom != 0.0f) {
        const float t = cross(o.a - prev, ab) / denom;
        const float u = cross(o.a - prev, path) / denom;
        if (t >= 0.0f && t <= 1.0f && u >= 0.0f && u <= 1.0f) {
          const float l = std::sqrt(ab.x * ab.x + ab.y * ab.y);
          nrm = glm::vec2(-ab.y, ab.x) / l;
          if (s0 < 0.0f) nrm = -nrm;
          *pos = o.a + u * ab;  // on the axis, pushed out below
          d = -o.radius;
        }
      }
    }
  }
  if (d >= radius) return false;
  *pos += (1.0f + e) * (radius - d) * nrm;
  *normal = nrm;
  return true;
}

void slide_along_wall(const Obstacle& o, const Box& b, float radius, glm::vec2* pos) {
  glm::vec2 at(std::min(std::max(pos->x, b.min.x), b.max.x), std::min(std::max(pos->y, b.min.y), b.max.y));
  glm::vec2 normal;
  if (obstacle_distance(o, at, &normal) >= radius) {
    *pos = at;
    return;
  }
  // Along the wall the push crossed: x along a floor or ceiling, y along a
  // side; past a corner, either.
  const bool crossed[2] = {pos->y < b.min.y || pos->y > b.max.y, pos->x < b.min.x || pos->x > b.max.x};
  for (const int along : {0, 1}) {
    if (!crossed[along]) continue;
    const float lo = b.min[along], hi = b.max[along];
    const float first = normal[along] >= 0.0f ? 1.0f : -1.0f;
    for (const float dir : {first, -first}) {
      glm::vec2 out = at;
      out[along] = dir > 0.0f ? hi : lo;
      glm::vec2 unused;
      if (obstacle_distance(o, out, &unused) < radius) continue;
      // Bisection between `at` (inside) and `out` (outside), to float precision.
      glm::vec2 in = at;
      for (int k = 0; k < 32; ++k) {
        glm::vec2 mid = in;
        mid[along] = 0.5f * (in[along] + out[along]);
        if (mid[along] == in[along] || mid[along] == out[along]) break;
        (obstacle_distance(o, mid, &unused) < radius ? in : out) = mid;
      }
      *pos = out;
      return;
    }
  }
  *pos = at;
}

namespace {

// Reflects velocity v about a surface with unit normal (nx, ny), into the
// fluid, when `on` and v points out of it: the normal part reversed and
// scaled by the restitution e, the tangential part kept by keep_t =
// 1 - friction. Written with selects, so that the wall loop vectorises.
struct Reflect {
  float e, keep_t;
  void operator()(bool on, float nx, float ny, float& vx, float& vy) const {
    const float vn = vx * nx + vy * ny;
    const float tx = vx - vn * nx, ty = vy - vn * ny;
    const float en = e * vn;
    const bool flip = on && vn < 0.0f;
    vx = flip ? keep_t * tx - en * nx : vx;
    vy = flip ? keep_t * ty - en * ny : vy;
  }
};

// The container's walls for particles [begin, end): every particle of a
// block goes through the same selects, in a loop the compiler vectorises,
// which costs fewer instructions than branches would, though few particles
// touch a wall. With kHalf, the leapfrog's half-step velocities (hx, hy)
// follow each reflection. Only the blocks with a particle outside the box
// run it: the sorted particles that cross a wall lie together (the bottom
// rows, the ends of rows), so most blocks have none.
template <bool kHalf>
void keep_in_box(Particles& p, float* const hx, float* const hy, const Box& b, float e,
                 const Reflect& reflect, int begin, int end) {
  // Local copies, as the loop's stores could alias the captured values.
  float *px = p.x.data(), *py = p.y.data(), *pvx = p.vx.data(), *pvy = p.vy.data();
  const float x0 = b.min.x, x1 = b.max.x, y0 = b.min.y, y1 = b.max.y;
  const float rest = e;
  const Reflect reflect_v = reflect;
  constexpr int kBlock = 32;
  for (int block = begin; block < end; block += kBlock) {
    const int block_end = std::min(end, block + kBlock);
    int outside = 0;
    for (int i = block; i < block_end; ++i)
      outside |= (px[i] < x0) | (px[i] > x1) | (py[i] < y0) | (py[i] > y1);
    if (!outside) continue;
    TIDEPOOL_IVDEP
    for (int i = block; i < block_end; ++i) {
      float x = px[i], y = py[i], vx = pvx[i], vy = pvy[i];
      const bool left = x < x0, right = !left && x > x1;
      x = keep_inside(x, x0, x1, rest);
      reflect_v(left || right, left ? 1.0f : -1.0f, 0.0f, vx, vy);
      const bool bottom = y < y0, top = !bottom && y > y1;
      y = keep_inside(y, y0, y1, rest);
      reflect_v(bottom || top, 0.0f, bottom ? 1.0f : -1.0f, vx, vy);
      px[i] = x;
      py[i] = y;
      pvx[i] = vx;
      pvy[i] = vy;
      if constexpr (kHalf) {
        // Read up front and stored back: `h[i] = reset ? v : h[i]` is a
        // conditional store to Clang, which then does not vectorise the
        // loop for wasm.
        const float hxi = hx[i], hyi = hy[i];
        const bool reset = left || right || bottom || top;
        hx[i] = reset ? vx : hxi;
        hy[i] = reset ? vy : hyi;
      }
    }
  }
}

}  // namespace

void collide(WorldState& s) {
  Particles& p = s.particles;
  const int n = p.size();
  const float e = s.params.restitution;
  const Reflect reflect{e, 1.0f - s.params.friction};
  const Carried carried = s.solver->carried();
  const bool leapfrog = carried.half_vx != nullptr;
  float* const half_x = leapfrog ? carried.half_vx->data() : nullptr;
  float* const half_y = leapfrog ? carried.half_vy->data() : nullptr;
  const float radius = contact_radius(s.spacing());
  const Box b = contact_box(s.box, radius);
  const bool any_obstacles = !s.solids.empty();
  const bool bodies = !s.bodies.empty();
  if (bodies) {
    s.body_hit.assign(static_cast<size_t>(n), -1);
    s.hit_nx.assign(static_cast<size_t>(n), 0.0f);
    s.hit_ny.assign(static_cast<size_t>(n), 0.0f);
  }
  s.loops.parallel(n, [&](int begin, int end) {
    // The container first; then the obstacles, which slide a particle along
    // a wall rather than push it through one, so neither leaves a particle
    // in the other.
    if (leapfrog) keep_in_box<true>(p, half_x, half_y, b, e, reflect, begin, end);
    else keep_in_box<false>(p, nullptr, nullptr, b, e, reflect, begin, end);
    for (int i = begin; any_obstacles && i < end; ++i) {
      glm::vec2 pos(p.x[i], p.y[i]);
      const glm::vec2 prev(p.x_prev[i], p.y_prev[i]);
      const bool hit = leave_obstacles(s.solids, b, prev, radius, e, &pos, [&](const Obstacle& o, glm::vec2 normal) {
        if (o.body < 0) {
          reflect(true, normal.x, normal.y, p.vx[i], p.vy[i]);
          return;
        }
        // A body's contact trades momentum with it (body_contacts()).
        s.body_hit[i] = o.body;
        s.hit_nx[i] = normal.x;
        s.hit_ny[i] = normal.y;
      });
      if (hit && leapfrog) {  // seed 000 resets both half-step velocities too
        half_x[i] = p.vx[i];
        half_y[i] = p.vy[i];
      }
      p.x[i] = pos.x;
      p.y[i] = pos.y;
    }
  });
}

void obstacle_bounds(const Obstacle& o, glm::vec2* lo, glm::vec2* hi) {
  if (o.kind == Obstacle::Kind::Polygon) {
    *lo = *hi = o.points[0];
    for (int k = 1; k < o.count; ++k) {
      *lo = glm::min(*lo, o.points[k]);
      *hi = glm::max(*hi, o.points[k]);
    }
    return;
  }
  *lo = glm::min(o.a, o.b) - o.radius;
  *hi = glm::max(o.a, o.b) + o.radius;
}

int add_obstacle(std::vector<Obstacle>& obstacles, Obstacle o, int* next_id) {
  if (!finite2(o.a) || !finite2(o.b) || !std::isfinite(o.radius) || o.radius <= 0.0f) return -1;
  o.id = (*next_id)++;
  obstacles.push_back(o);
  return o.id;
}

}  // namespace tidepool
