// Collisions with the container and the obstacles (Müller 2003 sec. 3.6
// reflects; seed 000 mirrors the position, seed 002 projects it): a
// particle found inside a wall or obstacle goes back to the surface plus
// `restitution` times its penetration (0 = projection, 1 = mirror), its
// normal velocity is reversed and scaled by `restitution`, and its
// tangential velocity loses the fraction `friction`.
#include <algorithm>
#include <cmath>
#include <limits>

#include "boundary.h"
#include "simd.h"
#include "state.h"

namespace tidepool {

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
}  // namespace tidepool
