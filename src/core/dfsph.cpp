
// Divergence-free SPH (Bender & Koschier 2015, "Divergence-Free Smoothed
// Particle Hydrodynamics", SCA; TVCG 2017).
//
// Why DFSPH as the default: like IISPH (Ihmsen et al. 2013) it solves for the
// pressure that brings the predicted density back to rho0, so the step is
// limited by the CFL condition instead of a speed of sound, and it reports
// the density error it reached. Its per-particle factor alpha_i (eq. 11) is
// computed once per step and reused by both solves, so each Jacobi iteration
// costs two neighbour passes and no stored neighbour lists; the second,
// divergence-free solve removes the velocity divergence that makes WCSPH and
// IISPH jitter at large steps. Position-based fluids (Macklin & Müller 2013)
// would be as cheap per iteration but has no pressure to report (the
// hydrostatic test) and needs artificial pressure to avoid clumping.
//
// Notation: with the pair gradient grad W_ij = g(r) r_ij,
//   alpha_i = rho_i / (|sum_j m_j grad W_ij + grad rho_b,i|^2 + sum_j |m_j grad W_ij|^2)   (eq. 11)
//   velocity update  v_i -= dt sum_j m_j (kappa_i/rho_i + kappa_j/rho_j) grad W_ij            (eq. 9)
//                            + dt (kappa_i/rho_i) grad rho_b,i              (boundary, mirrored)
//   density solve    kappa_i = (rho*_i - rho0) / dt^2 alpha_i,
//                    rho*_i = rho_i + dt sum_j m_j (v_i - v_j).grad W_ij       (eq. 12)
//   divergence solve kappa_i = (1/dt) (D rho/Dt)_i alpha_i                         (eq. 8)
// Stiffnesses are stored as kappa (independent of dt) in aux0 (density) and
// aux1 (divergence) and warm-start the next step (section 4.3). The pressure
// reported is p_i = (kappa_i + kappa^v_i) rho_i, since each velocity update
// equals dt times the symmetric pressure acceleration with
// p_i / rho_i^2 = kappa_i / rho_i. The solver delivers the support of a
// resting column in bursts (a few steps push, the next coast), so only its
// time average is the hydrostatic pressure: the test averages over a second.
//
// Boundaries contribute through the density map of boundary.cpp: rho_b,i and
// its gradient stand in for Akinci et al. 2012's boundary particles.
#include <algorithm>
#include <cmath>

#include "neighbours.h"
#include "tidepool/kernels.h"
#include "tidepool/world.h"

namespace tidepool {

// Also stores each particle's neighbours and the gradient scalars g(r_ij)
// (grad W_ij = g r_ij) for the solves: positions do not move during them, and
// reading a list of ~23 neighbours is several times cheaper than testing the
// ~50 candidates of the grid's cell block and evaluating the kernel again in
// every iteration (measured: the solves were 88 % of the step).
void World::dfsph_factors() {
  Particles& p = particles_;
  const int n = p.size();
  const CubicKernel K(params_.h);
  const float m = params_.mass, h2 = params_.h * params_.h;
  factor_.resize(static_cast<size_t>(n));
  const float* x = p.x.data();
  const float* y = p.y.data();
  // Offsets from the neighbour counts of the density stage (same positions,
  // same test), so each particle fills its own slice: no race, any split.
  nbr_start_.resize(static_cast<size_t>(n) + 1);
  nbr_start_[0] = 0;
  for (int i = 0; i < n; ++i) nbr_start_[i + 1] = nbr_start_[i] + static_cast<int>(neighbours_[i]);
  nbr_j_.resize(static_cast<size_t>(nbr_start_[n]));
  nbr_g_.resize(static_cast<size_t>(nbr_start_[n]));
  parallel(n, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      float sx = wall_gx_[i], sy = wall_gy_[i], sum2 = 0.0f;
      int k = nbr_start_[i];
      for_neighbours(grid_, x, y, i, h2, [&](int j, float dx, float dy, float r2) {
        if (j == i) return;
        const float gs = K.grad(std::sqrt(r2));
        nbr_j_[k] = j;
        nbr_g_[k] = gs;
        ++k;
        const float g = m * gs;
        sx += g * dx;
        sy += g * dy;
        sum2 += g * g * r2;
      });
      const float denom = sx * sx + sy * sy + sum2;
      // A particle with no neighbours and no wall cannot be compressed.
      factor_[i] = denom > 1e-12f ? p.density[i] / denom : 0.0f;
    }
  });
}

namespace {

// (D rho / Dt)_i = sum_j m_j (v_i - v_j).grad W_ij + v_i.grad rho_b,i
inline float density_rate(const int* nj, const float* ng, int begin, int end, const float* x,
                          const float* y, const float* vx, const float* vy, int i, float m,
                          float wall_gx, float wall_gy) {
  const float xi = x[i], yi = y[i], vxi = vx[i], vyi = vy[i];
  float rate = 0.0f;
  for (int k = begin; k < end; ++k) {
    const int j = nj[k];
    rate += ng[k] * ((vxi - vx[j]) * (xi - x[j]) + (vyi - vy[j]) * (yi - y[j]));
  }
  return m * rate + vxi * wall_gx + vyi * wall_gy;
}

}  // namespace

