// The safety net: nothing non-finite leaves the core, no speed runs away,
// no particle leaves the box. It runs at the end of every substep and
// repairs what an unstable step (a huge pointer force, a stiffness past
// what the time step can carry) breaks, so the state stays usable and the
// repair is counted in the stats instead of propagating NaN.
#include <cmath>
#include <limits>

#include "state.h"

namespace tidepool {

int contain(WorldState& s) {
  Particles& p = s.particles;
  const Box box = s.box;
  const float vmax = s.params.max_speed;
  const float cx = 0.5f * (box.min.x + box.max.x), cy = 0.5f * (box.min.y + box.max.y);
  // The solver's carried fields are checked and repaired with the
  // particle's own; a solver with fewer than two checks vx or vy again.
  const Carried carried = s.solver->carried();
  Array<float>* const c0 = carried.count > 0 ? carried.fields[0] : &p.vx;
  Array<float>* const c1 = carried.count > 1 ? carried.fields[1] : &p.vy;
  // True when none of [begin, end) needs a repair below (the usual case):
  // one branch-free pass the compiler vectorises, instead of the repair
  // loop's tests and branches for every particle.
  auto sound = [&](int begin, int end) {
    const float v2max = vmax * vmax;
    auto finite = [](float v) -> int { return std::fabs(v) <= std::numeric_limits<float>::max(); };
    const float *px = p.x.data(), *py = p.y.data(), *pvx = p.vx.data(), *pvy = p.vy.data();
    const float *a0 = c0->data(), *a1 = c1->data(), *rho = p.density.data(), *pr = p.pressure.data();
    int sound_count = 0;  // an int, not a bool: GCC vectorises this sum
    for (int i = begin; i < end; ++i) {
      const float x = px[i], y = py[i], vx = pvx[i], vy = pvy[i];
      sound_count += finite(x) & finite(y) & finite(vx) & finite(vy) & finite(a0[i]) & finite(a1[i]) &
                     finite(rho[i]) & finite(pr[i]) & (vx * vx + vy * vy <= v2max) & (x >= box.min.x) &
                     (x <= box.max.x) & (y >= box.min.y) & (y <= box.max.y);
    }
    return sound_count == end - begin;
  };
  // Repairs particle i; returns whether it needed more than the box.
  auto repair = [&](int i) {
    bool hit = false;
    if (!std::isfinite(p.x[i]) || !std::isfinite(p.y[i]) || !std::isfinite(p.vx[i]) || !std::isfinite(p.vy[i]) ||
        !std::isfinite((*c0)[i]) || !std::isfinite((*c1)[i])) {
      const bool prev_ok = std::isfinite(p.x_prev[i]) && std::isfinite(p.y_prev[i]);
      p.x[i] = prev_ok ? p.x_prev[i] : cx;
      p.y[i] = prev_ok ? p.y_prev[i] : cy;
      p.vx[i] = p.vy[i] = 0.0f;
      for (Array<float>* field : carried) (*field)[i] = 0.0f;
      hit = true;
    }
    if (!std::isfinite(p.density[i]) || !std::isfinite(p.pressure[i])) {
      p.density[i] = s.params.rest_density;
      p.pressure[i] = 0.0f;
      hit = true;
    }
    const float v2 = p.vx[i] * p.vx[i] + p.vy[i] * p.vy[i];
    if (v2 > vmax * vmax) {
      const float scale = vmax / std::sqrt(v2);
      p.vx[i] *= scale;
      p.vy[i] *= scale;
      if (carried.half_vx) {
        (*carried.half_vx)[i] = p.vx[i];
        (*carried.half_vy)[i] = p.vy[i];
      }
      hit = true;
    }
    // The box is the last word: projection keeps everything inside.
    p.x[i] = std::min(std::max(p.x[i], box.min.x), box.max.x);
    p.y[i] = std::min(std::max(p.y[i], box.min.y), box.max.y);
    return hit;
  };
  const int touched = static_cast<int>(s.loops.sum_over(p.size(), [&](int begin, int end) {
    if (sound(begin, end)) return 0.0;
    int hits = 0;
    for (int i = begin; i < end; ++i) hits += repair(i) ? 1 : 0;
    return static_cast<double>(hits);
  }));
  if (!std::isfinite(s.max_accel)) s.max_accel = 0.0f;
  return touched;
}

}  // namespace tidepool
