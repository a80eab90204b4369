// Divergence-free SPH (Bender & Koschier 2015, "Divergence-Free Smoothed
// Particle Hydrodynamics", SCA; TVCG 2017).
//
// Why DFSPH as the SPH default: like IISPH (Ihmsen et al. 2013) it solves for the
// pressure that brings the predicted density back to rho0, so the step is
// limited by the CFL condition instead of a speed of sound, and it reports
// the density error it reached. Its per-particle factor alpha_i (eq. 11) is
// computed once per step (in the density pass) and reused by both solves,
// so each Jacobi iteration costs two passes over the step's neighbour lists
// (dfsph_lists.h); the second, divergence-free solve removes the velocity divergence that makes WCSPH and
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
// Stiffnesses are stored as kappa (independent of dt), per particle and per
// solve (kappa_, kappa_v_), and warm-start the next step (section 4.3). The pressure
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
#include <memory>
#include <utility>
#include <vector>

#include "density.h"
#include "dfsph_lists.h"
#include "forces.h"
#include "integrate.h"
#include "neighbours.h"
#include "solver.h"
#include "state.h"
#include "tidepool/kernels.h"

namespace tidepool {
namespace {

using List = NeighbourLists::List;

class DfsphSolver final : public SolverBase<DfsphSolver> {
 public:
  void step(WorldState& s, float dt, StageClock& clock, FrameStats& st) override {
    const int n = s.particles.size();
    density_pass(s);
    // A pass over the lists costs their pairs; a scan, every candidate.
    const double sweep = sweep_work(n, mean_neighbours(n));
    st.work += s.candidate_sum;
    clock.lap(kStageDensity);
    // Bender & Koschier 2015, Alg. 1: the divergence solve ends the
    // previous step in the paper; it runs first here, on fresh neighbours.
    if (s.params.divergence_solver) st.divergence_iterations += solve(s, dt, true, nullptr, sweep, st);
    clock.lap(kStagePressure);
    ForceOptions forces;  // all but pressure, which the solves add
    forces.wall_gx = wall_gx_.data();
    forces.wall_gy = wall_gy_.data();
    forces.wall_lap = wall_lap_.data();
    compute_forces(s, dt, forces);
    st.work += s.candidate_sum;
    clock.lap(kStageForces);
    float error = 0.0f;
    st.solver_iterations += density_solve(s, dt, &error, sweep, st);
    // A non-finite error means the step blew up; the safety net repairs
    // the particles, and the stats stay printable.
    st.solver_error = std::isfinite(error) ? error : -1.0f;
    clock.lap(kStagePressure);
    integrate(s, dt, Integration::PositionsOnly);
    st.work += n;
    clock.lap(kStageIntegrate);
  }

  Carried carried() override {
    Carried c;
    c.add(&kappa_);
    c.add(&kappa_v_);
    return c;
  }

  DensityKernel density_kernel() const override { return DensityKernel::Cubic; }

  // Its two scans (the density pass, the forces), each solve's warm start
  // and first prediction over the lists (at most every candidate), the
  // integration and the solves' passes over the particles.
  double least_work(const WorldState& s) const override {
    return 8.0 * s.candidate_sum + kSphParticleTail * s.particles.size();
  }

  // Over the particles of its last density pass: an emitter or a sink may
  // have changed the count since.
  float mean_neighbours(int) const override {
    const size_t n = neighbours_.size();
    if (n == 0) return 0.0f;
    double sum = 0.0;
    for (size_t i = 0; i < n; ++i) sum += neighbours_[i];
    return static_cast<float>(sum / static_cast<double>(n));
  }

  size_t bytes() const override {
    size_t bytes = lists_.bytes() + near_obstacle_.capacity() + obstacle_contacts_.capacity() * sizeof(int);
    for (const auto* v : {&kappa_, &kappa_v_, &neighbours_, &wall_gx_, &wall_gy_, &wall_lap_, &wall_moving_, &factor_,
                          &rho_adv_, &v_pred_})
      bytes += bytes_of(*v);
    return bytes;
  }

