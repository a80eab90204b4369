// The compression bound of the particle solvers: no two particles closer
// than min_separation rest spacings.
//
// An SPH pass costs each particle a term per neighbour, and nothing else
// bounds how many a particle has: a gas as soft as seed 002's (k = 3, a
// sound speed of 1.7 m/s) under strong gravity packs a hundred times
// denser than rest, and its neighbourhoods grow with it until one step
// takes seconds. A floor on the distance between particles bounds the
// density, and so the neighbours: n particles at least d apart fill at
// least n (sqrt(3)/2) d^2 of area, so a disc of radius h holds at most
// about (2 pi / sqrt(3)) (h / d)^2 of them (the hexagonal packing).
//
// The floor is kept as a contact between the two particles, as between a
// particle and a wall (boundary.cpp): one Jacobi pass moves each end of a
// pair closer than d half the overlap apart along the pair's line (a
// position-based constraint: Müller et al. 2007, "Position based dynamics",
// sec. 3.3), and takes away the part of their relative velocity that
// closes them, half from each, as an inelastic collision would: the pair
// does not close again in the next step, and no energy is added. Each
// pair changes its ends by equal and opposite amounts: momentum is kept.
// Coincident pairs (the pile of test_scenes.cpp) part along a direction
// drawn from their ids. The pass runs only where the step left a particle
// twice as dense as rest: ordinary water never gets there, and pays
// nothing.
//
// One pass a step holds the floor against compression that builds up
// step by step. A pile made at once (a parameter swept to its end) parts
// over many steps, each as costly as the pile is dense (docs/physics.md,
// "Known limits").
#include <algorithm>
#include <cmath>

#include "boundary.h"
#include "state.h"

