// Container, obstacles, emitters, sinks, and the boundary density map.
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
// Circles and capsules use the same tables with their signed distance;
// corners of the box count their diagonal quadrant twice (about 2 % extra
// density on the corner particle, which pushes it gently outward).
#include <algorithm>
#include <cmath>

#include "simd.h"
#include "tidepool/kernels.h"
#include "tidepool/world.h"

namespace tidepool {
namespace {

constexpr int kWallSamples = 256;

bool finite2(glm::vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); }

// Closest point to p on segment ab.
glm::vec2 closest_on_segment(glm::vec2 p, glm::vec2 a, glm::vec2 b) {
  const glm::vec2 ab = b - a;
  const float len2 = ab.x * ab.x + ab.y * ab.y;
  float t = len2 > 0.0f ? ((p.x - a.x) * ab.x + (p.y - a.y) * ab.y) / len2 : 0.0f;
  t = std::min(std::max(t, 0.0f), 1.0f);
  return a + t * ab;
}

float cross(glm::vec2 a, glm::vec2 b) { return a.x * b.y - a.y * b.x; }

// Signed distance from p to the obstacle's surface (negative inside) and the
// outward unit normal at the closest point.
float obstacle_distance(const Obstacle& o, glm::vec2 p, glm::vec2* normal) {
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

}  // namespace

// L(t) = 2 int_0^sqrt(h^2-t^2) W(sqrt(x^2+t^2)) dx and
// L'(t) = 2 int_0^sqrt(h^2-t^2) W'(r) t / r dx, by Simpson's rule, then
// summed over the boundary rows at d = h k / (kWallSamples - 1).
void World::build_wall_tables() {
  // The density kernel of the active solver: poly6 (Müller) or cubic (DFSPH).
  const MullerKernels M(params_.h);
  const CubicKernel C(params_.h);
  const bool cubic = params_.solver == Solver::DFSPH;
  auto kernel = [&](float r) { return cubic ? C.value(r) : M.poly6(r * r); };
  auto kernel_grad = [&](float r) { return cubic ? C.grad(r) : M.poly6_grad(r * r); };
  const double h = params_.h;
  const double s = std::sqrt(static_cast<double>(params_.mass) / params_.rest_density);
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
  wall_phi_.assign(kWallSamples, 0.0f);
  wall_line_.assign(kWallSamples, 0.0f);
  wall_visc_.assign(kWallSamples, 0.0f);
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
    wall_phi_[k] = static_cast<float>(phi);
    wall_line_[k] = static_cast<float>(grad);  // dPhi/dd, <= 0
    wall_visc_[k] = static_cast<float>(lap);   // Psi(d) = sum_b V_b lap W_visc
  }
}

bool World::wall_density(float x, float y, float* rho, float* gx, float* gy, float* lap) const {
  const float h = params_.h, rho0 = params_.rest_density;
  const float scale = (kWallSamples - 1) / h;
  float r = 0.0f, ax = 0.0f, ay = 0.0f, visc = 0.0f;
  // Adds the half-plane at distance d with inward normal (nx, ny).
  auto add = [&](float d, float nx, float ny) {
    if (d >= h) return;
    const float u = std::max(d, 0.0f) * scale;
    const int k = std::min(static_cast<int>(u), kWallSamples - 2);
    const float f = u - static_cast<float>(k);
    const float phi = wall_phi_[k] + f * (wall_phi_[k + 1] - wall_phi_[k]);
    const float slope = wall_line_[k] + f * (wall_line_[k + 1] - wall_line_[k]);
    r += phi;
    visc += wall_visc_[k] + f * (wall_visc_[k + 1] - wall_visc_[k]);
    ax += slope * nx;  // slope < 0: the gradient points into the wall
    ay += slope * ny;
  };
  add(x - box_.min.x, 1.0f, 0.0f);
  add(box_.max.x - x, -1.0f, 0.0f);
  add(y - box_.min.y, 0.0f, 1.0f);
  add(box_.max.y - y, 0.0f, -1.0f);
  bool near_obstacle = false;
  for (const Obstacle& o : obstacles_) {
    glm::vec2 n;
    const float d = obstacle_distance(o, glm::vec2(x, y), &n);
    near_obstacle = near_obstacle || d < h;
    add(d, n.x, n.y);
  }
  *rho = rho0 * r;
  *gx = rho0 * ax;
  *gy = rho0 * ay;
  *lap = rho0 * visc;
  return near_obstacle;
}

// A particle stands for a square of fluid one spacing wide, so its centre
// keeps half a spacing from every surface: that is where a resting lattice
// sits against the boundary rows of the density map (header). Projected
// onto the wall itself, a particle reads as compressed by the nearest
// boundary row, and the pressure that builds up squirts it and its
// neighbours along the wall (measured in a resting DFSPH column: bursts of
// 1-5 m/s along the floor, kinetic energy 0.3-6 % of the potential; with
// the half-spacing contact 0.06-0.13 %, at most 1.1 m/s).
float World::contact_radius() const { return 0.5f * spacing(); }

