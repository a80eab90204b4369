// Pointer forces: a mouse button or a finger pushes (or pulls) the fluid
// within a radius and stirs it toward its drag velocity. The app turns
// input into PointerForce values (src/app/input.cpp) and World::set_pointers
// hands them to the forces pass, which adds them here.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "tidepool/types.h"

namespace tidepool {

// Whether every field of f is finite, its radius positive and its stir
// rate non-negative: World::set_pointers drops the others.
inline bool valid_pointer(const PointerForce& f) {
  return std::isfinite(f.position.x) && std::isfinite(f.position.y) && std::isfinite(f.radius) &&
         f.radius > 0.0f && std::isfinite(f.strength) && std::isfinite(f.velocity.x) &&
         std::isfinite(f.velocity.y) && std::isfinite(f.stir) && f.stir >= 0.0f && std::isfinite(f.dye.x) &&
         std::isfinite(f.dye.y) && std::isfinite(f.dye.z);
}

// Adds each pointer's acceleration to particles [begin, end): strength
// times a linear fall-off (1 at the centre, 0 at the rim) along the
// direction from the centre, and a relaxation of the velocity toward the
// pointer's at rate stir times the fall-off, at most 1 / dt so that it
// never overshoots.
inline void apply_pointers(const std::vector<PointerForce>& pointers, Particles& p, float dt, int begin,
                           int end) {
  const float *x = p.x.data(), *y = p.y.data(), *vx = p.vx.data(), *vy = p.vy.data();
  float *ax = p.ax.data(), *ay = p.ay.data();
  for (const PointerForce& f : pointers) {
    for (int i = begin; i < end; ++i) {
      const float dx = x[i] - f.position.x, dy = y[i] - f.position.y;
      const float d2 = dx * dx + dy * dy;
      if (d2 >= f.radius * f.radius) continue;
      const float d = std::sqrt(d2);
      const float fall = 1.0f - d / f.radius;
      if (d > 1e-6f) {
        ax[i] += f.strength * fall * dx / d;
        ay[i] += f.strength * fall * dy / d;
      }
      const float rate = std::min(f.stir * fall, 1.0f / dt);
      ax[i] += rate * (f.velocity.x - vx[i]);
      ay[i] += rate * (f.velocity.y - vy[i]);
    }
  }
}

// The same law on a grid face at `at` (stable.cpp, flip.cpp): the
// acceleration along the face's axis of a velocity component `vel` there.
inline float pointer_accel(const std::vector<PointerForce>& pointers, glm::vec2 at, float vel, glm::vec2 axis,
                           float dt) {
  float a = 0.0f;
  for (const PointerForce& f : pointers) {
    const glm::vec2 d = at - f.position;
    const float dist = std::sqrt(d.x * d.x + d.y * d.y);
    if (dist >= f.radius) continue;
    const float fall = 1.0f - dist / f.radius;
    if (dist > 1e-6f) a += f.strength * fall * (d.x * axis.x + d.y * axis.y) / dist;
    a += std::min(f.stir * fall, 1.0f / dt) * ((f.velocity.x * axis.x + f.velocity.y * axis.y) - vel);
  }
  return a;
}

}  // namespace tidepool
