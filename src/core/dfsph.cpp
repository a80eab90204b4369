// Divergence-free SPH (Bender & Koschier 2015, "Divergence-Free Smoothed
// Particle Hydrodynamics", SCA; TVCG 2017).
//
// Why DFSPH as the default: like IISPH (Ihmsen et al. 2013) it solves for the
// pressure that brings the predicted density back to rho0, so the step is
// limited by the CFL condition instead of a speed of sound, and it reports
// the density error it reached. Its per-particle factor alpha_i (eq. 11) is
// computed once per step (in the density pass, world.cpp) and reused by both
// solves, so each Jacobi iteration costs two passes over the step's neighbour
// lists; the second,
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
// average over steps is the hydrostatic pressure: the test averages over
// every step of a second.
//
// Boundaries contribute through the density map of boundary.cpp: rho_b,i and
// its gradient stand in for Akinci et al. 2012's boundary particles.
#include <algorithm>
#include <cmath>
#include <utility>

#include "neighbours.h"
#include "tidepool/kernels.h"
#include "tidepool/world.h"

namespace tidepool {

// The solves read each particle's neighbours 2 x (1 + iterations) times a
// step while positions stay put, so the density pass (world.cpp) lists the
// pairs once, with the mass-weighted kernel gradient m grad W_ij already
// evaluated: an iteration is then ~23 multiply-adds per particle instead of
// a cell-block scan with a square root and a division per candidate
// (measured 2.5x faster per pass, at 12 bytes per pair).

// v_i -= (1/dt) [sum_j m (k_i/rho_i + k_j/rho_j) grad W_ij + (k_i/rho_i) grad rho_b]
// with k = kappa * dt^2 (this iteration's increment) over rho given in
// rho_adv_, which is free between the predict passes: the loop that finds
// the increment writes it there, so the pair loop reads one value per j
// and no loop of its own divides by rho first.
void World::dfsph_apply_kappa(float dt) {
  Particles& p = particles_;
  const int n = p.size();
  const float inv_dt = 1.0f / dt;
  const float* k_rho = rho_adv_.data();
  with_lanes(lanes_, n, [&](auto lanes) {
    using V = decltype(lanes);
    parallel(n, [&](int begin, int end) {
      for_each_list(begin, end, [&](int i, const List& l) {
        const float ki = k_rho[i];
        V ax(0.0f), ay(0.0f);
        for_list<V>(l.begin, l.end, [&](int k) {
          const V s = V(ki) + V::gather(k_rho, l.j + k);
          ax += s * V::load(l.gx + k);
          ay += s * V::load(l.gy + k);
        });
        p.vx[i] -= (ki * wall_gx_[i] + sum(ax)) * inv_dt;
        p.vy[i] -= (ki * wall_gy_[i] + sum(ay)) * inv_dt;
      });
    });
  });
}

// Fills rho_adv_ with what the solve drives to zero:
//   density solve:    rho*_i - rho0 = rho_i + dt (D rho/Dt)_i - rho0, compression only
//   divergence solve: (D rho/Dt)_i, compression only, full neighbourhoods only
// and returns its mean, relative to rho0 and to one step; *largest (if not
// null) gets its largest entry, on the same scale.
double World::dfsph_predict(float dt, bool divergence, float* largest) {
  Particles& p = particles_;
  const int n = p.size();
  const float m = params_.mass, h2 = params_.h * params_.h, rho0 = params_.rest_density;
  // At the free surface a positive divergence is a particle arriving, not a
  // compression (Bender & Koschier 2015, sec. 4.2): the divergence solve
  // skips particles with less than half a neighbourhood.
  const float min_neighbours = 0.5f * (kPi * h2 * rho0 / m - 1.0f);
  rho_adv_.resize(static_cast<size_t>(n));
  // The velocities the pair loop gathers, as (vx, vy) pairs: one load
  // brings both of a neighbour's (gather_pairs), where two separate arrays
  // took two gathers; the loop that fills them is the one the density
  // solve needs anyway (below), a copy for the divergence solve.
  v_pred_.resize(2 * static_cast<size_t>(n));
  float* const v_pred = v_pred_.data();
  if (divergence) {
    parallel(n, [&](int begin, int end) {
      const float *u = p.vx.data(), *v = p.vy.data();
      float* const out = v_pred;
      TIDEPOOL_IVDEP
      for (int i = begin; i < end; ++i) {
        out[2 * i] = u[i];
        out[2 * i + 1] = v[i];
      }
    });
  } else {
    // The density solve predicts where the step leaves each particle, so it
    // moves it as integrate() and collide() will: to x + dt v, then out of
    // the obstacles and back inside the container's contact box. Bender &
    // Koschier's prediction (eq. 12) knows no walls but the boundary
    // density: a particle the solve drove into a wall stopped there after
    // the step, and the neighbours it had been predicted to make room for
    // came out compressed, step after step. In the bench's 4 000-particle
    // dam break the densest particle of a frame stood a median 2.2-6.8 %
    // over rho0 (up to 14 %) while every prediction was within 5 %; in the
    // pour scene's glass 111 of 300 frames had a particle over 5 %; at
    // 40 000 particles the dam break's errors grew until the safety net
    // caught them. Obstacles are tested only for the particles within h of
    // one at the step's start (obstacle_contacts_): at the default CFL
    // factor a step moves a particle less than h/2.
    const Box b = contact_box();
    parallel(n, [&](int begin, int end) {
      // Raw pointers to distinct arrays (ivdep): a loop that vectorises.
      const float *x = p.x.data(), *y = p.y.data(), *u = p.vx.data(), *v = p.vy.data();
      float* const out = v_pred;
      const float x0 = b.min.x, x1 = b.max.x, y0 = b.min.y, y1 = b.max.y;
      const float e = params_.restitution, step = dt, inv_step = 1.0f / dt;
      TIDEPOOL_IVDEP
      for (int i = begin; i < end; ++i) {
        const float xs = x[i] + step * u[i], ys = y[i] + step * v[i];
        const float xk = keep_inside(xs, x0, x1, e), yk = keep_inside(ys, y0, y1, e);
        // Bit for bit v where the container does nothing.
        out[2 * i] = xk == xs ? u[i] : (xk - x[i]) * inv_step;
        out[2 * i + 1] = yk == ys ? v[i] : (yk - y[i]) * inv_step;
      }
    });
    if (!obstacle_contacts_.empty()) {
      const float radius = contact_radius(), e = params_.restitution;
      const int* near = obstacle_contacts_.data();
      parallel(static_cast<int>(obstacle_contacts_.size()), [&](int begin, int end) {
        for (int k = begin; k < end; ++k) {
          const int i = near[k];
          const glm::vec2 from(p.x[i], p.y[i]);
          glm::vec2 pos = from + dt * glm::vec2(p.vx[i], p.vy[i]), normal;
          bool hit = false;
          for (const Obstacle& o : obstacles_) hit = push_out(o, from, radius, e, &pos, &normal) || hit;
          if (!hit) continue;  // the container's answer above stands
          // Obstacles first, then the container, as in collide().
          v_pred[2 * i] = (keep_inside(pos.x, b.min.x, b.max.x, e) - from.x) / dt;
          v_pred[2 * i + 1] = (keep_inside(pos.y, b.min.y, b.max.y, e) - from.y) / dt;
        }
      });
    }
  }
  with_lanes(lanes_, n, [&](auto lanes) {
    using V = decltype(lanes);
    parallel(n, [&](int begin, int end) {
      for_each_list(begin, end, [&](int i, const List& l) {
        // (D rho / Dt)_i = sum_j m (v_i - v_j).grad W_ij + v_i.grad rho_b,i
        const float vxi = v_pred[2 * i], vyi = v_pred[2 * i + 1];
        V acc(0.0f);
        for_list<V>(l.begin, l.end, [&](int k) {
          V vxj, vyj;
          V::gather_pairs(v_pred, l.j + k, &vxj, &vyj);
          const V dvx = V(vxi) - vxj, dvy = V(vyi) - vyj;
          acc += dvx * V::load(l.gx + k) + dvy * V::load(l.gy + k);
        });
        rho_adv_[i] = vxi * wall_gx_[i] + vyi * wall_gy_[i] + sum(acc);
      });
      // From each rate what the solve drives to zero, in a loop of its own:
      // it vectorises, and so runs as selects. In the list walk's loop V8
      // made each of them a branch (wasm has no select of floats that it
      // turns into a blend), mispredicted wherever the rate's sign varies.
      float* const adv = rho_adv_.data();
      const float* const count = neighbours_.data();
      const float* const rho = p.density.data();
      const float step = dt, rest = rho0, fewest = min_neighbours;
      if (divergence) {
        TIDEPOOL_IVDEP
        for (int i = begin; i < end; ++i) adv[i] = count[i] >= fewest ? std::max(adv[i], 0.0f) : 0.0f;
      } else {
        TIDEPOOL_IVDEP
        for (int i = begin; i < end; ++i) adv[i] = std::max(rho[i] + step * adv[i] - rest, 0.0f);
      }
    });
  });
  // The sum and the largest entry in one pass over fixed blocks (reduce):
  // the sum in the same order as sum_over's, so the same bits.
  using SumMax = std::pair<double, double>;
  const SumMax total = reduce(
      n, SumMax{0.0, 0.0},
      [&](int begin, int end) {
        double s = 0.0;
        float most = 0.0f;
        for (int i = begin; i < end; ++i) {
          s += rho_adv_[i];
          most = std::max(most, rho_adv_[i]);
        }
        return SumMax{s, most};
      },
      [](const SumMax& a, const SumMax& b) { return SumMax{a.first + b.first, std::max(a.second, b.second)}; },
      block_sum_max_);
  if (largest) *largest = static_cast<float>(total.second / rho0 * (divergence ? dt : 1.0f));
  return total.first / (n * static_cast<double>(rho0)) * (divergence ? dt : 1.0f);
}

// One solve (density or divergence): warm start, then Jacobi iterations
// until the mean error is below the tolerance (and, in the density solve,
// every particle's below max_compression). Returns the iterations and
// adds its passes over the lists to *passes.
int World::dfsph_solve(float dt, bool divergence, float* error_out, int* passes) {
  Particles& p = particles_;
  const int n = p.size();
  Array<float>& kappa = divergence ? p.aux1 : p.aux0;
  const float* const rho = p.density.data();
  // Warm start (sec. 4.3): half of last step's stiffness, only where the
  // current prediction is compressed; the iterations can only push, so a
  // stale full push elsewhere would inject energy.
  dfsph_predict(dt, divergence, nullptr);
  const bool warm = max_over(n, [&](int begin, int end) {
    // Raw pointers, and no entry read after another's write (ivdep): a
    // loop that vectorises. rho_adv_ gives each entry's prediction and
    // takes its stiffness over rho (dfsph_apply_kappa) in its place.
    float* const k = kappa.data();
    float* const adv_then_k_rho = rho_adv_.data();
    const float* const rho_in = rho;
    const float step = dt;
    int any = 0;
    TIDEPOOL_IVDEP
    for (int i = begin; i < end; ++i) {
      const float k_warm = adv_then_k_rho[i] > 0.0f ? 0.5f * std::max(k[i], 0.0f) : 0.0f;
      k[i] = k_warm;
      adv_then_k_rho[i] = k_warm * step * step / rho_in[i];
      any |= k_warm > 0.0f;
    }
    return static_cast<double>(any);
  }) > 0.0;
  if (warm) dfsph_apply_kappa(dt);
  // Passes: the warm start's prediction and update, then each iteration's
  // prediction and update, and the prediction that stops the loop.
  *passes += warm ? 2 : 1;
  // The density solve stops on the mean error and on the largest one (the
  // divergence solve on the mean): in a 16 000-particle dam break a mean
  // within tolerance hid particles in the pool's corners compressed by 10 %
  // and more, and their correction in one step threw them out at tens of
  // metres a second (README, known limits).
  int it = 0;
  double error = 0.0;
  for (;; ++it) {
    float top = 0.0f;  // stays 0 for the divergence solve
    error = dfsph_predict(dt, divergence, divergence ? nullptr : &top);
    ++*passes;
    if ((error <= params_.tolerance && top <= params_.max_compression) || it >= params_.max_iterations) break;
    // kappa dt^2: (rho* - rho0) alpha (eq. 12) or dt (D rho/Dt) alpha (eq. 8).
    const float scale = divergence ? dt : 1.0f;
    parallel(n, [&](int begin, int end) {
      // Raw pointers, and no entry read after another's write (ivdep): a
      // loop that vectorises, for Clang (wasm) too. rho_adv_ gives each
      // entry's error and takes its increment over rho in its place.
      float* const k_sum = kappa.data();
      float* const adv_then_k_rho = rho_adv_.data();
      const float* const alpha = factor_.data();
      const float* const rho_in = rho;
      const float s = scale, dt2 = dt * dt;
      TIDEPOOL_IVDEP
      for (int i = begin; i < end; ++i) {
        const float k_step = s * adv_then_k_rho[i] * alpha[i];
        k_sum[i] += k_step / dt2;
        adv_then_k_rho[i] = k_step / rho_in[i];
      }
    });
    dfsph_apply_kappa(dt);
    ++*passes;
  }
  if (error_out) *error_out = static_cast<float>(error);
  return it;
}

int World::dfsph_divergence_solve(float dt, int* passes) {
  return dfsph_solve(dt, true, nullptr, passes);
}

int World::dfsph_density_solve(float dt, float* error_out, int* passes) {
  Particles& p = particles_;
  const int n = p.size();
  // Non-pressure accelerations first: v* = v + dt a (Alg. 1).
  parallel(n, [&](int begin, int end) {
    float *vx = p.vx.data(), *vy = p.vy.data();
    const float *ax = p.ax.data(), *ay = p.ay.data();
    const float step = dt;
    TIDEPOOL_IVDEP
    for (int i = begin; i < end; ++i) {
      vx[i] += step * ax[i];
      vy[i] += step * ay[i];
    }
  });
  // The particles whose predicted moves may meet an obstacle (dfsph_predict).
  obstacle_contacts_.clear();
  if (!obstacles_.empty()) {
    for (int i = 0; i < n; ++i)
      if (near_obstacle_[i]) obstacle_contacts_.push_back(i);
  }
  const int it = dfsph_solve(dt, false, error_out, passes);
  // Both solves apply pressure accelerations of the same form, so the
  // pressure acting this step is their sum.
  parallel(n, [&](int begin, int end) {
    float* const pr = p.pressure.data();
    const float *k_density = p.aux0.data(), *k_divergence = p.aux1.data(), *rho = p.density.data();
    TIDEPOOL_IVDEP
    for (int i = begin; i < end; ++i) pr[i] = (k_density[i] + k_divergence[i]) * rho[i];
  });
  return it;
}

}  // namespace tidepool