Box World::contact_box() const {
  const float radius = contact_radius();
  Box b = box_;
  b.min += glm::vec2(radius);
  b.max -= glm::vec2(radius);
  if (b.min.x > b.max.x) b.min.x = b.max.x = 0.5f * (box_.min.x + box_.max.x);
  if (b.min.y > b.max.y) b.min.y = b.max.y = 0.5f * (box_.min.y + box_.max.y);
  return b;
}

bool World::push_out(const Obstacle& o, glm::vec2 prev, float radius, float e, glm::vec2* pos,
                     glm::vec2* normal) {
  glm::vec2 nrm;
  float d = obstacle_distance(o, *pos, &nrm);
  if (o.kind == Obstacle::Kind::Capsule) {
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

void World::collide(float) {
  Particles& p = particles_;
  const int n = p.size();
  const float e = params_.restitution, keep_t = 1.0f - params_.friction;
  const bool leapfrog =
      params_.solver == Solver::Muller2003 && params_.integrator == Integrator::Leapfrog;
  // Reflects velocity v about a surface with unit normal (nx, ny), into the
  // fluid, when `on` and v points out of it: the normal part reversed and
  // scaled by the restitution, the tangential part by 1 - friction.
  // Written with selects, so that the wall loop below vectorises.
  auto reflect = [e, keep_t](bool on, float nx, float ny, float& vx, float& vy) {
    const float vn = vx * nx + vy * ny;
    const float tx = vx - vn * nx, ty = vy - vn * ny;
    const float en = e * vn;
    const bool flip = on && vn < 0.0f;
    vx = flip ? keep_t * tx - en * nx : vx;
    vy = flip ? keep_t * ty - en * ny : vy;
  };
  const float radius = contact_radius();
  const Box b = contact_box();
  const bool any_obstacles = !obstacles_.empty();
  parallel(n, [&](int begin, int end) {
    for (int i = begin; any_obstacles && i < end; ++i) {
      glm::vec2 pos(p.x[i], p.y[i]);
      const glm::vec2 prev(p.x_prev[i], p.y_prev[i]);
      bool hit = false;
      for (const Obstacle& o : obstacles_) {
        glm::vec2 nrm;
        if (push_out(o, prev, radius, e, &pos, &nrm)) {
          reflect(true, nrm.x, nrm.y, p.vx[i], p.vy[i]);
          hit = true;
        }
      }
      if (hit && leapfrog) {  // seed 000 resets both half-step velocities too
        p.aux0[i] = p.vx[i];
        p.aux1[i] = p.vy[i];
      }
      p.x[i] = pos.x;
      p.y[i] = pos.y;
    }
    // Container walls last, so no obstacle can push a particle out of the
    // box. Every particle of a block goes through the same selects, in a
    // loop the compiler vectorises: about 12 instructions a particle
    // against 21 for the branches it replaced (callgrind), though few touch
    // a wall. Local copies, as the loop's stores could alias the captured
    // values.
    float *px = p.x.data(), *py = p.y.data(), *pvx = p.vx.data(), *pvy = p.vy.data();
    float *hx = p.aux0.data(), *hy = p.aux1.data();
    const float x0 = b.min.x, x1 = b.max.x, y0 = b.min.y, y1 = b.max.y;
    const float rest = e;
    const bool reset_half_steps = leapfrog;
    const auto reflect_v = reflect;
    // Only the blocks with a particle outside the box: the selects leave
    // the others as they are. The sorted particles that cross a wall lie
    // together (the bottom rows, the ends of rows), so in the dam break at
    // 4 000 particles about 4 % of them cross in a step and a third of the
    // blocks have one: the boundaries stage 0.62x the time in wasm, 0.79x
    // natively (scripts/ab.sh).
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
        // Read up front: `h[i] = reset ? v : h[i]` is a conditional store to
        // Clang, which then does not vectorise the loop for wasm.
        const float hxi = hx[i], hyi = hy[i];
        const bool left = x < x0, right = !left && x > x1;
        x = keep_inside(x, x0, x1, rest);
        reflect_v(left || right, left ? 1.0f : -1.0f, 0.0f, vx, vy);
        const bool bottom = y < y0, top = !bottom && y > y1;
        y = keep_inside(y, y0, y1, rest);
        reflect_v(bottom || top, 0.0f, bottom ? 1.0f : -1.0f, vx, vy);
        const bool reset = reset_half_steps && (left || right || bottom || top);
        px[i] = x;
        py[i] = y;
        pvx[i] = vx;
        pvy[i] = vy;
        hx[i] = reset ? vx : hxi;
        hy[i] = reset ? vy : hyi;
      }
    }
  });
}