 private:
  void density_pass(WorldState& s);
  void predict_velocities(WorldState& s, float dt, bool divergence);
  double predict(WorldState& s, float dt, bool divergence, float* largest);
  void apply_kappa(WorldState& s, float dt);
  int solve(WorldState& s, float dt, bool divergence, float* error, double sweep, FrameStats& st);
  int density_solve(WorldState& s, float dt, float* error, double sweep, FrameStats& st);

  Array<float> kappa_, kappa_v_;   // carried: the density and divergence solves' stiffness
  Array<float> neighbours_;        // per particle, self excluded
  Array<float> wall_gx_, wall_gy_; // gradient of the boundary density
  Array<float> wall_lap_;          // boundary viscosity Laplacian sum
  Array<float> wall_moving_;       // with bodies: sum_b v_b.grad rho_b,i, their share of D rho / Dt
  Array<float> factor_;            // alpha_i (eq. 11)
  // The solves' per-particle scratch: the predicted error, then each
  // iteration's stiffness increment over rho in its place.
  Array<float> rho_adv_;
  // The velocities predict() gathers, (vx, vy) pairs: one load brings both
  // of a neighbour's (gather_pairs).
  Array<float> v_pred_;
  std::vector<uint8_t> near_obstacle_;  // 1 within h of an obstacle (density pass)
  std::vector<int> obstacle_contacts_;  // ... those particles, for predict_velocities
  NeighbourLists lists_;
  std::vector<std::pair<double, double>> block_sum_max_;  // predict()'s reduction
};

// The density pass scans every candidate of every particle: the solves need
// each particle's whole list, m grad W_ij for every neighbour, which the
// pass has in hand: pack() moves a lane group's pairs to the list's end at
// once (a lane permutation with AVX2 or wasm SIMD), i itself left out. Each
// block of particles fills its own buffer, grown to hold the worst case of
// the next particle (all its candidates) before it is scanned. In the same
// pass the factor
//   alpha_i = rho_i / (|sum_j m grad W_ij + grad rho_b,i|^2 + sum_j |m grad W_ij|^2)
// (eq. 11; the self pair adds nothing, r_ii = 0). A hot loop kept whole:
// the lists, the density and the factor come from one scan of the pairs.
void DfsphSolver::density_pass(WorldState& s) {
  Particles& p = s.particles;
  const int n = p.size();
  const float* x = p.x.data();
  const float* y = p.y.data();
  const float m = s.params.mass, h2 = s.params.h * s.params.h;
  const CubicKernel C(s.params.h);
  for (auto* v : {&neighbours_, &wall_gx_, &wall_gy_, &wall_lap_, &factor_}) v->resize(static_cast<size_t>(n));
  // The obstacles' contacts are predicted (predict_velocities) for the
  // particles near one; without obstacles there are none to flag.
  const bool flag_obstacles = !s.solids.empty();
  if (flag_obstacles) near_obstacle_.resize(static_cast<size_t>(n));
  const bool bodies = !s.bodies.empty();
  wall_moving_.resize(bodies ? static_cast<size_t>(n) : 0);
  const DensityOut out = density_outputs(s);
  auto finish = [&](int i, float rho_sum, float sx, float sy) {
    WallSample wall;
    const float density = m * rho_sum + wall_terms(s, i, &wall);
    if (flag_obstacles) near_obstacle_[i] = wall.near_obstacle;
    wall_gx_[i] = wall.gx;
    wall_gy_[i] = wall.gy;
    wall_lap_[i] = wall.lap;
    if (bodies) wall_moving_[i] = wall.moving;
    out.set_density(i, density);
    out.set_normal(i, sx, sy);
    out.set_surface(i);
    return density;
  };
  const int blocks = (n + NeighbourLists::kBlock - 1) / NeighbourLists::kBlock;
  lists_.resize(n);
  const Grid& grid = s.search.grid();
  with_lanes(s.lanes, n, [&](auto lanes) {
    using V = decltype(lanes);
    constexpr int W = V::kWidth;
    s.loops.parallel(blocks, [&](int b0, int b1) {
      // Local copies: the lists' stores could alias the pass's floats for
      // all the compiler knows, which would reload them in every lane group.
      const CubicKernel kernel = C;
      const float* const x_all = x;
      const float* const y_all = y;
      const float radius2 = h2;
      const V mass(m);
      for (int b = b0; b < b1; ++b) {
        NeighbourLists::Block& list = lists_.block(b);
        int k = 0;  // the block's list cursor
        const int last = std::min(n, (b + 1) * NeighbourLists::kBlock);
        for (int i = b * NeighbourLists::kBlock; i < last; ++i) {
          const int candidates = s.candidates[i];  // counted after the sort (World's substep)
          // Room for a pack's whole lane group past the last pair, and for
          // the padding to whole groups of the widest lanes (kListGroup),
          // which may be wider than this pass's.
          const size_t need = static_cast<size_t>(k + candidates + kListGroup);
          if (list.j.size() < need) {
            const size_t grown = need + need / 4;
            list.j.resize(grown);
            list.gx.resize(grown);
            list.gy.resize(grown);
          }
          int* lj = list.j.data();
          float* lgx = list.gx.data();
          float* lgy = list.gy.data();
          V rho(0.0f), sx(0.0f), sy(0.0f), sum2(0.0f);
          const int first = k;
          for_pairs<V>(grid, n, x_all, y_all, i, radius2, [&](int j, V dx, V dy, V r2, typename V::Mask in) {
            const V r = sqrt(r2);
            const V g = select(in, kernel.grad_lanes(r));
            rho += select(in, kernel.value_lanes(r));
            sx += g * dx;
            sy += g * dy;
            sum2 += g * g * r2;
            const unsigned self = static_cast<unsigned>(i - j);  // i's lane, if in this group
            const int bits = lane_bits(in) & ~(self < unsigned{W} ? 1 << self : 0);
            k += V::pack(bits, j, mass * g * dx, mass * g * dy, lj + k, lgx + k, lgy + k);
          });
          // The neighbours within h are the list: i itself is left out.
          neighbours_[i] = static_cast<float>(k - first);
          // The padding (for_list): i itself with a zero gradient, whose
          // terms in the solves are zero (finite times zero), so their lane
          // groups need no mask.
          for (; k % kListGroup != 0; ++k) {
            lj[k] = i;
            lgx[k] = 0.0f;
            lgy[k] = 0.0f;
          }
          lists_.set_end(i, k);
          const float sxi = sum(sx), syi = sum(sy);
          const float density = finish(i, sum(rho), sxi, syi);
          const float ax = m * sxi + wall_gx_[i], ay = m * syi + wall_gy_[i];
          const float denom = ax * ax + ay * ay + m * m * sum(sum2);
          // A particle with no neighbours and no wall cannot be compressed.
          factor_[i] = denom > 1e-12f ? density / denom : 0.0f;
        }
      }
    });
  });
}

// v_i -= (1/dt) [sum_j m (k_i/rho_i + k_j/rho_j) grad W_ij + (k_i/rho_i) grad rho_b]
// with k = kappa * dt^2 (this iteration's increment) over rho given in
// rho_adv_, which is free between the predict passes: the loop that finds
// the increment writes it there, so the pair loop reads one value per j
// and no loop of its own divides by rho first.
void DfsphSolver::apply_kappa(WorldState& s, float dt) {
  Particles& p = s.particles;
  const int n = p.size();
  const float inv_dt = 1.0f / dt;
  const float* k_rho = rho_adv_.data();
  with_lanes(s.lanes, n, [&](auto lanes) {
    using V = decltype(lanes);
    s.loops.parallel(n, [&](int begin, int end) {
      lists_.for_each(begin, end, [&](int i, const List& l) {
        const float ki = k_rho[i];
        V ax(0.0f), ay(0.0f);
        for_list<V>(l.begin, l.end, [&](int k) {
          const V sk = V(ki) + V::gather(k_rho, l.j + k);
          ax += sk * V::load(l.gx + k);
          ay += sk * V::load(l.gy + k);
        });
        p.vx[i] -= (ki * wall_gx_[i] + sum(ax)) * inv_dt;
        p.vy[i] -= (ki * wall_gy_[i] + sum(ay)) * inv_dt;
      });
    });
  });
}

// The velocities predict() reads, in v_pred_. The divergence solve reads
// the particles' own. The density solve predicts where the step leaves
// each particle, so it moves it as integrate() and collide() will: to
// x + dt v, then out of the obstacles and back inside the container's
// contact box. Bender & Koschier's prediction (eq. 12) knows no walls but
// the boundary density: a particle the solve drove into a wall would stop
// there after the step, and the neighbours it had been predicted to make
// room for would come out compressed, step after step. Obstacles are
// tested only for the particles within h of one at the step's start
// (obstacle_contacts_): at the default CFL factor a step moves a particle
// less than h/2.
void DfsphSolver::predict_velocities(WorldState& s, float dt, bool divergence) {
  Particles& p = s.particles;
  const int n = p.size();
  v_pred_.resize(2 * static_cast<size_t>(n));
  float* const v_pred = v_pred_.data();
  if (divergence) {
    s.loops.parallel(n, [&](int begin, int end) {
      const float *u = p.vx.data(), *v = p.vy.data();
      float* const out = v_pred;
      TIDEPOOL_IVDEP
      for (int i = begin; i < end; ++i) {
        out[2 * i] = u[i];
        out[2 * i + 1] = v[i];
      }
    });
    return;
  }
  const float radius = contact_radius(s.spacing());
  const Box b = contact_box(s.box, radius);
  const float e = s.params.restitution;
  s.loops.parallel(n, [&](int begin, int end) {
    // Raw pointers to distinct arrays (ivdep): a loop that vectorises.
    const float *x = p.x.data(), *y = p.y.data(), *u = p.vx.data(), *v = p.vy.data();
    float* const out = v_pred;
    const float x0 = b.min.x, x1 = b.max.x, y0 = b.min.y, y1 = b.max.y;
    const float rest = e, step = dt, inv_step = 1.0f / dt;
    TIDEPOOL_IVDEP
    for (int i = begin; i < end; ++i) {
      const float xs = x[i] + step * u[i], ys = y[i] + step * v[i];
      const float xk = keep_inside(xs, x0, x1, rest), yk = keep_inside(ys, y0, y1, rest);
      // Bit for bit v where the container does nothing.
      out[2 * i] = xk == xs ? u[i] : (xk - x[i]) * inv_step;
      out[2 * i + 1] = yk == ys ? v[i] : (yk - y[i]) * inv_step;
    }
  });
  if (obstacle_contacts_.empty()) return;
  const int* near = obstacle_contacts_.data();
  s.loops.parallel(static_cast<int>(obstacle_contacts_.size()), [&](int begin, int end) {
    for (int k = begin; k < end; ++k) {
      const int i = near[k];
      const glm::vec2 from(p.x[i], p.y[i]);
      // The container first, then the obstacles, as in collide().
      glm::vec2 pos = from + dt * glm::vec2(p.vx[i], p.vy[i]);
      pos = glm::vec2(keep_inside(pos.x, b.min.x, b.max.x, e), keep_inside(pos.y, b.min.y, b.max.y, e));
      // Untouched by any obstacle: the container's answer above stands.
      if (!leave_obstacles(s.solids, b, from, radius, e, &pos, [](const Obstacle&, glm::vec2) {})) continue;
      v_pred[2 * i] = (pos.x - from.x) / dt;
      v_pred[2 * i + 1] = (pos.y - from.y) / dt;
    }
  });
}

// Fills rho_adv_ with what the solve drives to zero:
//   density solve:    rho*_i - rho0 = rho_i + dt (D rho/Dt)_i - rho0, compression only
//   divergence solve: (D rho/Dt)_i, compression only, full neighbourhoods only
// and returns its mean, relative to rho0 and to one step; *largest (if not
// null) gets its largest entry, on the same scale.
double DfsphSolver::predict(WorldState& s, float dt, bool divergence, float* largest) {
  Particles& p = s.particles;
  const int n = p.size();
  const float m = s.params.mass, h2 = s.params.h * s.params.h, rho0 = s.params.rest_density;
  // At the free surface a positive divergence is a particle arriving, not a
  // compression (Bender & Koschier 2015, sec. 4.2): the divergence solve
  // skips particles with less than half a neighbourhood.
  const float min_neighbours = 0.5f * (kPi * h2 * rho0 / m - 1.0f);
  rho_adv_.resize(static_cast<size_t>(n));
  predict_velocities(s, dt, divergence);
  const float* const v_pred = v_pred_.data();
  const float* const moving = wall_moving_.empty() ? nullptr : wall_moving_.data();
  with_lanes(s.lanes, n, [&](auto lanes) {
    using V = decltype(lanes);
    s.loops.parallel(n, [&](int begin, int end) {
      lists_.for_each(begin, end, [&](int i, const List& l) {
        // (D rho / Dt)_i = sum_j m (v_i - v_j).grad W_ij + (v_i - v_b).grad rho_b,i
        const float vxi = v_pred[2 * i], vyi = v_pred[2 * i + 1];
        V acc(0.0f);
        for_list<V>(l.begin, l.end, [&](int k) {
          V vxj, vyj;
          V::gather_pairs(v_pred, l.j + k, &vxj, &vyj);
          const V dvx = V(vxi) - vxj, dvy = V(vyi) - vyj;
          acc += dvx * V::load(l.gx + k) + dvy * V::load(l.gy + k);
        });
        rho_adv_[i] = vxi * wall_gx_[i] + vyi * wall_gy_[i] + sum(acc);
        if (moving) rho_adv_[i] -= moving[i];
      });
      // From each rate what the solve drives to zero, in a loop of its own:
      // it vectorises, and so runs as selects, where in the list walk's
      // loop a compiler may make each a branch, mispredicted wherever the
      // rate's sign varies.
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
  const SumMax total = s.loops.reduce(
      n, SumMax{0.0, 0.0},
      [&](int begin, int end) {
        double sum = 0.0;
        float most = 0.0f;
        for (int i = begin; i < end; ++i) {
          sum += rho_adv_[i];
          most = std::max(most, rho_adv_[i]);
        }
        return SumMax{sum, most};
      },
      [](const SumMax& a, const SumMax& b) { return SumMax{a.first + b.first, std::max(a.second, b.second)}; },
      block_sum_max_);
  if (largest) *largest = static_cast<float>(total.second / rho0 * (divergence ? dt : 1.0f));
  return total.first / (n * static_cast<double>(rho0)) * (divergence ? dt : 1.0f);
}

// One solve (density or divergence): warm start, then Jacobi iterations
// until the mean error is below the tolerance (and, in the density solve,
// every particle's below max_compression), or the frame's work bound
// leaves no room for another iteration (two passes of `sweep` each) and
// the rest of the step.
// Returns the iterations, and adds its passes over the lists and their
// work to st.
int DfsphSolver::solve(WorldState& s, float dt, bool divergence, float* error_out, double sweep, FrameStats& st) {
  const Params& P = s.params;
  const int n = s.particles.size();
  Array<float>& kappa = divergence ? kappa_v_ : kappa_;
  const float* const rho = s.particles.density.data();
  // Warm start (sec. 4.3): half of last step's stiffness, only where the
  // current prediction is compressed; the iterations can only push, so a
  // stale full push elsewhere would inject energy.
  predict(s, dt, divergence, nullptr);
  const bool warm = s.loops.max_over(n, [&](int begin, int end) {
    // Raw pointers, and no entry read after another's write (ivdep): a
    // loop that vectorises. rho_adv_ gives each entry's prediction and
    // takes its stiffness over rho (apply_kappa) in its place.
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
  if (warm) apply_kappa(s, dt);
  // Passes: the warm start's prediction and update, then each iteration's
  // prediction and update, and the prediction that stops the loop.
  const int warm_passes = warm ? 2 : 1;
  st.solver_passes += warm_passes;
  st.work += warm_passes * sweep;
  // The density solve stops on the mean error and on the largest one (the
  // divergence solve on the mean): a mean within tolerance can hide a few
  // particles compressed far more (the corners of a large pool), whose
  // correction in one step would throw them out.
  int it = 0;
  double error = 0.0;
  for (;; ++it) {
    float top = 0.0f;  // stays 0 for the divergence solve
    error = predict(s, dt, divergence, divergence ? nullptr : &top);
    ++st.solver_passes;
    st.work += sweep;
    if ((error <= P.tolerance && top <= P.max_compression) || it >= P.max_iterations ||
        !within_bound(st, (2.0 + kSphListTail) * sweep + kSphScanTail * s.candidate_sum + kSphParticleTail * n +
                              shared_least(s)))
      break;
    // kappa dt^2: (rho* - rho0) alpha (eq. 12) or dt (D rho/Dt) alpha (eq. 8).
    const float scale = divergence ? dt : 1.0f;
    s.loops.parallel(n, [&](int begin, int end) {
      // Raw pointers, and no entry read after another's write (ivdep): a
      // loop that vectorises. rho_adv_ gives each entry's error and takes
      // its increment over rho in its place.
      float* const k_sum = kappa.data();
      float* const adv_then_k_rho = rho_adv_.data();
      const float* const alpha = factor_.data();
      const float* const rho_in = rho;
      const float sc = scale, dt2 = dt * dt;
      TIDEPOOL_IVDEP
      for (int i = begin; i < end; ++i) {
        const float k_step = sc * adv_then_k_rho[i] * alpha[i];
        k_sum[i] += k_step / dt2;
        adv_then_k_rho[i] = k_step / rho_in[i];
      }
    });
    apply_kappa(s, dt);
    ++st.solver_passes;
    st.work += sweep;
  }
  if (error_out) *error_out = static_cast<float>(error);
  return it;
}

int DfsphSolver::density_solve(WorldState& s, float dt, float* error_out, double sweep, FrameStats& st) {
  Particles& p = s.particles;
  const int n = p.size();
  // Non-pressure accelerations first: v* = v + dt a (Alg. 1).
  s.loops.parallel(n, [&](int begin, int end) {
    float *vx = p.vx.data(), *vy = p.vy.data();
    const float *ax = p.ax.data(), *ay = p.ay.data();
    const float step = dt;
    TIDEPOOL_IVDEP
    for (int i = begin; i < end; ++i) {
      vx[i] += step * ax[i];
      vy[i] += step * ay[i];
    }
  });
  // The particles whose predicted moves may meet an obstacle (predict_velocities).
  obstacle_contacts_.clear();
  if (!s.solids.empty()) {
    for (int i = 0; i < n; ++i)
      if (near_obstacle_[i]) obstacle_contacts_.push_back(i);
  }
  const int it = solve(s, dt, false, error_out, sweep, st);
  // Both solves apply pressure accelerations of the same form, so the
  // pressure acting this step is their sum.
  s.loops.parallel(n, [&](int begin, int end) {
    float* const pr = p.pressure.data();
    const float *k_density = kappa_.data(), *k_divergence = kappa_v_.data(), *rho = p.density.data();
    TIDEPOOL_IVDEP
    for (int i = begin; i < end; ++i) pr[i] = (k_density[i] + k_divergence[i]) * rho[i];
  });
  return it;
}

}  // namespace

std::unique_ptr<FluidSolver> make_dfsph(const Params&) { return std::make_unique<DfsphSolver>(); }

}  // namespace tidepool