namespace tidepool {

namespace {

// The density above which the pass runs, over rest density.
constexpr float kDenseTrigger = 2.0f;

// A unit direction for the pair of ids a < b, the same from either end.
glm::vec2 pair_direction(uint32_t a, uint32_t b) {
  uint32_t k = a * 2654435761u ^ (b + 0x9e3779b9u + (a << 6) + (a >> 2));
  k ^= k >> 16;
  k *= 0x45d9f3bu;
  k ^= k >> 16;
  const float angle = static_cast<float>(k) * (6.2831853f / 4294967296.0f);
  return {std::cos(angle), std::sin(angle)};
}

}  // namespace

double keep_apart(WorldState& s, int cap, int* capped) {
  Particles& p = s.particles;
  const int n = p.size();
  if (capped) *capped = 0;
  if (n < 2 || !s.solver->sorts_particles()) return 0.0;
  const float dense = kDenseTrigger * s.params.rest_density;
  const double densest = s.loops.max_over(n, [&](int begin, int end) {
    float most = 0.0f;
    for (int i = begin; i < end; ++i) most = std::max(most, p.density[i]);
    return static_cast<double>(most);
  });
  if (cap <= 0 && !(densest > dense)) return n;
  // Never past half of h: a rest spacing made huge at once (a mass raised
  // a thousandfold) would otherwise push the whole water apart by metres,
  // into the walls, where it piles up.
  const float d = std::min(s.params.min_separation * s.spacing(), 0.5f * s.params.h);
  const float d2 = d * d;
  for (Array<float>* a : {&s.apart_x, &s.apart_y, &s.apart_vx, &s.apart_vy, &s.apart_count})
    a->resize(static_cast<size_t>(n));
  const Grid& grid = s.search.grid();
  // Calls f(j, dx, dy, r2) for each particle j closer than d to i, and
  // returns the candidates it looked at. Under a cap, a particle with more
  // candidates than it (the count depends on its cell alone, so the whole
  // cell is over) scans the window of its cell within half the cap of it,
  // and the others skip it: a pair is seen from both ends or from neither.
  const int* const count = s.candidates.data();
  const int half = cap / 2;
  auto close_pairs = [&](int i, auto&& f) {
    const float xi = p.x[i], yi = p.y[i];
    double seen = 0.0;
    auto scan = [&](int b, int e) {
      seen += e - b;
      for (int j = b; j < e; ++j) {
        if (cap > 0 && count[j] > cap && count[i] <= cap) continue;
        const float dx = xi - p.x[j], dy = yi - p.y[j];
        const float r2 = dx * dx + dy * dy;
        if (j != i && r2 < d2) f(j, dx, dy, r2);
      }
    };
    if (cap > 0 && count[i] > cap) {
      int b = 0, e = 0;
      grid.cell_range(i, &b, &e);
      scan(std::max(b, i - half), std::min(e, i + half + 1));
    } else {
      grid.for_each_range(i, scan);
    }
    return seen;
  };
  if (capped) {
    *capped = static_cast<int>(s.loops.sum_over(n, [&](int begin, int end) {
      double over = 0.0;
      for (int i = begin; i < end; ++i) over += cap > 0 && count[i] > cap;
      return over;
    }));
  }
  // A particle in k close pairs would take k corrections, each of which
  // alone resolves its pair: a Jacobi pass over-corrects a crowd k times
  // and throws it apart. Each pair's correction is shared out by the
  // larger crowd of its two ends, 1 / max(k_i, k_j), the same from both:
  // no particle moves farther than its overlaps' mean, and the pair's
  // changes stay equal and opposite.
  const double counted = s.loops.sum_over(n, [&](int begin, int end) {
    double seen = 0.0;
    for (int i = begin; i < end; ++i) {
      int k = 0;
      seen += close_pairs(i, [&](int, float, float, float) { ++k; });
      s.apart_count[i] = static_cast<float>(k);
    }
    return seen;
  });
  const double corrected = s.loops.sum_over(n, [&](int begin, int end) {
    double seen = 0.0;
    for (int i = begin; i < end; ++i) {
      const float vxi = p.vx[i], vyi = p.vy[i], ki = s.apart_count[i];
      float mx = 0.0f, my = 0.0f, wx = 0.0f, wy = 0.0f;
      if (ki > 0.0f) {
        seen += close_pairs(i, [&](int j, float dx, float dy, float r2) {
          const float share = 0.5f / std::max(ki, s.apart_count[j]);  // half of the pair's, to each end
          if (r2 > 1e-12f * d2) {
            // The overlap, away from j; the closing speed along the unit
            // normal (dx, dy) / r, taken away.
            const float r = std::sqrt(r2);
            const float push = share * (d - r) / r;
            mx += push * dx;
            my += push * dy;
            const float closing = ((vxi - p.vx[j]) * dx + (vyi - p.vy[j]) * dy) / r;
            if (closing < 0.0f) {
              wx -= share * closing * dx / r;
              wy -= share * closing * dy / r;
            }
          } else {
            const uint32_t a = p.id[i], c = p.id[j];
            const glm::vec2 u = pair_direction(std::min(a, c), std::max(a, c)) * (a < c ? share * d : -share * d);
            mx += u.x;
            my += u.y;
          }
        });
      }
      s.apart_x[i] = mx;
      s.apart_y[i] = my;
      s.apart_vx[i] = wx;
      s.apart_vy[i] = wy;
    }
    return seen;
  });
  const Carried carried = s.solver->carried();
  float* const half_x = carried.half_vx ? carried.half_vx->data() : nullptr;
  float* const half_y = carried.half_vy ? carried.half_vy->data() : nullptr;
  s.loops.parallel(n, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const float wx = s.apart_vx[i], wy = s.apart_vy[i];
      p.x[i] += s.apart_x[i];
      p.y[i] += s.apart_y[i];
      p.vx[i] += wx;
      p.vy[i] += wy;
      if (half_x) {
        half_x[i] += wx;
        half_y[i] += wy;
      }
    }
  });
  return 3.0 * n + counted + corrected;
}

}  // namespace tidepool