void World::emit_and_sink(float dt) {
  Particles& p = particles_;
  if (!sinks_.empty() && p.size() > 0) {
    keep_.assign(static_cast<size_t>(p.size()), 1);
    bool any = false;
    for (int i = 0; i < p.size(); ++i) {
      for (const Sink& s : sinks_) {
        const float dx = p.x[i] - s.position.x, dy = p.y[i] - s.position.y;
        if (dx * dx + dy * dy < s.radius * s.radius) {
          keep_[i] = 0;
          any = true;
        }
      }
    }
    if (any) p.compact(keep_);
  }
  const float spacing = this->spacing();
  emitter_rows_.resize(emitters_.size(), 0.0f);
  emitter_slot_.resize(emitters_.size(), 0);
  for (size_t k = 0; k < emitters_.size(); ++k) {
    const Emitter& em = emitters_[k];
    const float speed = std::sqrt(em.velocity.x * em.velocity.x + em.velocity.y * em.velocity.y);
    if (speed <= 0.0f || p.size() >= em.limit) continue;
    const glm::vec2 dir = em.velocity / speed, side(-dir.y, dir.x);
    const int per_row = std::max(1, static_cast<int>(em.width / spacing));
    emitter_rows_[k] += speed * dt / spacing;
    while (emitter_rows_[k] >= 1.0f) {
      emitter_rows_[k] -= 1.0f;
      // The row left the nozzle emitter_rows_ * spacing ago; alternate rows
      // are offset by half a spacing so the jet packs like a lattice.
      const float ahead = emitter_rows_[k] * spacing;
      const float shift = (emitter_slot_[k]++ % 2) ? 0.25f * spacing : -0.25f * spacing;
      for (int s = 0; s < per_row; ++s) {
        const float t = (static_cast<float>(s) - 0.5f * static_cast<float>(per_row - 1)) * spacing + shift;
        add_particle(em.position + t * side + ahead * dir, em.velocity);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Shapes

int World::add_circle(glm::vec2 centre, float radius) {
  if (!finite2(centre) || !std::isfinite(radius) || radius <= 0.0f) return -1;
  Obstacle o;
  o.kind = Obstacle::Kind::Circle;
  o.a = o.b = centre;
  o.radius = radius;
  o.id = next_shape_id_++;
  obstacles_.push_back(o);
  return o.id;
}

int World::add_capsule(glm::vec2 a, glm::vec2 b, float radius) {
  if (!finite2(a) || !finite2(b) || !std::isfinite(radius) || radius <= 0.0f) return -1;
  Obstacle o;
  o.kind = Obstacle::Kind::Capsule;
  o.a = a;
  o.b = b;
  o.radius = radius;
  o.id = next_shape_id_++;
  obstacles_.push_back(o);
  return o.id;
}

std::vector<int> World::add_polyline(const std::vector<glm::vec2>& points, float radius) {
  std::vector<int> ids;
  for (size_t k = 1; k < points.size(); ++k) {
    const int id = add_capsule(points[k - 1], points[k], radius);
    if (id >= 0) ids.push_back(id);
  }
  return ids;
}

template <class T>
static bool remove_by_id(std::vector<T>& list, int id) {
  const auto it = std::find_if(list.begin(), list.end(), [&](const T& t) { return t.id == id; });
  if (it == list.end()) return false;
  list.erase(it);
  return true;
}

bool World::remove_obstacle(int id) { return remove_by_id(obstacles_, id); }
void World::clear_obstacles() { obstacles_.clear(); }

int World::add_emitter(const Emitter& e) {
  if (!finite2(e.position) || !finite2(e.velocity) || !std::isfinite(e.width) || e.width <= 0.0f)
    return -1;
  emitters_.push_back(e);
  emitters_.back().id = next_shape_id_++;
  emitter_rows_.push_back(0.0f);
  emitter_slot_.push_back(0);
  return emitters_.back().id;
}

int World::add_sink(const Sink& s) {
  if (!finite2(s.position) || !std::isfinite(s.radius) || s.radius <= 0.0f) return -1;
  sinks_.push_back(s);
  sinks_.back().id = next_shape_id_++;
  return sinks_.back().id;
}

bool World::remove_emitter(int id) {
  for (size_t k = 0; k < emitters_.size(); ++k) {
    if (emitters_[k].id != id) continue;
    emitters_.erase(emitters_.begin() + static_cast<long>(k));
    emitter_rows_.erase(emitter_rows_.begin() + static_cast<long>(k));
    emitter_slot_.erase(emitter_slot_.begin() + static_cast<long>(k));
    return true;
  }
  return false;
}

bool World::remove_sink(int id) { return remove_by_id(sinks_, id); }

}  // namespace tidepool
