// Helpers shared by the physics tests.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "tidepool/scenes.h"
#include "tidepool/world.h"

namespace tidepool_test {

using namespace tidepool;

// True when every particle is finite and inside the world's box.
inline bool all_inside_and_finite(const World& w) {
  const Particles& p = w.particles();
  const Box& b = w.box();
  for (int i = 0; i < p.size(); ++i) {
    if (!std::isfinite(p.x[i]) || !std::isfinite(p.y[i]) || !std::isfinite(p.vx[i]) ||
        !std::isfinite(p.vy[i]) || !std::isfinite(p.density[i]) || !std::isfinite(p.pressure[i]))
      return false;
    if (p.x[i] < b.min.x || p.x[i] > b.max.x || p.y[i] < b.min.y || p.y[i] > b.max.y) return false;
  }
  return true;
}

struct Momentum {
  double x = 0.0, y = 0.0, scale = 0.0;  // scale = sum m |v|
};

inline Momentum momentum(const World& w) {
  Momentum m;
  const Particles& p = w.particles();
  const double mass = w.params().mass;
  for (int i = 0; i < p.size(); ++i) {
    m.x += mass * p.vx[i];
    m.y += mass * p.vy[i];
    m.scale += mass * std::hypot(p.vx[i], p.vy[i]);
  }
  return m;
}

// Every vector width the build has: 4 (SSE2 or wasm SIMD) and, with AVX2, 8.
inline std::vector<int> vector_widths() {
  std::vector<int> widths;
  for (int lanes : {4, 8})
    if (lanes <= World::simd_width()) widths.push_back(lanes);
  return widths;
}

// n particles piled within a tenth of h around `at`, far denser than any
// flow makes them.
inline void add_pile(World& w, int n, glm::vec2 at) {
  const float h = w.params().h;
  for (int k = 0; k < n; ++k)
    w.add_particle({at.x + 0.1f * h * std::cos(0.37f * k) * (k % 7) / 7.0f,
                    at.y + 0.1f * h * std::sin(0.37f * k) * (k % 5) / 5.0f});
}

// A square block of n x n particles at spacing s, centred at (cx, cy), with
// random velocities of magnitude up to vmax, in a box so large no particle
// reaches a wall.
inline void random_block(World& w, int n, float s, float cx, float cy, float vmax, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      w.add_particle({cx + (i - 0.5f * (n - 1)) * s + 0.2f * s * u(rng),
                      cy + (j - 0.5f * (n - 1)) * s + 0.2f * s * u(rng)},
                     {vmax * u(rng), vmax * u(rng)});
}

// Koshizuka & Oka (1996), dam break surge front: T = t sqrt(2g/a), Z = x/a.
struct SurgePoint {
  double T, Z;
};
inline const SurgePoint kKoshizukaOka[] = {{0.0, 1.000},   {0.381, 1.111}, {0.769, 1.252},
                                           {1.153, 1.505}, {1.537, 1.892}, {1.935, 2.241},
                                           {2.323, 2.615}, {2.719, 3.003}, {3.096, 3.624}};

// Leading edge of the surge: the largest x among particles near the floor
// (a few stray splash particles are ignored by taking the 3rd largest).
inline double surge_front(const World& w, float floor_band) {
  const Particles& p = w.particles();
  double first = 0.0, second = 0.0, third = 0.0;
  for (int i = 0; i < p.size(); ++i) {
    if (p.y[i] > floor_band) continue;
    const double x = p.x[i];
    if (x > first) {
      third = second;
      second = first;
      first = x;
    } else if (x > second) {
      third = second;
      second = x;
    } else if (x > third) {
      third = x;
    }
  }
  return third;
}

// Martin & Moyce (1952), part IV, the same column (n^2 = 2, a = 2.25 in):
// the times at which the residual column at the wall fell to each ninth of
// its first height 2a: tau = t sqrt(g/a), eta = h / 2a.
struct ColumnPoint {
  double tau, eta;
};
inline const ColumnPoint kMartinMoyce[] = {{0.80, 8.0 / 9.0}, {1.29, 7.0 / 9.0}, {1.74, 6.0 / 9.0},
                                           {2.15, 5.0 / 9.0}, {2.57, 4.0 / 9.0}, {3.08, 3.0 / 9.0},
                                           {4.27, 2.0 / 9.0}, {6.29, 1.0 / 9.0}};

// Height of the liquid against the left wall (x = 0): in the strip of the
// `band` beside the wall, cut into layers two spacings tall, the layers from
// the floor up that hold at least half the particles they hold when full
// (the 0.5 contour of the liquid's fraction, as a volume-of-fluid surface
// is drawn), and the share of the first that holds less. A film a particle
// or two thick that clings to the wall above the column is not the column.
inline double column_height(const World& w, float band) {
  const Particles& p = w.particles();
  const double layer = 2.0 * w.spacing();
  const double full = band * layer / (w.spacing() * w.spacing());
  std::vector<int> count;
  for (int i = 0; i < p.size(); ++i) {
    if (p.x[i] >= band || p.y[i] < 0.0f) continue;
    const size_t k = static_cast<size_t>(p.y[i] / layer);
    if (k >= count.size()) count.resize(k + 1, 0);
    ++count[k];
  }
  double h = 0.0;
  for (int n : count) {
    if (n < 0.5 * full) return h + layer * n / full;
    h += layer;
  }
  return h;
}

}  // namespace tidepool_test
