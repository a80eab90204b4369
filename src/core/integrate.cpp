#include "integrate.h"

#include <cmath>

#include "simd.h"
#include "state.h"

namespace tidepool {

void integrate(WorldState& s, float dt, Integration scheme, Array<float>* half_vx, Array<float>* half_vy) {
  Particles& p = s.particles;
  const int n = p.size();
  const double a2max = s.loops.max_over(n, [&](int begin, int end) {
    // One loop per scheme over raw pointers to distinct arrays (ivdep), which
    // the compiler vectorises, the largest |a|^2 kept as its order_bits.
    float *x = p.x.data(), *y = p.y.data(), *vx = p.vx.data(), *vy = p.vy.data();
    float *x_prev = p.x_prev.data(), *y_prev = p.y_prev.data();
    const float *ax = p.ax.data(), *ay = p.ay.data();
    auto a2_bits = [](float ax_i, float ay_i) { return order_bits(ax_i * ax_i + ay_i * ay_i); };
    uint32_t most = 0;
    if (scheme == Integration::Leapfrog) {
      float *hx = half_vx->data(), *hy = half_vy->data();
      TIDEPOOL_IVDEP
      for (int i = begin; i < end; ++i) {
        most = std::max(most, a2_bits(ax[i], ay[i]));
        x_prev[i] = x[i];
        y_prev[i] = y[i];
        const float half_x = hx[i] + ax[i] * dt, half_y = hy[i] + ay[i] * dt;
        vx[i] = 0.5f * (hx[i] + half_x);
        vy[i] = 0.5f * (hy[i] + half_y);
        hx[i] = half_x;
        hy[i] = half_y;
        x[i] += half_x * dt;
        y[i] += half_y * dt;
      }
    } else {
      const bool kick = scheme == Integration::SymplecticEuler;
      TIDEPOOL_IVDEP
      for (int i = begin; i < end; ++i) {
        most = std::max(most, a2_bits(ax[i], ay[i]));
        x_prev[i] = x[i];
        y_prev[i] = y[i];
        if (kick) {
          vx[i] += ax[i] * dt;
          vy[i] += ay[i] * dt;
        }
        x[i] += vx[i] * dt;
        y[i] += vy[i] * dt;
      }
    }
    return static_cast<double>(from_order_bits(most));
  });
  s.max_accel = std::sqrt(static_cast<float>(a2max));
}

}  // namespace tidepool