// v_i -= (1/dt) [sum_j m (k_i/rho_i + k_j/rho_j) grad W_ij + (k_i/rho_i) grad rho_b]
// with k = kappa * dt^2 given in `kappa` (this iteration's increment).
void World::dfsph_apply_kappa(const std::vector<float>& kappa, float dt) {
  Particles& p = particles_;
  const int n = p.size();
  const float m = params_.mass, inv_dt = 1.0f / dt;
  const float* x = p.x.data();
  const float* y = p.y.data();
  const float* rho = p.density.data();
  // Pressure over density first, so the pair loop reads one value per j.
  float* k_rho = rho_adv_.data();  // free between the predict passes
  for (int i = 0; i < n; ++i) k_rho[i] = kappa[i] / rho[i];
  parallel(n, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const float ki = k_rho[i], xi = x[i], yi = y[i];
      float ax = 0.0f, ay = 0.0f;
      for (int k = nbr_start_[i]; k < nbr_start_[i + 1]; ++k) {
        const int j = nbr_j_[k];
        const float s = (ki + k_rho[j]) * nbr_g_[k];
        ax += s * (xi - x[j]);
        ay += s * (yi - y[j]);
      }
      ax = m * ax + ki * wall_gx_[i];
      ay = m * ay + ki * wall_gy_[i];
      p.vx[i] -= ax * inv_dt;
      p.vy[i] -= ay * inv_dt;
    }
  });
}

// Fills rho_adv_ with what the solve drives to zero:
//   density solve:    rho*_i - rho0 = rho_i + dt (D rho/Dt)_i - rho0, compression only
//   divergence solve: (D rho/Dt)_i, compression only, full neighbourhoods only
// and returns its mean, relative to rho0 and to one step.
double World::dfsph_predict(float dt, bool divergence) {
  Particles& p = particles_;
  const int n = p.size();
  const float m = params_.mass, h2 = params_.h * params_.h, rho0 = params_.rest_density;
  // At the free surface a positive divergence is a particle arriving, not a
  // compression (Bender & Koschier 2015, sec. 4.2): the divergence solve
  // skips particles with less than half a neighbourhood.
  const float min_neighbours = 0.5f * (kPi * h2 * rho0 / m - 1.0f);
  rho_adv_.resize(static_cast<size_t>(n));
  parallel(n, [&](int begin, int end) {
    for (int i = begin; i < end; ++i) {
      const float rate =
          density_rate(nbr_j_.data(), nbr_g_.data(), nbr_start_[i], nbr_start_[i + 1], p.x.data(),
                       p.y.data(), p.vx.data(), p.vy.data(), i, m, wall_gx_[i], wall_gy_[i]);
      if (divergence) {
        rho_adv_[i] = neighbours_[i] >= min_neighbours ? std::max(rate, 0.0f) : 0.0f;
      } else {
        rho_adv_[i] = std::max(p.density[i] + dt * rate - rho0, 0.0f);
      }
    }
  });
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += rho_adv_[i];
  return sum / (n * static_cast<double>(rho0)) * (divergence ? dt : 1.0f);
}

// One solve (density or divergence): warm start, then Jacobi iterations
// until the mean error is below the tolerance. Returns the iterations.
int World::dfsph_solve(float dt, bool divergence, float* error_out) {
  Particles& p = particles_;
  const int n = p.size();
  std::vector<float>& kappa = divergence ? p.aux1 : p.aux0;
  kappa_tmp_.resize(static_cast<size_t>(n));
  // Warm start (sec. 4.3): half of last step's stiffness, only where the
  // current prediction is compressed; the iterations can only push, so a
  // stale full push elsewhere would inject energy.
  dfsph_predict(dt, divergence);
  bool any = false;
  for (int i = 0; i < n; ++i) {
    kappa[i] = rho_adv_[i] > 0.0f ? 0.5f * std::max(kappa[i], 0.0f) : 0.0f;
    kappa_tmp_[i] = kappa[i] * dt * dt;
    any = any || kappa[i] > 0.0f;
  }
  if (any) dfsph_apply_kappa(kappa_tmp_, dt);
  int it = 0;
  double error = 0.0;
  for (;; ++it) {
    error = dfsph_predict(dt, divergence);
    if (error <= params_.tolerance || it >= params_.max_iterations) break;
    // kappa dt^2: (rho* - rho0) alpha (eq. 12) or dt (D rho/Dt) alpha (eq. 8).
    const float scale = divergence ? dt : 1.0f;
    for (int i = 0; i < n; ++i) {
      kappa_tmp_[i] = scale * rho_adv_[i] * factor_[i];
      kappa[i] += kappa_tmp_[i] / (dt * dt);
    }
    dfsph_apply_kappa(kappa_tmp_, dt);
  }
  if (error_out) *error_out = static_cast<float>(error);
  return it;
}

int World::dfsph_divergence_solve(float dt) { return dfsph_solve(dt, true, nullptr); }

int World::dfsph_density_solve(float dt, float* error_out) {
  Particles& p = particles_;
  const int n = p.size();
  // Non-pressure accelerations first: v* = v + dt a (Alg. 1).
  for (int i = 0; i < n; ++i) {
    p.vx[i] += dt * p.ax[i];
    p.vy[i] += dt * p.ay[i];
  }
  const int it = dfsph_solve(dt, false, error_out);
  // Both solves apply pressure accelerations of the same form, so the
  // pressure acting this step is their sum.
  for (int i = 0; i < n; ++i) p.pressure[i] = (p.aux0[i] + p.aux1[i]) * p.density[i];
  return it;
}

}  // namespace tidepool
